"""The results store's schema, its version and upgrade path.

One schema for every database SQLAlchemy 2 speaks; tested on SQLite (the embedded
default) and PostgreSQL through psycopg 3. Tables:

``sigboard_meta``
    ``key → value`` integers: ``schema_version``, ``data_version`` (bumped by every
    write transaction; the app's caches key on it) and ``demo_loaded``.
``uploads``
    Provenance of each upload: file name, SHA-256 of the content (unique: identical
    content is stored once), rows, UTC time, uploader, note, conflict policy, and
    ``deleted_at`` (soft delete: the upload and its rows are hidden until restored or
    purged). Ids are never reused (SQLite ``AUTOINCREMENT``, a PostgreSQL sequence).
``labels``
    Interned key strings (benchmark, system, example id and metric names), stored
    verbatim; ``results`` refers to them by integer id.
``results``
    One row per observation. The primary key ``(benchmark, metric, system, example,
    run)`` is both the collision check and the access path of the app's main read
    (one benchmark + metric at a time; a clustered WITHOUT ROWID table on SQLite);
    ``pos`` keeps the upload's row order.
``results_history``
    Rows no longer in ``results``, kept so that nothing is destroyed by a replace or a
    delete: ``superseded_by > 0`` = replaced by that upload (they come back when it is
    deleted), ``superseded_by = -upload_id`` = their own upload was deleted (they come
    back when it is restored). Reads never look here, so the hot read path is unchanged.
``system_meta`` / ``example_meta``
    Metadata as (name, JSON value) rows per (benchmark, system) / (benchmark,
    example_id), tagged with the upload that brought them (the newest upload wins).
``outputs``
    Per-observation text of an upload (a system's output on an example): (name, text)
    per (benchmark, system, example, run) as label ids, tagged with its upload; a value
    is capped (:mod:`engine.store._outputs`). An output is read only while its upload's
    score row for that key is live in ``results``, so replace, delete and restore move
    it along with the row (nothing is copied to a history table).
``example_hashes``
    What each system's example was (:mod:`engine.store._hashes`): the content hash a
    harness log gives per example (lm-eval ``doc_hash``, sigboard's ``content_hash``) per
    (benchmark, example, system) as label ids, tagged with its upload. An upload whose
    hash for an example id differs from the stored systems' is not paired with them there.
``metrics``
    Per (benchmark, metric): direction, declared modality (NULL = detect) and the
    score that counts as "solved" (NULL = not defined for a numeric metric), and the
    display scale (e.g. 100 to show a 0–1 score as a percentage; NULL = as stored).
``metric_history``
    Every change of a metric definition after upload: who, when, old and new (JSON),
    and why (an edit, or the definition leaving with a deleted upload).
``watches`` / ``watch_history``
    Watched comparisons (anytime-valid, :mod:`engine.store._watch`): each one's
    sequential state (JSON) after the uploads it has seen, and per upload the interval,
    always-valid p-value and e-value it reached. Created with a new store, or on the
    first watch in an older one (no version bump: a sigboard without them ignores them).
``battles``
    Battle lists (:mod:`engine.store._battles`): one row per judgement (arena, position,
    model_a, model_b, winner, judge, category, weight), tagged with its upload (provenance,
    duplicate content and soft delete as for results). Created on the first battle upload
    (no version bump, as the watches); rows of a purged upload are dropped with it on
    the next battle upload (no foreign key: a purge does not know them).
"""

from __future__ import annotations

from collections.abc import Callable
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
    inspect,
    select,
    text,
)
from sqlalchemy.exc import DBAPIError

__all__ = ["SCHEMA_VERSION", "MIGRATIONS", "upgrade",
           "meta", "uploads", "labels", "results", "results_history", "system_meta",
           "example_meta", "outputs", "example_hashes", "metrics_table", "metric_history", "watches",
           "watch_history", "battles", "write_lock"]

#: Version of the schema this code writes. Bump it and add a step to MIGRATIONS.
SCHEMA_VERSION = 5
#: ``MIGRATIONS[v]`` upgrades a store at version ``v`` to ``v + 1`` inside the lock.
MIGRATIONS: dict[int, Callable[[Connection], None]] = {}


