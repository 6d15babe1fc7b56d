"""What every command shares: reading DATA, the store URL, output, the parser and ``main``.

This is the CLI's entry point, so it is where the environment is read
(``SIGBOARD_DB_URL`` / ``SIGBOARD_DB_PATH``, see :func:`store_url`); the engine
below it takes explicit arguments only.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any

import pandas as pd

__all__ = ["add_data_options", "declared_higher_is_better", "emit", "load_data", "main",
           "store_url"]

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


def load_data(data: Sequence[str]) -> pd.DataFrame:
    """Read DATA: one or more result files, or one results-store URL (``sqlite:///…``, …)."""
    from .._readers import read_results

    if len(data) == 1 and "://" in data[0]:
        from ..store import open_store

        frame: pd.DataFrame = open_store(data[0]).load_frame()
        return frame
    frames = [read_results(path) for path in data]
    return frames[0] if len(frames) == 1 else pd.concat(frames, ignore_index=True)


def declared_higher_is_better(data: Sequence[str], df: pd.DataFrame, benchmark: str,
                              metric: str) -> bool:
    """The metric direction declared in the store (for a URL) or by the file reader."""
    from .._readers import metric_specs_of

    if len(data) == 1 and "://" in data[0]:
        from ..store import open_store

        return open_store(data[0]).metric_spec(benchmark, metric).higher_is_better
    spec = metric_specs_of(df).get(metric)
    return True if spec is None else spec.higher_is_better


def add_data_options(parser: argparse.ArgumentParser) -> None:
    """DATA plus the options every analysis command shares."""
    parser.add_argument("data", nargs="+", metavar="DATA",
                        help="result file(s) (CSV/JSONL/Parquet, .gz too) or a store URL")
    parser.add_argument("--benchmark", help="benchmark to analyse (needed when DATA has several)")
    parser.add_argument("--metric", help="metric to analyse (needed when DATA has several)")
    parser.add_argument("--format", choices=["table", "json"], default="table")


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if hasattr(value, "item"):  # numpy scalar
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None  # JSON has no NaN/Infinity
    return value


def emit(payload: dict[str, Any] | list[Any], table: pd.DataFrame | None, fmt: str) -> None:
    """Write ``payload`` as JSON, or ``table`` as aligned text."""
    if fmt == "json":
        json.dump(_jsonable(payload), sys.stdout, indent=1, ensure_ascii=False)
        sys.stdout.write("\n")
    elif table is not None:
        with pd.option_context("display.max_rows", None, "display.max_columns", None,
                               "display.width", 200):
            sys.stdout.write(table.to_string(index=False) + "\n")


def _registrars() -> list[Callable[[Any], None]]:
    from . import health, stats, store

    return [stats.register, health.register, store.register]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m engine",
                                     description="sigboard: significance-aware leaderboards")
    sub = parser.add_subparsers(dest="command", required=True)
    for register in _registrars():
        register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        code: int = args.handler(args)
    except BrokenPipeError:  # e.g. piped into `head`: the reader has what it wanted
        sys.stderr.close()
        return 0
    except (ValueError, OSError, EOFError) as exc:
        first = str(exc).strip().splitlines()
        lines = len(first)
        message = first[0] if first else type(exc).__name__
        more = f" (+{lines - 1} more problem(s))" if lines > 1 else ""
        print(f"error: {message}{more}", file=sys.stderr)
        return EXIT_BAD_INPUT
    return code
