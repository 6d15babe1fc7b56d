"""SQLite reads in one statement step (engine.store._sqlite_read): the same long table as
Python's sqlite3 gives row by row, every value bit for bit, through the store's one SQLite
library."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from store_support import grid

from engine.store import _io as sio
from engine.store import _sqlite_read as sr
from engine.store import open_store

_PLAIN = ("SELECT benchmark_id, metric_id, system_id, example_key, run, upload_id, pos, value "
          "FROM results ORDER BY upload_id, pos")


def _plain(store) -> pd.DataFrame:  # noqa: ANN001
    """Every result row read one row per step (the reference)."""
    with store._read() as conn:
        rows = conn.exec_driver_sql(_PLAIN).fetchall()
    return pd.DataFrame(rows, columns=["benchmark_id", "metric_id", "system_id", "example_key",
                                       "run", "upload_id", "pos", "value"])


def _packed(store, where: str = "") -> dict[str, np.ndarray]:  # noqa: ANN001
    with store._read() as conn:
        rows = sr.result_rows(conn.connection.driver_connection, where)
    assert rows is not None
    return rows


def _store(path: Path, values: np.ndarray, *, seed: int = 0):  # noqa: ANN202
    store = open_store(f"sqlite:///{path}")
    df = pd.DataFrame({"benchmark": "b", "system": [f"s{i % 5}" for i in range(len(values))],
                       "example_id": [f"e{i}" for i in range(len(values))], "metric": "score",
                       "value": values})
    store.import_frame(df.sample(frac=1, random_state=seed), filename="a.csv")
    return store


# Doubles of every kind a score can be: ordinary fractions (their decimal text does not
# round-trip in SQLite 3.40), integers, huge and tiny magnitudes, subnormals (the fallback).
_DOUBLES = st.floats(allow_nan=False, allow_infinity=False, width=64)


@pytest.mark.slow
@settings(max_examples=25, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(values=st.lists(_DOUBLES, min_size=1, max_size=60))
def test_every_value_reads_back_bit_for_bit(tmp_path_factory: pytest.TempPathFactory,
                                            values: list[float]) -> None:
    path = tmp_path_factory.mktemp("packed") / "s.db"
    store = _store(path, np.array(values))
    plain, packed = _plain(store), _packed(store)
    store.close()
    for col in plain.columns:
        want = plain[col].to_numpy(np.float64 if col == "value" else np.int64)
        assert np.array_equal(want.view(np.int64), packed[col].astype(want.dtype).view(np.int64)), col


def test_random_scores_subnormals_and_extremes_read_exactly(tmp_path: Path) -> None:
    rng = np.random.default_rng(1)
    values = np.concatenate([rng.random(3000), rng.standard_normal(2000) * 10.0 ** rng.integers(
        -300, 300, 2000), [5e-324, 1e-310, 2.2250738585072014e-308, 1.7976931348623157e308,
                           -3.0, 0.0, 1.0, 1 / 3, 0.1 + 0.2]])
    store = _store(tmp_path / "s.db", values)
    packed = _packed(store)
    plain = _plain(store)
    assert np.array_equal(packed["value"], plain["value"].to_numpy())
    assert np.array_equal(packed["pos"], plain["pos"].to_numpy())  # upload order
    store.close()


def test_filters_and_the_long_table_match_the_row_by_row_read(tmp_path: Path) -> None:
    store = open_store(f"sqlite:///{tmp_path / 's.db'}")
    store.import_frame(grid([f"s{i}" for i in range(40)], 60), filename="a.csv")
    store.import_frame(grid(["t0", "t1"], 60, metric="f1", binary=False), filename="b.csv")
    with store._read() as conn:
        ids = sio.lookup(conn, ["b", "f1"])
        where = [("benchmark_id", ids["b"]), ("metric_id", ids["f1"])]
        fast = sio.read_results(conn, where, uploads=True)
    plain = _plain(store)
    plain = plain[plain["metric_id"] == ids["f1"]]
    assert list(fast.columns) == ["system_id", "example_key", "run", "value", "upload_id"]
    assert np.array_equal(fast["value"].to_numpy(), plain["value"].to_numpy())
    assert len(store.load_frame()) == 40 * 60 + 2 * 60
    store.close()


def test_labels_in_one_step_equal_the_plain_query(tmp_path: Path) -> None:
    store = open_store(f"sqlite:///{tmp_path / 's.db'}")
    names = [f"s,{i}\n'\"é" for i in range(50)]  # commas, quotes, newlines, non-ASCII
    store.import_frame(grid(names, 3), filename="a.csv")
    with store._read() as conn:
        ids = list(sio.lookup(conn, names).values())
        raw = conn.connection.driver_connection
        assert sr.label_rows(raw, ids) == {i: t for t, i in sio.lookup(conn, names).items()}
    assert sorted(store.load_frame()["system"].unique()) == sorted(names)
    store.close()


def test_no_second_sqlite_library_is_loaded(tmp_path: Path) -> None:
    """Two SQLite libraries in one process drop each other's POSIX locks on the store file
    (see engine.store._sqlite_read): every read goes through Python's sqlite3 alone."""
    store = open_store(f"sqlite:///{tmp_path / 's.db'}")
    store.import_frame(grid([f"s{i}" for i in range(40)], 60), filename="a.csv")
    store.load_frame()
    store.close()
    assert not [m for m in sys.modules if m.startswith("adbc_driver")]
    maps = Path("/proc/self/maps")
    if maps.exists():
        libraries = {line.split()[-1] for line in maps.read_text().splitlines()
                     if "sqlite" in line.lower() and "/" in line}
        assert not [p for p in libraries if "adbc" in p.lower()], libraries


def test_a_store_in_memory_reads_the_plain_way() -> None:
    store = open_store("sqlite://")
    store.import_frame(grid(["A", "B"], 5), filename="a.csv")
    assert len(store.load_frame()) == 10
    store.close()


def test_a_result_too_long_for_one_string_reads_row_by_row(tmp_path: Path) -> None:
    """Past SQLite's longest string (SQLITE_LIMIT_LENGTH, 1e9 bytes by default: ~20 million
    rows) the one-step read gives way to the row-by-row one, with the same table."""
    import sqlite3

    store = open_store(f"sqlite:///{tmp_path / 's.db'}")
    store.import_frame(grid([f"s{i}" for i in range(5)], 40, binary=False), filename="a.csv")
    want = store.load_frame()
    with store._read() as conn:
        raw = conn.connection.driver_connection
        old = raw.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, 1000)
        try:
            assert sr.result_rows(raw, "") is None
            got = sio.read_results(conn, [])
        finally:
            raw.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, old)
    assert np.array_equal(got["value"].to_numpy(), want["value"].to_numpy())
    store.close()
