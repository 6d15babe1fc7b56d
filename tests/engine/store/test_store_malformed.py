"""The malformed-input corpus (tests/engine/malformed/, made by make_corpus.py).

Every file is rejected by ``ResultsStore.import_file`` with its own message, which
names the file, the column and/or rows where the case has them, the rule and the fix;
the store is exactly as before (row dump, SQLite's SQL dump, data version).
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pandas as pd
import pytest

from engine._contract import DataContractError, MetricSpec
from engine.store._store import ResultsStore, open_store

CORPUS = Path(__file__).resolve().parents[1] / "malformed"
CASES: dict[str, dict[str, object]] = json.loads((CORPUS / "cases.json").read_text())


def _metrics(spec: dict[str, object]) -> dict[str, MetricSpec] | None:
    declared = spec.get("metrics")
    if not isinstance(declared, dict):
        return None
    return {name: MetricSpec(**options) for name, options in declared.items()}


def _seeded(url: str) -> ResultsStore:
    store = open_store(url)
    seed = pd.DataFrame({"benchmark": "b", "system": ["sysA", "sysA", "sysB", "sysB"],
                         "example_id": ["e1", "e2", "e1", "e2"], "metric": "acc",
                         "value": [1.0, 0.0, 1.0, 1.0]})
    store.import_frame(seed, filename="seed.csv", metrics={"acc": MetricSpec(binary=True)})
    return store


def _reject(store: ResultsStore, name: str) -> str:
    spec = CASES[name]
    with pytest.raises(DataContractError) as info:
        store.import_file(CORPUS / name, metrics=_metrics(spec))
    problem = info.value.problems[0]
    message = str(info.value)
    assert str(spec["expect"]) in message, message
    assert message.startswith(name), message  # names the file
    assert "Fix:" in message
    if "column" in spec:
        assert problem.column == spec["column"], message
    if "rows" in spec:
        assert list(problem.rows) == spec["rows"], message
    return str(problem)


def test_corpus_is_large_enough() -> None:
    files = {p.name for p in CORPUS.iterdir() if p.name not in ("make_corpus.py", "cases.json")}
    assert files == set(CASES) and len(CASES) >= 25


@pytest.fixture(scope="module")
def seeded_sqlite(tmp_path_factory: pytest.TempPathFactory) -> tuple[ResultsStore, Path]:
    path = tmp_path_factory.mktemp("malformed") / "store.db"
    return _seeded(f"sqlite:///{path}"), path


@pytest.mark.parametrize("name", sorted(CASES))
def test_rejected_and_store_unchanged(seeded_sqlite: tuple[ResultsStore, Path],
                                      name: str) -> None:
    store, path = seeded_sqlite
    with sqlite3.connect(path) as conn:
        sql_before = list(conn.iterdump())
    rows_before, version = store.dump(), store.data_version()
    _reject(store, name)
    with sqlite3.connect(path) as conn:
        assert list(conn.iterdump()) == sql_before
    assert store.dump() == rows_before and store.data_version() == version


def test_messages_are_specific(tmp_path: Path) -> None:
    store = _seeded(f"sqlite:///{tmp_path / 's.db'}")
    messages = [_reject(store, name) for name in sorted(CASES)]
    rules = [m.split(": ", 1)[1] for m in messages]
    assert len(set(rules)) >= len(CASES) - 6  # the same rule may recur, e.g. "value missing"
    assert len(set(messages)) == len(CASES)  # but never the same message


@pytest.mark.slow
@pytest.mark.postgres
def test_rejected_on_postgres_store_unchanged(pg_url: str) -> None:
    store = _seeded(pg_url)
    before, version = store.dump(), store.data_version()
    for name in sorted(CASES):
        _reject(store, name)
    assert store.dump() == before and store.data_version() == version
