"""The static table of commands (``engine.cli._main.COMMANDS``) against the parser every
command module builds: the same names in the same order with the same help lines, and the
parser of one command (what ``main`` uses) prints what the full parser prints."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

import pytest

from engine.cli._main import COMMANDS, build_parser, command_parser

ROOT = Path(__file__).resolve().parents[2]


def _sub(parser: argparse.ArgumentParser) -> argparse._SubParsersAction:  # type: ignore[type-arg]
    return next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))


def test_the_table_lists_every_command_with_its_help_in_order() -> None:
    full = _sub(build_parser())
    assert [(a.dest, a.help) for a in full._choices_actions] == \
        [(c.name, c.help) for c in COMMANDS]


@pytest.mark.parametrize("command", [None, *(c.name for c in COMMANDS)])
def test_one_commands_parser_prints_what_the_full_parser_prints(command: str | None) -> None:
    full, lazy = build_parser(), command_parser(command)
    assert lazy.format_help() == full.format_help()
    if command is not None:
        assert _sub(lazy).choices[command].format_help() == \
            _sub(full).choices[command].format_help()


def _cli_modules_after(argv: list[str]) -> set[str]:
    """The ``engine.cli`` modules a fresh process has loaded after parsing ``argv``."""
    code = ("import sys, contextlib, io\n"
            "from engine.cli._main import _chosen, command_parser\n"
            f"argv = {argv!r}\n"
            "with contextlib.suppress(SystemExit), contextlib.redirect_stdout(io.StringIO()):\n"
            "    command_parser(_chosen(argv)).parse_args(argv)\n"
            "print(' '.join(sorted(m for m in sys.modules if m.startswith('engine.cli.'))))\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    return set(result.stdout.split())


COMMAND_MODULES = {"engine.cli." + m for m in (
    "stats", "_stats_board", "_stats_pairs", "_stats_compare", "health", "runs", "explore",
    "store", "serve", "ranks", "watch", "judge")}


def test_a_command_imports_no_other_command_module() -> None:
    loaded = _cli_modules_after(["compare", "--help"])
    assert loaded & COMMAND_MODULES == {"engine.cli._stats_compare"}


def test_help_imports_no_command_module() -> None:
    assert _cli_modules_after(["--help"]) & COMMAND_MODULES == set()
