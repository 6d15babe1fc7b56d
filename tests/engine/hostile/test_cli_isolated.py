"""The CLI parses every format in the memory-capped child, as the app does (issue #33):
tables, harness log files and folders; SIGBOARD_MAX_MEMBERS holds for folders and zips.

The proof that a format goes through the child: with ``SIGBOARD_MAX_PARSE_MEMORY`` too
small for the child to even start pandas, the CLI refuses the file (exit 2, one line
naming the memory limit), although the CLI process itself has no such cap.
"""

from __future__ import annotations

import importlib.util
import io
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
pytestmark = pytest.mark.slow


def _lm_eval_zip(systems: int) -> bytes:
    spec = importlib.util.spec_from_file_location("hostile_logs", ROOT / "scripts" /
                                                  "hostile_corpus.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    data: bytes = module.lm_eval_systems(systems)
    return data


def _cli(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "engine", *args], capture_output=True,
                          text=True, cwd=ROOT, timeout=300, check=False,
                          env={**os.environ, **env})


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An lm-eval output folder of 3 systems (6 files)."""
    out = tmp_path_factory.mktemp("logs") / "lm_eval_run"
    zipfile.ZipFile(io.BytesIO(_lm_eval_zip(3))).extractall(out)
    return out


def _one_error(done: subprocess.CompletedProcess[str]) -> str:
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2 and len(lines) == 1, done.stderr[-2000:]
    return lines[0]


def test_a_folder_is_read_and_its_member_limit_holds(folder: Path) -> None:
    assert _cli("leaderboard", str(folder)).returncode == 0
    line = _one_error(_cli("leaderboard", str(folder), SIGBOARD_MAX_MEMBERS="4"))
    assert line.startswith("error: lm_eval_run: the folder holds more than 4 files (the limit "
                           "per upload is 4)") and "SIGBOARD_MAX_MEMBERS" in line


@pytest.mark.parametrize("kind", ["folder", "table", "zip"])
def test_every_format_is_parsed_in_the_capped_child(folder: Path, tmp_path: Path,
                                                    kind: str) -> None:
    if kind == "folder":
        target = folder
    elif kind == "table":
        target = tmp_path / "r.csv"
        target.write_text("system,example_id,value\nA,e1,1\nB,e1,0\n")
    else:
        target = tmp_path / "logs.zip"
        target.write_bytes(_lm_eval_zip(2))
    line = _one_error(_cli("leaderboard", str(target), SIGBOARD_MAX_PARSE_MEMORY="40M"))
    assert "memory limit of 40 MiB" in line and target.name in line, line


def test_import_reads_a_folder_in_the_child_and_stores_nothing_over_a_limit(
        folder: Path, tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'store.db'}"
    line = _one_error(_cli("import", str(folder), "--db", db, SIGBOARD_MAX_SYSTEMS="2"))
    assert "the file has 3 systems (the limit per upload is 2)" in line
    done = _cli("import", str(folder), "--db", db)
    assert done.returncode == 0, done.stderr[-2000:]