def _v1_to_v2(conn: Connection) -> None:
    """Version 2: a metric's declared "solved" threshold (``metrics.threshold``)."""
    conn.execute(text("ALTER TABLE metrics ADD COLUMN threshold DOUBLE PRECISION"))


def _v2_to_v3(conn: Connection) -> None:
    """Version 3: soft delete (``uploads.deleted_at``), ids never reused (SQLite
    AUTOINCREMENT: the uploads table is rebuilt, ids kept), metric display scale.

    ``results_history`` and ``metric_history`` are new tables (created after the steps).
    """
    present = {t: {c["name"] for c in inspect(conn).get_columns(t)} for t in ("metrics", "uploads")}
    if "display_scale" not in present["metrics"]:
        conn.execute(text("ALTER TABLE metrics ADD COLUMN display_scale DOUBLE PRECISION"))
    if conn.dialect.name != "sqlite":  # PostgreSQL's SERIAL sequence never reuses ids
        if "deleted_at" not in present["uploads"]:
            conn.execute(text("ALTER TABLE uploads ADD COLUMN deleted_at VARCHAR(40)"))
        return
    # SQLite cannot add AUTOINCREMENT to a table: build the new one, copy, swap (foreign
    # keys are off, see upgrade()). The metadata tables' foreign keys name "uploads", so
    # they point at the new table once it is renamed.
    rebuilt = Table("uploads_v3", MetaData(), *(c._copy() for c in uploads.columns),
                    sqlite_autoincrement=True)
    rebuilt.create(conn)
    names = ", ".join(c.name for c in uploads.columns if c.name in present["uploads"])
    conn.exec_driver_sql(f"INSERT INTO uploads_v3 ({names}) SELECT {names} FROM uploads")
    conn.exec_driver_sql("DROP TABLE uploads")
    conn.exec_driver_sql("ALTER TABLE uploads_v3 RENAME TO uploads")
    for index in uploads.indexes:
        index.create(conn)
    # AUTOINCREMENT continues after the highest id ever seen; ids deleted before this
    # version are unknown, so the highest stored one is the floor.
    conn.exec_driver_sql("INSERT INTO sqlite_sequence (name, seq) "
                         "SELECT 'uploads', COALESCE(MAX(id), 0) FROM uploads")


def _v3_to_v4(conn: Connection) -> None:
    """Version 4: per-observation text of an upload (the ``outputs`` table).

    Uploads stored before this version kept no outputs; nothing is backfilled.
    """
    outputs.create(conn, checkfirst=True)


def _v4_to_v5(conn: Connection) -> None:
    """Version 5: each system's content hash per example (the ``example_hashes`` table).

    Uploads stored before this version kept their hashes as example metadata only; they
    are not backfilled, so a later upload is checked against the uploads made since.
    """
    example_hashes.create(conn, checkfirst=True)


MIGRATIONS[1] = _v1_to_v2
MIGRATIONS[2] = _v2_to_v3
MIGRATIONS[3] = _v3_to_v4
MIGRATIONS[4] = _v4_to_v5
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
    Column("deleted_at", String(40), nullable=True),  # soft delete (NULL = live)
    Index("ux_uploads_hash", "content_hash", unique=True),
    sqlite_autoincrement=True,  # ids are never reused, also after deletes
)
labels = Table(
    "labels", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("text", KeyText, nullable=False),
    Index("ux_labels_text", "text", unique=True),
)


def _observation_columns(*, primary_key: bool) -> list[Column[Any]]:
    """The columns of one stored observation, in ``results`` and ``results_history``.

    Keys are interned in ``labels``: integer keys make the primary-key index small and
    fast to build (a 1M-row COPY into text keys was 2.5x slower on PostgreSQL). No
    foreign key and no index on upload_id: a per-row check or a second b-tree would
    slow bulk loads; deleting an upload (rare) scans the table instead.
    """
    keys = [Column(name, Integer, primary_key=True, autoincrement=False) if primary_key
            else Column(name, Integer, nullable=False)
            for name in ("benchmark_id", "metric_id", "system_id", "example_key", "run")]
    return [*keys, Column("upload_id", Integer, nullable=False),
            Column("pos", Integer, nullable=False),  # row position within its upload
            Column("value", Double, nullable=False)]


