"""PPI++ with known inclusion probabilities: human labels drawn with unequal chances.

When example i was sent to humans with a known probability pi_i (e.g. more labels on hard
examples), the plain mean of the labels is biased; weighting each label by 1 / pi_i undoes it
(Horvitz & Thompson 1952). The prediction-powered estimate with such weights is

    theta = lam * mean_all(f) + sum_L w (y - lam f) / sum_L w,     w = 1 / pi,

over the N judged examples (all of them, labelled or not) and the labelled set L: the
weighted ("Hajek") form of the rectifier, the estimate of ``ppi_py``'s ``ppi_mean_ci`` with
``w`` = 1 / pi on the labelled examples and every judged example as its unlabelled set
(Angelopoulos, Duchi & Zrnic 2023, PPI++ with weights; Zrnic & Candès 2024, "Active
Statistical Inference", ICML, for labels sampled with known probabilities).

Its standard error comes from the influence of each of the N examples (labels drawn
independently, each with its own pi_i):

    psi_i = lam f_i + xi_i / pi_i (y_i - lam f_i - theta_r),   se = sd(psi) / sqrt(N),

with xi_i = 1 for a labelled example and theta_r the weighted mean of y - lam f. This counts
the overlap of the labelled examples with the N judged ones, which ppi_py's formula (two
independent samples) does not; lam minimises the sample variance of psi (clipped to [0, 1]).
With lam = 0 it is the weighted mean of the human labels alone. Satterthwaite, F. E. (1946),
"An approximate distribution of estimates of variance components", Biometrics Bulletin 2.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._options import TestOptions, resolve
from ._ppi import PPIMean, PPIPairs, _check_alpha, _pairs_table, _result

__all__ = ["ppi_ipw_means", "ppi_ipw_pairs"]


def _check_inclusion(inclusion: np.ndarray, labelled: np.ndarray) -> None:
    p = inclusion[labelled]
    bad = ~(np.isfinite(p) & (p > 0) & (p <= 1))
    if bad.any():
        raise ValueError(f"inclusion: every labelled example needs an inclusion probability in "
                         f"(0, 1]; {int(bad.sum())} labelled example(s) have none or "
                         f"{p[bad][np.isfinite(p[bad])][:3].tolist() or 'missing'}")


def _ipw_rows(f: np.ndarray, y: np.ndarray, w: np.ndarray, present: np.ndarray,
              lam: float | None) -> tuple[np.ndarray, ...]:
    """(estimate, lam, se, labels, judged) of every row: ``f`` judge scores, ``y`` human labels
    (0 where unlabelled), ``w`` = xi / pi (0 where unlabelled), ``present`` judged."""
    big_n = present.sum(1).astype(float)
    n = (w > 0).sum(1)
    with np.errstate(invalid="ignore", divide="ignore"):
        sw = w.sum(1, keepdims=True)
        theta_y, theta_f = (w * y).sum(1, keepdims=True) / sw, (w * f).sum(1, keepdims=True) / sw
        a = np.where(present, w * (y - theta_y), 0.0)
        b = np.where(present, f - w * (f - theta_f), 0.0)
        mean_a, mean_b = a.sum(1) / big_n, b.sum(1) / big_n
        a_c = np.where(present, a - mean_a[:, None], 0.0)
        b_c = np.where(present, b - mean_b[:, None], 0.0)
        if lam is None:
            tuned = -(a_c * b_c).sum(1) / (b_c * b_c).sum(1)
            lam_arr = np.clip(np.where(np.isfinite(tuned), tuned, 0.0), 0.0, 1.0)
        else:
            lam_arr = np.full(f.shape[0], float(lam))
        mean_f = np.where(present, f, 0.0).sum(1) / big_n
        estimate = lam_arr * mean_f + theta_y[:, 0] - lam_arr * theta_f[:, 0]
        psi = a_c + lam_arr[:, None] * b_c
        se = np.sqrt((psi * psi).sum(1) / (big_n - 1) / big_n)
    bad = n < 2
    return (np.where(bad, np.nan, estimate), np.where(bad, np.nan, lam_arr),
            np.where(bad, np.nan, se), n, big_n.astype(int))


def _weights(judge: np.ndarray, human: np.ndarray, inclusion: np.ndarray,
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    if not judge.shape == human.shape == inclusion.shape or judge.ndim != 2:
        raise ValueError(f"human, inclusion: must have the judge matrix's shape {judge.shape}; "
                         f"got {human.shape} and {inclusion.shape}")
    present = np.isfinite(judge)
    labelled = present & np.isfinite(human)
    _check_inclusion(inclusion, labelled)
    with np.errstate(divide="ignore", invalid="ignore"):
        w = np.where(labelled, 1.0 / np.where(labelled, inclusion, 1.0), 0.0)
    return present, labelled, w, np.where(labelled, human, 0.0)


def ppi_ipw_means(judge: Any, human: Any, inclusion: Any, *, alpha: float = 0.05,
                  lam: float | None = None, null: float = 0.0, small_sample: bool = False,
                  ) -> PPIMean:
    """Inverse-probability-weighted PPI++ mean of every row of a systems x examples matrix:
    ``judge`` scores (NaN: not judged), ``human`` labels (NaN: not labelled), ``inclusion``
    the probability each example had of being labelled (needed where labelled). ``lam=None``
    tunes lambda, ``lam=0`` is the weighted mean of the labels alone. ``n_unlabelled`` of the
    result holds the judged examples N (all of them enter the judge's mean). ``small_sample``
    takes t quantiles with m - 1 degrees of freedom, m = (sum w^2)^2 / sum w^4 the effective
    number of labels (Satterthwaite 1946: the variance is a sum of squares weighted by w^2;
    with equal weights, m = labels): a few heavily weighted labels carry the variance, and
    fewer df keep the coverage (simulated in tests/engine/stats/test_ppi_ipw.py). With lambda tuned
    (``lam=None``) it counts lambda as fitted, as the uniform path does: the variance times
    m / (m - 2) and m - 2 df. The variance's labelled part is a w^2-weighted mean of squared
    residuals about the fitted mean and lambda (1/n moments in the labels), so its shortfall
    is that of a two-coefficient regression with m observations; without it the weighted
    gate alarmed 0.056 / 0.058 / 0.056 / 0.051 at ~12 / 20 / 33 / 60 labels (alpha 0.05,
    benchmarks/calibrate_ppi_gate.py, weighted scenario).

    >>> r = ppi_ipw_means([[0.9, 0.2, 0.8, 0.7]], [[1.0, 0.0, np.nan, np.nan]],
    ...                   [[0.5, 0.5, 0.5, 0.5]], lam=1.0)
    >>> round(float(r.estimate[0]), 4)  # judge mean 0.65 + weighted mean of y - f (-0.05)
    0.6
    """
    alpha = _check_alpha(alpha)
    if lam is not None and not 0.0 <= float(lam) <= 1.0:
        raise ValueError(f"lam: must be in [0, 1] or None; got {lam!r}")
    judge, human, inclusion = (np.atleast_2d(np.asarray(a, dtype=float))
                               for a in (judge, human, inclusion))
    present, _, w, y = _weights(judge, human, inclusion)
    with np.errstate(invalid="ignore", divide="ignore"):  # centring: exact sums of squares
        c = np.nan_to_num(np.nanmean(np.where(present, judge, np.nan), axis=1))[:, None]
    f = np.where(present, judge - c, 0.0)
    est, lam_, se, n, big_n = _ipw_rows(f, np.where(w > 0, y - c, 0.0), w, present, lam)
    with np.errstate(invalid="ignore", divide="ignore"):  # equal weights: n labels
        labels_df = (w * w).sum(1) ** 2 / (w**4).sum(1)
    return _result(est + c[:, 0], lam_, se, n, big_n, alpha=alpha, null=null,
                   small_sample=small_sample, labels_df=labels_df, tuned=lam is None)


def ppi_ipw_pairs(judge: Any, human: Any, inclusion: Any, systems: tuple[str, ...], *,
                  options: TestOptions | None = None, small_sample: bool = False) -> PPIPairs:
    """Inverse-probability-weighted PPI++ mean paired difference a - b for every pair: the
    differences on the examples both were judged on, labelled where both were, each labelled
    difference weighted by 1 / its example's inclusion probability (labels drawn per example;
    ``inclusion`` as for :func:`ppi_ipw_means`, the mean of the two where they differ); the
    options' ``correction`` and ``alpha`` as for :func:`engine.stats._ppi.ppi_pairs`."""
    opts = resolve(options, {})
    alpha, correction = opts.alpha, opts.correction
    judge, human, inclusion = (np.asarray(a, dtype=float) for a in (judge, human, inclusion))
    present, labelled, _, _ = _weights(judge, human, inclusion)
    if len(systems) != judge.shape[0]:
        raise ValueError(f"systems: must name the {judge.shape[0]} rows; got {len(systems)}")
    a, b = np.triu_indices(len(systems), k=1)
    both = present[a] & present[b]
    d_judge = np.where(both, judge[a] - judge[b], np.nan)
    d_human = np.where(both & labelled[a] & labelled[b], human[a] - human[b], np.nan)
    d_incl = (inclusion[a] + inclusion[b]) / 2
    res = ppi_ipw_means(d_judge, d_human, d_incl, alpha=alpha, small_sample=small_sample)
    return _pairs_table(systems, a, b, res, alpha=alpha, correction=correction)
