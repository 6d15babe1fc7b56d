"""Repeated tries of agent tasks: pass@k and pass^k with intervals over tasks, paired
differences of every pair and k-curves.

Public API (names kept stable; the app's reliability view and the CLI build on them):

- :func:`pass_at_k`, :func:`pass_hat_k` — per task, the unbiased estimators from n tries
  with c successes (arrays broadcast; NaN where n < k).
- :class:`TryCounts`, :func:`try_counts` — a long table (0/1 ``value`` per try, tries as
  ``run``) → tries and successes per system × task.
- :class:`PassKEstimates`, :func:`pass_k_estimates` — per system: tasks used, tasks
  excluded, pass@k and pass^k averaged over tasks with intervals.
- :class:`PassKPairs`, :func:`pass_k_pairs` — every pair's paired difference of pass^k and
  pass@k on the tasks both ran, interval, p-value, Holm–Šidák adjusted.
- :class:`PassKCurves`, :func:`pass_k_curves` — pass@k and pass^k for k = 1…K per system
  with pointwise and simultaneous (Šidák over k) bands.

Per task and per gate (flaky tasks, outcome consistency, one benchmark's reliability, the
pass^k CI gate) live in :mod:`engine.stats._passk_reliability`, built on these.

Estimators (Chen et al. 2021, "Evaluating Large Language Models Trained on Code",
arXiv:2107.03374, §2.1; Yao et al. 2024, τ-bench, arXiv:2406.12045): with n tries and c
successes, pass@k = 1 − C(n−c, k)/C(n, k) and pass^k = C(c, k)/C(n, k), both unbiased for
1 − (1−p)^k and p^k. The ratios are computed as products of k factors in [0, 1],
``Π_{j<k} (m−j)/(n−j)`` (Chen et al.'s numerically stable form), never factorials: exact to
a few ulps for n in the thousands. **Tasks with fewer than k tries are excluded** (no
unbiased estimator exists for them) and counted per system (``excluded``).

Intervals: the task is the randomisation unit (tasks drawn from a population of tasks,
tries nested within each task), so the variance of a mean over tasks is the variance of
the per-task estimates over tasks divided by the number of tasks — it holds the task-to-task
spread and the try-to-try noise at once. With a cluster column the variance is CR2 over
clusters of tasks with Bell–McCaffrey degrees of freedom (:mod:`engine.stats._clusters`).
A mean of [0, 1] values near 0 or 1 over few tasks breaks the t interval (its variance
estimate collapses with the mean: with 8 tries on 20 tasks that almost always pass,
Beta(4, 0.4), the t interval of pass@4 covers 0.34 and of pass@1 0.90). The per-system
interval is therefore the **Korn–Graubard interval** (Korn & Graubard 1998, "Confidence
intervals for proportions with small expected number of positive counts estimated from
survey data", Survey Methodology 24:193–201; evaluated by Dean & Pagano 2015, Respiratory
Care 60:1327): the Clopper–Pearson interval at the effective sample size n* = m(1−m)/v̂
(m the mean, v̂ its variance over tasks or clusters), n* scaled by (t_{n−1}/t_df)² for the
clustered df. It stays in [0, 1], is asymmetric near the bounds, and when v̂ = 0 (every
task the same, e.g. all pass) it is the Clopper–Pearson interval of the tasks as trials.
n* is capped at Σ_tasks ⌊n/k⌋, the disjoint blocks of k tries: each block's all-pass
(any-pass) indicator is a Bernoulli trial with mean pass^k (pass@k), and Clopper–Pearson
on independent heterogeneous trials is conservative (a Poisson-binomial is less variable
than the binomial). Uncapped, n* runs far past that when a few rare tasks carry the mean
(pass@4 of tasks that almost always pass: the many per-task values just below 1 say
nothing about the rare task that fails) and KG covers 0.78 at 20 tasks; capped, the lowest
coverage over the calibration grid (20/50/200 tasks × k = 1, 2, 4, 8 × tasks U-shaped,
near 0, near 1 and clustered; 2,000 replications, MC SE ≤ 0.006) is 0.932.

Paired differences: the test is the paired t over tasks (CR2 with clusters): under no
difference the per-task differences are symmetric (the two systems exchangeable on each
task), where the t keeps its level; Holm–Šidák over the pairs (simulated FWER ≤ 0.05 at 6
systems). The interval is not the t interval, which covers 0.52 for a pass^4 difference of
two systems near 0 at 20 tasks (and 0.65 for pass@4 near 1): it is the MOVER interval
(Zou & Donner 2008, "Construction of confidence limits about effect measures: a general
approach", Statistics in Medicine 27:1693; Newcombe 1998, Statistics in Medicine 17:2635,
method 10 for paired proportions) built from the two systems' Korn–Graubard intervals on
the common tasks and the correlation of their means, so it inherits their behaviour at the
bounds (lowest simulated coverage 0.92, at 20 tasks; 0.94 from 50). Test and interval can
disagree at the margin; the gate decides by the test.
Coverage and family-wise error rates by simulation: benchmarks/calibrate_passk.py.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt
import pandas as pd
from scipy import stats

from .._options import TestOptions
from ._multitest import adjust_pvalues

if TYPE_CHECKING:
    from ._clusters import ClusterDesign

__all__ = ["PassKCurves", "PassKEstimates", "PassKPairs", "TryCounts", "korn_graubard",
           "pass_at_k", "pass_hat_k", "pass_k_curves", "pass_k_estimates", "pass_k_pairs",
           "try_counts"]


# ---------------------------------------------------------------- per-task estimators


def _comb_ratio(top: np.ndarray, n: np.ndarray, k: int) -> np.ndarray:
    """C(top, k) / C(n, k) as Π_{j<k} (top − j)/(n − j), 0 where top < k, NaN where n < k."""
    out = np.ones(np.broadcast_shapes(top.shape, n.shape))
    with np.errstate(divide="ignore", invalid="ignore"):
        for j in range(k):
            out *= np.clip((top - j) / (n - j), 0.0, 1.0)
    return np.where(n >= k, out, np.nan)


def _check_k(k: int) -> int:
    if isinstance(k, bool) or int(k) != k or k < 1:
        raise ValueError(f"k: a whole number ≥ 1 of tries; got {k!r}")
    return int(k)


def pass_at_k(n: npt.ArrayLike, c: npt.ArrayLike, k: int) -> np.ndarray:
    """Unbiased pass@k of each task: 1 − C(n−c, k)/C(n, k) (NaN where n < k).

    >>> round(float(pass_at_k(10, 3, 5)), 6)  # 1 - 21/252
    0.916667
    """
    k = _check_k(k)
    n_, c_ = np.asarray(n, dtype=float), np.asarray(c, dtype=float)
    return np.asarray(1.0 - _comb_ratio(n_ - c_, n_, k))


def pass_hat_k(n: npt.ArrayLike, c: npt.ArrayLike, k: int) -> np.ndarray:
    """Unbiased pass^k of each task: C(c, k)/C(n, k) (NaN where n < k).

    >>> round(float(pass_hat_k(8, 6, 4)), 6)  # 15/70
    0.214286
    """
    k = _check_k(k)
    n_, c_ = np.asarray(n, dtype=float), np.asarray(c, dtype=float)
    return _comb_ratio(c_, n_, k)


# ---------------------------------------------------------------- counts of tries


@dataclass(frozen=True)
class TryCounts:
    """Tries and successes of every system on every task of one (benchmark, metric).

    ``tries[s, t]`` / ``successes[s, t]``: system s on task ``examples[t]`` (0 tries where
    it did not run it). ``clusters``: the cluster design of the tasks, if any.
    """

    benchmark: str
    metric: str
    systems: tuple[str, ...]
    examples: tuple[str, ...]
    tries: np.ndarray
    successes: np.ndarray
    clusters: ClusterDesign | None = field(default=None, repr=False)

    def restrict(self, systems: list[str]) -> TryCounts:
        """The counts of ``systems`` only, in that order."""
        rows = [self.systems.index(s) for s in systems]
        return TryCounts(self.benchmark, self.metric, tuple(systems), self.examples,
                         self.tries[rows], self.successes[rows], self.clusters)


def try_counts(frame: pd.DataFrame, *, benchmark: str | None = None,
               metric: str | None = None, systems: list[str] | None = None,
               cluster: str | None = None) -> TryCounts:
    """Tries and successes per system × task from a long table (one row per try).

    ``value`` must be 0/1 (True/False) for every try; a row per (system, example_id, run).
    A table without ``run`` holds one try per row all the same (several rows of a system
    and example are several tries). ``cluster``: a per-example column grouping tasks.
    """
    from .._matrix import pick_slice

    bench, met = pick_slice(frame, benchmark, metric)
    part = frame[(frame["benchmark"] == bench) & (frame["metric"] == met)]
    if systems is not None:
        present = set(map(str, part["system"].unique()))
        unknown = [s for s in systems if s not in present]
        if unknown:
            raise ValueError(f"systems: {unknown!r} not found on {bench}/{met}")
        part = part[part["system"].astype(str).isin(systems)]
    values = pd.to_numeric(part["value"], errors="coerce").to_numpy(float)
    keep = ~np.isnan(values)
    bad = keep & (values != 0.0) & (values != 1.0)
    if bad.any():
        row = part.iloc[int(np.flatnonzero(bad)[0])]
        raise ValueError(
            f"pass@k/pass^k: column 'value' of {bench}/{met} must be 0 or 1 for every try "
            f"(pass or fail); got {float(values[bad][0])!r} (system {row['system']!r}, example "
            f"{row['example_id']!r}); score each try as 1 = pass, 0 = fail (e.g. threshold the "
            "metric) or choose a 0/1 metric with --metric")
    part, values = part[keep], values[keep]
    sys_codes, names = pd.factorize(part["system"].astype(str), sort=False)
    if systems is not None:
        order = {s: i for i, s in enumerate(systems)}
        sys_codes = np.array([order[s] for s in names])[sys_codes]
        names = pd.Index(systems)
    ex_codes, examples = pd.factorize(part["example_id"].astype(str), sort=True)
    cells = sys_codes * len(examples) + ex_codes
    size = len(names) * len(examples)
    tries = np.bincount(cells, minlength=size).reshape(len(names), len(examples))
    wins = np.bincount(cells, weights=values, minlength=size).reshape(tries.shape)
    design = None
    if cluster is not None:
        from ._clusters import ClusterDesign, cluster_codes

        labelled = part.assign(example_id=part["example_id"].astype(str))
        design = ClusterDesign.from_codes(cluster_codes(labelled, cluster, tuple(examples)),
                                          cluster)
    return TryCounts(bench, met, tuple(map(str, names)), tuple(map(str, examples)),
                     tries.astype(np.int64), np.rint(wins).astype(np.int64), design)


# ---------------------------------------------------------------- means over tasks


def _bm_df(sizes: np.ndarray) -> np.ndarray:
    """Bell–McCaffrey df of a CR2 mean for cluster sizes along the last axis (0 = absent):
    (tr Q)² / ‖Q‖²_F with tr Q = 1/n and ‖Q‖² = Σ c⁴n² − 2Σ c⁴n³/n + (Σ c²n²)²/n²,
    ``c_g = 1/(n √(1 − n_g/n))`` (the closed form of ``_clusters._bell_mccaffrey_df``)."""
    n = sizes.sum(axis=-1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        c2 = 1.0 / (n**2 * (1.0 - sizes / n))
        c2 = np.where(sizes > 0, c2, 0.0)
        nn = n[..., 0]
        frob = ((c2**2 * sizes**2).sum(axis=-1) - 2.0 * (c2**2 * sizes**3).sum(axis=-1) / nn
                + (c2 * sizes**2).sum(axis=-1) ** 2 / nn**2)
        df = (1.0 / nn**2) / frob
    present = (sizes > 0).sum(axis=-1)
    return np.asarray(np.where(present >= 2, df, np.nan))


def _member(design: ClusterDesign, n_tasks: int) -> np.ndarray:
    member = np.zeros((n_tasks, design.n_clusters))
    member[np.arange(n_tasks), design.codes] = 1.0
    return member


def _mean_var(x: np.ndarray, mask: np.ndarray, design: ClusterDesign | None
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per row: mean over its masked tasks, the variance of that mean (over tasks, or CR2
    over clusters), its df and the number of tasks."""
    w = mask.astype(float)
    n = w.sum(axis=1)
    y = np.where(mask, x, 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = y.sum(axis=1) / n
        dev = np.where(mask, x - mean[:, None], 0.0)
        if design is None:
            var = (dev**2).sum(axis=1) / (n * (n - 1))
            df = n - 1
        else:
            member = _member(design, x.shape[1])
            sums, sizes = dev @ member, w @ member
            weight = np.where(sizes > 0, 1.0 / (1.0 - sizes / n[:, None]), 0.0)
            var = (weight * sums**2).sum(axis=1) / n**2
            df = _bm_df(sizes)
    return mean, np.maximum(var, 0.0), df, n


def korn_graubard(mean: npt.ArrayLike, var: npt.ArrayLike, n: npt.ArrayLike,
                  df: npt.ArrayLike, alpha: float, cap: npt.ArrayLike | None = None
                  ) -> tuple[np.ndarray, np.ndarray]:
    """Korn–Graubard (1998) interval of a mean of [0, 1] values over ``n`` units:
    Clopper–Pearson at the effective sample size n* = min(m(1−m)/var, cap) ·
    (t_{n−1}/t_df)², n* = n where var = 0 or m is 0 or 1 (the n units as Bernoulli
    trials). ``cap`` (default n): the most Bernoulli trials the data can stand for.
    NaN where n < 2 or df is NaN."""
    m, v = np.asarray(mean, dtype=float), np.asarray(var, dtype=float)
    n_, d = np.asarray(n, dtype=float), np.asarray(df, dtype=float)
    top = n_ if cap is None else np.asarray(cap, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        inner = (v > 0) & (m > 0) & (m < 1)
        neff = np.where(inner, np.minimum(m * (1.0 - m) / np.where(v > 0, v, 1.0), top), n_)
        scale = (stats.t.ppf(1 - alpha / 2, n_ - 1) / stats.t.ppf(1 - alpha / 2, d)) ** 2
        neff = neff * np.where(np.isfinite(scale), scale, 1.0)
        x = m * neff
        low = np.where(x > 0, stats.beta.ppf(alpha / 2, x, neff - x + 1), 0.0)
        high = np.where(neff - x > 0, stats.beta.ppf(1 - alpha / 2, x + 1, neff - x), 1.0)
    bad = ~(n_ >= 2) | np.isnan(d) | np.isnan(m)
    return (np.asarray(np.where(bad, np.nan, np.clip(low, 0.0, 1.0))),
            np.asarray(np.where(bad, np.nan, np.clip(high, 0.0, 1.0))))


@dataclass(frozen=True)
class PassKEstimates:
    """pass@k and pass^k of every system, averaged over its tasks with ≥ k tries.

    Arrays have one entry per system: ``tasks`` used, ``excluded`` (tasks it ran with
    fewer than k tries), the means and their (1 − alpha) Korn–Graubard intervals.
    """

    k: int
    alpha: float
    systems: tuple[str, ...]
    tasks: np.ndarray
    excluded: np.ndarray
    pass_at_k: np.ndarray
    pass_at_k_low: np.ndarray
    pass_at_k_high: np.ndarray
    pass_hat_k: np.ndarray
    pass_hat_k_low: np.ndarray
    pass_hat_k_high: np.ndarray

    @property
    def table(self) -> pd.DataFrame:
        """One row per system: system, tasks, excluded and the six numbers."""
        return pd.DataFrame({
            "system": list(self.systems), "tasks": self.tasks, "excluded": self.excluded,
            "pass_at_k": self.pass_at_k, "pass_at_k_low": self.pass_at_k_low,
            "pass_at_k_high": self.pass_at_k_high, "pass_hat_k": self.pass_hat_k,
            "pass_hat_k_low": self.pass_hat_k_low, "pass_hat_k_high": self.pass_hat_k_high})

    def rule(self) -> str:
        """The exclusion rule in words, with what it dropped."""
        dropped = int(self.excluded.sum())
        return (f"tasks with fewer than k = {self.k} tries are excluded (no unbiased "
                f"estimate): {dropped} system × task cell(s) dropped" if dropped else
                f"every task has at least k = {self.k} tries")


def pass_k_estimates(counts: TryCounts, k: int, *, alpha: float = 0.05) -> PassKEstimates:
    """Per system: pass@k and pass^k over its tasks with ≥ k tries, with intervals."""
    k = _check_k(k)
    n, c = counts.tries.astype(float), counts.successes.astype(float)
    usable = n >= k
    out: dict[str, np.ndarray] = {}
    blocks = np.where(usable, n // k, 0).sum(axis=1)
    for name, x in (("pass_at_k", pass_at_k(n, c, k)), ("pass_hat_k", pass_hat_k(n, c, k))):
        mean, var, df, m = _mean_var(x, usable, counts.clusters)
        low, high = korn_graubard(mean, var, m, df, alpha, blocks)
        out[name], out[f"{name}_low"], out[f"{name}_high"] = mean, low, high
    return PassKEstimates(k=k, alpha=alpha, systems=counts.systems,
                          tasks=usable.sum(axis=1), excluded=((n > 0) & ~usable).sum(axis=1),
                          **out)


# ---------------------------------------------------------------- paired differences


@dataclass(frozen=True)
class _Diffs:
    """Per pair on its common tasks: each side's mean and variance of the mean, their
    covariance, the difference, its standard error, df and the number of tasks."""

    mean_a: np.ndarray
    mean_b: np.ndarray
    var_a: np.ndarray
    var_b: np.ndarray
    cov: np.ndarray
    diff: np.ndarray
    se: np.ndarray
    df: np.ndarray
    n: np.ndarray


def _pair_diffs(x: np.ndarray, mask: np.ndarray, ia: np.ndarray, ja: np.ndarray,
                design: ClusterDesign | None) -> _Diffs:
    """mean(x_a − x_b) over the tasks both rows have, for every pair, with the variances
    and covariance of the two means (over tasks, or CR2 over clusters) and df — from matrix
    products, no loop over pairs (a loop over clusters when there are clusters)."""
    m = mask.astype(float)
    y = np.where(mask, x, 0.0)
    common = m @ m.T
    ym = y @ m.T  # [a, b]: Σ of x_a over the tasks a and b share
    n = common[ia, ja]
    with np.errstate(invalid="ignore", divide="ignore"):
        ma, mb = ym[ia, ja] / n, ym[ja, ia] / n
        if design is None:
            y2m = (y * y) @ m.T
            cross = (y @ y.T)[ia, ja]
            scale = n * (n - 1)
            va = (y2m[ia, ja] - n * ma**2) / scale
            vb = (y2m[ja, ia] - n * mb**2) / scale
            cov = (cross - n * ma * mb) / scale
            df = n - 1
        else:
            g = design.n_clusters
            acc = np.zeros((3, len(ia)))
            sizes = np.zeros((len(ia), g))
            for h in range(g):
                cols = design.codes == h
                yg, mg = y[:, cols], m[:, cols]
                ng = (mg @ mg.T)[ia, ja]
                sums = yg @ mg.T
                sa, sb = sums[ia, ja] - ma * ng, sums[ja, ia] - mb * ng
                weight = np.where(ng > 0, 1.0 / (1.0 - ng / n), 0.0)
                acc += weight * np.stack([sa * sa, sb * sb, sa * sb])
                sizes[:, h] = ng
            va, vb, cov = acc / n**2
            df = _bm_df(sizes)
        var = np.maximum(va + vb - 2.0 * cov, 0.0)
    return _Diffs(ma, mb, np.maximum(va, 0.0), np.maximum(vb, 0.0), cov, ma - mb,
                  np.sqrt(var), np.asarray(df, dtype=float), n)


def _t_test(d: _Diffs, alpha: float) -> np.ndarray:
    """Two-sided paired t p-value of each pair (1 where every task ties)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        t = np.where(d.se > 0, d.diff / d.se,
                     np.where(d.diff == 0, 0.0, np.copysign(np.inf, d.diff)))
        p = np.where((d.se == 0) & (d.diff == 0), 1.0, 2.0 * stats.t.sf(np.abs(t), d.df))
    bad = ~(d.n >= 2) | np.isnan(d.df)
    return np.asarray(np.where(bad, np.nan, np.clip(p, 0.0, 1.0)))


def _mover(d: _Diffs, cap_a: np.ndarray, cap_b: np.ndarray, alpha: float
           ) -> tuple[np.ndarray, np.ndarray]:
    """MOVER interval of mean_a − mean_b from each side's Korn–Graubard interval and the
    correlation of the two means (Zou & Donner 2008; Newcombe 1998's paired method 10 with
    Korn–Graubard in place of Wilson), clipped to [−1, 1]."""
    la, ua = korn_graubard(d.mean_a, d.var_a, d.n, d.df, alpha, cap_a)
    lb, ub = korn_graubard(d.mean_b, d.var_b, d.n, d.df, alpha, cap_b)
    with np.errstate(invalid="ignore", divide="ignore"):
        denom = np.sqrt(d.var_a * d.var_b)
        rho = np.clip(np.where(denom > 0, d.cov / np.where(denom > 0, denom, 1.0), 0.0),
                      -1.0, 1.0)
        da, db = d.mean_a - la, ub - d.mean_b
        low = d.diff - np.sqrt(np.maximum(da**2 - 2 * rho * da * db + db**2, 0.0))
        ua_, lb_ = ua - d.mean_a, d.mean_b - lb
        high = d.diff + np.sqrt(np.maximum(ua_**2 - 2 * rho * ua_ * lb_ + lb_**2, 0.0))
    return np.clip(low, -1.0, 1.0), np.clip(high, -1.0, 1.0)


def _blocks(n: np.ndarray, usable: np.ndarray, k: int, ia: np.ndarray, ja: np.ndarray
            ) -> tuple[np.ndarray, np.ndarray]:
    """Per pair: Σ ⌊n/k⌋ of side a and of side b over their common tasks (the caps)."""
    m = usable.astype(float)
    per = np.where(usable, n // k, 0).astype(float) @ m.T
    return per[ia, ja], per[ja, ia]


def _adjusted(p: np.ndarray, correction: str, alpha: float) -> np.ndarray:
    out = np.full(len(p), np.nan)
    ok = ~np.isnan(p)
    out[ok] = adjust_pvalues(p[ok], method=correction, alpha=alpha)
    return out


@dataclass(frozen=True)
class PassKPairs:
    """Every pair's paired difference (system_a − system_b) on the tasks both ran with
    ≥ k tries.

    ``table`` columns: system_a, system_b, tasks, diff_pass_hat_k, diff_pass_hat_k_low,
    diff_pass_hat_k_high, diff_pass_at_k, diff_pass_at_k_low, diff_pass_at_k_high, pvalue,
    pvalue_adj, significant (pass^k's test, adjusted over the pairs), pvalue_pass_at_k,
    pvalue_adj_pass_at_k, significant_pass_at_k (pass@k's, its own family).
    """

    k: int
    alpha: float
    correction: str
    systems: tuple[str, ...]
    table: pd.DataFrame

    def matrix(self, column: str = "diff_pass_hat_k") -> pd.DataFrame:
        """A systems × systems square of ``column`` (differences mirrored with a minus)."""
        index = {s: i for i, s in enumerate(self.systems)}
        ia = self.table["system_a"].map(index).to_numpy(int)
        ja = self.table["system_b"].map(index).to_numpy(int)
        values = self.table[column].to_numpy(float)
        sq = np.full((len(self.systems),) * 2, np.nan)
        sq[ia, ja] = values
        sq[ja, ia] = -values if column.startswith("diff") and not column.endswith(
            ("_low", "_high")) else values
        return pd.DataFrame(sq, index=list(self.systems), columns=list(self.systems))


def pass_k_pairs(counts: TryCounts, k: int, *, alpha: float = 0.05,
                 correction: str = TestOptions.correction) -> PassKPairs:
    """Paired pass^k and pass@k differences of every pair (i < j in ``counts.systems``)."""
    k = _check_k(k)
    n, c = counts.tries.astype(float), counts.successes.astype(float)
    usable = n >= k
    s = len(counts.systems)
    ia, ja = np.triu_indices(s, 1)
    cols: dict[str, object] = {"system_a": np.asarray(counts.systems, dtype=object)[ia],
                               "system_b": np.asarray(counts.systems, dtype=object)[ja]}
    tests = {}
    cap_a, cap_b = _blocks(n, usable, k, ia, ja)
    for name, x in (("pass_hat_k", pass_hat_k(n, c, k)), ("pass_at_k", pass_at_k(n, c, k))):
        d = _pair_diffs(x, usable, ia, ja, counts.clusters)
        p = _t_test(d, alpha)
        low, high = _mover(d, cap_a, cap_b, alpha)
        cols["tasks"] = d.n.astype(np.int64)
        cols[f"diff_{name}"], cols[f"diff_{name}_low"], cols[f"diff_{name}_high"] = (
            d.diff, low, high)
        tests[name] = p
    for name, suffix in (("pass_hat_k", ""), ("pass_at_k", "_pass_at_k")):
        adj = _adjusted(tests[name], correction, alpha)
        cols[f"pvalue{suffix}"], cols[f"pvalue_adj{suffix}"] = tests[name], adj
        cols[f"significant{suffix}"] = np.asarray(adj < alpha)
    order = ["system_a", "system_b", "tasks", "diff_pass_hat_k", "diff_pass_hat_k_low",
             "diff_pass_hat_k_high", "diff_pass_at_k", "diff_pass_at_k_low",
             "diff_pass_at_k_high", "pvalue", "pvalue_adj", "significant", "pvalue_pass_at_k",
             "pvalue_adj_pass_at_k", "significant_pass_at_k"]
    return PassKPairs(k=k, alpha=alpha, correction=correction, systems=counts.systems,
                      table=pd.DataFrame({name: cols[name] for name in order}))


# ---------------------------------------------------------------- k-curves


@dataclass(frozen=True)
class PassKCurves:
    """pass@k and pass^k for k = 1…``k_max`` of every system (arrays systems × k).

    At each k the mean is over the tasks with ≥ k tries (``tasks``); ``*_low``/``*_high``
    are pointwise Korn–Graubard intervals, ``*_band_low``/``*_band_high`` simultaneous over
    the k of a system (Šidák: each at level (1 − alpha)^(1/k_max), valid whatever the
    dependence between the k, conservative).
    """

    ks: np.ndarray
    alpha: float
    systems: tuple[str, ...]
    tasks: np.ndarray
    pass_at_k: np.ndarray
    pass_at_k_low: np.ndarray
    pass_at_k_high: np.ndarray
    pass_at_k_band_low: np.ndarray
    pass_at_k_band_high: np.ndarray
    pass_hat_k: np.ndarray
    pass_hat_k_low: np.ndarray
    pass_hat_k_high: np.ndarray
    pass_hat_k_band_low: np.ndarray
    pass_hat_k_band_high: np.ndarray

    @property
    def table(self) -> pd.DataFrame:
        """Long: one row per system × k with every curve and band."""
        s, kk = len(self.systems), len(self.ks)
        out = {"system": np.repeat(np.asarray(self.systems, dtype=object), kk),
               "k": np.tile(self.ks, s), "tasks": self.tasks.ravel()}
        for name in ("pass_at_k", "pass_hat_k"):
            for suffix in ("", "_low", "_high", "_band_low", "_band_high"):
                out[name + suffix] = getattr(self, name + suffix).ravel()
        return pd.DataFrame(out)


def pass_k_curves(counts: TryCounts, k_max: int | None = None, *,
                  alpha: float = 0.05) -> PassKCurves:
    """pass@k and pass^k of every system for k = 1…k_max (default: the most tries any
    system has on a task), with pointwise and simultaneous bands."""
    n, c = counts.tries.astype(float), counts.successes.astype(float)
    k_max = _check_k(int(n.max()) if k_max is None else k_max)
    band_alpha = 1.0 - (1.0 - alpha) ** (1.0 / k_max)
    shape = (len(counts.systems), k_max)
    res = {name: np.full(shape, np.nan) for name in (
        f"{a}{b}" for a in ("pass_at_k", "pass_hat_k")
        for b in ("", "_low", "_high", "_band_low", "_band_high"))}
    tasks = np.zeros(shape, dtype=np.int64)
    miss = np.ones(n.shape)  # running C(n−c, k)/C(n, k) and C(c, k)/C(n, k)
    hit = np.ones(n.shape)
    with np.errstate(divide="ignore", invalid="ignore"):
        for j in range(k_max):
            miss *= np.clip((n - c - j) / (n - j), 0.0, 1.0)
            hit *= np.clip((c - j) / (n - j), 0.0, 1.0)
            usable = n >= j + 1
            tasks[:, j] = usable.sum(axis=1)
            blocks = np.where(usable, n // (j + 1), 0).sum(axis=1)
            for name, x in (("pass_at_k", 1.0 - miss), ("pass_hat_k", hit)):
                mean, var, df, m = _mean_var(x, usable, counts.clusters)
                res[name][:, j] = mean
                res[f"{name}_low"][:, j], res[f"{name}_high"][:, j] = korn_graubard(
                    mean, var, m, df, alpha, blocks)
                res[f"{name}_band_low"][:, j], res[f"{name}_band_high"][:, j] = korn_graubard(
                    mean, var, m, df, band_alpha, blocks)
    return PassKCurves(ks=np.arange(1, k_max + 1), alpha=alpha, systems=counts.systems,
                       tasks=tasks, **res)
