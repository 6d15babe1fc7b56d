"""Label budget planner with known inclusion probabilities (engine.stats._ppi_ipw_plan,
engine.products._judge_budget_ipw; #31 item 5).

References: with equal chances q = n / N the planned variance is the PPI++ variance of the
estimator whose judge mean runs over all N examples, (v_y + lam^2 v - 2 lam c) / n +
(2 lam c - lam^2 v) / N with lam = c / v (derived in the module docstring; ppi_py's
``ppi_mean_ci`` formula counts the N - n unlabelled examples instead); the planned widths
against the mean widths of simulated weighted PPI++ intervals (engine.stats._ppi_ipw, itself
tested against ppi_py in test_ppi_ipw.py); benchmarks/calibrate_ppi.py reports more
replications."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from test_ppi_ipw import _frame  # 3 systems, labels drawn with informative known chances

from engine import judge_board
from engine.app_support import budget_check, label_budget
from engine.cli import main
from engine.cli._json import label_budget_json
from engine.stats._ppi_ipw import ppi_ipw_means
from engine.stats._ppi_ipw_plan import (
    _variance,
    ipw_design,
    ipw_plan,
    ipw_scale_needed,
    population_design,
)


def _population(rng: np.random.Generator, n: int) -> tuple[np.ndarray, ...]:
    """Judge noise differing by example; labels drawn more where the judge is noisier."""
    noise = rng.uniform(0.3, 3.0, n)
    y = rng.normal(1.0, 2.0, n)
    f = y + noise * rng.standard_normal(n) + 0.5
    return y, f, np.minimum(1.0, 0.05 * noise / noise.mean())


def test_equal_chances_give_the_uniform_ppi_variance() -> None:
    rng = np.random.default_rng(5)
    y, f, _ = _population(rng, 900)
    d = population_design(f, y, np.full(900, 0.1))
    var, lam, _ = _variance(d, d.design(1.0))
    vy, vf, c = np.var(y), np.var(f), np.cov(y, f, ddof=0)[0, 1]
    assert lam == pytest.approx(c / vf, rel=1e-12)
    expected = (vy + lam**2 * vf - 2 * lam * c) / 90 + (2 * lam * c - lam**2 * vf) / 900
    assert var / 900 == pytest.approx(expected * 900 / 899, rel=1e-12)  # n / (n - 1)
    assert d.expected_labels(1.0) == pytest.approx(90.0)


def test_lambda_minimises_the_planned_variance() -> None:
    rng = np.random.default_rng(6)
    y, f, pi = _population(rng, 1500)
    drawn = rng.random(1500) < pi
    d = ipw_design(f, np.where(drawn, y, np.nan), pi)
    q = d.design(2.0)
    var, lam, _ = _variance(d, q)
    a, b = d.y - d.hajek(d.y), d.f - d.hajek(d.f)
    _, v, c = d.moments()
    grid = np.linspace(0, 1, 201)
    curve = [d.hajek((a - t * b) ** 2 / q) - t**2 * v + 2 * t * c for t in grid]
    kish = d.weights.sum() ** 2 / np.sum(d.weights**2)
    assert 0 < lam < 1 and var == pytest.approx(min(curve) * kish / (kish - 1), rel=1e-3)


@pytest.mark.parametrize("scale", [1.0, 3.0])
def test_planned_width_within_10_percent_of_simulated(scale: float) -> None:
    # the exact population's plan against 400 simulated labellings at the scaled design
    # (measured ratios 1.068 / 1.016 at scale 1 / 3, ~50 / ~150 labels; the planner errs
    # wide at ~50 labels: Satterthwaite's effective labels in expectation are below their
    # simulated mean, and the estimator's df and variance factor m / (m - 2) follow them)
    rng = np.random.default_rng(7)
    y, f, pi = _population(rng, 1000)
    plan = ipw_plan(population_design(f, y, pi), scale)
    q = np.minimum(1.0, scale * pi)
    drawn = rng.random((400, 1000)) < q
    sim = ppi_ipw_means(np.broadcast_to(f, drawn.shape), np.where(drawn, y, np.nan),
                        np.broadcast_to(q, drawn.shape), small_sample=True)
    ratio = plan["width"] / float(np.mean(sim.high - sim.low))
    assert abs(ratio - 1) <= 0.10
    assert plan["expected_labels"] == pytest.approx(drawn.sum(1).mean(), rel=0.05)


def test_scale_needed_is_the_smallest_reaching_the_width() -> None:
    rng = np.random.default_rng(8)
    y, f, pi = _population(rng, 2000)
    d = population_design(f, y, pi)
    found = ipw_scale_needed(d, width=0.5)
    assert found is not None and found["width"] <= 0.5
    assert ipw_plan(d, found["scale"] * 0.999)["width"] > 0.5
    assert ipw_scale_needed(d, width=1e-4) is None  # not even with every example labelled
    with pytest.raises(ValueError, match="exactly one"):
        ipw_scale_needed(d)


@pytest.mark.slow
def test_weighted_board_plans_by_scaling_the_declared_design() -> None:
    board = judge_board(_frame(3), judge="judge", human="human")
    plan = label_budget(board, target_width=0.3)
    table = plan.table
    assert plan.designs is not None and "design" in label_budget_json(plan)
    assert {"scale", "expected_now"} <= set(table.columns) and table["reachable"].all()
    # the plan shrinks the design when the target is wider than today's intervals
    today = float((board.table["ppi_high"] - board.table["ppi_low"]).median())
    assert today < 0.3 and (table["scale"] < 1).all()
    assert (table["labels_needed"] < table["expected_now"]).all()
    check = budget_check(plan, reps=400, seed=1)
    assert len(check) == 3 and (check["ratio"] - 1).abs().max() <= 0.10
    power = label_budget(board, delta=0.3)
    assert "hardest_pair" in power.table.columns and power.table["reachable"].all()
    out_of_reach = label_budget(board, target_width=1e-3).table
    assert not out_of_reach["reachable"].any()
    assert (out_of_reach["labels_needed"] == out_of_reach["n_judge"] + 1).all()


@pytest.mark.slow
def test_cli_budget_plans_the_files_design(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "weighted.csv"
    _frame(3).to_csv(path, index=False)
    assert main(["ppi-budget", str(path), "--judge", "judge", "--human", "human",
                 "--width", "0.3", "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert "inclusion probabilities" in out["design"]
    assert all(s["scale"] < 1 for s in out["systems"])


@pytest.mark.slow
@pytest.mark.parametrize("share", [0.05, 0.20])
def test_planner_from_a_sample_within_10_percent_of_simulated(share: float) -> None:
    # as benchmarks/calibrate_ppi.py's weighted-planner rows (500 replications there): per
    # replication a fresh population, one labelling at the 5% design to plan from, one at
    # the design scaled to `share` to measure; 200 replications
    rng = np.random.default_rng(31)
    pops = [_population(rng, 1000) for _ in range(200)]
    planned = [ipw_plan(ipw_design(f, np.where(rng.random(f.size) < pi, y, np.nan), pi),
                        share / 0.05)["width"] for y, f, pi in pops]
    y, f, pi = (np.stack(a) for a in zip(*pops, strict=True))
    q = np.minimum(1.0, share / 0.05 * pi)
    drawn = rng.random(q.shape) < q
    sim = ppi_ipw_means(f, np.where(drawn, y, np.nan), q, small_sample=True)
    ratio = float(np.mean(planned) / np.nanmean(sim.high - sim.low))
    print(f"share {share}: planned / simulated width {ratio:.3f}")
    assert abs(ratio - 1) <= 0.10
