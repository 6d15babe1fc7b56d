"""One pair of a judge leaderboard, as the Pairwise and A/B compare pages show it.

The PPI++ mean paired difference a - b of :func:`engine.judge_board` (its pairs table, so the
figures are the board's own, sign turned for the asked order), with the effective number of
human labels, and beside it the judge-only paired difference (every example both systems were
judged on) and the human-only one (the examples labelled for both): paired t intervals with
n - 1 df, as the board's per-system columns (with known inclusion probabilities, the human-only
difference is the labels' weighted mean, as the board's).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats

from ..stats._ppi_ipw import ppi_ipw_means
from ._judge import JudgeBoard

__all__ = ["JudgePairFigures", "judge_pair_figures"]


@dataclass(frozen=True)
class JudgePairFigures:
    """PPI++, judge-only and human-only estimates of the mean difference a - b."""

    system_a: str
    system_b: str
    estimate: float
    low: float
    high: float
    pvalue: float
    p_adjusted: float
    significant: bool
    n_both: int
    """Examples with a human label for both systems."""
    effective_n: float
    """Human labels alone that would give the PPI++ interval's width."""
    judge_estimate: float
    judge_low: float
    judge_high: float
    n_judge: int
    human_estimate: float
    human_low: float
    human_high: float
    alpha: float
    correction: str


def _t_interval(d: np.ndarray, alpha: float) -> tuple[float, float, float]:
    """Mean and t interval (n - 1 df) of paired differences; NaN with fewer than 2."""
    if d.size < 2:
        return (float(np.mean(d)) if d.size else np.nan), np.nan, np.nan
    low, high = stats.ttest_1samp(d, 0.0).confidence_interval(1 - alpha)
    return float(np.mean(d)), float(low), float(high)


def judge_pair_figures(board: JudgeBoard, a: str, b: str) -> JudgePairFigures:
    """The board's PPI++ difference a - b with the judge-only and human-only ones beside it
    (find the pair → turn its sign → paired differences of each source → effective labels).

    Raises ``ValueError`` when ``a`` or ``b`` is not a system of the board or they are equal.
    """
    systems = board.data.systems
    for name, s in (("a", a), ("b", b)):
        if s not in systems:
            raise ValueError(f"{name}: {s!r} is not a system of the judge board")
    if a == b:
        raise ValueError(f"b: must differ from a; got {b!r} twice")
    pairs = board.pairs.table
    forward = (pairs["system_a"] == a) & (pairs["system_b"] == b)
    row = pairs[forward | ((pairs["system_a"] == b) & (pairs["system_b"] == a))].iloc[0]
    sign = 1.0 if bool(forward.any()) else -1.0
    est, low, high = (sign * float(row[c]) for c in ("estimate", "low", "high"))
    low, high = min(low, high), max(low, high)
    ia, ib = systems.index(a), systems.index(b)
    judged = np.isfinite(board.data.judge[ia]) & np.isfinite(board.data.judge[ib])
    both = board.data.labelled[ia] & board.data.labelled[ib]
    d_judge = (board.data.judge[ia] - board.data.judge[ib])[judged]
    d_human = (board.data.human[ia] - board.data.human[ib])[both]
    j_est, j_low, j_high = _t_interval(d_judge, board.alpha)
    if board.inclusion is None:
        h_est, h_low, h_high = _t_interval(d_human, board.alpha)
        with np.errstate(invalid="ignore", divide="ignore"):  # lambda = 0: the labels alone
            se_human = float(np.std(d_human)) / np.sqrt(d_human.size) if d_human.size else np.nan
    else:  # the labels' own weighted mean, as the PPI++ row (lambda = 0)
        alone = ppi_ipw_means(
            d_judge, np.where(both, board.data.human[ia] - board.data.human[ib], np.nan)[judged],
            board.inclusion[judged], alpha=board.alpha, lam=0.0, small_sample=True)
        h_est, h_low, h_high, se_human = (float(v[0]) for v in (alone.estimate, alone.low,
                                                                  alone.high, alone.se))
    with np.errstate(invalid="ignore", divide="ignore"):
        effective = d_human.size * (se_human / float(row["se"])) ** 2
    return JudgePairFigures(a, b, est, low, high, float(row["pvalue"]),
                            float(row["p_adjusted"]), bool(row["significant"]),
                            int(row["n_both"]), float(effective), j_est, j_low, j_high,
                            int(judged.sum()), h_est, h_low, h_high, board.alpha,
                            board.correction)
