"""Store commands: ``import``, ``export``, ``uploads`` (list), ``delete`` and ``restore``.

    python -m engine import FILE|DIR|ZIP [...] [--db URL] [--log-format F] [--system NAME]
                                              [--on-conflict reject|replace|add-run]
                                              [--format table|json]
    python -m engine export DATA [--benchmark B] > results.csv
    python -m engine export DATA --format eee --out DIR [--alpha A]
    python -m engine uploads [URL] [--db URL]
    python -m engine delete UPLOAD_ID [URL] [--db URL]
    python -m engine restore UPLOAD_ID [URL] [--db URL]
    python -m engine alias [ALIAS SYSTEM] [--remove ALIAS] [--history] [--db URL]

The database is ``--db`` or the positional URL, else ``$SIGBOARD_DB_URL``, else the
SQLite file ``var/sigboard.db`` (see :func:`engine.cli._common.store_url`). Only
``import`` creates a store; reading a SQLite file that is not there is an error.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ._common import (
    OUTPUT_FORMATS,
    add_columns_option,
    add_format_option,
    check_size,
    cli_uploader,
    emit,
    load_data,
    open_existing,
    output_format,
    safe_url,
    source_ingest,
    store_url,
    upload_limits,
)

if TYPE_CHECKING:
    import pandas as pd

    from .._contract import MetricSpec
    from ..store import ResultsStore, UploadReport

__all__ = ["CANONICAL_COLUMNS", "HARNESS_FORMATS", "register"]

#: engine.HARNESS_FORMATS, spelt out so that ``--help`` needs no pandas (a test keeps them equal)
HARNESS_FORMATS = ("lm-eval", "inspect", "helm", "lighteval", "openai-evals", "promptfoo", "eee",
                   "long", "wide")
#: the first columns of ``export``; metadata columns follow
CANONICAL_COLUMNS = ("benchmark", "system", "example_id", "metric", "value", "run")


def _db_options(parser: argparse.ArgumentParser, *, positional: bool, output: bool = True) -> None:
    if positional:
        parser.add_argument("url", nargs="?", metavar="URL",
                            help="results store URL (sqlite:///…, postgresql+psycopg://…)")
    parser.add_argument("--db", help="results store URL (default: $SIGBOARD_DB_URL or "
                                     "the SQLite file var/sigboard.db)")
    if output:
        add_format_option(parser)


def _url(args: argparse.Namespace) -> str:
    url: str | None = getattr(args, "db", None) or getattr(args, "url", None)
    if url is not None and "://" not in url:
        raise ValueError(f"{url}: not a database URL; write e.g. sqlite:///path/to/file.db")
    return store_url(url)


def _specs(args: argparse.Namespace) -> dict[str | tuple[str, str], MetricSpec]:
    from .._contract import MetricSpec

    names = {*args.lower_is_better, *args.binary, *args.numeric}
    both = set(args.binary) & set(args.numeric)
    if both:
        raise ValueError(f"metric(s) {', '.join(sorted(both))} declared both binary and numeric")
    return {m: MetricSpec(higher_is_better=m not in args.lower_is_better,
                          binary=True if m in args.binary else (False if m in args.numeric
                                                                else None))
            for m in names}


def _import_formats(args: argparse.Namespace) -> tuple[str, str | None]:
    """(output format, forced log format): ``--format`` is the output, ``--log-format`` the
    logs'. The old spelling, a log format given to ``--format``, still works for now, with a
    deprecation note on stderr (stdout stays the table or the JSON)."""
    given = args.format or []
    output = [f for f in given if f in OUTPUT_FORMATS]
    old = [f for f in given if f not in OUTPUT_FORMATS]
    if len(set(output)) > 1:
        raise ValueError(f"--format: at most one output format ({'|'.join(OUTPUT_FORMATS)}); "
                         f"got {given!r}")
    if old:
        print(f"import: --format {old[0]} is deprecated for the log format: write --log-format "
              f"{old[0]} (--format sets the output, {'|'.join(OUTPUT_FORMATS)})", file=sys.stderr)
    logs = {*old, *([args.log_format] if args.log_format else [])}
    if len(logs) > 1:
        raise ValueError(f"--log-format: one log format ({'|'.join(HARNESS_FORMATS)}); got "
                         f"{', '.join(sorted(logs))}")
    return (output[0] if output else "table"), (logs.pop() if logs else None)


def _import_one(store: ResultsStore, path: str, args: argparse.Namespace, fmt: str | None,
                declared: dict[str | tuple[str, str], MetricSpec]) -> UploadReport:
    """Read one FILE/DIR/ZIP (harness logs, a results table or a battle list) and store it
    as one upload. :func:`engine.ingest` makes the whole decision once, in the
    memory-capped child, which reads the file from disk and returns its SHA-256 (the
    duplicate check) with the frame: this process holds none of the file's bytes."""
    from ..harness._usage import usage_line
    ingest = source_ingest(args)  # engine.ingest, or the query of a duckdb:/chdb:/… source

    check_size(path)  # from its size on disk, before a byte is read
    named = {k: v for k, v in declared.items() if isinstance(k, str)}
    got = ingest(path, format=fmt, system=args.system, limits=upload_limits(),
                 metrics=named or None, usage=True)  # a harness log's tokens, times, cost too
    label = got.label
    if got.kind == "battles":  # model_a, model_b, winner: pairwise judgements, not scores
        return _import_battles(store, got.frame, got.content_hash, label, args)
    if got.format != "table":
        print(f"{label}: {got.format} log: {got.report}", file=sys.stderr)
        if line := usage_line(got.frame):
            print(f"{label}: {line}", file=sys.stderr)
    specs: dict[str | tuple[str, str], MetricSpec] = dict(got.specs.items())
    report = store.import_frame(got.frame, filename=label, content_hash=got.content_hash,
                                uploader=cli_uploader(args.uploader), note=args.note,
                                on_conflict=args.on_conflict,
                                metrics={**specs, **declared} or None)
    if got.clusters and report.upload_id is not None:  # the log's stderr(cluster=...)
        for line in store.declare_log_clusters(got.clusters, set_by=cli_uploader(args.uploader)):
            print(f"{label}: {line}", file=sys.stderr)
    return report


