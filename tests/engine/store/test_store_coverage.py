"""``ResultsStore.coverage``: who ran what, in the long table's order, without reading a score
(issue #27 item 3: the Overall page's choices read it instead of the whole long table).
Reference: the distinct (benchmark, metric, system) rows of ``load_frame()`` in their order,
and the engine's choices made from the long table itself."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from engine.app_support import choose_overall, default_selection
from engine.store import open_store


def _frame(benchmark: str, systems: list[str], metrics: list[str], seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = [(benchmark, s, f"e{e}", m, float(rng.random() < 0.5))
            for e in range(5) for m in metrics for s in systems]  # systems interleaved
    return pd.DataFrame(rows, columns=["benchmark", "system", "example_id", "metric", "value"])


@pytest.mark.slow
def test_coverage_is_the_long_tables_triples_in_its_order(store_url: str) -> None:
    """Three uploads (a later one adds a system and a metric to an earlier benchmark, a system
    named by an alias): the rows and their order are the long table's, aliases applied,
    and the default selection and primary metrics chosen from it are the long table's (on
    SQLite and PostgreSQL: the order is computed in SQL)."""
    store = open_store(store_url)
    store.import_frame(_frame("b2", ["z", "y", "x"], ["acc", "f1"], 0), filename="one.csv")
    store.import_frame(_frame("b1", ["y", "GPT-X", "w"], ["em"], 1), filename="two.csv")
    store.import_frame(_frame("b2", ["w", "gpt-x"], ["acc", "bleu"], 2), filename="three.csv")
    store.set_alias("GPT-X", "gpt-x")
    long = store.load_frame()
    want = long[["benchmark", "metric", "system"]].drop_duplicates(ignore_index=True)
    got = store.coverage()
    assert got.astype(str).values.tolist() == want.astype(str).values.tolist()
    assert "GPT-X" not in set(got["system"])
    skeleton = got.assign(example_id="", value=np.nan)
    assert default_selection(skeleton) == default_selection(long)
    assert choose_overall(skeleton, None, None) == choose_overall(long, None, None)
    store.close()


def test_coverage_of_an_empty_store(tmp_path: Path) -> None:
    store = open_store(f"sqlite:///{tmp_path / 's.db'}")
    assert store.coverage().columns.tolist() == ["benchmark", "metric", "system"]
    assert store.coverage().empty
    store.close()