def _metadata_table(name: str, key: str) -> Table:
    """(name, JSON value) rows per (benchmark, ``key``), tagged with the upload they came in."""
    return Table(
        name, metadata,
        Column("id", Integer, primary_key=True, autoincrement=True),
        Column("upload_id", Integer, ForeignKey("uploads.id"), nullable=False),
        Column("benchmark", Text, nullable=False),
        Column(key, Text, nullable=False),
        Column("name", Text, nullable=False),
        Column("value", Text, nullable=False),  # JSON scalar
        Index(f"ix_{name}_bench", "benchmark", key),
        Index(f"ix_{name}_upload", "upload_id"),
    )


results = Table("results", metadata, *_observation_columns(primary_key=True),
                sqlite_with_rowid=False)
results_history = Table(
    "results_history", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    *_observation_columns(primary_key=False),
    Column("superseded_by", Integer, nullable=False),  # > 0 replacing upload, < 0 deleted
    Index("ix_results_history_by", "superseded_by"),
    Index("ix_results_history_upload", "upload_id"),
)
system_meta = _metadata_table("system_meta", "system")
example_meta = _metadata_table("example_meta", "example_id")
outputs = Table(
    "outputs", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("upload_id", Integer, ForeignKey("uploads.id"), nullable=False),
    Column("benchmark_id", Integer, nullable=False),
    Column("example_key", Integer, nullable=False),
    Column("system_id", Integer, nullable=False),
    Column("run", Integer, nullable=False),
    Column("name", Text, nullable=False),
    Column("value", Text, nullable=False),  # capped, see engine.store._outputs
    # the read's access path (one benchmark and example) and the key's uniqueness
    Index("ux_outputs_key", "benchmark_id", "example_key", "system_id", "run", "name",
          "upload_id", unique=True),
    Index("ix_outputs_upload", "upload_id"),
)
example_hashes = Table(
    "example_hashes", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("upload_id", Integer, ForeignKey("uploads.id"), nullable=False),
    Column("benchmark_id", Integer, nullable=False),
    Column("example_key", Integer, nullable=False),
    Column("system_id", Integer, nullable=False),
    Column("name", String(32), nullable=False),  # doc_hash, content_hash
    Column("value", Text, nullable=False),
    Index("ix_example_hashes_key", "benchmark_id", "example_key"),  # the import's check
    Index("ix_example_hashes_upload", "upload_id"),
)
metrics_table = Table(
    "metrics", metadata,
    Column("benchmark", Text, primary_key=True),
    Column("metric", Text, primary_key=True),
    Column("higher_is_better", Boolean, nullable=False),
    Column("binary", Boolean, nullable=True),
    Column("threshold", Double, nullable=True),
    Column("upload_id", Integer, nullable=True),
    Column("display_scale", Double, nullable=True),
)
metric_history = Table(
    "metric_history", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("benchmark", Text, nullable=False),
    Column("metric", Text, nullable=False),
    Column("changed_at", String(40), nullable=False),
    Column("changed_by", Text, nullable=False),
    Column("reason", Text, nullable=False),
    Column("old", Text, nullable=True),  # JSON definition before (NULL: none)
    Column("new", Text, nullable=True),  # JSON definition after (NULL: removed)
    Index("ix_metric_history_key", "benchmark", "metric"),
)

