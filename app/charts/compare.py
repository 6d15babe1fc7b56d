"""Charts of the A/B compare page: the difference by each model, and where the variance is."""

from __future__ import annotations

import math

import altair as alt
import pandas as pd

#: Plain names of the engine's models (``ABResult.models["model"]``); the technical name
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
    what the runs did), and the technical account for the tooltip (#27 item 5).

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


def models_chart(models: pd.DataFrame, *, metric: str, level: str) -> alt.LayerChart:
    """Each model's estimate of candidate − baseline with its interval; the rule marks 0."""
    frame = models.assign(label=[model_label(m) for m in models["model"]])
    y = alt.Y("label:N", sort=list(frame["label"]), title=None, axis=alt.Axis(labelLimit=260))
    x_title = f"candidate − baseline ({metric}; {level} interval)"
    bars = alt.Chart(frame).mark_rule(strokeWidth=2.5, color="#3b5b92").encode(
        x=alt.X("ci_low:Q", title=x_title), x2="ci_high:Q", y=y,
        tooltip=[alt.Tooltip("model:N", title="model"),
                 alt.Tooltip("estimate:Q", format=".4f"), alt.Tooltip("ci_low:Q", format=".4f"),
                 alt.Tooltip("ci_high:Q", format=".4f"), alt.Tooltip("pvalue:Q", format=".3g")])
    dots = alt.Chart(frame).mark_circle(size=70, color="#1f2933", opacity=1).encode(
        x="estimate:Q", y=y)
    zero = alt.Chart(pd.DataFrame({"x": [0.0]})).mark_rule(color="#d62728",
                                                           strokeDash=[4, 4]).encode(x="x:Q")
    return (zero + bars + dots).properties(height=alt.Step(30), title="Difference by model")


def variance_chart(variance: pd.DataFrame) -> alt.Chart:
    """Share of the score variance in each component (between examples, within runs, …)."""
    frame = variance.dropna(subset=["share"]).assign(
        label=lambda f: [COMPONENT_NAMES.get(c, c) for c in f["component"]])
    return alt.Chart(frame).mark_bar(color="#3b5b92").encode(
        # five ticks: at 360 px ten labels ran together ("90%100%", #27 screenshots)
        x=alt.X("share:Q", title="share of the variance", axis=alt.Axis(format="%", tickCount=5),
                scale=alt.Scale(domain=[0, 1])),
        y=alt.Y("label:N", title=None, sort=list(frame["label"])),
        tooltip=[alt.Tooltip("component:N"), alt.Tooltip("variance:Q", format=".4g"),
                 alt.Tooltip("share:Q", format=".1%")],
    ).properties(height=alt.Step(28), title="Where the variance is")
