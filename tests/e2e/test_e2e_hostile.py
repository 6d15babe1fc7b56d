"""Issue #17 in a real browser: hostile uploads cannot take the shared server down.

While one session uploads a JSON Lines file nested 20,000 levels deep (it crashed
pyarrow's reader, and with it the whole Streamlit process) and a gzip bomb (a few MB
inflating past the size limit), a second session keeps loading the Leaderboard; both
uploads are refused with their own message, and the server process is the same one
afterwards. The hostile files come from the corpus builders in tests/engine/hostile/.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from e2e_support import Served, healthy, title

from engine.store import open_store

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
WAIT = 120_000  # ms: two sessions on 2 shared cores


def _corpus():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location(
        "hostile_corpus_e2e", ROOT / "tests" / "engine" / "hostile" / "make_corpus.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def build_store(path: Path) -> None:
    """This module's store (conftest.py's ``served``): HumanEval's two demo files."""
    store = open_store(f"sqlite:///{path}")
    for name in ("humaneval.jsonl.gz", "humaneval_hf.jsonl.gz"):
        store.import_file(ROOT / "data" / name)
    store.close()


def _title(page: Page, text: str) -> None:
    title(page, text, timeout=WAIT)


def test_hostile_uploads_leave_the_server_serving(
        served: Served, browser: Browser, tmp_path: Path) -> None:
    url, proc = served.url, served.proc
    corpus = _corpus()
    deep, bomb = tmp_path / "deep_20000.jsonl", tmp_path / "bomb_single.csv.gz"
    deep.write_bytes(corpus.deep_20000())
    bomb.write_bytes(corpus.bomb_single())
    pid = proc.pid
    uploading = browser.new_context(viewport={"width": 1400, "height": 1000})
    reading = browser.new_context(viewport={"width": 1400, "height": 1000})
    uploader, reader = uploading.new_page(), reading.new_page()
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
    uploading.close()
    reading.close()
    assert proc.poll() is None and proc.pid == pid, "the server process died"
    assert healthy(url)
