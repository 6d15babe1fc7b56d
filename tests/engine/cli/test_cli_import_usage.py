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


TABLE = """benchmark,system,example_id,metric,value,cost,latency_ms,output
b,m1,e1,acc,1,0.01,100,hello
b,m1,e1,f1,0.5,0.01,100,hello
b,m1,e2,acc,0,0.02,,x
b,m1,e2,f1,0.2,0.02,,x
b,m2,e1,acc,1,0.03,300,y
b,m2,e1,f1,0.9,0.03,300,y
b,m2,e2,acc,1,0.04,400,z
b,m2,e2,f1,0.7,0.04,400,z
"""


def test_table_usage_columns_become_lower_is_better_metrics(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A long table's per-row cost and latency_ms columns (one value per example, repeated
    on its metrics' rows; an empty cell: not recorded) are stored as usage metrics."""
    path = tmp_path / "scores.csv"
    path.write_text(TABLE)
    url = f"sqlite:///{tmp_path / 'store.db'}"
    assert main(["import", str(path), "--db", url]) == 0
    store = open_store(url)
    catalog = store.catalog().set_index("metric")
    assert list(catalog.index) == ["acc", "f1", "cost", "latency_ms"]
    assert not catalog.loc[["cost", "latency_ms"], "higher_is_better"].any()
    cost = store.load_frame(benchmark="b", metric="cost").sort_values(["system", "example_id"])
    latency = store.load_frame(benchmark="b", metric="latency_ms")
    store.close()
    assert cost["value"].tolist() == [0.01, 0.02, 0.03, 0.04]
    assert sorted(latency["value"]) == [100.0, 300.0, 400.0]  # m1's e2 recorded none


@pytest.mark.parametrize(("edit", "rule"), [
    (("b,m1,e1,f1,0.5,0.01,100", "b,m1,e1,f1,0.5,0.09,100"), "cost differs between the rows"),
    (("b,m2,e2,f1,0.7", "b,m2,e2,cost,0.7"), "both a cost column and rows of metric cost"),
])
def test_table_usage_columns_refused_when_ambiguous(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], edit: tuple[str, str],
        rule: str) -> None:
    path = tmp_path / "scores.csv"
    path.write_text(TABLE.replace(*edit))
    url = f"sqlite:///{tmp_path / 'store.db'}"
    assert main(["import", str(path), "--db", url]) != 0
    err = capsys.readouterr().err
    assert rule in err and "scores.csv" in err
    assert open_store(url).catalog().empty  # nothing stored
