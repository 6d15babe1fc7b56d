"""What every command shares: reading DATA, the store URL, output and error messages.

This is the CLI's entry point, so it is where the environment is read
(``SIGBOARD_DB_URL`` / ``SIGBOARD_DB_PATH``, see :func:`store_url`, and the upload
limits ``SIGBOARD_MAX_*``, see :class:`engine.Limits`); the engine below it takes
explicit arguments only. pandas, the statistics and the store are imported inside
the functions that use them, so ``--help`` and each command pay only for what they use.
"""

from __future__ import annotations

import argparse
import contextlib
import difflib
import importlib
import json
import math
import os
import sys
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from .._text import masked, safe_url
from ..sources import is_source

if TYPE_CHECKING:
    import pandas as pd

    from .._contract import MetricSpec
    from .._matrix import ScoreMatrix
    from ..intake import Ingested
    from ..io._limits import Limits
    from ..store import ResultsStore

__all__ = ["Loaded", "add_data_options", "closest", "emit", "load_data",
           "open_existing", "safe_url", "scrubbed", "store_url", "cli_uploader", "check_size",
           "upload_limits", "command_url", "EXIT_BAD_INPUT", "OUTPUT_FORMATS",
           "add_format_option", "output_format", "wants_json", "importing_meanwhile",
           "DataArguments", "add_columns_option", "source_ingest"]

EXIT_BAD_INPUT = 2
DEFAULT_DB_PATH = os.path.join("var", "sigboard.db")


def store_url(explicit: str | None = None) -> str:
    """``explicit``, else ``$SIGBOARD_DB_URL``, else SQLite at ``$SIGBOARD_DB_PATH``
    (default ``var/sigboard.db`` under the current directory)."""
    if explicit:
        return explicit
    url = os.environ.get("SIGBOARD_DB_URL", "").strip()
    if url:
        return url
    path = os.environ.get("SIGBOARD_DB_PATH", "").strip() or DEFAULT_DB_PATH
    return f"sqlite:///{os.path.abspath(path)}"


def upload_limits() -> Limits:
    """The upload limits the environment sets (``SIGBOARD_MAX_ROWS``, …; see :class:`engine.Limits`)."""
    from ..io._limits import Limits

    return Limits.from_mapping(os.environ)


def check_size(path: str) -> None:
    """Refuse a file larger than ``SIGBOARD_MAX_BYTES`` from its size on disk, before a byte
    of it is read (a 2 GB file cost 2.17 GB of memory to be told it was too large): a
    compressed file is at least as large once inflated."""
    from ..io._limits import limit_error

    if not os.path.isfile(path):
        return
    size, limits = os.path.getsize(path), upload_limits()
    if size > limits.max_bytes:
        raise limit_error(os.path.basename(path), "max_bytes", limits,
                          f"the file has {size:,} bytes")


def cli_uploader(note: str = "") -> str:
    """The uploader a CLI import records: the OS user and host (``alice@build-7``), not a
    free-text name; ``note`` (``--uploader``) follows in brackets. The database credentials
    are the CLI's write permission, so this says which account used them."""
    import getpass
    import socket

    try:
        user = getpass.getuser()
    except (KeyError, OSError):  # no name for this uid (a container)
        user = f"uid {os.getuid()}"
    who = f"{user}@{socket.gethostname()}"
    return f"{who} ({note.strip()})" if note.strip() else who


def _secrets(args: argparse.Namespace) -> list[str]:
    """Every URL this command was given or read from the environment (their passwords are
    masked in any message: engine._text.masked)."""
    urls = [command_url(args), os.environ.get("SIGBOARD_DB_URL", "")]
    return urls + [d for d in getattr(args, "data", None) or [] if "://" in str(d)]


def scrubbed(message: str, args: argparse.Namespace) -> str:
    """``message`` with every password of the command's URLs (and every part of one) masked."""
    return masked(message, _secrets(args))


def _sqlite_path(url: str) -> str | None:
    """The file of a ``sqlite:///path`` URL; None for other databases and in-memory SQLite."""
    head, sep, rest = url.partition(":///")
    if not sep or not head.startswith("sqlite"):
        return None
    path = rest.split("?", 1)[0]
    return None if path in ("", ":memory:") or path.startswith("file:") else path


