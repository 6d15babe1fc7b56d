"""Peak memory of a process rejecting each hostile upload (target: <= 1 GB each).

For every bomb, two fresh child processes are measured with ``os.wait4`` (peak RSS):

* ``read_results`` in-process, as the CLI and the store run it;
* ``python -m engine.io._worker``, the child that ``parse_isolated`` starts (the
  app's Upload page), with its default memory cap.

The second round adds the formats and cases that bypassed the capped parser (archives, harness
logs, JSON(.gz), ``.eval``, too many systems) through the whole CLI, ``python -m engine
leaderboard FILE``: the peak RSS of the CLI and every process it waited for
(``RUSAGE_CHILDREN``), per case.

Usage: ``.venv/bin/python benchmarks/bench_hostile.py [--cli-only] [--only NAME ...]``
(a few minutes; writes the bombs to a temporary directory, a few MB each), and
``--flood 80`` for the upload flood on a real open server (80 live sessions x 40 MiB;
``--budget 512M`` to try another ``SIGBOARD_UPLOAD_BUDGET``).
"""

from __future__ import annotations

import argparse
import dataclasses
import gzip
import importlib.util
import io
import json
import os
import subprocess
import sys
import tempfile
import time
import zipfile
import zlib
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

sys.path.insert(0, str(ROOT / "benchmarks"))  # _rss, also when a test loads this file
from _rss import status_kb  # noqa: E402

from engine.io._limits import Limits  # noqa: E402

_spec = importlib.util.spec_from_file_location(
    "hostile_corpus", ROOT / "tests" / "engine" / "hostile" / "make_corpus.py")
assert _spec is not None and _spec.loader is not None
corpus = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(corpus)
MiB = 1 << 20

IN_PROCESS = """
import sys
from engine._contract import DataContractError
from engine.io._readers import read_results
try:
    read_results(sys.argv[1])
    print("accepted")
except DataContractError as exc:
    print(str(exc).splitlines()[0])
"""


def bombs() -> dict[str, bytes]:
    """The issue's inputs, at their reported sizes."""
    rows = b"b,A,e1,m,1\n"
    per_block = MiB // len(rows)
    return {
        "deep_20000.jsonl (120 KB, 20,000 levels)": corpus.deep_20000(),
        "bomb_single.csv.gz (5 GiB of spaces, 1 member)":
            corpus.gzip_repeat(b" " * MiB, 5 * 1024, head=corpus.HEADER),
        "bomb_multi.csv.gz (small member + 40 x 64 MiB)":
            zlib.compress(corpus.HEADER + b"b,A,e1,m,1\n", wbits=31)
            + corpus.gzip_repeat(b" " * MiB, 64) * 40,
        "rows_1.9GB.csv.gz (1.9 GB of short rows)":
            corpus.gzip_repeat(rows * per_block, 1900, head=corpus.HEADER),
        "systems_1m.csv (1,000,000 systems)": corpus.systems_1m(),
        "metrics_10k_wide.csv (10,000 metric columns)": corpus.metrics_10k_wide(),
        "metrics_10k_long.csv (10,000 metrics)": corpus.metrics_10k_long(),
    }


def peak_of(cmd: list[str], stdin_path: Path | None) -> tuple[float, float, int, str]:
    """(seconds, peak RSS in MB, exit code, last stdout line) of one child process."""
    start = time.perf_counter()
    with open(stdin_path or os.devnull, "rb") as stdin:
        proc = subprocess.Popen(cmd, stdin=stdin, stdout=subprocess.PIPE,  # noqa: S603
                                stderr=subprocess.DEVNULL, cwd=ROOT)
        out = proc.stdout.read() if proc.stdout else b""
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
    seconds = time.perf_counter() - start
    text = out.decode("utf-8", "replace").strip().splitlines()
    return seconds, usage.ru_maxrss / 1024, proc.returncode, (text[-1] if text else "")


def main() -> None:
    header = json.dumps({"name": "upload", "fmt": None,
                         "limits": dataclasses.asdict(Limits())})
    print(f"{'case':48} {'file MB':>8} | {'read_results':>21} | {'parse worker':>21}")
    print(f"{'':48} {'':>8} | {'s':>7} {'peak MB':>8} {'exit':>4} | "
          f"{'s':>7} {'peak MB':>8} {'exit':>4}")
    worst = 0.0
    messages = {}
    with tempfile.TemporaryDirectory() as tmp:
        for label, data in bombs().items():
            path = Path(tmp) / label.split(" ")[0]
            path.write_bytes(data)
            s1, rss1, code1, msg = peak_of([sys.executable, "-c", IN_PROCESS, str(path)], None)
            s2, rss2, code2, _ = peak_of([sys.executable, "-m", "engine.io._worker",
                                          header.replace('"upload"', json.dumps(path.name))],
                                         path)
            worst = max(worst, rss1, rss2)
            messages[label] = msg
            print(f"{label:48} {len(data) / 1e6:8.2f} | {s1:7.1f} {rss1:8.0f} {code1:4d} | "
                  f"{s2:7.1f} {rss2:8.0f} {code2:4d}")
    print(f"\nworst peak RSS: {worst:.0f} MB (target <= 1000 MB); worker exit 3 = rejected")
    for label, msg in messages.items():
        print(f"- {label.split(' ')[0]}: {msg[:160]}")


