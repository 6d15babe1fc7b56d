"""The results store's schema, its version and upgrade path, and engine creation.

One schema for every database SQLAlchemy 2 speaks; tested on SQLite (the embedded
default) and PostgreSQL through psycopg 3. Tables:

``sigboard_meta``
    ``key → value`` integers: ``schema_version``, ``data_version`` (bumped by every
    write transaction; the app's caches key on it) and ``demo_loaded``.
``uploads``
    Provenance of each upload: file name, SHA-256 of the content (unique: identical
    content is stored once), rows, UTC time, uploader, note, conflict policy.
``labels``
    Interned key strings (benchmark, system, example id and metric names), stored
    verbatim; ``results`` refers to them by integer id.
``results``
    One row per observation. The primary key ``(benchmark, metric, system, example,
    run)`` is both the collision check and the access path of the app's main read
    (one benchmark + metric at a time; a clustered WITHOUT ROWID table on SQLite);
    ``pos`` keeps the upload's row order.
``system_meta`` / ``example_meta``
    Metadata as (name, JSON value) rows per (benchmark, system) / (benchmark,
    example_id), tagged with the upload that brought them (the newest upload wins).
``metrics``
    Per (benchmark, metric): direction, declared modality (NULL = detect) and the
    score that counts as "solved" (NULL = not defined for a numeric metric).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    Connection,
    Double,
    Engine,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    create_engine,
    event,
    inspect,
    select,
    text,
)
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError

__all__ = ["SCHEMA_VERSION", "MIGRATIONS", "make_engine", "upgrade",
           "meta", "uploads", "labels", "results", "system_meta", "example_meta", "metrics_table",
           "write_lock"]

#: Version of the schema this code writes. Bump it and add a step to MIGRATIONS.
SCHEMA_VERSION = 2
#: ``MIGRATIONS[v]`` upgrades a store at version ``v`` to ``v + 1`` inside the lock.
MIGRATIONS: dict[int, Callable[[Connection], None]] = {}


def _v1_to_v2(conn: Connection) -> None:
    """Version 2: a metric's declared "solved" threshold (``metrics.threshold``)."""
    conn.execute(text("ALTER TABLE metrics ADD COLUMN threshold DOUBLE PRECISION"))


MIGRATIONS[1] = _v1_to_v2
#: SQLite busy timeout (ms): how long a writer waits for another writer's lock.
BUSY_TIMEOUT_MS = 60_000
_PG_LOCK_KEY = 0x51_6B_0A_D0  # advisory lock that serialises schema creation/upgrade

metadata = MetaData()
#: Key text compares bytewise on PostgreSQL (COLLATE "C"): faster index builds, same
#: order as SQLite's BINARY collation.
KeyText = Text().with_variant(Text(collation="C"), "postgresql")

meta = Table(
    "sigboard_meta", metadata,
    Column("key", String(64), primary_key=True),
    Column("value", BigInteger, nullable=False),
)
uploads = Table(
    "uploads", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("filename", Text, nullable=False),
    Column("content_hash", String(64), nullable=False),
    Column("rows", Integer, nullable=False),
    Column("rows_stored", Integer, nullable=False),  # rows minus those replaced since
    Column("created_at", String(40), nullable=False),
    Column("uploader", Text, nullable=False),
    Column("note", Text, nullable=False),
    Column("on_conflict", String(16), nullable=False),
    Index("ux_uploads_hash", "content_hash", unique=True),
)
labels = Table(
    "labels", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("text", KeyText, nullable=False),
    Index("ux_labels_text", "text", unique=True),
)
results = Table(
    "results", metadata,
    # Keys are interned in ``labels``: integer keys make the primary-key index small
    # and fast to build (a 1M-row COPY into text keys was 2.5x slower on PostgreSQL).
    Column("benchmark_id", Integer, primary_key=True, autoincrement=False),
    Column("metric_id", Integer, primary_key=True, autoincrement=False),
    Column("system_id", Integer, primary_key=True, autoincrement=False),
    Column("example_key", Integer, primary_key=True, autoincrement=False),
    Column("run", Integer, primary_key=True, autoincrement=False),
    # No foreign key and no index on upload_id: a per-row check or a second b-tree
    # would slow bulk loads; deleting an upload (rare) scans the table instead.
    Column("upload_id", Integer, nullable=False),
    Column("pos", Integer, nullable=False),  # row position within its upload
    Column("value", Double, nullable=False),
    sqlite_with_rowid=False,
)
system_meta = Table(
    "system_meta", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("upload_id", Integer, ForeignKey("uploads.id"), nullable=False),
    Column("benchmark", Text, nullable=False),
    Column("system", Text, nullable=False),
    Column("name", Text, nullable=False),
    Column("value", Text, nullable=False),  # JSON scalar
    Index("ix_system_meta_bench", "benchmark", "system"),
    Index("ix_system_meta_upload", "upload_id"),
)
example_meta = Table(
    "example_meta", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("upload_id", Integer, ForeignKey("uploads.id"), nullable=False),
    Column("benchmark", Text, nullable=False),
    Column("example_id", Text, nullable=False),
    Column("name", Text, nullable=False),
    Column("value", Text, nullable=False),  # JSON scalar
    Index("ix_example_meta_bench", "benchmark", "example_id"),
    Index("ix_example_meta_upload", "upload_id"),
)
metrics_table = Table(
    "metrics", metadata,
    Column("benchmark", Text, primary_key=True),
    Column("metric", Text, primary_key=True),
    Column("higher_is_better", Boolean, nullable=False),
    Column("binary", Boolean, nullable=True),
    Column("threshold", Double, nullable=True),
    Column("upload_id", Integer, nullable=True),
)


