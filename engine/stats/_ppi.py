"""Prediction-powered inference (PPI++) for means and paired differences of judge scores.

A judge (an LLM grader) scores every example; humans label a random subset. PPI++ combines
the two into an estimate of the *human-label* mean that is unbiased whatever the judge's bias
and never less efficient (asymptotically) than the human labels alone:

    theta = lam * mean_U(f) + mean_L(y - lam * f)

with ``y`` the human labels on the labelled set L (n examples), ``f`` the judge scores, U the
unlabelled examples (N), and the power-tuned ``lam`` (clipped to [0, 1]) minimising the
variance. References: Angelopoulos, Bates, Fannjiang, Jordan & Zrnic (2023),
"Prediction-powered inference", Science 382; Angelopoulos, Duchi & Zrnic (2023), "PPI++:
Efficient Prediction-Powered Inference", arXiv:2311.01453. The formulas follow the authors'
package ``ppi_py`` (``ppi_mean_ci``, ``_calc_lam_glm`` with ``clip=True``), tested equal to it.

Everything is computed from sufficient sums, so one system (1-D arrays), every system (row
sums of the systems x examples matrix) and every pair (matrix products over the masks) share
one formula (:func:`_ppi_from_sums`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from .._options import TestOptions, resolve
from ._multitest import adjust_pvalues

__all__ = ["PPIMean", "PPIPairs", "ppi_mean", "ppi_means", "ppi_pairs", "ppi_standard_error",
           "ppi_labels_needed"]


@dataclass(frozen=True)
class PPIMean:
    """PPI++ estimate(s) of a human-label mean (scalars for one system, arrays for several)."""

    estimate: Any
    low: Any
    high: Any
    se: Any
    lam: Any
    pvalue: Any
    n_labelled: Any
    n_unlabelled: Any
    alpha: float
    null: float = 0.0


@dataclass(frozen=True)
class PPIPairs:
    """PPI++ mean paired difference (a - b) for every pair, adjusted for multiplicity.

    ``table`` has one row per pair a < b (row order of the matrix): ``system_a``,
    ``system_b``, ``estimate``, ``low``, ``high`` (marginal 1 - alpha), ``se``, ``lam``,
    ``n_both`` (examples labelled for both), ``n_judge`` (examples the judge scored for both),
    ``pvalue``, ``p_adjusted`` (``correction``), ``significant`` (p_adjusted < alpha).
    """

    table: pd.DataFrame
    alpha: float
    correction: str


# --------------------------------------------------------------------------- the formula


def _ppi_from_sums(n: Any, sy: Any, sf: Any, syy: Any, sff: Any, syf: Any,
                   nu: Any, sfu: Any, sffu: Any, lam: float | None = None,
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(estimate, lam, standard error) from the sums over L (n labelled: y, f, y^2, f^2, yf)
    and over U (nu unlabelled: f, f^2); arrays broadcast. Undefined (n < 2) gives NaN."""
    n, nu = np.asarray(n, dtype=float), np.asarray(nu, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        my, mf = sy / n, sf / n
        var_y = np.maximum(syy / n - my * my, 0.0)
        var_f = np.maximum(sff / n - mf * mf, 0.0)
        cov = syf / n - my * mf                       # biased, as ppi_py's (1/n) sum
        total, s1, s2 = n + nu, sf + sfu, sff + sffu
        var_all = np.maximum((s2 - s1 * s1 / total) / (total - 1), 0.0)  # np.cov: ddof 1
        if lam is None:
            tuned = cov / ((1.0 + n / nu) * var_all)
            ok = (nu > 0) & (var_all > 0) & np.isfinite(tuned)
            lam_arr = np.clip(np.where(ok, tuned, 0.0), 0.0, 1.0)
        else:
            lam_arr = np.broadcast_to(np.asarray(lam, dtype=float), np.shape(n)).copy()
        mu = np.where(nu > 0, sfu / nu, 0.0)
        var_u = np.where(nu > 0, np.maximum(sffu / nu - mu * mu, 0.0), 0.0)
        estimate = lam_arr * mu + my - lam_arr * mf
        rect = np.maximum(var_y + lam_arr**2 * var_f - 2.0 * lam_arr * cov, 0.0)
        imputed = np.where(nu > 0, lam_arr**2 * var_u / nu, 0.0)
        se = np.sqrt(rect / n + imputed)
    bad = n < 2
    return (np.where(bad, np.nan, estimate), np.where(bad, np.nan, lam_arr),
            np.where(bad, np.nan, se))


def _quantile(alpha: float, df: Any) -> Any:
    """Normal (``df`` None, as ppi_py) or Student t with ``df`` = labels - 1 (small samples)."""
    if df is None:
        return float(stats.norm.ppf(1.0 - alpha / 2.0))
    return stats.t.ppf(1.0 - alpha / 2.0, np.maximum(np.asarray(df, dtype=float), 1.0))


def _check_alpha(alpha: float) -> float:
    if isinstance(alpha, bool) or not 0.0 < float(alpha) < 1.0:
        raise ValueError(f"alpha: must be strictly between 0 and 1; got {alpha!r}")
    return float(alpha)


def _result(est: np.ndarray, lam: np.ndarray, se: np.ndarray, n: Any, nu: Any, *,
            alpha: float, null: float, small_sample: bool = False,
            labels_df: Any = None, tuned: bool = False) -> PPIMean:
    """The result with its intervals and p-values; ``small_sample`` takes t quantiles with
    ``labels_df`` (default n labels) - 1 degrees of freedom. With ``tuned`` (lambda fitted on
    the same labels) the small-sample figures count lambda as a fitted coefficient, as a
    regression estimator's residual variance does: the variance (1/n moments) times
    n / (n - 2) and n - 2 df, n the labels or, when given, ``labels_df`` (the weighted path's
    effective number of labels). Without it the tuned PPI++ pair test alarmed 0.077 / 0.062 /
    0.055 at 10 / 20 / 30 labels (alpha 0.05, 20,000 replications,
    benchmarks/calibrate_ppi_gate.py); with it 0.048-0.052."""
    n_arr = np.asarray(n if labels_df is None else labels_df, dtype=float)
    df = None
    if small_sample:
        df = n_arr - 1
        if tuned:
            with np.errstate(invalid="ignore", divide="ignore"):
                se = np.where(n_arr > 2, se * np.sqrt(n_arr / (n_arr - 2)), np.nan)
            df = n_arr - 2
    half = _quantile(alpha, df) * se
    with np.errstate(invalid="ignore", divide="ignore"):
        t = np.abs(est - null) / np.maximum(se, 1e-16)
        pval = 2.0 * (stats.norm.sf(t) if df is None else stats.t.sf(t, np.maximum(df, 1.0)))
    scalar = np.ndim(est) == 0
    def out(a: Any) -> Any:
        return float(a) if scalar else np.asarray(a)
    return PPIMean(out(est), out(est - half), out(est + half), out(se), out(lam), out(pval),
                   int(n) if scalar else np.asarray(n, dtype=int),
                   int(nu) if scalar else np.asarray(nu, dtype=int), alpha, null)


# --------------------------------------------------------------------------- one system


def ppi_mean(y: Any, yhat: Any, yhat_unlabelled: Any, *, alpha: float = 0.1,
             lam: float | None = None, null: float = 0.0, small_sample: bool = False,
             ) -> PPIMean:
    """PPI++ mean of the human labels ``y`` from judge scores on the same examples (``yhat``)
    and on unlabelled ones (``yhat_unlabelled``); the 1 - alpha normal interval and the
    two-sided p-value against ``null``. ``lam=None`` tunes lambda (clipped to [0, 1]);
    ``lam=1`` is plain PPI, ``lam=0`` the human labels alone. ``small_sample`` takes the
    interval's and p-value's quantiles from Student's t with (labels - 1) df — (labels - 2) df
    and the variance times n / (n - 2) when lambda is tuned — instead of the normal (ppi_py's
    choice), which covers better with a few dozen labels.

    >>> r = ppi_mean([1.0, 0.0, 1.0, 1.0], [0.9, 0.2, 0.8, 0.7], [0.5, 0.6, 0.9], lam=1.0)
    >>> round(r.estimate, 4)
    0.7667
    """
    alpha = _check_alpha(alpha)
    y, f, fu = (np.asarray(a, dtype=float).ravel() for a in (y, yhat, yhat_unlabelled))
    if y.shape != f.shape:
        raise ValueError(f"yhat: must have one judge score per human label ({y.size}); "
                         f"got {f.size}")
    for name, a in (("y", y), ("yhat", f), ("yhat_unlabelled", fu)):
        if not np.isfinite(a).all():
            raise ValueError(f"{name}: must be finite numbers; got a NaN or infinity")
    if y.size < 2:
        raise ValueError(f"y: needs at least 2 human labels; got {y.size}")
    if lam is not None and not 0.0 <= float(lam) <= 1.0:
        raise ValueError(f"lam: must be in [0, 1] or None; got {lam!r}")
    c = float(np.mean(f))  # centring keeps the sums of squares exact to rounding
    y, f, fu = y - c, f - c, fu - c
    est, lam_, se = _ppi_from_sums(y.size, y.sum(), f.sum(), y @ y, f @ f, y @ f,
                                   fu.size, fu.sum(), fu @ fu, lam)
    return _result(est + c, lam_, se, y.size, fu.size, alpha=alpha, null=null,
                   small_sample=small_sample, tuned=lam is None)


# --------------------------------------------------------------------------- every system


def _masks(judge: np.ndarray, human: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    if judge.shape != human.shape or judge.ndim != 2:
        raise ValueError(f"human: must have the judge matrix's shape {judge.shape}; "
                         f"got {human.shape}")
    present = np.isfinite(judge)
    return present, present & np.isfinite(human)


def ppi_means(judge: Any, human: Any, *, alpha: float = 0.05, null: float = 0.0,
              small_sample: bool = False) -> PPIMean:
    """PPI++ mean of every row of a systems x examples matrix: ``judge`` scores (NaN where the
    judge did not score), ``human`` labels (NaN where not labelled). Labelled examples are
    those with both; unlabelled those with a judge score only."""
    alpha = _check_alpha(alpha)
    judge, human = np.asarray(judge, dtype=float), np.asarray(human, dtype=float)
    present, labelled = _masks(judge, human)
    with np.errstate(invalid="ignore", divide="ignore"):
        c = np.nan_to_num(np.nanmean(np.where(present, judge, np.nan), axis=1))[:, None]
    f = np.where(present, judge - c, 0.0)
    fl, y = np.where(labelled, f, 0.0), np.where(labelled, human - c, 0.0)
    fu = f - fl
    n, nu = labelled.sum(1), (present & ~labelled).sum(1)
    est, lam, se = _ppi_from_sums(n, y.sum(1), fl.sum(1), (y * y).sum(1), (fl * fl).sum(1),
                                  (y * fl).sum(1), nu, fu.sum(1), (fu * fu).sum(1))
    return _result(est + c[:, 0], lam, se, n, nu, alpha=alpha, null=null,
                   small_sample=small_sample, tuned=True)


# --------------------------------------------------------------------------- every pair


def _pair_sums(v: np.ndarray, w: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, ...]:
    """Over the examples both rows have in ``mask``: the count and the sums of the paired
    differences (v_a - v_b), (w_a - w_b), their squares and product, as S x S matrices."""
    m = mask.astype(float)
    v0, w0 = np.where(mask, v, 0.0), np.where(mask, w, 0.0)
    def diff(x: np.ndarray) -> np.ndarray:
        a: np.ndarray = x @ m.T
        return np.asarray(a - a.T)
    def cross(x: np.ndarray, z: np.ndarray) -> np.ndarray:
        a = (x * z) @ m.T
        b = x @ z.T
        return np.asarray(a + a.T - b - b.T)
    return m @ m.T, diff(v0), diff(w0), cross(v0, v0), cross(w0, w0), cross(v0, w0)


def ppi_pairs(judge: Any, human: Any, systems: tuple[str, ...], *,
              options: TestOptions | None = None, small_sample: bool = False) -> PPIPairs:
    """PPI++ estimate of the mean paired difference a - b for every pair: the judge's
    difference on every example both were judged on, rectified by the human difference on the
    examples labelled for both (Angelopoulos, Duchi & Zrnic 2023 applied to differences).
    All pairs at once from matrix products; p-values adjusted by the options' ``correction``
    (:func:`engine.adjust_pvalues`), intervals and ``significant`` at their ``alpha``
    (default: ``TestOptions()``)."""
    opts = resolve(options, {})
    alpha, correction = opts.alpha, opts.correction
    judge, human = np.asarray(judge, dtype=float), np.asarray(human, dtype=float)
    present, labelled = _masks(judge, human)
    if len(systems) != judge.shape[0]:
        raise ValueError(f"systems: must name the {judge.shape[0]} rows; got {len(systems)}")
    with np.errstate(invalid="ignore"):
        c = np.nan_to_num(np.nanmean(np.where(present, judge, np.nan), axis=1))[:, None]
    f, y = judge - c, human - c
    total, s1, _, s2, _, _ = _pair_sums(f, f, present)
    n, sy, sf, syy, sff, syf = _pair_sums(y, f, labelled)
    est, lam, se = _ppi_from_sums(n, sy, sf, syy, sff, syf, total - n, s1 - sf, s2 - sff)
    est = est + (c - c.T)
    a, b = np.triu_indices(len(systems), k=1)
    res = _result(est[a, b], lam[a, b], se[a, b], n[a, b], (total - n)[a, b], alpha=alpha,
                  null=0.0, small_sample=small_sample, tuned=True)
    return _pairs_table(systems, a, b, res, alpha=alpha, correction=correction,
                        n_judge=total[a, b])


def _pairs_table(systems: tuple[str, ...], a: np.ndarray, b: np.ndarray, res: PPIMean, *,
                 alpha: float, correction: str, n_judge: Any = None) -> PPIPairs:
    """The pairs table of :class:`PPIPairs` from the pairs' results (rows a < b), p-values
    adjusted by ``correction``; ``n_judge`` defaults to the result's ``n_unlabelled``."""
    p = np.atleast_1d(np.asarray(res.pvalue, dtype=float))
    adj = np.full_like(p, np.nan)
    ok = np.isfinite(p)
    if ok.any():
        adj[ok] = adjust_pvalues(p[ok], method=correction, alpha=alpha)
    names = np.asarray(systems, dtype=object)
    judged = res.n_unlabelled if n_judge is None else n_judge
    table = pd.DataFrame({
        "system_a": names[a], "system_b": names[b], "estimate": res.estimate, "low": res.low,
        "high": res.high, "se": res.se, "lam": res.lam,
        "n_both": np.asarray(res.n_labelled).astype(int),
        "n_judge": np.asarray(judged).astype(int), "pvalue": p, "p_adjusted": adj,
        "significant": np.nan_to_num(adj, nan=1.0) < alpha})
    return PPIPairs(table, alpha, correction)


# --------------------------------------------------------------------------- planning


def ppi_standard_error(n: Any, total: Any, *, var_human: Any, var_judge: Any, cov: Any,
                       ) -> np.ndarray:
    """Standard error of the PPI++ mean with n of ``total`` examples labelled and the tuned
    lambda = clip(cov / (var_judge (1 + n / N)), 0, 1), N = total - n: the square root of
    lam^2 var_judge / N + (var_human + lam^2 var_judge - 2 lam cov) / n (Angelopoulos, Duchi &
    Zrnic 2023). Without the clip this is var_human / n * (1 - rho^2 N / total)."""
    n, total = np.asarray(n, dtype=float), np.asarray(total, dtype=float)
    vy, vf, c = (np.asarray(a, dtype=float) for a in (var_human, var_judge, cov))
    nu = total - n
    with np.errstate(divide="ignore", invalid="ignore"):
        lam = np.clip(np.nan_to_num(c / (vf * (1 + n / nu))), 0.0, 1.0)
        lam = np.where(nu > 0, lam, 0.0)
        imputed = np.where(nu > 0, lam**2 * vf / nu, 0.0)
        return np.asarray(np.sqrt(imputed + np.maximum(vy + lam**2 * vf - 2 * lam * c, 0.0) / n))


def ppi_labels_needed(se_target: float, total: Any, *, var_human: Any, var_judge: Any,
                      cov: Any) -> np.ndarray:
    """Fewest human labels n (of ``total`` judged examples, per row) whose PPI++ standard
    error is at most ``se_target``. Closed form n = v (1 - rho^2) / (se^2 - v rho^2 / total)
    while the tuned lambda stays below 1; where it would be clipped, the smallest n on the
    grid 2..total; ``total + 1`` marks a target out of reach even with every example labelled.
    """
    total = np.atleast_1d(np.asarray(total, dtype=int))
    vy, vf, c = (np.broadcast_to(np.asarray(a, dtype=float), total.shape)
                 for a in (var_human, var_judge, cov))
    with np.errstate(divide="ignore", invalid="ignore"):
        rho2 = np.where(c > 0, c**2 / (vy * vf), 0.0)
        denom = se_target**2 - vy * rho2 / total
        n = np.where(denom > 0, np.ceil(vy * (1 - rho2) / denom - 1e-9), np.inf)
        n = np.maximum(n, 2.0)
        lam = c * (total - n) / (vf * total)
    out = np.where(n > total, total + 1, n)
    for i in np.flatnonzero(~(lam <= 1) & (n <= total)):  # the clip binds: search (rare)
        grid = np.arange(2, total[i] + 1)
        ok = ppi_standard_error(grid, total[i], var_human=vy[i], var_judge=vf[i],
                                cov=c[i]) <= se_target
        out[i] = grid[np.argmax(ok)] if ok.any() else total[i] + 1
    return out.astype(int)
