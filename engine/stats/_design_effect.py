"""The model-based design effect of clustered examples: 1 + (m̄ − 1) · ICC.

When examples come in clusters (questions of one passage, checks of one task) that share
a random effect, the variance of a mean over n examples is the independent-examples
variance σ²/n times the design effect; for clusters of equal size m with intraclass
correlation ρ it is ``1 + (m − 1) ρ`` (Kish 1965, *Survey Sampling*, Wiley). For unequal
sizes m_j the size to use is Kish's size-weighted mean ``m̄ = Σ m_j² / Σ m_j`` (the
expected size of the cluster of a random example), which is Eldridge, Ashby & Kerry's
``(1 + cv²) · mean(m)`` with cv the sizes' coefficient of variation (population SD):
Eldridge, Ashby & Kerry (2006), "Sample size for cluster randomized trials: effect of
coefficient of variation of cluster size and analysis method", Int J Epidemiol 35:1292–1300.
Under the one-way random-effects model with any sizes the variance of the grand mean is
``σ²/n · (1 + (Σ m_j²/n − 1) ρ)`` exactly, so this m̄ makes the formula exact there.

ρ is estimated by the one-way ANOVA estimator ICC(1) (Fisher 1925; Shrout & Fleiss 1979,
Psychol Bull 86:420, their ICC(1,1); pingouin's ``ICC1``), with the unequal-size
n₀ = (N − Σ m_j²/N) / (G − 1) in place of the common size (Donner 1986, Int Stat Rev
54:67–82). The estimate may be negative (less variation between clusters than
within); it is reported as estimated, so the design effect may be below 1.

The cluster-robust (CR1/CR2) variance over the independent one is the *empirical* design
effect reported beside every clustered interval; this one is what the random-effects model
says it should be, from the sizes and the ICC alone — the figure a sample-size plan uses.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["ModelDesignEffect", "design_effect", "icc_oneway", "kish_mean_size",
           "model_design_effect"]


@dataclass(frozen=True)
class ModelDesignEffect:
    """The model-based design effect of one set of clustered values.

    ``icc``: one-way ANOVA ICC(1); ``mean_size``: Kish's m̄ = Σ m_j² / Σ m_j;
    ``design_effect`` = 1 + (m̄ − 1) · icc (NaN when the ICC is undefined: constant values).
    """

    icc: float
    mean_size: float
    n_clusters: int
    design_effect: float


def kish_mean_size(sizes: np.ndarray | list[float]) -> float:
    """Kish's size-weighted mean cluster size ``Σ m_j² / Σ m_j`` (equal sizes: the size)."""
    m = np.asarray(sizes, dtype=float).ravel()
    if m.size == 0 or not (np.isfinite(m).all() and (m > 0).all()):
        raise ValueError("sizes: every cluster size must be a positive number; got "
                         f"{m.tolist()!r}")
    return float((m * m).sum() / m.sum())


def design_effect(m: float | np.ndarray | list[float], icc: float) -> float:
    """Kish's design effect ``1 + (m − 1) · icc`` of clusters of size ``m``.

    ``m``: one cluster size, or every cluster's size (then m is Kish's size-weighted mean
    ``Σ m_j² / Σ m_j``, :func:`kish_mean_size`). ``icc`` in [−1, 1] (a negative ICC
    gives a design effect below 1).

    >>> design_effect(5, 0.2)
    1.8
    >>> round(design_effect([2, 8], 0.2), 3)  # m̄ = (4 + 64) / 10 = 6.8
    2.16
    """
    size = kish_mean_size(np.atleast_1d(m))
    rho = float(icc)
    if not (-1.0 <= rho <= 1.0):  # also rejects NaN
        raise ValueError(f"icc: an intraclass correlation must be in [-1, 1]; got {icc!r}")
    return 1.0 + (size - 1.0) * rho


def icc_oneway(values: np.ndarray | list[float], codes: np.ndarray | list[int]) -> float:
    """One-way ANOVA intraclass correlation ICC(1) of ``values`` grouped by ``codes``.

    ``(MSB − MSW) / (MSB + (n₀ − 1) MSW)`` with ``MSB`` and ``MSW`` the between- and
    within-cluster mean squares and ``n₀ = (N − Σ m_j²/N) / (G − 1)`` (equal sizes: m);
    NaN when both mean squares are 0 (constant values).
    """
    y = np.asarray(values, dtype=float).ravel()
    labels = np.asarray(codes).ravel()
    if y.shape != labels.shape:
        raise ValueError(f"codes: one cluster code per value; got {labels.size} codes for "
                         f"{y.size} values")
    if not np.isfinite(y).all():
        bad = int(np.flatnonzero(~np.isfinite(y))[0])
        raise ValueError(f"values: value {bad} is {y[bad]}; the ICC needs finite values")
    _, g = np.unique(labels, return_inverse=True)
    sizes = np.bincount(g).astype(float)
    n, k = len(y), len(sizes)
    if k < 2 or n <= k:
        raise ValueError(f"codes: the ICC needs at least 2 clusters and more values than "
                         f"clusters; got {n} values in {k} clusters")
    means = np.bincount(g, weights=y) / sizes
    grand = y.mean()
    msb = float((sizes * (means - grand) ** 2).sum() / (k - 1))
    msw = float(((y - means[g]) ** 2).sum() / (n - k))
    n0 = (n - (sizes * sizes).sum() / n) / (k - 1)
    denom = msb + (n0 - 1.0) * msw
    if denom <= 0:
        return float("nan")
    return float(np.clip((msb - msw) / denom, -1.0, 1.0))


def model_design_effect(values: np.ndarray | list[float], codes: np.ndarray | list[int]
                        ) -> ModelDesignEffect:
    """ICC(1) of ``values`` by ``codes``, Kish's m̄ and ``1 + (m̄ − 1) · ICC``.

    >>> res = model_design_effect([1., 1., 0., 0., 1., 0.], [0, 0, 1, 1, 2, 2])
    >>> round(res.icc, 3), res.mean_size, round(res.design_effect, 3)
    (0.5, 2.0, 1.5)
    """
    icc = icc_oneway(values, codes)
    _, g = np.unique(np.asarray(codes).ravel(), return_inverse=True)
    sizes = np.bincount(g)
    m = kish_mean_size(sizes)
    deff = 1.0 + (m - 1.0) * icc if np.isfinite(icc) else float("nan")
    return ModelDesignEffect(icc, m, len(sizes), deff)
