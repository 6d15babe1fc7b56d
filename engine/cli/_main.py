"""The command line's entry point: the parser of every command and ``main``.

Each group of commands is a module exposing ``register(subparsers)`` (its handlers import
the helpers they share from :mod:`._common`, never this module), so the registry sits at the
top of the CLI and nothing below it imports it back. ``sigboard`` (the console script) and
``python -m engine`` both call :func:`main`.

:data:`COMMANDS` names each command's module and help line, so a run imports the one
command module it runs (every command module costs its imports, ~0.3 s for all of them on
a loaded machine): the others are listed by name and help only, which is all ``--help``
shows of them.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .._text import safe_url
from ._common import EXIT_BAD_INPUT, command_url, scrubbed

__all__ = ["COMMANDS", "Command", "build_parser", "command_parser", "main"]


def _registrars() -> list[Callable[[Any], None]]:
    """Every group's ``register``, in the order of :data:`COMMANDS` (the full parser)."""
    from . import audit, explore, health, judge, pareto, passk, ranks, runs, serve, stats, store, watch

    return [stats.register, health.register, runs.register, explore.register, store.register,
            serve.register, ranks.register, watch.register, judge.register, passk.register,
            pareto.register, audit.register]


@dataclass(frozen=True)
class Command:
    """One subcommand: the module and function adding its parser, and its ``--help`` line
    (equal to the one that function gives it: tests/cli/test_cli_registry.py)."""

    name: str
    module: str
    register: str
    help: str


COMMANDS: tuple[Command, ...] = (
    Command("leaderboard", "_stats_board", "register_leaderboard",
            "ranked table with significance groups"),
    Command("pairwise", "_stats_pairs", "register",
            "tests for every pair of systems (or combined across metrics/benchmarks with "
            "--across)"),
    Command("compare", "_stats_compare", "register",
            "A/B gate with repeated runs: exit 1 when the candidate is significantly worse"),
    Command("overall", "_stats_board", "register_overall",
            "one leaderboard across benchmarks and metrics"),
    Command("health", "health", "register",
            "benchmark health: noise thresholds, suspect examples, MDD"),
    Command("power", "runs", "register",
            "minimum detectable difference, examples and runs needed, simulated power of "
            "each test"),
    Command("mechanisms", "explore", "register",
            "rankings by mean, median, Bradley–Terry, Elo and TrueSkill side by side, and "
            "how much they disagree"),
    Command("rank-intervals", "explore", "register",
            "Tukey rank intervals from independent means (the Mechanisms page's column; the "
            "rank range is in leaderboard and ranks)"),
    Command("import", "store", "register",
            "validate result files or harness logs and store them (one upload each; "
            "identical content is stored once)"),
    Command("export", "store", "register",
            "the canonical long table as CSV on stdout (what import reads back unchanged)"),
    Command("uploads", "store", "register", "list the uploads in the results store"),
    Command("delete", "store", "register",
            "delete an upload and its rows (`restore` undoes it until the upload is purged)"),
    Command("restore", "store", "register", "undo `delete`: the upload's rows come back"),
    Command("alias", "store", "register",
            "read one system's other names as that system (every command, every page); list "
            "them without arguments"),
    Command("serve", "serve", "register",
            "start the web app (needs sigboard[app]); Streamlit flags such as --server.port "
            "8502 pass through"),
    Command("warm", "serve", "register",
            "compile the engine's Numba kernels now (once after installing; the server does "
            "it before opening its port when they are not cached)"),
    Command("ranks", "ranks", "register",
            "confidence sets for ranks (marginal or simultaneous) and for the τ best "
            "(Mogstad, Romano, Shaikh & Wilhelm 2024)"),
    Command("watch", "watch", "register",
            "anytime-valid A/B gate: a confidence sequence updated per upload (exit 1 when "
            "the candidate is shown worse)"),
    Command("ppi-budget", "judge", "register",
            "human labels needed for a PPI++ interval width or power, from the observed "
            "judge-human correlation"),
    Command("judge-link", "judge", "register", "declare a judge metric's human metric in a store"),
    Command("passk", "passk", "register",
            "pass@k and pass^k over repeated tries with intervals, paired differences of "
            "every pair, flaky tasks"),
    Command("pareto", "pareto", "register",
            "the systems that may be the best trade-off of a score and a cost (Pareto set "
            "with simultaneous confidence boxes)"),
    Command("audit", "audit", "register",
            "audit a public board from its per-item results: ties with #1, separable adjacent "
            "ranks, rank sets, split-half stability of #1"),
)


class _Only:
    """The subparsers of the top parser for a register function that adds several commands
    when one of them runs: that one is added, the others go to a parser nobody reads."""

    def __init__(self, sub: Any, name: str) -> None:
        self._sub, self._name = sub, name

    def add_parser(self, name: str, **kwargs: Any) -> argparse.ArgumentParser:
        if name == self._name:
            parser: argparse.ArgumentParser = self._sub.add_parser(name, **kwargs)
            return parser
        return argparse.ArgumentParser(prog=name, add_help=False)


def _chosen(argv: Sequence[str]) -> str | None:
    """The word of ``argv`` naming its command: the first that is not an option (the top
    parser's options, ``-h`` and ``--version``, take no value)."""
    return next((a for a in argv if a[:1] != "-"), None)


def _prog() -> str:
    """``sigboard`` when run as the console script, ``python -m engine`` otherwise."""
    return "python -m engine" if Path(sys.argv[0]).name == "__main__.py" else "sigboard"


def _top() -> tuple[argparse.ArgumentParser, Any]:
    """The top parser and its subparsers, without commands."""
    from engine import __version__

    parser = argparse.ArgumentParser(prog=_prog(),
                                     description="sigboard: significance-aware leaderboards")
    parser.add_argument("--version", action="version", version=f"sigboard {__version__}")
    return parser, parser.add_subparsers(dest="command", required=True)


def build_parser() -> argparse.ArgumentParser:
    """The parser of every command (imports every command module)."""
    parser, sub = _top()
    for register in _registrars():
        register(sub)
    return parser


def command_parser(command: str | None) -> argparse.ArgumentParser:
    """The parser ``main`` uses: ``command``'s own parser, every other command listed by
    name and help only (so ``--help`` and a wrong name print what :func:`build_parser`
    prints); None, or a name that is no command, lists them all."""
    parser, sub = _top()
    for entry in COMMANDS:
        if entry.name == command:
            module = importlib.import_module(f".{entry.module}", __package__)
            getattr(module, entry.register)(_Only(sub, command))
        else:
            sub.add_parser(entry.name, help=entry.help)
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
    parser = command_parser(_chosen(argv))
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