def _import_battles(store: ResultsStore, battles: pd.DataFrame, content_hash: str | None,
                    label: str, args: argparse.Namespace) -> UploadReport:
    """A battle list (pairwise judgements: model_a, model_b, winner), checked in the child,
    stored as one upload of the arena ``--arena`` (default: the file's name without its extension)."""
    arena = args.arena or Path(label).name.split(".")[0]
    return store.import_battles(battles, arena=arena, filename=label, content_hash=content_hash,
                                uploader=cli_uploader(args.uploader), note=args.note)


def _import(args: argparse.Namespace) -> int:
    import pandas as pd

    output, fmt = _import_formats(args)
    declared = _specs(args)
    url = _url(args)
    for path in args.files:  # before the store opens: nothing of it is read as an upload
        _not_the_store(path, url)
    store = open_existing(url, create=True)
    reports = []
    for path in args.files:
        report = _import_one(store, path, args, fmt, declared)
        if report.unpaired:  # example ids kept apart from the store's: their content differs
            print(report.message, file=sys.stderr)
        # a clickhouse:// source's password is not echoed back
        reports.append({"file": safe_url(path), "upload_id": report.upload_id,
                        "rows": report.rows,
                        "duplicate_of": report.duplicate_of, "replaced": report.replaced,
                        "unpaired": report.unpaired, "message": report.message})
    clusters = _declare_cluster(store, args.cluster, reports) if args.cluster else {}
    emit({"uploads": reports, "data_version": store.data_version(),
          **({"cluster": clusters} if clusters else {})},
         pd.DataFrame(reports, columns=["file", "upload_id", "rows", "duplicate_of", "replaced"]),
         output)
    return 0


