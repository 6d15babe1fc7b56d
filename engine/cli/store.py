"""Store commands: ``import``, ``uploads`` (list) and ``delete``.

    python -m engine import FILE [FILE ...] [--db URL] [--on-conflict reject|replace|add-run]
    python -m engine uploads [URL] [--db URL]
    python -m engine delete UPLOAD_ID [URL] [--db URL]

The database is ``--db`` or the positional URL, else ``$SIGBOARD_DB_URL``, else the
SQLite file ``var/sigboard.db`` (see :func:`engine.cli._common.store_url`).
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from ._common import emit, store_url

if TYPE_CHECKING:
    from .._contract import MetricSpec

__all__ = ["register"]


def _db_options(parser: argparse.ArgumentParser, *, positional: bool) -> None:
    if positional:
        parser.add_argument("url", nargs="?", metavar="URL",
                            help="results store URL (sqlite:///…, postgresql+psycopg://…)")
    parser.add_argument("--db", help="results store URL (default: $SIGBOARD_DB_URL or "
                                     "the SQLite file var/sigboard.db)")
    parser.add_argument("--format", choices=["table", "json"], default="table")


def _url(args: argparse.Namespace) -> str:
    url: str | None = getattr(args, "db", None) or getattr(args, "url", None)
    if url is not None and "://" not in url:
        raise ValueError(f"{url}: not a database URL; write e.g. sqlite:///path/to/file.db")
    return store_url(url)


def _specs(args: argparse.Namespace) -> dict[str | tuple[str, str], MetricSpec] | None:
    from .._contract import MetricSpec

    names = {*args.lower_is_better, *args.binary, *args.numeric}
    both = set(args.binary) & set(args.numeric)
    if both:
        raise ValueError(f"metric(s) {', '.join(sorted(both))} declared both binary and numeric")
    if not names:
        return None
    return {m: MetricSpec(higher_is_better=m not in args.lower_is_better,
                          binary=True if m in args.binary else (False if m in args.numeric
                                                                else None))
            for m in names}


def _import(args: argparse.Namespace) -> int:
    import pandas as pd

    from ..store import open_store

    store = open_store(_url(args))
    reports = []
    for path in args.files:
        report = store.import_file(path, uploader=args.uploader, note=args.note,
                                   on_conflict=args.on_conflict, metrics=_specs(args))
        reports.append({"file": path, "upload_id": report.upload_id, "rows": report.rows,
                        "duplicate_of": report.duplicate_of, "replaced": report.replaced,
                        "message": report.message})
    emit({"uploads": reports, "data_version": store.data_version()},
         pd.DataFrame(reports, columns=["file", "upload_id", "rows", "duplicate_of", "replaced"]),
         args.format)
    return 0


def _uploads(args: argparse.Namespace) -> int:
    from ..store import open_store

    store = open_store(_url(args))
    table = store.uploads()
    records: list[dict[str, Any]] = table.to_dict(orient="records")  # type: ignore[assignment]
    emit({"uploads": records, "data_version": store.data_version()},
         table.drop(columns=["content_hash"]), args.format)
    return 0


def _delete(args: argparse.Namespace) -> int:
    import pandas as pd

    from ..store import open_store

    store = open_store(_url(args))
    removed = store.delete_upload(args.upload_id)
    emit({"upload_id": args.upload_id, "rows_removed": removed,
          "data_version": store.data_version()},
         pd.DataFrame([{"upload_id": args.upload_id, "rows_removed": removed}]), args.format)
    return 0


def register(subparsers: Any) -> None:
    """Add ``import``, ``uploads`` and ``delete`` to the ``python -m engine`` parser."""
    p = subparsers.add_parser("import", help="validate result files and store them "
                              "(one upload each; identical content is stored once)")
    p.add_argument("files", nargs="+", metavar="FILE",
                   help="CSV/TSV/JSONL/JSON/Parquet, optionally gzipped")
    _db_options(p, positional=False)
    p.add_argument("--on-conflict", choices=["reject", "replace", "add-run"], default="reject",
                   help="when rows collide with stored ones: reject the upload (default), "
                        "replace the stored rows of those systems, or store as a new run")
    p.add_argument("--uploader", default="", help="who uploads (provenance)")
    p.add_argument("--note", default="", help="free-text note stored with the upload")
    p.add_argument("--lower-is-better", action="append", default=[], metavar="METRIC",
                   help="declare METRIC lower-is-better (repeatable)")
    p.add_argument("--binary", action="append", default=[], metavar="METRIC",
                   help="declare METRIC binary: values must be 0 or 1 (repeatable)")
    p.add_argument("--numeric", action="append", default=[], metavar="METRIC",
                   help="declare METRIC numeric even when its values are 0/1 (repeatable)")
    p.set_defaults(handler=_import)

    p = subparsers.add_parser("uploads", help="list the uploads in the results store")
    _db_options(p, positional=True)
    p.set_defaults(handler=_uploads)

    p = subparsers.add_parser("delete", help="delete an upload and its rows")
    p.add_argument("upload_id", type=int, metavar="UPLOAD_ID")
    _db_options(p, positional=True)
    p.set_defaults(handler=_delete)
