"""The real server and the real CLI on one results store: nothing committed is lost, no
upload id is given twice, across a stop or a kill of the server and its restart.

Why: the SQLite store lost data when the app and the CLI used the same file. The engine
read SQLite through two SQLite libraries in one process (Python's sqlite3 and the ADBC
driver's own copy); POSIX locks belong to the process, so each time the ADBC copy closed
its connection, the server's sqlite3 connections lost their locks on the store. A CLI
process that then read the store believed itself the last connection: it checkpointed and
deleted the -wal and -shm files the server still used, the server's later commits went into
a deleted file and were gone at its restart, and upload ids were given again (fixed in
a344407: SQLite is read through sqlite3 alone).

The scenario, with processes started as a user starts them (``sigboard serve``, which
becomes ``streamlit run app/server.py``; ``sigboard uploads|leaderboard|export|import``),
and each result file cut from bt-eval's real scores (tests/data/bt-eval):

0. the CLI imports a first file (a store with data of its own: the app adds no demo data);
1. the server commits an upload from its Upload page (Chromium via Playwright) and then
   reads the store (that benchmark's Leaderboard: the read that dropped the locks);
2. the CLI reads the store and imports another file;
3. the server commits a second upload;
4. the server is stopped (SIGTERM) or killed (SIGKILL) and restarted on the same store,
   and commits one more upload;
5. the store (as the CLI reads it) holds every upload, with the ids given at commit time
   (distinct, increasing), each row equal to its file's (values exactly, in any order).

Also with two servers on one SQLite file (uploads through each, the CLI in between, one of
them killed and restarted, then one more upload through each, the one that never stopped
last),
and on PostgreSQL (expected to hold in any case).

Every process runs the engine of the checkout this file is in (its root first on
``PYTHONPATH``, and its root as working directory), so that the test runs against an
older checkout (a ``git worktree``) too.
"""

from __future__ import annotations

import csv
import gzip
import io
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from conftest import ARGS, CHROMIUM, require_browser
from e2e_support import healthy, idle, open_context, title

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
BT_EVAL = ROOT / "tests" / "data" / "bt-eval" / "bt_eval_scores_long.csv.gz"
HEADER = ("benchmark", "system", "example_id", "metric", "value")
#: Playwright's timeout for the page waits (ms): a cold page on 2 shared cores.
WAIT = 120_000
#: Settings of the developer's environment that would point the app or the CLI elsewhere.
_CLEARED = ("SIGBOARD_DB_URL", "SIGBOARD_DB_PATH", "SIGBOARD_UPLOAD_TOKEN",
            "SIGBOARD_UPLOAD_ALLOW")

STOPS = [pytest.param(signal.SIGTERM, id="sigterm"), pytest.param(signal.SIGKILL, id="sigkill")]

Row = tuple[str, str, str, str, float]


def _environment(store: str | None) -> dict[str, str]:
    """The environment of a server or CLI process on the store ``store`` (a SQLite file's
    path, or a SQLAlchemy URL; None: no store): this checkout's engine first on the import
    path."""
    env = {k: v for k, v in os.environ.items() if k not in _CLEARED}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [env.get("PYTHONPATH")])])
    env["STREAMLIT_BROWSER_GATHER_USAGE_STATS"] = "false"
    if store is not None:
        env["SIGBOARD_DB_URL" if "://" in store else "SIGBOARD_DB_PATH"] = store
    return env


