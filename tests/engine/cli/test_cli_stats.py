"""`python -m engine leaderboard | pairwise | compare` (SPEC "Command line"): JSON shapes, exit
codes, and one-line error messages. The expensive runs on eval-arena data are done once per
module in a subprocess, exactly as a user (or CI) would run them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from engine.cli import main

# every test here takes seconds: ./scripts/test.sh --fast leaves them out
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[3]
DATA = ROOT / "data"  # bundled eval-arena files
HUMANEVAL_PLUS = DATA / "humaneval+.jsonl.gz"
HE_ARG = os.path.relpath(HUMANEVAL_PLUS, ROOT)  # "data/humaneval+.jsonl.gz"


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "engine", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=120, env={**os.environ, "PYTHONPATH": str(ROOT)})


def _strict_json(text: str) -> Any:
    def no_constants(name: str) -> None:
        raise AssertionError(f"JSON output contains {name}, which is not valid JSON")
    return json.loads(text, parse_constant=no_constants)


def _csv(path: Path, scores: dict[str, list[float]], benchmark: str = "b") -> Path:
    rows = [(benchmark, s, f"e{i:03d}", "acc", v) for s, vals in scores.items()
            for i, v in enumerate(vals)]
    pd.DataFrame(rows, columns=["benchmark", "system", "example_id", "metric", "value"]).to_csv(
        path, index=False)
    return path


@pytest.fixture(scope="module")
def pairwise_json() -> dict[str, Any]:
    proc = _run("pairwise", HE_ARG, "--format", "json")
    assert proc.returncode == 0, proc.stderr
    return _strict_json(proc.stdout)  # type: ignore[no-any-return]


@pytest.fixture(scope="module")
def leaderboard_json() -> dict[str, Any]:
    proc = _run("leaderboard", HE_ARG, "--format", "json")
    assert proc.returncode == 0, proc.stderr
    return _strict_json(proc.stdout)  # type: ignore[no-any-return]


@pytest.fixture(scope="module")
def humaneval_frame() -> pd.DataFrame:
    from engine.io._readers import read_results

    return read_results(HUMANEVAL_PLUS)


# ---------------------------------------------------------------- pairwise


@pytest.mark.slow
def test_pairwise_json_pairs_are_exact_mcnemar(pairwise_json: dict[str, Any]) -> None:
    d = pairwise_json
    assert (d["benchmark"], d["metric"], d["paired"], d["test"]) == ("humaneval+", "pass1", True,
                                                                     "mcnemar")
    assert (d["correction"], d["compare"], d["alternative"], d["alpha"]) == (
        "holm-sidak", "all", "two-sided", 0.05)
    pairs = d["pairs"]
    assert len(pairs) == 49 * 48 // 2 == 1176
    reference: dict[tuple[int, int], float] = {}  # binomtest per distinct (b, c): fewer calls
    for p in pairs:
        for key in ("system_a", "system_b", "test", "statistic", "pvalue", "pvalue_adj",
                    "effect_size", "significant", "n", "paired", "difference", "ci_low",
                    "ci_high"):
            assert key in p
        b, c = p["wins_a"], p["wins_b"]
        # exact McNemar = two-sided exact binomial test on the discordant pairs (Fagerland 2013)
        if (b, c) not in reference:
            reference[b, c] = stats.binomtest(b, b + c, 0.5).pvalue if b + c else 1.0
        assert p["pvalue"] == pytest.approx(reference[b, c], rel=1e-9, abs=1e-300)
        assert p["statistic"] == min(b, c)
        assert p["pvalue_adj"] >= p["pvalue"]
        assert p["significant"] == (p["pvalue_adj"] < 0.05)
        assert p["n"] == 164 and p["paired"] is True
        assert p["difference"] == pytest.approx(p["mean_a"] - p["mean_b"])  # higher is better
        assert p["ci_low"] <= p["difference"] <= p["ci_high"]


@pytest.mark.slow
def test_pairwise_json_wins_match_the_data(pairwise_json: dict[str, Any],
                                          humaneval_frame: pd.DataFrame) -> None:
    wide = humaneval_frame.pivot(index="example_id", columns="system", values="value")
    for p in pairwise_json["pairs"][::37]:  # a spread-out sample of pairs
        a, b = wide[p["system_a"]], wide[p["system_b"]]
        assert p["wins_a"] == int(((a == 1) & (b == 0)).sum())
        assert p["wins_b"] == int(((a == 0) & (b == 1)).sum())
        assert p["mean_a"] == pytest.approx(a.mean())


# ---------------------------------------------------------------- leaderboard


@pytest.mark.slow
def test_leaderboard_json_has_spec_fields(leaderboard_json: dict[str, Any]) -> None:
    d = leaderboard_json
    for key in ("benchmark", "metric", "paired", "test", "systems", "cliques", "converged"):
        assert key in d
    assert d["converged"] is True  # SPEC "More commands": the Bradley–Terry fit converged
    assert (d["benchmark"], d["metric"], d["paired"], d["test"]) == ("humaneval+", "pass1", True,
                                                                     "mcnemar")
    systems = d["systems"]
    assert len(systems) == 49
    for s in systems:
        for key in ("system", "mean", "ci_low", "ci_high", "n", "rank", "rank_low", "rank_high",
                    "group"):
            assert key in s
        assert s["ci_low"] <= s["mean"] <= s["ci_high"]
        assert s["rank_low"] <= s["rank"] <= s["rank_high"]
        assert s["n"] == 164 and s["group"]
        assert s["bt_low"] <= s["bt_strength"] <= s["bt_high"]  # bootstrap interval (SPEC)
    assert [s["rank"] for s in systems] == sorted(s["rank"] for s in systems)
    names = {s["system"] for s in systems}
    assert d["cliques"] and all(set(c) <= names and len(c) >= 2 for c in d["cliques"])


@pytest.mark.slow
def test_leaderboard_json_agrees_with_pairwise(leaderboard_json: dict[str, Any],
                                               pairwise_json: dict[str, Any]) -> None:
    letters = {s["system"]: s["group"] for s in leaderboard_json["systems"]}
    for p in pairwise_json["pairs"]:
        share = bool(set(letters[p["system_a"]]) & set(letters[p["system_b"]]))
        assert share == (not p["significant"])


# ---------------------------------------------------------------- errors


@pytest.mark.slow
def test_bad_input_exits_2_with_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.csv"
    bad.write_text("benchmark,system,example_id,metric,value\n"
                   "b,A,1,acc,1\nb,A,2,acc,oops\nb,B,1,acc,0\nb,B,2,acc,\n")
    proc = _run("leaderboard", str(bad), "--format", "json")
    assert proc.returncode == 2
    assert proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    line = lines[0]
    assert line.startswith("error: ")
    assert "bad.csv" in line and "column 'value'" in line and "row 2" in line
    assert "not a number" in line and "Fix:" in line
    assert "(+1 more problem(s))" in line  # the missing value of row 4


def test_missing_file_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["pairwise", str(tmp_path / "nope.csv")])
    err = capsys.readouterr().err
    assert code == 2
    assert len(err.strip().splitlines()) == 1 and err.startswith("error: ")
    assert "nope.csv" in err


@pytest.mark.slow
def test_several_benchmarks_need_a_choice(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f1 = _csv(tmp_path / "one.csv", {"A": [1, 0, 1], "B": [0, 0, 1]}, benchmark="b1")
    f2 = _csv(tmp_path / "two.csv", {"A": [1, 0, 1], "B": [0, 0, 1]}, benchmark="b2")
    assert main(["leaderboard", str(f1), str(f2), "--format", "json"]) == 2
    err = capsys.readouterr().err
    assert "several benchmarks present (b1, b2)" in err and "--benchmark" in err
    assert main(["leaderboard", str(f1), str(f2), "--benchmark", "b2", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["benchmark"] == "b2"


@pytest.mark.slow
def test_bad_option_value_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = _csv(tmp_path / "r.csv", {"A": [1, 0, 1], "B": [0, 0, 1]})
    assert main(["pairwise", str(f), "--alpha", "1.5"]) == 2
    assert "alpha: must be strictly between 0 and 1" in capsys.readouterr().err
    assert main(["compare", str(f), "--baseline", "A", "--candidate", "Z"]) == 2
    err = capsys.readouterr().err
    assert "candidate: unknown system 'Z'" in err and len(err.strip().splitlines()) == 1


# ---------------------------------------------------------------- compare (CI gate)


BASELINE_GOOD = {"base": [1] * 30, "cand": [1] * 10 + [0] * 20}  # 20 discordant, all one way

# `compare` runs the A/B comparison (engine.compare_ab): with one run of 0/1 scores the Pairwise
# page's exact McNemar test (issue #25), with runs a run-aware test; the JSON keys are SPEC's
# `difference`/`model`/`exit_code` (they replaced `diff`/`test`/`worse`).


@pytest.mark.slow
def test_compare_exits_1_when_candidate_is_significantly_worse(tmp_path: Path) -> None:
    f = _csv(tmp_path / "r.csv", BASELINE_GOOD)
    proc = _run("compare", str(f), "--baseline", "base", "--candidate", "cand")
    assert proc.returncode == 1, proc.stderr
    first = proc.stdout.splitlines()[0]
    # binary scores: the difference in percentage points, 20/30 = 66.7 points
    assert first.startswith("cand trails base by 66.7 points [")
    assert "on b/acc: candidate is significantly worse" in first
    assert "model: mcnemar" in proc.stdout  # one run of 0/1 scores: the Pairwise page's test


def test_compare_exits_0_when_candidate_is_better(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    # in-process (the subprocess tests above already cover `python -m engine`'s exit codes)
    f = _csv(tmp_path / "r.csv", BASELINE_GOOD)
    code = main(["compare", str(f), "--baseline", "cand", "--candidate", "base", "--format", "json"])
    assert code == 0
    d = _strict_json(capsys.readouterr().out)
    assert list(d)[:13] == ["baseline", "candidate", "benchmark", "metric", "n", "runs", "difference",
                       "ci_low", "ci_high", "pvalue", "model", "verdict", "exit_code"]
    assert d["verdict"] == "candidate is significantly better" and d["exit_code"] == 0
    assert (d["baseline"], d["candidate"], d["model"], d["n"], d["runs"]) == (
        "cand", "base", "mcnemar", 30, 1)
    assert d["difference"] == pytest.approx(1 - 1 / 3)
    # one run of 0/1 scores: the Pairwise page's exact McNemar test (issue #25 item 4) =
    # scipy's two-sided binomial test on the discordant pairs
    base, cand = np.asarray(BASELINE_GOOD["base"]), np.asarray(BASELINE_GOOD["cand"])
    wins, losses = int(((base == 1) & (cand == 0)).sum()), int(((base == 0) & (cand == 1)).sum())
    ref = stats.binomtest(wins, wins + losses, 0.5)
    assert d["pvalue"] == pytest.approx(ref.pvalue, rel=1e-9)
    assert d["pairwise"]["pvalue"] == d["pvalue"] and d["same_as_pairwise"]


def test_compare_not_different_exits_0(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = _csv(tmp_path / "r.csv", {"base": [1, 0, 1, 1, 0, 1], "cand": [1, 1, 0, 1, 0, 1]})
    assert main(["compare", str(f), "--baseline", "base", "--candidate", "cand"]) == 0
    assert "no significant difference" in capsys.readouterr().out


@pytest.mark.slow
def test_compare_respects_lower_is_better(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # latency-like metric: the candidate's larger values are worse
    scores = {"base": [1.0, 1.2, 0.9, 1.1, 1.0, 0.95, 1.05, 1.0],
              "cand": [2.0, 2.1, 1.8, 2.3, 2.0, 1.9, 2.2, 2.05]}
    f = _csv(tmp_path / "r.csv", scores)
    args = ["compare", str(f), "--baseline", "base", "--candidate", "cand", "--format", "json"]
    assert main([*args, "--lower-is-better"]) == 1
    d = json.loads(capsys.readouterr().out)
    assert d["verdict"] == "candidate is significantly worse" and d["exit_code"] == 1
    assert d["difference"] < 0  # oriented: positive = candidate better
    assert main(args) == 0  # higher is better: the candidate is better
    assert json.loads(capsys.readouterr().out)["verdict"] == "candidate is significantly better"


# ---------------------------------------------------------------- options and table output


def test_pairwise_options_in_process(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = _csv(tmp_path / "r.csv", {"A": [0.1, 0.5, 0.9, 0.3, 0.7], "B": [0.2, 0.4, 0.8, 0.1, 0.6],
                                   "C": [0.0, 0.3, 0.5, 0.2, 0.4]})
    assert main(["pairwise", str(f), "--format", "json", "--compare", "successive",
                 "--alternative", "greater", "--correction", "none", "--test", "wilcoxon"]) == 0
    d = _strict_json(capsys.readouterr().out)
    assert (d["compare"], d["alternative"], d["correction"], d["test"]) == (
        "successive", "greater", "none", "wilcoxon")
    assert [(p["system_a"], p["system_b"]) for p in d["pairs"]] == [("A", "B"), ("B", "C")]
    assert all(p["pvalue_adj"] == p["pvalue"] for p in d["pairs"])


def test_leaderboard_table_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = _csv(tmp_path / "r.csv", {"A": [1, 1, 1, 0, 1], "B": [0, 1, 0, 0, 1]})
    assert main(["leaderboard", str(f)]) == 0
    out = capsys.readouterr().out
    header = out.splitlines()[0].split()
    assert header[:5] == ["system", "rank", "rank_low", "rank_high", "group"]
    assert "b / acc: paired binary (0/1) scores" in out and "holm-sidak at alpha 0.05" in out
    # 5 examples cannot tell A (0.8) from B (0.4): one group, listed as the README promises
    assert "1. A, B" in out
    # the mean of a 0/1 metric in percent (as the pages), then its interval in brackets
    assert "80.0% [" in out
