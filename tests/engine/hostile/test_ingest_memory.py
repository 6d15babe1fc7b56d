"""Small hostile logs refused by `sigboard import` within 1 GB for the whole process tree
(the redesign's "one ingest"): the decision is made once, in the child capped at 1 GiB;
the CLI parses nothing itself. Before, a 43 KB zstd .eval cost 4.1 GB and a 190 KB
.json.gz 3.9 GB (benchmarks/bench_ingest_memory.py has the figures)."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest

from engine.store import open_store

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc")]


def _corpus() -> ModuleType:
    spec = importlib.util.spec_from_file_location("hostile_corpus_ingest", HERE / "make_corpus.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


corpus = _corpus()
CASES: dict[str, tuple[Callable[[], bytes], str]] = {
    "zstd_bomb.eval": (corpus.zstd_bomb_eval, "zip member samples/1_epoch_1.json"),
    "tiny_objects.json.gz": (corpus.tiny_objects_json_gz, "tiny_objects.json.gz"),
    "parquet_bomb.zip": (corpus.parquet_bomb_zip, "parquet_bomb.zip:results.parquet"),
}


def _tree_rss_kb(pid: int) -> int:
    total, todo = 0, [pid]
    while todo:
        p = todo.pop()
        try:
            with open(f"/proc/{p}/status") as handle:
                total += next((int(line.split()[1]) for line in handle
                               if line.startswith("VmRSS")), 0)
            with open(f"/proc/{p}/task/{p}/children") as handle:
                todo.extend(int(c) for c in handle.read().split())
        except (OSError, ValueError):
            continue
    return total


@pytest.mark.parametrize("name", sorted(CASES))
def test_import_refuses_within_1_gb_naming_the_member(tmp_path: Path, name: str) -> None:
    build, member = CASES[name]
    path = tmp_path / name
    path.write_bytes(build())
    db = tmp_path / "s.db"
    env = {k: v for k, v in os.environ.items() if not k.startswith("SIGBOARD_")}
    proc = subprocess.Popen([sys.executable, "-m", "engine", "import", str(path), "--db",
                             f"sqlite:///{db}"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            cwd=ROOT, env=env)
    peak = 0
    while proc.poll() is None:
        peak = max(peak, _tree_rss_kb(proc.pid))
        time.sleep(0.005)
    _, err = proc.communicate(timeout=600)
    lines = [line for line in err.decode().splitlines() if line.strip()]
    assert proc.returncode == 2, err[-2000:]
    assert len(lines) == 1 and lines[0].startswith(f"error: {name}") and member in lines[0], lines
    assert "Traceback" not in err.decode()
    assert peak < 1_000_000, f"peak RSS of the process tree: {peak:,} kB"
    if db.exists():
        store = open_store(f"sqlite:///{db}")
        assert store.load_frame().empty, "nothing stored"
        store.close()
