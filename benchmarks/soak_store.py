"""Crash-safety soak of a SQLite results store shared by a server-like process and the CLI.

Usage (from the repository root)::

    .venv/bin/python benchmarks/soak_store.py [--rounds 200] [--seed 0] [--check-every 50]
        [--kill-prob 0.08] [--cli-prob 1] [--cli sigboard|module|"CMD ..."] [--keep DIR]
        [--json]

Another revision: copy this script into a worktree of it and run it there with
``--cli module`` (the app and the CLI then import that tree's engine; the first line
printed says which engine each one imports), e.g. the code before commit a344407 with
``PYTHONPATH=/tmp/adbc:/tmp/old`` (its ADBC reads, the data loss, need the driver).

One store file (``sqlite:///TMP/soak.db``), several processes, ``--rounds`` rounds of
interleaved work chosen by a seeded RNG:

* an **app** process, long-lived like the server (this script with ``--app URL``): it
  imports the engine, opens the store with ``open_store``, and per command on its stdin
  commits an upload as the Upload page does (``read_results_bytes`` then
  ``import_frame(..., content=...)`` of a small generated CSV whose systems are unique to
  the upload) or reads as the pages do (``load_frame``, ``catalog``, ``uploads``); it
  writes the upload id on stdout only once ``import_frame`` has returned: that upload is
  *confirmed*;
* **CLI** calls, real subprocesses run beside the app's work: ``uploads``,
  ``leaderboard``, ``export`` reading the store, and ``import --format json`` of a
  generated file (an upload id in its report is *confirmed*). ``--cli`` picks the command:
  ``sigboard`` (default: the script beside this Python), ``module`` (``python -m engine``
  with this tree on PYTHONPATH, for a tree whose engine is not installed), or a command
  line;
* **kills** (``--kill-prob`` a round; drawn from a random stream of their own, so which
  rounds kill depends on the seed alone): the app (SIGKILL, sometimes SIGTERM) at a random
  moment — a random 0-300 ms after it began an upload (in the middle of its commit), or
  during a read — then restarted at the next round; a CLI import (twice that chance)
  somewhere between half and all of a typical import's time after its start.

Every ``--check-every`` rounds (0: never) and at the end (after every process has
stopped) the store file is read with Python's ``sqlite3`` alone (no engine: an
independent reader) and compared with what was confirmed: every confirmed upload is
there under its id with exactly its rows (texts, order and values equal), no id was
confirmed for two uploads, and nothing is there that was never started. An upload killed
before it was confirmed may or may not be there (counted as "unconfirmed, present" /
"unconfirmed, absent"; when present its rows must be complete). Also ``PRAGMA
integrity_check``.

Prints the rounds, the uploads confirmed (app / CLI), found, missing (a confirmed upload
not under its id), reused ids, wrong rows, never started, unconfirmed present / absent,
kills, CLI calls and errors, and the wall time and where it went (``--json``: also one
JSON line of the counts). Exits 1 when a confirmed upload is missing or wrong, an id was
reused, something never started is present, the file fails its integrity check, or a
process failed unexpectedly.
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import random
import shlex
import shutil
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from contextlib import closing, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

#: Benchmarks of the soak and their example counts (an upload: 1-2 new systems x these).
BENCHMARKS = {"soak0": 300, "soak1": 1500, "soak2": 4000}
METRIC = "score"
#: Seconds any one step may take before the soak gives up on it (bounded waits).
STEP_TIMEOUT = 180.0


# ---------------------------------------------------------------- the app process
def app_main(url: str) -> int:
    """The server-like process: commands on stdin (JSON lines), answers on stdout."""
    import engine
    from engine.io._readers import read_results_bytes
    from engine.store import open_store

    try:
        import adbc_driver_sqlite  # type: ignore[import-not-found]  # noqa: F401

        adbc = True
    except ImportError:
        adbc = False
    store = open_store(url)

    def say(**message: Any) -> None:
        sys.stdout.write(json.dumps(message) + "\n")
        sys.stdout.flush()

    say(ready=os.getpid(), engine=str(Path(engine.__file__).parent), adbc=adbc)
    for line in sys.stdin:
        cmd = json.loads(line)
        if cmd["op"] == "upload":
            path = Path(cmd["file"])
            content = path.read_bytes()
            frame = read_results_bytes(content, label=path.name)
            say(begin=cmd["tag"])
            report = store.import_frame(frame, filename=path.name, content=content,
                                        uploader="soak app", note="soak")
            say(committed=cmd["tag"], upload_id=report.upload_id,
                duplicate_of=report.duplicate_of)
        elif cmd["op"] == "read":
            rows = len(store.load_frame(cmd["benchmark"], METRIC)) if cmd["benchmark"] else 0
            catalog = store.catalog()
            uploads = store.uploads()
            say(read=rows, benchmarks=len(catalog), uploads=len(uploads))
        else:
            say(error=f"unknown op {cmd['op']!r}")
    return 0


# ---------------------------------------------------------------- uploads and checks
@dataclass
class Upload:
    """One generated upload: its file and what it must hold in the store."""

    tag: str
    by: str  # "app" or "cli"
    benchmark: str
    systems: list[str]
    values: np.ndarray  # system-major, then example order (the file's row order)
    path: Path
    confirmed: int | None = None  # the upload id reported once committed

    @property
    def filename(self) -> str:
        return self.path.name

    def examples(self) -> list[str]:
        return [f"ex{j}" for j in range(BENCHMARKS[self.benchmark])]


def make_upload(folder: Path, tag: str, by: str, rng: random.Random) -> Upload:
    benchmark = rng.choice(sorted(BENCHMARKS))
    systems = [f"{tag}-s{i}" for i in range(rng.choice((1, 2)))]
    n = BENCHMARKS[benchmark]
    values = np.random.default_rng(rng.getrandbits(63)).random(len(systems) * n)
    # a few values that test exactness: 0, 1, a subnormal (read by the store's fallback
    # query), 0.1 and 1/3 (no short decimal)
    edges = [0.0, 1.0, 2.0**-1060, 0.1, 1 / 3]
    values[: len(edges)] = edges
    up = Upload(tag, by, benchmark, systems, values, folder / f"soak-{tag}.csv")
    frame = pd.DataFrame({"benchmark": benchmark, "system": np.repeat(systems, n),
                          "example_id": up.examples() * len(systems), "metric": METRIC,
                          "value": values})
    frame.to_csv(up.path, index=False)  # floats as repr: they read back exactly
    return up


@dataclass
class Verdict:
    confirmed_app: int = 0
    confirmed_cli: int = 0
    found: int = 0
    missing: list[str] = field(default_factory=list)
    reused: list[int] = field(default_factory=list)
    wrong_rows: list[str] = field(default_factory=list)
    never_started: list[str] = field(default_factory=list)
    unconfirmed_present: int = 0
    unconfirmed_absent: int = 0
    integrity: str = ""

    @property
    def ok(self) -> bool:
        return not (self.missing or self.reused or self.wrong_rows or self.never_started
                    or self.integrity not in ("ok", "skipped"))


def check(db: Path, uploads: dict[str, Upload], *, integrity: bool) -> Verdict:
    """Compare the store file (read with sqlite3 alone, in one read transaction) with what
    was started and confirmed."""
    verdict = Verdict()
    by_name = {u.filename: u for u in uploads.values()}
    with closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=60)) as conn:
        conn.execute("BEGIN")
        stored = conn.execute("SELECT id, filename FROM uploads").fetchall()
        labels = dict(conn.execute("SELECT id, text FROM labels").fetchall())
        rows: dict[int, list[tuple[Any, ...]]] = {}
        for rec in conn.execute("SELECT upload_id, benchmark_id, system_id, example_key, "
                                "metric_id, run, value FROM results ORDER BY upload_id, pos"):
            rows.setdefault(int(rec[0]), []).append(rec[1:])
        history = conn.execute("SELECT count(*) FROM results_history").fetchone()[0]
        verdict.integrity = (conn.execute("PRAGMA integrity_check").fetchone()[0]
                             if integrity else "skipped")
        conn.execute("COMMIT")
    if history:
        verdict.wrong_rows.append(f"{history} rows in results_history (nothing replaces)")
    ids_of_name = {str(name): int(ident) for ident, name in stored}
    verdict.found = len(stored)
    seen: dict[int, str] = {}
    for up in uploads.values():
        if up.confirmed is None:
            continue
        if up.by == "app":
            verdict.confirmed_app += 1
        else:
            verdict.confirmed_cli += 1
        if up.confirmed in seen:
            verdict.reused.append(up.confirmed)
        seen[up.confirmed] = up.tag
    stored_name = {int(ident): str(name) for ident, name in stored}
    for ident, filename in stored_name.items():
        started = by_name.get(filename)
        if started is None:
            verdict.never_started.append(f"{ident}:{filename}")
            continue
        if started.confirmed is None:
            verdict.unconfirmed_present += 1
        if not _same_rows(started, rows.get(ident, []), labels):
            verdict.wrong_rows.append(f"{ident}:{filename} ({len(rows.get(ident, []))} rows)")
    for up in uploads.values():
        if up.confirmed is None:
            verdict.unconfirmed_absent += up.filename not in ids_of_name
            continue
        held = stored_name.get(up.confirmed)
        if held != up.filename:
            verdict.missing.append(f"{up.tag} (upload {up.confirmed}, by {up.by}"
                                   + (")" if held is None else f"; the id holds {held} now)"))
            if held is not None:
                verdict.reused.append(up.confirmed)  # the id was given to another upload
    verdict.reused = sorted(set(verdict.reused))
    return verdict


def _same_rows(up: Upload, got: list[tuple[Any, ...]], labels: dict[int, str]) -> bool:
    n = BENCHMARKS[up.benchmark]
    if len(got) != len(up.values):
        return False
    text = np.vectorize(lambda i: labels.get(int(i), "?"), otypes=[object])
    arr = np.array([r[:5] for r in got], dtype=np.int64)
    values = np.array([r[5] for r in got], dtype=np.float64)
    return bool((text(arr[:, 0]) == up.benchmark).all()
                and (text(arr[:, 1]) == np.repeat(up.systems, n)).all()
                and (text(arr[:, 2]) == np.array(up.examples() * len(up.systems))).all()
                and (text(arr[:, 3]) == METRIC).all() and (arr[:, 4] == 0).all()
                and np.array_equal(values, up.values))


# ---------------------------------------------------------------- processes
def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [env.get("PYTHONPATH")])])
    env.pop("SIGBOARD_DB_URL", None)
    return env


class App:
    """The app process: started, asked, killed."""

    def __init__(self, url: str, log: Path) -> None:
        self.log = open(log, "ab")  # noqa: SIM115 (closed in stop)
        self.proc = subprocess.Popen(
            [sys.executable, str(Path(__file__).resolve()), "--app", url],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log, env=_env(),
            cwd=ROOT, text=True, bufsize=1)
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.reader = threading.Thread(target=self._read, args=(self.proc.stdout,), daemon=True)
        self.reader.start()
        self.ready = self.answer("ready")

    def _read(self, stream: IO[str] | None) -> None:
        assert stream is not None
        for line in stream:
            self.lines.put(line)
        self.lines.put(None)

    def send(self, **cmd: Any) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(cmd) + "\n")
        self.proc.stdin.flush()

    def answer(self, key: str, timeout: float = STEP_TIMEOUT) -> dict[str, Any]:
        """The next message holding ``key`` (RuntimeError when the app dies or is silent)."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                line = self.lines.get(timeout=max(deadline - time.monotonic(), 0.01))
            except queue.Empty:
                raise RuntimeError(f"the app did not answer {key!r} in {timeout:.0f} s") from None
            if line is None:
                raise RuntimeError(f"the app exited ({self.proc.wait(timeout=30)}) before "
                                   f"answering {key!r}")
            message: dict[str, Any] = json.loads(line)
            if "error" in message:
                raise RuntimeError(f"the app: {message['error']}")
            if key in message:
                return message

    def kill(self, sig: int) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        self.stop()

    def stop(self) -> None:
        if self.proc.poll() is None:
            if self.proc.stdin is not None:
                with suppress(OSError):
                    self.proc.stdin.close()
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=30)
        self.reader.join(timeout=10)
        self.log.close()


