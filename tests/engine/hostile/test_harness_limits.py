"""Issue #33 item 2 (and item 6's malformed logs): what harness logs produce is held to the
upload limits, the same in the CLI and the app. The logs come from scripts/hostile_corpus.py
(built into tmp_path); the limits are set small so the cases stay small."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from engine import Limits
from engine.store import open_store

# CLI subprocesses and unreachable-database timeouts: the full run, not the --fast loop
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[3]


def _corpus() -> ModuleType:
    spec = importlib.util.spec_from_file_location("hostile_corpus_33",
                                                  ROOT / "scripts" / "hostile_corpus.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


CORPUS = _corpus()


def _cli(*args: str, env: dict[str, str] | None = None,
         cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    full = {k: v for k, v in os.environ.items() if not k.startswith("SIGBOARD_")}
    full.update(env or {})
    return subprocess.run([sys.executable, "-m", "engine", *args], capture_output=True,
                          text=True, env=full, cwd=cwd or ROOT, timeout=300)


def _one_line_error(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode == 2, (done.returncode, done.stderr[-2000:])
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), done.stderr
    assert "Traceback" not in done.stderr
    return lines[0]


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return {p.name: p for p in CORPUS.write(tmp_path_factory.mktemp("hostile33"))}


def test_cli_honours_max_systems_for_harness_logs(logs: dict[str, Path]) -> None:
    zipped = logs["lm_eval_30_systems.zip"]
    line = _one_line_error(_cli("leaderboard", str(zipped), env={"SIGBOARD_MAX_SYSTEMS": "10"}))
    assert "30 systems" in line and "SIGBOARD_MAX_SYSTEMS" in line and zipped.name in line
    assert _cli("leaderboard", str(zipped)).returncode == 0, "within the default limit it loads"


def test_cli_import_of_too_many_systems_stores_nothing(logs: dict[str, Path],
                                                       tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    line = _one_line_error(_cli("import", "--db", f"sqlite:///{db}",
                                str(logs["lm_eval_30_systems.zip"]),
                                env={"SIGBOARD_MAX_SYSTEMS": "10"}))
    assert "SIGBOARD_MAX_SYSTEMS" in line
    if db.exists():
        store = open_store(f"sqlite:///{db}")
        assert store.load_frame().empty, "nothing stored"
        store.close()


@pytest.mark.parametrize(("env", "word"), [({"SIGBOARD_MAX_ROWS": "50"}, "SIGBOARD_MAX_ROWS"),
                                           ({"SIGBOARD_MAX_BENCHMARKS": "1",
                                             "SIGBOARD_MAX_TEXT_BYTES": "1k"},
                                            "SIGBOARD_MAX_TEXT_BYTES")])
def test_cli_honours_rows_and_text_limits_for_harness_logs(logs: dict[str, Path],
                                                           env: dict[str, str], word: str) -> None:
    name = "lm_eval_30_systems.zip" if word.endswith("ROWS") else "lm_eval_long_texts.zip"
    line = _one_line_error(_cli("leaderboard", str(logs[name]), env=env))
    assert word in line


def test_malformed_log_exits_2_with_one_line(logs: dict[str, Path], tmp_path: Path) -> None:
    line = _one_line_error(_cli("leaderboard", str(logs["malformed_lm_eval.zip"])))
    assert "not valid JSON" in line and "malformed_lm_eval.zip" in line
    line = _one_line_error(_cli("import", "--db", f"sqlite:///{tmp_path / 's.db'}",
                                str(logs["malformed_lm_eval.zip"])))
    assert "malformed_lm_eval.zip" in line


def test_app_refuses_harness_logs_over_the_limits_like_the_cli(logs: dict[str, Path]) -> None:
    from app.components.upload_read import parse

    content = logs["lm_eval_30_systems.zip"].read_bytes()
    refused = parse("lm.zip", content, limits=Limits(max_systems=10))
    assert refused.frame is None
    assert any("SIGBOARD_MAX_SYSTEMS" in p.fix for p in refused.problems), refused.problems
    assert parse("lm.zip", content, limits=Limits()).frame is not None
    texts = parse("t.zip", logs["lm_eval_long_texts.zip"].read_bytes(),
                  limits=Limits(max_text_bytes=1024))
    assert texts.frame is None and any("SIGBOARD_MAX_TEXT_BYTES" in p.fix
                                       for p in texts.problems)
    bad = parse("bad.zip", logs["malformed_lm_eval.zip"].read_bytes())
    assert bad.frame is None and any("not valid JSON" in p.rule for p in bad.problems)


def test_cli_import_records_the_os_user_and_host(tmp_path: Path) -> None:
    """Issue #33 item 7: the database credentials are the CLI's write permission, so an
    import records which OS account used them; --uploader is only a note beside it."""
    import getpass
    import socket

    data = tmp_path / "r.csv"
    data.write_text("benchmark,system,example_id,metric,value\nb,s1,e1,m,1\nb,s2,e1,m,0\n")
    db = tmp_path / "s.db"
    done = _cli("import", "--db", f"sqlite:///{db}", "--uploader", "Mallory the admin", str(data))
    assert done.returncode == 0, done.stderr
    store = open_store(f"sqlite:///{db}")
    uploader = str(store.uploads()["uploader"].iloc[0])
    store.close()
    assert uploader == f"{getpass.getuser()}@{socket.gethostname()} (Mallory the admin)"


def test_cli_changes_record_the_os_user_and_host(tmp_path: Path) -> None:
    """Aliases set and removed, deletes and cluster declarations through the CLI are
    recorded as made by the OS account too (the alias history shows it)."""
    import getpass
    import socket

    data = tmp_path / "r.csv"
    data.write_text("benchmark,system,example_id,metric,value\nb,s1,e1,m,1\nb,s2,e1,m,0\n")
    url = f"sqlite:///{tmp_path / 's.db'}"
    for args in (("import", "--db", url, str(data)), ("alias", "--db", url, "s1", "s2"),
                 ("alias", "--db", url, "--remove", "s1"), ("delete", "1", "--db", url)):
        done = _cli(*args)
        assert done.returncode == 0, (args, done.stderr)
    store = open_store(url)
    history = store.alias_history()
    store.close()
    me = f"{getpass.getuser()}@{socket.gethostname()}"
    assert list(history["created_by"]) == [me] and list(history["removed_by"]) == [me]


def test_cli_checks_the_size_before_reading(tmp_path: Path) -> None:
    """Issue #33 item 1: a file over SIGBOARD_MAX_BYTES is refused from its size on disk
    (a 2 GB file used to cost 2.17 GB); here 100 MB against a 10 MiB limit, peak < 400 MB."""
    path = tmp_path / "big.csv"
    with path.open("wb") as out:
        out.truncate(100_000_000)  # sparse: no disk used
    for command in (["leaderboard", str(path)],
                    ["import", "--db", f"sqlite:///{tmp_path / 's.db'}", str(path)]):
        line = _one_line_error(_cli(*command, env={"SIGBOARD_MAX_BYTES": "10M"}))
        assert "100,000,000 bytes" in line and "SIGBOARD_MAX_BYTES" in line
    env = {k: v for k, v in os.environ.items() if not k.startswith("SIGBOARD_")}
    env["SIGBOARD_MAX_BYTES"] = "10M"
    # the CLI's own peak (VmHWM of its process image): ru_maxrss of a child also keeps the
    # pre-exec peak of the forked copy of the test worker (Linux carries it across exec)
    code = ("import runpy, sys\n"
            f"sys.argv = ['engine', 'leaderboard', {str(path)!r}]\n"
            "try:\n    runpy.run_module('engine', run_name='__main__')\n"
            "except SystemExit as exc:\n    code = exc.code\n"
            "peak = next(l.split()[1] for l in open('/proc/self/status') if l.startswith('VmHWM'))\n"
            "print(peak, file=sys.stderr)\nsys.exit(code)\n")
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=300, check=False)
    peak_kb = int(proc.stderr.strip().splitlines()[-1])
    assert proc.returncode == 2 and peak_kb < 400_000, (peak_kb, proc.stderr)  # kB
