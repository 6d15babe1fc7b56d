"""`sigboard passk` (the issue's interface: JSON keys systems / pairs / flaky exactly) and
`sigboard compare --pass-hat-k K` (the gate's exit codes on a pass^k regression).

Reference values: the per-system numbers are checked against the engine's
:func:`engine.stats._passk_reliability.reliability` on the same file (its own tests check it against
exact rationals, scipy and the CR2 module); the regression data are built so that the
candidate's pass^4 is far lower (tries at success rate 0.95 against 0.55 on every task).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from engine.cli import main
from engine.cli.passk import FLAKY_KEYS, PAIR_KEYS, SYSTEM_KEYS
from engine.stats._passk_reliability import reliability


def _tries(path: Path, rates: dict[str, float], *, tasks: int = 30, tries: int = 8,
           seed: int = 0, value: float | None = None) -> Path:
    rng = np.random.default_rng(seed)
    base = rng.uniform(0.6, 1.0, tasks)
    rows = [("agent", "success", s, f"task{t:02d}", r,
             int(rng.random() < min(1.0, base[t] * rate)) if value is None else value)
            for s, rate in rates.items() for t in range(tasks) for r in range(tries)]
    pd.DataFrame(rows, columns=["benchmark", "metric", "system", "example_id", "run",
                                "value"]).to_csv(path, index=False)
    return path


def _json(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, Any]:
    code = main(list(args))
    out = capsys.readouterr().out
    return code, json.loads(out, parse_constant=lambda name: pytest.fail(f"JSON has {name}"))


@pytest.mark.slow
def test_passk_json_keys_exactly(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _tries(tmp_path / "tries.csv", {"a": 1.0, "b": 0.8, "c": 0.6})
    code, doc = _json(capsys, "passk", str(path), "--k", "4", "--format", "json")
    assert code == 0
    assert {"systems", "pairs", "flaky"} <= set(doc)
    assert all(tuple(row) == SYSTEM_KEYS for row in doc["systems"])
    assert all(tuple(row) == PAIR_KEYS for row in doc["pairs"])
    assert doc["flaky"] and all(tuple(row) == FLAKY_KEYS for row in doc["flaky"])
    assert SYSTEM_KEYS == ("system", "tasks", "pass_at_k", "pass_at_k_low", "pass_at_k_high",
                           "pass_hat_k", "pass_hat_k_low", "pass_hat_k_high")
    assert PAIR_KEYS == ("system_a", "system_b", "diff_pass_hat_k", "diff_pass_hat_k_low",
                         "diff_pass_hat_k_high", "diff_pass_at_k", "diff_pass_at_k_low",
                         "diff_pass_at_k_high", "pvalue", "pvalue_adj", "significant")
    assert FLAKY_KEYS == ("system", "example_id", "tries", "successes", "low", "high")
    ref = reliability(pd.read_csv(path), k=4)
    got = {r["system"]: r for r in doc["systems"]}
    for row in ref.estimates.table.itertuples():
        assert got[row.system]["pass_hat_k"] == pytest.approx(row.pass_hat_k, abs=1e-12)
        assert got[row.system]["pass_at_k_low"] == pytest.approx(row.pass_at_k_low, abs=1e-12)
    assert len(doc["pairs"]) == 3
    assert len(doc["flaky"]) == int(ref.flaky.counts.sum())
    assert doc["k"] == 4 and set(doc["excluded"]) == {"a", "b", "c"}


@pytest.mark.slow
def test_passk_text_is_a_table(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _tries(tmp_path / "tries.csv", {"a": 1.0, "b": 0.7})
    assert main(["passk", str(path), "--k", "2"]) == 0
    out = capsys.readouterr().out
    assert "pass@2" in out and "pass^2" in out and "flaky" in out and "C_out" in out


@pytest.mark.slow
def test_passk_refuses_values_that_are_not_zero_or_one(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _tries(tmp_path / "scores.csv", {"a": 1.0}, value=0.37)
    assert main(["passk", str(path), "--k", "2"]) == 2
    err = capsys.readouterr().err
    assert "column 'value'" in err and "0 or 1" in err and "1 = pass" in err


@pytest.mark.slow
def test_compare_pass_hat_k_gate_exit_codes(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    # a pass^4 regression: the candidate's tries pass at 0.55 × the baseline's rate
    path = _tries(tmp_path / "gate.csv", {"base": 1.0, "cand": 0.55, "same": 1.0}, seed=4)
    code, doc = _json(capsys, "compare", str(path), "--baseline", "base", "--candidate",
                      "cand", "--pass-hat-k", "4", "--format", "json")
    assert code == 1 and doc["exit_code"] == 1
    assert doc["statistic"] == "pass_hat_k" and doc["k"] == 4 and doc["tasks"] == 30
    assert doc["difference"] < 0 and doc["ci_high"] < 0 and doc["pvalue"] < 0.05
    # the other way round the candidate is better: passes
    assert main(["compare", str(path), "--baseline", "cand", "--candidate", "base",
                 "--pass-hat-k", "4"]) == 0
    assert "pass^4" in capsys.readouterr().out
    # same tries distribution: no significant difference, passes
    assert main(["compare", str(path), "--baseline", "base", "--candidate", "same",
                 "--pass-hat-k", "4"]) == 0
    capsys.readouterr()
    # bad input: k above the tries, an unknown system
    assert main(["compare", str(path), "--baseline", "base", "--candidate", "cand",
                 "--pass-hat-k", "9"]) == 2
    assert "at least 9 tries" in capsys.readouterr().err
    assert main(["compare", str(path), "--baseline", "base", "--candidate", "nope",
                 "--pass-hat-k", "4"]) == 2


def _rule_data(path: Path, *, broken: bool) -> Path:
    """base passes every try of 20 tasks; cand passes 4-6 of 8 on each (a far lower pass^4,
    flaky everywhere) and, with ``broken``, none of 8 on task00."""
    rows = []
    for t in range(20):
        wins = 0 if broken and t == 0 else 4 + t % 3
        rows += [("agent", "success", "base", f"task{t:02d}", r, 1) for r in range(8)]
        rows += [("agent", "success", "cand", f"task{t:02d}", r, int(r < wins))
                 for r in range(8)]
    pd.DataFrame(rows, columns=["benchmark", "metric", "system", "example_id", "run",
                                "value"]).to_csv(path, index=False)
    return path


@pytest.mark.slow
def test_compare_pass_hat_k_task_rules_exit_codes(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    flaky = _rule_data(tmp_path / "flaky.csv", broken=False)
    gate = ["compare", str(flaky), "--baseline", "base", "--candidate", "cand",
            "--pass-hat-k", "4"]
    # the pass^4 difference is a regression: exit 1
    code, doc = _json(capsys, *gate, "--format", "json")
    assert code == 1 and doc["fail_on"] == "difference" and doc["task_rule"] is None
    # tolerating flakiness: no task that always passed on the baseline fails every try
    code, doc = _json(capsys, *gate, "--fail-on", "broken", "--format", "json")
    assert code == 0 and doc["exit_code"] == 0 and doc["fail_on"] == "broken"
    assert doc["difference"] < 0 and doc["pvalue"] < 0.05  # still reported
    assert doc["task_rule"]["failed"] == [] and doc["task_rule"]["tasks"] == 20
    # one task broken: exit 1, the task named with its counts
    broken = _rule_data(tmp_path / "broken.csv", broken=True)
    code, doc = _json(capsys, "compare", str(broken), "--baseline", "base", "--candidate",
                      "cand", "--pass-hat-k", "4", "--fail-on", "broken", "--format", "json")
    assert code == 1 and doc["verdict"].startswith("fail: 1 task(s)")
    [row] = doc["task_rule"]["failed"]
    assert row["example_id"] == "task00" and row["baseline_successes"] == 8
    assert row["successes"] == 0 and row["tries"] == 8
    assert main(["compare", str(broken), "--baseline", "base", "--candidate", "cand",
                 "--pass-hat-k", "4", "--fail-on", "broken"]) == 1
    text = capsys.readouterr().out
    assert "gate rule: fail only if a task that always passed" in text and "task00" in text
    # a per-task pass-rate threshold: 0 of 8 is shown below 0.8 (p = 0.2^8, Holm–Šidák
    # over 20 tasks 5e-5), 4-6 of 8 are not: exit 1 naming task00 only
    code, doc = _json(capsys, "compare", str(broken), "--baseline", "base", "--candidate",
                      "cand", "--pass-hat-k", "4", "--min-pass-rate", "0.8", "--format", "json")
    assert code == 1 and doc["fail_on"] == "pass-rate" and doc["task_rule"]["threshold"] == 0.8
    assert [r["example_id"] for r in doc["task_rule"]["failed"]] == ["task00"]
    assert doc["task_rule"]["failed"][0]["pvalue"] == pytest.approx(0.2**8, rel=1e-10)
    # a threshold the candidate's flaky tasks are not shown below: exit 0
    assert main([*gate, "--min-pass-rate", "0.6"]) == 0
    capsys.readouterr()
    # bad input: a rule without --pass-hat-k, a rate outside (0, 1]
    assert main(["compare", str(flaky), "--baseline", "base", "--candidate", "cand",
                 "--fail-on", "broken"]) == 2
    assert "add --pass-hat-k K" in capsys.readouterr().err
    assert main([*gate, "--min-pass-rate", "1.5"]) == 2
    assert "threshold: the pass-rate rule needs a rate in (0, 1]" in capsys.readouterr().err


@pytest.mark.slow
def test_passk_report_holds_the_k_curves(tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    # the report is the engine's leaderboard_report with reliability=(result, curves): the
    # values against engine.stats._passk on the same file
    from engine.stats._passk import pass_k_curves, try_counts

    data = _tries(tmp_path / "t.csv", {"a": 1.0, "b": 0.7}, tasks=12, tries=4, seed=2)
    frame = pd.read_csv(data)
    curves = pass_k_curves(try_counts(frame)).table
    for name in ("r.html", "r.md"):
        assert main(["passk", str(data), "--k", "2", "--report", str(tmp_path / name)]) == 0
        assert "report written to" in capsys.readouterr().err
        text = (tmp_path / name).read_text()
        assert "Repeated tries: pass^k and pass@k" in text and "ranked by pass^2" in text
        assert "pass^k for every k" in text and "k = 4" in text
        row = curves[(curves["system"] == "b") & (curves["k"] == 3)].iloc[0]
        assert f"{row['pass_hat_k']:.1%}" in text  # the k = 3 cell of b's pass^k curve
    assert main(["passk", str(data), "--k", "2", "--report", str(tmp_path / "r.pdf")]) == 2
