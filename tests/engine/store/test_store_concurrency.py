"""Concurrency and crash safety of the results store, on SQLite and PostgreSQL.

* 8 processes import different files while 4 processes read: no error, every upload
  is seen by readers either completely or not at all, nothing lost or duplicated.
* A process killed with SIGKILL in the middle of a large import (100,000 rows, killed
  after its first 25,000-row chunk went to the database) leaves none of it behind.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from engine.store._store import open_store

ROOT = Path(__file__).resolve().parents[3]
WRITERS, READERS, SYSTEMS, EXAMPLES = 8, 4, 10, 200
# Workers import only the store modules, not the whole engine package (its __init__
# pulls in scipy/statsmodels): process start-up dominates these tests on 2 cores.
LEAN = f"""
import sys, types
_pkg = types.ModuleType("engine")
_pkg.__path__ = [{str(ROOT / "engine")!r}]
sys.modules["engine"] = _pkg
"""

WRITER = LEAN + """
import json, sys
from engine.store._store import open_store
report = open_store(sys.argv[1]).import_file(sys.argv[2], uploader="writer")
print(json.dumps({"upload_id": report.upload_id, "rows": report.rows}))
"""

READER = LEAN + """
import json, os, sys, time
from engine.store._store import open_store
store = open_store(sys.argv[1])
expected = json.loads(sys.argv[2])
stop = sys.argv[3]
reads = 0
while True:
    done = os.path.exists(stop)
    frame = store.load_frame()
    counts = frame.groupby("benchmark").size().to_dict()
    for bench, n in counts.items():
        if n != expected[bench]:
            raise SystemExit(f"partial upload visible: {bench} has {n} of {expected[bench]}")
    if frame.duplicated(["benchmark", "system", "example_id", "metric", "run"]).any():
        raise SystemExit("duplicate keys visible")
    store.catalog(); store.data_version(); store.uploads()
    reads += 1
    if done:
        break
    time.sleep(0.5)
print(json.dumps({"reads": reads}))
"""

CRASHER = LEAN + """
import os, sys, time
from engine.store import _io as _store_io
from engine.store._store import ResultsStore, open_store
_store_io._ROW_CHUNK = 25_000  # 4 chunks: the kill lands after the first
def hook(rows):
    print("CHUNK", rows, flush=True)
    time.sleep(120)
ResultsStore.after_chunk = staticmethod(hook)
open_store(sys.argv[1]).import_file(sys.argv[2])
"""


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return env


def _write_file(path: Path, bench: str, systems: int, examples: int, seed: int) -> int:
    rng = np.random.default_rng(seed)
    s, e = np.meshgrid(np.arange(systems), np.arange(examples), indexing="ij")
    frame = pd.DataFrame({"benchmark": bench, "system": [f"sys{i}" for i in s.ravel()],
                          "example_id": [f"ex{i}" for i in e.ravel()], "metric": "acc",
                          "value": rng.random(s.size).round(6)})
    frame.to_csv(path, index=False)
    return len(frame)


def _run_concurrently(url: str, tmp_path: Path) -> None:
    open_store(url)  # schema created once; the workers race on everything else
    expected = {}
    files = []
    for i in range(WRITERS):
        path = tmp_path / f"bench{i}.csv"
        expected[f"bench{i}"] = _write_file(path, f"bench{i}", SYSTEMS, EXAMPLES, i)
        files.append(path)
    stop = tmp_path / "stop"
    readers = [subprocess.Popen([sys.executable, "-c", READER, url, json.dumps(expected),
                                 str(stop)], env=_env(), stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True) for _ in range(READERS)]
    writers = [subprocess.Popen([sys.executable, "-c", WRITER, url, str(f)], env=_env(),
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
               for f in files]
    outputs = [w.communicate(timeout=240) for w in writers]
    stop.touch()
    read_outputs = [r.communicate(timeout=240) for r in readers]
    for proc, (out, err) in zip(writers + readers, outputs + read_outputs, strict=True):
        assert proc.returncode == 0, err
    reports = [json.loads(out) for out, _ in outputs]
    assert sorted(r["upload_id"] for r in reports) == list(range(1, WRITERS + 1))
    assert all(json.loads(out)["reads"] >= 1 for out, _ in read_outputs)
    store = open_store(url)
    frame = store.load_frame()
    assert frame.groupby("benchmark").size().to_dict() == expected  # nothing lost
    assert not frame.duplicated(["benchmark", "system", "example_id", "metric", "run"]).any()
    assert len(store.uploads()) == WRITERS
    assert store.data_version() == str(WRITERS)
    for i in range(WRITERS):  # values intact
        original = pd.read_csv(files[i], dtype={"example_id": str})
        stored = frame[frame["benchmark"] == f"bench{i}"]
        np.testing.assert_array_equal(stored["value"].to_numpy(), original["value"].to_numpy())


@pytest.mark.slow
def test_concurrent_imports_and_reads_sqlite(sqlite_url: str, tmp_path: Path) -> None:
    _run_concurrently(sqlite_url, tmp_path)


@pytest.mark.slow
@pytest.mark.postgres
def test_concurrent_imports_and_reads_postgres(pg_url: str, tmp_path: Path) -> None:
    _run_concurrently(pg_url, tmp_path)


def _crash(url: str, tmp_path: Path) -> None:
    store = open_store(url)
    small = tmp_path / "small.csv"
    _write_file(small, "kept", 3, 10, 0)
    store.import_file(small)
    before, version = store.dump(), store.data_version()
    big = tmp_path / "big.csv"
    _write_file(big, "big", 20, 5000, 1)  # 100,000 rows = 4 insert chunks of 25,000
    proc = subprocess.Popen([sys.executable, "-c", CRASHER, url, str(big)], env=_env(),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    line = proc.stdout.readline()  # blocks until the first chunk is in the database
    assert line.startswith("CHUNK 25000"), proc.stderr.read() if proc.stderr else line
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL
    proc.stdout.close()
    if proc.stderr:
        proc.stderr.close()
    deadline = time.monotonic() + 30
    while True:  # PostgreSQL notices the dead client within a moment
        try:
            assert store.dump() == before and store.data_version() == version
            break
        except AssertionError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.5)
    after = tmp_path / "after.csv"
    rows = _write_file(after, "after", 3, 10, 2)
    report = store.import_file(after)  # the store is usable and the write lock is free
    assert report.upload_id is not None and len(store.load_frame("after")) == rows


@pytest.mark.slow
def test_sigkill_mid_import_sqlite(sqlite_url: str, tmp_path: Path) -> None:
    _crash(sqlite_url, tmp_path)
    path = sqlite_url.removeprefix("sqlite:///")
    import sqlite3

    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)


@pytest.mark.slow
@pytest.mark.postgres
def test_sigkill_mid_import_postgres(pg_url: str, tmp_path: Path) -> None:
    _crash(pg_url, tmp_path)
