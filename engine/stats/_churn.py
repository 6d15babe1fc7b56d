"""Churn of a pair: the examples a candidate fixes and the ones it breaks.

Two systems with the same accuracy can disagree on many examples: the net change hides
the churn a team reads before shipping. For 0/1 scores the 2 × 2 table of the shared
examples (baseline right/wrong × candidate right/wrong) has two off-diagonal cells:
*fixed* (baseline wrong, candidate right) and *broken* (baseline right, candidate wrong).
For other scores (or per-example means of several runs) an example is fixed when the
candidate is better by more than ``threshold`` and broken when worse by more (oriented by
the metric's direction).

Chain: validate → per-example scores of the two systems on shared examples → 2 × 2 counts
→ rates over the shared examples with Wilson intervals → the lists.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from .._matrix import ScoreMatrix, orient
from ._runs import RunCube

__all__ = ["Churn", "churn", "churn_of_pair", "churn_of_scores", "churn_sentence"]


@dataclass(frozen=True)
class Churn:
    """Fixed and broken examples of ``candidate`` against ``baseline``.

    ``table``: the 2 × 2 counts (rows baseline, columns candidate: "right"/"wrong" for 0/1
    scores, "better"/"same"/"worse" summarised as fixed/broken otherwise). ``fixed`` /
    ``broken``: example ids; rates over ``n`` shared examples with Wilson intervals at
    1 − alpha.
    """

    baseline: str
    candidate: str
    n: int
    binary: bool
    threshold: float
    fixed: tuple[str, ...]
    broken: tuple[str, ...]
    fixed_ci: tuple[float, float]
    broken_ci: tuple[float, float]
    table: pd.DataFrame
    alpha: float

    @property
    def fixed_rate(self) -> float:
        return len(self.fixed) / self.n

    @property
    def broken_rate(self) -> float:
        return len(self.broken) / self.n

    @property
    def net(self) -> int:
        """Fixed minus broken: the candidate's net gain in examples."""
        return len(self.fixed) - len(self.broken)


def churn_of_scores(baseline: np.ndarray, candidate: np.ndarray, examples: tuple[str, ...] | list[str],
                    *, names: tuple[str, str] = ("baseline", "candidate"), binary: bool,
                    threshold: float = 0.0, alpha: float = 0.05) -> Churn:
    """:class:`Churn` of two oriented score vectors (larger is better) on the same examples;
    examples where either score is missing are left out."""
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha: must be strictly between 0 and 1; got {alpha}")
    if not (np.isfinite(threshold) and threshold >= 0):
        raise ValueError(f"threshold: must be a number ≥ 0; got {threshold!r}")
    a, b = np.asarray(baseline, dtype=float), np.asarray(candidate, dtype=float)
    if a.shape != b.shape or a.shape != (len(examples),):
        raise ValueError(f"baseline, candidate: need one score per example ({len(examples)}); "
                         f"got shapes {a.shape} and {b.shape}")
    shared = ~(np.isnan(a) | np.isnan(b))
    n = int(shared.sum())
    if n == 0:
        raise ValueError(f"baseline, candidate: {names[0]!r} and {names[1]!r} share no example")
    ids = np.asarray(examples, dtype=object)[shared]
    a, b = a[shared], b[shared]
    if binary:
        fixed, broken = (a == 0) & (b == 1), (a == 1) & (b == 0)
        table = pd.crosstab(pd.Categorical(np.where(a == 1, "right", "wrong"), ["right", "wrong"]),
                            pd.Categorical(np.where(b == 1, "right", "wrong"), ["right", "wrong"]),
                            rownames=[names[0]], colnames=[names[1]], dropna=False)
    else:
        fixed, broken = b - a > threshold, a - b > threshold
        same = ~(fixed | broken)
        table = pd.DataFrame({"fixed": [int(fixed.sum())], "same": [int(same.sum())],
                              "broken": [int(broken.sum())]})
    return Churn(names[0], names[1], n, binary, float(threshold),
                 tuple(map(str, ids[fixed])), tuple(map(str, ids[broken])),
                 _wilson(int(fixed.sum()), n, alpha), _wilson(int(broken.sum()), n, alpha),
                 table, alpha)


def _wilson(k: int, n: int, alpha: float) -> tuple[float, float]:
    """Wilson's score interval of k / n at level 1 − alpha (Wilson 1927, JASA 22:209–212),
    cut to [0, 1]: statsmodels' ``proportion_confint(k, n, alpha, method="wilson")``
    operation for operation, so the same floats, without importing statsmodels on the
    compare path (its import was about 2% of ``sigboard compare``'s start-up)."""
    q, m = np.asarray(k) / np.asarray(n), np.asarray(n)
    crit = stats.norm.isf(alpha / 2.0)
    crit2 = crit**2
    denom = 1 + crit2 / m
    center = (q + crit2 / (2 * m)) / denom
    dist = crit * np.sqrt(q * (1.0 - q) / m + crit2 / (4.0 * m**2))
    dist /= denom
    return float(np.clip(center - dist, 0, 1)), float(np.clip(center + dist, 0, 1))


def churn(matrix: ScoreMatrix, baseline: str, candidate: str, *, threshold: float = 0.0,
          alpha: float = 0.05) -> Churn:
    """The examples ``candidate`` fixes and breaks against ``baseline`` (see the module).

    Examples
    --------
    >>> m = ScoreMatrix.from_array([[1, 1, 0, 0, 1], [1, 0, 1, 1, 1]], systems=["old", "new"])
    >>> c = churn(m, "old", "new")
    >>> len(c.fixed), len(c.broken), c.net
    (2, 1, 1)
    """
    for name, what in ((baseline, "baseline"), (candidate, "candidate")):
        if name not in matrix.systems:
            raise ValueError(f"{what}: unknown system {name!r}; known: {list(matrix.systems)[:10]!r}")
    if baseline == candidate:
        raise ValueError(f"candidate: must differ from the baseline; got {candidate!r} for both")
    x = orient(matrix.values, higher_is_better=matrix.higher_is_better, binary=matrix.binary)
    i, j = matrix.systems.index(baseline), matrix.systems.index(candidate)
    return churn_of_scores(x[i], x[j], matrix.examples, names=(baseline, candidate),
                           binary=matrix.binary, threshold=threshold, alpha=alpha)


def churn_of_pair(cube: RunCube, *, binary: bool, alpha: float = 0.05) -> Churn:
    """:class:`Churn` of an A/B pair cube (baseline, candidate), per-example means over runs:
    with several runs a 0/1 metric's means are proportions, compared as numbers."""
    means = np.nanmean(cube.values, axis=1) * cube.sign
    one_run = int(max(cube.runs)) == 1
    if binary and one_run and not cube.higher_is_better:
        means = means + 1.0  # −x → 1 − x: the oriented 0/1 score of a lower-is-better metric
    return churn_of_scores(means[0], means[1], cube.examples,
                           names=(cube.systems[0], cube.systems[1]), binary=binary and one_run,
                           alpha=alpha)


def churn_sentence(c: Churn) -> str:
    """One line: fixed and broken counts and rates with their intervals, and the net."""
    level = f"{1 - c.alpha:.0%}"
    return (f"churn on {c.n} shared examples: {c.candidate} fixes {len(c.fixed)} "
            f"({c.fixed_rate:.1%}, {level} {c.fixed_ci[0]:.1%}–{c.fixed_ci[1]:.1%}) and breaks "
            f"{len(c.broken)} ({c.broken_rate:.1%}, {c.broken_ci[0]:.1%}–{c.broken_ci[1]:.1%}) "
            f"of {c.baseline}'s; net {c.net:+d}")
