"""The landing (Overall) page stays bounded whatever the store holds (issue #33): with 2,500
systems (the store that killed a 3 GiB server) it ranks the leading 500 and says so."""

from __future__ import annotations

import resource
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from apptest_support import app, no_exception
from pages_data_support import store_env

from app.data.overall import MAX_OVERALL_SYSTEMS
from engine.app_support import leading_systems

SYSTEMS, EXAMPLES = 2500, 12
pytestmark = pytest.mark.slow


def _frame() -> pd.DataFrame:
    """Two benchmarks of 0/1 scores (seeded) for 2,500 systems of spread skill."""
    rng = np.random.default_rng(33)
    skill = np.linspace(0.95, 0.05, SYSTEMS)
    parts = []
    for bench in ("b1", "b2"):
        values = (rng.random((SYSTEMS, EXAMPLES)) < skill[:, None]).astype(float)
        parts.append(pd.DataFrame({
            "benchmark": bench, "metric": "acc",
            "system": np.repeat([f"s{i:04d}" for i in range(SYSTEMS)], EXAMPLES),
            "example_id": np.tile([f"e{j}" for j in range(EXAMPLES)], SYSTEMS),
            "value": values.ravel()}))
    return pd.concat(parts, ignore_index=True)


@pytest.fixture(scope="module")
def crowded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    with store_env(tmp_path_factory.mktemp("crowded") / "sigboard.db", _frame()) as path:
        yield path


def test_the_landing_page_ranks_the_leading_systems_and_says_so(crowded: Path) -> None:
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    at = app("views/overall.py")
    no_exception(at)
    grown_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    captions = " ".join(c.value for c in at.caption)
    assert f"{MAX_OVERALL_SYSTEMS} systems ranked" in captions, captions
    # the note, as markdown (a colon escaped)
    assert "This store holds 2,500 systems\\: the page ranks the 500 that did best" in captions
    # the pairs of 500 systems, not of 2,500 (3.1 million a benchmark): the page stays small
    assert grown_mb < 1000, grown_mb


def test_the_leading_systems_are_the_best_by_both_benchmarks() -> None:
    kept = leading_systems(_frame(), MAX_OVERALL_SYSTEMS)
    assert kept is not None and len(kept) == MAX_OVERALL_SYSTEMS
    # skill falls with the index: the kept ones are (nearly) the first 500
    assert np.median([int(s[1:]) for s in kept]) < MAX_OVERALL_SYSTEMS
    assert leading_systems(_frame().head(EXAMPLES * 10), MAX_OVERALL_SYSTEMS) is None
