"""Power planning (issue #16): closed forms and the Monte Carlo power of 6 tests.

Reference values: the powers printed by Lumiste (2023), *Why you should A/B test your LLM evals*, https://mlumiste.com/technical/ab-test-llm-evals/
(500 trials, so compared within the
combined Monte Carlo error, not exactly); the health report's MDD; statsmodels
``NormalIndPower`` for the sample size.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from statsmodels.stats.power import NormalIndPower

from engine._matrix import build_matrix
from engine.cli._json import power_json
from engine.products._health import benchmark_health
from engine.stats._power import POWER_TESTS, PowerScenario, power, simulate_power

N_SIM = 2000


def blog_scenario() -> PowerScenario:
    weights = np.array([0.25, 0.15, 0.6])
    p = np.random.RandomState(1337).choice([0.15, 0.5, 0.9], size=100, p=weights / weights.sum())
    return PowerScenario(p, binary=True)


def within_mc(ours: float, blog: float, blog_trials: int = 500) -> bool:
    """|ours − blog| ≤ 3 combined Monte Carlo standard errors."""
    se = math.sqrt(blog * (1 - blog) / blog_trials + ours * (1 - ours) / N_SIM)
    return abs(ours - blog) <= 3 * se


@pytest.mark.slow
@pytest.mark.parametrize(("runs", "paired", "unpaired"), [
    (5, 0.59, 0.368),   # Lumiste (2023): "avg paired t-test" 0.59, "t-test" 0.368 (5 iterations)
    (1, 0.154, 0.046),  # Lumiste (2023): "paired t-test" 0.154, "t-test" 0.046 (one run)
])
def test_blog_power_of_paired_and_unpaired_t(runs: int, paired: float, unpaired: float) -> None:
    rates = simulate_power(blog_scenario(), difference=0.05, examples=100, runs=runs,
                           n_sim=N_SIM, rng=2023)
    assert within_mc(rates["paired-t"], paired), rates
    assert within_mc(rates["unpaired-t"], unpaired), rates


def test_no_difference_keeps_every_test_at_alpha() -> None:
    rates = simulate_power(blog_scenario(), difference=0.0, examples=100, runs=3,
                           n_sim=N_SIM, rng=7)
    assert set(rates) == set(POWER_TESTS)
    for test, rate in rates.items():
        assert rate is not None and rate <= 0.05 + 3 * math.sqrt(0.05 * 0.95 / N_SIM), test


def binary_long(seed: int = 0, systems: int = 4, examples: int = 200) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    p = rng.beta(1, 1, examples)
    rows = [pd.DataFrame({"benchmark": "b", "metric": "pass1", "system": f"s{s}",
                          "example_id": [f"e{i:03d}" for i in range(examples)],
                          "value": (rng.random(examples) < p).astype(float)})
            for s in range(systems)]
    return pd.concat(rows, ignore_index=True)


def test_mdd_is_the_health_reports_with_one_run() -> None:
    # One run per example: Var(D) = s²_d / n, as the health report's paired z MDD.
    df = binary_long()
    res = power(df, benchmark="b", n_sim=50, rng=0)
    assert res.mdd_closed_form == pytest.approx(benchmark_health(build_matrix(df)).mdd, rel=1e-9)
    assert list(power_json(res))[:4] == ["mdd", "examples_needed", "runs_needed", "power"]


@pytest.mark.slow
def test_reported_mdd_has_the_target_power_on_humaneval_plus() -> None:
    """Issue #25: at the reported mdd the default test (exact McNemar) has 0.8 ± 0.05 power
    in its own simulation (the closed form gave 0.61–0.65). Data: data/humaneval+.jsonl.gz
    (Eval-Arena, data/README.md)."""
    from engine.io._readers import read_results

    df = read_results(Path(__file__).resolve().parents[3] / "data" / "humaneval+.jsonl.gz")
    res = power(df, benchmark="humaneval+", n_sim=1000, rng=0)
    assert res.default_test == "mcnemar"
    rate, se = res.power["mcnemar"], res.mc_se["mcnemar"]
    assert rate is not None and se is not None and se < 0.02  # Monte Carlo error stated
    assert abs(rate - 0.8) <= 0.05
    assert res.mdd > res.mdd_closed_form  # exact McNemar needs more than the z approximation
    assert res.examples_needed == 164  # at its own mdd the planner asks for the observed n


def test_examples_needed_matches_statsmodels_normal_power() -> None:
    # Reference: statsmodels NormalIndPower with ratio=0 (one-sample z) on effect d / s_d.
    df = binary_long(seed=1)
    res = power(df, benchmark="b", difference=0.05, n_sim=50, rng=0)
    # the variance carries the default test's efficiency: k = (mdd / closed-form mdd)²
    k = (res.mdd / res.mdd_closed_form) ** 2
    s_d = math.sqrt(res.scenario.var_difference(1, 1) * k)
    n = NormalIndPower().solve_power(effect_size=0.05 / s_d, alpha=0.05, power=0.8, ratio=0)
    assert res.examples_needed == math.ceil(n) or abs(res.examples_needed - n) < 1.5


@pytest.mark.slow
def test_at_the_mdd_the_paired_t_has_the_target_power() -> None:
    rng = np.random.default_rng(3)
    mu = rng.normal(0, 1, 300)
    scenario = PowerScenario(mu, binary=False, var_interaction=0.2, var_run=0.0, var_resid=1.0,
                             runs=4)
    z = 1.959963984540054 + 0.8416212335729143
    mdd = z * math.sqrt(scenario.var_difference(300, 4))
    rates = simulate_power(scenario, difference=mdd, examples=300, runs=4, n_sim=N_SIM, rng=4)
    # z approximation vs the t test with 299 df: within Monte Carlo error of 0.8
    assert abs(rates["paired-t"] - 0.8) <= 3 * math.sqrt(0.16 / N_SIM)
    assert rates["mcnemar"] is None


def test_runs_needed_none_without_repeated_numeric_runs() -> None:
    df = binary_long()
    df["value"] = df["value"] + np.random.default_rng(0).normal(0, 0.1, len(df))
    assert power(df, benchmark="b", n_sim=20, rng=0).runs_needed is None


def test_more_runs_need_fewer_examples() -> None:
    frames = []
    rng = np.random.default_rng(9)
    p = rng.beta(2, 2, 150)
    for s in range(3):
        for r in range(4):
            frames.append(pd.DataFrame({"benchmark": "b", "metric": "m", "system": f"s{s}",
                                        "example_id": [f"e{i}" for i in range(150)], "run": r,
                                        "value": (rng.random(150) < p).astype(float)}))
    df = pd.concat(frames, ignore_index=True)
    one = power(df, benchmark="b", difference=0.05, runs=1, n_sim=20, rng=0)
    many = power(df, benchmark="b", difference=0.05, runs=8, n_sim=20, rng=0)
    assert many.examples_needed < one.examples_needed
    assert one.runs_needed is not None


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"target_power": 1.5}, "target_power: must be strictly between 0 and 1"),
    ({"examples": 1}, "examples: must be a whole number"),
    ({"n_sim": 0}, "n_sim: must be a whole number"),
])
def test_errors_name_the_argument(kwargs: dict[str, float], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        power(binary_long(), benchmark="b", **kwargs)


def test_constant_scores_give_no_precision_loss_warning() -> None:
    # issue #27: scipy's "Precision loss occurred in moment calculation" filled the server log
    # on constant data; rows without spread are decided without scipy (p 1 at 0, else 0)
    import contextlib
    import warnings

    from scipy import stats

    from engine import power
    from engine.stats._power import _one_sample_t

    flat = pd.DataFrame({"benchmark": "b", "metric": "m", "system": ["x"] * 20 + ["y"] * 20,
                         "example_id": [f"e{i}" for i in range(20)] * 2, "value": [0.5] * 40})
    with warnings.catch_warnings():
        warnings.filterwarnings("error", "Precision loss", RuntimeWarning)
        # refusing constant data is fine; warning about it in the log is not
        with contextlib.suppress(ValueError):
            power(flat, benchmark="b", metric="m", n_sim=100, rng=0)
        d = np.vstack([np.zeros(30), np.full(30, 0.2),
                       np.random.default_rng(0).normal(0.1, 1, (20, 30))])
        got = _one_sample_t(d)
    assert got[0] == 1.0 and got[1] == 0.0
    # other rows: scipy's one-sample t (the reference)
    np.testing.assert_allclose(got[2:], stats.ttest_1samp(d[2:], 0.0, axis=1).pvalue)


def _rasch_mcnemar_power(scenario: PowerScenario, gain: float, n_sim: int, seed: int) -> float:
    """Exact McNemar power at a mean gain ``gain`` in success probability under the Rasch
    model of the module docstring, written independently of the engine: θ by
    ``scipy.optimize.brentq``, p-values by ``scipy.stats.binomtest``."""
    from scipy import optimize, special, stats

    g = np.random.default_rng(seed)
    mu = np.asarray(scenario.example_means, dtype=float)
    level = mu[None, :] + g.normal(0, math.sqrt(scenario.var_interaction), (n_sim, len(mu)))
    p = np.clip(level, 0.0, 1.0)
    with np.errstate(divide="ignore"):
        logit = special.logit(p)
    theta = optimize.brentq(lambda t: float(np.mean(special.expit(logit + t) - p)) - gain,
                            0.0, 30.0, xtol=1e-12)
    base = mu[None, :] + g.normal(0, math.sqrt(scenario.var_interaction), (n_sim, len(mu)))
    a = g.random(p.shape) < np.clip(base, 0.0, 1.0)
    b = g.random(p.shape) < special.expit(logit + theta)
    wins_b, wins_a = (b & ~a).sum(axis=1), (a & ~b).sum(axis=1)
    rejected = [stats.binomtest(int(x), int(x + y)).pvalue < 0.05 if x + y else False
                for x, y in zip(wins_b, wins_a)]
    return float(np.mean(rejected))


@pytest.mark.slow
def test_power_at_the_reported_mdd_is_the_target_under_a_logit_shift() -> None:
    """At the reported smallest detectable difference — a mean gain in success probability —
    exact McNemar has power 0.80 ± 0.03 when that gain is a shift of every example's logit
    (a Rasch model), simulated independently. With the shift added to probabilities and
    clipped at 1, the "0.142" reported on HumanEval+ was a gain of 0.123 and had power 0.94
    at a real 0.142. Data: data/humaneval+.jsonl.gz (Eval-Arena, data/README.md)."""
    from engine.io._readers import read_results

    df = read_results(Path(__file__).resolve().parents[3] / "data" / "humaneval+.jsonl.gz")
    res = power(df, benchmark="humaneval+", n_sim=2000, rng=0)
    assert res.default_test == "mcnemar" and res.scenario.runs == 1
    assert abs(_rasch_mcnemar_power(res.scenario, res.mdd, 4000, seed=11) - 0.8) <= 0.03


def test_a_difference_beyond_any_logit_shift_is_refused() -> None:
    # every example at p = 0.9 with no spread: the largest possible mean gain is 0.1
    scenario = PowerScenario(np.full(50, 0.9), binary=True)
    with pytest.raises(ValueError, match="difference: 0.2 in success probability is beyond"):
        simulate_power(scenario, difference=0.2, examples=50, runs=1, n_sim=10, rng=0)
    assert simulate_power(scenario, difference=0.05, examples=50, runs=1, n_sim=10,
                          rng=0)["mcnemar"] is not None
