"""``sigboard overall --model irt``: every system ranked by the joint model of the matrix.

Data: 6 systems × 3 pass/fail benchmarks × 80 examples (seeded 2PL draws), one system that
ran one benchmark only, one that ran two; a fourth benchmark run by three other systems
alone (not connected) for the refusal and the default selection that leaves it out.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import special

from engine.cli import main

pytestmark = pytest.mark.slow  # each call reads DATA in a capped child: seconds

FIELDS = {"system", "ability", "ability_low", "ability_high", "rank_set_low", "rank_set_high",
          "benchmarks_run"}


def _csv(path: Path, island: bool = False) -> Path:
    g = np.random.default_rng(11)
    theta = {f"s{i}": t for i, t in enumerate(np.linspace(-1.2, 1.2, 6))}
    skip = {("s0", "b1"), ("s0", "b2"), ("s3", "b2")}
    rows = [(b, s, f"{b}-{k}", "pass", float(g.random() < special.expit(t - d)))
            for b, d in (("b0", -0.3), ("b1", 0.2), ("b2", 0.5)) for s, t in theta.items()
            if (s, b) not in skip for k in range(80)]
    if island:
        rows += [("lone", s, f"l{k}", "pass", float(g.random() < 0.5))
                 for s in ("x1", "x2", "x3") for k in range(80)]
    pd.DataFrame(rows, columns=["benchmark", "system", "example_id", "metric",
                                "value"]).to_csv(path, index=False)
    return path


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_json_ranks_every_system(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(capsys, "overall", str(_csv(tmp_path / "d.csv")), "--model", "irt",
                          "--format", "json")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["model"] == "irt" and doc["cells_missing"] == 3 and doc["cells_total"] == 18
    systems = {s["system"]: s for s in doc["systems"]}
    assert set(systems) == {f"s{i}" for i in range(6)}
    assert all(set(s) >= FIELDS for s in systems.values())
    assert systems["s0"]["benchmarks_run"] == 1 and systems["s0"]["coverage"] == ["b0"]
    for s in systems.values():
        assert s["ability_low"] <= s["ability"] <= s["ability_high"]
        assert 1 <= s["rank_set_low"] <= s["rank_set_high"] <= 6
    fit = doc["fit"]
    assert [b["benchmark"] for b in fit["benchmarks"]] == ["b0", "b1", "b2"]
    assert fit["worst_benchmark"] in {"b0", "b1", "b2"}
    assert {"rmse_points", "rms_z", "fits_badly"} <= set(fit["benchmarks"][0])


def test_text_names_the_fit(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(capsys, "overall", str(_csv(tmp_path / "d.csv")), "--model", "irt")
    assert code == 0, err
    assert "Worst-fitting benchmark:" in out and "rank_low" in out
    assert "3 of 18 cells missing" in out


def test_default_leaves_out_what_it_cannot_place(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    data = str(_csv(tmp_path / "d.csv", island=True))
    code, out, err = _run(capsys, "overall", data, "--model", "irt", "--format", "json")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["left_out"] == ["lone"] and len(doc["systems"]) == 6
    code, out, err = _run(capsys, "overall", data, "--model", "irt",
                          "--benchmarks", "b0,b1,lone")
    assert code == 2
    assert "share no benchmark with the others" in err and "x1, x2, x3" in err


def test_block_stays_the_default(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(capsys, "overall", str(_csv(tmp_path / "d.csv")), "--format", "json")
    assert code == 0, err
    assert "model" not in json.loads(out)
    code, _, err = _run(capsys, "overall", str(_csv(tmp_path / "d.csv")), "--model", "irt",
                        "--weights", "1,2")
    assert code == 2 and "--weights: not used by --model irt" in err
