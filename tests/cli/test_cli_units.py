"""The command line's text tables write a 0/1 metric as the pages do — the mean in percent,
differences in percentage points — with repeated runs too (the per-example mean of 0/1
runs is a fraction, yet the metric is 0/1), and ``pairwise`` gives a pair the same
difference, in the same unit, as ``compare``. JSON keeps the fractions (every digit).

Data: 3 systems × 50 examples × 3 runs of a pass/fail metric drawn with success
probabilities 0.8, 0.6 and 0.4 (seeded).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from engine.cli import main

# every test here takes seconds: ./scripts/test.sh --fast leaves them out
pytestmark = pytest.mark.slow


def _runs_csv(path: Path) -> Path:
    g = np.random.default_rng(5)
    rows = [("b", system, f"e{i}", "pass", float(g.random() < p), run)
            for system, p in (("hi", 0.8), ("mid", 0.6), ("lo", 0.4))
            for run in range(3) for i in range(50)]
    pd.DataFrame(rows, columns=["benchmark", "system", "example_id", "metric", "value",
                                "run"]).to_csv(path, index=False)
    return path


def _out(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    code = main(list(argv))
    out = capsys.readouterr()
    assert code in (0, 1), out.err
    return out.out


def test_text_tables_in_percent_and_points(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    data = str(_runs_csv(tmp_path / "runs.csv"))
    board = _out(capsys, "leaderboard", data)
    rows = {line.split()[0]: line for line in board.splitlines()[1:4]}
    assert set(rows) == {"hi", "mid", "lo"}
    assert all(re.search(r" \d+\.\d% \[\d+\.\d%, \d+\.\d%\] ", r) for r in rows.values()), rows
    pairs = _out(capsys, "pairwise", data)
    row = next(line for line in pairs.splitlines() if line.split()[:2] == ["hi", "mid"])
    found = re.search(r" ([+-]\d+\.\d) points\s+\[[+-]\d+\.\d, [+-]\d+\.\d\] points ", row)
    assert found, row
    verdict = _out(capsys, "compare", data, "--baseline", "mid", "--candidate", "hi")
    said = re.search(r"hi (?:vs mid:|beats mid by) (-?\d+(?:\.\d+)?) points", verdict)
    assert said, verdict
    # one difference, one unit: compare rounds to 3 significant digits, pairwise to 0.1 point
    assert float(found.group(1)) == pytest.approx(float(said.group(1)), abs=0.051)
    mean = json.loads(_out(capsys, "pairwise", data, "--format", "json"))["pairs"]
    hi_mid = next(p for p in mean if (p["system_a"], p["system_b"]) == ("hi", "mid"))
    assert 0 < hi_mid["difference"] < 1  # JSON: the fraction, unscaled
    assert float(found.group(1)) == pytest.approx(100 * hi_mid["difference"], abs=0.051)
