"""Read-only analytics sources: a DuckDB or ClickHouse query read as an upload.

DATA may name a table that an analytics engine already holds instead of a file:

* ``duckdb:PATH_OR_GLOB`` — Parquet files read by DuckDB (``read_parquet(…,
  union_by_name=true)``): a file, a glob (``runs/*.parquet``) or a folder (every
  ``*.parquet`` below it); an object-store path (``s3://…``) is the same query once the
  user has configured DuckDB's ``httpfs`` extension and credentials;
  ``duckdb:FILE.duckdb?table=T`` — table ``T`` of a DuckDB database file, opened
  read-only;
* ``chdb:PATH?table=T`` — table ``T`` (``db.table``) of an in-process ClickHouse
  (chDB) data path, queried with ``readonly=2``;
* ``clickhouse://[USER[:PASSWORD]@]HOST:PORT/DB?table=T`` — table ``T`` of a ClickHouse
  server through ``clickhouse-connect`` (HTTP interface; ``&secure=1`` for HTTPS),
  queried with ``readonly=2``.

Each is a real engine used through its own client, and each is read like an upload: the
query runs in the memory-capped child (``python -m engine.sources._child``, or a fork of
this process when :mod:`engine.io._fork` says it is safe), which makes the engine hold to
the same room (DuckDB's ``memory_limit``, ClickHouse's ``max_memory_usage``, then the
address-space cap), fetches at most ``max_rows + 1`` rows, refuses a result over the row,
byte, system, metric or benchmark limits, checks the column types as a Parquet upload's
are checked, and shapes the rows into the canonical long table with the readers of a
table upload (:func:`engine.intake._decide._shaped`): the frame that comes back is the one
the same rows uploaded as a file give. A source is never written: every statement is a
``SELECT`` built here, the database is opened read-only, and column and table names
are validated and quoted (never spliced in as text).

``--columns benchmark=…,system=…,example_id=…,metric=…,value=…,run=…`` maps the
canonical columns onto the source's names when they differ (:func:`parse_columns`); the
common aliases of an upload (``model``, ``score``, …) are understood without it.
"""

from __future__ import annotations

import os
import re
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING
from urllib.parse import parse_qs, unquote, urlsplit

if TYPE_CHECKING:
    from ..intake import Ingested
    from ..io._limits import Limits

__all__ = ["MAPPABLE", "SourceSpec", "is_source", "parse_columns", "parse_source",
           "quote_clickhouse", "quote_duckdb", "read_source"]

#: the canonical columns ``--columns`` may map (the long table's keys, its value, the run)
MAPPABLE = ("benchmark", "system", "example_id", "metric", "value", "run")
#: the prefixes that make DATA a source
PREFIXES = ("duckdb:", "chdb:", "clickhouse://")
#: a table name: one to three dot-separated SQL identifiers (db.table, catalog.schema.table)
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,127}")
_FIX_TABLE = "name a table as ?table=NAME or ?table=DB.NAME (letters, digits, underscores)"


@dataclass(frozen=True)
class SourceSpec:
    """One source as DATA names it.

    Attributes
    ----------
    kind : {"duckdb", "chdb", "clickhouse"}
    location : str
        DuckDB: the Parquet path or glob (absolute), or the database file with ``table``;
        chDB: the data path (absolute); ClickHouse: ``HOST:PORT``.
    table : tuple of str
        The table's name parts (validated identifiers); empty for Parquet.
    label : str
        How messages (and the store, for ``import``) name the source; never a password.
    database : str
        ClickHouse: the database of the URL (``default`` when absent).
    user, password : str
        ClickHouse: the credentials of the URL (sent to the child on stdin, never argv).
    secure : bool
        ClickHouse: HTTPS.
    """

    kind: str
    location: str
    table: tuple[str, ...] = ()
    label: str = ""
    database: str = "default"
    user: str = ""
    password: str = field(default="", repr=False)
    secure: bool = False


def is_source(data: str) -> bool:
    """Whether DATA names an analytics source (``duckdb:``, ``chdb:``, ``clickhouse://``)."""
    return str(data).startswith(PREFIXES)


def _table(text: str, label: str) -> tuple[str, ...]:
    parts = tuple(text.split("."))
    if not text or len(parts) > 3 or not all(_IDENTIFIER.fullmatch(p) for p in parts):
        raise ValueError(f"{label}: ?table={text!r} is not a table name; {_FIX_TABLE}")
    return parts


def _query_of(rest: str, label: str, allowed: set[str]) -> tuple[str, dict[str, str]]:
    """``PATH?k=v&…`` → (PATH, {k: v}); unknown or repeated keys refused."""
    path, sep, query = rest.partition("?")
    options: dict[str, str] = {}
    if sep:
        for key, values in parse_qs(query, keep_blank_values=True).items():
            if key not in allowed:
                raise ValueError(f"{label}: unknown option ?{key}= (allowed: "
                                 f"{', '.join(sorted(allowed)) or 'none'})")
            if len(values) != 1:
                raise ValueError(f"{label}: ?{key}= given {len(values)} times; give it once")
            options[key] = values[0]
    return path, options


