"""Data safety of the results store (issue #13, #17): nothing is destroyed at once.

Replaced rows are superseded, not deleted, and come back when the replacing upload is
deleted; deletes are soft (restore, purge later); upload ids are never reused; metric
definitions are editable with a history; a read-only store can be browsed. Reference
values are built in the tests (small frames whose stored content is known by
construction). ``store_url`` runs SQLite and PostgreSQL.
"""

from __future__ import annotations

import sqlite3
from datetime import timedelta
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from store_support import canon, grid

from engine._contract import DataContractError, MetricSpec
from engine.store import _connect
from engine.store import _schema as S
from engine.store._store import _ENGINES, open_store


@pytest.mark.slow
def test_replace_then_delete_brings_the_replaced_rows_back(store_url: str) -> None:
    store = open_store(store_url)
    one = grid(["A", "B"], 10)
    store.import_frame(one, filename="one.csv")
    new = grid(["B"], 4, seed=9, binary=False)
    assert store.import_frame(new, filename="b.csv", on_conflict="replace").replaced == 10
    assert store.delete_upload(2) == 4
    pd.testing.assert_frame_equal(canon(store.load_frame("b", "acc")), canon(one),
                                  check_dtype=False)
    assert store.uploads().set_index("upload_id")["rows_stored"].to_dict() == {1: 20}


@pytest.mark.slow
def test_delete_is_soft_restore_and_purge(store_url: str) -> None:
    store = open_store(store_url)
    one = grid(["A", "B"], 5).assign(size=lambda d: d["system"].map({"A": "7b", "B": "70b"}))
    store.import_frame(one, filename="one.csv", metrics={"acc": MetricSpec(False, True)})
    before = canon(store.load_frame())
    assert store.delete_upload(1, deleted_by="ann") == 10
    assert store.load_frame().empty and store.uploads().empty
    gone = store.uploads(deleted=True)
    assert gone["upload_id"].tolist() == [1] and gone["deleted_at"].notna().all()
    assert store.system_metadata("b").empty
    assert store.metric_history("b", "acc")["reason"].tolist() == ["deleted with upload 1"]
    with pytest.raises(ValueError, match="no such upload"):
        store.delete_upload(1)
    version = store.data_version()
    assert store.restore_upload(1) == 10
    assert store.data_version() != version
    pd.testing.assert_frame_equal(canon(store.load_frame()), before)
    assert store.metric_spec("b", "acc") == MetricSpec(False, True)  # definition back
    assert store.system_metadata("b").set_index("system")["size"].to_dict() == \
        {"A": "7b", "B": "70b"}
    store.delete_upload(1)
    assert store.purge_deleted(older_than=timedelta(days=1)) == []  # too recent
    assert store.purge_deleted(older_than=timedelta(0)) == [1]
    assert store.uploads(deleted=True).empty
    with pytest.raises(ValueError, match="no such deleted upload"):
        store.restore_upload(1)


@pytest.mark.slow
def test_upload_ids_are_never_reused(store_url: str) -> None:
    store = open_store(store_url)
    store.import_frame(grid(["A"], 3), filename="one.csv")
    store.import_frame(grid(["B"], 3), filename="two.csv")
    store.delete_upload(2)
    store.purge_deleted(older_than=timedelta(0))
    assert store.import_frame(grid(["C"], 3), filename="three.csv").upload_id == 3


