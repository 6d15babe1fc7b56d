"""The overall score's units and each ranked system's score with its interval.

Units a reader understands: when every benchmark's metric is a 0–1 score with higher =
better (pass@1, accuracy, a fraction of samples), the score is the weighted mean of the
benchmarks' own scores in percent; otherwise each benchmark's mean is standardised —
minus the average ranked system's, over the pooled SD of a system's scores there — and
the score is their weighted mean ("standardised score", in SDs). Each benchmark's
contribution is ``a_j · (sign_j · mean − centre_j)`` with ``a_j = weight × factor``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats

from ._overall_parts import BenchmarkPart

__all__ = ["PERCENT", "STANDARDISED", "Scale", "choose_scale", "system_scores"]

PERCENT = "percent"
STANDARDISED = "standardised"


@dataclass(frozen=True)
class Scale:
    """How benchmark means become the overall score.

    Attributes
    ----------
    units : {"percent", "standardised"}
    factor, centre, sign : ndarray, shape (benchmarks,)
        score = Σ w_j · factor_j · (sign_j · mean_j − centre_j).
    label : str
        The score column's name ("score (%)" or "standardised score").
    explanation : str
        One line on what the score is.
    """

    units: str
    factor: np.ndarray
    centre: np.ndarray
    sign: np.ndarray
    label: str
    explanation: str


def _is_fraction(part: BenchmarkPart) -> bool:
    """One metric, higher = better, every score within [0, 1]."""
    values = part.matrix.values
    finite = values[~np.isnan(values)]
    return (len(part.metrics) == 1 and part.matrix.higher_is_better and finite.size > 0
            and bool((finite >= 0).all() and (finite <= 1).all()))


def choose_scale(parts: Sequence[BenchmarkPart], complete: Sequence[str]) -> Scale:
    """Percent when every benchmark is a 0–1 score (higher = better), else standardised.

    ``complete``: the ranked systems, over which a standardised benchmark is centred and
    its SD pooled.
    """
    k = len(parts)
    if all(_is_fraction(p) for p in parts):
        return Scale(PERCENT, np.full(k, 100.0), np.zeros(k), np.ones(k), "score (%)",
                     "Weighted mean of the benchmarks' own scores, in percent.")
    factor, centre = np.ones(k), np.zeros(k)
    sign = np.array([1.0 if p.matrix.higher_is_better else -1.0 for p in parts])
    for j, p in enumerate(parts):
        rows = [i for i, s in enumerate(p.matrix.systems) if s in set(complete)]
        n, sd = p.count[rows], p.sd[rows]
        use = (n > 1) & np.isfinite(sd)
        pooled = np.sqrt(((n[use] - 1) * sd[use] ** 2).sum() / max((n[use] - 1).sum(), 1))
        means = p.cells.set_index("system").loc[[p.matrix.systems[i] for i in rows], "mean"] \
            if p.cells is not None else p.mean[rows]
        centre[j] = float(np.nanmean(sign[j] * np.asarray(means, float))) if len(rows) else 0.0
        factor[j] = 1.0 / pooled if pooled > 0 else 0.0
    return Scale(STANDARDISED, factor, centre, sign, "standardised score",
                 "The benchmarks' units differ, so each benchmark's mean is standardised "
                 "(minus the average ranked system's, over the SD of a system's scores "
                 "there) and averaged with the weights: 0 = average, +1 = one SD better.")


def system_scores(means: np.ndarray, lows: np.ndarray, highs: np.ndarray, weights: np.ndarray,
                  scale: Scale, correlation: dict[tuple[int, int], np.ndarray], alpha: float,
                  counts: np.ndarray | None = None, sds: np.ndarray | None = None
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each ranked system's score and interval from its benchmark means and intervals.

    Parameters
    ----------
    means, lows, highs : ndarray, shape (systems, benchmarks)
        The benchmarks' leaderboard estimates and intervals (their own units).
    weights : ndarray, shape (benchmarks,)
        Normalised benchmark weights.
    scale : Scale
    correlation : dict (j, k) → ndarray, shape (systems,)
        corr(mean_j, mean_k) where benchmarks j and k share example ids.
    alpha : float
    counts, sds : ndarray, shape (systems, benchmarks), optional
        Examples behind each mean and the SD of its scores: the critical value is then
        Student's t on the Welch–Satterthwaite degrees of freedom of the weighted sum
        (else normal), and a standard error is never below ``sd / √n`` (Wilson's
        interval, shrunk toward 1/2, is narrower than that on few examples).

    Returns
    -------
    score, ci_low, ci_high : ndarray, shape (systems,)
        With one benchmark the interval is that benchmark's own (its Wilson or t interval
        in the score's units); with several, from each benchmark's standard error (its
        interval's half-width over z) and the correlations, with Student's t on the
        Welch–Satterthwaite degrees of freedom ``(Σ v_j)² / Σ v_j² / (n_j − 1)``, v_j the
        weighted variance of benchmark j (Satterthwaite 1946, Biometrics Bulletin 2:110):
        when a small benchmark carries most of the variance the sum is no more normal than
        its mean (0/1 benchmarks of 10 and 200 examples, equal weights: coverage 0.866 with
        the normal and Wilson-derived errors, 0.936 now;
        ``benchmarks/calibrate_overall_sizes.py``); a percent score's interval stays within
        0–100.
    """
    a = weights * scale.factor
    score = ((scale.sign * means - scale.centre) * a).sum(axis=1)
    if means.shape[1] == 1:
        ends = np.sort(np.stack([(scale.sign[0] * lows[:, 0] - scale.centre[0]) * a[0],
                                 (scale.sign[0] * highs[:, 0] - scale.centre[0]) * a[0]]),
                       axis=0)
        return score, ends[0], ends[1]
    z = stats.norm.isf(alpha / 2)
    se = a * (highs - lows) / (2 * z)
    if counts is not None and sds is not None:
        with np.errstate(divide="ignore", invalid="ignore"):
            floor = np.abs(a) * sds / np.sqrt(counts)
        se = np.where(np.isfinite(floor), np.maximum(se, floor), se)
    variance = (se ** 2).sum(axis=1)
    for (j, k), rho in correlation.items():
        variance = variance + 2 * rho * se[:, j] * se[:, k]
    crit = np.full(len(score), z)
    if counts is not None:
        v = se ** 2
        with np.errstate(divide="ignore", invalid="ignore"):
            df = v.sum(axis=1) ** 2 / (v ** 2 / np.maximum(counts - 1.0, 1.0)).sum(axis=1)
        crit = np.where(np.isfinite(df) & (df > 0), stats.t.isf(alpha / 2, np.maximum(df, 1.0)),
                        z)
    half = crit * np.sqrt(np.maximum(variance, 0.0))
    low, high = score - half, score + half
    if scale.units == PERCENT:
        low, high = np.clip(low, 0.0, 100.0), np.clip(high, 0.0, 100.0)
    return score, low, high
