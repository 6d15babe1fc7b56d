"""Audit a public board: which of its differences are real, from its per-item results.

One report over the :class:`~engine.products._leaderboard.Leaderboard` of the board's
items — never a second set of tests: the leader and the systems that cannot be told apart
from it (the leaderboard's tie groups: a pair is *separable* when it is not among
``groups.calm_pairs``, the pairwise tests corrected over all pairs, joined by the pairs
whose simultaneous rank sets are disjoint), how many adjacent ranks are separable, the
simultaneous rank sets (Mogstad, Romano, Shaikh & Wilhelm 2024), and the split-half
stability of #1.

Split-half stability: the items are split at random into two halves (``n_splits`` times,
seeded); on each half the top system is the one with the best mean. The stability is the
share of splits in which the top system on one half is top on the other, ties for top
broken uniformly at random (a split contributes |T₁ ∩ T₂| / (|T₁| |T₂|), the chance that
two random picks from the two top sets agree, computed exactly). All splits at once: a
splits × items mask times the items × systems matrix gives every half's sums (a block of
splits at a time), no loop over systems. Its Monte Carlo standard error is given beside it.
With k exchangeable systems the halves' #1s are independent and the share is 1/k exactly;
benchmarks/calibrate_audit.py (200 boards × 200 splits) measured 0.490 ± 0.039 (k = 2),
0.200 ± 0.028 (k = 5) and 0.089 ± 0.020 (k = 10, 400 items), and 1.000 with one system
1.5 logits above the others (0.51 at 0.3 logits, where the tests separate #1 in 1 of 50).

The smallest separable gap is the smallest absolute difference of means among the pairs
the tests separate; ``uncorrected``: each pair at alpha without multiplicity correction,
eval-arena's ``p5_min`` (Wang et al. 2024; with McNemar's exact test for 0/1 items the same
sign test it uses).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from .._matrix import ScoreMatrix, orient
from .._options import TestOptions, resolve
from ._headline import leaderboard_headline
from ._leaderboard import Leaderboard, leaderboard

__all__ = ["AUDIT_SPLITS", "BoardAudit", "audit_board", "split_half_stability"]

#: Random halves drawn by default (Monte Carlo standard error ≤ 0.5 / √1000 ≈ 0.016).
AUDIT_SPLITS = 1000


@dataclass(frozen=True)
class BoardAudit:
    """The audit of one board (:func:`audit_board`).

    ``adjacent``: one row per pair of adjacent leaderboard rows (``upper``, ``lower``,
    ``difference`` of means, ``separable``); ``rank_sets``: the leaderboard's rank sets;
    ``board``: the leaderboard every number comes from.
    """

    board: Leaderboard
    leader: str
    tied_with_leader: tuple[str, ...]
    adjacent: pd.DataFrame
    top_split_half_stability: float
    split_half_se: float
    n_splits: int
    seed: int
    smallest_separable_gap: float | None
    smallest_separable_gap_uncorrected: float | None
    headline: str

    @property
    def adjacent_separable(self) -> int:
        return int(self.adjacent["separable"].sum())

    @property
    def adjacent_total(self) -> int:
        return len(self.adjacent)

    @property
    def n_items(self) -> int:
        return 0 if self.board.source is None else self.board.source.n_examples


def split_half_stability(matrix: ScoreMatrix, *, n_splits: int = AUDIT_SPLITS, seed: int = 0,
                         block: int = 64) -> tuple[float, float]:
    """(share of random halves whose top system is top on the other half, its Monte Carlo
    standard error); ties for top broken uniformly at random, in expectation.

    Examples
    --------
    >>> m = ScoreMatrix.from_array([[1] * 40, [0] * 40], systems=["A", "B"])
    >>> split_half_stability(m, n_splits=50)
    (1.0, 0.0)
    """
    if isinstance(n_splits, bool) or not isinstance(n_splits, int | np.integer) or n_splits < 1:
        raise ValueError(f"n_splits: must be a positive whole number; got {n_splits!r}")
    n = matrix.n_examples
    if n < 2:
        raise ValueError(f"split-half stability needs at least 2 items; the board has {n}")
    x = orient(matrix.values, higher_is_better=matrix.higher_is_better, binary=matrix.binary)
    has = ~np.isnan(x)
    x0, w = np.where(has, x, 0.0).T, has.astype(float).T  # items × systems
    rng = np.random.default_rng(seed)
    credit = np.empty(n_splits)
    for start in range(0, n_splits, block):
        size = min(block, n_splits - start)
        order = rng.random((size, n)).argsort(axis=1)
        first = np.zeros((size, n))
        np.put_along_axis(first, order[:, : n // 2], 1.0, axis=1)
        second = 1.0 - first
        tops = []
        for half in (first, second):
            with np.errstate(invalid="ignore", divide="ignore"):
                mean = (half @ x0) / (half @ w)  # NaN: a system with no item in the half
            best = np.nanmax(np.where(np.isnan(mean), -np.inf, mean), axis=1, keepdims=True)
            tol = 1e-12 * np.maximum(1.0, np.abs(best))
            tops.append(np.isfinite(mean) & (mean >= best - tol))
        both = (tops[0] & tops[1]).sum(axis=1)
        credit[start:start + size] = both / (tops[0].sum(axis=1) * tops[1].sum(axis=1))
    share = float(credit.mean())
    se = float(credit.std(ddof=1) / np.sqrt(n_splits)) if n_splits > 1 else float("nan")
    return share, se


def _separable(board: Leaderboard) -> tuple[set[frozenset[str]], pd.DataFrame]:
    """The pairs the board does NOT separate (its tie groups' calm pairs), and the pair
    table with the mean difference of every pair."""
    calm = board.groups.calm_pairs
    tied = {frozenset((str(a), str(b))) for a, b in zip(calm["system_a"], calm["system_b"],
                                                         strict=True)}
    return tied, board.pairwise.table


def _smallest_gap(pairs: pd.DataFrame, significant: np.ndarray) -> float | None:
    gaps = np.abs(pairs["difference"].to_numpy(float))[significant]
    gaps = gaps[np.isfinite(gaps)]
    return float(gaps.min()) if gaps.size else None


def _audit_sentence(adjacent: pd.DataFrame, share: float, n_splits: int, n: int,
                    binary: bool) -> str:
    adj, total = int(adjacent["separable"].sum()), len(adjacent)
    which = ("no two neighbouring ranks are" if adj == 0 else
             "every two neighbouring ranks are" if adj == total else
             f"{adj} of {total} pairs of neighbouring ranks are")
    half = n // 2
    return (f"On this board {which} told apart; the #1 of a random half of the {n:,} items "
            f"({half:,}) is also #1 of the other half in {share:.0%} of {n_splits:,} random "
            "splits.")


def audit_board(matrix: ScoreMatrix, options: TestOptions | None = None, /, *,
                n_splits: int = AUDIT_SPLITS, seed: int = 0, **overrides: Any) -> BoardAudit:
    """Audit a public board's per-item results.

    Parameters
    ----------
    matrix : ScoreMatrix
        The board: systems × items (e.g. 1 = resolved, 0 = not).
    options : TestOptions, optional
        How pairs are tested (as :func:`engine.leaderboard`, which this calls).
    n_splits : int, keyword-only
        Random halves for the split-half stability of #1 (default 1,000).
    seed : int, keyword-only
        Seed of the random halves.

    Returns
    -------
    BoardAudit
        Every number from the leaderboard of ``matrix`` with the same options: its #1,
        tie groups, rank sets and headline.

    Examples
    --------
    >>> m = ScoreMatrix.from_array([[1] * 30 + [0] * 10, [1] * 12 + [0] * 28,
    ...                             [1] * 13 + [0] * 27], systems=["A", "B", "C"])
    >>> a = audit_board(m, n_splits=200)
    >>> a.leader, a.tied_with_leader, a.adjacent_separable, a.adjacent_total
    ('A', (), 1, 2)
    """
    opts = resolve(options, overrides)
    board = leaderboard(matrix, opts, bt_resamples=0)
    table = board.table
    systems = [str(s) for s in table["system"]]
    leader = systems[0]
    tied, pairs = _separable(board)
    tied_with = tuple(s for s in systems[1:] if frozenset((leader, s)) in tied)
    mean = table["mean"].to_numpy(float)
    adjacent = pd.DataFrame({
        "upper": systems[:-1], "lower": systems[1:],
        "difference": mean[:-1] - mean[1:],
        "separable": [frozenset((a, b)) not in tied
                      for a, b in zip(systems[:-1], systems[1:], strict=True)]})
    share, se = split_half_stability(matrix, n_splits=n_splits, seed=seed)
    corrected = np.array([frozenset((str(a), str(b))) not in tied
                          for a, b in zip(pairs["system_a"], pairs["system_b"], strict=True)],
                         dtype=bool)
    raw = pairs["pvalue"].to_numpy(float) < opts.alpha
    headline = (leaderboard_headline(board) + " "
                + _audit_sentence(adjacent, share, n_splits, matrix.n_examples, matrix.binary))
    return BoardAudit(board, leader, tied_with, adjacent, share, se, n_splits, seed,
                      _smallest_gap(pairs, corrected), _smallest_gap(pairs, raw), headline)