@pytest.mark.slow
def test_a_chain_of_replacements_unwinds_in_any_order(store_url: str) -> None:
    store = open_store(store_url)
    frames = [grid(["A"], 4, seed=s, binary=False) for s in range(3)]
    for i, f in enumerate(frames):
        store.import_frame(f, filename=f"{i}.csv", on_conflict="replace")

    def shown() -> pd.DataFrame:
        return canon(store.load_frame("b", "acc"))

    store.delete_upload(2)  # the middle one: the newest still wins
    pd.testing.assert_frame_equal(shown(), canon(frames[2]))
    store.delete_upload(3)  # the first comes back, not the deleted middle one
    pd.testing.assert_frame_equal(shown(), canon(frames[0]))
    store.restore_upload(2)  # replaces the first again
    pd.testing.assert_frame_equal(shown(), canon(frames[1]))
    store.restore_upload(3)
    pd.testing.assert_frame_equal(shown(), canon(frames[2]))
    assert store.uploads().set_index("upload_id")["rows_stored"].to_dict() == {3: 4, 2: 0, 1: 0}


@settings(max_examples=6,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(order=st.permutations([1, 2, 3]), policies=st.lists(
    st.sampled_from(["replace", "add-run"]), min_size=2, max_size=2))
@pytest.mark.slow
def test_deleting_then_restoring_changes_nothing(tmp_path: Path, order: list[int],
                                                 policies: list[str]) -> None:
    url = f"sqlite:///{tmp_path / f'p{abs(hash((tuple(order), tuple(policies))))}.db'}"
    store = open_store(url)
    store.import_frame(grid(["A", "B"], 3), filename="0.csv")
    for i, policy in enumerate(policies):
        store.import_frame(grid(["B", "C"], 3, seed=i + 1), filename=f"{i + 1}.csv",
                           on_conflict=policy)  # type: ignore[arg-type]
    before = canon(store.load_frame())
    for upload_id in order:
        store.delete_upload(upload_id)
    assert store.load_frame().empty
    for upload_id in sorted(order):  # restored oldest first, as stored
        store.restore_upload(upload_id)
    pd.testing.assert_frame_equal(canon(store.load_frame()), before)
    store.close()
    _ENGINES.pop(url, None)


@pytest.mark.slow
def test_check_conflicts_before_commit_writes_nothing(store_url: str) -> None:
    store = open_store(store_url)
    store.import_frame(grid(["A", "B"], 3), filename="one.csv")
    dump = store.dump()
    hits = store.check_conflicts(grid(["B", "C"], 3, seed=1))
    assert hits[["system", "example_id", "upload_id"]].values.tolist() == \
        [["B", "ex0", 1], ["B", "ex1", 1], ["B", "ex2", 1]]
    assert store.check_conflicts(grid(["C"], 3)).empty
    assert store.check_conflicts(grid(["A"], 3, bench="new")).empty
    assert store.dump() == dump


@pytest.mark.slow
def test_metric_definitions_are_editable_with_history(store_url: str) -> None:
    store = open_store(store_url)
    store.import_frame(grid(["A", "B"], 3, metric="err", binary=False), filename="one.csv")
    version = store.data_version()
    store.update_metric("b", "err", MetricSpec(higher_is_better=False, threshold=0.2),
                        display_scale=100.0, changed_by="ann")
    assert store.data_version() != version
    assert store.metric_spec("b", "err") == MetricSpec(False, None, 0.2) or \
        store.metric_spec("b", "err").higher_is_better is False
    defs = store.metric_definitions().set_index(["benchmark", "metric"])
    assert defs.loc[("b", "err"), "display_scale"] == 100.0
    hist = store.metric_history("b", "err")
    assert hist[["changed_by", "reason"]].values.tolist() == [["ann", "edited"]]
    assert '"higher_is_better": true' in hist.loc[0, "old"]
    assert '"higher_is_better": false' in hist.loc[0, "new"]
    with pytest.raises(DataContractError, match="binary"):
        store.update_metric("b", "err", MetricSpec(binary=True))
    with pytest.raises(ValueError, match="not in the store"):
        store.update_metric("b", "nope", MetricSpec())
    with pytest.raises(ValueError, match="display_scale"):
        store.update_metric("b", "err", MetricSpec(), display_scale=0.0)


def _as_version_2(path: Path) -> None:
    """Turn a store written by this code back into schema version 2 (no AUTOINCREMENT,
    no deleted_at, no display scale, no history tables)."""
    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA foreign_keys = OFF")
        conn.executescript("""
            CREATE TABLE uploads_old (id INTEGER NOT NULL PRIMARY KEY, filename TEXT NOT NULL,
                content_hash VARCHAR(64) NOT NULL, rows INTEGER NOT NULL,
                rows_stored INTEGER NOT NULL, created_at VARCHAR(40) NOT NULL,
                uploader TEXT NOT NULL, note TEXT NOT NULL, on_conflict VARCHAR(16) NOT NULL);
            INSERT INTO uploads_old SELECT id, filename, content_hash, rows, rows_stored,
                created_at, uploader, note, on_conflict FROM uploads;
            DROP TABLE uploads;
            ALTER TABLE uploads_old RENAME TO uploads;
            CREATE UNIQUE INDEX ux_uploads_hash ON uploads (content_hash);
            DROP TABLE results_history;
            DROP TABLE metric_history;
            ALTER TABLE metrics DROP COLUMN display_scale;
            DELETE FROM sqlite_sequence;
            UPDATE sigboard_meta SET value = 2 WHERE key = 'schema_version';
        """)


@pytest.mark.slow
def test_version_2_store_upgrades_keeping_ids(tmp_path: Path) -> None:
    path = tmp_path / "v2.db"
    url = f"sqlite:///{path}"
    store = open_store(url)
    for i in range(3):
        store.import_frame(grid([f"S{i}"], 3).assign(size=f"{i}b"), filename=f"{i}.csv")
    store.close()
    _ENGINES.pop(url, None)
    _as_version_2(path)
    upgraded = open_store(url)
    assert upgraded.schema_version == S.SCHEMA_VERSION == 5
    assert upgraded.uploads()["upload_id"].tolist() == [3, 2, 1]  # ids kept
    assert len(upgraded.load_frame()) == 9
    assert upgraded.system_metadata("b").set_index("system")["size"].to_dict() == \
        {"S0": "0b", "S1": "1b", "S2": "2b"}
    with sqlite3.connect(path) as conn:
        ddl = conn.execute("SELECT sql FROM sqlite_master WHERE name = 'uploads'").fetchone()[0]
        assert "AUTOINCREMENT" in ddl
        assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
    upgraded.delete_upload(3)
    upgraded.purge_deleted(older_than=timedelta(0))
    assert upgraded.import_frame(grid(["T"], 3), filename="t.csv").upload_id == 4
    _ENGINES.pop(url, None)


def test_open_for_reading_needs_an_existing_store(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="no such store"):
        open_store(f"sqlite:///{tmp_path / 'missing.db'}", create=False)
    assert not (tmp_path / "missing.db").exists()


def test_read_only_store_can_be_browsed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    url = f"sqlite:///{tmp_path / 'ro.db'}"
    store = open_store(url)
    store.import_frame(grid(["A", "B"], 3), filename="one.csv")
    store.close()
    _ENGINES.pop(url, None)
    # the tests run as root, who may write anything: the check is what is replaced
    monkeypatch.setattr(_connect, "writable", lambda path: False)
    ro = open_store(url, create=False)
    assert ro.read_only and len(ro.load_frame()) == 6 and len(ro.uploads()) == 1
    with pytest.raises(PermissionError, match="read-only"):
        ro.import_frame(grid(["C"], 3), filename="two.csv")
    with pytest.raises(PermissionError, match="read-only"):
        ro.delete_upload(1)
    ro.close()
    _ENGINES.pop(f"{url}#ro", None)


def test_postgres_engine_has_a_connect_timeout(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: dict[str, object] = {}
    monkeypatch.setattr(_connect, "create_engine", lambda url, **kw: seen.update(kw))
    _connect.make_engine("postgresql://u@db.invalid/x")
    assert seen["connect_args"] == {"connect_timeout": 5}
