"""Issue #17 in a real browser: hostile uploads cannot take the shared server down.

While one session uploads a JSON Lines file nested 20,000 levels deep (it crashed
pyarrow's reader, and with it the whole Streamlit process) and a gzip bomb (a few MB
inflating past the size limit), a second session keeps loading the Leaderboard; both
uploads are refused with their own message, and the server process is the same one
afterwards. The hostile files come from the corpus builders in tests/engine/hostile/.
"""

from __future__ import annotations

import importlib.util
import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine.store import open_store

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
WAIT = 120_000  # ms: two sessions on 2 shared cores


def _corpus():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location(
        "hostile_corpus_e2e", ROOT / "tests" / "engine" / "hostile" / "make_corpus.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    try:
        import playwright.sync_api  # noqa: F401
        missing = None if os.access(CHROMIUM, os.X_OK) else f"{CHROMIUM} is missing"
    except ImportError:
        missing = "the playwright package is not installed"
    if missing:
        if os.environ.get("SIGBOARD_REQUIRE_BROWSER") == "1":
            pytest.fail(f"browser tests are required but {missing}")
        pytest.skip(missing)
    db = tmp_path_factory.mktemp("hostile") / "sigboard.db"
    store = open_store(f"sqlite:///{db}")
    for name in ("humaneval.jsonl.gz", "humaneval_hf.jsonl.gz"):
        store.import_file(ROOT / "data" / name)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = int(s.getsockname()[1])
    env = {k: v for k, v in os.environ.items()
           if k not in ("SIGBOARD_DB_URL", "SIGBOARD_UPLOAD_TOKEN", "SIGBOARD_UPLOAD_ALLOW")}
    env.update(SIGBOARD_DB_PATH=str(db), STREAMLIT_BROWSER_GATHER_USAGE_STATS="false")
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app/main.py", "--server.address", "127.0.0.1",
         "--server.port", str(port), "--server.headless", "true"],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while not _healthy(url):
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("streamlit did not start")
            time.sleep(0.3)
        yield url, proc
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


def _healthy(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/_stcore/health", timeout=5) as response:
            return bool(response.read().strip() == b"ok")
    except OSError:
        return False


def _title(page: object, text: str) -> None:
    pattern = re.compile(re.escape(text).replace("·\\ ", "·\\ \u2068?"))
    page.get_by_role("heading", level=1).filter(has_text=pattern).wait_for(timeout=WAIT)


def test_hostile_uploads_leave_the_server_serving(
        served: tuple[str, subprocess.Popen[bytes]], tmp_path: Path) -> None:
    from playwright.sync_api import sync_playwright

    url, proc = served
    corpus = _corpus()
    deep, bomb = tmp_path / "deep_20000.jsonl", tmp_path / "bomb_single.csv.gz"
    deep.write_bytes(corpus.deep_20000())
    bomb.write_bytes(corpus.bomb_single())
    pid = proc.pid
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        uploader = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
        reader = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
        uploader.goto(f"{url}/upload")
        _title(uploader, "Upload results")
        # both hostile files at once: the server parses them while the other session reads
        uploader.locator("input[type=file]").set_input_files([str(deep), str(bomb)])
        for _ in range(2):
            reader.goto(f"{url}/leaderboard?benchmark=humaneval")
            _title(reader, "Leaderboard · humaneval")
        # each refusal is a row of the file's problem table (a data grid: its cells are in the
        # page, drawn on a canvas)
        uploader.get_by_text("nests brackets more than 64 levels").first.wait_for(
            state="attached", timeout=WAIT)
        uploader.get_by_text("size limit").first.wait_for(state="attached", timeout=WAIT)
        reader.goto(f"{url}/leaderboard?benchmark=humaneval")
        _title(reader, "Leaderboard · humaneval")
        browser.close()
    assert proc.poll() is None and proc.pid == pid, "the server process died"
    assert _healthy(url)
