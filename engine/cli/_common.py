"""What every command shares: reading DATA, the store URL, output, the parser and ``main``.

This is the CLI's entry point, so it is where the environment is read
(``SIGBOARD_DB_URL`` / ``SIGBOARD_DB_PATH``, see :func:`store_url`); the engine
below it takes explicit arguments only. pandas, the statistics and the store are
imported inside the functions that use them, so ``--help`` and each command pay
only for what they use.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

    from .._contract import MetricSpec
    from .._matrix import ScoreMatrix

__all__ = ["Loaded", "add_data_options", "emit", "load_data", "main", "store_url"]

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


@dataclass(frozen=True)
class Loaded:
    """DATA as read: the long table, and where its metric definitions come from."""

    frame: pd.DataFrame
    url: str | None = None

    def spec(self, benchmark: str, metric: str) -> MetricSpec:
        """The metric's definition: the store's (for a URL) or the file reader's."""
        from .._contract import MetricSpec

        if self.url is not None:
            from ..store import open_store

            return open_store(self.url).metric_spec(benchmark, metric)
        from .._readers import metric_specs_of

        return metric_specs_of(self.frame).get(metric) or MetricSpec()

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


def load_data(data: Sequence[str]) -> Loaded:
    """Read DATA: one or more result files, or one results-store URL (``sqlite:///…``, …)."""
    import pandas as pd

    from .._readers import read_results

    if len(data) == 1 and "://" in data[0]:
        from ..store import open_store

        return Loaded(open_store(data[0]).load_frame(), url=data[0])
    frames = [read_results(path) for path in data]
    if len(frames) == 1:
        return Loaded(frames[0])
    merged = pd.concat(frames, ignore_index=True)
    merged.attrs["metric_specs"] = {k: v for f in frames
                                    for k, v in f.attrs.get("metric_specs", {}).items()}
    return Loaded(merged)


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
        import pandas as pd

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