def open_existing(url: str, *, create: bool = False) -> ResultsStore:
    """The store at ``url``; a read (``create=False``) of a SQLite file that does not exist
    is refused instead of creating an empty store there."""
    path = _sqlite_path(url)
    if not create and path is not None and not os.path.exists(path):
        raise ValueError(f"no such store: {path} (import results into it first: "
                         f"python -m engine import FILE --db {url})")
    from ..store import open_store

    return open_store(url)


def closest(name: str, names: Iterable[str], what: str) -> str:
    """The message for an unknown system name: close matches by :mod:`difflib`, never
    the list of every name (which can run to thousands)."""
    pool = [str(n) for n in names]
    near = difflib.get_close_matches(name, pool, n=3, cutoff=0.6)
    hint = (f"did you mean {' or '.join(repr(n) for n in near)}?" if near else
            f"none of the {len(pool)} names is close; `python -m engine leaderboard DATA` lists them")
    return f"{what}: unknown system {name!r}; {hint}"


@dataclass(frozen=True)
class Loaded:
    """DATA as read: the long table, and where its metric definitions come from.

    ``specs`` holds the (benchmark, metric) definitions harness logs state; ``url`` is
    set when DATA is a results store (its definitions are then read from the store).
    """

    frame: pd.DataFrame
    url: str | None = None
    specs: dict[tuple[str, str], MetricSpec] = field(default_factory=dict)

    def spec(self, benchmark: str, metric: str) -> MetricSpec:
        """The metric's definition: the store's (for a URL), the log's, or the file reader's."""
        from .._contract import MetricSpec

        if self.url is not None:
            return open_existing(self.url).metric_spec(benchmark, metric)
        if (benchmark, metric) in self.specs:
            return self.specs[(benchmark, metric)]
        from ..io._readers import metric_specs_of

        return metric_specs_of(self.frame).get(metric) or MetricSpec()

    def all_specs(self) -> dict[tuple[str, str], MetricSpec]:
        """Every (benchmark, metric) of the table with its definition."""
        keys = self.frame[["benchmark", "metric"]].drop_duplicates().itertuples(index=False)
        return {(str(b), str(m)): self.spec(str(b), str(m)) for b, m in keys}

    def matrix(self, benchmark: str | None, metric: str | None, *,
               lower_is_better: bool = False) -> ScoreMatrix:
        """The matrix of one (benchmark, metric) with its definition applied; the
        ``--lower-is-better`` flag overrides the declared direction."""
        from .._matrix import build_matrix, pick_slice

        bench, met = pick_slice(self.frame, benchmark, metric)
        spec = self.spec(bench, met)
        if lower_is_better:
            spec = replace(spec, higher_is_better=False)
        return build_matrix(self.frame, benchmark=bench, metric=met, spec=spec)

    def cluster_column(self, benchmark: str, given: str | None) -> str | None:
        """The cluster column of ``benchmark``: ``--cluster COL`` when given (``-``: none),
        else the one declared for it in the store, else none."""
        if given is not None:
            return None if given == NO_CLUSTER else given
        if self.url is None:
            return None
        return open_existing(self.url).benchmark_cluster(benchmark)

    def with_attribute(self, benchmark: str, column: str) -> pd.DataFrame:
        """The rows of ``benchmark`` with its example attribute ``column``: the table's own
        column, or the store's example metadata joined on (rows as they are without it)."""
        rows = self.frame[self.frame["benchmark"] == benchmark]
        if column in rows.columns or self.url is None:
            return rows
        meta = open_existing(self.url).example_metadata(benchmark)
        if column not in meta.columns:
            return rows
        return rows.merge(meta[["example_id", column]].astype({"example_id": str}),
                          on="example_id", how="left")


