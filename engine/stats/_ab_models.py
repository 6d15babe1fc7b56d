"""The models of an A/B comparison side by side (Lumiste 2023) and its variance components.

OLS, fixed-effects OLS (plain and cluster-robust by example), MixedLM and the paired t on
the run-level rows of one pair, next to the run-aware test that gave the verdict
(:func:`engine.stats._ab.compare_ab`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from ._runs import RunCube, run_anova
from ._runs_pairs import PairRunTest, mixedlm_fit

__all__ = ["MODEL_COLUMNS", "model_table", "variance_components"]

MODEL_COLUMNS = ("model", "estimate", "se", "df", "statistic", "pvalue", "ci_low", "ci_high")


def variance_components(pair: RunCube) -> pd.DataFrame:
    """Variance between examples, system × example, between runs and residual (ANOVA estimators).

    Pooled over the two systems' runs × examples layouts (:func:`engine.stats._runs.run_anova`):
    σ²_ε = MS_resid, σ²_run = (MS_run − MS_resid)/n, σ²_example = (MS_example −
    MS_resid)/R, and σ²_sys×ex from the paired differences,
    ``(s²_d − σ²_ε (1/R_a + 1/R_b)) / 2``; negative estimates are set to 0.
    """
    a = run_anova(pair.values, pair.runs)
    with np.errstate(divide="ignore", invalid="ignore"):
        resid = a.ss_resid.sum() / a.df_resid.sum() if a.df_resid.sum() > 0 else np.nan
        run = (a.ss_run.sum() - a.df_run.sum() * resid) / (a.df_run * a.n).sum()
        example = ((a.ss_example / pair.runs).sum() - (a.df_example / pair.runs).sum()
                   * (resid if np.isfinite(resid) else 0.0)) / a.df_example.sum()
    means = np.nanmean(pair.values, axis=1)
    s2d = float(np.var(means[1] - means[0], ddof=1))
    inter = (s2d - (resid if np.isfinite(resid) else 0.0) * (1.0 / pair.runs).sum()) / 2.0
    values = np.array([example, inter, run, resid], dtype=float)
    values = np.where(np.isfinite(values), np.maximum(values, 0.0), np.nan)
    total = np.nansum(values)
    return pd.DataFrame({"component": ["example", "system×example", "run", "residual"],
                         "variance": values, "share": values / total if total > 0 else np.nan})


def _stacked(pair: RunCube) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    s, _, e = np.nonzero(~np.isnan(pair.values))
    y = pair.values[~np.isnan(pair.values)] * pair.sign
    return y, s.astype(float), e


def _row(name: str, est: float, var: float, df: float, alpha: float) -> dict[str, Any]:
    se = float(np.sqrt(var))
    stat = est / se if se > 0 else (0.0 if est == 0 else float(np.copysign(np.inf, est)))
    dist = stats.norm if not np.isfinite(df) else stats.t(df)
    p = 1.0 if se == 0 and est == 0 else float(2 * dist.sf(abs(stat)))
    half = float(dist.ppf(1 - alpha / 2) * se)
    return {"model": name, "estimate": est, "se": se, "df": df, "statistic": stat, "pvalue": p,
            "ci_low": est - half, "ci_high": est + half}


def model_table(pair: RunCube, test: PairRunTest) -> pd.DataFrame:
    """The models Lumiste (2023) compares, side by side on the run-level rows (candidate
    coefficient, oriented).

    Rows: ``ols`` (runs stacked, no example term), ``ols-fe`` (example dummies, via
    the within transformation), ``ols-fe-cluster`` (same, CR1 cluster-robust by
    example as statsmodels' ``cov_type="cluster"``), ``mixedlm`` (random example
    intercept, REML: closed form when runs are balanced, statsmodels otherwise),
    ``paired-t`` on per-example means, and the run-aware test that gave the verdict.
    df = inf marks a z test (MixedLM).
    """
    y, x, g = _stacked(pair)
    n_obs, groups = len(y), int(g.max()) + 1
    rows = [_row("ols", *_ols(y, x), test.alpha)]
    beta, resid, sxx, df_fe = _within(y, x, g, groups)
    rows.append(_row("ols-fe", beta, float((resid**2).sum() / df_fe / sxx), df_fe, test.alpha))
    score = np.bincount(g, weights=(x - _group_mean(x, g, groups)) * resid, minlength=groups)
    factor = groups / (groups - 1) * (n_obs - 1) / (n_obs - groups - 1)
    rows.append(_row("ols-fe-cluster", beta, float(factor * (score**2).sum() / sxx**2), groups - 1,
                     test.alpha))
    rows.append(_row("mixedlm", *_mixedlm(pair, y, x, g, groups, beta, resid, sxx), np.inf,
                     test.alpha))
    means = np.nanmean(pair.values, axis=1) * pair.sign
    d = means[1] - means[0]
    rows.append(_row("paired-t", float(d.mean()), float(d.var(ddof=1) / len(d)), len(d) - 1,
                     test.alpha))
    rows.append({"model": f"{test.model} (verdict)", "estimate": test.estimate, "se": test.se,
                 "df": test.df, "statistic": test.statistic, "pvalue": test.pvalue,
                 "ci_low": test.ci_low, "ci_high": test.ci_high})
    return pd.DataFrame(rows, columns=list(MODEL_COLUMNS))


def _ols(y: np.ndarray, x: np.ndarray) -> tuple[float, float, float]:
    n1 = x.sum()
    n0 = len(x) - n1
    beta = float(y[x == 1].mean() - y[x == 0].mean())
    resid = y - np.where(x == 1, y[x == 1].mean(), y[x == 0].mean())
    s2 = float((resid**2).sum() / (len(y) - 2))
    return beta, s2 * (1 / n0 + 1 / n1), float(len(y) - 2)


def _group_mean(v: np.ndarray, g: np.ndarray, groups: int) -> np.ndarray:
    sums = np.bincount(g, weights=v, minlength=groups) / np.bincount(g, minlength=groups)
    return np.asarray(sums[g], dtype=float)


def _within(y: np.ndarray, x: np.ndarray, g: np.ndarray,
            groups: int) -> tuple[float, np.ndarray, float, float]:
    """Fixed-effects OLS by the within transformation (exact, any balance): β, residuals, Σx̃², df."""
    xt, yt = x - _group_mean(x, g, groups), y - _group_mean(y, g, groups)
    sxx = float((xt**2).sum())
    beta = float((xt * yt).sum() / sxx)
    return beta, yt - beta * xt, sxx, float(len(y) - groups - 1)


def _mixedlm(pair: RunCube, y: np.ndarray, x: np.ndarray, g: np.ndarray, groups: int,
             beta: float, resid: np.ndarray, sxx: float) -> tuple[float, float]:
    """Random-intercept model ``y ~ x + (1 | example)``, REML.

    Balanced runs: every example has the same design, so GLS = the within
    estimator and REML = the ANOVA estimators truncated at 0 (Searle et al.
    1992, §6.4): σ²_ε = MS_within when MS_between > MS_within, else the OLS
    residual variance; Var(β) = σ²_ε / Σx̃².
    """
    if not pair.balanced().all():
        return mixedlm_fit(pair)
    ss_w, df_w = float((resid**2).sum()), len(y) - groups - 1
    ybar_g = np.bincount(g, weights=y, minlength=groups) / np.bincount(g, minlength=groups)
    k = len(y) / groups
    ss_b = float(k * ((ybar_g - ybar_g.mean()) ** 2).sum())
    if ss_b / (groups - 1) > ss_w / df_w:
        return beta, ss_w / df_w / sxx
    return beta, (ss_w + ss_b) / (len(y) - 2) / sxx  # σ²_example = 0: the plain OLS residual
