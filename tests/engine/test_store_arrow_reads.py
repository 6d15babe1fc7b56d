"""SQLite reads through ADBC (engine.store._io._sqlite_arrow): the same long table as Python's
sqlite3 gives, and the plain path whenever the two connections could see different data."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pandas as pd
import pytest
from store_support import grid

from engine.store import _io as sio
from engine.store import open_store


def _store(path: Path):  # noqa: ANN202
    store = open_store(f"sqlite:///{path}")
    store.import_frame(grid([f"s{i}" for i in range(40)], 60), filename="a.csv")
    store.import_frame(grid(["t0", "t1"], 60, metric="f1", binary=False), filename="b.csv")
    return store


def test_arrow_reads_give_the_plain_reads_frame(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    store = _store(tmp_path / "s.db")
    calls: list[str] = []
    real = sio._sqlite_arrow_table

    def spy(conn, sql):  # noqa: ANN001, ANN202
        table = real(conn, sql)
        calls.append("arrow" if table is not None else "plain")
        return table

    monkeypatch.setattr(sio, "_sqlite_arrow_table", spy)
    arrow = store.load_frame(benchmark="b", metric="acc")
    both = store.load_frame()
    assert "arrow" in calls  # the rows and the example labels came through ADBC
    monkeypatch.setattr(sio, "_sqlite_arrow_table", lambda conn, sql: None)
    pd.testing.assert_frame_equal(arrow, store.load_frame(benchmark="b", metric="acc"))
    pd.testing.assert_frame_equal(both, store.load_frame())
    store.close()


def test_a_write_since_the_snapshot_reads_the_plain_way(tmp_path: Path) -> None:
    """ADBC's connection sees another data version than the store's read transaction (a
    write committed in between): its rows are not used."""
    store = _store(tmp_path / "s.db")
    rows = "SELECT system_id, value FROM results"
    with store._read() as conn:
        assert sio._sqlite_arrow_table(conn, rows) is not None  # the same version: used
    with store._read() as conn:
        conn.exec_driver_sql(rows).fetchall()  # the read transaction's snapshot starts here
        with sqlite3.connect(tmp_path / "s.db") as other:  # another writer commits
            other.execute("UPDATE sigboard_meta SET value = value + 1 "
                          "WHERE key = 'data_version'")
        assert sio._sqlite_arrow_table(conn, rows) is None
    store.close()


def test_a_store_in_memory_reads_the_plain_way() -> None:
    store = open_store("sqlite://")
    store.import_frame(grid(["A", "B"], 5), filename="a.csv")
    assert len(store.load_frame()) == 10
    store.close()
