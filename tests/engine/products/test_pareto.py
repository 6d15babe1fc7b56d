"""The Pareto set with confidence (engine.products._pareto)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.products._pareto import (
    CERTAINLY_DOMINATED,
    POSSIBLY_OPTIMAL,
    pareto_boxes,
    pareto_set,
)


def _exact_front(score: list[float], cost: list[float]) -> set[int]:
    """Brute force: j is on the front unless some i is ≥ in score, ≤ in cost, one strict."""
    k = len(score)
    return {j for j in range(k) if not any(
        score[i] >= score[j] and cost[i] <= cost[j] and (score[i] > score[j] or cost[i] < cost[j])
        for i in range(k))}


points = st.lists(st.tuples(st.integers(0, 6), st.integers(0, 6)), min_size=1, max_size=7)


@pytest.mark.slow
@given(points)
@settings(max_examples=200, deadline=None)
def test_zero_width_boxes_give_the_exact_front(pts: list[tuple[int, int]]) -> None:
    score = [float(s) for s, _ in pts]
    cost = [float(c) for _, c in pts]
    names = [f"s{i}" for i in range(len(pts))]
    out = pareto_boxes(names, score, score, score, cost, cost, cost)
    assert set(out.possibly_optimal) == {names[j] for j in _exact_front(score, cost)}
    for row in out.table.itertuples():
        j = names.index(row.system)
        want = {names[i] for i in range(len(pts)) if i != j and score[i] >= score[j]
                and cost[i] <= cost[j] and (score[i] > score[j] or cost[i] < cost[j])}
        assert set(row.dominated_by) == want


boxes = st.lists(st.tuples(st.floats(0, 1), st.floats(0, 0.3), st.floats(0, 5), st.floats(0, 2)),
                 min_size=1, max_size=6)


@pytest.mark.slow
@given(boxes, st.randoms(use_true_random=False))
@settings(max_examples=150, deadline=None)
def test_relabelling_and_reordering_relabel_the_output(spec: list[tuple[float, ...]], rnd) -> None:
    names = [f"sys{i}" for i in range(len(spec))]
    def run(order: list[int], label: dict[str, str]) -> dict[str, tuple[str, frozenset[str]]]:
        rows = [spec[i] for i in order]
        out = pareto_boxes([label[names[i]] for i in order],
                           [s for s, _, _, _ in rows], [s - w for s, w, _, _ in rows],
                           [s + w for s, w, _, _ in rows], [c for _, _, c, _ in rows],
                           [c - v for _, _, c, v in rows], [c + v for _, _, c, v in rows])
        return {r.system: (r.status, frozenset(r.dominated_by)) for r in out.table.itertuples()}
    base = run(list(range(len(spec))), {n: n for n in names})
    order = list(range(len(spec)))
    rnd.shuffle(order)
    new = {n: f"other-{rnd.randint(0, 10**6)}-{n}" for n in names}
    moved = run(order, new)
    assert moved == {new[n]: (status, frozenset(new[d] for d in by)) for n, (status, by) in base.items()}


def test_box_dominance_needs_the_whole_box() -> None:
    # a: score [0.70, 0.80], cost [1, 2]; b: score [0.50, 0.69], cost [2.5, 3]: dominated;
    # c: score [0.55, 0.75] overlaps a's score: possibly optimal though its point is worse
    out = pareto_boxes(["a", "b", "c"], [0.75, 0.6, 0.65], [0.7, 0.5, 0.55], [0.8, 0.69, 0.75],
                       [1.5, 2.8, 2.8], [1.0, 2.5, 2.5], [2.0, 3.0, 3.0], score_metric="accuracy")
    t = out.table.set_index("system")
    assert t.loc["b", "status"] == CERTAINLY_DOMINATED and t.loc["b", "dominated_by"] == ("a",)
    assert t.loc["c", "status"] == POSSIBLY_OPTIMAL and t.loc["c", "dominated_by"] == ()
    assert out.headline == ("2 of 3 systems may be the best trade-off of accuracy and cost (a and c); "
                            "b is certainly dominated by a: higher accuracy at lower cost.")


def test_touching_boxes_are_not_dominance_unless_one_side_is_strict() -> None:
    same = pareto_boxes(["a", "b"], [0.5, 0.5], [0.5, 0.5], [0.5, 0.5], [1, 1], [1, 1], [1, 1])
    assert same.possibly_optimal == ("a", "b")
    assert same.headline.startswith("all 2 systems may be the best trade-off")


def test_bad_boxes_say_the_rule() -> None:
    with pytest.raises(ValueError, match="low ≤ estimate ≤ high"):
        pareto_boxes(["a"], [0.5], [0.6], [0.7], [1], [1], [1])
    with pytest.raises(ValueError, match="named once"):
        pareto_boxes(["a", "a"], [0.5] * 2, [0.5] * 2, [0.5] * 2, [1] * 2, [1] * 2, [1] * 2)


def _frame() -> pd.DataFrame:
    rng = np.random.default_rng(4)
    rows = []
    for system, p, m in (("cheap", 0.55, 1.0), ("mid", 0.7, 2.0), ("bad", 0.3, 6.0)):
        for i in range(150):
            rows.append(("b", system, f"e{i}", "acc", float(rng.random() < p)))
            rows.append(("b", system, f"e{i}", "cost", m * rng.lognormal(0, 0.5)))
    return pd.DataFrame(rows, columns=["benchmark", "system", "example_id", "metric", "value"])


def test_pareto_set_from_a_long_table() -> None:
    frame = _frame()
    out = pareto_set(frame, "acc", "cost", n_resamples=999)
    t = out.table.set_index("system")
    assert out.benchmark == "b" and out.n_examples == 150
    assert out.per_interval == pytest.approx(0.95 ** (1 / 6))  # Šidák over 2·3 intervals
    acc = frame[(frame["metric"] == "acc")].groupby("system")["value"].mean()
    assert t.loc["mid", "score"] == pytest.approx(acc["mid"])
    assert t.loc["bad", "status"] == CERTAINLY_DOMINATED
    assert t.loc["bad", "dominated_by"] == ("mid",)  # cheap's score box overlaps bad's
    assert set(out.possibly_optimal) == {"cheap", "mid"}
    assert (t["score_low"] <= t["score"]).all() and (t["cost"] <= t["cost_high"]).all()


def test_pareto_set_cost_per_success_and_per_point() -> None:
    frame = _frame()
    t = pareto_set(frame, "acc", "cost", n_resamples=999).table.set_index("system")
    wide = frame.pivot_table(index=["system", "example_id"], columns="metric", values="value")
    total = wide.groupby("system").sum()
    # by hand: Σ cost / Σ successes; a 0/1 score's point is one percentage point
    cps = total["cost"] / total["acc"]
    assert t["cost_per_success"].to_numpy() == pytest.approx(cps[t.index].to_numpy(), rel=1e-12)
    assert t["cost_per_point"].to_numpy() == pytest.approx(t["cost_per_success"].to_numpy() / 100)
    assert (t["cost_per_success_low"] < t["cost_per_success"]).all()
    assert (t["cost_per_success"] < t["cost_per_success_high"]).all()
    graded = frame.assign(value=np.where(frame["metric"] == "acc", 0.5 * frame["value"] + 0.25,
                                         frame["value"]))
    g = pareto_set(graded, "acc", "cost", n_resamples=199).table.set_index("system")
    assert "cost_per_success" not in g  # not a 0/1 score: a point is one unit of it
    wide = graded.pivot_table(index=["system", "example_id"], columns="metric", values="value")
    cpp = wide.groupby("system").sum().eval("cost / acc")
    assert g["cost_per_point"].to_numpy() == pytest.approx(cpp[g.index].to_numpy(), rel=1e-12)


def test_ratios_follow_the_systems_when_they_are_renamed() -> None:
    frame = _frame()
    renamed = frame.assign(system=frame["system"].map({"cheap": "z", "mid": "a", "bad": "m"}))
    cols = ["cost_per_success", "cost_per_success_low", "cost_per_success_high",
            "cost_per_point_low", "cost_per_point_high"]
    one = pareto_set(frame, "acc", "cost", n_resamples=199).table.set_index("system")[cols]
    two = pareto_set(renamed, "acc", "cost", n_resamples=199).table.set_index("system")[cols]
    two = two.rename(index={"z": "cheap", "a": "mid", "m": "bad"}).loc[one.index]
    assert one.to_numpy() == pytest.approx(two.to_numpy(), rel=1e-12)


def test_pareto_set_rejects_missing_metric_and_ambiguous_benchmark() -> None:
    frame = _frame()
    with pytest.raises(ValueError, match="metric 'latency' is not in the data"):
        pareto_set(frame, "acc", "latency")
    two = pd.concat([frame, frame.assign(benchmark="c")])
    with pytest.raises(ValueError, match="name one"):
        pareto_set(two, "acc", "cost")
    assert pareto_set(two, "acc", "cost", benchmark="c", n_resamples=199).benchmark == "c"


def test_cost_from_prices_rules() -> None:
    from engine.products._pareto import cost_from_prices

    rows = pd.DataFrame({"benchmark": "b", "system": ["m", "m", "m"], "example_id": "e1",
                         "metric": ["tokens_in", "tokens_out", "cost"], "value": [100.0, 20.0, 9.0]})
    prices = pd.DataFrame({"system": ["m"], "input_price": [0.5], "output_price": [2.0]})
    out = cost_from_prices(rows, prices)
    # 100 × 0.5 + 20 × 2.0 = 90, replacing the recorded 9.0
    assert out.loc[out["metric"] == "cost", "value"].tolist() == [90.0]
    with pytest.raises(ValueError, match="column\\(s\\) output_price missing"):
        cost_from_prices(rows, prices.drop(columns="output_price"))
    with pytest.raises(ValueError, match="not a price ≥ 0"):
        cost_from_prices(rows, prices.assign(input_price=-1.0))
    with pytest.raises(ValueError, match="no price for system\\(s\\) m"):
        cost_from_prices(rows, prices.assign(system="other"))
    with pytest.raises(ValueError, match="no tokens_in/tokens_out"):
        cost_from_prices(rows[rows["metric"] == "cost"], prices)
