"""sigboard installs as a package (issue #24): a fresh virtual environment outside the
repository, ``pip install ROOT[app]``, then from another directory: ``sigboard --version``,
``sigboard leaderboard FILE --format json``, ``import engine`` and ``sigboard serve`` (the
health endpoint answers). The pins in requirements.txt are the constraints, so the install
takes the tested versions (from pip's cache after the first run).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.slow


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("venv")
    subprocess.run([sys.executable, "-m", "venv", str(folder)], check=True, timeout=300)
    pip = [str(folder / "bin" / "python"), "-m", "pip", "install", "-q", "--disable-pip-version-check"]
    pins = folder / "constraints.txt"  # requirements.txt without extras, which pip refuses there
    pins.write_text(re.sub(r"\[[^\]]*\]", "", (ROOT / "requirements.txt").read_text()))
    done = subprocess.run([*pip, "-c", str(pins), f"{ROOT}[app]"],
                          capture_output=True, text=True, timeout=900, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    shutil.rmtree(ROOT / "build", ignore_errors=True)  # setuptools' in-tree build folder
    return folder


def _run(venv: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in {"PYTHONPATH", "VIRTUAL_ENV"}}
    return subprocess.run([*args], cwd=cwd, env=env, capture_output=True, text=True, timeout=300,
                          check=False)


def test_console_script_and_import_from_elsewhere(venv: Path, tmp_path: Path) -> None:
    sigboard = str(venv / "bin" / "sigboard")
    version = _run(venv, sigboard, "--version", cwd=tmp_path)
    assert version.returncode == 0 and version.stdout.startswith("sigboard "), version.stderr
    data = ROOT / "data" / "humaneval.jsonl.gz"
    board = _run(venv, sigboard, "leaderboard", str(data), "--format", "json", cwd=tmp_path)
    assert board.returncode == 0, board.stderr
    rows = json.loads(board.stdout)
    assert rows, "an empty leaderboard"
    imported = _run(venv, str(venv / "bin" / "python"), "-c",
                    "import engine, sys; engine.leaderboard; print(engine.__file__)", cwd=tmp_path)
    assert imported.returncode == 0, imported.stderr
    installed = Path(imported.stdout.strip())
    assert ROOT not in installed.parents, f"engine imported from the checkout: {installed}"


def test_serve_answers_its_health_endpoint(venv: Path, tmp_path: Path) -> None:
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if k not in {"PYTHONPATH", "VIRTUAL_ENV"}}
    server = subprocess.Popen([str(venv / "bin" / "sigboard"), "serve", "--server.port", str(port),
                               "--server.address", "127.0.0.1"], cwd=tmp_path, env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        status = None
        while time.monotonic() < deadline and status != 200:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2) as r:
                    status = r.status
            except OSError:
                assert server.poll() is None, server.stderr.read() if server.stderr else ""
                time.sleep(0.5)
        assert status == 200
    finally:
        server.terminate()
        server.wait(timeout=30)
