"""System aliases (issue #27, item 6): one model stored under two names reads as one system on
every page and in the CLI, with the change kept in a history.

Data: synthetic and seeded (``_frame``): four systems on 40 examples of 0/1 scores, one of
them uploaded twice under different names (``gpt-4o`` and ``GPT-4O-2024-05-13``).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from apptest_support import app, html_frame, no_exception
from pages_data_support import store_env

from engine.cli import main
from engine.store import open_store

BENCH = "aliased"
ALIAS, SYSTEM = "GPT-4O-2024-05-13", "gpt-4o"
PAGES = ["views/overall.py", "views/leaderboard.py", "views/benchmarks.py", "views/pairwise.py",
         "views/examples.py", "views/distributions.py", "views/mechanisms.py"]


def _frame() -> pd.DataFrame:
    rng = np.random.default_rng(27)
    skill = {SYSTEM: 0.8, ALIAS: 0.78, "claude": 0.5, "llama": 0.3}
    rows = [(BENCH, s, f"e{i:02d}", "acc", float(rng.random() < p))
            for s, p in skill.items() for i in range(40)]
    return pd.DataFrame(rows, columns=["benchmark", "system", "example_id", "metric", "value"])


@pytest.fixture(scope="module")
def aliased(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    with store_env(tmp_path_factory.mktemp("alias") / "sigboard.db", _frame()) as path:
        store = open_store(f"sqlite:///{path}")
        store.set_alias(ALIAS, SYSTEM, set_by="tester")
        store.close()
        yield path


def _texts(node: Any) -> list[str]:
    """Every text an element tree shows: markdown, captions, titles, tables, HTML."""
    out: list[str] = []
    children = getattr(node, "children", None)
    if children:
        for child in children.values():
            out += _texts(child)
        return out
    for attr in ("value", "label", "body"):
        value = getattr(node, attr, None)
        if isinstance(value, str):
            out.append(value)
        elif isinstance(value, pd.DataFrame):
            out.append(value.to_csv())
    proto = getattr(node, "proto", None)
    body = getattr(proto, "body", None)
    if isinstance(body, str):
        out.append(body)
    return out


@pytest.mark.parametrize("page", PAGES)
@pytest.mark.slow
def test_an_alias_is_one_system_on_every_page(aliased: Path, page: str) -> None:
    at = app(page, benchmark=BENCH)
    no_exception(at)
    shown = "\n".join(_texts(at.main))
    assert ALIAS not in shown, f"{page} still shows the alias"
    if page not in ("views/benchmarks.py",):
        assert SYSTEM in shown, f"{page} shows the system"


@pytest.mark.slow
def test_the_benchmarks_page_counts_three_systems(aliased: Path) -> None:
    at = app("views/benchmarks.py")
    no_exception(at)
    assert int(html_frame(at, "benchmarks").set_index("benchmark").at[BENCH, "systems"]) == 3


@pytest.mark.slow
def test_the_upload_page_lists_the_alias_and_its_history(aliased: Path) -> None:
    at = app("views/upload.py")
    no_exception(at)
    tables = [d.value for d in at.dataframe]
    assert any("read as" in t.columns and ALIAS in set(t["stored name"]) for t in tables)
    assert any("created_by" in t.columns and "tester" in set(t["created_by"]) for t in tables)


def test_the_alias_merges_in_the_cli(aliased: Path, capsys: pytest.CaptureFixture[str]) -> None:
    url = f"sqlite:///{aliased}"
    assert main(["leaderboard", url, "--format", "json"]) == 0
    board = json.loads(capsys.readouterr().out)
    rows = board["rows"] if isinstance(board, dict) and "rows" in board else board
    text = json.dumps(rows)
    assert ALIAS not in text and SYSTEM in text
    assert main(["alias", "--db", url, "--format", "json"]) == 0
    listed = json.loads(capsys.readouterr().out)["aliases"]
    assert listed == [{"alias": ALIAS, "system": SYSTEM}]


def test_store_aliases_runs_history_and_undo(tmp_path: Path) -> None:
    store = open_store(f"sqlite:///{tmp_path / 's.db'}")
    store.import_frame(_frame(), filename="x.csv")
    before = store.data_version()
    store.set_alias(ALIAS, SYSTEM, set_by="a")
    assert store.data_version() != before, "pages recompute after an alias"
    frame = store.load_frame(benchmark=BENCH)
    merged = frame[frame["system"] == SYSTEM]
    # the alias's rows are a second run of the system: no key collides
    assert sorted(merged["run"].unique()) == [0, 1] and len(merged) == 80
    assert not frame.duplicated(["system", "example_id", "metric", "run"]).any()
    with pytest.raises(ValueError, match="chain"):
        store.set_alias(SYSTEM, "claude")
    store.remove_alias(ALIAS, removed_by="b")
    assert set(store.load_frame()["system"]) == {SYSTEM, ALIAS, "claude", "llama"}
    history = store.alias_history()
    assert list(history["created_by"]) == ["a"] and list(history["removed_by"]) == ["b"]
    store.close()