def _store_url(store: str) -> str:
    """The URL the CLI is given for ``store`` (a SQLite file's path becomes ``sqlite:///…``)."""
    return store if "://" in store else f"sqlite:///{store}"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    """The app as ``sigboard serve`` runs it (``python -m engine serve``, which becomes
    ``python -m streamlit run app/server.py`` with the app's settings) on 127.0.0.1, over
    ``store``; its output goes to ``log``. :meth:`start` again after :meth:`stop` restarts
    it on the same store (on a fresh port)."""

    def __init__(self, store: str, log: Path) -> None:
        self.store, self.log = store, log
        self.proc: subprocess.Popen[bytes] | None = None
        self.url = ""

    def launch(self) -> None:
        """Start the server's process on a free port (:meth:`wait` waits for it)."""
        assert self.proc is None, "already running"
        port = _free_port()
        with open(self.log, "ab") as out:
            out.write(f"\n--- start on port {port}\n".encode())
            out.flush()
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "engine", "serve", "--server.address", "127.0.0.1",
                 "--server.port", str(port)],
                cwd=ROOT, env=_environment(self.store), stdout=out, stderr=subprocess.STDOUT)
        self.url = f"http://127.0.0.1:{port}"

    def wait(self) -> str:
        """Wait for the launched server's health check (launched again on another port when
        it exited first: a free port can be taken before the server binds it); returns its
        address."""
        for _ in range(3):
            assert self.proc is not None, "not launched"
            # a checkout whose kernels were never compiled compiles them before the port
            # opens: ~10 s of CPU, a minute's wall on a loaded machine
            deadline = time.monotonic() + 180
            while not healthy(self.url):
                if self.proc.poll() is not None:
                    break
                if time.monotonic() > deadline:
                    self.stop(signal.SIGKILL)
                    raise RuntimeError(f"the server did not become healthy: {self.tail()}")
                time.sleep(0.3)
            else:
                return self.url
            self.proc = None
            self.launch()
        self.stop(signal.SIGKILL)
        raise RuntimeError(f"the server exited before answering: {self.tail()}")

    def start(self) -> str:
        """Start the server and wait for its health check; returns its address."""
        self.launch()
        return self.wait()

    def stop(self, how: signal.Signals = signal.SIGTERM) -> None:
        """Stop the server with the signal ``how`` and wait for its exit (SIGKILL after 20 s
        when a SIGTERM was not enough); nothing when it is not running."""
        proc, self.proc = self.proc, None
        if proc is None:
            return
        if proc.poll() is None:
            proc.send_signal(how)
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=20)

    def tail(self, n: int = 3000) -> str:
        """The end of the server's output (for a failure's message)."""
        return self.log.read_text(errors="replace")[-n:] if self.log.exists() else ""


def _cli(store: str, *args: str) -> str:
    """Run ``sigboard ARGS`` (``python -m engine``) on ``store``; its standard output."""
    return _clis(store, list(args))[0]