def _normalise(url: str) -> str:
    parsed = make_url(url)
    if parsed.drivername in ("postgresql", "postgres"):
        parsed = parsed.set(drivername="postgresql+psycopg")
    return parsed.render_as_string(hide_password=False)


def make_engine(url: str) -> Engine:
    """An Engine for ``url``; SQLite connections get WAL, a busy timeout and explicit BEGINs."""
    url = _normalise(url)
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite":
        return create_engine(url, pool_pre_ping=True)
    database = parsed.database or ""
    if database and database != ":memory:" and not database.startswith("file:"):
        Path(database).parent.mkdir(parents=True, exist_ok=True)
    engine = create_engine(url, connect_args={"timeout": BUSY_TIMEOUT_MS / 1000})

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None  # we emit BEGIN ourselves (see below)
        cursor = dbapi_connection.cursor()
        cursor.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
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


def write_lock(conn: Connection) -> None:
    """Serialise writers: PostgreSQL row lock on the data-version counter (bumped here).

    On SQLite the lock is already held (BEGIN IMMEDIATE); the bump is the same.
    """
    conn.execute(meta.update().where(meta.c.key == "data_version")
                 .values(value=meta.c.value + 1))


def _schema_lock(conn: Connection) -> None:
    if conn.dialect.name == "postgresql":
        conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": _PG_LOCK_KEY})


def upgrade(engine: Engine) -> int:
    """Create the schema, or upgrade it to :data:`SCHEMA_VERSION`; returns the version.

    A store already at this version costs one read. Otherwise it runs in one
    transaction under a lock, so several processes starting at once against an empty
    database are safe.
    """
    try:
        with engine.connect() as conn, conn.begin():
            current = conn.execute(select(meta.c.value)
                                   .where(meta.c.key == "schema_version")).scalar()
        if current == SCHEMA_VERSION:
            return SCHEMA_VERSION
    except DBAPIError:
        pass  # no schema yet: create it below
    with engine.connect().execution_options(sigboard_write=True) as conn, conn.begin():
        _schema_lock(conn)
        if not inspect(conn).has_table(meta.name):
            metadata.create_all(conn)
            conn.execute(meta.insert(), [
                {"key": "schema_version", "value": SCHEMA_VERSION},
                {"key": "data_version", "value": 0},
                {"key": "demo_loaded", "value": 0},
            ])
            return SCHEMA_VERSION
        stored = conn.execute(select(meta.c.value).where(meta.c.key == "schema_version")).scalar()
        version = int(stored or 0)
        if version > SCHEMA_VERSION:
            raise ValueError(f"the results store has schema version {version}, newer than this "
                             f"sigboard understands ({SCHEMA_VERSION}); upgrade sigboard")
        if version == SCHEMA_VERSION:
            return version
        while version < SCHEMA_VERSION:
            MIGRATIONS[version](conn)
            version += 1
        metadata.create_all(conn)  # tables new in this version
        conn.execute(meta.update().where(meta.c.key == "schema_version").values(value=version))
        write_lock(conn)
        return version
