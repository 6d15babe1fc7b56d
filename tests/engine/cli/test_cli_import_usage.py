"""``sigboard import`` stores a harness log's usage as lower-is-better metrics after its
scores, says so in one line, and every command reads the direction from the store (logs the
real tools wrote: tests/data/harness-logs-real/inspect/eval, inspect-ai 0.3.285).

Reference values: each sample's ``total_time`` in the raw .eval (read in the test).
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import numpy as np
import pytest

from engine.cli import main
from engine.io._zip import member_bytes
from engine.store import open_store

REAL = Path(__file__).resolve().parents[2] / "data" / "harness-logs-real"
EVAL = REAL / "inspect" / "eval"

pytestmark = pytest.mark.slow


def _total_times() -> dict[str, list[float]]:
    """model -> every scored sample-epoch's total_time, from the raw logs."""
    out: dict[str, list[float]] = {}
    for path in sorted(EVAL.glob("*.eval")):
        data = path.read_bytes()
        z = zipfile.ZipFile(path)
        for info in z.infolist():
            if info.filename.startswith("samples/") and info.filename.endswith(".json"):
                s = json.loads(member_bytes(data, z, info, path.name))
                if s.get("scores"):
                    out.setdefault(path.name, []).append(float(s["total_time"]))
    return out


def test_import_stores_usage_after_scores_and_says_so(tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    url = f"sqlite:///{tmp_path / 'store.db'}"
    assert main(["import", str(EVAL), "--db", url]) == 0
    err = capsys.readouterr().err
    assert ("eval: usage stored as metrics where lower is better: latency_s (seconds, "
            "6 examples), working_s (seconds, 6 examples)") in err
    store = open_store(url)
    catalog = store.catalog()
    assert list(catalog["metric"]) == ["includes", "match", "latency_s", "working_s"]
    assert list(catalog["higher_is_better"]) == [True, True, False, False]
    rows = store.load_frame(benchmark="arith", metric="latency_s")
    store.close()
    raw = sorted(t for times in _total_times().values() for t in times)
    assert sorted(rows["value"].astype(float)) == raw  # exact: one row per sample and epoch
    # a command reading the store ranks the fastest first (lower is better)
    assert main(["leaderboard", url, "--benchmark", "arith", "--metric", "latency_s",
                 "--format", "json"]) == 0
    board = json.loads(capsys.readouterr().out)
    means = [s["mean"] for s in board["systems"]]
    assert means == sorted(means) and np.isfinite(means).all()