def _not_the_store(path: str, url: str) -> None:
    """Refuse to read the SQLite store's own files as an upload (``import var/``): besides
    being no results file, reading them here and closing the descriptor would drop the
    file locks this process's store connections hold (see engine.store._sqlite_read)."""
    import os

    from ..store._connect import sqlite_path

    db = sqlite_path(url)
    if db is None:
        return
    own = [p for p in (db, db.with_name(db.name + "-wal"), db.with_name(db.name + "-shm"))
           if p.exists()]
    given = Path(path)
    inside = ([given] if not given.is_dir() else
              [Path(top) / name for top, _, names in os.walk(given) for name in names])
    for candidate in inside:
        if candidate.exists() and any(os.path.samefile(candidate, p) for p in own):
            where = "is" if candidate == given else f"holds {candidate}, which is"
            raise ValueError(f"{path}: {where} the results store's own file ({db}); import "
                             "result files or harness logs, not the store (to copy a store, "
                             "use `sigboard export`)")


def _declare_cluster(store: ResultsStore, column: str, reports: list[dict[str, Any]]
                     ) -> dict[str, str]:
    """``import --cluster COL``: COL becomes the declared cluster column
    of every benchmark of these uploads whose examples carry it; the others are named on
    stderr with the fix. Returns benchmark -> column declared."""
    ids = [r["upload_id"] if r["upload_id"] is not None else r["duplicate_of"] for r in reports]
    benchmarks = sorted({str(b) for i in ids if i is not None
                         for b in store.upload_contents(int(i))["benchmark"]})
    declared = {}
    for benchmark in benchmarks:
        try:
            store.set_benchmark_cluster(benchmark, column, set_by=cli_uploader())
            declared[benchmark] = column
        except ValueError as exc:
            print(f"import --cluster: {exc}; the upload is stored without it", file=sys.stderr)
    return declared


def _with_store_metadata(store: ResultsStore, df: pd.DataFrame) -> pd.DataFrame:
    """The stored rows with each benchmark's system and example metadata and each
    observation's texts (e.g. ``output``) joined back."""
    import pandas as pd

    parts = []
    for bench, part in df.groupby("benchmark", sort=False):
        for meta, key in ((store.system_metadata(str(bench)), "system"),
                          (store.example_metadata(str(bench)), "example_id")):
            if len(meta.columns) > 1:
                part = part.merge(meta, on=key, how="left", suffixes=("", "_meta"))
        texts = store.benchmark_outputs(str(bench))
        if len(texts.columns) > 3:
            run = part["run"] if "run" in part.columns else 0
            part = (part.assign(run=run).merge(texts, on=["system", "example_id", "run"], how="left",
                                               suffixes=("", "_text")))
        parts.append(part)
    return pd.concat(parts, ignore_index=True) if parts else df


def canonical(df: pd.DataFrame) -> pd.DataFrame:
    """``benchmark, system, example_id, metric, value, run`` then metadata columns
    (``run`` 0 for single runs, as the store keeps them)."""
    if "run" not in df.columns:
        df = df.assign(run=0)
    rest = [c for c in df.columns if c not in CANONICAL_COLUMNS]
    return df[[*CANONICAL_COLUMNS, *rest]]


def _export(args: argparse.Namespace) -> int:
    loaded = load_data(args.data)
    df = loaded.frame
    if args.benchmark is not None:
        present = [str(b) for b in df["benchmark"].unique()]
        if args.benchmark not in present:
            from .._matrix import close_names, listed

            near = close_names(args.benchmark, present)
            raise ValueError(f"--benchmark: {args.benchmark!r} is not in DATA; "
                             + (f"did you mean {' or '.join(map(repr, near))}? " if near else "")
                             + f"present: {listed(present)}")
        df = df[df["benchmark"] == args.benchmark]
    if loaded.url is not None:
        df = _with_store_metadata(open_existing(loaded.url), df)
    if args.format == "eee":
        return _export_eee(args, loaded, df)
    if args.out is not None:
        raise ValueError("--out: only with --format eee (the CSV goes to stdout)")
    canonical(df).to_csv(sys.stdout, index=False, lineterminator="\n")
    return 0


