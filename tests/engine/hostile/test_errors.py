"""Issue #33 item 6: errors with a message — an unreachable database, a full disk, a malformed
or too deeply nested log: the CLI exits 2 with one line, the app shows one message, and no
password of a database URL is ever printed (not even the part a driver quotes as a host)."""

from __future__ import annotations

import errno
import io
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from engine.app_support import masked, safe_url

# CLI subprocesses and unreachable-database timeouts: the full run, not the --fast loop
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[3]
#: Passwords holding the characters that confused the old masking: '@', ':' and '/'.
URLS = ["postgresql://reader:s3cr:et@pw99@127.0.0.1:1/results",
        "postgresql://reader:top/secret@127.0.0.1:1/results",
        "postgresql+psycopg://u:abc@defg@nohost.invalid/x"]


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SIGBOARD_")}
    return subprocess.run([sys.executable, "-m", "engine", *args], capture_output=True,
                          text=True, env=env, cwd=ROOT, timeout=120)


def _secret_parts(url: str) -> list[str]:
    password = url.split("://", 1)[1].split(":", 1)[1].rsplit("@", 1)[0]
    return [password, *[p for p in password.replace("@", ":").replace("/", ":").split(":")
                        if len(p) >= 3]]


def deep_eval() -> bytes:
    """An Inspect .eval (a zip) of a few hundred bytes whose members nest 100,000 deep."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("header.json", "[" * 100_000 + "]" * 100_000)
        zf.writestr("samples/a_epoch_1.json", '{"a":' * 50_000 + "1" + "}" * 50_000)
    return buffer.getvalue()


@pytest.mark.parametrize("url", URLS)
def test_unreachable_database_one_line_and_no_password(url: str) -> None:
    for args in (["leaderboard", url], ["import", "--db", url, "nothing.csv"]):
        done = _cli(*args)
        assert done.returncode == 2, done.stderr
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: "), done.stderr
        for secret in _secret_parts(url):
            assert secret not in done.stderr, (secret, done.stderr)


def test_url_without_a_scheme_is_masked_too() -> None:
    done = _cli("import", "--db", "user:pa55word@host/db", "x.csv")
    assert done.returncode == 2 and "pa55word" not in done.stderr, done.stderr


def test_masking_functions() -> None:
    assert safe_url(URLS[0]) == "postgresql://reader:***@127.0.0.1:1/results"
    assert safe_url(URLS[1]) == "postgresql://reader:***@127.0.0.1:1/results"
    assert safe_url("sqlite:////tmp/x.db") == "sqlite:////tmp/x.db"
    assert masked("failed to resolve host 'pw99@127.0.0.1'", [URLS[0]]) == \
        "failed to resolve host '***@127.0.0.1'"


def test_full_disk_is_one_line_saying_nothing_was_stored() -> None:
    from engine.cli._main import _disk_full

    message = _disk_full(OSError(errno.ENOSPC, "No space left on device"))
    assert message is not None and "nothing was stored" in message
    assert _disk_full(OSError(errno.ENOENT, "missing")) is None

    class Operational(Exception):
        orig = "database or disk is full"

    assert _disk_full(Operational()) is not None


def test_app_store_problem_masks_and_names_a_full_disk() -> None:
    from app.config import store_problem

    full = store_problem(OSError(errno.ENOSPC, "No space left on device"), URLS[0])
    assert "full" in full and "nothing was stored" in full and "s3cr" not in full
    refused = store_problem(RuntimeError("failed to resolve host 'pw99@127.0.0.1'"), URLS[0])
    assert "pw99" not in refused and "s3cr" not in refused and "reader:***@" in refused


def test_deeply_nested_eval_is_one_line_in_the_cli_and_a_problem_in_the_app(
        tmp_path: Path) -> None:
    path = tmp_path / "deep.eval"
    path.write_bytes(deep_eval())
    assert path.stat().st_size < 4096
    done = _cli("leaderboard", str(path))
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1, done.stderr
    from app.components.upload_read import parse

    parsed = parse("deep.eval", path.read_bytes())
    assert parsed.frame is None and parsed.problems, "a problem, not 'Something went wrong'"
