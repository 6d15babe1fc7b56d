"""The child of :func:`engine.sources.read_source`: ``python -m engine.sources._child HEADER``.

The source (and any password) arrives on stdin as JSON. The child opens the engine's
client (DuckDB, chDB or clickhouse-connect), then caps its own address space at what it
holds once the client is loaded plus :attr:`engine.Limits.max_parse_memory` (as a fork is
given the cap plus what it inherited: :mod:`engine.io._fork`; chDB alone maps ~1.5 GB of
code and reserved space before its first query), and tells the engine to keep within half
that room (DuckDB's ``memory_limit``, ClickHouse's ``max_memory_usage``; one thread each):
the other half holds the rows as a DataFrame and the answer. It then asks the source for
its columns, checks the declared mapping against them, fetches at most ``max_rows + 1``
rows and holds them to the limits of a table upload before sending the canonical long
table back (:mod:`engine.intake._wire`), or the problems as JSON (exit 3).
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import os
import sys
from collections.abc import Callable
from typing import Any

from .._contract import DataContractError, Problem
from ..io._fork import address_space
from ..io._worker import exit_now, send_problems, send_table
from . import SourceSpec, quote_clickhouse, quote_duckdb

__all__: list[str] = []

#: columns a source must give (after --columns and the upload aliases); the value too,
#: unless the table is wide (one numeric column per metric, as a wide upload)
REQUIRED = ("benchmark", "system", "example_id")


class _Engine:
    """One open source: its column names, and its rows as an Arrow table."""

    quote: Callable[[str], str]
    source: str  # the FROM clause

    def columns(self) -> list[str]:
        return list(self.fetch(f"SELECT * FROM {self.source} LIMIT 0").schema.names)

    def fetch(self, sql: str) -> Any:  # pragma: no cover - each engine's own
        raise NotImplementedError

    #: a query over no user data (:meth:`warm_up`)
    warm: str = "SELECT number AS n, toString(number) AS s FROM numbers(100000)"

    def warm_up(self) -> None:
        """Run :attr:`warm` before the cap: the engine's allocator reserves its arenas now
        (DuckDB reserved ~1 GiB of address space on its first query in a forked child,
        which the cap then refused: a one-row Parquet file failed), not while reading the
        source."""
        self.query(self.warm).nbytes  # noqa: B018 - Arrow's pool allocates too

    def query(self, sql: str) -> Any:
        return self.fetch(sql)


class _DuckDB(_Engine):
    def __init__(self, spec: SourceSpec, room: int) -> None:
        import duckdb

        config: dict[str, str | bool | int | float | list[str]] = {
                  "threads": 1, "memory_limit": f"{max(room >> 20, 16)}MiB",
                  # offline: an extension is loaded only when installed already (httpfs for
                  # an object store the user configured), never downloaded here
                  "autoinstall_known_extensions": False}
        self.quote = quote_duckdb
        self.params: list[Any] = []
        if spec.table:
            if not os.path.isfile(spec.location):
                raise _problem(spec.label, "no such DuckDB database file",
                               "give the path of a .duckdb file, or drop ?table= for Parquet")
            self.con = duckdb.connect(spec.location, read_only=True, config=config)
            self.source = ".".join(quote_duckdb(p) for p in spec.table)
        else:
            self.con = duckdb.connect(":memory:", config=config)
            path = spec.location
            if os.path.isdir(path):
                path = os.path.join(path, "**", "*.parquet")
            self.params = [[path]]
            self.source = "read_parquet(?, union_by_name = true)"

    warm = "SELECT range AS n, CAST(range AS VARCHAR) AS s FROM range(100000)"

    def fetch(self, sql: str) -> Any:
        return self.con.sql(sql, params=self.params or None).to_arrow_table()

    def query(self, sql: str) -> Any:
        return self.con.sql(sql).to_arrow_table()


class _ClickHouseSettings:
    """The settings every ClickHouse query of the child runs with."""

    def __init__(self, room: int) -> None:
        # max_result_bytes: the answer's blocks too (the output format's buffers are outside
        # max_memory_usage), refused as the query runs (TOO_MANY_ROWS_OR_BYTES)
        self.values = {"max_threads": 1, "max_memory_usage": max(room, 16 << 20),
                       "max_result_bytes": max(room, 16 << 20)}


class _Chdb(_Engine):
    def __init__(self, spec: SourceSpec, room: int) -> None:
        if not os.path.isdir(spec.location):  # chDB would create an empty data path there
            raise _problem(spec.label, "no such chDB data path",
                           "give the folder a chdb.session.Session(path) wrote")
        from chdb import session

        self.session = session.Session(spec.location)  # type: ignore[no-untyped-call]
        self.quote = quote_clickhouse
        self.source = ".".join(quote_clickhouse(p) for p in spec.table)
        # readonly=2: no statement that writes (settings of this query may still be set)
        self.settings = ", ".join(f"{k} = {int(v)}" for k, v in
                                  {"readonly": 2, **_ClickHouseSettings(room).values}.items())

    def fetch(self, sql: str) -> Any:
        return self.session.query(  # type: ignore[no-untyped-call]
            f"{sql} SETTINGS {self.settings}", "ArrowTable")


class _ClickHouse(_Engine):
    def __init__(self, spec: SourceSpec, room: int, timeout: float) -> None:
        import clickhouse_connect

        host, _, port = spec.location.rpartition(":")
        self.client = clickhouse_connect.get_client(
            host=host, port=int(port), username=spec.user or "default",
            password=spec.password, database=spec.database, secure=spec.secure,
            connect_timeout=10, send_receive_timeout=int(timeout))
        self.quote = quote_clickhouse
        self.source = ".".join(quote_clickhouse(p) for p in spec.table)
        self.settings = _ClickHouseSettings(room).values

    def fetch(self, sql: str) -> Any:
        return self.client.query_arrow(sql, settings=self.settings)


def _problem(label: str, rule: str, fix: str, column: str | None = None) -> DataContractError:
    return DataContractError([Problem(label, rule=rule, fix=fix, column=column)])


def _open(spec: SourceSpec, room: int, timeout: float) -> _Engine:
    if spec.kind == "duckdb":
        return _DuckDB(spec, room)
    if spec.kind == "chdb":
        return _Chdb(spec, room)
    return _ClickHouse(spec, room, timeout)


def select_list(names: list[str], columns: dict[str, str], label: str,
                quote: Callable[[str], str]) -> str:
    """The SELECT list reading every column of the source, the mapped ones renamed; a
    mapping the source cannot meet is refused (the source, the column, the fix)."""
    from ..io._checks import canonical_names

    shown = ", ".join(repr(n) for n in names[:30]) + (" …" if len(names) > 30 else "")
    problems = [Problem(label, rule=f"the source has no column {column!r} (--columns "
                        f"{canon}={column})", column=column,
                        fix=f"map {canon} to one of its columns: {shown}")
                for canon, column in columns.items() if column not in names]
    renamed = {column: canon for canon, column in columns.items()}
    problems += [Problem(label, rule=f"the source has a column {canon!r} besides "
                         f"{columns[canon]!r}, which --columns maps to that name", column=canon,
                         fix=f"map {canon} to the column {canon!r} itself, or drop it from "
                         "--columns")
                 for canon in columns if canon in names and canon not in renamed]
    if problems:
        raise DataContractError(problems)
    present = set(canonical_names([renamed.get(n, n) for n in names]))
    needed = [*REQUIRED, *(["value"] if "metric" in present else [])]
    missing = [c for c in needed if c not in present]
    if missing:
        raise DataContractError([Problem(
            label, rule=f"the source has no {c} column (its columns: {shown})", column=c,
            fix=f"map it to one of them: --columns {c}=COLUMN") for c in missing])
    return ", ".join(f"{quote(n)} AS {quote(renamed[n])}" if n in renamed else quote(n)
                     for n in names)


def _engine_error(label: str, kind: str, exc: Exception, room: int) -> DataContractError:
    """An engine's refusal as the upload's: memory, a missing file or table, a connection."""
    text = " ".join(str(exc).split())[:300]
    # DuckDB's OutOfMemoryException; ClickHouse's MEMORY_LIMIT_EXCEEDED (error code 241)
    kinds = {k.__name__ for k in type(exc).__mro__}
    # (code 241) and max_result_bytes (396), or an allocation refused under the child's
    # address-space cap (173, or a failed malloc while its answer is written)
    if "OutOfMemoryException" in kinds or any(
            mark in text for mark in ("MEMORY_LIMIT_EXCEEDED", "CANNOT_ALLOCATE_MEMORY",
                                      "Out of memory", "Cannot allocate memory",
                                      "TOO_MANY_ROWS_OR_BYTES",
                                      # how chDB's Arrow writer reports a failed allocation
                                      # at times (seen under the cap, never otherwise)
                                      "CANNOT_WRITE_AFTER_BUFFER_CANCELED")):
        return _problem(label, f"the query does not fit in the memory limit of "
                        f"{2 * room >> 20:,} MiB per upload, half of it the engine's ({text})",
                        "narrow the source (a folder or a table per benchmark), or raise "
                        "SIGBOARD_MAX_PARSE_MEMORY on the server")
    return _problem(label, f"{kind} could not read the source ({text})",
                    "check the path, the table name and that the engine can reach it "
                    "(e.g. `duckdb -c \"DESCRIBE SELECT * FROM read_parquet('PATH')\"`)"
                    if kind == "duckdb" else
                    "check the path or URL, the table name and that the server is running")


def read(spec: SourceSpec, columns: dict[str, str], limits: Any) -> Any:
    """The source's rows as the :class:`~engine.Ingested` of a table upload."""
    from ..intake._decide import _shaped
    from ..io._checks import check_counts, check_frame_types, check_parquet_types
    from ..io._limits import limit_error
    from ..io._parse import _nested_to_json

    room = limits.max_parse_memory // 2
    label = spec.label
    try:
        engine = _open(spec, room, limits.parse_timeout)
        names = engine.columns()
    except DataContractError:
        raise
    except ImportError as exc:
        raise _problem(label, f"the {spec.kind} client is not installed ({exc})",
                       "pip install 'sigboard[sources]'") from None
    except Exception as exc:  # noqa: BLE001 - each client raises its own
        raise _engine_error(label, spec.kind, exc, room) from None
    engine.warm_up()
    _cap_address_space(limits.max_parse_memory)
    chosen = select_list(names, columns, label, engine.quote)
    try:
        _check_counts_first(engine, names, columns, label, limits)
        table = engine.fetch(f"SELECT {chosen} FROM {engine.source} LIMIT {limits.max_rows + 1}")
    except DataContractError:
        raise
    except MemoryError:
        raise
    except Exception as exc:  # noqa: BLE001
        raise _engine_error(label, spec.kind, exc, room) from None
    if table.num_rows > limits.max_rows:
        raise _problem(label, f"the source has more than {limits.max_rows:,} rows (the limit "
                       f"per upload is {limits.max_rows:,})", _NARROW.format("SIGBOARD_MAX_ROWS"))
    if table.nbytes > limits.max_bytes:
        raise limit_error(label, "max_bytes", limits, f"the query returned {table.nbytes:,} bytes")
    digest = _digest(table)
    try:
        check_parquet_types(table.schema, label)
        frame = _nested_to_json(table).to_pandas()
        del table
        check_frame_types(frame, label)
        check_counts(frame, label, limits)
        got = _shaped(frame, label, None, None, False)
    except DataContractError as exc:
        raise _in_source_names(exc, columns) from None
    del frame
    return dataclasses.replace(got, content_hash=digest)


