"""Reading many rows of a SQLite store in one statement step, exactly, through Python's sqlite3.

Why one step: Python's sqlite3 lets go of the interpreter lock around every
``sqlite3_step`` (one per row) and then waits to get it back behind any busy thread of
the server, up to the switch interval (5 ms) a row. Measured on the Overall page's four
benchmarks (65,000 rows): 0.26 s alone, 154 s beside one busy thread. A query whose
single row holds every row waits once.

Why not a second SQLite library (the ADBC driver, which reads a whole result in one call,
links its own copy of SQLite): SQLite's POSIX advisory locks belong to the *process*, and
closing any descriptor of the database file drops all of them (SQLite's "How To Corrupt
An SQLite Database File", section 2.2). One library tracks its own descriptors and defers
such closes; two copies cannot see each other's. When the ADBC copy closed its connection,
the store's sqlite3 connections silently lost their locks; another process (the CLI) then
found itself the last connection, checkpointed and deleted the ``-wal`` and ``-shm``
files still in use, and every later commit of the server went into a deleted file and was
lost at its restart. So every connection of this process to a store file goes through
the one ``sqlite3`` library.

How the values stay exact: SQLite 3.40's float-to-text conversion does not round-trip
(128 of 600,000 random doubles differ after ``quote()``), so no value travels as decimal
text. Each value ``v`` travels as two integers: ``s = 53 - floor(log2|v|)`` and
``m = CAST(v * 2^s AS INTEGER)``. Multiplying by a power of two is exact, and with
``v = M * 2^(E - 52)`` (``M < 2^53``, ``E`` the binary exponent, ``floor(log2|v|)``
within one of ``E``) ``v * 2^s = M * 2^(E - e + 1)`` is an integer below ``2^55``; SQL
checks ``m * 2^-s = v`` on every row, and the rows that check cannot pass (subnormal or
huge scales) are read by a second, ordinary query. Lines are parsed by pyarrow's CSV
reader; every line has the same fields, and the row count is checked against ``count(*)``.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

import numpy as np

__all__ = ["KEY_ORDER", "label_rows", "result_rows"]

#: Columns that order result rows uniquely: the upload's own order, then the primary key.
KEY_ORDER = ("upload_id", "pos", "benchmark_id", "metric_id", "system_id", "example_key", "run")
_SCALE = "CAST(53 - floor(log2(abs(value))) AS INTEGER)"
_MANT = f"CAST(value * pow(2, {_SCALE}) AS INTEGER)"
#: 0 when the row's value travels as (mantissa, scale) exactly, 1 when it needs the fallback.
_NEEDS_FALLBACK = (f"(CASE WHEN value = 0 THEN 0 WHEN CAST({_MANT} AS REAL) * pow(2, -{_SCALE})"
                   " = value THEN 0 ELSE 1 END)")
_PACKED = (f"CASE WHEN value = 0 THEN '0,0' WHEN {_NEEDS_FALLBACK} = 0 "
           f"THEN {_MANT} || ',' || {_SCALE} ELSE ',' END")


def _one_row(raw: Any, sql: str) -> tuple[Any, ...]:
    cur = raw.cursor()
    try:
        cur.execute(sql)
        row: tuple[Any, ...] = cur.fetchone()
    finally:
        cur.close()
    return row


def result_rows(raw: Any, where: str) -> dict[str, np.ndarray] | None:
    """Every ``results`` row matching ``where`` (SQL after ``WHERE``, or ""), as arrays of
    :data:`KEY_ORDER` and ``value``, in upload order (:data:`KEY_ORDER`); None when this SQLite
    lacks the math functions or the result does not fit in one string (the caller reads
    row by row)."""
    import pyarrow as pa
    import pyarrow.csv as pacsv

    clause = f" WHERE {where}" if where else ""
    line = " || ',' || ".join([*KEY_ORDER, _PACKED])
    try:
        count, text = _one_row(raw, f"SELECT count(*), group_concat({line}, char(10)) "
                                    f"FROM results{clause}")
    except (sqlite3.OperationalError, sqlite3.DataError):  # no log2/pow, or too big
        return None
    names = [*KEY_ORDER, "mantissa", "scale"]
    if not count:
        return {**{c: np.empty(0, np.int64) for c in KEY_ORDER}, "value": np.empty(0)}
    table = pacsv.read_csv(
        pa.py_buffer(text.encode()),
        read_options=pacsv.ReadOptions(column_names=names),
        convert_options=pacsv.ConvertOptions(column_types=dict.fromkeys(names, pa.int64())))
    if table.num_rows != count:
        return None
    cols = {c: table.column(c).to_numpy() for c in KEY_ORDER}
    cols["value"] = np.ldexp(table.column("mantissa").fill_null(0).to_numpy().astype(np.float64),
                             -table.column("scale").fill_null(0).to_numpy().astype(np.int32))
    missing = table.column("mantissa").is_null().to_numpy(zero_copy_only=False)
    # the scan runs in primary-key order; a stable sort on (upload, position) then gives
    # ORDER BY KEY_ORDER (pos < 2^32 and upload ids < 2^31: one int64 key)
    order = np.argsort((cols["upload_id"] << 32) | cols["pos"], kind="stable")
    if not np.array_equal(order, np.arange(len(order))):
        cols = {c: v[order] for c, v in cols.items()}
        missing = missing[order]
    if missing.any():
        and_where = f"{where} AND " if where else ""
        cur = raw.cursor()
        try:
            cur.execute(f"SELECT value FROM results WHERE {and_where}{_NEEDS_FALLBACK} = 1 "
                        f"ORDER BY {', '.join(KEY_ORDER)}")
            rest = np.array([r[0] for r in cur.fetchall()], dtype=np.float64)
        finally:
            cur.close()
        if len(rest) != int(missing.sum()):
            return None
        cols["value"][missing] = rest
    return cols


def label_rows(raw: Any, ids: list[int]) -> dict[int, str]:
    """``{id: text}`` of the ``labels`` rows with these ids, read in one statement step."""
    listed = ", ".join(str(int(i)) for i in ids)
    (text,) = _one_row(raw, "SELECT json_group_array(json_array(id, text)) FROM labels "
                            f"WHERE id IN ({listed})")
    return {int(i): str(t) for i, t in json.loads(text or "[]")}
