"""The Pareto boxes stay in their parameter's range: a 0/1 score's interval in [0, 1] when
tries are averaged per example (means of 0.5), a non-negative cost's interval above 0.

Reference: the engine's own unclipped intervals (t interval, studentised bootstrap) on the
same data, intersected with the range by hand; the real Inspect log of
tests/data/harness-logs-real/inspect/eval (inspect-ai 0.3.285, 2 epochs per sample).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.harness import read_harness
from engine.products._pareto import pareto_set

REAL = Path(__file__).resolve().parents[2] / "data" / "harness-logs-real"


def test_inspect_epochs_averaged_score_box_within_0_1_and_latency_above_0() -> None:
    frame = read_harness(REAL / "inspect" / "eval", usage=True).frame
    per_example = frame[frame["metric"] == "includes"].groupby(["system", "example_id"])["value"]
    assert not per_example.mean().isin([0.0, 1.0]).all()  # epochs disagree: means of 0.5
    t = pareto_set(frame, "includes", "latency_s").table
    assert (t["score_low"] >= 0).all() and (t["score_high"] <= 1).all()
    assert (t["cost_low"] >= 0).all()
    assert (t["cost_low"] <= t["cost"]).all() and (t["cost"] <= t["cost_high"]).all()


@pytest.mark.slow
@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**31 - 1), st.booleans())
def test_cost_lower_bound_is_the_unclipped_one_or_zero(seed: int, shift: bool) -> None:
    rng = np.random.default_rng(seed)
    n, systems = 8, ["a", "b"]
    cost = rng.lognormal(-4, 1.5, size=(n, 2)) - (0.05 if shift else 0.0)  # shift: some < 0
    rows = [{"benchmark": "b", "system": s, "example_id": f"e{i}", "metric": m, "value": v}
            for i in range(n) for j, s in enumerate(systems)
            for m, v in (("score", float(rng.integers(0, 2))), ("cost", float(cost[i, j])))]
    frame = pd.DataFrame(rows)
    got = pareto_set(frame, "score", "cost", n_resamples=199, seed=1).table
    unclipped = pareto_set(frame.assign(value=np.where(frame["metric"] == "cost",
                                                       frame["value"] - 10.0, frame["value"])),
                           "score", "cost", n_resamples=199, seed=1).table
    # shifting every cost by -10 shifts the bootstrap-t interval by -10 (same resamples)
    want = unclipped["cost_low"] + 10.0
    if (cost >= 0).all():
        want = want.clip(lower=0.0)
    np.testing.assert_allclose(got["cost_low"], want, rtol=0, atol=1e-9)


def test_overall_primary_metric_is_never_a_usage_metric() -> None:
    """A table whose first rows are a cost still combines its score on Overall by default."""
    from engine.products._overall_parts import choose_overall

    rows = pd.DataFrame({"benchmark": "b", "system": ["x", "y"] * 3, "example_id": "e",
                         "metric": ["cost", "cost", "latency_s", "latency_s", "acc", "acc"],
                         "value": 1.0})
    _, per = choose_overall(rows, ["b"], None)
    assert per == {"b": ["acc"]}
