"""e-BH: false-discovery control from e-values under any dependence.

Wang & Ramdas (2022), "False discovery rate control with e-values", JRSS-B 84(3):
with K hypotheses and e-values e_1..e_K, reject the k* largest, where
``k* = max{k : e_(k) ≥ K / (α k)}`` (e_(1) ≥ e_(2) ≥ … sorted). The FDR is at most
``α K₀ / K ≤ α`` whatever the dependence between the e-values — the comparisons of
one champion with every challenger share the champion's scores, so they are
dependent. e-BH equals BH applied to the p-values ``1/e``, without BH's dependence
conditions.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["EBHResult", "e_bh"]


@dataclass(frozen=True)
class EBHResult:
    """Which hypotheses e-BH rejects at ``alpha``; ``threshold`` is the e-value a
    rejection needed (``K / (α k*)``, inf when nothing is rejected)."""

    e_values: np.ndarray
    alpha: float
    rejected: np.ndarray
    threshold: float


def _validate(e_values: Any, alpha: float) -> np.ndarray:
    e = np.asarray(e_values, dtype=np.float64).ravel()
    if not (isinstance(alpha, int | float) and 0 < alpha < 1):
        raise ValueError(f"alpha: must be a number in (0, 1); got {alpha!r}")
    if np.isnan(e).any() or (e < 0).any():
        bad = e[np.isnan(e) | (e < 0)][0]
        raise ValueError(f"e_values: must be ≥ 0 (an e-value is a nonnegative statistic "
                         f"with expectation ≤ 1 under its null); got {bad!r}")
    return e


def e_bh(e_values: Any, *, alpha: float = 0.05) -> EBHResult:
    """The e-BH procedure (Wang & Ramdas 2022, Definition 2) at level ``alpha``.

    >>> e_bh([100.0, 50.0, 1.0, 0.5], alpha=0.05).rejected.tolist()
    [True, True, False, False]
    """
    e = _validate(e_values, alpha)
    k_total = len(e)
    if k_total == 0:
        return EBHResult(e, float(alpha), np.zeros(0, bool), math.inf)
    ordered = np.sort(e)[::-1]
    ks = np.arange(1, k_total + 1)
    passing = np.flatnonzero(ordered >= k_total / (alpha * ks))
    if not len(passing):
        return EBHResult(e, float(alpha), np.zeros(k_total, bool), math.inf)
    k_star = int(passing[-1]) + 1
    threshold = k_total / (alpha * k_star)
    return EBHResult(e, float(alpha), e >= threshold, float(threshold))