watches = Table(
    "watches", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("benchmark", Text, nullable=False),
    Column("metric", Text, nullable=False),
    Column("baseline", Text, nullable=False),
    Column("candidate", Text, nullable=False),
    Column("cluster", Text, nullable=False),  # "" = examples are the unit
    Column("settings", Text, nullable=False),  # JSON: alpha, bounds, breaks, sigma
    Column("state", Text, nullable=False),  # JSON, engine.stats._confseq state
    Column("last_upload_id", Integer, nullable=False),  # 0 = none seen yet
    Column("first_excluded_n", Integer, nullable=True),  # when the CS first excluded 0
    Column("first_excluded_upload", Integer, nullable=True),
    Column("created_at", String(40), nullable=False),
    Index("ux_watches_key", "benchmark", "metric", "baseline", "candidate", "cluster",
          unique=True),
)
watch_history = Table(
    "watch_history", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("watch_id", Integer, ForeignKey("watches.id"), nullable=False),
    Column("upload_id", Integer, nullable=False),
    Column("n_seen", Integer, nullable=False),
    Column("cs_low", Double, nullable=True),  # NULL: unbounded (burn-in)
    Column("cs_high", Double, nullable=True),
    Column("p_always_valid", Double, nullable=False),
    Column("log_e", Double, nullable=False),
    Index("ix_watch_history_watch", "watch_id", "upload_id"),
)

battles = Table(
    "battles", metadata,
    Column("upload_id", Integer, nullable=False),
    Column("arena", Text, nullable=False),  # the battle set's name (as a benchmark)
    Column("pos", Integer, nullable=False),  # the file's order (sequential Elo replays it)
    Column("model_a", Text, nullable=False),
    Column("model_b", Text, nullable=False),
    Column("winner", String(16), nullable=False),  # model_a / model_b / tie / both_bad
    Column("judge", Text, nullable=True),
    Column("category", Text, nullable=True),
    Column("weight", Double, nullable=False),
    # human verdict on a judged battle list; added to an older battles table by the
    # first battle upload that has one (engine.store._battles)
    Column("human_winner", String(16), nullable=True),
    Index("ix_battles_arena", "arena", "upload_id", "pos"),
)


def write_lock(conn: Connection) -> None:
    """Serialise writers: PostgreSQL row lock on the data-version counter (bumped here).

    On SQLite the lock is already held (BEGIN IMMEDIATE); the bump is the same.
    """
    conn.execute(meta.update().where(meta.c.key == "data_version")
                 .values(value=meta.c.value + 1))


def _schema_lock(conn: Connection) -> None:
    if conn.dialect.name == "postgresql":
        conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": _PG_LOCK_KEY})


def upgrade(engine: Engine, *, read_only: bool = False) -> int:
    """Create the schema, or upgrade it to :data:`SCHEMA_VERSION`; returns the version.

    A store already at this version costs one read. Otherwise it runs in one
    transaction under a lock, so several processes starting at once against an empty
    database are safe. A ``read_only`` store must already be at this version.
    """
    try:
        with engine.connect() as conn, conn.begin():
            current = conn.execute(select(meta.c.value)
                                   .where(meta.c.key == "schema_version")).scalar()
        if current == SCHEMA_VERSION:
            return SCHEMA_VERSION
    except DBAPIError:
        current = None  # no schema yet: create it below
    if read_only:
        raise ValueError(f"url: the read-only store {engine.url.database} is "
                         + ("not a sigboard results store" if current is None else
                            f"at schema version {current}, not {SCHEMA_VERSION}")
                         + "; open it once where it can be written to upgrade it")
    with engine.connect().execution_options(sigboard_write=True) as conn:
        # SQLite checks foreign keys row by row; a migration that rebuilds a parent table
        # (v2 -> v3) needs them off, which only works outside a transaction. They are
        # checked as a whole before the commit instead.
        raw = conn.connection.driver_connection if conn.dialect.name == "sqlite" else None
        if raw is not None:
            raw.execute("PRAGMA foreign_keys = OFF")
        try:
            with conn.begin():
                return _create_or_upgrade(conn)
        finally:
            if raw is not None:
                raw.execute("PRAGMA foreign_keys = ON")


def _create_or_upgrade(conn: Connection) -> int:
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
    if conn.dialect.name == "sqlite":
        broken = conn.exec_driver_sql("PRAGMA foreign_key_check").all()
        if broken:
            raise RuntimeError(f"schema upgrade to {version} broke foreign keys: {broken[:5]}")
    conn.execute(meta.update().where(meta.c.key == "schema_version").values(value=version))
    write_lock(conn)
    return version
