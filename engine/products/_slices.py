"""Slices: a benchmark split by a per-example metadata column, each slice ranked and tested.

A per-example column (category, language, difficulty, subset) cuts a benchmark
into slices. On each slice every system gets the leaderboard's estimate and
interval, and every pair the leaderboard's test; the tests of all slices are
adjusted together, as one family, so that "A beats B on *hard* but not on
*easy*" is not an artefact of running many slices. A pair whose verdict differs
between slices (significantly better in one, worse or not shown to differ in
another) is listed as a change.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from .._contract import MetricSpec
from .._matrix import build_matrix, pick_slice
from .._options import EFFECT_THRESHOLDS, TestOptions, resolve
from ..io._readers import split_metadata
from ..stats._multitest import adjust_pvalues
from ._leaderboard import leaderboard

__all__ = ["SliceTable", "restrict_to_slice", "slice_labels", "slice_table"]

#: A numeric column with more distinct values than this is cut into quantile bins.
MAX_NUMERIC_LEVELS = 10
_BETTER, _WORSE, _SAME = "system_a better", "system_b better", "not shown to differ"


@dataclass(frozen=True)
class SliceTable:
    """Per-slice estimates and pairwise verdicts of one benchmark and metric.

    ``estimates`` columns: slice, system, rank, mean, ci_low, ci_high, n (as the
    leaderboard of that slice). ``pairs``: slice, system_a, system_b (names in
    sorted order), difference (positive = system_a better), ci_low, ci_high,
    pvalue, pvalue_adj (adjusted across all slices together), significant,
    verdict. ``changes``: one row per pair whose verdict differs between slices:
    system_a, system_b, a_better_in, b_better_in, not_different_in (slice lists),
    reversal (significant in opposite directions in two slices; otherwise the pair is
    significant in some slices and not shown to differ in others, which smaller
    slices' lower power alone can produce).
    ``binned`` says a numeric column was cut into quantile bins (``edges``).
    """

    benchmark: str
    metric: str
    column: str
    slices: tuple[str, ...]
    estimates: pd.DataFrame
    pairs: pd.DataFrame
    changes: pd.DataFrame
    options: TestOptions
    binned: bool
    edges: tuple[float, ...] = ()
    notes: tuple[str, ...] = field(default=())


def _example_column(df: pd.DataFrame, benchmark: str, column: str) -> pd.Series:
    """The column's value per example of ``benchmark``; it must be per-example metadata."""
    if column not in df.columns:
        raise ValueError(f"column: no column {column!r} in the data; metadata columns: "
                         f"{[c for c in df.columns if c not in _KEYS]!r}")
    if column in _KEYS:
        raise ValueError(f"column: {column!r} is a key column, not per-example metadata")
    part = df[df["benchmark"] == benchmark]
    _, system_meta, example_meta = split_metadata(part)
    if column not in example_meta.columns:
        kind = "system metadata" if column in system_meta.columns else "varies within an example"
        raise ValueError(f"column: {column!r} must take one value per example to define slices; "
                         f"it is {kind} on benchmark {benchmark!r}")
    return example_meta.set_index("example_id")[column]


_KEYS = ("benchmark", "system", "example_id", "metric", "value", "run")


def _labels(values: pd.Series, bins: int) -> tuple[pd.Series, bool, tuple[float, ...]]:
    """String slice labels; a numeric column with many levels goes to quantile bins."""
    numeric = pd.api.types.is_numeric_dtype(values.dtype) and not pd.api.types.is_bool_dtype(
        values.dtype)
    if numeric and values.nunique(dropna=True) > MAX_NUMERIC_LEVELS:
        cut, edges = pd.qcut(values.astype(float), q=bins, retbins=True, duplicates="drop")
        width = len(str(len(edges) - 1))
        names = {iv: f"q{i + 1:0{width}d} [{iv.left:.4g}, {iv.right:.4g}]"
                 for i, iv in enumerate(cut.cat.categories)}
        out = cut.map(names).astype(object)
        return out.where(cut.notna(), "missing"), True, tuple(float(e) for e in edges)
    out = values.astype(object).where(values.notna(), "missing").map(str)
    return out, False, ()


def slice_labels(df: pd.DataFrame, *, benchmark: str, column: str, bins: int = 4) -> pd.Series:
    """The slice of each example of ``benchmark`` (index example_id), as :func:`slice_table` cuts it."""
    if bins < 2:
        raise ValueError(f"bins: must be at least 2; got {bins}")
    return _labels(_example_column(df, benchmark, column), bins)[0]


def restrict_to_slice(df: pd.DataFrame, *, column: str, value: object, bins: int = 4
                      ) -> pd.DataFrame:
    """The rows of ``df`` whose example is in one slice (for the leaderboard/pairwise views).

    ``value`` is a raw value of ``column`` or a slice label as :func:`slice_table`
    shows it (e.g. a quantile bin ``"q1 [0, 3]"``). Each benchmark is cut on its own.

    Examples
    --------
    >>> df = pd.DataFrame({"benchmark": "b", "metric": "m", "system": ["A", "A", "B", "B"],
    ...                    "example_id": ["1", "2"] * 2, "value": [1.0, 0, 1, 1],
    ...                    "level": ["easy", "hard"] * 2})
    >>> restrict_to_slice(df, column="level", value="hard")["example_id"].tolist()
    ['2', '2']
    """
    keep = pd.Series(False, index=df.index)
    for bench in pd.unique(df["benchmark"]):
        labels = slice_labels(df, benchmark=str(bench), column=column, bins=bins)
        raw = _example_column(df, str(bench), column)
        wanted = set(labels.index[(labels == str(value)) | (raw.astype(object) == value)])
        rows = df["benchmark"] == bench
        keep |= rows & df["example_id"].isin(wanted)
    if not keep.any():
        raise ValueError(f"value: no example has {column} = {value!r}")
    return df[keep]


def _verdict(significant: np.ndarray, difference: np.ndarray) -> np.ndarray:
    return np.where(~significant, _SAME, np.where(difference > 0, _BETTER, _WORSE))


def _one_slice(df: pd.DataFrame, name: str, opts: TestOptions, spec: MetricSpec | None
               ) -> tuple[pd.DataFrame, pd.DataFrame]:
    m = build_matrix(df, spec=spec)
    lb = leaderboard(m, opts.with_(correction="none"), bt_resamples=0)
    est = lb.table[["system", "rank", "mean", "ci_low", "ci_high", "n"]].assign(slice=name)
    t = lb.pairwise.table
    # names in sorted order, so a pair is the same row whatever order the systems came in
    swap = t["system_a"].astype(str).to_numpy() > t["system_b"].astype(str).to_numpy()
    sign = np.where(swap, -1.0, 1.0)
    pairs = pd.DataFrame({
        "slice": name,
        "system_a": np.where(swap, t["system_b"], t["system_a"]),
        "system_b": np.where(swap, t["system_a"], t["system_b"]),
        "difference": sign * t["difference"].to_numpy(float),
        "ci_low": np.where(swap, -t["ci_high"], t["ci_low"]),
        "ci_high": np.where(swap, -t["ci_low"], t["ci_high"]),
        "criterion_effect": sign * t["criterion_effect"].to_numpy(float),
        "pvalue": t["pvalue"].to_numpy(float), "n": t["n"].to_numpy(),
    })
    return est, pairs


def _significant(pairs: pd.DataFrame, opts: TestOptions) -> np.ndarray:
    """Adjusted p < alpha; an effect-size criterion also asks for |effect| at its threshold."""
    sig = pairs["pvalue_adj"].to_numpy(float) < opts.alpha
    if opts.criterion != "pvalue":
        sig &= np.abs(pairs["criterion_effect"].to_numpy(float)) >= EFFECT_THRESHOLDS[opts.criterion]
    return np.asarray(sig)


def _changes(pairs: pd.DataFrame) -> pd.DataFrame:
    """Pairs with more than one verdict across slices, at least one of them significant."""
    cols = ["system_a", "system_b", "a_better_in", "b_better_in", "not_different_in", "reversal"]
    keys = ["system_a", "system_b"]
    varied = pairs.groupby(keys, sort=True)["verdict"].transform("nunique") > 1 \
        if not pairs.empty else pd.Series(dtype=bool)
    part = pairs.loc[varied, [*keys, "verdict", "slice"]]
    if part.empty:
        return pd.DataFrame(columns=cols)
    # one grouping for every changed pair (a filter per pair was 80% of slice_table's time)
    lists = part.groupby([*keys, "verdict"], sort=True)["slice"].agg(sorted).unstack("verdict")
    out = pd.DataFrame(index=lists.index)
    for col, verdict in zip(cols[2:5], (_BETTER, _WORSE, _SAME), strict=True):
        found = lists[verdict] if verdict in lists.columns else pd.Series(index=lists.index)
        out[col] = [v if isinstance(v, list) else [] for v in found]
    # significant both ways: the slices disagree, not only the power of their tests
    out["reversal"] = out["a_better_in"].map(bool) & out["b_better_in"].map(bool)
    return out.reset_index()[cols]


def slice_table(
    df: pd.DataFrame,
    *,
    benchmark: str | None = None,
    metric: str | None = None,
    column: str,
    spec: MetricSpec | None = None,
    options: TestOptions | None = None,
    bins: int = 4,
    min_examples: int = 2,
    **overrides: Any,
) -> SliceTable:
    """Each system's estimate per slice of a per-example metadata column, and verdict changes.

    Parameters
    ----------
    df : DataFrame
        Canonical long table with the metadata column (as read by :func:`read_results`).
    benchmark, metric : str, optional
        Which benchmark and metric (may be omitted when the table holds only one).
    column : str, keyword-only
        A per-example metadata column (constant within each example).
    spec : MetricSpec, optional
        Direction and modality of the metric (default: as recorded by the reader).
    options : TestOptions, optional
        Tests, correction and alpha, as for :func:`engine.pairwise_tests`; ``**overrides``
        sets any of them by name.
    bins : int, keyword-only
        Quantile bins for a numeric column with more than 10 distinct values.
    min_examples : int, keyword-only
        Slices with fewer examples are left out (and named in ``notes``).

    Returns
    -------
    SliceTable
        ``estimates`` (slice, system, rank, mean, ci_low, ci_high, n), ``pairs``
        (slice, system_a, system_b, difference, ci_low, ci_high, pvalue, pvalue_adj,
        significant, verdict), ``changes`` (pairs whose verdict differs between slices;
        ``reversal`` when significant in opposite directions).

    Notes
    -----
    Each slice's estimates and tests are the leaderboard's on that slice's examples
    (means with Wilson or t intervals at 1 − alpha; the test chosen as in
    :func:`engine.pairwise_tests`). The raw p-values of all S slices × P pairs are
    adjusted together with ``options.correction``: with Holm, the family-wise
    error over every slice and pair stays at alpha, so a verdict change is not
    produced by testing many slices. A pair "changes" when it is significant in
    at least one slice and its verdict (a better / b better / not shown to
    differ) is not the same in every slice. A verdict of "not shown to differ" in
    a small slice is weak evidence of no difference.

    References
    ----------
    Ackerman, Farchi, Raz & Toledo (2025). Statistical multi-metric evaluation
    and visualization of LLM system predictive performance. arXiv:2501.18243,
    §10.1 (grouping on auxiliary variables, ``signif_pair_diff_bygroup``).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> df = pd.DataFrame({"benchmark": "b", "metric": "m", "system": np.repeat(["A", "B"], 200),
    ...                    "example_id": np.tile(np.arange(200).astype(str), 2),
    ...                    "value": np.r_[rng.random(200) < 0.8, rng.random(200) < 0.3] * 1.0,
    ...                    "level": np.tile(["easy", "hard"], 200)})
    >>> res = slice_table(df, column="level")
    >>> res.slices, res.pairs["verdict"].tolist()
    (('easy', 'hard'), ['system_a better', 'system_a better'])
    """
    opts = resolve(options, overrides)
    if min_examples < 2:
        raise ValueError(f"min_examples: must be at least 2; got {min_examples}")
    bench, met = pick_slice(df, benchmark, metric)
    part = df[(df["benchmark"] == bench) & (df["metric"] == met)]
    if bins < 2:
        raise ValueError(f"bins: must be at least 2; got {bins}")
    labels_of, binned, edges = _labels(_example_column(df, bench, column), bins)
    row_label = part["example_id"].map(labels_of)
    notes = [f"{column} is numeric: cut into {len(edges) - 1} quantile bins."] if binned else []
    estimates, pairs, kept = [], [], []
    for name in sorted(pd.unique(row_label)):
        rows = part[row_label == name]
        n_examples, n_systems = rows["example_id"].nunique(), rows["system"].nunique()
        if n_examples < min_examples or n_systems < 2:
            notes.append(f"Slice {name!r} left out: {n_examples} example(s), "
                         f"{n_systems} system(s).")
            continue
        est, pr = _one_slice(rows, name, opts, spec)
        estimates.append(est)
        pairs.append(pr)
        kept.append(name)
    if not kept:
        raise ValueError(f"column: no slice of {column!r} has {min_examples} examples and 2 systems")
    est_all = pd.concat(estimates, ignore_index=True)
    est_all = est_all[["slice", "system", "rank", "mean", "ci_low", "ci_high", "n"]]
    pairs_all = pd.concat(pairs, ignore_index=True)
    pairs_all["pvalue_adj"] = adjust_pvalues(pairs_all["pvalue"].to_numpy(float),
                                             method=opts.correction, alpha=opts.alpha)
    pairs_all["significant"] = _significant(pairs_all, opts)
    pairs_all["verdict"] = _verdict(pairs_all["significant"].to_numpy(bool),
                                    pairs_all["difference"].to_numpy(float))
    pairs_all = pairs_all.sort_values(["slice", "system_a", "system_b"], kind="stable")
    pairs_all = pairs_all.drop(columns="criterion_effect").reset_index(drop=True)
    est_all = est_all.sort_values(["slice", "rank", "system"], kind="stable").reset_index(drop=True)
    return SliceTable(bench, met, column, tuple(kept), est_all, pairs_all, _changes(pairs_all),
                      opts, binned, edges, tuple(notes))
