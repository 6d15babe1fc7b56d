"""Power of a benchmark: the smallest detectable difference, the examples and runs needed, and a
Monte Carlo comparison of the test choices (as in Lumiste 2023, *Why you should A/B test your
LLM evals*; sample sizes as in the LangGraph evaluation guide *Statistical Significance
Testing*, github.com/hiroshi75/protografico, skills/fine-tune/evaluation_statistics.md).

Chain: long table → scenario (per-example means and variance components,
:mod:`engine.stats._runs`) → closed forms (MDD, sample sizes) → simulation of every
test over all replications at once.

How a difference is simulated. Numeric scores: the candidate's scores are the baseline's
level plus δ. 0/1 scores: adding δ to a success probability and clipping at 1 is no shift
at all near the ceiling (on HumanEval+ a "0.142" shift raised the mean by 0.123, so the
reported smallest detectable difference had power 0.94 at a real gain of 0.142). The
candidate's probability is instead ``expit(logit(p) + θ)`` — the Rasch model's shift of
ability, the same on every example's logit — and δ is the *mean gain in success
probability* it produces, ``E[expit(logit(p) + θ) − p]`` over examples, interaction and run
draws (:func:`_logit_shift` solves θ for δ). Examples every system fails (p = 0) or passes
(p = 1) stay so, as under the Rasch model; a δ above the largest possible gain,
``E[1 − p | 0 < p]``, is refused.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import special, stats

from .._contract import MetricSpec
from .._options import TestOptions, resolve
from ._kernels import exact_sign_pvalues
from ._runs import run_anova, run_cube

__all__ = ["POWER_TESTS", "PowerAnalysis", "PowerScenario", "default_test", "estimate_scenario",
           "power", "simulate_power", "simulated_mdd"]

POWER_TESTS = ("paired-t", "unpaired-t", "mcnemar", "sign", "wilcoxon", "bootstrap")
_N_BOOT = 999


@dataclass(frozen=True)
class PowerScenario:
    """How scores arise: ``y = μ_i + δ·[candidate] + g_si + w_sr + ε_sri``.

    ``example_means`` (μ_i, oriented; success probabilities when ``binary``),
    ``var_interaction`` (σ²_g, system × example), ``var_run`` (σ²_w, a run's
    shift of the whole sweep), ``var_resid`` (σ²_ε; for binary scores the draws
    are Bernoulli at ``expit(logit(clip(μ_i + g + w, 0, 1)) + θ)`` with θ giving a mean
    gain δ — see the module docstring — and σ²_ε is only used by the closed forms),
    ``runs``: runs per example observed.
    """

    example_means: np.ndarray
    binary: bool
    var_interaction: float = 0.0
    var_run: float = 0.0
    var_resid: float = 0.0
    runs: int = 1

    def var_difference(self, n: int, r: int) -> float:
        """Variance of the mean paired difference with n examples and r runs per system."""
        return (2 * self.var_interaction + 2 * self.var_resid / r) / n + 2 * self.var_run / r


@dataclass(frozen=True)
class PowerAnalysis:
    """Closed-form planning figures and simulated power of each test.

    ``power`` maps each of ``POWER_TESTS`` to its rejection rate (None where a
    test does not apply: McNemar on numeric scores); ``mc_se`` its Monte Carlo
    standard error. ``examples_needed``/``runs_needed`` are None when no number
    suffices (the other source of noise alone is too large).
    """

    mdd: float
    examples_needed: int | None
    runs_needed: int | None
    power: dict[str, float | None]
    mc_se: dict[str, float | None]
    difference: float
    examples: int
    runs: int
    n_sim: int
    alpha: float
    target_power: float
    scenario: PowerScenario
    mdd_closed_form: float = math.nan
    default_test: str = "paired-t"


def estimate_scenario(df: pd.DataFrame, *, benchmark: str | None = None, metric: str | None = None,
                      spec: MetricSpec | None = None) -> PowerScenario:
    """The scenario of a benchmark: its per-example means and variance components.

    Notes
    -----
    σ²_ε and σ²_w pool every system's runs × examples ANOVA
    (:func:`engine.stats._runs.run_anova`); the typical paired variance ``s²_d`` is the
    square of the median over pairs of the SD of per-example mean differences
    (the health report's ``sd_diff``), and ``σ²_g = (s²_d − 2σ²_ε/R) / 2``. With one run
    σ²_ε is not identified: binary scores take the Bernoulli variance
    ``mean μ_i (1 − μ_i)`` (capped at s²_d / 2), numeric scores take σ²_ε = 0.
    """
    cube = run_cube(df, benchmark=benchmark, metric=metric, spec=spec)
    common = cube.common()
    if common.sum() < 2 or len(cube.systems) < 2:
        raise ValueError(f"benchmark {cube.benchmark!r}: power needs 2 systems sharing at least 2 "
                         f"examples; got {len(cube.systems)} systems, {int(common.sum())} shared")
    cube = cube.restrict(list(cube.systems), common)
    finite = cube.values[~np.isnan(cube.values)]
    binary = bool(np.isin(finite, (0.0, 1.0)).all()) if spec is None or spec.binary is None \
        else bool(spec.binary)
    x = np.nanmean(cube.values, axis=1)
    if not cube.higher_is_better:
        x = 1.0 - x if binary else -x
    cov = np.atleast_2d(np.cov(x, ddof=1))
    var = np.diag(cov)
    iu = np.triu_indices(len(x), k=1)
    s2d = float(np.median(np.sqrt(np.clip(var[:, None] + var[None, :] - 2 * cov, 0, None))[iu])) ** 2
    a = run_anova(cube.values, cube.runs)
    runs = int(np.median(cube.runs))
    mu = x.mean(axis=0)
    if a.df_resid.sum() > 0:
        resid = float(a.ss_resid.sum() / a.df_resid.sum())
        run = max(0.0, float((a.ss_run.sum() - a.df_run.sum() * resid) / (a.df_run * a.n).sum()))
    else:
        resid = min(float(np.mean(mu * (1 - mu))), s2d / 2) if binary else 0.0
        run = 0.0
    inter = max(0.0, (s2d - 2 * resid / runs) / 2)
    return PowerScenario(mu, binary, inter, run, resid, runs)


def _z(alpha: float, target: float) -> float:
    return float(stats.norm.ppf(1 - alpha / 2) + stats.norm.ppf(target))


def _needed(numerator: float, budget: float) -> int | None:
    if numerator <= 0:
        return 1
    return None if budget <= 0 else max(1, math.ceil(numerator / budget - 1e-9))


def power(df: pd.DataFrame, *, benchmark: str, metric: str | None = None,
          difference: float | None = None, examples: int | None = None, runs: int | None = None,
          n_sim: int = 1000, rng: np.random.Generator | int | None = None,
          options: TestOptions | None = None, target_power: float = 0.8,
          spec: MetricSpec | None = None) -> PowerAnalysis:
    """Minimum detectable difference, examples and runs needed, and simulated power of 6 tests.

    Parameters
    ----------
    df : DataFrame
        Validated long table (``validate_long``).
    benchmark : str
        The benchmark to plan for.
    metric : str, optional
        May be omitted when the benchmark has one metric.
    difference : float, optional
        True difference (metric units, positive = candidate better) to plan and
        simulate for; default: the MDD.
    examples, runs : int, optional
        Design to evaluate (default: as observed).
    n_sim : int
        Monte Carlo replications.
    rng : numpy Generator or seed, optional
    options : TestOptions, optional
        Its ``alpha``: the two-sided level (default ``TestOptions()``).
    target_power : float
        The power the planner aims at.
    spec : MetricSpec, optional
        Direction and modality of the metric.

    Returns
    -------
    PowerAnalysis
        mdd, examples_needed, runs_needed, power {test: rate}, … (``sigboard power``'s
        JSON is built from these fields by the command line).

    Notes
    -----
    ``mdd`` is the difference at which the default test (:func:`default_test`: exact
    McNemar for one run of 0/1 scores, else the paired t) has ``target_power`` in
    simulation (:func:`simulated_mdd`); ``mdd_closed_form`` is the health report's paired
    z approximation ``(z_{1−α/2} + z_{power}) √Var(D; n, r)``, ``Var(D; n, r) =
    (2σ²_g + 2σ²_ε / r) / n + 2σ²_w / r`` (see :class:`PowerScenario`), optimistic for
    the exact McNemar test (on HumanEval+ its simulated power is 0.61–0.65, not 0.8).
    Examples needed: the smallest n with ``k·Var(D; n, r) ≤ (d / z)²``, k = (mdd /
    mdd_closed_form)² carrying the test's own efficiency; runs needed: the smallest r.
    Simulation of every test at ``difference``: :func:`simulate_power`.

    Examples
    --------
    >>> import pandas as pd, numpy as np
    >>> g = np.random.default_rng(0)
    >>> df = pd.DataFrame({"benchmark": "b", "metric": "m", "system": ["A"] * 50 + ["B"] * 50,
    ...     "example_id": [f"e{i}" for i in range(50)] * 2, "value": g.normal(size=100)})
    >>> res = power(df, benchmark="b", n_sim=200, rng=1)
    >>> res.mdd > 0, res.n_sim
    (True, 200)
    """
    alpha = resolve(options, {}).alpha
    for name, value in (("alpha", alpha), ("target_power", target_power)):
        if not 0.0 < value < 1.0:
            raise ValueError(f"{name}: must be strictly between 0 and 1; got {value!r}")
    for name, count in (("examples", examples), ("runs", runs), ("n_sim", n_sim)):
        if count is not None and (isinstance(count, bool) or int(count) != count or count < 1
                                  or (name == "examples" and count < 2)):
            raise ValueError(f"{name}: must be a whole number ≥ {2 if name == 'examples' else 1}; "
                             f"got {count!r}")
    scenario = estimate_scenario(df, benchmark=benchmark, metric=metric, spec=spec)
    n = int(examples) if examples is not None else len(scenario.example_means)
    r = int(runs) if runs is not None else scenario.runs
    z = _z(alpha, target_power)
    g = np.random.default_rng(rng)
    closed = z * math.sqrt(scenario.var_difference(n, r))
    test = default_test(scenario, r)
    mdd = simulated_mdd(scenario, examples=n, runs=r, alpha=alpha, target_power=target_power,
                        n_sim=n_sim, rng=g, test=test, start=closed)
    d = float(difference) if difference is not None else mdd
    # the closed forms' variance, inflated to the default test's (so that the planner's n at
    # d = mdd is the observed n): factor (mdd / closed-form mdd)²
    inflation = (mdd / closed) ** 2 if closed > 0 and math.isfinite(mdd) else 1.0
    budget = (d / z) ** 2 / inflation
    s = scenario
    examples_needed = _needed(2 * s.var_interaction + 2 * s.var_resid / r, budget - 2 * s.var_run / r)
    identified = s.binary or s.runs > 1
    runs_needed = _needed(2 * s.var_resid / n + 2 * s.var_run, budget - 2 * s.var_interaction / n) \
        if identified else None
    rates = simulate_power(scenario, difference=d, examples=n, runs=r, n_sim=n_sim, alpha=alpha,
                           rng=g)
    se = {k: (None if v is None else math.sqrt(v * (1 - v) / n_sim)) for k, v in rates.items()}
    return PowerAnalysis(mdd, examples_needed, runs_needed, rates, se, d, n, r, n_sim, alpha,
                       target_power, scenario, closed, test)


def default_test(scenario: PowerScenario, runs: int) -> str:
    """The test the leaderboard runs by default on such data: exact McNemar for one run of
    0/1 scores, the paired t on per-example means otherwise."""
    return "mcnemar" if scenario.binary and runs == 1 else "paired-t"


def simulated_mdd(scenario: PowerScenario, *, examples: int, runs: int, alpha: float,
                  target_power: float, n_sim: int, rng: np.random.Generator, test: str,
                  start: float) -> float:
    """The smallest difference at which ``test`` has ``target_power``, by simulation.

    Common random numbers: the noise of every replication is drawn once and only the
    shift changes between the bisection's steps, so the simulated power is monotone in the
    difference and the search converges (25 halvings of [0, upper]). The closed form
    ``start`` brackets it (the upper end doubles until the power reaches the target). The
    power at the answer is then simulated again on fresh draws (``PowerAnalysis.power``),
    which is within Monte Carlo error of ``target_power``. For 0/1 scores the search runs
    over the logit shift θ and the answer is the mean gain in success probability it gives
    (module docstring).
    """
    g = rng
    mu = np.asarray(scenario.example_means, dtype=float)
    if examples != len(mu):
        mu = g.choice(mu, size=examples, replace=True)
    noise = _Noise.draw(scenario, mu, n_sim, runs, g)

    def rate(shift: float) -> float:
        return float(np.mean(_test_pvalues(noise, shift, test) < alpha))

    if scenario.binary:  # search θ; start from δ / E[p(1 − p)], the slope of the gain at 0
        slope = float(np.mean(noise.p_b * (1 - noise.p_b)))
        start, ceiling = (start / slope if slope > 0 else 1.0), _THETA_MAX
    else:
        ceiling = math.inf
    upper = max(start, 1e-6)
    while rate(upper) < target_power and upper < ceiling:
        upper = min(upper * 2, ceiling)
    if rate(upper) < target_power:
        return math.nan  # no difference within the metric's range reaches the target
    lower = 0.0
    for _ in range(25):
        mid = (lower + upper) / 2
        lower, upper = (lower, mid) if rate(mid) >= target_power else (mid, upper)
    return noise.gain(upper) if scenario.binary else upper


#: the largest logit shift searched: expit(logit(0.001) + 30) > 0.99999, every solvable
#: example solved
_THETA_MAX = 30.0


def _logit_up(p: np.ndarray, theta: float) -> np.ndarray:
    """``expit(logit(p) + θ)``, with p = 0 and p = 1 fixed (logit ±∞)."""
    with np.errstate(divide="ignore"):
        return np.asarray(special.expit(special.logit(p) + theta), dtype=float)


def _logit_shift(p: np.ndarray, difference: float) -> float:
    """The θ whose mean gain ``mean(expit(logit(p) + θ) − p)`` is ``difference`` (bisection;
    the gain is increasing in θ). Raises when no θ reaches it."""
    if difference == 0:
        return 0.0
    sign = 1.0 if difference > 0 else -1.0
    open_ = (p > 0) & (p < 1)
    reach = float(np.mean(np.where(open_, 1.0 - p if sign > 0 else p, 0.0)))
    if abs(difference) >= reach:
        raise ValueError(f"difference: {difference:g} in success probability is beyond what a "
                         f"shift of the examples' abilities can give here (|gain| < "
                         f"{reach:.4f}: examples every system passes or fails stay so); "
                         "ask for a smaller difference")

    def gain(theta: float) -> float:
        return sign * float(np.mean(_logit_up(p, sign * theta) - p))

    lower, upper = 0.0, 1.0
    while gain(upper) < abs(difference):
        lower, upper = upper, upper * 2
    for _ in range(60):
        mid = (lower + upper) / 2
        lower, upper = (mid, upper) if gain(mid) < abs(difference) else (lower, mid)
    return sign * (lower + upper) / 2


@dataclass(frozen=True)
class _Noise:
    """One set of simulated replications without the shift: baseline scores, the
    candidate's levels before the shift, and its uniforms (binary) or residuals."""

    a: np.ndarray
    level_b: np.ndarray
    u_b: np.ndarray
    binary: bool

    @property
    def p_b(self) -> np.ndarray:
        """The candidate's success probabilities before the shift (binary)."""
        return np.asarray(np.clip(self.level_b, 0.0, 1.0), dtype=float)

    def gain(self, theta: float) -> float:
        """Mean gain in success probability of the logit shift θ over these draws."""
        p = self.p_b
        return float(np.mean(_logit_up(p, theta) - p))

    @classmethod
    def draw(cls, scenario: PowerScenario, mu: np.ndarray, n_sim: int, r: int,
             g: np.random.Generator) -> _Noise:
        a = _draw(scenario, 0.0, mu, n_sim, r, g)
        n = len(mu)
        level = np.broadcast_to(mu[None, None, :], (n_sim, r, n)).copy()
        if scenario.var_interaction > 0:
            level = level + g.normal(0, math.sqrt(scenario.var_interaction), (n_sim, 1, n))
        if scenario.var_run > 0:
            level = level + g.normal(0, math.sqrt(scenario.var_run), (n_sim, r, 1))
        u = g.random((n_sim, r, n)) if scenario.binary else \
            g.normal(0, math.sqrt(scenario.var_resid), (n_sim, r, n))
        return cls(a, level, u, scenario.binary)

    def candidate(self, shift: float) -> np.ndarray:
        if self.binary:  # shift: θ on the logit scale
            return np.asarray(self.u_b < _logit_up(self.p_b, shift), dtype=float)
        return np.asarray(self.level_b + shift + self.u_b, dtype=float)


def _test_pvalues(noise: _Noise, shift: float, test: str) -> np.ndarray:
    """Two-sided p-values of ``test`` ("mcnemar" or "paired-t") on every replication."""
    a, b = noise.a, noise.candidate(shift)
    if test == "mcnemar":
        return np.asarray(exact_sign_pvalues((b * (1 - a)).sum(axis=(1, 2)),
                                             (a * (1 - b)).sum(axis=(1, 2)), "two-sided"))
    d = b.mean(axis=1) - a.mean(axis=1)
    return np.asarray(np.nan_to_num(_one_sample_t(d), nan=1.0), dtype=float)


def _one_sample_t(d: np.ndarray) -> np.ndarray:
    """Two-sided one-sample t p-values of each row of ``d`` against 0. A row without spread
    (every difference equal: constant scores) is decided without scipy, whose moment
    calculation would warn of precision loss on it: p = 1 when the differences are 0,
    else 0 (an exact, constant difference)."""
    flat = np.ptp(d, axis=1) <= 1e-12 * np.maximum(1.0, np.abs(d).max(axis=1))
    out = np.where(np.abs(d[:, 0]) > 0, 0.0, 1.0) if d.shape[1] else np.ones(len(d))
    if (~flat).any():
        with np.errstate(divide="ignore", invalid="ignore"):
            out[~flat] = stats.ttest_1samp(d[~flat], 0.0, axis=1).pvalue
    return np.asarray(out, dtype=float)


def _draw(scenario: PowerScenario, shift: float, mu: np.ndarray, n_sim: int, r: int,
          g: np.random.Generator) -> np.ndarray:
    """Scores of one system: (n_sim, r, n). ``shift``: δ added to numeric levels; for 0/1
    scores the mean gain in success probability, reached by a logit shift of these draws'
    probabilities (module docstring)."""
    n = len(mu)
    level = np.broadcast_to(mu[None, None, :], (n_sim, r, n))
    if scenario.var_interaction > 0:
        level = level + g.normal(0, math.sqrt(scenario.var_interaction), (n_sim, 1, n))
    if scenario.var_run > 0:
        level = level + g.normal(0, math.sqrt(scenario.var_run), (n_sim, r, 1))
    if scenario.binary:
        p = np.asarray(np.clip(level, 0.0, 1.0), dtype=float)
        if shift != 0:
            p = _logit_up(p, _logit_shift(p, shift))
        return np.asarray(g.random((n_sim, r, n)) < p, dtype=float)
    return np.asarray(level + shift + g.normal(0, math.sqrt(scenario.var_resid), (n_sim, r, n)),
                      dtype=float)


def simulate_power(scenario: PowerScenario, *, difference: float, examples: int, runs: int,
                   n_sim: int = 1000, alpha: float = 0.05,
                   rng: np.random.Generator | int | None = None) -> dict[str, float | None]:
    """Rejection rate of each test in ``POWER_TESTS`` over ``n_sim`` simulated A/B comparisons.

    Notes
    -----
    Examples are ``scenario.example_means`` when ``examples`` equals their
    number, else drawn from them with replacement. Tests (two-sided, level
    alpha), all vectorised over replications: ``paired-t`` on per-example means;
    ``unpaired-t``, Welch's t on every run-level score (runs stacked, as the
    t-test of Lumiste 2023); ``mcnemar``, exact, on run-level pairs (run k of A with run k of
    B; binary only); ``sign``, exact, and ``wilcoxon`` (scipy, normal
    approximation) on per-example mean differences; ``bootstrap``, percentile
    interval of the mean difference (999 resamples shared by all replications).
    """
    g = np.random.default_rng(rng)
    mu = np.asarray(scenario.example_means, dtype=float)
    if examples != len(mu):
        mu = g.choice(mu, size=examples, replace=True)
    a = _draw(scenario, 0.0, mu, n_sim, runs, g)
    b = _draw(scenario, difference, mu, n_sim, runs, g)
    d = b.mean(axis=1) - a.mean(axis=1)
    p: dict[str, np.ndarray | None] = {}
    with np.errstate(divide="ignore", invalid="ignore"):
        p["paired-t"] = _one_sample_t(d)
        with warnings.catch_warnings():  # constant scores: nan p-values, counted as no rejection
            warnings.filterwarnings("ignore", "Precision loss", RuntimeWarning)
            p["unpaired-t"] = stats.ttest_ind(b.reshape(n_sim, -1), a.reshape(n_sim, -1),
                                              axis=1, equal_var=False).pvalue
    if scenario.binary:
        wins_b, wins_a = (b * (1 - a)).sum(axis=(1, 2)), (a * (1 - b)).sum(axis=(1, 2))
        p["mcnemar"] = exact_sign_pvalues(wins_b, wins_a, "two-sided")
    else:
        p["mcnemar"] = None
    p["sign"] = exact_sign_pvalues((d > 0).sum(axis=1), (d < 0).sum(axis=1), "two-sided")
    live = (d != 0).any(axis=1)
    wil = np.ones(n_sim)
    if live.any():
        wil[live] = stats.wilcoxon(d[live], axis=1, method="approx").pvalue
    p["wilcoxon"] = wil
    counts = g.multinomial(examples, np.full(examples, 1.0 / examples), size=_N_BOOT).astype(float)
    boot = d @ counts.T / examples
    tail = np.minimum((boot <= 0).mean(axis=1), (boot >= 0).mean(axis=1))
    p["bootstrap"] = np.where((boot == 0).all(axis=1), 1.0, np.minimum(1.0, 2 * tail))
    return {k: (None if v is None else float(np.mean(np.nan_to_num(v, nan=1.0) < alpha)))
            for k, v in p.items()}
