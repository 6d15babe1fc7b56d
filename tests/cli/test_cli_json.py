"""The CLI owns its output: its JSON is built in engine/cli/_json.py from result fields, its
exit codes computed there, its warnings told apart by kind (engine._notes.Note)."""

from __future__ import annotations

import argparse
import ast
from pathlib import Path

import pytest

from engine._notes import NOTE_KINDS, Note
from engine.cli._common import output_format, wants_json
from engine.cli._json import ab_exit, compare_exit
from engine.io._readers import read_results
from engine.stats._ab import compare_ab

CLI = Path(__file__).resolve().parents[2] / "engine" / "cli"
RUNS = Path(__file__).resolve().parent / "fixtures" / "runs.csv"


def _calls(method: str) -> list[tuple[str, int, int]]:
    """(module, line, number of arguments) of every ``x.method(...)`` call in engine/cli."""
    found = []
    for path in sorted(CLI.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr == method):
                found.append((path.name, node.lineno, len(node.args) + len(node.keywords)))
    return found


def test_no_handler_asks_a_result_for_its_json() -> None:
    # DataFrame.to_dict(orient=...) is a table's rows; a bare .to_dict() is a result's JSON
    assert [c for c in _calls("to_dict") if c[2] == 0] == []


def test_no_warning_is_matched_by_its_words() -> None:
    # startswith is left only for column names (_text) and URLs (_common)
    assert {name for name, _, _ in _calls("startswith")} <= {"_text.py", "_common.py"}


def test_a_note_has_one_of_the_kinds() -> None:
    note = Note("cannot-separate", "No pair can be significant.")
    assert str(note) == note.text and note.kind in NOTE_KINDS
    with pytest.raises(ValueError, match="kind: must be one of"):
        Note("unreliable", "x")  # type: ignore[arg-type]


@pytest.mark.parametrize("options", [{}, {"margin": 0.01}, {"margin": 0.2}])
@pytest.mark.parametrize("pair", [("base", "cand"), ("cand", "base")])
def test_the_cli_exit_code_is_the_ab_decision(pair: tuple[str, str], options: dict) -> None:
    """The code the CLI computes from the test's fields is the result's own field's (which
    the engine keeps for the app's pages)."""
    frame = read_results(RUNS)
    res = compare_ab(frame, baseline=pair[0], candidate=pair[1], **options)
    assert ab_exit(res) == res.exit_code
    assert compare_exit(res, None, [], allow_missing=False) == res.exit_code
    missing = [Note("missing-not-at-random", "x's 3 missing example(s) are harder")]
    assert compare_exit(res, None, missing, allow_missing=False) == 2
    assert compare_exit(res, None, missing, allow_missing=True) == res.exit_code


def test_one_place_reads_the_output_format() -> None:
    assert output_format(argparse.Namespace(format="json")) == "json"
    assert not wants_json(argparse.Namespace(format="table"))
    assert output_format(argparse.Namespace()) == "table"


@pytest.mark.slow
@pytest.mark.parametrize(("baseline", "candidate", "word", "code"), [
    ("mistral-7b-codealpaca", "opencodeinterpreter-ds-33b", "beats", 0),
    ("opencodeinterpreter-ds-33b", "mistral-7b-codealpaca", "trails", 1),
    ("mistral-7b-codealpaca", "deepseek-coder-33b", "vs", 0),
])
def test_compare_text_says_what_the_test_decided(baseline: str, candidate: str, word: str,
                                                 code: int,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """The first line's verb comes from the test's fields (p < alpha and the sign), not from
    the verdict's words; the exit code is the same decision (the golden JSON's)."""
    from engine.cli import main

    demo = Path(__file__).resolve().parent / "fixtures" / "demo6.csv"
    assert main(["compare", str(demo), "--benchmark", "humaneval", "--baseline", baseline,
                 "--candidate", candidate]) == code
    first = capsys.readouterr().out.splitlines()[0]
    assert first.startswith(f"{candidate} {word} {baseline}")
