"""The command line's entry point: the parser of every command and ``main``.

Each group of commands is a module exposing ``register(subparsers)`` (its handlers import
the helpers they share from :mod:`._common`, never this module), so the registry sits at the
top of the CLI and nothing below it imports it back. ``sigboard`` (the console script) and
``python -m engine`` both call :func:`main`.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from .._text import safe_url
from ._common import EXIT_BAD_INPUT, command_url, scrubbed

__all__ = ["build_parser", "main"]


def _registrars() -> list[Callable[[Any], None]]:
    from . import explore, health, judge, ranks, runs, serve, stats, store, watch

    return [stats.register, health.register, runs.register, explore.register, store.register,
            serve.register, ranks.register, watch.register, judge.register]


def _prog() -> str:
    """``sigboard`` when run as the console script, ``python -m engine`` otherwise."""
    return "python -m engine" if Path(sys.argv[0]).name == "__main__.py" else "sigboard"


def build_parser() -> argparse.ArgumentParser:
    from engine import __version__

    parser = argparse.ArgumentParser(prog=_prog(),
                                     description="sigboard: significance-aware leaderboards")
    parser.add_argument("--version", action="version", version=f"sigboard {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    for register in _registrars():
        register(sub)
    return parser


def _database_error(exc: BaseException) -> bool:
    """A SQLAlchemy error about the database itself (unreachable, bad URL, locked)."""
    if "sqlalchemy" not in sys.modules:
        return False
    from sqlalchemy.exc import ArgumentError, OperationalError

    return isinstance(exc, OperationalError | ArgumentError)


def _one_line(exc: BaseException) -> str:
    lines = str(exc).strip().splitlines()
    message = lines[0] if lines else type(exc).__name__
    more = f" (+{len(lines) - 1} more problem(s))" if len(lines) > 1 else ""
    return message + more


def _disk_full(exc: BaseException) -> str | None:
    """The message for a full disk (OSError ENOSPC, SQLite's 'database or disk is full'),
    saying that nothing was stored and what to do; None for anything else."""
    import errno

    text = str(getattr(exc, "orig", None) or exc)
    if getattr(exc, "errno", None) == errno.ENOSPC or "disk is full" in text \
            or "No space left" in text:
        return ("the disk is full (nothing was stored: the upload is one transaction); "
                "free space or move the store, then run the command again")
    return None


def _parse(argv: Sequence[str] | None) -> argparse.Namespace:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    if argv[:1] == ["serve"] and not {"-h", "--help"} & set(argv[1:]):
        # everything after `serve` goes to Streamlit, which has its own --dotted.options
        args = parser.parse_args(["serve"])
        args.streamlit_args = argv[1:]
        return args
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = _parse(argv)
    try:
        code: int = args.handler(args)
    except BrokenPipeError:  # e.g. piped into `head`: the reader has what it wanted
        sys.stderr.close()
        return 0
    except (ValueError, OSError, EOFError) as exc:
        print(scrubbed(f"error: {_disk_full(exc) or _one_line(exc)}", args), file=sys.stderr)
        return EXIT_BAD_INPUT
    except MemoryError:
        print("error: out of memory reading or analysing DATA; narrow it with --benchmark/"
              "--metric or split the file", file=sys.stderr)
        return EXIT_BAD_INPUT
    except RecursionError:
        print("error: DATA is nested too deeply to read (flatten nested values)", file=sys.stderr)
        return EXIT_BAD_INPUT
    except Exception as exc:
        if not _database_error(exc):
            raise
        first = str(getattr(exc, "orig", None) or exc).strip().splitlines() or [type(exc).__name__]
        print(scrubbed(f"error: cannot use the results store {safe_url(command_url(args))}: "
                       f"{_disk_full(exc) or first[0]}", args), file=sys.stderr)
        return EXIT_BAD_INPUT
    return code
