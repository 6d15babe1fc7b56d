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
Satterthwaite degrees of freedom (the per-pair tests: :mod:`engine.stats._runs_pairs`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from .._contract import MetricSpec
from .._matrix import _pick
from ._kernels import _p_from_t

__all__ = ["PooledRuns", "RunAnova", "RunCube", "mean_intervals_with_runs", "pair_components",
           "pooled_runs", "run_anova", "run_cube", "satterthwaite_t", "welch_runs_t"]


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
    it: a single run's mean carries the whole seed variance (weight 1/R with R = 1). It is
    a floor in the pairs: a system whose own seed variance is larger brings that instead
    (:func:`pair_components`). ``systems``: the contributing systems; ``var_run`` = max(0, (SS_run − df_run ·
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
                f"{self.df_resid:g} residual df, applied to every mean and every pair; in a "
                "pair, a system whose own seed variance is larger brings that instead "
                "(Satterthwaite df over both)")


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
    """Each system's mean interval with the pooled seed variance in it.

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


#: One seed-variance component of a difference's variance, arrays (one entry per pair):
#: the run ANOVA's ``ss_run, df_run, ss_resid, df_resid``, ``n_weight`` (Σ df_run · n over
#: the systems it comes from) and ``inv_runs`` (Σ 1/R over the pair's systems that use it).
Component = dict[str, np.ndarray]


def satterthwaite_t(estimate: np.ndarray, v_paired: np.ndarray, df_paired: np.ndarray,
                    ss_run: np.ndarray, df_run: np.ndarray, ss_resid: np.ndarray,
                    df_resid: np.ndarray, n_weight: np.ndarray, inv_runs: np.ndarray,
                    alternative: str) -> dict[str, np.ndarray]:
    """t test of ``estimate`` whose variance is the paired part plus the run component.

    ``V = v_paired + σ̂²_run · inv_runs`` with ``σ̂²_run = max(0, (SS_run − df_run ·
    MS_resid) / n_weight)`` (the ANOVA estimator, truncated at 0 as REML does) and
    ``inv_runs = 1/R_a + 1/R_b``. Degrees of freedom by Satterthwaite (1946) over
    the mean squares in V. Returns arrays: se, df, statistic, pvalue, var_run,
    run_f, run_pvalue. One pooled component of :func:`welch_runs_t`.
    """
    return welch_runs_t(estimate, v_paired, df_paired, [{
        "ss_run": ss_run, "df_run": df_run, "ss_resid": ss_resid, "df_resid": df_resid,
        "n_weight": n_weight, "inv_runs": inv_runs}], alternative)


def welch_runs_t(estimate: np.ndarray, v_paired: np.ndarray, df_paired: np.ndarray,
                 components: list[Component], alternative: str) -> dict[str, np.ndarray]:
    """t test of ``estimate`` whose variance is the paired part plus several seed-variance
    components, each from its own ANOVA (Welch 1947's unequal variances, by component).

    ``V = v_paired + Σ_k σ̂²_k · inv_k`` with ``σ̂²_k = max(0, (SS_run,k − df_run,k ·
    MS_resid,k) / n_weight,k)``; Satterthwaite (1946) df over every mean square in V:
    ``V² / (v_paired² / df_paired + Σ_k [(c_k MS_run,k)² / df_run,k + (c_k MS_resid,k)² /
    df_resid,k])``, ``c_k = inv_k df_run,k / n_weight,k``, a component at 0 left out. With
    no paired part and no residual (every example moved by its run alone) this is exactly
    Welch's t on the run means (``scipy.stats.ttest_ind(equal_var=False)``). ``var_run``:
    the seed variance per unit of Σ inv_k (the pooled σ̂²_run for one component); ``run_f``,
    ``run_pvalue``: the F test of the run effect over the components' ANOVAs together.
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        extra = np.zeros(np.shape(estimate))
        den = v_paired**2 / df_paired
        inv_all = np.zeros(np.shape(estimate))
        ss_r, df_r = np.zeros(np.shape(estimate)), np.zeros(np.shape(estimate))
        ss_e, df_e = np.zeros(np.shape(estimate)), np.zeros(np.shape(estimate))
        for comp in components:
            ss_run, df_run = comp["ss_run"], comp["df_run"]
            ss_resid, df_resid = comp["ss_resid"], comp["df_resid"]
            n_weight, inv = comp["n_weight"], comp["inv_runs"]
            ms_run = ss_run / df_run
            ms_resid = ss_resid / df_resid
            has = (df_run > 0) & (df_resid > 0) & (inv > 0)
            var_k = np.where(has, np.maximum(0.0, (ss_run - df_run * ms_resid) / n_weight), 0.0)
            c = inv * df_run / n_weight
            part = var_k * inv
            extra = extra + part
            den = den + np.where(part > 0, (c * ms_run) ** 2 / df_run
                                 + (c * ms_resid) ** 2 / df_resid, 0.0)
            inv_all = inv_all + np.where(has, inv, 0.0)
            ss_r, df_r = ss_r + np.where(has, ss_run, 0.0), df_r + np.where(has, df_run, 0.0)
            ss_e = ss_e + np.where(has, ss_resid, 0.0)
            df_e = df_e + np.where(has, df_resid, 0.0)
        v = v_paired + extra
        df = np.where(den > 0, v**2 / den, df_paired)
        se = np.sqrt(v)
        t = np.where(se > 0, estimate / se, np.where(estimate == 0, 0.0, np.copysign(np.inf, estimate)))
        var_run = np.where(inv_all > 0, extra / inv_all, 0.0)
        has_runs = (df_r > 0) & (df_e > 0)
        run_f = np.where(has_runs, (ss_r / df_r) / (ss_e / df_e), np.nan)
        run_p = np.where(has_runs, stats.f.sf(run_f, df_r, df_e), np.nan)
    p = _p_from_t(t, df, alternative)
    p = np.where((se == 0) & (estimate == 0), 1.0, p)
    return {"se": se, "df": df, "statistic": t, "pvalue": p, "var_run": var_run,
            "run_f": run_f, "run_pvalue": run_p}


def pair_components(a: RunAnova, pooled: PooledRuns, ia: np.ndarray, ja: np.ndarray,
                    runs: np.ndarray) -> list[Component]:
    """The seed-variance components of the pairs (``ia[k]``, ``ja[k]``) of the systems of
    ``a``: a system with repeated runs brings its own seed variance (its run ANOVA) where
    that exceeds the pool of every system with runs, the pool where not; a single-run
    system the pool (it has none of its own; pooling over the pair alone gave two single-run
    systems the plain paired t, FWER 0.227). Systems on the pool share one component (one
    estimate, weight 1/R_a + 1/R_b).

    Why the larger of the two: seed SDs differ between systems, and one pooled SD for all
    under-covers the noisier ones (pairwise FWER 0.073 with seed SD 0.05–0.6 across
    systems, benchmarks/calibrate_rank_sets_designs.py); each system's own alone rests on
    R − 1 df (2 with 3 runs), truncated at 0 for about one system in seven when its seed
    effect is modest, and a pair whose two estimates both fell to 0 lost its seed variance
    altogether (FWER 0.163 with equal seed SDs, 0/1 scores). The larger one keeps the noisy
    systems' own variance and never falls below the pool: 0.033 and 0.007 on those two
    designs (150 replications).
    """
    live = (a.df_run > 0) & (a.df_resid > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        mine = np.where(live, (a.ss_run - a.ss_resid / a.df_resid * a.df_run)
                        / (a.df_run * a.n), 0.0)
    # a system's own seed variance where it exceeds the pool's, the pool's where not
    own = live & (mine > pooled.var_run)
    inv = 1.0 / np.maximum(runs, 1).astype(float)
    every = np.ones(len(ia))

    def side(i: np.ndarray) -> Component:
        return {"ss_run": np.where(own[i], a.ss_run[i], 0.0),
                "df_run": np.where(own[i], a.df_run[i], 0.0),
                "ss_resid": np.where(own[i], a.ss_resid[i], 0.0),
                "df_resid": np.where(own[i], a.df_resid[i], 0.0),
                "n_weight": np.where(own[i], a.df_run[i] * a.n[i], 1.0),
                "inv_runs": np.where(own[i], inv[i], 0.0)}

    on_pool = np.where(~own[ia], inv[ia], 0.0) + np.where(~own[ja], inv[ja], 0.0)
    pool: Component = {"ss_run": pooled.ss_run * every, "df_run": pooled.df_run * every,
                       "ss_resid": pooled.ss_resid * every, "df_resid": pooled.df_resid * every,
                       "n_weight": (pooled.n_weight if pooled.n_weight > 0 else 1.0) * every,
                       "inv_runs": on_pool}
    return [side(ia), side(ja), pool]
