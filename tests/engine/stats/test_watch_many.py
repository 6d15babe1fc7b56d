"""Every challenger at once (engine.stats._watch_many.watch_frames, the Watch page's board, #27
item 3) equals each pair's own :func:`watch_frame`: the same observations in the same order,
hence the same sequence, p-value, e-value and history, bit for bit — on uploads with examples
missing for some systems, numeric scores in and out of [0, 1], rows in any order within an
upload, a lower-is-better metric; and with runs or clusters (the pair path itself)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from engine import TestOptions
from engine.cli._json import watch_json
from engine.stats._arrivals import watch_frame
from engine.stats._watch_many import _layout, watch_frames

SYSTEMS = ["base", "a", "b", "c"]


def _uploads(seed: int, n_rows: int, *, runs: bool, unit: bool) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    values = rng.random(n_rows) if unit else rng.normal(size=n_rows).round(1)
    frame = pd.DataFrame({"system": rng.choice(SYSTEMS, n_rows),
                          "example_id": rng.choice([f"e{i}" for i in range(15)], n_rows),
                          "value": values, "batch": np.sort(rng.integers(1, 5, n_rows))})
    frame["topic"] = frame["example_id"].str[-1]  # one cluster label per example
    frame = frame if runs else frame.drop_duplicates(["system", "example_id"])
    return frame.reset_index(drop=True)


def _same(got: object, want: object) -> None:
    a, b = (watch_json(r, verdict="", exit_code=0) for r in (got, want))  # type: ignore[arg-type]
    assert a == b


@pytest.mark.slow  # 111 s of the fast loop on two loaded cores: 150 examples, each pair recomputed
@settings(max_examples=150)
@given(st.integers(0, 2**32 - 1), st.integers(0, 120), st.booleans(), st.booleans(),
       st.booleans(), st.sampled_from([None, 7]))
def test_all_challengers_equal_each_pair(seed: int, n_rows: int, runs: bool, unit: bool,
                                         higher: bool, max_n: int | None) -> None:
    frame = _uploads(seed, n_rows, runs=runs, unit=unit)
    present = set(frame["system"])
    assume("base" in present)  # no baseline, no comparison to make
    candidates = [s for s in SYSTEMS[1:] if s in present]
    options = {"benchmark": "b", "metric": "m", "higher_is_better": higher, "max_n": max_n,
               "options": TestOptions(alpha=0.1)}
    got = watch_frames(frame.assign(benchmark="b", metric="m"), baseline="base",
                       candidates=candidates, **options)
    for c, report in zip(candidates, got, strict=True):
        _same(report, watch_frame(frame.assign(benchmark="b", metric="m"), baseline="base",
                                  candidate=c, **options))


@pytest.mark.slow
def test_runs_and_clusters_take_the_pair_path() -> None:
    frame = _uploads(5, 90, runs=True, unit=True).assign(benchmark="b", metric="m")
    assert _layout(frame) is None  # some system scored an example twice
    once = _uploads(5, 90, runs=False, unit=True).assign(benchmark="b", metric="m")
    assert _layout(once) is not None
    for data, cluster in ((frame, None), (once, "topic")):
        got = watch_frames(data, baseline="base", candidates=["a", "b"], benchmark="b",
                           metric="m", cluster=cluster)
        for c, report in zip(["a", "b"], got, strict=True):
            _same(report, watch_frame(data, baseline="base", candidate=c, benchmark="b",
                                      metric="m", cluster=cluster))


def test_the_baseline_as_a_candidate_is_refused() -> None:
    frame = _uploads(1, 60, runs=False, unit=True)
    with pytest.raises(ValueError, match="candidate: must differ from the baseline"):
        watch_frames(frame, baseline="base", candidates=["base"], benchmark="b", metric="m")
