"""The judge gate (``compare`` on a judge metric with human labels) bounded over the examples
one system lacks: exit 2 with one line when the PPI++ verdict does not hold with them at the
worst and the best score, ``--allow-missing N`` the way past it.

The data: test_judge.py's ``judge_frame`` (400 examples, judge = human + noise, 25% of the
examples labelled), two systems with equal human-label means; the candidate's harness drops
about half its examples the judge scored below 60 (its "failures"). Reference values: the
bounds are the judge gate itself (:func:`engine.judge_gate` on :func:`engine.judge_board`)
on the table completed by hand — the dropped rows put back with the judge score and, where
labelled, the human label at the lowest value seen on the benchmark (the worst) or the
highest (the best) — so the bounded path is checked against a fill written out here.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from test_judge import judge_frame, long_of

from engine import judge_board, judge_gate
from engine.cli import main
from engine.products._judge_missing import judge_gate_bounds

ARGS = ["--metric", "judge_score", "--baseline", "s0", "--candidate", "s1"]
BETTER = "candidate is significantly better"


def _complete(seed: int = 0) -> pd.DataFrame:
    """Two systems, human-label means equal (65 each), judge unbiased."""
    wide = judge_frame(seed, systems=2, examples=400, share=0.25, bias=(0.0, 0.0))
    shift = np.where(wide["system"] == "s0", 5.0, -5.0)  # means 60 / 70 → 65 / 65
    return wide.assign(judge_score=wide["judge_score"] + shift,
                       human_score=wide["human_score"] + shift)


def _dropped(wide: pd.DataFrame, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed + 100)
    return ((wide["system"] == "s1") & (wide["judge_score"] < 60)
            & (rng.random(len(wide)) < 0.5)).to_numpy()


def _gate_on(long: pd.DataFrame):  # type: ignore[no-untyped-def]
    board = judge_board(long, judge="judge_score", human="human_score")
    return judge_gate(board, baseline="s0", candidate="s1", benchmark="b",
                      judge="judge_score", human="human_score")


def _by_hand(wide: pd.DataFrame, drop: np.ndarray, worst: bool) -> pd.DataFrame:
    """The dropped rows back, at the worst (lowest) or best (highest) value of each metric."""
    filled = wide.copy()
    long = long_of(wide[~drop])
    for col in ("judge_score", "human_score"):
        values = long.loc[long["metric"] == col, "value"]
        end = values.min() if worst else values.max()
        filled.loc[drop & filled[col].notna().to_numpy(), col] = end
    return long_of(filled)


def test_dropped_failures_bounded_against_a_fill_by_hand() -> None:
    wide = _complete()
    drop = _dropped(wide)
    frame = long_of(wide[~drop])
    gate = _gate_on(frame)
    assert gate.verdict == BETTER and gate.exit_code == 0  # the harness's gap passes the gate
    b = judge_gate_bounds(frame, gate)
    assert b is not None
    assert (b.n, b.candidate_lacks, b.baseline_lacks) == (400, int(drop.sum()), 0)
    low, high = _gate_on(_by_hand(wide, drop, True)), _gate_on(_by_hand(wide, drop, False))
    assert low.test is not None and high.test is not None
    assert b.low == pytest.approx(low.test.estimate, rel=1e-12)
    assert b.high == pytest.approx(high.test.estimate, rel=1e-12)
    assert (b.low_verdict, b.high_verdict) == (low.verdict, high.verdict)
    assert low.verdict != BETTER and not b.survives and not b.decided


def _csv(tmp_path: Path, wide: pd.DataFrame) -> str:
    path = tmp_path / "judged.csv"
    wide.to_csv(path, index=False)
    return str(path)


@pytest.mark.slow
def test_cli_judge_gate_exits_2_with_one_line(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    wide = _complete()
    drop = _dropped(wide)
    path = _csv(tmp_path, wide[~drop])
    code = main(["compare", path, *ARGS, "--format", "json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 2 and out["exit_code"] == 2 and out["model"] == "ppi++"
    assert out["verdict"] == BETTER  # the gate's own verdict, shown, not used
    b = out["missing_bounds"]
    assert (b["candidate_lacks"], b["baseline_lacks"], b["decided"]) == (int(drop.sum()), 0,
                                                                          False)
    assert main(["compare", path, *ARGS]) == 2
    captured = capsys.readouterr()
    err = captured.err.strip().splitlines()
    assert err == [b["sentence"]] and err[0].startswith(f"s1 lacks {int(drop.sum())} of 400")
    assert "cannot decide" in err[0] and captured.out.startswith(b["sentence"])
    # declared: the gate's own verdict and exit code
    code = main(["compare", path, *ARGS, "--allow-missing", str(int(drop.sum())),
                 "--format", "json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["missing_bounds"]["declared"] == int(drop.sum())
    assert out["missing_bounds"]["decided"] is True
    code = main(["compare", path, *ARGS, "--allow-missing", "3", "--format", "json"])
    assert code == 2 and json.loads(capsys.readouterr().out)["missing_bounds"]["declared"] == 3


@pytest.mark.slow
def test_cli_judge_gate_complete_or_within_tolerance_decides(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    wide = _complete()
    path = _csv(tmp_path, wide)
    code = main(["compare", path, *ARGS, "--format", "json"])
    out = json.loads(capsys.readouterr().out)
    assert "missing_bounds" not in out and code == out["judge_gate"]["exit_code"]
    # 20 of 400 missing at random (5%): reported, not enforced (under the 10% tolerance)
    rng = np.random.default_rng(3)
    gone = (wide["system"] == "s1").to_numpy() & np.isin(
        wide["example_id"], rng.choice(wide["example_id"].unique(), 20, replace=False))
    path = _csv(tmp_path, wide[~gone])
    code = main(["compare", path, *ARGS, "--format", "json"])
    out = json.loads(capsys.readouterr().out)
    assert out["missing_bounds"]["candidate_lacks"] == 20
    assert out["missing_bounds"]["decided"] is True and code == out["judge_gate"]["exit_code"]
