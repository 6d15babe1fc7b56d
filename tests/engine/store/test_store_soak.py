"""The crash-safety soak of a shared SQLite store (``benchmarks/soak_store.py``).

* Its check sees what it must: a confirmed upload that is gone, an id confirmed for two
  uploads, rows that differ, something stored that was never started (no subprocess).
* A short soak (8 rounds: an app process, real ``sigboard`` calls beside it, three kills
  of the app with SIGKILL and SIGTERM, a CLI import killed when one runs in a killing
  round) loses no confirmed upload and reuses no id.

The long run is the script's default (200 rounds). On the code before commit a344407
(with ``adbc_driver_sqlite`` importable) the same soak finds about half of the app's
confirmed uploads gone and their ids given to later uploads.
"""

from __future__ import annotations

import importlib.util
import json
import random
import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path
from types import ModuleType

import pytest

from engine.store._store import open_store

# every test here takes seconds: ./scripts/test.sh --fast leaves them out
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[3]
SOAK = ROOT / "benchmarks" / "soak_store.py"


def _soak_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("soak_store", SOAK)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["soak_store"] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


def test_the_check_sees_lost_reused_wrong_and_unknown_uploads(tmp_path: Path) -> None:
    soak = _soak_module()
    rng = random.Random(0)
    ups = {tag: soak.make_upload(tmp_path, tag, "app", rng) for tag in ("a1", "a2", "a3")}
    ups["a4"] = soak.make_upload(tmp_path, "a4", "cli", rng)  # started, never confirmed
    db = tmp_path / "s.db"
    url = f"sqlite:///{db}"
    store = open_store(url)
    for tag in ("a1", "a2", "a3"):
        ups[tag].confirmed = store.import_file(ups[tag].path).upload_id
    store.close()
    clean = soak.check(db, ups, integrity=True)
    assert clean.ok and clean.found == 3 and clean.confirmed_app == 3
    assert (clean.missing, clean.reused, clean.unconfirmed_absent) == ([], [], 1)

    stray = soak.make_upload(tmp_path, "x9", "app", rng)  # stored, but not by the soak
    store = open_store(url)
    store.import_file(stray.path)
    store.close()
    with closing(sqlite3.connect(db)) as conn, conn:
        conn.execute("DELETE FROM results WHERE upload_id = 3")
        conn.execute("DELETE FROM uploads WHERE id = 3")  # a3 lost
        conn.execute("UPDATE results SET value = value + 1 WHERE upload_id = 2 AND pos = 7")
    ups["a4"].confirmed = 1  # a second upload confirmed under id 1
    seen = soak.check(db, ups, integrity=True)
    assert not seen.ok
    assert len(seen.missing) == 2 and seen.reused == [1]  # a3 gone; id 1 holds a1, not a4
    assert [w.split(":")[0] for w in seen.wrong_rows] == ["2"]
    assert seen.never_started == [f"4:{stray.filename}"]


@pytest.mark.slow
def test_a_short_soak_with_kills_loses_nothing(tmp_path: Path) -> None:
    # seed 4, kill chance 0.25: the app is killed in rounds 2, 3 and 5 (the kills have a
    # random stream of their own, so these rounds do not depend on the timing); a CLI call
    # in half the rounds (each costs a Python start-up and the engine's imports)
    proc = subprocess.run(
        [sys.executable, str(SOAK), "--rounds", "8", "--seed", "4", "--kill-prob", "0.25",
         "--cli-prob", "0.5", "--check-every", "4", "--keep", str(tmp_path / "soak"),
         "--json"],
        capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert proc.stdout.strip(), proc.stderr
    summary = json.loads(proc.stdout.strip().splitlines()[-1])
    assert summary["missing"] == 0 and summary["reused"] == 0, proc.stdout
    assert summary["wrong_rows"] == 0 and summary["never_started"] == 0, proc.stdout
    assert summary["integrity"] == "ok" and summary["errors"] == 0, proc.stdout
    assert summary["app_kills"] == 3 and summary["app_starts"] == 4, proc.stdout
    assert summary["confirmed_app"] + summary["confirmed_cli"] >= 2, proc.stdout
    assert proc.returncode == 0, proc.stdout + proc.stderr
