"""The Leaderboard past 100 systems (issue #19 item 5): the table starts with the best 100,
one link shows them all; the tests and ranks cover every system either way."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from urllib.parse import parse_qs

import numpy as np
import pandas as pd
import pytest
from apptest_support import app, no_exception, params, ranked
from pages_data_support import store_env

from app.url import MANY_ROWS

# every test here takes seconds: ./scripts/test.sh --fast leaves them out
pytestmark = pytest.mark.slow

SYSTEMS, EXAMPLES = 130, 60


def _frame() -> pd.DataFrame:
    """Synthetic 0/1 scores (seeded): 130 systems of spread skill on 60 shared examples."""
    rng = np.random.default_rng(19)
    skill = np.linspace(0.9, 0.2, SYSTEMS)
    values = (rng.random((SYSTEMS, EXAMPLES)) < skill[:, None]).astype(float)
    return pd.DataFrame({
        "benchmark": "many", "metric": "pass1",
        "system": np.repeat([f"sys-{i:03d}" for i in range(SYSTEMS)], EXAMPLES),
        "example_id": np.tile([f"e{j}" for j in range(EXAMPLES)], SYSTEMS),
        "value": values.ravel()})


@pytest.fixture(scope="module")
def many(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    with store_env(tmp_path_factory.mktemp("many") / "sigboard.db", _frame()) as path:
        yield path


def test_the_table_starts_with_the_best_and_one_link_shows_all(many: Path) -> None:
    at = app("views/leaderboard.py", benchmark="many")
    no_exception(at)
    board, _ = ranked(at)
    assert len(board) == MANY_ROWS and board["rank"].iloc[0] == "1"
    links = [p.proto for p in at.main.get("page_link") if "Show all" in p.proto.label]
    assert [link.label for link in links] == [f"Show all {SYSTEMS} systems"]
    assert parse_qs(links[0].query_string)["rows"] == ["all"]
    every = app("views/leaderboard.py", benchmark="many", rows="all")
    no_exception(every)
    full, _ = ranked(every)
    assert len(full) == SYSTEMS and params(every)["rows"] == "all"
    assert full.head(MANY_ROWS).equals(board), "the same rows, ranks and numbers"
