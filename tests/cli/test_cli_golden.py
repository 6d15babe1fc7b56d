"""Every command's ``--format json`` output, byte for byte, against the golden files in
``tests/cli/golden/`` (how they were made: ``tests/cli/golden/README.md``).

Normalised before comparing, and only these (they vary from run to run or machine to
machine): this run's temporary folder (``<tmp>``) and the fixtures folder (``<fixtures>``);
ISO timestamps (``<time>``); the uploader the CLI records, the OS user and host
(``<uploader>``). Store ids (upload ids, the data version) are compared as they are: every
store here starts empty, so they are the same on every run.

Floats may differ in their last digits, and only there: a kernel of ``engine._jit`` and its
numpy twin (the path of small work until this process has loaded the compiled kernels)
add in different orders, so a command's 16th digit depends on what ran before it in the
same pytest worker; and an iterative fit (the Bradley–Terry maximum likelihood behind
``--judge`` battles) carries a different last digit of the machine's BLAS through its
iterations, so on another CPU its intervals differ near the 12th digit (seen in CI: an
upper bound 3e-12 relative away from the golden one). Where the bytes differ, the two documents
must still have the same keys in the same order, the same strings, integers and booleans,
and floats equal to 1e-9 relative (:func:`_same_document`) — far below any printed digit.

``SIGBOARD_WRITE_GOLDEN=1`` writes the files instead of comparing (then review the diff).
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from engine.cli import main
from engine.cli._common import cli_uploader

# every test here takes seconds: ./scripts/test.sh --fast leaves them out
pytestmark = pytest.mark.slow

HERE = Path(__file__).resolve().parent
FIX = HERE / "fixtures"
GOLDEN = HERE / "golden"
WRITE = os.environ.get("SIGBOARD_WRITE_GOLDEN") == "1"
CODES = ({} if WRITE else
         json.loads((GOLDEN / "exit_codes.json").read_text(encoding="utf-8")))
TIME = re.compile(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[+-]\d{2}:?\d{2}|Z)?")

D6, A, B = str(FIX / "demo6.csv"), str(FIX / "demo6_a.csv"), str(FIX / "demo6_b.csv")
MET, RUNS = str(FIX / "metrics.csv"), str(FIX / "runs.csv")
JUDGE, BATTLES = str(FIX / "judge.csv"), str(FIX / "battles.csv")
HE = ["--benchmark", "humaneval"]
TWO = ["--baseline", "mistral-7b-codealpaca", "--candidate", "deepseek-coder-33b"]

#: name -> (argv without --format json, exit code); files only, no store
FILE_CASES: dict[str, tuple[list[str], int]] = {
    "leaderboard": (["leaderboard", D6, *HE], 0),
    "leaderboard_cluster": (["leaderboard", MET, "--benchmark", "b1", "--metric", "acc",
                             "--cluster", "topic", "--bt-resamples", "0"], 0),
    "leaderboard_numeric": (["leaderboard", MET, "--benchmark", "b2", "--metric", "score"], 0),
    "leaderboard_judge": (["leaderboard", JUDGE, "--judge", "judge_score", "--human",
                           "human_score"], 0),
    "leaderboard_battles": (["leaderboard", BATTLES, "--judge", "winner", "--human",
                             "human_winner"], 0),
    "pairwise": (["pairwise", D6, *HE], 0),
    "pairwise_cluster": (["pairwise", MET, "--benchmark", "b1", "--metric", "acc",
                          "--cluster", "topic"], 0),
    "pairwise_judge": (["pairwise", JUDGE, "--metric", "judge_score"], 0),
    "pairwise_across_metrics": (["pairwise", MET, "--across", "metrics", "--benchmark", "b1"], 0),
    "pairwise_across_benchmarks": (["pairwise", D6, "--across", "benchmarks"], 0),
    "compare": (["compare", D6, *HE, *TWO], 0),
    "compare_worse": (["compare", D6, *HE, "--baseline", "opencodeinterpreter-ds-33b",
                       "--candidate", "mistral-7b-codealpaca"], 1),
    "compare_runs": (["compare", RUNS, "--baseline", "base", "--candidate", "cand"], 0),
    "compare_margin": (["compare", RUNS, "--baseline", "cand", "--candidate", "base",
                        "--margin", "0.01"], 1),
    "compare_equivalence": (["compare", RUNS, "--baseline", "base", "--candidate", "cand",
                             "--equivalence", "0.05"], 0),
    "compare_cluster": (["compare", MET, "--benchmark", "b1", "--metric", "score",
                         "--baseline", "beta", "--candidate", "gamma", "--cluster", "topic"], 0),
    "compare_judge": (["compare", JUDGE, "--metric", "judge_score", "--baseline", "s0",
                       "--candidate", "s1"], 0),
    "overall": (["overall", D6], 0),
    "overall_metrics": (["overall", MET, "--metrics", "acc,score"], 0),
    "health": (["health", D6, *HE], 0),
    "health_all": (["health", MET], 0),
    "power": (["power", RUNS, "--n-sim", "50"], 0),
    "mechanisms": (["mechanisms", D6, *HE, "--n-permutations", "5"], 0),
    "rank_intervals": (["rank-intervals", D6, *HE], 0),
    "ranks": (["ranks", D6, *HE, "--draws", "100"], 0),
    "ranks_cluster": (["ranks", MET, "--benchmark", "b1", "--metric", "score", "--cluster",
                       "topic", "--draws", "100", "--kind", "marginal"], 0),
    "watch": (["watch", A, B, *TWO], 0),
    "ppi_budget": (["ppi-budget", JUDGE, "--judge", "judge_score", "--human", "human_score",
                    "--width", "6"], 0),
}


def _normalised(text: str, tmp: Path) -> str:
    text = text.replace(str(tmp), "<tmp>").replace(str(FIX), "<fixtures>")
    return TIME.sub("<time>", text).replace(cli_uploader(), "<uploader>")


def _check(name: str, argv: list[str], want_code: int, tmp: Path,
           capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    code = main(argv)
    out = _normalised(capsys.readouterr().out, tmp)
    path = GOLDEN / f"{name}.json"
    if WRITE:
        path.write_text(out, encoding="utf-8")
        codes_path = GOLDEN / "exit_codes.json"
        codes = json.loads(codes_path.read_text()) if codes_path.exists() else {}
        codes_path.write_text(json.dumps({**codes, name: code}, indent=1, sort_keys=True) + "\n")
        return
    assert code == want_code == CODES[name], (name, code)
    want = path.read_text(encoding="utf-8")
    if out != want:
        _same_document(json.loads(out), json.loads(want), name)


def _same_document(got: object, want: object, where: str) -> None:
    """``got`` equals ``want`` as JSON, floats to 1e-9 relative (see the module docstring)."""
    if isinstance(want, float) or isinstance(got, float):
        assert isinstance(got, (int, float)) and isinstance(want, (int, float)), where
        assert got == pytest.approx(want, rel=1e-9, abs=1e-300, nan_ok=True), where
    elif isinstance(want, dict):
        assert isinstance(got, dict) and list(got) == list(want), where
        for key in want:
            _same_document(got[key], want[key], f"{where}.{key}")
    elif isinstance(want, list):
        assert isinstance(got, list) and len(got) == len(want), where
        for i, (g, w) in enumerate(zip(got, want)):
            _same_document(g, w, f"{where}[{i}]")
    else:
        assert type(got) is type(want) and got == want, where


@pytest.mark.parametrize("name", list(FILE_CASES))
def test_file_command_json_is_golden(name: str, tmp_path: Path,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    argv, code = FILE_CASES[name]
    _check(name, [*argv, "--format", "json"], code, tmp_path, capsys)


def test_store_commands_json_is_golden(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """One store through its life: import (a table, the same again, a battle list, another
    table with a cluster column), list, alias, delete and restore, then the analyses that
    read it (leaderboard with the declared cluster, watch kept in the store)."""
    monkeypatch.delenv("SIGBOARD_DB_URL", raising=False)
    url = f"sqlite:///{tmp_path / 'golden.db'}"
    db = ["--db", url]
    steps: list[tuple[str, list[str], int]] = [
        ("store_import", ["import", D6, *db, "--format", "json"], 0),
        ("store_import_again", ["import", D6, *db, "--format", "json"], 0),
        ("store_import_battles", ["import", BATTLES, *db, "--arena", "golden",
                                  "--format", "json"], 0),
        ("store_import_cluster", ["import", MET, *db, "--cluster", "topic",
                                  "--format", "json"], 0),
        ("store_uploads", ["uploads", *db, "--format", "json"], 0),
        ("store_alias", ["alias", "speechless-mistral-7b", "mistral-7b-codealpaca", *db,
                         "--format", "json"], 0),
        ("store_aliases", ["alias", *db, "--format", "json"], 0),
        ("store_delete", ["delete", "3", *db, "--format", "json"], 0),
        ("store_restore", ["restore", "3", *db, "--format", "json"], 0),
        ("store_leaderboard", ["leaderboard", url, "--benchmark", "b1", "--metric", "acc",
                               "--format", "json"], 0),
        ("store_watch", ["watch", url, *HE, *TWO, "--format", "json"], 0),
        ("store_watch_again", ["watch", url, *HE, *TWO, "--format", "json"], 0),
    ]
    for name, argv, code in steps:
        _check(name, argv, code, tmp_path, capsys)
