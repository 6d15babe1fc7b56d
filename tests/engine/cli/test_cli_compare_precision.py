"""``compare`` writes a 0/1 metric's difference to 0.1 percentage point, as ``pairwise`` and
the pages do (``engine._units``): one precision for one quantity ("+6.7 points", not "6.71").

Data: as ``tests/cli/test_cli_units.py`` (3 systems × 50 examples × 3 runs of a pass/fail
metric, success probabilities 0.8, 0.6, 0.4; seeded).
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from engine.cli import main

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


def test_compare_and_pairwise_write_the_same_digits(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    data = str(_runs_csv(tmp_path / "runs.csv"))
    pairs = _out(capsys, "pairwise", data)
    row = next(line for line in pairs.splitlines() if line.split()[:2] == ["hi", "mid"])
    found = re.search(r" [+-](\d+\.\d) points\s+(\[[+-]\d+\.\d, [+-]\d+\.\d\] points) ", row)
    assert found, row
    for base, cand in (("mid", "hi"), ("hi", "mid")):  # better, then worse
        verdict = _out(capsys, "compare", data, "--baseline", base, "--candidate", cand)
        head = verdict.splitlines()[0]
        said = re.search(r"(?:vs \w+:|beats \w+ by|trails \w+ by) [+-]?(\d+\.\d) points "
                         r"\[[+-]\d+\.\d, [+-]\d+\.\d\] points on ", head)
        assert said, head
        # the same figure as pairwise's, to the same 0.1 point
        assert said.group(1) == found.group(1), (head, row)
    better = _out(capsys, "compare", data, "--baseline", "mid", "--candidate", "hi")
    assert found.group(2) in better.splitlines()[0]
