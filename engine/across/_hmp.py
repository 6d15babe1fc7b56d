"""The harmonic mean p-value (Wilson 2019), with its asymptotically exact Landau p-value.

Chain of named steps: validate → statistic (weighted harmonic mean of the
p-values) → asymptotically exact p-value from the Landau distribution →
multiplicity-adjusted p-value (divided by the subset's weight).

Reproduces R's ``harmonicmeanp`` 3.0.1 (``hmp.stat``, ``p.hmp``,
``qharmonicmeanp``); the tests check the package vignette's printed values.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import special, stats

__all__ = [
    "LANDAU_LOCATION_OFFSET",
    "LANDAU_SCALE",
    "HarmonicMeanP",
    "harmonic_mean_p",
    "hmp_rows",
    "hmp_stat",
    "hmp_threshold",
]

#: 1 + digamma(1) - log(2/pi) = 0.874367040387922…: the Landau location beyond log L
#: (harmonicmeanp's ``O.874``).
LANDAU_LOCATION_OFFSET: float = float(1.0 + special.digamma(1.0) - np.log(2.0 / np.pi))
#: Landau scale of the sum of L inverse p-values divided by L (harmonicmeanp: log scale log(pi/2)).
LANDAU_SCALE: float = float(np.pi / 2.0)
_WEIGHT_TOLERANCE = 1e-6  # harmonicmeanp's w.sum.tolerance


@dataclass(frozen=True)
class HarmonicMeanP:
    """A harmonic-mean-p combined test of one set R of p-values.

    Attributes
    ----------
    statistic : float
        The HMP ``p̊_R = w_R / Σ_{i∈R} w_i / p_i`` (R's ``hmp.stat``); not a p-value.
    pvalue : float
        Asymptotically exact p-value (R's ``p.hmp``); significant when ≤ α·w_R.
    pvalue_adj : float
        ``pvalue / w_R``, to compare with α directly (never above 1 when multilevel).
    weight : float
        w_R, the sum of the set's weights (≤ 1).
    n_tests : int
        L, the total number of p-values in the whole family (multilevel), or |R|.
    multilevel : bool
        Whether R is one set of a family of L tests (strong-sense FWER control).
    """

    statistic: float
    pvalue: float
    pvalue_adj: float
    weight: float
    n_tests: int
    multilevel: bool


def _landau_sf(x: np.ndarray, n_tests: np.ndarray | int) -> np.ndarray:
    """P(Landau > x) with location log L + 0.874… and scale π/2 (Wilson 2019, corrected 2019)."""
    loc = np.log(n_tests) + LANDAU_LOCATION_OFFSET
    return np.asarray(stats.landau.sf(x, loc=loc, scale=LANDAU_SCALE), dtype=float)


def _validate(p: np.ndarray, w: np.ndarray, n_tests: int | None) -> None:
    if p.ndim != 1 or p.size == 0:
        raise ValueError(f"p: must be a non-empty 1-D sequence of p-values; got shape {p.shape}")
    finite = p[~np.isnan(p)]
    if ((finite < 0) | (finite > 1)).any():
        raise ValueError(f"p: p-values must lie in [0, 1]; got {finite[(finite < 0) | (finite > 1)][:3]}")
    if n_tests is not None and (int(n_tests) != n_tests or n_tests < p.size):
        raise ValueError(f"L: must be a whole number at least the number of p-values ({p.size}); "
                         f"got {n_tests!r}")
    if w.shape != p.shape:
        raise ValueError(f"w: must have one weight per p-value ({p.size}); got shape {w.shape}")
    if not np.isfinite(w).all() or (w < 0).any():
        raise ValueError("w: weights must be finite and non-negative")
    if w.sum() <= 0:
        raise ValueError("w: the weights must not all be zero")
    if w.sum() > 1 + _WEIGHT_TOLERANCE:
        raise ValueError(f"w: the weights of a subset cannot sum above 1; got {w.sum():.6g}")


def hmp_stat(p: Sequence[float] | np.ndarray, w: Sequence[float] | np.ndarray | None = None) -> float:
    """The weighted harmonic mean of p-values, ``Σ w / Σ (w / p)`` (R's ``hmp.stat``).

    Examples
    --------
    >>> round(hmp_stat([0.01, 0.04]), 6)
    0.016
    """
    pv = np.asarray(p, dtype=float)
    wv = np.full(pv.shape, 1.0) if w is None else np.asarray(w, dtype=float)
    with np.errstate(divide="ignore"):
        return float(wv.sum() / np.sum(wv / pv))


def harmonic_mean_p(
    p: Sequence[float] | np.ndarray,
    w: Sequence[float] | np.ndarray | None = None,
    *,
    L: int | None = None,  # noqa: N803 - Wilson's and harmonicmeanp's name
    multilevel: bool = True,
) -> HarmonicMeanP:
    """Combine p-values with the harmonic mean p-value and its asymptotically exact p-value.

    Parameters
    ----------
    p : sequence of float
        The p-values of the set R to combine (raw, not adjusted). A NaN gives a NaN result.
    w : sequence of float, optional
        Their weights out of a family whose weights sum to 1 (default 1/L each);
        the set's weights may sum to less than 1.
    L : int, keyword-only
        Total number of p-values in the family (default: ``len(p)``, i.e. R is
        the whole family).
    multilevel : bool, keyword-only
        True (default): R is one set of the family, and ``pvalue ≤ α·w_R``
        controls the strong-sense familywise error rate over any number of sets.
        False: a stand-alone test (weights normalised, L = |R|).

    Returns
    -------
    HarmonicMeanP
        statistic, pvalue, pvalue_adj (= pvalue / w_R), weight (w_R), n_tests, multilevel.

    Notes
    -----
    With ``S = Σ_{i∈R} w_i / p_i = w_R / p̊_R`` the multilevel p-value is
    ``w_R · P(X > S)`` where X follows the Landau distribution with location
    ``log L + 1 + ψ(1) − log(2/π)`` and scale π/2 (scipy's ``landau``):
    the generalised central limit law of a sum of L inverse uniform p-values
    divided by L. This is harmonicmeanp 3.x, which corrected the 2019 paper's
    formula; the stand-alone version is ``P(X > 1/p̊)`` with L = |R|.

    References
    ----------
    Wilson, D. J. (2019). The harmonic mean p-value for combining dependent
    tests. PNAS 116(4), 1195–1200, and its 2019 correction. R package
    harmonicmeanp 3.0.1, function ``p.hmp``.

    Examples
    --------
    >>> # harmonicmeanp vignette, Fiddler crabs: 4 of L = 12 tests, equal weights
    >>> res = harmonic_mean_p([0.002120586, 0.001897942, 0.0001486883, 0.01350417],
    ...                       [1 / 12] * 4, L=12)
    >>> round(res.pvalue, 7), round(res.pvalue_adj, 7)
    (0.0005201, 0.0015603)
    """
    pv = np.asarray(p, dtype=float)
    wv = np.full(pv.shape, 1.0 / (L if (L and multilevel) else max(pv.size, 1))) if w is None \
        else np.asarray(w, dtype=float)
    _validate(pv, wv, L)
    n_tests = int(L) if (L is not None and multilevel) else pv.size
    if not multilevel:
        wv = wv / wv.sum()
    statistic = hmp_stat(pv, wv)
    weight = float(wv.sum())
    if np.isnan(statistic):
        return HarmonicMeanP(np.nan, np.nan, np.nan, weight, n_tests, multilevel)
    with np.errstate(divide="ignore"):
        inverse_sum = float(np.sum(wv / pv))
    pvalue = weight * float(_landau_sf(np.asarray(inverse_sum), n_tests))
    return HarmonicMeanP(statistic, pvalue, min(pvalue / weight, 1.0), weight, n_tests, multilevel)


def hmp_rows(p: np.ndarray, w: np.ndarray, *, L: int  # noqa: N803
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Multilevel HMP of many sets at once: one set per row, NaN p-values left out.

    Parameters
    ----------
    p, w : ndarray, shape (n_sets, k)
        p-values (NaN = not in the set) and their weights in a family of ``L``.
    L : int, keyword-only
        Total number of p-values in the family.

    Returns
    -------
    statistic, pvalue, pvalue_adj, weight : ndarray, shape (n_sets,)
        As in :class:`HarmonicMeanP`; NaN for a set with no p-value.

    Examples
    --------
    >>> _, pv, _, _ = hmp_rows(np.array([[0.01, np.nan]]), np.array([[0.25, 0.25]]), L=4)
    >>> round(float(pv[0]), 4)
    0.0121
    """
    p = np.asarray(p, dtype=float)
    present = ~np.isnan(p)
    w = np.where(present, np.asarray(w, dtype=float), 0.0)
    weight = w.sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        inverse_sum = np.where(present, w / np.where(present, p, 1.0), 0.0).sum(axis=1)
        statistic = np.where(weight > 0, weight / inverse_sum, np.nan)
        pvalue = np.where(weight > 0, weight * _landau_sf(inverse_sum, L), np.nan)
        adjusted = np.minimum(pvalue / weight, 1.0)
    return statistic, pvalue, adjusted, weight


def hmp_threshold(alpha: float, L: int) -> float:  # noqa: N803
    """The HMP significance threshold α_L (R's ``qharmonicmeanp(alpha, L)``).

    A set R with weight w_R is significant when its HMP statistic ≤ α_L · w_R.

    Examples
    --------
    >>> round(hmp_threshold(0.05, 6524432), 8)   # harmonicmeanp vignette, GWAS example
    0.02593083
    """
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha: must be strictly between 0 and 1; got {alpha!r}")
    if int(L) != L or L < 1:
        raise ValueError(f"L: must be a positive whole number; got {L!r}")
    loc = np.log(L) + LANDAU_LOCATION_OFFSET
    return float(1.0 / stats.landau.isf(alpha, loc=loc, scale=LANDAU_SCALE))