def cli_command(choice: str) -> list[str]:
    if choice == "module":
        return [sys.executable, "-m", "engine"]
    if choice == "sigboard":
        script = Path(sys.executable).with_name("sigboard")
        return [str(script)] if script.exists() else [sys.executable, "-m", "engine"]
    return shlex.split(choice)


def cli_engine(cli: list[str]) -> str:
    """Where the CLI's interpreter finds the engine (with the children's environment)."""
    python = sys.executable if Path(cli[0]).name == "sigboard" else cli[0]
    out = subprocess.run([python, "-c", "import engine, pathlib; "
                          "print(pathlib.Path(engine.__file__).parent)"],
                         capture_output=True, text=True, env=_env(), cwd=ROOT, timeout=120)
    return out.stdout.strip() or out.stderr.strip()[-200:]


# ---------------------------------------------------------------- the soak
def _kill_running(proc: subprocess.Popen[str], killed: threading.Event) -> None:
    """A CLI call's kill, from its timer: only while it runs."""
    if proc.poll() is None:
        proc.kill()
        killed.set()


@dataclass
class Counts:
    app_kills: Counter[str] = field(default_factory=Counter)
    cli_kills: int = 0
    cli_calls: Counter[str] = field(default_factory=Counter)
    errors: list[str] = field(default_factory=list)
    app_starts: int = 0
    app_uploads: int = 0
    app_reads: int = 0
    #: wall seconds spent starting the app, on its commands, waiting for CLI calls, checking
    seconds: dict[str, float] = field(default_factory=lambda: dict.fromkeys(
        ("app start", "app commands", "CLI wait", "checks"), 0.0))