def _export_eee(args: argparse.Namespace, loaded: Any, df: pd.DataFrame) -> int:
    """``export --format eee --out DIR``: Every Eval Ever records with sigboard's intervals."""
    from .. import __version__
    from ..report._eee import write_eee

    if args.out is None:
        raise ValueError("--out: --format eee writes a folder of records; give --out DIR")
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise ValueError(f"--out: {out} is a file; give a folder (created when missing)")
    specs = {k: v for k, v in loaded.all_specs().items()
             if k[0] in set(df["benchmark"].astype(str))}
    got = write_eee(df, out, specs=specs, alpha=args.alpha, library_version=__version__)
    print(f"export: {got.aggregates} EEE aggregate record(s) and {got.instances} instance "
          f"record(s) written under {out / 'data'} (schema 0.3.0)", file=sys.stderr)
    return 0


def _emit_store(store: ResultsStore, payload: dict[str, Any], table: pd.DataFrame,
                fmt: str) -> None:
    """``payload`` with the store's data version after the command (JSON), or ``table``."""
    emit({**payload, "data_version": store.data_version()}, table, fmt)


def _emit_listing(store: ResultsStore, key: str, table: pd.DataFrame, shown: pd.DataFrame,
                  fmt: str) -> None:
    """A stored listing: every column of ``table`` as JSON records under ``key``, or ``shown``."""
    records: list[dict[str, Any]] = table.to_dict(orient="records")  # type: ignore[assignment]
    _emit_store(store, {key: records}, shown, fmt)


def _upload_change(args: argparse.Namespace, change: Callable[[ResultsStore, int], int],
                   counted: str) -> int:
    """``delete``/``restore`` one upload; print its id and the rows it moved (``counted``)."""
    import pandas as pd

    store = open_existing(_url(args))
    row = {"upload_id": args.upload_id, counted: change(store, args.upload_id)}
    _emit_store(store, row, pd.DataFrame([row]), output_format(args))
    return 0


def _uploads(args: argparse.Namespace) -> int:
    store = open_existing(_url(args))
    table = store.uploads()
    _emit_listing(store, "uploads", table, table.drop(columns=["content_hash"]),
                  output_format(args))
    return 0


def _delete(args: argparse.Namespace) -> int:
    return _upload_change(args, lambda store, upload_id: store.delete_upload(
        upload_id, deleted_by=cli_uploader()), "rows_removed")


def _restore(args: argparse.Namespace) -> int:
    return _upload_change(args, lambda store, upload_id: store.restore_upload(
        upload_id, restored_by=cli_uploader()), "rows_restored")


def _alias(args: argparse.Namespace) -> int:
    import pandas as pd

    store = open_existing(_url(args))
    if args.remove:
        store.remove_alias(args.remove, removed_by=cli_uploader())
    elif args.names:
        if len(args.names) != 2:
            raise ValueError("alias: give a stored name and the system to read it as "
                             f"(ALIAS SYSTEM); got {len(args.names)} name(s)")
        store.set_alias(args.names[0], args.names[1], set_by=cli_uploader())
    if args.history:
        table = store.alias_history()
    else:
        current = store.aliases()
        table = pd.DataFrame({"alias": list(current), "system": list(current.values())})
    _emit_listing(store, "aliases", table, table, output_format(args))
    return 0


