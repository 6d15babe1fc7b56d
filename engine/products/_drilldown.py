"""Example drill-down: one example's score for every system, its health figures and its text.

The health report flags suspicious examples (solved by weak systems but not by
strong ones: Kendall's tau < 0). The drill-down shows one of them in full: every
system's score on it, best system first, how many systems solve it, its tau as
the health report computes it, and the prompt / reference / output text when the
upload carried it (per-example metadata, per-observation columns of the table, or
the results store's outputs of this example). Text is returned as plain strings:
whoever shows it escapes it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .._contract import REQUIRED_COLUMNS, MetricSpec
from .._matrix import build_matrix, pick_slice
from ..io._readers import is_text, split_metadata
from ..ranking._ties import competition_ranks
from ._health import kendall_tau_b_binary

__all__ = ["ExampleDrilldown", "example_drilldown"]

_KEYS = (*REQUIRED_COLUMNS, "run")
_SCORES = ("rank", "system", "quality", "score", "solved")


@dataclass(frozen=True)
class ExampleDrilldown:
    """One example of one benchmark and metric, seen across systems.

    ``scores`` columns: rank (of the system's quality), system, quality (mean
    oriented score on the examples every system has: the health report's
    rating), score (on this example, the metric's units; NaN when not scored),
    solved (1/0; NaN when "solved" is undefined or the score is missing), then
    one column per per-system text column (e.g. the system's output). ``text``:
    per-example text columns (prompt, reference) as plain strings.
    """

    benchmark: str
    metric: str
    example_id: str
    scores: pd.DataFrame
    tau: float
    n_solved: int | None
    n_scored: int
    solved_by: tuple[str, ...]
    solved_rule: str | None
    text: dict[str, str]
    notes: tuple[str, ...] = field(default=())


def _as_text(value: object) -> str:
    return "" if value is None or (isinstance(value, float) and np.isnan(value)) else str(value)


def _text_columns(part: pd.DataFrame, wanted: Sequence[str] | None
                  ) -> tuple[list[str], list[str]]:
    """Per-example and per-(system, example) text columns (system metadata is not text here)."""
    results, _, example_meta = split_metadata(part)
    per_example = [c for c in example_meta.columns if c not in ("benchmark", "example_id")]
    per_row = [c for c in results.columns if c not in _KEYS]
    if wanted is None:
        return ([c for c in per_example if is_text(example_meta[c])],
                [c for c in per_row if is_text(results[c])])
    unknown = [c for c in wanted if c not in per_example and c not in per_row]
    if unknown:
        raise ValueError(f"text_columns: {unknown!r} are not per-example or per-output columns "
                         f"of this benchmark; available: {per_example + per_row!r}")
    return [c for c in wanted if c in per_example], [c for c in wanted if c in per_row]


def _stored_outputs(outputs: pd.DataFrame | None) -> dict[str, dict[str, str]]:
    """``{name: {system: text}}`` from a long ``system, run, name, value`` frame."""
    if outputs is None or outputs.empty:
        return {}
    missing = {"system", "run", "name", "value"} - set(outputs.columns)
    if missing:
        raise ValueError(f"outputs: columns {sorted(missing)} are missing; give system, run, "
                         "name and value (as ResultsStore.example_outputs returns them)")
    out: dict[str, dict[str, str]] = {}
    ordered = outputs.sort_values(["name", "system", "run"], kind="stable")
    for (name, system), part in ordered.groupby(["name", "system"], sort=False):
        values = [_as_text(v) for v in part["value"]]
        runs = part["run"].tolist()
        out.setdefault(str(name), {})[str(system)] = values[0] if len(values) == 1 else \
            "\n\n".join(f"[run {r}]\n{v}" for r, v in zip(runs, values, strict=True))
    return out


def _solved(score: np.ndarray, binary: bool, higher: bool, threshold: float | None
            ) -> tuple[np.ndarray | None, str | None]:
    """The health report's rule: oriented score 1 for binary metrics, else the threshold."""
    if binary:
        return (score > 0.0) if higher else (score < 1.0), \
            "score = 1" if higher else "score = 0 (lower is better)"
    if threshold is None:
        return None, None
    return (score >= threshold, f"score ≥ {threshold:g}") if higher else \
        (score <= threshold, f"score ≤ {threshold:g} (lower is better)")


def example_drilldown(
    df: pd.DataFrame,
    *,
    example_id: str,
    benchmark: str | None = None,
    metric: str | None = None,
    spec: MetricSpec | None = None,
    threshold: float | None = None,
    text_columns: Sequence[str] | None = None,
    outputs: pd.DataFrame | None = None,
) -> ExampleDrilldown:
    """Every system's score on one example, sorted by system quality, with tau and text.

    Parameters
    ----------
    df : DataFrame
        Canonical long table (metadata columns kept, as the readers and the store give it).
    example_id : str, keyword-only
        The example to show.
    benchmark, metric : str, optional
        Which benchmark and metric (may be omitted when the table holds only one).
    spec : MetricSpec, optional
        Direction and modality of the metric (default: as recorded).
    threshold : float, optional
        "Solved" threshold of a numeric metric (default: ``spec.threshold``); a binary
        metric's solved is score 1 (0 when lower is better).
    text_columns : sequence of str, optional
        Metadata columns to return as text (default: every non-numeric per-example
        column, e.g. prompt and reference, and every non-numeric per-output column).
    outputs : DataFrame, optional
        Each system's text on this example, columns ``system, run, name, value`` (as
        :meth:`engine.store.ResultsStore.example_outputs` returns it): one more scores
        column per name, replacing a per-output column of ``df`` of the same name. A
        system with several runs gets its runs' texts one after the other, each headed
        ``[run r]``.

    Returns
    -------
    ExampleDrilldown
        ``scores`` (rank, system, quality, score, solved, per-output text),
        ``tau``, ``n_solved``, ``n_scored``, ``solved_by``, ``text``.

    Notes
    -----
    Quality is each system's mean oriented score on the examples every system
    has, the health report's rating. tau is Kendall's tau-b between the solved
    indicator on this example and quality, over the systems that scored it:
    the health report's per-example tau (eval-arena); tau < 0 means weaker
    systems solve it more often than stronger ones, a sign of a wrong reference
    or a noisy example. Text is returned unescaped.

    References
    ----------
    Wang, Gu, Liu, Wei, Jain, Lai, Sootla, Press, Rozière & Synnaeve (2024).
    Eval-Arena: noise and errors by leaderboard showdowns.
    https://github.com/crux-eval/eval-arena: per-example tau and "solved by" counts.

    Examples
    --------
    >>> df = pd.DataFrame({"benchmark": "b", "metric": "m", "system": ["A"] * 3 + ["B"] * 3,
    ...                    "example_id": ["1", "2", "3"] * 2, "value": [1.0, 1, 0, 0, 1, 1],
    ...                    "prompt": ["p1", "p2", "p3"] * 2})
    >>> d = example_drilldown(df, example_id="3")
    >>> d.scores[["system", "score"]].to_dict("list"), d.solved_by, d.text
    ({'system': ['A', 'B'], 'score': [0.0, 1.0]}, ('B',), {'prompt': 'p3'})
    """
    bench, met = pick_slice(df, benchmark, metric)
    part = df[(df["benchmark"] == bench) & (df["metric"] == met)]
    matrix = build_matrix(part, spec=spec)
    if str(example_id) not in matrix.examples:
        raise ValueError(f"example_id: {example_id!r} is not an example of benchmark {bench!r}, "
                         f"metric {met!r}")
    col = matrix.examples.index(str(example_id))
    notes = []
    if matrix.n_common == 0:
        quality = np.full(matrix.n_systems, np.nan)
        notes.append("No example is scored by every system, so systems have no common quality.")
    else:
        quality = matrix.oriented(paired=True).mean(axis=1)
    score = matrix.values[:, col]
    has = ~np.isnan(score)
    declared = spec if spec is not None else df.attrs.get("metric_specs", {}).get(met)
    thr = threshold if threshold is not None else getattr(declared, "threshold", None)
    solved, rule = _solved(score, matrix.binary, matrix.higher_is_better, thr)
    tau, n_solved, solved_by = float("nan"), None, tuple[str, ...]()
    if solved is None:
        notes.append(f"'solved' is not defined for the numeric metric {met!r} without a "
                     "threshold, so n_solved, solved_by and tau are not reported.")
    else:
        keep = has & np.isfinite(quality)
        tau = float(kendall_tau_b_binary(solved[keep, None], quality[keep])[0])
        n_solved = int((solved & has).sum())
        solved_by = tuple(s for s, ok in zip(matrix.systems, solved & has, strict=True) if ok)
    table = pd.DataFrame({
        "system": list(matrix.systems), "quality": quality, "score": score,
        "solved": np.where(has, solved, np.nan) if solved is not None else np.nan})
    ranked = ~np.isnan(quality)  # no common quality: no rank (<NA>)
    rank = pd.array([pd.NA] * len(table), dtype="Int64")
    rank[ranked] = competition_ranks(quality[ranked])
    table["rank"] = rank
    per_example, per_row = _text_columns(part, text_columns)
    rows = part[part["example_id"] == str(example_id)]
    if per_row:
        first = rows.drop_duplicates("system").set_index("system")
        for c in per_row:
            table[c] = [_as_text(first[c].get(s)) if s in first.index else ""
                        for s in table["system"]]
    text = {c: _as_text(rows[c].iloc[0]) for c in per_example}
    for stored, texts in _stored_outputs(outputs).items():
        name = f"{stored} (text)" if stored in _SCORES else stored  # never over a figure
        table[name] = [texts.get(str(sy), "") for sy in table["system"]]
        per_row = [*(c for c in per_row if c != name), name]
    table = table.sort_values(["quality", "system"], ascending=[False, True], kind="stable",
                              na_position="last")
    table = table[[*_SCORES, *per_row]].reset_index(drop=True)
    return ExampleDrilldown(bench, met, str(example_id), table, tau, n_solved, int(has.sum()),
                            solved_by, rule, text, tuple(notes))
