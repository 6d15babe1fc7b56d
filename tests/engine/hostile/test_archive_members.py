"""Issue #33 item 1 (part): an archive with more files than ``Limits.max_members`` is refused
from its end record, before any member or directory entry is read (a 100,000-file zip took
more than 900 s to walk); Zip64 archives (more than 65,535 members) too."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from engine import DataContractError, Limits
from engine.harness import read_harness
from engine.harness._walk import zip_member_count

ROOT = Path(__file__).resolve().parents[3]


def many_files(n: int) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as zf:
        for i in range(n):
            zf.writestr(f"m/samples_t_{i}.jsonl", b"")
    return buffer.getvalue()


@pytest.fixture(scope="module")
def zip64() -> bytes:
    return many_files(70_000)  # past 65,535: Python writes a Zip64 end record


@pytest.mark.slow
def test_member_count_from_the_end_record(zip64: bytes) -> None:
    assert zip_member_count(many_files(12)) == 12
    assert zip_member_count(zip64) == 70_000
    assert zip_member_count(b"not a zip") is None


@pytest.mark.slow
@pytest.mark.parametrize("suffix", [".zip", ".eval"])
def test_too_many_members_refused_naming_the_limit(zip64: bytes, suffix: str) -> None:
    assert Limits().max_members < 70_000
    with pytest.raises(DataContractError) as err:
        read_harness((f"many{suffix}", zip64))
    assert "70,000 files" in str(err.value) and "SIGBOARD_MAX_MEMBERS" in str(err.value)
    small = many_files(Limits().max_members + 1)
    with pytest.raises(DataContractError, match="SIGBOARD_MAX_MEMBERS"):
        read_harness((f"small{suffix}", small))


@pytest.mark.slow
def test_cli_refuses_a_100k_file_zip_with_one_line(tmp_path: Path) -> None:
    path = tmp_path / "many.zip"
    path.write_bytes(many_files(100_000))
    env = {k: v for k, v in os.environ.items() if not k.startswith("SIGBOARD_")}
    done = subprocess.run([sys.executable, "-m", "engine", "leaderboard", str(path)],
                          capture_output=True, text=True, env=env, cwd=ROOT, timeout=120)
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert "100,000 files" in done.stderr
