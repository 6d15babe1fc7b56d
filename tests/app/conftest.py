"""Fixtures of the AppTest tests: a store with the bundled demo data, copied for each test.

Each test gets its own SQLite store (a copy of one built per worker from ``data/``),
named by ``SIGBOARD_DB_PATH``, so nothing touches ``var/``. Helper functions that
drive a page are in ``apptest_support.py`` (a helper module, not a test module).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from engine import read_results
from engine.store import open_store

ROOT = Path(__file__).resolve().parents[2]
BT_EVAL = ROOT / "tests" / "data" / "bt-eval" / "bt_eval_scores_long.csv.gz"


@pytest.fixture(scope="session")
def template_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store holding the bundled demo data (built once per test worker)."""
    path = tmp_path_factory.mktemp("template") / "sigboard.db"
    store = open_store(f"sqlite:///{path}")
    store.ensure_demo_data(ROOT / "data")
    store.close()
    return path


@pytest.fixture
def db(template_db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """This test's own copy of the demo store; the app's environment points at it."""
    path = tmp_path / "sigboard.db"
    shutil.copy(template_db, path)
    monkeypatch.delenv("SIGBOARD_DB_URL", raising=False)
    monkeypatch.delenv("SIGBOARD_UPLOAD_TOKEN", raising=False)
    monkeypatch.delenv("SIGBOARD_UPLOAD_ALLOW", raising=False)
    monkeypatch.setenv("SIGBOARD_DB_PATH", str(path))
    return path


@pytest.fixture(scope="session")
def bt_eval() -> Path:
    """bt-eval's long CSV: 14 metrics shared by 5 datasets (tests/data/README.md)."""
    return BT_EVAL


@pytest.fixture
def tac_db(db: Path, bt_eval: Path) -> Path:
    """The demo store plus bt-eval's TAC2008 (14 metrics on the same examples)."""
    df = read_results(bt_eval)
    store = open_store(f"sqlite:///{db}")
    store.import_frame(df[df["benchmark"] == "TAC2008"].reset_index(drop=True),
                       filename="bt_eval TAC2008")
    store.close()
    return db
