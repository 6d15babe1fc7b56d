"""The app on a store file where uploads could be lost (engine.store._safety): every page
says which file and the fix instead of opening it."""

from __future__ import annotations

from pathlib import Path

import pytest
from apptest_support import app

from engine.store import _safety


def test_a_store_on_a_network_file_system_is_refused_on_the_page(
        db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_safety, "_mount_of", lambda folder: ("/mnt/team", "nfs4"))
    _safety.check_sqlite_file.cache_clear()
    try:
        at = app()
    finally:
        _safety.check_sqlite_file.cache_clear()
    assert not at.exception, [e.value for e in at.exception]
    [error] = [e.value.replace("\\", "").replace("\u2060", "") for e in at.error]
    assert str(db) in error and "network file system" in error and "PostgreSQL" in error
    assert "database is running" not in error  # the fix is the refusal's own
