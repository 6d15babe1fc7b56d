"""How fragile is a result: the fewest examples whose removal changes it.

Dropping 2 of 57,477 votes flips Chatbot Arena's #1 (Huang, Shen, Wei & Broderick 2025,
"Dropping just a handful of preferences can change top large language model rankings").
Two questions, each answered by a search with an exact check:

- **the #1**: the fewest examples whose removal puts another system strictly above the
  leader. With every system scoring every example the leader's lead over a challenger C
  after removing a set R is Σ_{i∉R} (x_Li − x_Ci) / (n − |R|), so the fewest removals for C
  are the examples with the largest differences, taken in order until the remaining sum
  is negative — exact for C; the answer is the least over all challengers (one sort per
  challenger, all challengers at once). Under partial pairing (each system's mean over its
  own examples) the same order is a greedy search and every step is checked by recomputing
  the two means;
- **a pair's verdict**: the fewest examples whose removal turns "significant" into "not"
  (or back): examples removed in the order that most weakens (strengthens) the difference,
  and the paired test — exact McNemar for 0/1 scores, the paired t otherwise — recomputed
  after each removal (greedy search, exact check).

The reported examples are the ones to remove; removing them and recomputing gives the
changed result (tested).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats

from .._matrix import ScoreMatrix, orient

__all__ = ["LeaderFragility", "PairFragility", "leader_fragility", "leaderboard_fragility",
           "pair_fragility"]


@dataclass(frozen=True)
class LeaderFragility:
    """The fewest examples whose removal puts ``challenger`` strictly above ``leader``.

    ``examples``: the ids to remove (None when no removal of fewer than all but one
    shared example changes the #1); ``exact`` says whether the count is the minimum
    (every system scored every example) or a greedy search's, checked.
    """

    leader: str
    challenger: str | None
    examples: tuple[str, ...] | None
    n: int
    exact: bool

    @property
    def count(self) -> int | None:
        return None if self.examples is None else len(self.examples)


@dataclass(frozen=True)
class PairFragility:
    """The fewest examples whose removal changes a pair's significance verdict."""

    system_a: str
    system_b: str
    significant: bool
    pvalue: float
    test: str
    examples: tuple[str, ...] | None
    pvalue_after: float | None
    n: int
    alpha: float

    @property
    def count(self) -> int | None:
        return None if self.examples is None else len(self.examples)


def _oriented(matrix: ScoreMatrix) -> np.ndarray:
    return orient(matrix.values, higher_is_better=matrix.higher_is_better, binary=matrix.binary)


def _means(x: np.ndarray) -> np.ndarray:
    has = ~np.isnan(x)
    return np.asarray(np.where(has, x, 0.0).sum(axis=1) / np.maximum(has.sum(axis=1), 1))


def leader_fragility(matrix: ScoreMatrix) -> LeaderFragility:
    """The fewest examples whose removal changes the #1 (the best mean score).

    Examples
    --------
    >>> m = ScoreMatrix.from_array([[1, 1, 1, 0], [1, 0, 0, 1]], systems=["A", "B"],
    ...                            examples=["e1", "e2", "e3", "e4"])
    >>> f = leader_fragility(m)
    >>> f.leader, f.challenger, f.examples
    ('A', 'B', ('e2', 'e3'))
    """
    if matrix.n_systems < 2:
        raise ValueError(f"matrix: needs at least 2 systems; got {matrix.n_systems}")
    x = _oriented(matrix)
    means = _means(x)
    leader = int(np.lexsort((np.arange(len(means)), -means))[0])
    others = np.delete(np.arange(matrix.n_systems), leader)
    if matrix.pairing == "full":
        return _exact_leader(matrix, x, leader, others)
    return _greedy_leader(matrix, x, leader, others)


def _exact_leader(matrix: ScoreMatrix, x: np.ndarray, leader: int,
                  others: np.ndarray) -> LeaderFragility:
    """Full pairing: per challenger, the largest leads removed first (all challengers at once)."""
    d = x[leader][None, :] - x[others]  # challengers × examples
    order = np.argsort(-d, axis=1, kind="stable")
    sorted_d = np.take_along_axis(d, order, axis=1)
    remaining = d.sum(axis=1, keepdims=True) - np.cumsum(sorted_d, axis=1)
    n = d.shape[1]
    flips = remaining[:, : n - 1] < -1e-12 * max(n, 1)  # keep at least one example
    k = np.where(flips.any(axis=1), flips.argmax(axis=1) + 1, np.iinfo(np.int64).max)
    k = np.where(d.sum(axis=1) < 0, 0, k)  # (cannot happen: the leader has the best mean)
    best = int(np.argmin(k))
    name = matrix.systems[leader]
    if k[best] == np.iinfo(np.int64).max:
        return LeaderFragility(name, None, None, n, True)
    ids = np.asarray(matrix.examples, dtype=object)[order[best, : k[best]]]
    return LeaderFragility(name, matrix.systems[others[best]], tuple(map(str, ids)), n, True)


def _greedy_leader(matrix: ScoreMatrix, x: np.ndarray, leader: int,
                   others: np.ndarray) -> LeaderFragility:
    """Partial pairing: per challenger, remove shared examples by the leader's lead and
    recompute both means (over each system's own examples) after every removal."""
    best: tuple[int, int, np.ndarray] | None = None
    has = ~np.isnan(x)
    for c in others:  # a loop over challengers, each step vectorised over removals
        shared = has[leader] & has[c]
        idx = np.flatnonzero(shared)
        lead = x[leader, idx] - x[c, idx]
        order = idx[np.argsort(-lead, kind="stable")]
        sum_l, n_l = np.nansum(x[leader]), has[leader].sum()
        sum_c, n_c = np.nansum(x[c]), has[c].sum()
        cut_l = sum_l - np.cumsum(x[leader, order])
        cut_c = sum_c - np.cumsum(x[c, order])
        k_range = np.arange(1, len(order) + 1)
        with np.errstate(invalid="ignore", divide="ignore"):
            gap = cut_l / (n_l - k_range) - cut_c / (n_c - k_range)
        ok = (gap < 0) & (n_l - k_range > 0) & (n_c - k_range > 0)
        if ok.any():
            k = int(ok.argmax()) + 1
            if best is None or k < best[0]:
                best = (k, int(c), order[:k])
    name = matrix.systems[leader]
    if best is None:
        return LeaderFragility(name, None, None, matrix.n_examples, False)
    ids = np.asarray(matrix.examples, dtype=object)[best[2]]
    return LeaderFragility(name, matrix.systems[best[1]], tuple(map(str, ids)),
                           matrix.n_examples, False)


def _pvalues(d: np.ndarray, binary: bool) -> tuple[np.ndarray, str]:
    """Two-sided p-values of the paired test on ``d[k:]`` for every k (d sorted)."""
    n = len(d)
    if binary:
        wins = (d > 0)[::-1].cumsum()[::-1]  # wins of a among d[k:]
        losses = (d < 0)[::-1].cumsum()[::-1]
        m = wins + losses
        p = np.minimum(1.0, 2 * stats.binom.cdf(np.minimum(wins, losses), np.maximum(m, 1), 0.5))
        return np.where(m > 0, p, 1.0), "mcnemar"
    rest = n - np.arange(n)
    s1 = d[::-1].cumsum()[::-1]
    s2 = (d**2)[::-1].cumsum()[::-1]
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = s1 / rest
        var = (s2 - rest * mean**2) / (rest - 1)
        t = mean / np.sqrt(var / rest)
        p = 2 * stats.t.sf(np.abs(t), rest - 1)
    p = np.where(var > 0, p, np.where(mean == 0, 1.0, 0.0))
    return np.where(rest >= 2, p, 1.0), "paired-t"


def pair_fragility(matrix: ScoreMatrix, system_a: str, system_b: str, *,
                   alpha: float = 0.05) -> PairFragility:
    """The fewest shared examples whose removal changes the pair's significance at ``alpha``.

    Significant: the examples most in favour of the better system are removed first until
    the test stops rejecting; not significant: the examples against the leading system are
    removed first until it rejects. Every count is checked by the recomputed test.
    """
    for name, what in ((system_a, "system_a"), (system_b, "system_b")):
        if name not in matrix.systems:
            raise ValueError(f"{what}: unknown system {name!r}; known: {list(matrix.systems)[:10]!r}")
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha: must be strictly between 0 and 1; got {alpha}")
    x = _oriented(matrix)
    a, b = x[matrix.systems.index(system_a)], x[matrix.systems.index(system_b)]
    shared = ~(np.isnan(a) | np.isnan(b))
    ids = np.asarray(matrix.examples, dtype=object)[shared]
    d = (a - b)[shared]
    if len(d) < 2:
        raise ValueError(f"system_a, system_b: share {len(d)} example(s); need at least 2")
    sign = 1.0 if d.sum() >= 0 else -1.0
    p0 = float(_pvalues(d, matrix.binary)[0][0])
    significant = p0 < alpha
    # significant: strip the strongest support first; not: strip the strongest opposition
    order = np.argsort(-sign * d if significant else sign * d, kind="stable")
    p, test = _pvalues(d[order], matrix.binary)
    changed = (p >= alpha) if significant else (p < alpha)
    changed[0] = False
    if not changed[:-1].any():
        return PairFragility(system_a, system_b, significant, p0, test, None, None, len(d), alpha)
    k = int(changed[:-1].argmax())
    return PairFragility(system_a, system_b, significant, p0, test,
                         tuple(map(str, ids[order[:k]])), float(p[k]), len(d), alpha)


def leaderboard_fragility(matrix: ScoreMatrix) -> LeaderFragility | None:
    """:func:`leader_fragility` for the leaderboard's JSON (None with fewer than 2 systems)."""
    return leader_fragility(matrix) if matrix.n_systems >= 2 and matrix.n_examples >= 2 else None
