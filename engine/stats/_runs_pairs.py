"""Run-aware tests of pairs: every pair of a benchmark (:func:`runs_pairwise`) or one pair
(:func:`pair_run_test`, the A/B gate), each with the seed variance of its two systems added
to the variance of the difference: the pool of every system with runs, or a system's own
where that is larger (:func:`engine.stats._runs.pair_components`).

Chain: run cube → run ANOVA per system and its pool (:func:`engine.stats._runs.pooled_runs`)
→ per pair: the paired (or cluster-robust, or MixedLM) variance of the difference plus the
two systems' run components → t with Satterthwaite degrees of freedom over every mean square
in it (Welch-style, :func:`engine.stats._runs.welch_runs_t`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy import stats

from .._contract import MetricSpec
from .._options import TestOptions, compared_pairs
from ._clusters import ClusterDesign
from ._multitest import adjust_pvalues
from ._runs import (
    PooledRuns,
    RunAnova,
    RunCube,
    pair_components,
    pooled_runs,
    run_anova,
    run_cube,
    welch_runs_t,
)

__all__ = ["RUNS_TABLE_COLUMNS", "PairRunTest", "RunsPairwise", "cluster_variance",
           "cr2_variance", "mixedlm_fit", "pair_run_test", "runs_pairwise"]

RUNS_TABLE_COLUMNS = ("system_a", "system_b", "test", "statistic", "df", "pvalue", "pvalue_adj",
                      "effect_size", "mean_a", "mean_b", "diff", "se", "n", "runs_a", "runs_b",
                      "var_run", "run_pvalue", "significant", "a_better")



@dataclass(frozen=True)
class RunsPairwise:
    """Run-aware tests of every compared pair, in the layout of ``PairwiseTests.table``.

    ``table`` columns: system_a, system_b, test ("paired-t" when the pair's run
    variance component is 0, "vc-t" when it enters), statistic, df
    (Satterthwaite), pvalue, pvalue_adj, effect_size (d_z of per-example means),
    mean_a, mean_b (raw), diff (raw mean_a − mean_b), se, n (shared examples),
    runs_a, runs_b, var_run, run_pvalue (F test of the run effect pooled over every
    system with runs, as the variance), significant, a_better. Feed it to ``find_groups`` as a pairwise table.
    """

    table: pd.DataFrame
    systems: tuple[str, ...]
    benchmark: str
    metric: str
    options: TestOptions
    n_examples: int
    notes: tuple[str, ...] = field(default=())
    pooled: PooledRuns | None = None
    """The run variance component every pair and mean uses, and the systems it comes from."""


def runs_pairwise(df: pd.DataFrame, *, benchmark: str | None = None, metric: str | None = None,
                  spec: MetricSpec | None = None, options: TestOptions | None = None) -> RunsPairwise:
    """Run-aware paired tests of all pairs of systems of one benchmark and metric.

    Parameters
    ----------
    df : DataFrame
        Validated long table (``validate_long``), with or without ``run``.
    benchmark, metric : str, optional
        The slice; may be omitted when the table holds only one.
    spec : MetricSpec, optional
        Direction of the metric (default: higher is better).
    options : TestOptions, optional
        ``alternative``, ``compare``, ``correction``, ``alpha`` are used.

    Returns
    -------
    RunsPairwise

    Notes
    -----
    On the examples every system scored, ``d_i`` is the difference of the two
    systems' per-example means over runs. ``V = s²_d / n + σ̂²_a / R_a + σ̂²_b / R_b``
    with ``σ̂²_s`` the run (seed) variance pooled over the run × example ANOVAs
    (:func:`run_anova`) of every system with repeated runs (:func:`pooled_runs`; pooling
    over the two systems of a pair only gave two single-run systems the plain paired t
    while the others' runs showed seed variance, FWER 0.227), or system s's own where that
    is larger (seed SDs differ between systems: one pooled SD for all gave FWER 0.073 with
    seed SDs 0.05–0.6; :func:`engine.stats._runs.pair_components` says why not the own
    alone); ``t = d̄ / √V`` with Satterthwaite df over every mean square in V
    (:func:`engine.stats._runs.welch_runs_t`). When every σ̂² = 0 this is exactly the
    paired t-test on per-example means. All pairs at once: s²_d from one Gram matrix, the
    ANOVA sums by broadcasting.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"benchmark": "b", "metric": "m", "system": ["A"] * 4 + ["B"] * 4,
    ...     "example_id": ["e1", "e2"] * 4, "run": [0, 0, 1, 1] * 2,
    ...     "value": [1., 2., 1.5, 2.5, 2., 3., 2., 3.5]})
    >>> runs_pairwise(df).table[["system_a", "system_b", "test", "n"]].values.tolist()
    [['A', 'B', 'vc-t', 2]]
    """
    opts = options if options is not None else TestOptions()
    cube = run_cube(df, benchmark=benchmark, metric=metric, spec=spec)
    if len(cube.systems) < 2:
        raise ValueError(f"df: at least 2 systems are needed to compare; got {len(cube.systems)}")
    common = cube.common()
    n = int(common.sum())
    if n < 2:
        raise ValueError("df: fewer than 2 examples are scored by every system; the run-aware "
                         "test is paired (compare the systems pair by pair instead)")
    notes = [] if common.all() else [f"paired on the {n} of {len(common)} examples every system has"]
    cube = cube.restrict(list(cube.systems), common)
    unbalanced = [s for s, ok in zip(cube.systems, cube.balanced(), strict=True) if not ok]
    if unbalanced:
        notes.append("runs missing on some examples for " + ", ".join(unbalanced[:10]) +
                     ": per-example means use the runs present, and the run effect is "
                     "estimated on the examples every run scored")
    anova = run_anova(cube.values, cube.runs)
    pooled = pooled_runs(anova, cube.systems)
    notes.append(pooled.note())
    table = _all_pairs(cube, opts, pooled, anova)
    return RunsPairwise(table, cube.systems, cube.benchmark, cube.metric, opts, n, tuple(notes),
                        pooled)


def _all_pairs(cube: RunCube, opts: TestOptions, pooled: PooledRuns,
               anova: RunAnova) -> pd.DataFrame:
    means = np.nanmean(cube.values, axis=1)  # per-example means over runs, systems × n
    x = means * cube.sign
    n = x.shape[1]
    ia, ja = compared_pairs(len(cube.systems), opts.compare)
    centred = x - x.mean(axis=1, keepdims=True)
    gram = centred @ centred.T
    own = np.diag(gram)
    var_d = np.clip((own[ia] + own[ja] - 2.0 * gram[ia, ja]) / (n - 1), 0.0, None)
    var_d = np.where(var_d <= 1e-12 * (own[ia] + own[ja]) / (n - 1), 0.0, var_d)
    diff = x.mean(axis=1)[ia] - x.mean(axis=1)[ja]
    # the pooled seed variance, or a system's own where larger (pair_components)
    comps = pair_components(anova, pooled, ia, ja, cube.runs)
    res = welch_runs_t(diff, var_d / n, np.full(len(ia), n - 1.0), comps, opts.alternative)
    p_adj = _adjust(res["pvalue"], opts.correction, opts.alpha)
    names = np.asarray(cube.systems, dtype=object)
    raw_means = means.mean(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        effect = np.where(var_d > 0, diff / np.sqrt(var_d), np.where(diff == 0, 0.0,
                                                                      np.copysign(np.inf, diff)))
    return pd.DataFrame({
        "system_a": names[ia], "system_b": names[ja],
        "test": np.where(res["var_run"] > 0, "vc-t", "paired-t"),
        "statistic": res["statistic"], "df": res["df"], "pvalue": res["pvalue"],
        "pvalue_adj": p_adj, "effect_size": effect, "mean_a": raw_means[ia],
        "mean_b": raw_means[ja], "diff": raw_means[ia] - raw_means[ja], "se": res["se"],
        "n": np.full(len(ia), n, dtype=np.int64), "runs_a": cube.runs[ia], "runs_b": cube.runs[ja],
        "var_run": res["var_run"], "run_pvalue": res["run_pvalue"],
        "significant": p_adj < opts.alpha, "a_better": diff > 0,
    }, columns=list(RUNS_TABLE_COLUMNS))


def _adjust(p: np.ndarray, correction: str, alpha: float) -> np.ndarray:
    return adjust_pvalues(p, method=correction, alpha=alpha)


@dataclass(frozen=True)
class PairRunTest:
    """The run-aware test of one pair (candidate − baseline, oriented: positive = better).

    ``model`` names what ran: "paired-t" (per-example means), "vc-t" (plus the run
    variance component), "cluster-t"/"cluster-vc-t" (cluster-robust by a user
    column), "mixedlm"/"mixedlm+run-vc" (unbalanced runs). ``reason`` says why.
    ``run_f``, ``run_pvalue``: F test of the run main effect within system;
    ``var_run``: its variance component (0 = runs behave as independent samples).
    """

    model: str
    reason: str
    estimate: float
    se: float
    df: float
    statistic: float
    pvalue: float
    ci_low: float
    ci_high: float
    var_run: float
    run_f: float
    run_pvalue: float
    n: int
    runs: tuple[int, int]
    balanced: bool
    alpha: float
    alternative: str


def cluster_variance(d: np.ndarray, codes: np.ndarray) -> tuple[float, float]:
    """Cluster-robust variance of ``mean(d)`` in the CR1 convention and G − 1.

    ``V = G/(G−1) · Σ_g (Σ_{i∈g} (d_i − d̄))² / n²`` — Miller (2024), eq. 4, with the
    usual G/(G−1) small-sample factor (statsmodels' cluster covariance of ``d ~ 1``).
    The published figure, not the tests': they use :func:`cr2_variance`, which equals it
    when every cluster has the same size.
    """
    n = len(d)
    g = int(codes.max()) + 1 if n else 0
    sums = np.bincount(codes, weights=d - d.mean(), minlength=g)
    groups = int((np.bincount(codes, minlength=g) > 0).sum())
    if groups < 2:
        raise ValueError(f"cluster: needs at least 2 clusters among the shared examples; got {groups}")
    return float(groups / (groups - 1) * (sums**2).sum() / n**2), float(groups - 1)


def cr2_variance(d: np.ndarray, codes: np.ndarray) -> tuple[float, float]:
    """CR2 variance of ``mean(d)`` and its Bell–McCaffrey degrees of freedom.

    ``V = Σ_g S_g² / (n² (1 − n_g/n))`` with ``S_g`` the cluster sum of ``d − d̄`` (the
    intercept-only closed form of the bias-reduced linearisation, Bell & McCaffrey 2002;
    Pustejovsky & Tipton 2018) and the Satterthwaite df of
    :class:`engine.stats._clusters.ClusterDesign`: the Pairwise page's cluster-robust t
    (:func:`engine.stats._clusters.clustered_pairs`), so both give the same p-value. CR1
    on G − 1 df rejects too often with few or unequal clusters (Imbens & Kolesár 2016).
    """
    codes = np.asarray(codes)
    groups = len(np.unique(codes))
    if groups < 2:
        raise ValueError(f"cluster: needs at least 2 clusters among the shared examples; got {groups}")
    design = ClusterDesign.from_codes(codes)
    sums = np.bincount(design.codes, weights=d - d.mean(), minlength=design.n_clusters)
    # equal clusters: CR2 is CR1 and the df are exactly G − 1 (not G − 1 + rounding)
    df = float(groups - 1) if np.all(design.sizes == design.sizes[0]) else design.df
    return float((design.weights * sums**2).sum() / len(d) ** 2), df


def mixedlm_fit(pair: RunCube) -> tuple[float, float]:
    """statsmodels MixedLM (random example intercept, REML) for unbalanced runs: β and its variance."""
    import warnings

    from statsmodels.regression.mixed_linear_model import MixedLM

    s, r, e = np.nonzero(~np.isnan(pair.values))
    y = pair.values[s, r, e] * pair.sign
    exog = np.column_stack([np.ones(len(y)), s.astype(float)])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # convergence chatter; the estimate is still reported
        fit = MixedLM(y, exog, groups=e).fit(reml=True)
    return float(fit.fe_params[1]), float(fit.bse_fe[1] ** 2)


def one(v: float | np.floating) -> np.ndarray:
    """A scalar as a length-1 array (the array kernels serve a single pair too)."""
    return np.array([float(v)])


def pair_run_test(pair: RunCube, *, cluster: np.ndarray | None = None, cluster_name: str = "cluster",
                  alpha: float = 0.05, alternative: str = "two-sided",
                  pooled: PooledRuns | None = None) -> PairRunTest:
    """Run-aware test of ``pair.systems[1]`` (candidate) against ``pair.systems[0]`` (baseline).

    Parameters
    ----------
    pair : RunCube
        Two systems restricted to their shared examples (``RunCube.restrict``).
    cluster : array of int, optional
        Cluster code of each example (e.g. a task family): cluster-robust variance.
    alpha, alternative : keyword-only
        Interval level 1 − alpha; test direction ("greater": candidate better).
    pooled : PooledRuns, optional
        The run variance pooled over every system with runs (:func:`pooled_runs` of the
        whole benchmark); default: pooled over the two systems of the pair. A system of the
        pair whose own seed variance (its run ANOVA on the pair's shared examples) is larger
        brings that instead.

    Returns
    -------
    PairRunTest

    Notes
    -----
    Balanced runs: ``V = V_d + σ̂²_a / R_a + σ̂²_b / R_b`` with ``V_d = s²_d / n`` (or the
    CR2 cluster-robust variance with Bell–McCaffrey df, :func:`cr2_variance`, as on the
    Pairwise page) and σ̂²_s the pooled ANOVA estimator, or the system's own where larger
    (as :func:`runs_pairwise`); t with Satterthwaite df over every mean square. Unbalanced runs: V_d is
    MixedLM's variance of the treatment coefficient (statsmodels, REML, random
    intercept per example) — the closed forms need equal runs on every example.
    """
    means = np.nanmean(pair.values, axis=1) * pair.sign
    d = means[1] - means[0]
    n = len(d)
    balanced = bool(pair.balanced().all())
    if cluster is not None:
        v_d, df_d = cr2_variance(d, cluster)
        estimate, base = float(d.mean()), "cluster-t"
    elif balanced:
        v_d, df_d = float(d.var(ddof=1) / n), float(n - 1)
        estimate, base = float(d.mean()), "paired-t"
    else:
        estimate, v_d = mixedlm_fit(pair)
        df_d, base = float(n - 1), "mixedlm"
    anova = run_anova(pair.values, pair.runs)
    if pooled is None:
        pooled = pooled_runs(anova, pair.systems)
    # the pooled seed variance, or a system's own (on the pair's shared examples) where
    # larger (:func:`engine.stats._runs.pair_components`)
    comps = pair_components(anova, pooled, np.array([1]), np.array([0]), pair.runs)
    res = welch_runs_t(one(estimate), one(v_d), one(df_d), comps, alternative)
    out = {k: float(v[0]) for k, v in res.items()}
    sweeps = out["var_run"] > 0
    model = {"paired-t": "vc-t", "cluster-t": "cluster-vc-t", "mixedlm": "mixedlm+run-vc"}[base] \
        if sweeps else base
    half = float(stats.t.ppf(1 - alpha / 2, out["df"]) * out["se"])
    return PairRunTest(model, _reason(model, out, pair, balanced, cluster_name), estimate,
                       out["se"], out["df"], out["statistic"], out["pvalue"], estimate - half,
                       estimate + half, out["var_run"], out["run_f"], out["run_pvalue"], n,
                       (int(pair.runs[0]), int(pair.runs[1])), balanced, alpha, alternative)


def _reason(model: str, out: dict[str, float], pair: RunCube, balanced: bool, cluster: str) -> str:
    runs = f"{pair.runs[0]} and {pair.runs[1]} runs"
    if not np.isfinite(out["run_f"]):
        why = f"{runs} per example: no run-to-run variance to estimate"
    elif out["var_run"] > 0:
        strength = "runs behave as seed sweeps" if out["run_pvalue"] < 0.05 else \
            "a weak run effect, kept in the variance anyway"
        why = (f"{runs}; run effect within system F = {out['run_f']:.3g}, p = "
               f"{out['run_pvalue']:.3g} ({strength}): run variance component "
               f"{out['var_run']:.3g} added, Satterthwaite df {out['df']:.1f}")
    else:
        why = (f"{runs}; run effect within system F = {out['run_f']:.3g} ≤ 1 (p = "
               f"{out['run_pvalue']:.3g}): runs behave as independent samples per example")
    head = {"paired-t": "paired t on per-example means", "vc-t": "variance-components t",
            "cluster-t": f"cluster-robust t (by {cluster})",
            "cluster-vc-t": f"cluster-robust (by {cluster}) variance-components t",
            "mixedlm": "MixedLM (random example intercept; runs unbalanced)",
            "mixedlm+run-vc": "MixedLM (random example intercept; runs unbalanced) plus the "
                              "run variance component"}[model]
    return f"{head}: {why}" + ("" if balanced else "; some runs miss some examples")