def soak(args: argparse.Namespace, folder: Path) -> tuple[Verdict, Counts, list[str]]:
    rng = random.Random(args.seed)
    # kills drawn from their own stream: which rounds kill the app depends on the seed
    # alone, not on what the timing of earlier rounds made the main stream draw
    kills = random.Random(f"kills {args.seed}")
    db = folder / "soak.db"
    url = f"sqlite:///{db}"
    cli = cli_command(args.cli)
    uploads: dict[str, Upload] = {}
    counts = Counts()
    checks: list[str] = []
    app: App | None = None
    running: subprocess.Popen[str] | None = None
    serial = 0
    import_times: list[float] = []

    def new_upload(by: str) -> Upload:
        nonlocal serial
        serial += 1
        up = make_upload(folder, f"{by[0]}{serial:05d}", by, rng)
        uploads[up.tag] = up
        return up

    def benchmark_with_data(systems: int = 1) -> str:
        """A benchmark with at least ``systems`` confirmed systems ("" when none)."""
        held = Counter(u.benchmark for u in uploads.values() if u.confirmed is not None
                       for _ in u.systems)
        known = sorted(b for b, n in held.items() if n >= systems)
        return rng.choice(known) if known else ""

    def start_app() -> App:
        counts.app_starts += 1
        started = App(url, folder / "app.log")
        if counts.app_starts == 1:
            print(f"engine: app {started.ready['engine']} (adbc_driver_sqlite importable: "
                  f"{started.ready['adbc']}); CLI {' '.join(cli)} -> {cli_engine(cli)}",
                  flush=True)
        return started

    try:
        for rnd in range(args.rounds):
            if app is None:
                t0 = time.monotonic()
                app = start_app()
                counts.seconds["app start"] += time.monotonic() - t0
            # this round's kills: six draws from their own stream every round
            k_app, k_point, k_delay, k_signal, k_cli, k_cli_delay = (
                kills.random() for _ in range(6))
            # a CLI call, running beside the app's work of this round
            kind = ""
            cli_upload: Upload | None = None
            cli_timer: threading.Timer | None = None
            cli_killed = threading.Event()
            if rng.random() < args.cli_prob:
                kind = rng.choices(["import", "uploads", "leaderboard", "export"],
                                   weights=[3, 2, 2, 2])[0]
                bench = benchmark_with_data(2 if kind == "leaderboard" else 1)
                if kind in ("leaderboard", "export") and not bench:
                    kind = "uploads"
                if kind == "import":
                    cli_upload = new_upload("cli")
                    argv = ["import", "--db", url, "--format", "json", "--uploader",
                            "soak cli", str(cli_upload.path)]
                elif kind == "uploads":
                    argv = ["uploads", url, "--format", "json"]
                elif kind == "leaderboard":
                    argv = ["leaderboard", url, "--benchmark", bench, "--metric", METRIC,
                            "--bt-resamples", "0", "--format", "json"]
                else:
                    argv = ["export", url, "--benchmark", bench]
                counts.cli_calls[kind] += 1
                started = time.monotonic()
                running = subprocess.Popen([*cli, *argv], stdout=subprocess.PIPE,
                                           stderr=subprocess.PIPE, text=True, env=_env(),
                                           cwd=ROOT)
                if kind == "import" and k_cli < args.kill_prob * 2:
                    # somewhere in its run: from half to all of a whole import's time,
                    # by a timer (the app's work of the round goes on meanwhile)
                    typical = statistics.median(import_times) if import_times else 2.0
                    cli_timer = threading.Timer((0.5 + 0.5 * k_cli_delay) * typical,
                                                _kill_running, (running, cli_killed))
                    cli_timer.start()
            # the app's work: uploads and reads, maybe a kill
            ops = [rng.choice(["upload", "read"]) for _ in range(rng.randint(1, 3))]
            kill_point = int(k_point * len(ops)) if k_app < args.kill_prob else -1
            t0 = time.monotonic()
            for i, op in enumerate(ops):
                assert app is not None
                try:
                    if op == "upload":
                        up = new_upload("app")
                        app.send(op="upload", tag=up.tag, file=str(up.path))
                        if i == kill_point:
                            app.answer("begin")
                            time.sleep(0.3 * k_delay)
                        else:
                            msg = app.answer("committed")
                            up.confirmed = int(msg["upload_id"])
                            counts.app_uploads += 1
                    else:
                        app.send(op="read", benchmark=benchmark_with_data())
                        if i == kill_point:
                            time.sleep(0.1 * k_delay)
                        else:
                            app.answer("read")
                            counts.app_reads += 1
                except RuntimeError as exc:
                    counts.errors.append(f"round {rnd}: {exc}")
                    app.stop()
                    app = None
                    break
                if i == kill_point:
                    sig = signal.SIGTERM if k_signal < 0.3 else signal.SIGKILL
                    counts.app_kills[signal.Signals(sig).name] += 1
                    counts.app_kills[f"during {op}"] += 1
                    app.kill(sig)
                    app = None  # restarted at the next round
                    break
            counts.seconds["app commands"] += time.monotonic() - t0
            # the CLI call's end (or its kill)
            t0 = time.monotonic()
            if running is not None:
                try:
                    out, err = running.communicate(timeout=STEP_TIMEOUT)
                except subprocess.TimeoutExpired:
                    running.kill()
                    out, err = running.communicate(timeout=30)
                    counts.errors.append(f"round {rnd}: {kind} timed out")
                finally:
                    if cli_timer is not None:
                        cli_timer.cancel()
                        cli_timer.join(timeout=30)
                rc = running.returncode
                running = None
                if cli_killed.is_set() and rc != 0:
                    counts.cli_kills += 1  # killed by us: unconfirmed
                elif rc != 0:
                    counts.errors.append(f"round {rnd}: sigboard {kind} exited {rc}: "
                                         f"{err.strip()[-300:]}")
                elif cli_upload is not None:
                    import_times.append(time.monotonic() - started)
                    report = json.loads(out)["uploads"][0]
                    if report["upload_id"] is None:
                        counts.errors.append(f"round {rnd}: import stored nothing: {report}")
                    else:
                        cli_upload.confirmed = int(report["upload_id"])
            counts.seconds["CLI wait"] += time.monotonic() - t0
            if args.check_every and (rnd + 1) % args.check_every == 0:
                t0 = time.monotonic()
                v = check(db, uploads, integrity=False)
                counts.seconds["checks"] += time.monotonic() - t0
                line = (f"round {rnd + 1}: confirmed {v.confirmed_app + v.confirmed_cli}, "
                        f"found {v.found}, missing {len(v.missing)}, reused {len(v.reused)}, "
                        f"wrong rows {len(v.wrong_rows)}")
                checks.append(line)
                print(line, flush=True)
    finally:
        if running is not None and running.poll() is None:
            running.kill()
            running.communicate(timeout=30)
        if app is not None:
            app.stop()
    return check(db, uploads, integrity=True), counts, checks


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--check-every", type=int, default=50, metavar="N",
                        help="also compare the store every N rounds (0: only at the end)")
    parser.add_argument("--kill-prob", type=float, default=0.08,
                        help="chance a round kills the app (twice that: a CLI import)")
    parser.add_argument("--cli-prob", type=float, default=1.0,
                        help="chance a round runs a CLI call beside the app's work")
    parser.add_argument("--cli", default="sigboard",
                        help="sigboard | module (python -m engine) | a command line")
    parser.add_argument("--keep", type=Path, default=None,
                        help="work in this folder and keep it (default: a temporary one)")
    parser.add_argument("--json", action="store_true", help="also print the counts as JSON")
    parser.add_argument("--app", metavar="URL", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.app:
        return app_main(args.app)
    # SIGTERM ends the soak through its finally blocks: every child stopped, folder removed
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
    wall = time.perf_counter()
    if args.keep is not None:
        args.keep.mkdir(parents=True, exist_ok=True)
        folder = args.keep
    else:
        folder = Path(tempfile.mkdtemp(prefix="sigboard-soak-"))
    try:
        verdict, counts, _ = soak(args, folder)
    finally:
        if args.keep is None:
            shutil.rmtree(folder, ignore_errors=True)
    took = time.perf_counter() - wall
    app_kills = sum(v for k, v in counts.app_kills.items() if k.startswith("SIG"))
    summary = {
        "rounds": args.rounds, "seed": args.seed,
        "confirmed_app": verdict.confirmed_app, "confirmed_cli": verdict.confirmed_cli,
        "found": verdict.found, "missing": len(verdict.missing), "reused": len(verdict.reused),
        "wrong_rows": len(verdict.wrong_rows), "never_started": len(verdict.never_started),
        "unconfirmed_present": verdict.unconfirmed_present,
        "unconfirmed_absent": verdict.unconfirmed_absent, "integrity": verdict.integrity,
        "app_kills": app_kills, "app_kills_by_kind": dict(counts.app_kills),
        "cli_kills": counts.cli_kills, "app_starts": counts.app_starts,
        "app_uploads": counts.app_uploads, "app_reads": counts.app_reads,
        "cli_calls": dict(counts.cli_calls), "errors": len(counts.errors),
        "wall_s": round(took, 1), "ok": verdict.ok and not counts.errors,
    }
    print(f"rounds {args.rounds} (seed {args.seed}), wall time {took:.0f} s")
    print(f"uploads confirmed committed: {verdict.confirmed_app + verdict.confirmed_cli} "
          f"(app {verdict.confirmed_app}, CLI {verdict.confirmed_cli})")
    print(f"uploads found in the store: {verdict.found}")
    print(f"confirmed, missing: {len(verdict.missing)}")
    print(f"reused ids: {len(verdict.reused)}")
    print(f"wrong rows: {len(verdict.wrong_rows)}")
    print(f"present, never started: {len(verdict.never_started)}")
    print(f"unconfirmed, present: {verdict.unconfirmed_present}; unconfirmed, absent: "
          f"{verdict.unconfirmed_absent}")
    how = ", ".join(f"{k} {v}" for k, v in sorted(counts.app_kills.items())) or "-"
    print(f"kills: app {app_kills} ({how}), CLI import {counts.cli_kills}; app started "
          f"{counts.app_starts} times")
    print(f"app commands: {counts.app_uploads} uploads, {counts.app_reads} reads; CLI calls: "
          + ", ".join(f"{k} {v}" for k, v in sorted(counts.cli_calls.items())))
    print(f"integrity_check: {verdict.integrity}; unexpected errors: {len(counts.errors)}")
    print("wall seconds: " + ", ".join(f"{k} {v:.0f}" for k, v in counts.seconds.items()))
    for label, items in (("missing", verdict.missing), ("reused", verdict.reused),
                         ("wrong rows", verdict.wrong_rows),
                         ("never started", verdict.never_started), ("error", counts.errors)):
        for item in list(items)[:10]:
            print(f"  {label}: {item}")
        if len(items) > 10:
            print(f"  … and {len(items) - 10} more {label}")
    if args.json:
        print(json.dumps(summary))
    return 0 if summary["ok"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
