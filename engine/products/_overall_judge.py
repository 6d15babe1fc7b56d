"""A judge benchmark's share of the overall leaderboard from its PPI++ estimates.

When a benchmark's metric is an LLM judge's score with human labels, its Leaderboard ranks the
PPI++ estimates of the human-label means (:func:`engine.judge_board`). The Overall ranking uses
the same figures for that benchmark: each system's cell is its PPI++ mean and interval, each
pair's test the PPI++ paired difference (the row the Pairwise page and A/B compare show, also
in the part's all-pairs result that the pairs tab reads), so
the benchmark weighs in on the human-label scale, not the judge's. The judge's score matrix
stays behind the benchmark's scale, the correlations with other benchmarks and the rank sets
(those need per-example scores, which PPI++ does not give).
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ..across._pairs_across import pooling_inputs
from ..ranking._groups import find_groups
from ..stats._pairwise import PairwiseTests
from ._overall_parts import BenchmarkPart, pair_codes

if TYPE_CHECKING:
    from ._judge import JudgeBoard

__all__ = ["judged_note", "judged_pairwise", "judged_part"]


def judged_note(board: JudgeBoard) -> str:
    """The label the Overall page and CLI put on a benchmark ranked by PPI++ estimates."""
    labels = int(board.table["n_human"].sum())
    return (f"{board.benchmark}: judge scores corrected with {labels:,} human labels "
            f"({board.human}, PPI++): its cells and pair tests are the PPI++ estimates of the "
            "human-label means, as on its Leaderboard")


def _tests(board: JudgeBoard, systems: list[str], sign: float) -> pd.DataFrame:
    """The board's pairs among ``systems`` as :func:`result_cells` rows (oriented)."""
    t = board.pairs.table
    t = t[t["system_a"].isin(systems) & t["system_b"].isin(systems)]
    est, se, n = (t[c].to_numpy(float) for c in ("estimate", "se", "n_both"))
    lo, hi = sign * t["low"].to_numpy(float), sign * t["high"].to_numpy(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        # d_z-like effect: the difference over the SD a human-only design with these labels
        # would need for the same standard error (se * sqrt(labels)); feeds the pooled effect
        effect = sign * est / (se * np.sqrt(n))
    return pd.DataFrame({"unit": board.benchmark, "system_a": t["system_a"].astype(str).to_numpy(),
                         "system_b": t["system_b"].astype(str).to_numpy(),
                         "pvalue": t["pvalue"].to_numpy(float), "effect_size": effect,
                         "effect_name": "paired_d", "n": n, "difference": sign * est,
                         "ci_low": np.minimum(lo, hi), "ci_high": np.maximum(lo, hi)})


def _letters(board: JudgeBoard, systems: list[str], quality: np.ndarray) -> dict[str, str]:
    """Group letters from the board's adjusted PPI++ pair tests."""
    t = board.pairs.table
    t = t[t["system_a"].isin(systems) & t["system_b"].isin(systems)]
    sign = 1.0 if board.higher_is_better else -1.0
    pairs = pd.DataFrame({"system_a": t["system_a"], "system_b": t["system_b"],
                          "pvalue_adj": t["p_adjusted"], "significant": t["significant"],
                          "a_better": sign * t["estimate"] > 0})
    order = np.argsort(-quality, kind="stable")
    ranked = [systems[i] for i in order]
    return find_groups(ranked, quality[order].tolist(), pairs).letters


def judged_pairwise(result: PairwiseTests, board: JudgeBoard, sign: float) -> PairwiseTests:
    """``result`` (all pairs of the judge's systems) with each pair's test columns taken from
    the board's PPI++ row: test ``ppi++``, p-values raw and adjusted, significance, direction,
    means, difference and interval, labels for both (``n``); ``sign`` = 1 when higher is
    better (the differences are oriented, positive = system_a better). The effect size stays
    the result's (the judge's own). Raises ``ValueError`` when the board lacks a pair."""
    t = result.table.copy()
    ppi = board.pairs.table
    a, b = t["system_a"].astype(str).to_numpy(), t["system_b"].astype(str).to_numpy()
    fwd = pd.MultiIndex.from_arrays([ppi["system_a"].astype(str), ppi["system_b"].astype(str)])
    at = fwd.get_indexer(pd.MultiIndex.from_arrays([a, b]))
    back = fwd.get_indexer(pd.MultiIndex.from_arrays([b, a]))
    turn = np.where(at >= 0, 1.0, -1.0)  # the board's row is (b, a): sign turned
    pos = np.where(at >= 0, at, back)
    if (pos < 0).any():
        raise ValueError("board: lacks a pair of the part's systems")
    row = ppi.iloc[pos]
    k = sign * turn  # oriented: positive = system_a better
    d = k * row["estimate"].to_numpy(float)
    lo, hi = k * row["low"].to_numpy(float), k * row["high"].to_numpy(float)
    means = board.table.set_index(board.table["system"].astype(str))["ppi_mean"]
    significant = row["significant"].to_numpy(bool)
    t["test"] = "ppi++"
    t["pvalue"], t["pvalue_adj"] = row["pvalue"].to_numpy(float), row["p_adjusted"].to_numpy(float)
    t["significant"], t["a_better"] = significant, significant & (d > 0)
    t["mean_a"], t["mean_b"] = means.reindex(a).to_numpy(float), means.reindex(b).to_numpy(float)
    t["diff"] = t["mean_a"] - t["mean_b"]
    t["difference"], t["ci_low"], t["ci_high"] = d, np.minimum(lo, hi), np.maximum(lo, hi)
    t["n"] = row["n_both"].to_numpy(int)
    return replace(result, table=t)


def judged_part(part: BenchmarkPart, board: JudgeBoard) -> BenchmarkPart:
    """``part`` with its cells and pair tests taken from the judge ``board`` of its one metric:
    each system's PPI++ mean and interval, each pair's PPI++ difference, p-value and interval
    (oriented, as the part's own tests), group letters from the board's adjusted tests, and
    :func:`judged_note` as its note.

    Raises ``ValueError`` when the part aggregates several metrics, is not the board's metric,
    or holds a system the board does not have."""
    if part.metrics != (board.judge,):
        raise ValueError(f"board: judges {board.judge!r}; the part of {part.benchmark!r} uses "
                         f"{list(part.metrics)!r} (PPI++ corrects one judge metric)")
    systems = [str(s) for s in part.matrix.systems]
    table = board.table.set_index(board.table["system"].astype(str))
    missing = [s for s in systems if s not in table.index]
    if missing:
        raise ValueError(f"board: has no {missing[0]!r} (systems of the part's matrix)")
    if part.cells is None:  # a single system: nothing to test, nothing to correct there
        return part
    rows = table.loc[systems]
    sign = 1.0 if part.matrix.higher_is_better else -1.0
    mean = rows["ppi_mean"].to_numpy(float)
    letters = _letters(board, systems, sign * mean)
    cells = pd.DataFrame({"system": systems, "mean": mean,
                          "ci_low": rows["ppi_low"].to_numpy(float),
                          "ci_high": rows["ppi_high"].to_numpy(float),
                          "group": [letters[s] for s in systems], "benchmark": part.benchmark})
    tests = _tests(board, systems, sign)
    note = judged_note(board) + ("" if part.note is None else f"; {part.note}")
    return replace(part, mean=sign * mean, cells=cells, tests=tests,
                   pairwise=None if part.pairwise is None else judged_pairwise(
                       part.pairwise, board, sign),
                   pair_codes=pair_codes(tests, systems), pooling_inputs=pooling_inputs(tests),
                   note=note)
