"""Equivalence of two systems: two one-sided tests (TOST) against a user margin.

"No significant difference" is not "the same": a small benchmark cannot tell a large
difference from none. Equivalence turns the question round: H0 the difference is at least
the margin away (D ≤ low or D ≥ high), H1 it lies within (low < D < high). TOST rejects H0
when both one-sided tests reject at alpha, i.e. when the 1 − 2·alpha interval of D lies
inside the margin (Schuirmann 1987; Lakens 2017).

Chain: validate → two one-sided t statistics (estimate, SE, df of the pair's own test)
→ p-values (the larger is the TOST p-value) → the 1 − 2α interval → verdict beside the
usual two-sided test: "equivalent" (TOST rejects), "different" (not equivalent, and the
two-sided test rejects D = 0), "not shown" (neither).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
from scipy import stats

__all__ = ["EQUIVALENCE_VERDICTS", "Equivalence", "tost", "tost_paired"]

Verdict = Literal["equivalent", "different", "not shown"]
EQUIVALENCE_VERDICTS: tuple[Verdict, ...] = ("equivalent", "different", "not shown")


@dataclass(frozen=True)
class Equivalence:
    """TOST of a difference D against the bounds (low, high), and its verdict.

    ``t_lower``/``p_lower``: H0 D ≤ low; ``t_upper``/``p_upper``: H0 D ≥ high;
    ``pvalue`` = max of the two (TOST); ``ci_low``/``ci_high``: the 1 − 2·alpha interval
    (equivalent exactly when it lies inside the bounds); ``p_two_sided``: the usual test
    of D = 0 on the same estimate, SE and df.
    """

    estimate: float
    se: float
    df: float
    low: float
    high: float
    alpha: float
    t_lower: float
    p_lower: float
    t_upper: float
    p_upper: float
    pvalue: float
    ci_low: float
    ci_high: float
    p_two_sided: float
    equivalent: bool
    verdict: Verdict

    def sentence(self) -> str:
        """The verdict in words, with the test it comes from."""
        bounds = f"({self.low:g}, {self.high:g})"
        if self.verdict == "equivalent":
            return (f"equivalent: the difference lies within {bounds} (TOST p = {self.pvalue:.3g}; "
                    f"{1 - 2 * self.alpha:.0%} interval {self.ci_low:.4g} to {self.ci_high:.4g})")
        if self.verdict == "different":
            return (f"different: not shown equivalent within {bounds} (TOST p = {self.pvalue:.3g}) "
                    f"and the difference is significant (p = {self.p_two_sided:.3g})")
        return (f"not shown: neither equivalent within {bounds} (TOST p = {self.pvalue:.3g}) nor "
                f"significantly different (p = {self.p_two_sided:.3g}); more examples would tell")


def _bounds(margin: float | None, low: float | None, high: float | None) -> tuple[float, float]:
    if margin is not None:
        if low is not None or high is not None:
            raise ValueError("margin: give either margin or low and high, not both")
        if not (math.isfinite(margin) and margin > 0):
            raise ValueError(f"margin: must be a positive number (metric units); got {margin!r}")
        return -float(margin), float(margin)
    if low is None or high is None:
        raise ValueError("margin: give the equivalence margin (or both low and high)")
    if not (math.isfinite(low) and math.isfinite(high) and low < high):
        raise ValueError(f"low, high: must be finite with low < high; got {low!r}, {high!r}")
    return float(low), float(high)


def _one_sided(shifted: float, se: float, dist: stats.rv_continuous | stats.rv_frozen,
               upper_tail: bool) -> tuple[float, float]:
    """(t, p) of H0 shifted ≤ 0 (upper tail) or ≥ 0; a zero SE decides by the sign."""
    if se > 0:
        t = shifted / se
        return t, float(dist.sf(t) if upper_tail else dist.cdf(t))
    t = 0.0 if shifted == 0 else math.copysign(math.inf, shifted)
    return t, (0.0 if (shifted > 0) == upper_tail and shifted != 0 else 1.0)


def tost(estimate: float, se: float, df: float = math.inf, *, margin: float | None = None,
         low: float | None = None, high: float | None = None, alpha: float = 0.05) -> Equivalence:
    """Two one-sided tests of ``low < D < high`` from an estimate, its SE and df.

    Parameters
    ----------
    estimate, se, df : float
        The difference, its standard error and the t degrees of freedom (inf: normal),
        e.g. those of the pair's own test.
    margin : float, keyword-only
        Symmetric bounds (−margin, margin) in the metric's units; or give ``low``, ``high``.
    alpha : float
        Level of each one-sided test (the interval shown is 1 − 2·alpha).

    Returns
    -------
    Equivalence

    References
    ----------
    Schuirmann, D. J. (1987). A comparison of the two one-sided tests procedure and the
    power approach for assessing the equivalence of average bioavailability. Journal of
    Pharmacokinetics and Biopharmaceutics 15(6):657–680. Lakens, D. (2017). Equivalence
    tests: a practical primer for t tests, correlations, and meta-analyses. Social
    Psychological and Personality Science 8(4):355–362.

    Examples
    --------
    >>> res = tost(0.01, 0.01, 99, margin=0.05)
    >>> res.verdict, round(res.p_lower, 6) < 0.05, round(res.p_upper, 6) < 0.05
    ('equivalent', True, True)
    """
    lo, hi = _bounds(margin, low, high)
    if not 0.0 < alpha < 0.5:
        raise ValueError(f"alpha: must be strictly between 0 and 0.5; got {alpha}")
    if not (math.isfinite(estimate) and math.isfinite(se) and se >= 0):
        raise ValueError(f"estimate, se: must be finite with se ≥ 0; got {estimate!r}, {se!r}")
    if not df > 0:
        raise ValueError(f"df: must be positive (inf for a normal test); got {df!r}")
    dist = stats.norm if not math.isfinite(df) else stats.t(df)
    t_low, p_low = _one_sided(estimate - lo, se, dist, upper_tail=True)
    t_high, p_high = _one_sided(estimate - hi, se, dist, upper_tail=False)
    p = max(p_low, p_high)
    half = float(dist.ppf(1 - alpha)) * se
    p_two = _two_sided(estimate, se, dist)
    equivalent = bool(p < alpha)
    verdict: Verdict = "equivalent" if equivalent else ("different" if p_two < alpha else "not shown")
    return Equivalence(float(estimate), float(se), float(df), lo, hi, alpha, t_low, p_low, t_high,
                       p_high, p, estimate - half, estimate + half, p_two, equivalent, verdict)


def _two_sided(estimate: float, se: float, dist: stats.rv_continuous | stats.rv_frozen) -> float:
    if se > 0:
        return float(2 * dist.sf(abs(estimate / se)))
    return 1.0 if estimate == 0 else 0.0


def tost_paired(x: Sequence[float] | np.ndarray, y: Sequence[float] | np.ndarray | None = None, *,
                margin: float | None = None, low: float | None = None, high: float | None = None,
                alpha: float = 0.05) -> Equivalence:
    """TOST of the mean of paired differences ``x − y`` (or of ``x`` alone): the paired t
    (SE s/√n, df n − 1), as R's ``TOSTER::t_TOST(x, y, paired = TRUE)``."""
    d = np.asarray(x, dtype=float) - (0.0 if y is None else np.asarray(y, dtype=float))
    if d.ndim != 1 or len(d) < 2 or not np.isfinite(d).all():
        raise ValueError(f"x, y: need at least 2 finite paired values of the same length; got "
                         f"shape {d.shape}")
    return tost(float(d.mean()), float(d.std(ddof=1) / math.sqrt(len(d))), float(len(d) - 1),
                margin=margin, low=low, high=high, alpha=alpha)