#: ``--cluster -``: no grouping, even where the store declares a cluster column
NO_CLUSTER = "-"
def _read_one(path: str, usage: bool = False, columns: dict[str, str] | None = None,
              ) -> tuple[pd.DataFrame, dict[tuple[str, str], MetricSpec]]:
    """One DATA argument: a results table or harness logs (a folder, a zip, an Inspect
    ``.eval``, a JSON/JSONL log), read by :func:`engine.ingest` within the upload
    limits ``SIGBOARD_MAX_*``: the whole decision is made in the memory-capped child, so a
    bomb costs only the child and this process parses nothing. An analytics source
    (``duckdb:…``, ``chdb:…``, ``clickhouse://…``) is queried in the same kind of child,
    within the same limits (:func:`engine.sources.read_source`)."""
    if is_source(path):
        from ..sources import read_source

        got = read_source(path, columns=columns, limits=upload_limits())
        return got.frame, dict(got.specs)
    from ..intake import ingest

    check_size(path)  # from its size on disk, before the child starts
    got = ingest(path, limits=upload_limits(), battles=False, siblings=True, usage=usage)
    return got.frame, dict(got.specs)


_armed: tuple[str, ...] = ()  # what the next fork's hook imports (once): importing_meanwhile
_importer: threading.Thread | None = None
_hooked = False


def _import_all(modules: Sequence[str]) -> None:
    for name in modules:
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001 - the command's own import raises it again
            return


def _start_importing() -> None:
    """The fork hook, in this process once ``os.fork`` has returned: the armed imports start
    in a thread."""
    global _armed, _importer
    modules, _armed = _armed, ()
    if modules and _importer is None:
        _importer = threading.Thread(target=_import_all, args=(modules,),
                                     name="sigboard-imports", daemon=True)
        _importer.start()


#: The interpreter's switch interval while the imports run: how long the thread draining
#: the child's pipes may wait for the interpreter lock the importing thread holds, once per
#: pipe read (at most 64 KiB; at the default 5 ms, the 70 reads of a 4.6 MB answer could
#: wait 0.35 s, the child blocked on a full pipe meanwhile).
_SWITCH = 0.0005


@contextlib.contextmanager
def importing_meanwhile(modules: Sequence[str]) -> Iterator[None]:
    """A command's own imports (scipy, its statistics) made while the capped child reads
    DATA, not after.

    :func:`engine.ingest` reads a file in a memory-capped child, a fork of this process when
    that is safe (:mod:`engine.io._fork`), and waits for its answer: on a 10 MB JSON Lines
    file that wait is half a second in which this process only watches, and the command then
    imported scipy and its statistics, another half second. Within the block, the first fork
    of this process starts importing ``modules`` in a thread of this process; the block ends
    once they are imported, so that the process is one thread again (the next ingest may
    fork too). Why the thread starts after the fork, from the ``after_in_parent`` hook of
    :func:`os.register_at_fork` (which only this process runs): the fork is made only while
    this process runs one thread (a lock another thread held would stay held in the child).
    A fresh interpreter instead of a fork (``subprocess`` runs no fork hook) imports nothing
    meanwhile, the command imports as before; a failed import in the thread is left to the
    command's own import, which raises it where it always did.
    """
    global _armed, _importer, _hooked
    if not hasattr(os, "register_at_fork"):
        yield
        return
    if not _hooked:
        os.register_at_fork(after_in_parent=_start_importing)
        _hooked = True
    _armed = tuple(modules)
    interval = sys.getswitchinterval()
    if modules:
        sys.setswitchinterval(min(interval, _SWITCH))
    try:
        yield
    finally:
        _armed = ()
        thread, _importer = _importer, None
        if thread is not None:
            thread.join()
        sys.setswitchinterval(interval)


