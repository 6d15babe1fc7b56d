"""Non-inferiority of an A/B candidate by a margin, on the run-aware test's estimate and SE."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import stats

from ._runs_pairs import PairRunTest

__all__ = ["NonInferiority", "check_margin", "ni_verdict", "noninferiority_test"]


@dataclass(frozen=True)
class NonInferiority:
    """One-sided non-inferiority test of the candidate: H0 difference ≤ −margin.

    ``statistic = (estimate + margin) / se`` on the run-aware test's ``df``;
    ``pvalue`` its upper tail; ``lower`` the one-sided ``1 − alpha`` lower bound
    of the difference (non-inferior exactly when ``lower > −margin``).
    """

    margin: float
    statistic: float
    df: float
    pvalue: float
    lower: float
    alpha: float
    non_inferior: bool

    def hypothesis(self) -> str:
        """The test in words (printed next to every non-inferiority verdict)."""
        return (f"one-sided test of H0: candidate − baseline ≤ −{self.margin:g} against H1: "
                f"candidate − baseline > −{self.margin:g} at alpha {self.alpha:g}")


def check_margin(margin: float | None) -> float | None:
    if margin is None:
        return None
    if isinstance(margin, bool) or not isinstance(margin, int | float | np.floating) \
            or not math.isfinite(margin) or margin <= 0:
        raise ValueError(f"margin: must be a finite number > 0 (metric units); got {margin!r}")
    return float(margin)


def noninferiority_test(test: PairRunTest, *, margin: float, alpha: float) -> NonInferiority:
    """Non-inferiority of the candidate by ``margin`` on the run-aware test's estimate and SE.

    H0: ``D ≤ −margin``; ``t = (D̂ + margin) / SE``, p = ``P(T_df ≥ t)`` (df = inf:
    normal); lower bound ``D̂ − t_{1−alpha, df} · SE``. A zero SE decides by the
    sign of ``D̂ + margin``.

    Examples
    --------
    >>> from engine.stats._runs_pairs import PairRunTest
    >>> t = PairRunTest("paired-t", "", -0.01, 0.01, 99.0, -1.0, 0.32, -0.03, 0.01, 0.0,
    ...                 float("nan"), float("nan"), 100, (1, 1), True, 0.05, "two-sided")
    >>> ni = noninferiority_test(t, margin=0.05, alpha=0.05)
    >>> round(ni.statistic, 6), ni.non_inferior
    (4.0, True)
    """
    dist = stats.norm if not math.isfinite(test.df) else stats.t(test.df)
    shifted = test.estimate + margin
    if test.se > 0:
        statistic = shifted / test.se
        pvalue = float(dist.sf(statistic))
    else:
        statistic = 0.0 if shifted == 0 else float(np.copysign(np.inf, shifted))
        pvalue = 0.0 if shifted > 0 else 1.0
    lower = test.estimate - float(dist.ppf(1 - alpha)) * test.se
    return NonInferiority(margin, float(statistic), test.df, pvalue, lower, alpha,
                          bool(pvalue < alpha))


def ni_verdict(ni: NonInferiority) -> tuple[str, int]:
    if ni.non_inferior:
        return (f"candidate is non-inferior: not worse by more than the margin {ni.margin:g} "
                f"({ni.hypothesis()}: p = {ni.pvalue:.3g}, rejected)"), 0
    return (f"non-inferiority not shown: the candidate may be worse by more than the margin "
            f"{ni.margin:g} ({ni.hypothesis()}: p = {ni.pvalue:.3g}, not rejected)"), 1