def _check_counts_first(engine: _Engine, names: list[str], columns: dict[str, str], label: str,
                        limits: Any) -> None:
    """The rows and the systems, counted by the engine on the system column alone before
    any row is fetched (one column read, not the texts): a source over the limits is
    refused without its rows crossing into this process's memory."""
    from ..io._checks import canonical_names

    renamed = {column: canon for canon, column in columns.items()}
    canon = canonical_names([renamed.get(n, n) for n in names])
    system = names[canon.index("system")]
    q = engine.quote(system)
    counted = engine.fetch(f"SELECT count(*) AS n, count(DISTINCT {q}) AS s FROM "
                           f"(SELECT {q} FROM {engine.source} LIMIT {limits.max_rows + 1}) AS t")
    rows, systems = (int(counted.column(i)[0].as_py()) for i in (0, 1))
    if rows > limits.max_rows:
        raise _problem(label, f"the source has more than {limits.max_rows:,} rows (the limit "
                       f"per upload is {limits.max_rows:,})", _NARROW.format("SIGBOARD_MAX_ROWS"))
    if systems > limits.max_systems:
        shown = f"{system} (mapped to system)" if system in renamed else system
        raise _problem(label, f"the source has {systems:,} systems (the limit per upload is "
                       f"{limits.max_systems:,})", _NARROW.format("SIGBOARD_MAX_SYSTEMS"),
                       column=shown)


