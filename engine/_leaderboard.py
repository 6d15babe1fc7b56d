"""The leaderboard: one row per system with its mean, interval, rank range, group and ratings."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats
from statsmodels.stats.proportion import proportion_confint

from . import _kernels as k
from ._groups import Groups, find_groups
from ._matrix import ScoreMatrix, orient
from ._options import TestOptions, resolve
from ._pairwise import PairwiseResult, pairwise_tests
from ._ranking import bradley_terry, elo_scale, win_rates

__all__ = ["LEADERBOARD_COLUMNS", "Leaderboard", "leaderboard"]

LEADERBOARD_COLUMNS = ("system", "rank", "rank_low", "rank_high", "group", "mean", "ci_low",
                       "ci_high", "n", "runs", "win_rate", "bt_strength", "elo")


@dataclass(frozen=True)
class Leaderboard:
    """A ranked table with significance groups, plus everything that produced it.

    ``table`` columns: system, rank (1 = best mean; ties share the best rank),
    rank_low / rank_high (rank range), group (compact letters), mean, ci_low,
    ci_high (t interval, Wilson for binary scores, level 1 - alpha), n (examples
    scored), runs (most runs on an example), win_rate (share of decisive
    example battles won), bt_strength (Bradley–Terry, sums to 1), elo.
    """

    table: pd.DataFrame
    pairwise: PairwiseResult
    groups: Groups
    cliques: tuple[tuple[str, ...], ...]
    benchmark: str
    metric: str
    paired: bool
    test: str
    higher_is_better: bool
    anchor: str | None
    notes: tuple[str, ...]

    @property
    def options(self) -> TestOptions:
        """The test options that made this leaderboard."""
        return self.pairwise.options

    def to_dict(self) -> dict[str, object]:
        """The JSON object of ``python -m engine leaderboard --format json`` (SPEC)."""
        return {
            "benchmark": self.benchmark, "metric": self.metric, "paired": self.paired,
            "test": self.test, "alpha": self.pairwise.alpha, "correction": self.pairwise.correction,
            "systems": self.table.to_dict(orient="records"),
            "cliques": [list(c) for c in self.cliques], "notes": list(self.notes),
        }


def _confidence_intervals(values: np.ndarray, binary: bool, level: float
                          ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    has = ~np.isnan(values)
    n = has.sum(axis=1)
    filled = np.where(has, values, 0.0)
    mean = filled.sum(axis=1) / np.maximum(n, 1)
    if binary:
        low, high = proportion_confint(filled.sum(axis=1), np.maximum(n, 1), alpha=1 - level,
                                       method="wilson")
        return mean, np.asarray(low, float), np.asarray(high, float), n
    sd = np.sqrt((np.where(has, values - mean[:, None], 0.0) ** 2).sum(axis=1) / np.maximum(n - 1, 1))
    with np.errstate(invalid="ignore"):
        half = stats.t.ppf(0.5 + level / 2, n - 1) * sd / np.sqrt(np.maximum(n, 1))
    half = np.where(n > 1, half, np.nan)
    return mean, mean - half, mean + half, n


def _battle_ratings(matrix: ScoreMatrix, wins: np.ndarray | None, anchor: str | None
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, str | None]:
    s = matrix.n_systems
    if wins is None:
        nan = np.full(s, np.nan)
        return nan, nan, nan, "No example is shared by all systems, so win rate and " \
                              "Bradley–Terry ratings (which need paired battles) are not shown."
    bt = bradley_terry(wins, matrix.n_common)
    anchor_index = matrix.systems.index(anchor) if anchor is not None else None
    note = None
    if bt.prior:
        note = (f"Bradley–Terry: some system never wins a battle, so {bt.prior} tied "
                "pseudo-battle per pair was added to make the ratings finite.")
    return win_rates(wins), bt.strength, elo_scale(bt.strength, anchor=anchor_index), note


def leaderboard(
    matrix: ScoreMatrix,
    options: TestOptions | None = None,
    /,
    *,
    order: Sequence[str] | None = None,
    min_clique_size: int = 2,
    anchor: str | None = None,
    **overrides: Any,
) -> Leaderboard:
    """Rank systems, test every pair and group the ones that cannot be told apart.

    Parameters
    ----------
    matrix : ScoreMatrix
        Scores of one benchmark and metric.
    options : TestOptions, optional
        How pairs are tested (see :func:`engine.pairwise_tests`); intervals are at
        1 - alpha.
    order : sequence of str, optional
        Order of systems for ``first``/``successive`` comparisons.
    min_clique_size : int, keyword-only
        Smallest group listed in ``cliques``.
    anchor : str, optional
        System whose Elo rating is fixed at 1000 (default: the mean rating is 1000).
    **overrides
        Any :class:`TestOptions` field by name, applied on top of ``options``.

    Returns
    -------
    Leaderboard
        ``table`` with columns system, rank, rank_low, rank_high, group, mean,
        ci_low, ci_high, n, runs, win_rate, bt_strength, elo.

    Notes
    -----
    Means and intervals use every example a system has; tests, win rates and
    Bradley–Terry use the examples shared by all systems when paired. Binary
    intervals are Wilson score intervals; numeric ones are t intervals
    mean ± t_{n-1, 1-α/2} · s / √n.

    References
    ----------
    Seed paper §4–§5.1; Peyrard et al. (2021) for Bradley–Terry on paired battles.

    Examples
    --------
    >>> from engine import ScoreMatrix
    >>> m = ScoreMatrix.from_array([[1] * 30 + [0] * 10, [1] * 12 + [0] * 28,
    ...                             [1] * 13 + [0] * 27], systems=["A", "B", "C"])
    >>> leaderboard(m).table[["system", "rank", "group"]].to_dict("list")
    {'system': ['A', 'C', 'B'], 'rank': [1, 2, 3], 'group': ['a', 'b', 'b']}
    """
    opts = resolve(options, overrides)
    if anchor is not None and anchor not in matrix.systems:
        raise ValueError(f"anchor: system {anchor!r} is not on this leaderboard")
    pw = pairwise_tests(matrix, opts, order=order)
    if order is not None:
        matrix = matrix.subset(list(order))
    mean, low, high, n = _confidence_intervals(matrix.values, matrix.binary, opts.confidence)
    quality = orient(mean, higher_is_better=matrix.higher_is_better, binary=matrix.binary)
    groups = find_groups(matrix.systems, quality.tolist(), pw.table, min_size=min_clique_size)
    wins = pw.wins
    if wins is None and matrix.n_common > 0:
        wins = k.win_matrix(matrix.oriented(paired=True))
    win_rate, strength, elo, bt_note = _battle_ratings(matrix, wins, anchor)
    table = pd.DataFrame({
        "system": list(matrix.systems),
        "rank": pd.Series(quality).rank(method="min", ascending=False).astype(int).to_numpy(),
        "rank_low": [groups.rank_low[s] for s in matrix.systems],
        "rank_high": [groups.rank_high[s] for s in matrix.systems],
        "group": [groups.letters[s] for s in matrix.systems],
        "mean": mean, "ci_low": low, "ci_high": high, "n": n.astype(int),
        "runs": matrix.runs.max(axis=1).astype(int),
        "win_rate": win_rate, "bt_strength": strength, "elo": elo,
    })
    table = table.assign(_q=quality).sort_values(["rank", "_q", "system"],
                                                   ascending=[True, False, True])
    table = table.drop(columns="_q").reset_index(drop=True)
    notes = list(pw.notes)
    if bt_note:
        notes.append(bt_note)
    if not groups.complete:
        notes.append("Groups are not shown: the non-significance graph has too many maximal "
                     "cliques; raise alpha or use an effect-size criterion.")
    return Leaderboard(table, pw, groups, groups.cliques, matrix.benchmark, matrix.metric,
                       pw.paired, pw.test, matrix.higher_is_better, anchor, tuple(notes))
