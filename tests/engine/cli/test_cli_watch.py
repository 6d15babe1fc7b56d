"""`python -m engine watch`: exit codes 0/1/2, the JSON keys, files as batches and a store
kept up to date between runs (in-process through ``engine.cli.main``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from engine.cli import main

# every test here takes seconds: ./scripts/test.sh --fast leaves them out
pytestmark = pytest.mark.slow

KEYS = {"cs_low", "cs_high", "p_always_valid", "n_seen", "stopped_at", "verdict", "exit_code",
        "history", "method", "e_value"}


def _files(tmp_path: Path, *, p_a: float, p_b: float, n: int = 300,
           batches: int = 3) -> list[str]:
    rng = np.random.default_rng(int(p_a * 100 + p_b * 10))
    paths = []
    for k in range(batches):
        ex = [f"e{i}" for i in range(k * n, (k + 1) * n)]
        frame = pd.DataFrame({"benchmark": "b", "metric": "acc", "system": ["A"] * n + ["B"] * n,
                              "example_id": ex * 2,
                              "value": np.r_[rng.binomial(1, p_a, n), rng.binomial(1, p_b, n)]
                              .astype(float),
                              "family": [f"f{i // 4}" for i in range(k * n, (k + 1) * n)] * 2})
        path = tmp_path / f"batch{k}.csv"
        frame.to_csv(path, index=False)
        paths.append(str(path))
    return paths


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, Any]:
    code = main(["watch", *argv, "--format", "json"])
    out = capsys.readouterr().out
    return code, (json.loads(out, parse_constant=lambda c: pytest.fail(c)) if out else None)


@pytest.mark.slow
def test_exit_codes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    files = _files(tmp_path, p_a=0.55, p_b=0.8)
    code, better = _run(capsys, *files, "--baseline", "A", "--candidate", "B")
    assert code == 0 and better["cs_low"] > 0 and set(better) >= KEYS
    assert better["stopped_at"] == better["first_excluded_n"] < 300
    code, worse = _run(capsys, *files, "--baseline", "B", "--candidate", "A")
    assert code == 1 and worse["cs_high"] < 0 and "worse" in worse["verdict"]
    assert worse["p_always_valid"] == pytest.approx(better["p_always_valid"])
    same = _files(tmp_path, p_a=0.6, p_b=0.6, n=40, batches=1)
    code, undecided = _run(capsys, *same, "--baseline", "A", "--candidate", "B")
    assert code == 0 and undecided["stopped_at"] is None and "keep collecting" in undecided["verdict"]
    code, capped = _run(capsys, *same, "--baseline", "A", "--candidate", "B", "--max-n", "10")
    assert code == 0 and capped["n_seen"] == 10 and capped["stopped_at"] == 10


@pytest.mark.parametrize("argv", [
    ["--baseline", "A", "--candidate", "Q"],
    ["--baseline", "A", "--candidate", "B", "--bounds", "one,two"],
    ["--baseline", "A", "--candidate", "B", "--alpha", "1.5"],
    ["--baseline", "A", "--candidate", "B", "--cluster", "nope"],
    ["--baseline", "A", "--candidate", "A"],
])
def test_bad_input_exits_2_with_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                         argv: list[str]) -> None:
    files = _files(tmp_path, p_a=0.5, p_b=0.5, n=20, batches=1)
    assert main(["watch", *files, *argv]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: ") and "\n" not in err


@pytest.mark.slow
def test_a_store_watch_is_kept_between_runs(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    files = _files(tmp_path, p_a=0.5, p_b=0.58)
    url = f"sqlite:///{tmp_path / 'w.db'}"
    assert main(["watch", url, "--baseline", "A", "--candidate", "B"]) == 2  # no such store
    capsys.readouterr()
    seen = []
    for path in files:
        assert main(["import", path, "--db", url]) == 0
        capsys.readouterr()
        code, out = _run(capsys, url, "--baseline", "A", "--candidate", "B")
        assert code == 0
        seen.append(out["n_seen"])
    assert seen == [300, 600, 900] and len(out["history"]) == 3
    _, from_files = _run(capsys, *files, "--baseline", "A", "--candidate", "B")
    assert out["cs_low"] == pytest.approx(from_files["cs_low"], abs=1e-12)
    assert out["p_always_valid"] == pytest.approx(from_files["p_always_valid"], rel=1e-9)


@pytest.mark.slow
def test_clusters_and_the_text_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    files = _files(tmp_path, p_a=0.5, p_b=0.7, n=200, batches=2)
    code, out = _run(capsys, *files, "--baseline", "A", "--candidate", "B", "--cluster", "family")
    assert code == 0 and out["n_seen"] == 100 and out["cluster"] == "family"
    assert main(["watch", *files, "--baseline", "A", "--candidate", "B"]) == 0
    text = capsys.readouterr().out
    assert "confidence sequence" in text and "always-valid p" in text