def _clis(store: str, *commands: list[str]) -> list[str]:
    """Run the ``sigboard`` commands ``commands`` on ``store`` side by side (several CLI
    processes at once, as several users' would be); their standard outputs."""
    procs = [subprocess.Popen([sys.executable, "-m", "engine", *args], cwd=ROOT,
                              env=_environment(store), stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for args in commands]
    outputs, failures = [], []
    for args, proc in zip(commands, procs, strict=True):
        try:
            out, err = proc.communicate(timeout=300)
        except subprocess.TimeoutExpired:
            proc.kill()
            out, err = proc.communicate()
        outputs.append(out)
        if proc.returncode != 0:
            failures.append(f"sigboard {' '.join(args)} exited with {proc.returncode}:\n"
                            f"{out}\n{err}")
    if failures:
        raise AssertionError("\n".join(failures))
    return outputs


def _engine_file() -> str:
    """The ``engine`` package's file that the server's and the CLI's Python import."""
    done = subprocess.run([sys.executable, "-c", "import engine; print(engine.__file__)"],
                          cwd=ROOT, env=_environment(None), capture_output=True, text=True,
                          timeout=60, check=True)
    return done.stdout.strip()


@dataclass(frozen=True)
class Upload:
    """A results file: its path, its one benchmark, its rows as read from the file and,
    once stored, the upload id the store gave it."""

    path: Path
    benchmark: str
    rows: tuple[Row, ...]
    upload_id: int = 0


@cache
def _bt_eval() -> tuple[tuple[str, ...], ...]:
    with gzip.open(BT_EVAL, "rt", newline="") as f:
        return tuple(tuple(r) for r in csv.reader(f))[1:]  # dataset,metric,instance,system,score


def _results_file(folder: Path, name: str, dataset: str, metric: str, *, systems: int = 4,
                 examples: int = 30) -> Upload:
    """A long CSV cut from bt-eval's real scores (``dataset``'s ``metric``, its first
    ``systems`` systems on its first ``examples`` instances) as the benchmark
    ``{dataset}-{name}``, written to ``folder/{name}.csv`` with the values' text unchanged."""
    benchmark = f"{dataset.lower()}-{name}"
    wanted = {f"M{i}" for i in range(systems)}
    rows = [(benchmark, system, instance, m, score)
            for d, m, instance, system, score in _bt_eval()
            if d == dataset and m == metric and system in wanted and int(instance) < examples]
    assert len(rows) == systems * examples, (dataset, metric, len(rows))
    path = folder / f"{name}.csv"
    with open(path, "w", newline="") as f:
        writer = csv.writer(f, lineterminator="\n")
        writer.writerow(HEADER)
        writer.writerows(rows)
    return Upload(path, benchmark, tuple((b, s, e, m, float(v)) for b, s, e, m, v in rows))


def _stored(upload: Upload, upload_id: int) -> Upload:
    """``upload`` with the id the store gave it."""
    return Upload(upload.path, upload.benchmark, upload.rows, upload_id)


def _upload_in_browser(browser: Browser, url: str, upload: Upload, *, read: bool) -> Upload:
    """Commit ``upload``'s file through the Upload page of the app at ``url`` and, with
    ``read``, open its benchmark's Leaderboard there (the server reads the store after its
    commit); returns the upload with the id the page reported."""
    context, page, offline, dialogs = open_context(browser, 1400)
    try:
        page.goto(f"{url}/upload")
        title(page, "Upload results", timeout=WAIT)
        page.locator("input[type=file]").set_input_files(str(upload.path))
        page.get_by_text("rows read without problems").wait_for(timeout=WAIT)
        page.get_by_role("button", name="Commit to the store").click()
        done = page.get_by_text(re.compile(r"rows stored as upload \d+")).first
        done.wait_for(timeout=WAIT)
        found = re.search(r"(\d+) rows stored as upload (\d+)", done.inner_text())
        assert found is not None and int(found.group(1)) == len(upload.rows), done.inner_text()
        committed = _stored(upload, int(found.group(2)))
        if read:
            page.get_by_role("link", name=f"See {upload.benchmark} on the leaderboard").click()
            title(page, f"Leaderboard · {upload.benchmark}", timeout=WAIT)
            _ranked_table(page, upload)
    finally:
        context.close()
    assert offline.blocked == [] and dialogs == [], (offline.blocked, dialogs)
    return committed


def _ranked_table(page: Page, upload: Upload) -> None:
    """Wait for the end of the Leaderboard page's run and its ranked table of ``upload``'s
    systems (drawn from the rows the server read from the store)."""
    idle(page, timeout=WAIT)
    systems = len({row[1] for row in upload.rows})
    page.locator(f"[data-testid=stMain] table[aria-label=leaderboard][data-rows='{systems}']"
                 ).first.wait_for(timeout=WAIT)


def _view_leaderboard(browser: Browser, url: str, upload: Upload) -> None:
    """Open the Leaderboard of ``upload``'s benchmark in the app at ``url`` (a read of the
    store)."""
    context, page, offline, _ = open_context(browser, 1400)
    try:
        page.goto(f"{url}/leaderboard?benchmark={upload.benchmark}")
        title(page, f"Leaderboard · {upload.benchmark}", timeout=WAIT)
        _ranked_table(page, upload)
    finally:
        context.close()
    assert offline.blocked == [], offline.blocked


def _import_with_cli(store: str, upload: Upload) -> Upload:
    """``sigboard import`` of ``upload``'s file into ``store``; the upload with its id."""
    report = json.loads(_cli(store, "import", "--db", _store_url(store), "--format", "json",
                            str(upload.path)))
    return _stored(upload, _imported_id(report))


def _imported_id(report: object) -> int:
    """The upload id in ``sigboard import --format json``'s report of one file."""
    assert isinstance(report, dict), report
    items = report["uploads"]
    assert isinstance(items, list) and len(items) == 1, report
    item = items[0]
    assert isinstance(item, dict) and not item.get("duplicate_of"), report
    return int(item["upload_id"])


def _read_with_cli(store: str, benchmark: str) -> None:
    """The CLI's reads of ``store``: its uploads, ``benchmark``'s leaderboard, the export
    (three processes at once)."""
    url = _store_url(store)
    _clis(store, ["uploads", url], ["leaderboard", "--benchmark", benchmark, url],
         ["export", url])


def _check_store(store: str, uploads: list[Upload]) -> None:
    """``store`` holds exactly ``uploads`` (as the CLI reads it): the ids given at commit
    time distinct and increasing in commit order, each one listed with its file's name and
    row count, and each benchmark's exported rows equal to its file's rows (values exactly,
    in any order). Every difference is named in one failure."""
    problems = []
    ids = [u.upload_id for u in uploads]
    if ids != sorted(set(ids)):
        problems.append(f"upload ids given at commit time reused or out of order: {ids}")
    url = _store_url(store)
    listing, export = _clis(store, ["uploads", "--format", "json", url], ["export", url])
    have = {int(u["upload_id"]): (u["filename"], int(u["rows"]), int(u["rows_stored"]))
            for u in json.loads(listing)["uploads"]}
    want = [(u.upload_id, (u.path.name, len(u.rows), len(u.rows))) for u in uploads]
    for upload_id, listed in want:
        if have.get(upload_id) != listed:
            problems.append(f"upload {upload_id} {listed} committed, the store lists "
                            f"{have.get(upload_id)}")
    if extra := set(have) - {i for i, _ in want}:
        problems.append(f"uploads never committed in the store: {sorted(extra)}")
    rows = Counter((r["benchmark"], r["system"], r["example_id"], r["metric"], float(r["value"]))
                   for r in csv.DictReader(io.StringIO(export)))
    for upload in uploads:
        mine = Counter({k: n for k, n in rows.items() if k[0] == upload.benchmark})
        if mine != Counter(upload.rows):
            missing, added = Counter(upload.rows) - mine, mine - Counter(upload.rows)
            problems.append(f"{upload.benchmark} ({upload.path.name}): "
                            f"{sum(missing.values())} of its file's rows missing from the "
                            f"store, {sum(added.values())} others there")
    if others := {k[0] for k in rows} - {u.benchmark for u in uploads}:
        problems.append(f"rows of benchmarks never uploaded: {sorted(others)}")
    assert not problems, "\n".join(problems)


@pytest.fixture(scope="module")
def chromium() -> Iterator[Browser]:
    """Debian's chromium, launched once for the module (each upload opens a fresh context).

    First a check that the servers and the CLI started here run this checkout's engine."""
    require_browser()
    imported = _engine_file()
    assert Path(imported).is_relative_to(ROOT), (imported, ROOT)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield browser
        browser.close()


def _files(folder: Path, *names: str) -> list[Upload]:
    """One result file per name, each a different bt-eval dataset or metric."""
    sources = [("TAC2008", "S3_pyr"), ("TAC2009", "ROUGE_2"), ("Dialogue-pc", "S3_pyr"),
               ("TAC2011", "BERTScore"), ("Dialogue-tc", "MoverScore"), ("TAC2008", "JS_2"),
               ("Dialogue-pc", "BLEU")]
    assert len(names) <= len(sources)
    return [_results_file(folder, name, dataset, metric)
            for name, (dataset, metric) in zip(names, sources, strict=False)]


def _one_server(browser: Browser, store: str, folder: Path, stop: signal.Signals) -> None:
    """The scenario of the module's docstring with one server on ``store``."""
    seed, first, imported, second, after = _files(
        folder, "cli-seed", "app-first", "cli-import", "app-second", "app-after-restart")
    server = Server(store, folder / "server.log")
    try:
        server.launch()  # it opens the store at its first page, after this import:
        done = [_import_with_cli(store, seed)]  # a store with data, so no demo data added
        url = server.wait()
        done.append(_upload_in_browser(browser, url, first, read=True))
        _read_with_cli(store, first.benchmark)
        done.append(_import_with_cli(store, imported))
        done.append(_upload_in_browser(browser, url, second, read=False))
        server.stop(stop)
        url = server.start()
        # a new id, not a lost upload's
        done.append(_upload_in_browser(browser, url, after, read=False))
        _check_store(store, done)
    finally:
        server.stop(signal.SIGKILL)


@pytest.mark.parametrize("stop", STOPS)
def test_server_and_cli_on_one_sqlite_file(chromium: Browser, tmp_path: Path,
                                           stop: signal.Signals) -> None:
    _one_server(chromium, str(tmp_path / "sigboard.db"), tmp_path, stop)


def test_two_servers_and_cli_on_one_sqlite_file(chromium: Browser, tmp_path: Path) -> None:
    store = str(tmp_path / "sigboard.db")
    seed, x_first, y_first, imported, x_second, x_after, y_after = _files(
        tmp_path, "cli-seed", "x-first", "y-first", "cli-import", "x-second", "x-after-restart",
        "y-after-restart")
    x, y = Server(store, tmp_path / "server-x.log"), Server(store, tmp_path / "server-y.log")
    try:
        x.launch()
        y.launch()
        done = [_import_with_cli(store, seed)]  # before either server's first page
        x.wait()
        y.wait()
        done.append(_upload_in_browser(chromium, x.url, x_first, read=True))
        _view_leaderboard(chromium, y.url, x_first)  # y reads what x committed
        done.append(_upload_in_browser(chromium, y.url, y_first, read=False))
        _read_with_cli(store, y_first.benchmark)
        done.append(_import_with_cli(store, imported))
        done.append(_upload_in_browser(chromium, x.url, x_second, read=False))
        x.stop(signal.SIGKILL)
        x.start()
        done.append(_upload_in_browser(chromium, x.url, x_after, read=False))
        done.append(_upload_in_browser(chromium, y.url, y_after, read=False))  # y never stopped
        _check_store(store, done)
    finally:
        x.stop(signal.SIGKILL)
        y.stop(signal.SIGKILL)


@pytest.mark.postgres
def test_server_and_cli_on_postgresql(chromium: Browser, tmp_path: Path, pg_url: str) -> None:
    # the control: PostgreSQL's own server keeps every commit; the harsher stop only
    _one_server(chromium, pg_url, tmp_path, signal.SIGKILL)
