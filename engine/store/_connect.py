"""Connecting to the results store's database: the SQLAlchemy engine and its settings.

``sqlite:///`` files get WAL, a busy timeout and explicit ``BEGIN`` / ``BEGIN
IMMEDIATE`` (writers take the write lock up front); a file this process cannot write
opens read-only. PostgreSQL URLs use psycopg 3 with a connection timeout. The
schema itself is :mod:`engine.store._schema`.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any
from urllib.parse import quote

from sqlalchemy import Connection, Engine, create_engine, event
from sqlalchemy.engine import make_url

__all__ = ["BUSY_TIMEOUT_MS", "PG_CONNECT_TIMEOUT", "make_engine", "sqlite_path", "writable"]

#: SQLite busy timeout (ms): how long a writer waits for another writer's lock.
BUSY_TIMEOUT_MS = 60_000


def _normalise(url: str) -> str:
    parsed = make_url(url)
    if parsed.drivername in ("postgresql", "postgres"):
        parsed = parsed.set(drivername="postgresql+psycopg")
    return parsed.render_as_string(hide_password=False)


#: Seconds a PostgreSQL connection attempt may take before it fails (an unreachable
#: server must not hang a page or a command).
PG_CONNECT_TIMEOUT = 5


def sqlite_path(url: str) -> Path | None:
    """The file of a ``sqlite:///`` URL; None for other databases and in-memory SQLite."""
    parsed = make_url(url)
    database = parsed.database or ""
    if parsed.get_backend_name() != "sqlite" or not database or database == ":memory:" \
            or database.startswith("file:"):
        return None
    return Path(database)


def writable(path: Path) -> bool:
    """Whether this process may write the store file and its folder (WAL needs both)."""
    return os.access(path, os.W_OK) and os.access(path.parent, os.W_OK)


def make_engine(url: str, *, read_only: bool = False) -> Engine:
    """An Engine for ``url``; SQLite connections get WAL, a busy timeout and explicit BEGINs.

    ``read_only`` (SQLite files only) opens the file with ``mode=ro`` — and, when its
    folder cannot be written either (a read-only filesystem), ``immutable=1``, since
    SQLite could not create its lock files there.
    """
    url = _normalise(url)
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite":
        return create_engine(url, pool_pre_ping=True,
                             connect_args={"connect_timeout": PG_CONNECT_TIMEOUT})
    database = parsed.database or ""
    path = sqlite_path(url)
    if read_only and path is not None:
        flags = "mode=ro" + ("" if os.access(path.parent, os.W_OK) else "&immutable=1")
        url = f"sqlite:///file:{quote(str(path.resolve()))}?{flags}&uri=true"
    elif database and database != ":memory:" and not database.startswith("file:"):
        Path(database).parent.mkdir(parents=True, exist_ok=True)
    engine = create_engine(url, connect_args={"timeout": BUSY_TIMEOUT_MS / 1000})

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None  # we emit BEGIN ourselves (see below)
        cursor = dbapi_connection.cursor()
        cursor.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        if not read_only:
            cursor.execute("PRAGMA journal_mode = WAL")
        cursor.execute("PRAGMA synchronous = NORMAL")
        cursor.execute("PRAGMA foreign_keys = ON")
        cursor.execute("PRAGMA cache_size = -65536")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Connection) -> None:
        # Writers take the write lock up front (BEGIN IMMEDIATE) so that two writers
        # never deadlock upgrading a read lock; busy_timeout makes the second one wait.
        immediate = conn.get_execution_options().get("sigboard_write", False)
        conn.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")

    return engine