def load_data(data: Sequence[str], *, meanwhile: Sequence[str] = (),
              usage: bool = False, columns: dict[str, str] | None = None) -> Loaded:
    """Read DATA: result files or harness logs, analytics sources (``duckdb:…``,
    ``chdb:…``, ``clickhouse://…``), or one results-store URL (``sqlite:///…``).

    ``meanwhile``: modules the command needs next, imported while the capped child reads the
    first file (:func:`importing_meanwhile`); ``usage``: harness logs also give their usage
    metrics (tokens, times, cost), read in the same child; ``columns``: the ``--columns``
    mapping of the sources (default: the one the command line gave with DATA,
    :class:`DataArguments`)."""
    columns = columns if columns is not None else getattr(data, "columns", None)
    sources = [d for d in data if is_source(d)]
    if columns and not sources:
        raise ValueError("--columns: maps the columns of a duckdb:, chdb: or clickhouse:// "
                         "DATA argument; a file's columns are read by their names (rename "
                         "them in the file, or read it through duckdb:FILE)")
    if len(data) == 1 and "://" in data[0] and not sources:
        return Loaded(open_existing(data[0]).load_frame(), url=data[0])
    stores = [d for d in data if "://" in d and not is_source(d)]
    if stores:
        raise ValueError(f"DATA: a store URL ({stores[0]}) must be the only DATA argument")
    with importing_meanwhile(meanwhile):
        first = _read_one(data[0], usage, columns) if data else None
    read = ([] if first is None else [first]) + [_read_one(path, usage, columns)
                                                 for path in data[1:]]
    specs = {k: v for _, s in read for k, v in s.items()}
    if len(read) == 1:
        return Loaded(_stating(read[0][0]), specs=specs)
    import pandas as pd

    frames = [f for f, _ in read]
    merged = pd.concat(frames, ignore_index=True)
    merged.attrs["metric_specs"] = {k: v for f in frames
                                    for k, v in f.attrs.get("metric_specs", {}).items()}
    merged.attrs["primary_metrics"] = _primaries([f.attrs.get("primary_metrics") or {}
                                                  for f in frames])
    return Loaded(_stating(merged), specs=specs)


def _primaries(found: Sequence[dict[str, tuple[str, str]]]) -> dict[str, tuple[str, str]]:
    """The harness primary metric of each benchmark over several DATA arguments; one that
    two arguments name differently has none (several metrics then need --metric)."""
    named: dict[str, set[tuple[str, str]]] = {}
    for each in found:
        for bench, chosen in each.items():
            named.setdefault(bench, set()).add((str(chosen[0]), str(chosen[1])))
    return {b: next(iter(c)) for b, c in named.items() if len(c) == 1}


