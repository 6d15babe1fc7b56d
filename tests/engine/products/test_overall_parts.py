"""The overall leaderboard from per-benchmark parts computed once (what a weight change reuses).

Reference: :func:`engine.products._overall.overall` itself — the parts path must give exactly the
same tables (every float equal, not close), whatever the weights and comparisons; its own
numbers are checked against harmonicmeanp, statsmodels and Ackerman et al. (2025) in
test_overall.py. Data: simulated here (a system missing on one benchmark, a benchmark
with a single system).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine._options import TestOptions
from engine.products._overall import benchmark_part, overall, overall_from_parts
from engine.products._overall_parts import choose_overall


def _frame(seed: int = 0) -> pd.DataFrame:
    """b0 (two metrics), b1 (s3 missing), b2 (binary), solo (one system only)."""
    rng = np.random.default_rng(seed)
    rows = []
    for b, n in (("b0", 40), ("b1", 30), ("b2", 50)):
        difficulty = rng.normal(size=n)
        for k in range(5):
            if b == "b1" and k == 3:
                continue
            for m in (("m1", "m2") if b == "b0" else ("m1",)):
                v = 0.25 * k + difficulty + rng.normal(size=n)
                if b == "b2":
                    v = (v > 0.5).astype(float)
                rows.append(pd.DataFrame({"benchmark": b, "system": f"s{k}",
                                          "example_id": [f"e{i}" for i in range(n)],
                                          "metric": m, "value": v}))
    rows.append(pd.DataFrame({"benchmark": "solo", "system": "s0",
                              "example_id": [f"e{i}" for i in range(10)], "metric": "m1",
                              "value": rng.normal(size=10)}))
    return pd.concat(rows, ignore_index=True)


FRAME = _frame()


def _parts(options: TestOptions, benchmarks: list[str] | None = None) -> list:
    chosen, per = choose_overall(FRAME, benchmarks, None)
    return [benchmark_part(FRAME, b, metrics=per[b], options=options) for b in chosen]


def _same(a, b) -> None:  # noqa: ANN001
    pd.testing.assert_frame_equal(a.table, b.table, check_exact=True)
    pd.testing.assert_frame_equal(a.cells, b.cells, check_exact=True)
    pd.testing.assert_frame_equal(a.pairs, b.pairs, check_exact=True)
    pd.testing.assert_frame_equal(a.unranked, b.unranked, check_exact=True)
    assert a.cliques == b.cliques
    assert (a.benchmarks, a.metrics, a.benchmark_weights, a.n_tests, a.alternative, a.notes) == \
        (b.benchmarks, b.metrics, b.benchmark_weights, b.n_tests, b.alternative, b.notes)


@pytest.mark.slow
@pytest.mark.parametrize("compare", ["all", "first", "successive"])
def test_parts_give_exactly_the_overall_leaderboard(compare):
    options = TestOptions(compare=compare)
    order = None if compare == "all" else ["s4", "s0", "s2", "s1"]  # fixed in advance
    weights = {"b0": 3.0, "b1": 0.5, "b2": 1.0}
    chosen = ["b0", "b1", "b2"]
    _same(overall_from_parts(_parts(options, chosen), options=options, benchmark_weights=weights,
                             order=order),
          overall(FRAME, benchmarks=chosen, options=options, benchmark_weights=weights,
                  order=order))


@pytest.mark.slow
@settings(max_examples=6)
@given(st.lists(st.floats(0.05, 20.0), min_size=3, max_size=3))
def test_any_weights_reuse_the_same_parts(weights):
    """Only the weighted steps depend on the weights: one set of parts serves them all."""
    options = TestOptions()
    parts = PARTS_ALL
    chosen = ["b0", "b1", "b2"]
    _same(overall_from_parts(parts, options=options, benchmark_weights=weights),
          overall(FRAME, benchmarks=chosen, options=options, benchmark_weights=weights))


PARTS_ALL = _parts(TestOptions(), ["b0", "b1", "b2"])


def test_single_system_benchmark_is_a_note_not_an_error():
    part = benchmark_part(FRAME, "solo", metrics=["m1"])
    assert part.tests is None and part.cells is None and "only one system" in part.note
    res = overall_from_parts([part, *PARTS_ALL[:1]])
    assert any("only one system" in n for n in res.notes)
    assert list(res.table["system"]) == ["s0"] and len(res.unranked) == 4  # only s0 ran both


def test_parts_of_other_options_or_repeated_are_refused():
    with pytest.raises(ValueError, match="parts: .*other options"):
        overall_from_parts(PARTS_ALL, options=TestOptions(correction="holm"))
    with pytest.raises(ValueError, match="parts: each benchmark may appear once"):
        overall_from_parts([PARTS_ALL[0], PARTS_ALL[0]])
    with pytest.raises(ValueError, match="parts: need at least one"):
        overall_from_parts([])


def test_the_comparison_does_not_change_the_parts():
    """The parts are tested on all pairs, two-sided, whatever ``compare`` the caller uses."""
    first = _parts(TestOptions(compare="first"), ["b0"])[0]
    assert first.options == TestOptions().with_(compare="all", alternative="two-sided")


@pytest.mark.slow
def test_a_leaderboard_already_computed_gives_the_same_part() -> None:
    """A benchmark's part made from its leaderboard computed as the part would (the app's
    cached Leaderboard, #27 item 3) equals the part computed from the rows, and so does the
    overall leaderboard; a board of other options, another metric or a cluster is refused.
    Reference: benchmark_part without a board (tested against overall() above)."""
    from engine import build_matrix, leaderboard

    options = TestOptions(correction="holm").with_(compare="all", alternative="two-sided")
    made, reused = [], []
    for b in ("b1", "b2"):
        rows = FRAME[(FRAME["benchmark"] == b) & (FRAME["metric"] == "m1")]
        board = leaderboard(build_matrix(rows, benchmark=b, metric="m1"), options,
                            bt_resamples=0)
        made.append(benchmark_part(FRAME, b, metrics=["m1"], options=options))
        reused.append(benchmark_part(FRAME, b, metrics=["m1"], options=options, board=board))
        for field in ("cells", "tests"):
            pd.testing.assert_frame_equal(getattr(reused[-1], field), getattr(made[-1], field),
                                          check_exact=True)
        np.testing.assert_array_equal(reused[-1].pair_codes, made[-1].pair_codes)
        for key, value in made[-1].pooling_inputs.items():
            np.testing.assert_array_equal(reused[-1].pooling_inputs[key], value)
        other = leaderboard(board.source, TestOptions(), bt_resamples=0)
        with pytest.raises(ValueError, match="other options"):
            benchmark_part(FRAME, b, metrics=["m1"], options=options, board=other)
        with pytest.raises(ValueError, match="one metric"):
            benchmark_part(FRAME, b, metrics=["m2"], options=options, board=board)
        with pytest.raises(ValueError, match="clustered"):
            benchmark_part(FRAME, b, metrics=["m1"], options=options, board=board,
                           cluster="passage")
    _same(overall_from_parts(reused, options=options), overall_from_parts(made, options=options))