def register(subparsers: Any) -> None:
    """Add ``import``, ``export``, ``uploads``, ``delete`` and ``restore`` to the
    ``python -m engine`` parser."""
    p = subparsers.add_parser("import", help="validate result files or harness logs and store "
                              "them (one upload each; identical content is stored once)")
    p.add_argument("files", nargs="+", metavar="FILE|DIR|ZIP",
                   help="CSV/TSV/JSONL/JSON/Parquet (optionally gzipped), or an evaluation "
                        "harness's output: a folder, a zip of it, or a log file; or a "
                        "duckdb:/chdb:/clickhouse:// source (see --columns)")
    add_columns_option(p)
    _db_options(p, positional=False, output=False)
    p.add_argument("--log-format", choices=HARNESS_FORMATS, default=None, metavar="F",
                   help="the logs' format, one of " + "|".join(HARNESS_FORMATS)
                   + " (default: detected)")
    # action="append": the old spelling (a log format given to --format) is still read, with
    # a deprecation note; --format table --format json stays an error
    p.add_argument("--format", action="append", choices=[*OUTPUT_FORMATS, *HARNESS_FORMATS],
                   metavar="table|json", help="the output: table (default) or json; a log "
                   "format here (--format inspect) is the deprecated spelling of --log-format")
    p.add_argument("--system", help="system name for logs that do not name the model "
                                    "(e.g. an lm-eval samples file without results_*.json)")
    p.add_argument("--on-conflict", choices=["reject", "replace", "add-run"], default="reject",
                   help="when rows collide with stored ones: reject the upload (default), "
                        "replace the stored rows of those systems, or store as a new run")
    p.add_argument("--uploader", default="",
                   help="a note on who uploads; the upload records the OS user and host "
                        "(user@host) in any case, with this after it in brackets")
    p.add_argument("--note", default="", help="free-text note stored with the upload")
    p.add_argument("--arena", default=None, metavar="NAME",
                   help="for a battle list (model_a, model_b, winner): the arena it belongs "
                        "to (default: the file's name without its extension)")
    p.add_argument("--lower-is-better", action="append", default=[], metavar="METRIC",
                   help="declare METRIC lower-is-better (repeatable)")
    p.add_argument("--binary", action="append", default=[], metavar="METRIC",
                   help="declare METRIC binary: values must be 0 or 1 (repeatable)")
    p.add_argument("--numeric", action="append", default=[], metavar="METRIC",
                   help="declare METRIC numeric even when its values are 0/1 (repeatable)")
    p.add_argument("--cluster", default=None, metavar="COL",
                   help="declare the example attribute COL (e.g. passage, task family) the "
                        "cluster column of the uploaded benchmarks: the pages group examples "
                        "by it by default (cluster-robust tests and intervals)")
    p.set_defaults(handler=_import)

    p = subparsers.add_parser("export", help="the canonical long table as CSV on stdout "
                              "(what import reads back unchanged)")
    p.add_argument("data", nargs="+", metavar="DATA",
                   help="result file(s), harness output folder(s) or zip(s), or a store URL")
    p.add_argument("--benchmark", help="export one benchmark only")
    p.add_argument("--format", choices=["csv", "eee"], default="csv",
                   help="csv (default): the long table on stdout; eee: Every Eval Ever records "
                        "(schema 0.3.0) under --out DIR, with each score's interval, standard "
                        "error and the test behind its rank filled in")
    p.add_argument("--out", default=None, metavar="DIR",
                   help="the folder the EEE records go to (DIR/data/<benchmark>/<developer>/"
                        "<model>/<uuid>.json and _samples.jsonl)")
    p.add_argument("--alpha", type=float, default=0.05,
                   help="EEE: intervals at 1 - alpha, the rank tests at alpha (default 0.05)")
    p.set_defaults(handler=_export)

    p = subparsers.add_parser("uploads", help="list the uploads in the results store")
    _db_options(p, positional=True)
    p.set_defaults(handler=_uploads)

    p = subparsers.add_parser("delete", help="delete an upload and its rows (`restore` "
                              "undoes it until the upload is purged)")
    p.add_argument("upload_id", type=int, metavar="UPLOAD_ID")
    _db_options(p, positional=True)
    p.set_defaults(handler=_delete)

    p = subparsers.add_parser("restore", help="undo `delete`: the upload's rows come back")
    p.add_argument("upload_id", type=int, metavar="UPLOAD_ID")
    _db_options(p, positional=True)
    p.set_defaults(handler=_restore)

    p = subparsers.add_parser("alias", help="read one system's other names as that system "
                              "(every command, every page); list them without arguments")
    p.add_argument("names", nargs="*", metavar="ALIAS SYSTEM",
                   help="the stored name and the system name to read it as")
    p.add_argument("--remove", metavar="ALIAS", help="read ALIAS as its own name again")
    p.add_argument("--history", action="store_true", help="every alias set or removed")
    _db_options(p, positional=False)
    p.set_defaults(handler=_alias)