_WRAPPER = ("import resource, subprocess, sys; "
            "done = subprocess.run(sys.argv[1:], capture_output=True, text=True); "
            "print(done.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss); "
            "print(done.stderr.strip()[:160])")


def _load(path: Path, name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _zip(members: dict[str, bytes], method: int = zipfile.ZIP_DEFLATED) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", method) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return buffer.getvalue()


def cases() -> dict[str, tuple[Callable[[], bytes], dict[str, str]]]:
    old = _load(ROOT / "tests" / "engine" / "hostile" / "make_corpus.py", "make_corpus")
    new = _load(ROOT / "scripts" / "hostile_corpus.py", "hostile_corpus")
    spaces = b"benchmark,system,example_id,metric,value\n" + b" " * (600 * MiB)
    return {
        "bomb_single.csv.gz": (old.bomb_single, {}),
        "bomb_multi.csv.gz": (old.bomb_multi, {}),
        "csv_bomb_in.zip": (lambda: _zip({"r.csv": spaces}), {}),
        "json_bomb.json.gz": (lambda: gzip.compress(b'{"a": "' + b" " * (600 * MiB) + b'"}', 9),
                              {}),
        "deep.eval": (lambda: _zip({"header.json": b"[" * 100_000 + b"]" * 100_000}), {}),
        # tests/engine/hostile/make_corpus.py's (the one builder): 500 MiB of tiny JSON
        # objects in a Zstandard member, within the size limit
        "zstd_bomb.eval": (lambda: old.zstd_bomb_eval(500), {}),
        "lm_eval_2500_systems.zip": (lambda: new.lm_eval_systems(2500),
                                     {"SIGBOARD_MAX_SYSTEMS": "100"}),
        "malformed_lm_eval.zip": (new.malformed_lm_eval, {}),
        "dictionary_bomb.parquet": (old.dictionary_bomb, {}),
        "lighteval_parquet_bomb.zip": (lambda: _zip({
            "details/m/2025-01-01T00-00-00/details_t_2025-01-01T00-00-00.parquet":
                old.dictionary_bomb()}), {}),
        "many_members.zip": (lambda: _zip({f"f{i}.json": b"{}" for i in range(20_000)}), {}),
        "big_plain.csv": (lambda: b"benchmark,system,example_id,metric,value\n"
                          + b"b,s,e,m,1\n" * (60 * MiB // 10), {"SIGBOARD_MAX_BYTES": "32M"}),
    }


def cli_main(only: list[str] | None) -> None:
    print("\nEvery case through the CLI (python -m engine leaderboard FILE), peak RSS "
          "of the CLI process and every child it waited for")
    print(f"{'case':<26} {'bytes':>10} {'exit':>4} {'peak MB':>8} {'s':>6}  message")
    with tempfile.TemporaryDirectory() as tmp:
        for name, (build, env) in cases().items():
            if only and name not in only:
                continue
            path = Path(tmp) / name
            path.write_bytes(build())
            full_env = {"PATH": "/usr/bin:/bin", **env}
            start = time.perf_counter()
            done = subprocess.run([sys.executable, "-c", _WRAPPER, sys.executable, "-m",
                                   "engine", "leaderboard", str(path)], capture_output=True,
                                  text=True, cwd=ROOT, env=full_env, timeout=1800)
            seconds = time.perf_counter() - start
            first, _, message = done.stdout.partition("\n")
            code, peak_kb = (int(x) for x in first.split())
            print(f"{name:<26} {path.stat().st_size:>10,} {code:>4} {peak_kb / 1024:>8.0f} "
                  f"{seconds:>6.1f}  {message.strip()[:90]}", flush=True)
            path.unlink()
    print(json.dumps({"target_peak_mb": 1024}))


def _serve(tmp: str, env_extra: dict[str, str]) -> tuple[subprocess.Popen[bytes], int]:
    """A real server (app/server.py, no token, XSRF off as a scripted attacker has the
    cookie anyway) on a free port, once it answers its health check.

    A server that exits before answering is started again on another port (at most three
    times): the free port can be taken by another process between this check and the
    server's bind (tests run in parallel, each starting servers). One that never answers
    within three minutes (a loaded machine) is an error, not a port to connect to."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("SIGBOARD_")}
    env.update(SIGBOARD_DB_PATH=str(Path(tmp) / "s.db"),
               STREAMLIT_BROWSER_GATHER_USAGE_STATS="false", **env_extra)
    for _ in range(3):
        port = _free_port()
        proc = subprocess.Popen([sys.executable, "-m", "streamlit", "run", "app/server.py",  # noqa: S603
                                 "--server.address", "127.0.0.1", "--server.port", str(port),
                                 "--server.headless", "true", "--server.enableXsrfProtection",
                                 "false"], cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
        if _healthy(proc, port, deadline=time.monotonic() + 180):
            return proc, port
    raise RuntimeError(f"app/server.py exited before answering, three times (last exit code "
                       f"{proc.returncode})")


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _healthy(proc: subprocess.Popen[bytes], port: int, *, deadline: float) -> bool:
    """True once the server answers its health check; False if it exits first; an error if
    it neither answers nor exits before ``deadline`` (it is stopped)."""
    import urllib.request

    while proc.poll() is None:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2).read()
            return True
        except OSError:
            if time.monotonic() > deadline:
                proc.kill()
                raise RuntimeError(f"app/server.py did not answer on port {port} within "
                                   "three minutes") from None
            time.sleep(0.5)
    return False


async def _live_session(port: int) -> tuple[object, str]:
    """A websocket session, as a browser opens one, and the id the server gave it."""
    import asyncio

    import websockets
    from streamlit.proto.BackMsg_pb2 import BackMsg
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    ws = await websockets.connect(f"ws://127.0.0.1:{port}/_stcore/stream", max_size=None)
    back = BackMsg()
    back.rerun_script.query_string = ""
    await ws.send(back.SerializeToString())
    for _ in range(500):
        msg = ForwardMsg()
        msg.ParseFromString(await asyncio.wait_for(ws.recv(), 60))
        if msg.WhichOneof("type") == "new_session":
            return ws, msg.new_session.initialize.session_id
    raise RuntimeError("the server sent no session id")


def _put(port: int, session: str, i: int, size: int) -> int:
    import urllib.error
    import urllib.request

    body = (b'--b\r\nContent-Disposition: form-data; name="files[]"; filename="x.csv"\r\n\r\n'
            + b"0" * size + b"\r\n--b--\r\n")
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/_stcore/upload_file/{session}/f{i}", data=body, method="PUT",
        headers={"Content-Type": "multipart/form-data; boundary=b"})
    try:
        return int(urllib.request.urlopen(request, timeout=120).status)
    except urllib.error.HTTPError as exc:
        return int(exc.code)
    except OSError:
        return 0  # refused before the body was read: the server closed the connection


#: benchmarks/_rss.py's (tests/app/test_app_hostile.py reads it under this name)
_status_kb = status_kb


def flood_main(sessions: int, env_extra: dict[str, str]) -> None:
    """The upload flood: ``sessions`` live sessions of an open server (no token) each PUT
    40 MiB; peak RSS of the server (VmHWM) and the answers."""
    import asyncio

    async def run() -> None:
        with tempfile.TemporaryDirectory() as tmp:
            proc, port = _serve(tmp, env_extra)
            try:
                before = _status_kb(proc.pid, "VmRSS")
                sockets, statuses = [], []
                for i in range(sessions):
                    ws, session = await _live_session(port)
                    sockets.append(ws)
                    statuses.append(await asyncio.to_thread(_put, port, session, i, 40 * MiB))
                counts = {s: statuses.count(s) for s in sorted(set(statuses))}
                print(f"\nflood: {sessions} x 40 MiB from {sessions} live sessions, no token, "
                      f"{env_extra or 'default budgets'}: answers {counts} (0 = refused before "
                      f"the body), server up: {proc.poll() is None}, RSS before "
                      f"{before / 1024:.0f} MB, peak {_status_kb(proc.pid, 'VmHWM') / 1024:.0f} MB")
                for ws in sockets:
                    await ws.close()  # type: ignore[attr-defined]
            finally:
                proc.kill()
                proc.wait()

    asyncio.run(run())


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cli-only", action="store_true", help="only the CLI cases")
    parser.add_argument("--only", nargs="*", default=None, help="CLI cases by file name")
    parser.add_argument("--flood", type=int, default=0, metavar="N",
                        help="only the upload flood: N sessions x 40 MiB on an open server")
    parser.add_argument("--budget", default="", help="SIGBOARD_UPLOAD_BUDGET for --flood")
    options = parser.parse_args()
    if options.flood:
        flood_main(options.flood, {"SIGBOARD_UPLOAD_BUDGET": options.budget}
                   if options.budget else {})
    else:
        if not options.cli_only:
            main()
        cli_main(options.only)
