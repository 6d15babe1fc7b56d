"""Repeated tries, per task and per gate: flaky tasks, outcome consistency, the reliability
of one (benchmark, metric), and the CI gate on a pass^k difference.

Public API (the app's reliability view, the reports and ``sigboard passk`` / ``sigboard
compare --pass-hat-k`` build on them):

- :class:`FlakyTasks`, :func:`flaky_tasks` — per system × task: success rate over tries,
  exact (Clopper–Pearson) interval, the flaky rule, counts per system.
- :class:`OutcomeConsistency`, :func:`outcome_consistency` — HAL's C_out per system with
  an interval over tasks.
- :class:`Reliability`, :func:`reliability` — all of the above and the pass@k / pass^k
  estimates and pairs of :mod:`engine.stats._passk` for one (benchmark, metric) of a long
  table (``options=``: :class:`engine.TestOptions`, alpha and correction).
- :class:`PassKGate`, :func:`pass_k_gate` — the CI gate on the pass^k difference of a
  candidate against a baseline (``sigboard compare --pass-hat-k K``): the paired t over
  tasks and the MOVER interval described in :mod:`engine.stats._passk`; with ``fail_on``
  a per-task rule that tolerates flakiness decides instead (:class:`TaskGate`).
- :class:`TaskGate`, :func:`task_gate` — the per-task gates: ``broken`` (fail only if a
  task that always passed on the baseline fails on every try of the candidate) and
  ``pass-rate`` (fail if a task's success rate is shown below a threshold: exact binomial
  test per task, adjusted over the tasks, Clopper–Pearson interval per task).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from scipy import stats

from ._passk import (
    PassKEstimates,
    PassKPairs,
    TryCounts,
    _adjusted,
    _blocks,
    _check_k,
    _mean_var,
    _mover,
    _pair_diffs,
    _t_test,
    korn_graubard,
    pass_hat_k,
    pass_k_estimates,
    pass_k_pairs,
    try_counts,
)

if TYPE_CHECKING:
    from .._options import TestOptions

__all__ = ["FAIL_ON", "FlakyTasks", "OutcomeConsistency", "PassKGate", "Reliability", "TaskGate",
           "flaky_tasks", "outcome_consistency", "pass_k_gate", "reliability", "task_gate"]

#: what makes the pass^k gate fail: the pass^k difference, or one of the per-task rules
FAIL_ON = ("difference", "broken", "pass-rate")


# ---------------------------------------------------------------- flaky tasks, consistency


def _clopper_pearson(c: np.ndarray, n: np.ndarray, alpha: float
                     ) -> tuple[np.ndarray, np.ndarray]:
    """Exact binomial interval of c successes in n tries (scipy.stats.binomtest's
    ``proportion_ci(method="exact")``), vectorised; NaN where n = 0."""
    with np.errstate(invalid="ignore", divide="ignore"):
        low = np.where(c > 0, stats.beta.ppf(alpha / 2, c, n - c + 1), 0.0)
        high = np.where(c < n, stats.beta.ppf(1 - alpha / 2, c + 1, n - c), 1.0)
    return np.where(n > 0, low, np.nan), np.where(n > 0, high, np.nan)


@dataclass(frozen=True)
class FlakyTasks:
    """Per system × task: tries, successes, success rate, exact interval, flaky or not.

    The rule: a task is *flaky* for a system when the (1 − alpha) Clopper–Pearson interval
    of its success rate lies inside (margin, 1 − margin); with ``margin = 0`` that is
    "excludes both 0 and 1", which for the exact interval holds exactly when the tries
    disagree (0 < successes < tries): the task is shown to be neither always failed nor
    always passed. A margin > 0 asks for more: shown to fail and pass at least that often.
    ``table``: every cell with at least one try (columns system, example_id, tries,
    successes, rate, low, high, flaky); ``counts``: flaky tasks per system.
    """

    alpha: float
    margin: float
    systems: tuple[str, ...]
    table: pd.DataFrame
    counts: np.ndarray

    def flaky(self) -> pd.DataFrame:
        """The flaky rows only (system order, then example)."""
        return self.table[self.table["flaky"]].reset_index(drop=True)

    def rule(self) -> str:
        level = f"{1 - self.alpha:.0%}"
        if self.margin == 0:
            return (f"flaky: the {level} exact (Clopper–Pearson) interval of the task's "
                    "success rate excludes both 0 and 1, i.e. its tries both passed and failed")
        return (f"flaky: the {level} exact (Clopper–Pearson) interval of the task's success "
                f"rate lies inside ({self.margin:g}, {1 - self.margin:g})")


def flaky_tasks(counts: TryCounts, *, alpha: float = 0.05, margin: float = 0.0) -> FlakyTasks:
    """Flaky tasks of every system (see :class:`FlakyTasks` for the rule)."""
    if not 0.0 <= margin < 0.5:
        raise ValueError(f"margin: in [0, 0.5); got {margin!r}")
    n, c = counts.tries, counts.successes
    s_idx, t_idx = np.nonzero(n > 0)
    nn, cc = n[s_idx, t_idx].astype(float), c[s_idx, t_idx].astype(float)
    low, high = _clopper_pearson(cc, nn, alpha)
    flaky = (low > margin) & (high < 1.0 - margin)
    table = pd.DataFrame({
        "system": np.asarray(counts.systems, dtype=object)[s_idx],
        "example_id": np.asarray(counts.examples, dtype=object)[t_idx],
        "tries": nn.astype(np.int64), "successes": cc.astype(np.int64), "rate": cc / nn,
        "low": low, "high": high, "flaky": flaky})
    per = np.bincount(s_idx[flaky], minlength=len(counts.systems))
    return FlakyTasks(alpha=alpha, margin=margin, systems=counts.systems, table=table,
                      counts=per)


@dataclass(frozen=True)
class OutcomeConsistency:
    """HAL's outcome consistency C_out per system with a (1 − alpha) interval over tasks.

    Per task with K ≥ 2 tries: ``1 − σ̂²/(p̂(1−p̂) + ε)`` clipped to [0, 1] (σ̂² the sample
    variance of the 0/1 outcomes with K − 1, p̂ their mean, ε = 1e-8), averaged over tasks
    (Rabanser et al. 2026, "Towards a science of AI agent reliability", arXiv:2602.16666;
    HAL's reliability methodology). For 0/1 outcomes a task scores 1 when its tries all
    agree and 0 otherwise, so C_out is the share of tasks that are not flaky; tasks with
    one try are excluded. The interval is Korn–Graubard over tasks (clusters when given).
    """

    alpha: float
    systems: tuple[str, ...]
    tasks: np.ndarray
    c_out: np.ndarray
    low: np.ndarray
    high: np.ndarray

    @property
    def table(self) -> pd.DataFrame:
        return pd.DataFrame({"system": list(self.systems), "tasks": self.tasks,
                             "c_out": self.c_out, "low": self.low, "high": self.high})


def outcome_consistency(counts: TryCounts, *, alpha: float = 0.05,
                        epsilon: float = 1e-8) -> OutcomeConsistency:
    """C_out of every system (see :class:`OutcomeConsistency`)."""
    n, c = counts.tries.astype(float), counts.successes.astype(float)
    usable = n >= 2
    with np.errstate(invalid="ignore", divide="ignore"):
        p = c / n
        var = c * (n - c) / (n * (n - 1))  # sample variance of the 0/1 tries (K − 1)
        per = np.clip(1.0 - var / (p * (1.0 - p) + epsilon), 0.0, 1.0)
    mean, v, df, m = _mean_var(per, usable, counts.clusters)
    low, high = korn_graubard(mean, v, m, df, alpha)
    return OutcomeConsistency(alpha=alpha, systems=counts.systems,
                              tasks=usable.sum(axis=1), c_out=mean, low=low, high=high)


# ---------------------------------------------------------------- one benchmark, and the gate


@dataclass(frozen=True)
class Reliability:
    """Everything about repeated tries of one (benchmark, metric) at one k."""

    benchmark: str
    metric: str
    k: int
    counts: TryCounts
    estimates: PassKEstimates
    pairs: PassKPairs
    flaky: FlakyTasks
    consistency: OutcomeConsistency
    options: TestOptions


def _opts(options: TestOptions | None) -> TestOptions:
    from .._options import TestOptions

    return TestOptions() if options is None else options


def reliability(frame: pd.DataFrame, *, k: int, benchmark: str | None = None,
                metric: str | None = None, systems: list[str] | None = None,
                cluster: str | None = None, margin: float = 0.0,
                options: TestOptions | None = None) -> Reliability:
    """pass@k / pass^k per system, every pair's differences, flaky tasks and C_out of one
    (benchmark, metric) of a long table whose ``value`` is 0/1 per try.

    ``options``: alpha (intervals at 1 − alpha, tests at alpha) and correction (the
    pairs' multiplicity adjustment, Holm–Šidák by default) of :class:`engine.TestOptions`.
    """
    opts = _opts(options)
    k = _check_k(k)
    counts = try_counts(frame, benchmark=benchmark, metric=metric, systems=systems,
                        cluster=cluster)
    return Reliability(
        benchmark=counts.benchmark, metric=counts.metric, k=k, counts=counts,
        estimates=pass_k_estimates(counts, k, alpha=opts.alpha),
        pairs=pass_k_pairs(counts, k, alpha=opts.alpha, correction=opts.correction),
        flaky=flaky_tasks(counts, alpha=opts.alpha, margin=margin),
        consistency=outcome_consistency(counts, alpha=opts.alpha), options=opts)


@dataclass(frozen=True)
class TaskGate:
    """A per-task gate of a candidate against a baseline over repeated 0/1 tries.

    ``rule="broken"`` — fails only if a task that **always passed on the baseline** (every
    try, at least one) **fails on every try of the candidate** (at least one): flaky tasks
    and a lower pass^k alone never fail it (promptfoo's request for repeats that tolerate
    flakiness). Beside each such task its one-sided Fisher exact p-value
    (``scipy.stats.fisher_exact``, baseline n_b of n_b against candidate 0 of n_c:
    1/C(n_b + n_c, n_b)), which says how strong one task's evidence is: with one try each it
    is 0.5, with 8 each 7.8e-5. The rule itself is the plain one.

    ``rule="pass-rate"`` — fails if some task's candidate success rate is **shown below**
    ``threshold``: per task the exact one-sided binomial test of H0: rate ≥ threshold,
    p = P(Bin(n, threshold) ≤ c) (``scipy.stats.binomtest(alternative="less")``), adjusted
    over the candidate's tasks by ``correction`` (Holm–Šidák by default), the task failing
    when its adjusted p < alpha; so tasks that meet the threshold fail the gate with
    probability ≤ alpha together. With each task the (1 − alpha) Clopper–Pearson interval
    of its rate. Few tries cannot show a rate below a threshold: 8 tries, none passing,
    against 0.5 give p = 0.0039, which does not survive adjustment over 30 tasks.

    ``table``: one row per task considered (example_id, baseline_tries,
    baseline_successes, tries, successes, rate, low, high, pvalue, pvalue_adj, failed).
    """

    rule: str
    alpha: float
    correction: str
    threshold: float | None
    table: pd.DataFrame

    @property
    def failed(self) -> bool:
        return bool(self.table["failed"].any())

    def failing(self) -> pd.DataFrame:
        """The tasks that fail the rule."""
        return self.table[self.table["failed"]].reset_index(drop=True)

    def describe(self) -> str:
        if self.rule == "broken":
            return ("fail only if a task that always passed on the baseline fails on every "
                    "try of the candidate")
        return (f"fail if a task's success rate is shown below {self.threshold:g} (exact "
                f"one-sided binomial test per task, {self.correction} over the tasks at "
                f"{self.alpha:g})")


def task_gate(counts: TryCounts, *, baseline: str, candidate: str, rule: str,
              threshold: float | None = None, alpha: float = 0.05,
              correction: str = "holm-sidak") -> TaskGate:
    """The per-task gate ``rule`` ("broken" or "pass-rate"; see :class:`TaskGate`)."""
    if rule not in FAIL_ON[1:]:
        raise ValueError(f"rule: one of {', '.join(FAIL_ON[1:])}; got {rule!r}")
    if rule == "pass-rate":
        if threshold is None or not 0.0 < threshold <= 1.0:
            raise ValueError(f"threshold: the pass-rate rule needs a rate in (0, 1]; got "
                             f"{threshold!r} (e.g. --min-pass-rate 0.8)")
    elif threshold is not None:
        raise ValueError("threshold: only the pass-rate rule takes one (drop it, or use "
                         "rule='pass-rate')")
    ib, ic = counts.systems.index(baseline), counts.systems.index(candidate)
    nb, cb = counts.tries[ib].astype(np.int64), counts.successes[ib].astype(np.int64)
    nc, cc = counts.tries[ic].astype(np.int64), counts.successes[ic].astype(np.int64)
    keep = (nc > 0) & (nb > 0) if rule == "broken" else nc > 0
    nb, cb, nc, cc = nb[keep], cb[keep], nc[keep], cc[keep]
    low, high = _clopper_pearson(cc.astype(float), nc.astype(float), alpha)
    if rule == "broken":
        failed = (cb == nb) & (cc == 0)
        # one-sided Fisher exact test of the 2 × 2 table [[c_b, n_b − c_b], [c_c, n_c − c_c]]
        # (scipy.stats.fisher_exact(alternative="greater")): the hypergeometric tail
        # P(X ≥ c_b), X ~ Hypergeom(n_b + n_c, c_b + c_c, n_b); 1 / C(n_b + n_c, n_b) where
        # the rule fires
        pvalue = stats.hypergeom.sf(cb - 1, nb + nc, cb + cc, nb)
        adj = np.full(len(pvalue), np.nan)
    else:
        rate = 1.0 if threshold is None else float(threshold)  # validated above
        # P(Bin(n, rate) ≤ c): binomtest(c, n, rate, alternative="less").pvalue
        pvalue = stats.binom.cdf(cc, nc, rate)
        adj = _adjusted(pvalue, correction, alpha) if len(pvalue) else pvalue
        failed = adj < alpha
    table = pd.DataFrame({
        "example_id": np.asarray(counts.examples, dtype=object)[keep],
        "baseline_tries": nb, "baseline_successes": cb, "tries": nc, "successes": cc,
        "rate": cc / nc, "low": low, "high": high, "pvalue": pvalue, "pvalue_adj": adj,
        "failed": np.asarray(failed, dtype=bool)})
    return TaskGate(rule=rule, alpha=alpha, correction=correction, threshold=threshold,
                    table=table)


@dataclass(frozen=True)
class PassKGate:
    """The gate on pass^k: candidate − baseline on the tasks both ran with ≥ k tries.

    ``worse``: significantly worse (two-sided paired t at ``alpha``, difference < 0);
    ``better`` likewise the other way. ``fails``: ``worse``, or with a per-task rule
    (``task``, :class:`TaskGate`) that rule's verdict alone — the pass^k difference is then
    reported but does not decide.
    """

    benchmark: str
    metric: str
    baseline: str
    candidate: str
    k: int
    alpha: float
    tasks: int
    baseline_pass_hat_k: float
    candidate_pass_hat_k: float
    diff: float
    low: float
    high: float
    pvalue: float
    clusters: str | None = None
    task: TaskGate | None = None

    @property
    def worse(self) -> bool:
        return bool(self.pvalue < self.alpha and self.diff < 0)

    @property
    def fails(self) -> bool:
        return self.worse if self.task is None else self.task.failed

    @property
    def better(self) -> bool:
        return bool(self.pvalue < self.alpha and self.diff > 0)

    def verdict(self) -> str:
        if self.task is not None:
            n = len(self.task.failing())
            if self.task.rule == "broken":
                return (f"fail: {n} task(s) always passed on the baseline and failed every "
                        "try of the candidate" if n else
                        "pass: no task that always passed on the baseline fails every try "
                        "of the candidate")
            return (f"fail: {n} task(s) shown below the pass rate {self.task.threshold:g}"
                    if n else f"pass: no task shown below the pass rate "
                    f"{self.task.threshold:g}")
        if self.worse:
            return "fail: the candidate's pass^k is significantly lower"
        if self.better:
            return "pass: the candidate's pass^k is significantly higher"
        return "pass: no significant pass^k difference"


def pass_k_gate(frame: pd.DataFrame, *, baseline: str, candidate: str, k: int,
                benchmark: str | None = None, metric: str | None = None,
                cluster: str | None = None, options: TestOptions | None = None,
                fail_on: str = "difference", min_pass_rate: float | None = None) -> PassKGate:
    """The paired pass^k difference candidate − baseline with its interval and p-value.

    ``fail_on``: "difference" (the gate fails when the candidate's pass^k is significantly
    lower), "broken" or "pass-rate" (with ``min_pass_rate``): a per-task rule of
    :class:`TaskGate` decides instead.
    """
    opts = _opts(options)
    if fail_on not in FAIL_ON:
        raise ValueError(f"fail_on: one of {', '.join(FAIL_ON)}; got {fail_on!r}")
    if min_pass_rate is not None and fail_on != "pass-rate":
        raise ValueError(f"min_pass_rate: only with fail_on='pass-rate' (got fail_on="
                         f"{fail_on!r}); drop it or choose the pass-rate rule")
    k = _check_k(k)
    counts = try_counts(frame, benchmark=benchmark, metric=metric,
                        systems=[baseline, candidate], cluster=cluster)
    n, c = counts.tries.astype(float), counts.successes.astype(float)
    usable = n >= k
    both = usable.all(axis=0)
    if both.sum() < 2:
        raise ValueError(f"--pass-hat-k {k}: {baseline!r} and {candidate!r} share "
                         f"{int(both.sum())} task(s) with at least {k} tries each; the gate "
                         "needs at least 2 (lower k or run more tries)")
    x = pass_hat_k(n, c, k)
    ia, ja = np.array([1]), np.array([0])
    d = _pair_diffs(x, usable, ia, ja, counts.clusters)
    p = _t_test(d, opts.alpha)
    low, high = _mover(d, *_blocks(n, usable, k, ia, ja), opts.alpha)
    means = [float(np.mean(x[i, both])) for i in (0, 1)]
    rule = None if fail_on == "difference" else task_gate(
        counts, baseline=baseline, candidate=candidate, rule=fail_on, threshold=min_pass_rate,
        alpha=opts.alpha, correction=opts.correction)
    return PassKGate(benchmark=counts.benchmark, metric=counts.metric, baseline=baseline,
                     candidate=candidate, k=k, alpha=opts.alpha, tasks=int(d.n[0]),
                     baseline_pass_hat_k=means[0], candidate_pass_hat_k=means[1],
                     diff=float(d.diff[0]), low=float(low[0]), high=float(high[0]),
                     pvalue=float(p[0]),
                     clusters=None if counts.clusters is None else counts.clusters.name,
                     task=rule)