_NARROW = ("read part of it (a Parquet folder or a table per benchmark, or a view that "
           "filters), or raise {} on the server")


def _in_source_names(exc: DataContractError, columns: dict[str, str]) -> DataContractError:
    """The problems with each column named as the source names it (``--columns``)."""
    named = [dataclasses.replace(p, column=f"{columns[p.column]} (mapped to {p.column})")
             if p.column in columns else p for p in exc.problems]
    return DataContractError(named)


def _digest(table: Any) -> str:
    """SHA-256 of the rows read, as an Arrow IPC stream (the same rows in the same order
    give the same key: the store then keeps one upload of them)."""
    import pyarrow as pa

    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, table.schema.remove_metadata()) as writer:
        writer.write_table(table.replace_schema_metadata(None))
    return hashlib.sha256(memoryview(sink.getvalue())).hexdigest()


def _cap_address_space(limit: int) -> None:
    """What this process holds now (the interpreter, the readers, the engine's client)
    plus ``limit``: the room for the rows is the same as an upload's."""
    import resource

    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    cap = address_space() + limit
    if hard != resource.RLIM_INFINITY:
        cap = min(cap, hard)
    with contextlib.suppress(ValueError, OSError):
        resource.setrlimit(resource.RLIMIT_AS, (cap, hard))


def _main(argv: list[str]) -> int:
    header: dict[str, Any] = json.loads(argv[0])
    from ..io._limits import Limits, limits_in_force

    limits = Limits(**header["limits"])
    label = header["name"]
    request = json.loads(sys.stdin.buffer.read() or b"{}")
    spec_fields = dict(request["spec"])
    spec = SourceSpec(**{**spec_fields, "table": tuple(spec_fields.get("table") or ())})
    try:
        from ..intake._wire import to_table

        with limits_in_force(limits):
            got = read(spec, {str(k): str(v) for k, v in request.get("columns", {}).items()},
                       limits)
        table = to_table(got)
        del got
        return send_table(table)
    except DataContractError as exc:
        return send_problems(exc.problems)
    except MemoryError:
        return send_problems([Problem(
            label, rule=f"the rows do not fit in the memory limit of "
            f"{limits.max_parse_memory >> 20:,} MiB",
            fix="narrow the source (a folder or a table per benchmark), or raise "
            "SIGBOARD_MAX_PARSE_MEMORY on the server")])


if __name__ == "__main__":
    exit_now(_main(sys.argv[1:]))
