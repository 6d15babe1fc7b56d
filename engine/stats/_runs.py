"""Run-aware inference: repeated runs as independent samples per example, or as seed sweeps.

LLM evals are often run several times. When runs are independent samples per
example, averaging them per example and running the paired t-test is right
(Lumiste 2023, *Why you should A/B test your LLM evals*, appendix). When a run is a
seed that shifts a whole sweep, every
example of that run moves together, the per-example means share the run shift,
and the paired t-test ignores that variance: its false-alarm rate grows with the
number of examples. This module estimates the variance components of a
two-way layout (runs × examples within each system) and adds the run component
to the variance of the difference, so one test is valid in both cases.

Chain: long table → run cube (systems × runs × examples) → variance components
per system (ANOVA) → per pair: variance of the difference → t with
Satterthwaite degrees of freedom.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy import stats

from .._contract import MetricSpec
from .._matrix import _pick
from .._options import TestOptions, compared_pairs
from ._kernels import _p_from_t as t_pvalues
from ._multitest import adjust_pvalues

__all__ = ["PairRunTest", "PooledRuns", "RunAnova", "RunCube", "RunsPairwise", "cluster_variance",
           "mean_intervals_with_runs", "mixedlm_fit", "pair_run_test", "pooled_runs", "run_anova",
           "run_cube", "runs_pairwise", "satterthwaite_t"]

RUNS_TABLE_COLUMNS = ("system_a", "system_b", "test", "statistic", "df", "pvalue", "pvalue_adj",
                      "effect_size", "mean_a", "mean_b", "diff", "se", "n", "runs_a", "runs_b",
                      "var_run", "run_pvalue", "significant", "a_better")


@dataclass(frozen=True)
class RunCube:
    """Scores of one (benchmark, metric) as systems × runs × examples, NaN where missing.

    Runs are numbered 0, 1, … within each system in the order of their ``run``
    labels; ``runs[s]`` is how many system ``s`` has. Values are raw (not oriented).
    """

    benchmark: str
    metric: str
    systems: tuple[str, ...]
    examples: tuple[str, ...]
    values: np.ndarray
    runs: np.ndarray
    higher_is_better: bool = True

    def restrict(self, systems: list[str], examples: np.ndarray) -> RunCube:
        """The cube of ``systems`` (in that order) on the examples where ``examples`` is True."""
        rows = [self.systems.index(s) for s in systems]
        runs = self.runs[rows]
        values = self.values[rows][:, : max(int(runs.max()), 1)][:, :, examples]
        return RunCube(self.benchmark, self.metric, tuple(systems),
                       tuple(np.asarray(self.examples, dtype=object)[examples]), values, runs,
                       self.higher_is_better)

    @property
    def sign(self) -> float:
        """+1 when higher is better, else -1: differences times ``sign`` are oriented."""
        return 1.0 if self.higher_is_better else -1.0

    def common(self) -> np.ndarray:
        """Examples scored (in at least one run) by every system."""
        return np.asarray((~np.isnan(self.values)).any(axis=1).all(axis=0))

    def balanced(self) -> np.ndarray:
        """Per system: True when each of its runs scored each example (on this cube)."""
        r = np.arange(self.values.shape[1])[None, :, None] < self.runs[:, None, None]
        return np.asarray((~np.isnan(self.values) | ~r).all(axis=(1, 2)))


def run_cube(df: pd.DataFrame, *, benchmark: str | None = None, metric: str | None = None,
             systems: list[str] | None = None, spec: MetricSpec | None = None) -> RunCube:
    """Pivot a validated long table (see ``validate_long``) into a :class:`RunCube`.

    A table without a ``run`` column has one run per system. Systems keep their
    order of first appearance (or the order of ``systems``); examples are sorted.
    """
    bench = _pick(df, "benchmark", benchmark)
    part = df[df["benchmark"] == bench]
    met = _pick(part, "metric", metric)
    part = part[part["metric"] == met]
    if systems is not None:
        present = set(part["system"])
        unknown = [s for s in systems if s not in present]
        if unknown:
            raise ValueError(f"systems: {unknown!r} not found on benchmark {bench!r}, metric "
                             f"{met!r}; present: {sorted(present)[:10]!r}")
        part = part[part["system"].isin(systems)]
    sys_codes, names = pd.factorize(part["system"], sort=False)
    if systems is not None:  # the caller's order
        order = {s: i for i, s in enumerate(systems)}
        remap = np.array([order[s] for s in names])
        sys_codes, names = remap[sys_codes], pd.Index(systems)
    ex_codes, examples = pd.factorize(part["example_id"], sort=True)
    run = part["run"] if "run" in part.columns else pd.Series(0, index=part.index)
    run_codes = run.groupby(sys_codes).rank(method="dense").to_numpy(int) - 1
    runs = np.zeros(len(names), dtype=np.int64)
    np.maximum.at(runs, sys_codes, run_codes + 1)
    cube = np.full((len(names), int(runs.max()), len(examples)), np.nan)
    cube[sys_codes, run_codes, ex_codes] = part["value"].to_numpy(float)
    higher = True if spec is None else spec.higher_is_better
    return RunCube(bench, met, tuple(map(str, names)), tuple(map(str, examples)), cube, runs, higher)


@dataclass(frozen=True)
class RunAnova:
    """Two-way ANOVA (runs × examples, no replication) within each system.

    Arrays have one entry per system. ``ss_run``/``df_run``: run main effect;
    ``ss_resid``/``df_resid``: run × example residual; ``ss_example``/
    ``df_example``: example main effect; ``n``: examples in the layout (those
    every run of the system scored).
    """

    ss_run: np.ndarray
    df_run: np.ndarray
    ss_resid: np.ndarray
    df_resid: np.ndarray
    ss_example: np.ndarray
    df_example: np.ndarray
    n: np.ndarray


def run_anova(values: np.ndarray, runs: np.ndarray) -> RunAnova:
    """Sums of squares of the runs × examples layout of every system at once.

    Parameters
    ----------
    values : array, shape (systems, max_runs, examples)
        NaN where missing; only examples every run of a system scored are used
        for that system.
    runs : array of int, shape (systems,)

    Notes
    -----
    With ``y_ri`` the score of run r on example i (R runs, n examples), ``m_r``,
    ``e_i``, ``g`` the run, example and grand means:
    ``SS_run = n Σ_r (m_r − g)²`` (df R − 1), ``SS_example = R Σ_i (e_i − g)²``
    (df n − 1), ``SS_resid = Σ (y_ri − m_r − e_i + g)²`` (df (R − 1)(n − 1)).
    ``E[MS_run] = σ²_ε + n σ²_run`` (Searle, Casella & McCulloch 1992, §4.7).
    """
    live = np.arange(values.shape[1])[None, :, None] < runs[:, None, None]
    complete = (~np.isnan(values) | ~live).all(axis=1)
    keep = live & complete[:, None, :]
    y = np.where(keep, values, 0.0)
    w = keep.astype(float)
    n = complete.sum(axis=1).astype(float)
    r = runs.astype(float)
    cells = np.maximum(n * r, 1.0)
    grand = y.sum(axis=(1, 2)) / cells
    run_mean = y.sum(axis=2) / np.maximum(n, 1.0)[:, None]
    ex_mean = y.sum(axis=1) / np.maximum(r, 1.0)[:, None]
    run_dev = np.where(live[:, :, 0], run_mean - grand[:, None], 0.0)
    ex_dev = np.where(complete, ex_mean - grand[:, None], 0.0)
    resid = (y - run_mean[:, :, None] - ex_mean[:, None, :] + grand[:, None, None]) * w
    return RunAnova(ss_run=n * (run_dev**2).sum(axis=1), df_run=np.maximum(r - 1, 0) * (n > 0),
                    ss_resid=(resid**2).sum(axis=(1, 2)),
                    df_resid=np.maximum(r - 1, 0) * np.maximum(n - 1, 0),
                    ss_example=r * (ex_dev**2).sum(axis=1), df_example=np.maximum(n - 1, 0), n=n)


@dataclass(frozen=True)
class PooledRuns:
    """The run (seed) variance component pooled over every system with repeated runs.

    Seeds are assumed to move every system's sweep by the same variance, so every system
    with at least 2 runs informs it and every pair — single-run systems included — pays
    it: a single run's mean carries the whole seed variance (weight 1/R with R = 1).
    ``systems``: the contributing systems; ``var_run`` = max(0, (SS_run − df_run ·
    MS_resid) / Σ df_run,s n_s) over them, ``df_run`` / ``df_resid`` its degrees of
    freedom (Searle, Casella & McCulloch 1992, §4.7, pooled as one ANOVA).
    """

    systems: tuple[str, ...]
    ss_run: float
    df_run: float
    ss_resid: float
    df_resid: float
    n_weight: float
    var_run: float

    def note(self) -> str:
        if not self.systems:
            return "no system has repeated runs: no run-to-run variance to estimate"
        shown = ", ".join(self.systems[:10]) + (" …" if len(self.systems) > 10 else "")
        return (f"run-to-run (seed) variance pooled over the {len(self.systems)} system(s) with "
                f"repeated runs ({shown}): {self.var_run:.3g} on {self.df_run:g} run df and "
                f"{self.df_resid:g} residual df, applied to every pair and every mean, "
                "single-run systems included")


def pooled_runs(a: RunAnova, systems: tuple[str, ...]) -> PooledRuns:
    """Pool the per-system run ANOVAs of every system with runs into one estimate."""
    live = (a.df_run > 0) & (a.df_resid > 0)
    ss_run, df_run = float(a.ss_run[live].sum()), float(a.df_run[live].sum())
    ss_resid, df_resid = float(a.ss_resid[live].sum()), float(a.df_resid[live].sum())
    weight = float((a.df_run * a.n)[live].sum())
    var = max(0.0, (ss_run - df_run * ss_resid / df_resid) / weight) if live.any() else 0.0
    return PooledRuns(tuple(s for s, ok in zip(systems, live, strict=True) if ok), ss_run,
                      df_run, ss_resid, df_resid, weight, var)


def mean_intervals_with_runs(values: np.ndarray, runs: np.ndarray, mean: np.ndarray,
                             low: np.ndarray, high: np.ndarray, pooled: PooledRuns, level: float
                             ) -> tuple[np.ndarray, np.ndarray]:
    """Each system's mean interval with the pooled seed variance in it (issue #26 item 2).

    ``values``: per-example means over runs (systems × examples, NaN where missing);
    ``runs``: runs behind each cell. ``V_s = s²_s / n_s + σ̂²_run / R_s`` (R_s: the
    system's runs, single-run systems R = 1), t with Satterthwaite df over the mean
    squares (:func:`satterthwaite_t`), centred on ``mean``. Without a run component
    (σ̂²_run = 0) the intervals come back unchanged.
    """
    if pooled.var_run <= 0:
        return low, high
    n = (~np.isnan(values)).sum(axis=1).astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        var = np.nanvar(values, axis=1, ddof=1)
    r = np.maximum(runs.max(axis=1), 1).astype(float)
    every = np.ones(len(n))
    res = satterthwaite_t(np.zeros(len(n)), var / np.maximum(n, 1), np.maximum(n - 1, 1),
                          pooled.ss_run * every, pooled.df_run * every, pooled.ss_resid * every,
                          pooled.df_resid * every, pooled.n_weight * every, 1.0 / r, "two-sided")
    half = stats.t.ppf(0.5 + level / 2, res["df"]) * res["se"]
    ok = (n >= 2) & np.isfinite(half)
    return np.where(ok, mean - half, low), np.where(ok, mean + half, high)


def satterthwaite_t(estimate: np.ndarray, v_paired: np.ndarray, df_paired: np.ndarray,
                    ss_run: np.ndarray, df_run: np.ndarray, ss_resid: np.ndarray,
                    df_resid: np.ndarray, n_weight: np.ndarray, inv_runs: np.ndarray,
                    alternative: str) -> dict[str, np.ndarray]:
    """t test of ``estimate`` whose variance is the paired part plus the run component.

    ``V = v_paired + σ̂²_run · inv_runs`` with ``σ̂²_run = max(0, (SS_run − df_run ·
    MS_resid) / n_weight)`` (the ANOVA estimator, truncated at 0 as REML does) and
    ``inv_runs = 1/R_a + 1/R_b``. Degrees of freedom by Satterthwaite (1946) over
    the mean squares in V. Returns arrays: se, df, statistic, pvalue, var_run,
    run_f, run_pvalue.
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        ms_run = ss_run / df_run
        ms_resid = ss_resid / df_resid
        has_runs = (df_run > 0) & (df_resid > 0)
        var_run = np.where(has_runs, np.maximum(0.0, (ss_run - df_run * ms_resid) / n_weight), 0.0)
        c = inv_runs * df_run / n_weight
        extra = var_run * inv_runs
        v = v_paired + extra
        den = v_paired**2 / df_paired + np.where(
            extra > 0, (c * ms_run) ** 2 / df_run + (c * ms_resid) ** 2 / df_resid, 0.0)
        df = np.where(den > 0, v**2 / den, df_paired)
        se = np.sqrt(v)
        t = np.where(se > 0, estimate / se, np.where(estimate == 0, 0.0, np.copysign(np.inf, estimate)))
        run_f = np.where(has_runs, ms_run / ms_resid, np.nan)
        run_p = np.where(has_runs, stats.f.sf(run_f, df_run, df_resid), np.nan)
    p = _p_from_t(t, df, alternative)
    p = np.where((se == 0) & (estimate == 0), 1.0, p)
    return {"se": se, "df": df, "statistic": t, "pvalue": p, "var_run": var_run,
            "run_f": run_f, "run_pvalue": run_p}


def _p_from_t(t: np.ndarray, df: np.ndarray, alternative: str) -> np.ndarray:
    """The kernels' t p-value, with an undefined statistic (0/0) read as no evidence (p = 1)."""
    return np.asarray(np.nan_to_num(t_pvalues(t, df, alternative), nan=1.0), dtype=float)


@dataclass(frozen=True)
class RunsPairwise:
    """Run-aware tests of every compared pair, in the layout of ``PairwiseResult.table``.

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
    systems' per-example means over runs. ``V = s²_d / n + σ̂²_run (1/R_a + 1/R_b)``
    with ``σ̂²_run`` pooled over the run × example ANOVAs (:func:`run_anova`) of every
    system with repeated runs (:func:`pooled_runs`; issue #26: pooling over the two
    systems of a pair only gave two single-run systems the plain paired t while the
    others' runs showed seed variance, FWER 0.227), so single-run systems pay it too;
    ``t = d̄ / √V`` with Satterthwaite df. When σ̂²_run = 0
    this is exactly the paired t-test on per-example means. All pairs at once:
    s²_d from one Gram matrix, the ANOVA sums by broadcasting.

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
    pooled = pooled_runs(run_anova(cube.values, cube.runs), cube.systems)
    notes.append(pooled.note())
    table = _all_pairs(cube, opts, pooled)
    return RunsPairwise(table, cube.systems, cube.benchmark, cube.metric, opts, n, tuple(notes),
                        pooled)


def _all_pairs(cube: RunCube, opts: TestOptions, pooled: PooledRuns) -> pd.DataFrame:
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
    r = cube.runs.astype(float)
    every = np.ones(len(ia))  # one pooled estimate for every pair
    res = satterthwaite_t(diff, var_d / n, np.full(len(ia), n - 1.0), pooled.ss_run * every,
                          pooled.df_run * every, pooled.ss_resid * every,
                          pooled.df_resid * every, pooled.n_weight * every,
                          1.0 / r[ia] + 1.0 / r[ja], opts.alternative)
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
    """Cluster-robust variance of ``mean(d)`` (CR1) and its degrees of freedom G − 1.

    ``V = G/(G−1) · Σ_g (Σ_{i∈g} (d_i − d̄))² / n²`` — Miller (2024), eq. 4, with the
    usual G/(G−1) small-sample factor (statsmodels' cluster covariance of ``d ~ 1``).
    """
    n = len(d)
    g = int(codes.max()) + 1 if n else 0
    sums = np.bincount(codes, weights=d - d.mean(), minlength=g)
    groups = int((np.bincount(codes, minlength=g) > 0).sum())
    if groups < 2:
        raise ValueError(f"cluster: needs at least 2 clusters among the shared examples; got {groups}")
    return float(groups / (groups - 1) * (sums**2).sum() / n**2), float(groups - 1)


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
        whole benchmark); default: pooled over the two systems of the pair.

    Returns
    -------
    PairRunTest

    Notes
    -----
    Balanced runs: ``V = V_d + σ̂²_run (1/R_a + 1/R_b)`` with ``V_d = s²_d / n`` (or the
    cluster-robust variance) and σ̂²_run the pooled ANOVA estimator (see
    :func:`satterthwaite_t`); t with Satterthwaite df. Unbalanced runs: V_d is
    MixedLM's variance of the treatment coefficient (statsmodels, REML, random
    intercept per example) — the closed forms need equal runs on every example.
    """
    means = np.nanmean(pair.values, axis=1) * pair.sign
    d = means[1] - means[0]
    n = len(d)
    balanced = bool(pair.balanced().all())
    if cluster is not None:
        v_d, df_d = cluster_variance(d, cluster)
        estimate, base = float(d.mean()), "cluster-t"
    elif balanced:
        v_d, df_d = float(d.var(ddof=1) / n), float(n - 1)
        estimate, base = float(d.mean()), "paired-t"
    else:
        estimate, v_d = mixedlm_fit(pair)
        df_d, base = float(n - 1), "mixedlm"
    if pooled is None:
        pooled = pooled_runs(run_anova(pair.values, pair.runs), pair.systems)
    r = pair.runs.astype(float)
    res = satterthwaite_t(one(estimate), one(v_d), one(df_d), one(pooled.ss_run),
                          one(pooled.df_run), one(pooled.ss_resid), one(pooled.df_resid),
                          one(pooled.n_weight), one((1.0 / r).sum()), alternative)
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