def _stating(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with the statement of a default metric attached: when --metric is omitted
    and the harness logs name the benchmark's primary metric, :func:`engine._matrix.pick_slice`
    takes it, and this says so once on stderr (stdout stays the table or strict JSON)."""
    if frame.attrs.get("primary_metrics"):
        said: set[str] = set()  # once per command, however often the slice is picked

        def say(line: str) -> None:
            if line not in said:
                said.add(line)
                print(f"note: {line}", file=sys.stderr)

        frame.attrs["say_metric_default"] = say
    return frame


class DataArguments(list[str]):
    """DATA as parsed: the arguments, and the ``--columns`` mapping given with them.

    The mapping is read from the parsed namespace when asked for (``--columns`` may come
    before or after DATA on the command line), so every command that hands ``args.data``
    to :func:`load_data` reads its sources with the mapping without passing it along."""

    namespace: argparse.Namespace | None = None

    @property
    def columns(self) -> dict[str, str] | None:
        found = getattr(self.namespace, "columns", None)
        return dict(found) if found else None


class _DataAction(argparse.Action):
    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: Any, option_string: str | None = None) -> None:
        data = DataArguments(values if isinstance(values, list) else [values])
        data.namespace = namespace
        setattr(namespace, self.dest, data)


def _columns_type(text: str) -> dict[str, str]:
    from ..sources import parse_columns

    try:
        return parse_columns(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc).removeprefix("--columns: ")) from None


#: the help of DATA's source spellings (docs/sources.md has the details)
SOURCES_HELP = ("an analytics source: duckdb:PATH_OR_GLOB (Parquet files or a folder; "
                "duckdb:FILE.duckdb?table=T), chdb:PATH?table=DB.T or "
                "clickhouse://HOST:PORT/DB?table=T")


def add_columns_option(parser: argparse.ArgumentParser) -> None:
    """``--columns NAME=COLUMN,…``: the source columns holding the canonical ones."""
    parser.add_argument("--columns", type=_columns_type, default=None,
                        metavar="benchmark=…,system=…,example_id=…,metric=…,value=…",
                        help="for a duckdb:/chdb:/clickhouse:// source whose column names "
                             "differ: the source column of each canonical column (also run)")


def source_ingest(args: argparse.Namespace) -> Callable[..., Ingested]:
    """:func:`engine.ingest`, or for an analytics source DATA the query of that source with
    the command's ``--columns`` (:func:`engine.sources.read_source`): what ``import`` reads
    each argument with (a source is stored like an upload of the same rows)."""
    from ..intake import ingest

    def read(path: str, **options: Any) -> Ingested:
        if not is_source(path):
            if getattr(args, "columns", None):
                raise ValueError(f"{path}: --columns maps the columns of a duckdb:, chdb: or "
                                 "clickhouse:// source, not of a file")
            return ingest(path, **options)
        from ..sources import read_source

        if options.get("system"):
            raise ValueError(f"{path}: --system names the one system of a file; a source's "
                             "rows name theirs (map the column: --columns system=COLUMN)")
        if options.get("format") is not None:
            raise ValueError(f"{path}: --log-format is for harness logs; a source is a table")
        return read_source(path, columns=getattr(args, "columns", None),
                           limits=options.get("limits"))

    return read


def add_data_options(parser: argparse.ArgumentParser) -> None:
    """DATA plus the options every analysis command shares."""
    parser.add_argument("data", nargs="+", metavar="DATA", action=_DataAction,
                        help="result file(s) (CSV/JSONL/Parquet, .gz too), harness output "
                             f"folder(s) or zip(s), a store URL, or {SOURCES_HELP}")
    add_columns_option(parser)
    parser.add_argument("--benchmark", help="benchmark to analyse (needed when DATA has several)")
    parser.add_argument("--metric", help="metric to analyse (needed when DATA has several)")
    add_format_option(parser)


#: what ``--format`` chooses: aligned text for reading, or strict JSON (every digit)
OUTPUT_FORMATS = ("table", "json")


def add_format_option(parser: argparse.ArgumentParser) -> None:
    """``--format table|json``, the output of a command (the one definition of it)."""
    parser.add_argument("--format", choices=OUTPUT_FORMATS, default="table")


def output_format(args: argparse.Namespace) -> str:
    """The output a command was asked for: the one place that reads ``--format``
    (``import`` takes it from :func:`engine.cli.store._import_formats`, which also reads the
    deprecated log-format spelling)."""
    given = getattr(args, "output", None) or getattr(args, "format", None) or "table"
    if given not in OUTPUT_FORMATS:
        raise ValueError(f"--format: one of {'|'.join(OUTPUT_FORMATS)}; got {given!r}")
    return str(given)


def wants_json(args: argparse.Namespace) -> bool:
    """Whether the command writes JSON (and no text around its table)."""
    return output_format(args) == "json"


def jsonable(value: Any) -> Any:
    """``value`` with numpy scalars made Python and NaN/Infinity made null (strict JSON)."""
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [jsonable(v) for v in value]
    if hasattr(value, "tolist") and getattr(value, "ndim", 0) > 0:  # numpy array
        return jsonable(value.tolist())
    if hasattr(value, "item") and not isinstance(value, str):  # numpy scalar
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None  # JSON has no NaN/Infinity
    if value is not None and not isinstance(value, str | int | float | bool):
        try:
            import pandas as pd

            if pd.isna(value):  # pd.NA, NaT
                return None
        except (TypeError, ValueError):
            pass
        return str(value)
    return value


def emit(payload: dict[str, Any] | list[Any], table: pd.DataFrame | None, fmt: str) -> None:
    """Write ``payload`` as strict JSON (full precision), or ``table`` as aligned text
    with numbers rounded for reading."""
    if fmt == "json":
        json.dump(jsonable(payload), sys.stdout, indent=1, ensure_ascii=False, allow_nan=False)
        sys.stdout.write("\n")
    elif table is not None:
        from ._text import table_text

        sys.stdout.write(table_text(table) + "\n")


def command_url(args: argparse.Namespace) -> str:
    """The store a command was using (its --db, URL or store DATA), for a message about it."""
    explicit = getattr(args, "db", None) or getattr(args, "url", None)
    data = getattr(args, "data", None) or []
    if not explicit and len(data) == 1 and "://" in data[0] and not is_source(data[0]):
        explicit = data[0]
    return store_url(explicit)
