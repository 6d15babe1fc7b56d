"""The A/B compare page's names and words: plain names of the models and variance components,
and how the verdict was decided (its charts: ``app/charts/svg_compare.py``)."""

from __future__ import annotations

import math

#: Plain names of the engine's models (``ABComparison.models["model"]``); the technical name
#: stays in the tooltip.
MODEL_NAMES = {"ols": "runs pooled (OLS)", "ols-fe": "per-example baseline (fixed effects)",
               "ols-fe-cluster": "fixed effects, clustered errors",
               "mixedlm": "random example effect (MixedLM)", "paired-t": "paired t on means",
               # one run each: the Pairwise page's own test decides (its code in brackets)
               "mcnemar": "examples only one system solves (McNemar)",
               "wilcoxon": "signed ranks of the differences (Wilcoxon)",
               "sign": "which system wins each example (sign test)",
               "permutation": "shuffled labels (permutation)", "t": "means (Welch's t)",
               "z": "solve rates (two-proportion z)",
               # repeated runs (engine PairRunTest.model): the run-aware tests
               "vc-t": "per-example means, run-to-run variation added (variance-components t)",
               "cluster-t": "per-example means, examples grouped (cluster-robust t)",
               "cluster-vc-t": "per-example means, examples grouped, run-to-run variation "
                               "added (cluster-robust variance-components t)",
               "mixedlm+run-vc": "random example effect, run-to-run variation added (MixedLM)"}
COMPONENT_NAMES = {"example": "between examples", "system×example": "system × example",
                   "run": "between runs", "residual": "within runs"}


def model_label(model: str) -> str:
    """A model's plain label (the verdict's row keeps its own name with "(verdict)")."""
    if model.endswith("(verdict)"):
        base = model.removesuffix(" (verdict)")
        return f"verdict: {MODEL_NAMES.get(base, base)}"
    return MODEL_NAMES.get(model, model)


def decided_words(model: str, reason: str, *, runs: tuple[int, int], run_varies: bool,
                  run_p: float, balanced: bool) -> tuple[str, str]:
    """How A/B compare decided, in plain words (the model without its technical name, and
    what the runs did), and the technical account for the tooltip.

    ``model`` and ``reason`` are the engine's (``PairRunTest``); ``run_varies``: a run
    variance component entered; ``run_p``: the p-value of the run effect (NaN: none).

    Examples
    --------
    >>> words, tip = decided_words("vc-t", "… Satterthwaite df 1.2", runs=(3, 3),
    ...                            run_varies=True, run_p=0.01, balanced=True)
    >>> words.split(" — ")[0], tip.split(":")[0]
    ('per-example means, run-to-run variation added', 'variance-components t')
    """
    label = model_label(model)
    plain = label.split(" (")[0] if label.endswith(")") else label
    technical = f"{label}: {reason}" if plain == label else \
        f"{label[len(plain) + 2:-1]}: {reason}"
    if runs == (1, 1):  # the engine's reason is plain already (the Pairwise page's test)
        return f"{plain} — {reason}", technical
    words = f"{runs[0]} and {runs[1]} runs per example"
    if not math.isfinite(run_p):
        words += "; too few to tell how runs vary"
    elif run_varies:
        words += (f"; whole runs shift a system’s scores (p = {run_p:.2g}), so that variation "
                  "widens the interval")
    else:
        words += "; runs vary like independent tries of each example"
    return f"{plain} — {words}{'' if balanced else '; some runs miss some examples'}", technical
