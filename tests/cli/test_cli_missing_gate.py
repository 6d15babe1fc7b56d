"""``sigboard compare`` when one side lacks examples the other has: exit 2 with one line
naming the gap and the difference at both bounds, unless declared with --allow-missing N.

The data: the ``dropped_failures`` table of tests/engine/stats/test_missing_bounds.py, built
again here (300 hand-built 0/1 examples with no true difference; the candidate's harness
dropped 75 of its 150 failures) and written to a CSV. Its reference figures come from that file's comments:
on the shared examples 50 vs 25 won alone (better), with the 75 failed the complete table
(+0.0 points), with them passed +20.0 points.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from engine.cli import main

# every test here takes seconds: ./scripts/test.sh --fast leaves them out
pytestmark = pytest.mark.slow

ARGS = ["--baseline", "base", "--candidate", "cand"]
SENTENCE = ("cand lacks 60 of 300 examples base has: with them failed the difference is "
            "+0.0 points, with them passed +20.0 points")


def _kinds(both: int, base_only: int, cand_only: int, neither: int
           ) -> tuple[np.ndarray, np.ndarray]:
    base = np.r_[np.ones(both), np.ones(base_only), np.zeros(cand_only), np.zeros(neither)]
    cand = np.r_[np.ones(both), np.zeros(base_only), np.ones(cand_only), np.zeros(neither)]
    return base, cand


def _frame(base: np.ndarray, cand: np.ndarray, keep_c: np.ndarray | None = None
           ) -> pd.DataFrame:
    keep_c = np.ones(len(cand), bool) if keep_c is None else keep_c
    ids = np.array([f"e{i:03d}" for i in range(len(base))])
    return pd.DataFrame({"benchmark": "b", "metric": "acc",
                         "system": ["base"] * len(base) + ["cand"] * int(keep_c.sum()),
                         "example_id": np.r_[ids, ids[keep_c]],
                         "value": np.r_[base, cand[keep_c]]})


def dropped_failures() -> pd.DataFrame:
    """As in test_missing_bounds.py: every other failure of the candidate dropped."""
    base, cand = _kinds(90, 60, 60, 90)
    keep = np.ones(300, bool)
    keep[np.arange(90, 150, 2)] = False
    keep[np.arange(210, 300, 3)] = False
    return _frame(base, cand, keep)


def _csv(tmp_path: Path, df: pd.DataFrame) -> str:
    f = tmp_path / "scores.csv"
    df.to_csv(f, index=False)
    return str(f)


def test_dropped_failures_exit_2_with_one_line(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    f = _csv(tmp_path, dropped_failures())
    assert main(["compare", f, *ARGS]) == 2  # exit 0, "significantly better", before
    captured = capsys.readouterr()
    line = (f"{SENTENCE}; cannot decide — rerun the missing examples or declare them with "
            "--allow-missing 60")
    assert captured.err.strip().splitlines() == [line]
    out = captured.out.splitlines()
    assert out[0] == line and "candidate is significantly better" in out[1]


def test_json_carries_the_bounds(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    f = _csv(tmp_path, dropped_failures())
    assert main(["compare", f, *ARGS, "--format", "json"]) == 2
    out = json.loads(capsys.readouterr().out)
    b = out["missing_bounds"]
    assert out["exit_code"] == 2 and out["verdict"] == "candidate is significantly better"
    assert (b["candidate_lacks"], b["baseline_lacks"], b["n"]) == (60, 0, 300)
    assert b["low"] == pytest.approx(0.0, abs=1e-12) and b["high"] == pytest.approx(0.20)
    assert not b["decided"] and b["sentence"].startswith(SENTENCE)


def test_allow_missing_declares_the_gap(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    f = _csv(tmp_path, dropped_failures())
    assert main(["compare", f, *ARGS, "--allow-missing", "60"]) == 0
    captured = capsys.readouterr()
    assert captured.out.splitlines()[0] == (
        f"{SENTENCE}; declared with --allow-missing 60: the verdict stands on the 240 "
        "examples both have")
    assert captured.err == ""
    assert main(["compare", f, *ARGS, "--allow-missing", "59"]) == 2
    capsys.readouterr()
    assert main(["compare", f, *ARGS, "--allow-missing"]) == 0  # no N: any number
    assert "declared with --allow-missing" in capsys.readouterr().out
    with pytest.raises(SystemExit) as bad:
        main(["compare", f, *ARGS, "--allow-missing", "-3"])
    assert bad.value.code == 2
    assert "--allow-missing: must be a whole number ≥ 0" in capsys.readouterr().err


def test_complete_evaluation_decides_as_before(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    # the same 300 examples with nothing dropped: 60 vs 60 won alone, McNemar p = 1
    f = _csv(tmp_path, _frame(*_kinds(90, 60, 60, 90)))
    assert main(["compare", f, *ARGS]) == 0
    captured = capsys.readouterr()
    assert captured.out.startswith("cand vs base: 0.0 points") and "lacks" not in captured.out
    assert captured.err == ""
    assert main(["compare", f, *ARGS, "--format", "json"]) == 0
    assert "missing_bounds" not in json.loads(capsys.readouterr().out)
    # truly better and complete: exit 0, "better", no bound line (100 vs 20 won alone)
    f = _csv(tmp_path, _frame(*_kinds(80, 20, 100, 100)))
    assert main(["compare", f, *ARGS]) == 0
    out = capsys.readouterr().out
    assert out.startswith("cand beats base by") and "lacks" not in out
