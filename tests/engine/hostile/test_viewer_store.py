"""The viewers' read-only connection (issue #33 item 7): it reads what the writer stored, and
the database itself refuses its writes (SQLite ``mode=ro``; PostgreSQL read-only
transactions), on SQLite and on PostgreSQL (``postgres`` marker)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from sqlalchemy import text
from sqlalchemy.exc import InternalError, OperationalError, ProgrammingError

from engine.store import open_store
from engine.store._viewer import open_viewer_store

FRAME = pd.DataFrame({"benchmark": "b", "system": ["A", "B", "A", "B"],
                      "example_id": ["e1", "e1", "e2", "e2"], "metric": "m",
                      "value": [1.0, 0.0, 1.0, 1.0]})


@pytest.mark.slow
def test_the_viewer_reads_what_the_writer_stored_and_cannot_write(store_url: str) -> None:
    writer = open_store(store_url)
    writer.import_frame(FRAME, filename="r.csv", uploader="tester")
    viewer = open_viewer_store(store_url)
    assert viewer.read_only and viewer.data_version() == writer.data_version()
    pd.testing.assert_frame_equal(viewer.load_frame(), writer.load_frame())
    with pytest.raises(PermissionError):
        viewer.import_frame(FRAME.assign(system=["C", "D", "C", "D"]), filename="s.csv")
    # below the store's own guard, the database refuses: SQLite "attempt to write a readonly
    # database", PostgreSQL "cannot execute CREATE TABLE in a read-only transaction"
    with pytest.raises((OperationalError, ProgrammingError, InternalError)) as refused, \
            viewer.engine.begin() as conn:
        conn.execute(text("CREATE TABLE intruder (a integer)"))
    assert "read" in str(refused.value).lower()
    writer.import_frame(FRAME.assign(system=["C", "D", "C", "D"]), filename="s.csv")
    assert viewer.data_version() == writer.data_version(), "the viewer sees new uploads"
    assert set(viewer.load_frame()["system"]) == {"A", "B", "C", "D"}


def test_a_viewer_never_creates_a_store(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="no such store"):
        open_viewer_store(f"sqlite:///{tmp_path / 'missing.db'}")
    assert not (tmp_path / "missing.db").exists()
    with pytest.raises(ValueError, match="needs a SQLite file"):
        open_viewer_store("sqlite://")
