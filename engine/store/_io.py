"""Bulk I/O of the results store: interning key labels, inserting and reading result rows.

PostgreSQL goes through psycopg 3's COPY (binary format built with numpy, no Python
loop per row); SQLite through ``executemany`` on the raw sqlite3 cursor; any other
SQLAlchemy dialect through a Core ``insert()`` executemany.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable, Sequence
from datetime import UTC, datetime
from typing import Any

import numpy as np
import pandas as pd
from sqlalchemy import Connection, insert, select

from . import _schema as S
from . import _sqlite_read as sqlite_read

__all__ = ["ID_COLUMNS", "intern", "label_texts", "lookup", "insert_results", "insert_rows",
           "now", "read_results"]

#: Integer key columns of ``results`` and the text column each one interns.
ID_COLUMNS = {"benchmark": "benchmark_id", "metric": "metric_id", "system": "system_id",
              "example_id": "example_key"}
_IN_CHUNK = 5000
#: Labels past which :func:`label_texts` reads them all in one statement step (below it the
#: plain query's few rows cost less).
_FEW_LABELS = 32
_ROW_CHUNK = 100_000
_RESULT_COLS = ("benchmark_id", "metric_id", "system_id", "example_key", "run", "upload_id",
                "pos", "value")
_KEY_COLS = _RESULT_COLS[:5]  # the primary key of ``results``, in its order
#: Rows per multi-row INSERT on SQLite (8 parameters each; SQLite allows 32766 since 3.32).
_SQLITE_BLOCK = 500


def now() -> str:
    """The current UTC time as stored in the history columns (ISO 8601, microseconds)."""
    return datetime.now(UTC).isoformat(timespec="microseconds")


def _labels_where(conn: Connection, by: str, wanted: list[Any]) -> list[tuple[Any, Any]]:
    """``(by, other)`` pairs of the ``labels`` rows whose ``by`` column (``"text"`` or
    ``"id"``) is in ``wanted``, queried in chunks of ``_IN_CHUNK``."""
    c = S.labels.c
    key, other = (c.text, c.id) if by == "text" else (c.id, c.text)
    rows: list[tuple[Any, Any]] = []
    for i in range(0, len(wanted), _IN_CHUNK):
        chunk = wanted[i:i + _IN_CHUNK]
        rows += [(k, v) for k, v in conn.execute(select(key, other).where(key.in_(chunk))).all()]
    return rows


def lookup(conn: Connection, texts: Iterable[str]) -> dict[str, int]:
    """Ids of the labels that exist among ``texts``."""
    return {str(text): int(ident)
            for text, ident in _labels_where(conn, "text", list(dict.fromkeys(texts)))}


def intern(conn: Connection, texts: Iterable[str]) -> dict[str, int]:
    """Ids of ``texts`` in ``labels``, inserting the missing ones (caller holds the write lock)."""
    wanted = list(dict.fromkeys(texts))
    found = lookup(conn, wanted)
    missing = [t for t in wanted if t not in found]
    if missing:
        conn.execute(insert(S.labels), [{"text": t} for t in missing])
        found.update(lookup(conn, missing))
    return found


def label_texts(conn: Connection, ids: Iterable[int]) -> dict[int, str]:
    """Texts of the label ids (on SQLite, many at once in one statement step: see
    :mod:`engine.store._sqlite_read`)."""
    wanted = [int(i) for i in dict.fromkeys(ids)]
    if conn.dialect.name == "sqlite" and len(wanted) > _FEW_LABELS:
        raw = conn.connection.driver_connection
        texts: dict[int, str] = {}
        for i in range(0, len(wanted), _IN_CHUNK):
            texts.update(sqlite_read.label_rows(raw, wanted[i:i + _IN_CHUNK]))
        return texts
    return {int(ident): str(text) for ident, text in _labels_where(conn, "id", wanted)}


def encode(codes: np.ndarray, uniques: Any, ids: dict[str, int]) -> np.ndarray:
    """Label ids for a factorized text column."""
    table = np.fromiter((ids[str(u)] for u in uniques), dtype=np.int64, count=len(uniques))
    out: np.ndarray = table[codes]
    return out


def decode(codes: np.ndarray, texts: dict[int, str]) -> pd.Series:
    """Text column (object dtype, as :func:`validate_long` returns) for label ids."""
    uniques, inverse = np.unique(codes, return_inverse=True)
    labels = np.empty(len(uniques), dtype=object)
    labels[:] = [texts[int(u)] for u in uniques]
    return pd.Series(labels[inverse], dtype=object)


def constant(text: str, n: int) -> pd.Series:
    """A text column holding ``text`` ``n`` times."""
    return decode(np.zeros(n, dtype=np.int64), {0: text})


def _pg_binary(frame: dict[str, np.ndarray], n: int) -> bytes:
    """PostgreSQL binary COPY payload for int4 key columns and a float8 value."""
    fields: list[tuple[str, str]] = [("count", ">i2")]
    for col in _RESULT_COLS:
        fields += [(f"{col}_len", ">i4"), (col, ">f8" if col == "value" else ">i4")]
    rows = np.empty(n, dtype=np.dtype(fields))
    rows["count"] = len(_RESULT_COLS)
    for col in _RESULT_COLS:
        rows[f"{col}_len"] = 8 if col == "value" else 4
        rows[col] = frame[col]
    header = b"PGCOPY\n\xff\r\n\x00" + (0).to_bytes(4, "big") + (0).to_bytes(4, "big")
    return header + rows.tobytes() + (-1).to_bytes(2, "big", signed=True)


def _sqlite_insert(conn: Connection, part: dict[str, np.ndarray], n: int) -> None:
    """Rows through multi-row ``INSERT … VALUES (…), (…), …`` statements: one statement
    step per block of rows instead of per row (about half the time of one-row
    ``executemany``). Parameters come from each column's ``tolist()``, once."""
    raw = conn.connection.driver_connection
    assert raw is not None
    width = len(_RESULT_COLS)
    block = max(1, min(_SQLITE_BLOCK, raw.getlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER) // width))
    params = np.empty((n, width), dtype=object)
    for j, col in enumerate(_RESULT_COLS):
        params[:, j] = part[col].tolist()  # Python int/float, never numpy scalars
    head = f"INSERT INTO results ({', '.join(_RESULT_COLS)}) VALUES "
    row = f"({', '.join('?' * width)})"
    whole = n - n % block
    cur = conn.connection.cursor()
    try:
        if whole:
            cur.executemany(head + ", ".join([row] * block),
                            params[:whole].reshape(-1, width * block).tolist())
        if whole < n:
            cur.execute(head + ", ".join([row] * (n - whole)), params[whole:].ravel().tolist())
    finally:
        cur.close()


def insert_results(conn: Connection, frame: dict[str, np.ndarray], n: int,
                   after_chunk: Callable[[int], None] | None = None) -> None:
    """Insert ``n`` result rows given as integer/float columns (see ``_RESULT_COLS``).

    Rows go in primary-key order (``pos`` keeps the upload's order): the clustered
    index then grows at its end instead of splitting pages all over.
    """
    dialect = conn.dialect.name
    order = np.lexsort([frame[c][:n] for c in reversed(_KEY_COLS)])
    for start in range(0, n, _ROW_CHUNK):
        stop = min(start + _ROW_CHUNK, n)
        part = {c: frame[c][order[start:stop]] for c in _RESULT_COLS}
        if dialect == "postgresql":
            raw = conn.connection.driver_connection
            assert raw is not None
            with raw.cursor() as cur, cur.copy(
                    f"COPY results ({', '.join(_RESULT_COLS)}) FROM STDIN (FORMAT binary)") as cp:
                cp.write(_pg_binary(part, stop - start))
        elif dialect == "sqlite":
            _sqlite_insert(conn, part, stop - start)
        else:
            columns = [part[c].tolist() for c in _RESULT_COLS]
            conn.execute(insert(S.results), [dict(zip(_RESULT_COLS, r, strict=True))
                                             for r in zip(*columns, strict=True)])
        if after_chunk is not None:
            after_chunk(stop)


def insert_rows(conn: Connection, table: Any, rows: list[dict[str, Any]]) -> None:
    """Insert rows given as dicts with the same keys (metadata rows of an upload).

    SQLite goes through the raw cursor's ``executemany``: SQLAlchemy's per-row parameter
    processing costs more than the insert itself for tens of thousands of rows.
    """
    if not rows:
        return
    if conn.dialect.name != "sqlite":
        conn.execute(insert(table), rows)
        return
    names = list(rows[0])
    cur = conn.connection.cursor()
    try:
        cur.executemany(f"INSERT INTO {table.name} ({', '.join(names)}) "
                        f"VALUES ({', '.join('?' * len(names))})",
                        [tuple(r[k] for k in names) for r in rows])
    finally:
        cur.close()


def read_results(conn: Connection, where: Sequence[tuple[str, int]], *,
                 systems: Sequence[int] | None = None, uploads: bool = False) -> pd.DataFrame:
    """Result rows (key ids without the filtered ones, run, value) in upload order.

    ``where`` holds ``(column, id)`` equality filters on ``benchmark_id``/``metric_id``;
    ``systems``: only these system ids; ``uploads``: an ``upload_id`` column too.
    """
    fixed = {col for col, _ in where}
    cols = [c for c in ("benchmark_id", "metric_id", "system_id", "example_key")
            if c not in fixed] + ["run", "value"] + (["upload_id"] if uploads else [])
    clause = " AND ".join([*(f"{col} = {int(val)}" for col, val in where),
                           *([f"system_id IN ({', '.join(str(int(i)) for i in systems)})"]
                             if systems is not None else [])])
    sql = (f"SELECT {', '.join(cols)} FROM results" + (f" WHERE {clause}" if clause else "")
           + " ORDER BY upload_id, pos")
    if conn.dialect.name == "postgresql":
        return _pg_copy_out(conn, sql, cols)
    if conn.dialect.name == "sqlite":
        packed = sqlite_read.result_rows(conn.connection.driver_connection, clause)
        if packed is not None:
            return pd.DataFrame({c: packed[c] for c in cols})
    cur = conn.connection.cursor()
    cur.execute(sql)
    rows: list[Any] = list(cur.fetchall())
    cur.close()
    if not rows:
        return pd.DataFrame({c: np.array([], dtype=np.float64 if c == "value" else np.int64)
                             for c in cols})
    arr = np.array(rows, dtype=np.float64)
    out: dict[str, np.ndarray] = {c: arr[:, i].astype(np.int64) for i, c in enumerate(cols)}
    out["value"] = arr[:, cols.index("value")]
    return pd.DataFrame(out)[cols]


def _pg_copy_out(conn: Connection, sql: str, cols: list[str]) -> pd.DataFrame:
    import pyarrow as pa
    import pyarrow.csv as pacsv

    raw = conn.connection.driver_connection
    assert raw is not None
    buf = bytearray()
    with raw.cursor() as cur, cur.copy(f"COPY ({sql}) TO STDOUT (FORMAT csv, HEADER true)") as cp:
        for block in cp:
            buf += block
    types = {c: (pa.float64() if c == "value" else pa.int64()) for c in cols}
    table = pacsv.read_csv(pa.py_buffer(bytes(buf)),
                           convert_options=pacsv.ConvertOptions(column_types=types))
    frame: pd.DataFrame = table.to_pandas()
    return frame
