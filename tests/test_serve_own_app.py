"""``sigboard serve`` serves sigboard's own app, never a package named ``app`` that the working
directory (or ``sys.path``) holds: the app folder is the one beside the ``engine`` package
(:func:`engine.cli.serve.app_folder`), and the server runs with ``python -P`` and that
folder's parent first on its ``PYTHONPATH``. A wheel install is checked the same way in
tests/test_install.py (``sigboard serve`` from a folder with its own ``app/``)."""

from __future__ import annotations

import importlib.util
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from engine.cli import main
from engine.cli.serve import app_folder

ROOT = Path(__file__).resolve().parents[1]
MARKER = "SOMEONE ELSE'S APP WAS IMPORTED"


def _hostile_folder(folder: Path) -> Path:
    """A folder holding its own ``app`` package, which must never be imported."""
    (folder / "app").mkdir(parents=True)
    (folder / "app" / "__init__.py").write_text(f"raise SystemExit({MARKER!r})\n")
    (folder / "app" / "server.py").write_text(f"raise SystemExit({MARKER!r})\n")
    (folder / "app" / "streamlit.toml").write_text("[server]\nport = 1\n")
    return folder


def test_app_folder_is_sigboards_not_the_working_directorys(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    hostile = _hostile_folder(tmp_path)
    monkeypatch.chdir(hostile)
    monkeypatch.syspath_prepend(str(hostile))
    monkeypatch.delitem(sys.modules, "app", raising=False)
    spec = importlib.util.find_spec("app")  # what a top-level look-up would have served
    assert spec is not None and spec.origin == str(hostile / "app" / "__init__.py")
    folder = app_folder()
    assert folder == ROOT / "app"
    assert (folder / "server.py").is_file() and (folder / "streamlit.toml").is_file()


def test_serve_runs_sigboards_server_without_the_working_directory_on_its_path(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    hostile = _hostile_folder(tmp_path / "here")
    seen: dict[str, object] = {}

    def execve(path: str, argv: list[str], env: dict[str, str]) -> None:
        seen.update(path=path, argv=argv, env=env)
        raise SystemExit(0)

    monkeypatch.chdir(hostile)
    monkeypatch.syspath_prepend(str(hostile))
    monkeypatch.setattr(os, "execve", execve)
    monkeypatch.delenv("SIGBOARD_DB_URL", raising=False)
    monkeypatch.setenv("SIGBOARD_DB_PATH", str(tmp_path / "s.db"))
    monkeypatch.delenv("PYTHONPATH", raising=False)
    with pytest.raises(SystemExit):
        main(["serve", "--server.port", "8599"])
    argv = seen["argv"]
    assert isinstance(argv, list) and isinstance(seen["env"], dict)
    assert argv[:5] == [sys.executable, "-P", "-m", "streamlit", "run"]
    assert argv[5] == str(ROOT / "app" / "server.py")
    assert argv[-2:] == ["--server.port", "8599"]
    # this checkout is not on sys.path (an editable install's finder maps it): it goes first
    # on the server's path, and the working directory not at all
    entries = seen["env"]["PYTHONPATH"].split(os.pathsep)
    assert entries[0] == str(ROOT) and str(hostile) not in entries


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.slow
def test_serve_from_a_folder_with_its_own_app_answers_as_sigboard(tmp_path: Path) -> None:
    hostile = _hostile_folder(tmp_path)
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if k not in {"PYTHONPATH", "SIGBOARD_DB_URL"}}
    env["SIGBOARD_DB_PATH"] = str(tmp_path / "var" / "sigboard.db")
    log = tmp_path / "server.log"
    with open(log, "wb") as out:
        server = subprocess.Popen([sys.executable, "-m", "engine", "serve", "--server.port",
                                   str(port), "--server.address", "127.0.0.1"],
                                  cwd=hostile, env=env, stdout=out, stderr=subprocess.STDOUT)
    try:
        deadline, status = time.monotonic() + 180, None
        while time.monotonic() < deadline and status != 200:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health",
                                            timeout=2) as r:
                    status = r.status
            except OSError:
                assert server.poll() is None, log.read_text(errors="replace")[-3000:]
                time.sleep(0.5)
        assert status == 200, log.read_text(errors="replace")[-3000:]
        text = log.read_text(errors="replace")
        assert MARKER not in text
        assert "modules of the pages imported ahead" in text  # sigboard's server.py ran
        # its own "ready" line, printed once the app is prepared, names the address served
        assert f"sigboard: ready, open http://127.0.0.1:{port}" in text
    finally:
        server.terminate()
        server.wait(timeout=30)