def parse_source(data: str) -> SourceSpec:
    """The :class:`SourceSpec` of a DATA argument (:func:`is_source` must hold).

    Raises
    ------
    ValueError
        Naming the source, what is wrong and the spelling that works.

    Examples
    --------
    >>> parse_source("chdb:/data/ch?table=evals.scores").table
    ('evals', 'scores')
    >>> parse_source("duckdb:/x.duckdb?table=scores;drop")
    Traceback (most recent call last):
    ...
    ValueError: duckdb:/x.duckdb: ?table='scores;drop' is not a table name; name a table as \
?table=NAME or ?table=DB.NAME (letters, digits, underscores)
    """
    text = str(data)
    if text.startswith("clickhouse://"):
        return _clickhouse(text)
    kind, _, rest = text.partition(":")
    path, options = _query_of(rest, f"{kind}:{rest.partition('?')[0]}", {"table"})
    label = f"{kind}:{path}"
    if not path:
        raise ValueError(f"{label}: no path; write {kind}:PATH"
                         + ("?table=T" if kind == "chdb" else " (Parquet files or a folder)"))
    table = _table(options["table"], label) if "table" in options else ()
    if kind == "chdb" and not table:
        raise ValueError(f"{label}: a chDB source needs a table; write chdb:{path}?table=DB.T")
    local = "://" not in path  # s3://, https://: DuckDB's object-store paths stay as given
    return SourceSpec(kind, os.path.abspath(os.path.expanduser(path)) if local else path,
                      table, label)


def _clickhouse(text: str) -> SourceSpec:
    parts = urlsplit(text)
    shown = f"clickhouse://{parts.hostname or ''}" + (f":{parts.port}" if parts.port else "")
    label = shown + parts.path
    _, options = _query_of("?" + parts.query if parts.query else "", label,
                           {"table", "secure"})
    if not parts.hostname:
        raise ValueError(f"{label}: no host; write clickhouse://HOST:PORT/DB?table=T")
    if "table" not in options:
        raise ValueError(f"{label}: no table; write clickhouse://HOST:PORT/DB?table=T")
    database = parts.path.strip("/") or "default"
    if not _IDENTIFIER.fullmatch(database):
        raise ValueError(f"{label}: {database!r} is not a database name; write "
                         "clickhouse://HOST:PORT/DB?table=T")
    secure = options.get("secure", "0").lower() in ("1", "true", "yes")
    port = parts.port or (8443 if secure else 8123)
    return SourceSpec("clickhouse", f"{parts.hostname}:{port}",
                      _table(options["table"], label), f"{label}?table={options['table']}",
                      database=database, user=unquote(parts.username or ""),
                      password=unquote(parts.password or ""), secure=secure)


def parse_columns(text: str) -> dict[str, str]:
    """``--columns benchmark=task,system=model`` → ``{"benchmark": "task", …}``.

    Raises
    ------
    ValueError
        An entry that is not ``NAME=COLUMN``, a name that is not one of :data:`MAPPABLE`,
        a name or a source column given twice.

    Examples
    --------
    >>> parse_columns("system=model_id, value=passed")
    {'system': 'model_id', 'value': 'passed'}
    """
    mapping: dict[str, str] = {}
    for entry in filter(None, (e.strip() for e in str(text).split(","))):
        name, sep, column = (s.strip() for s in entry.partition("="))
        if not sep or not name or not column:
            raise ValueError(f"--columns: {entry!r} is not NAME=COLUMN; write e.g. "
                             "--columns system=model_id,value=passed")
        if name not in MAPPABLE:
            raise ValueError(f"--columns: {name!r} is not a column sigboard reads; map one of "
                             f"{', '.join(MAPPABLE)}")
        if name in mapping:
            raise ValueError(f"--columns: {name} is mapped twice; map it once")
        if column in mapping.values():
            raise ValueError(f"--columns: the source column {column!r} is mapped twice; "
                             "map each source column to one name")
        mapping[name] = column
    if not mapping:
        raise ValueError("--columns: empty; write e.g. --columns system=model_id,value=passed")
    return mapping


def quote_duckdb(name: str) -> str:
    """``name`` as a DuckDB (SQL standard) quoted identifier: ``"a""b"``.

    >>> quote_duckdb('we"ird')
    '"we""ird"'
    """
    _printable(name)
    return '"' + name.replace('"', '""') + '"'


def quote_clickhouse(name: str) -> str:
    """``name`` as a ClickHouse quoted identifier: backticks, with ``\\`` and the backtick
    escaped by a backslash.

    >>> quote_clickhouse("a`b")
    '`a\\\\`b`'
    """
    _printable(name)
    return "`" + name.replace("\\", "\\\\").replace("`", "\\`") + "`"


def _printable(name: str) -> None:
    if not name or any(ord(c) < 32 or c == "\x7f" for c in name):
        raise ValueError(f"{name!r}: a column name must be non-empty, without control characters")


def read_source(data: str, *, columns: dict[str, str] | None = None,
                limits: Limits | None = None) -> Ingested:
    """Read the source DATA names, in the memory-capped child, as an upload is read.

    Parameters
    ----------
    data : str
        ``duckdb:…``, ``chdb:…`` or ``clickhouse://…`` (see the module docstring).
    columns : dict, optional
        Canonical name → the source's column (:func:`parse_columns`).
    limits : Limits, optional
        The upload limits (default: those in force).

    Returns
    -------
    Ingested
        ``kind="results"``, ``format="table"``, the canonical long table, the source's
        label and the SHA-256 of the rows read (the store's duplicate key).

    Raises
    ------
    DataContractError
        Every problem of the source (unreachable, no such file or table, a mapped column
        it lacks, a required column absent, a limit passed), naming the source, the
        column and the fix; nothing is stored.
    ValueError
        A DATA spelling or a mapping that is not one.
    """
    import json

    from ..intake._wire import from_table
    from ..io._limits import active_limits
    from ..io._worker import answer_table, run_capped

    spec = parse_source(data)
    limits = limits or active_limits()
    # the source (with any password) goes on stdin, never in the child's argv
    secret = json.dumps({"spec": {**asdict(spec), "table": list(spec.table)},
                         "columns": dict(columns or {})}).encode()
    done = run_capped("engine.sources._child", {"name": spec.label}, secret, spec.label,
                      limits, doing=f"querying {spec.kind}")
    return from_table(answer_table(done, spec.label, limits))
