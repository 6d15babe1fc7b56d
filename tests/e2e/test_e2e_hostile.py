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

import pandas as pd
import pytest
from e2e_support import Served, healthy, idle, title

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


EVIL_URL = "https://evil.example/login"
#: Issue #33 item 5: names with line and paragraph separators, a bare URL and ``src=http://``.
SEPARATED = ["line\u2028sep-model", "para\u2029sep-model", f"visit {EVIL_URL}",
             "img src=http://evil.example/x.png", "plain-model"]
SEP_BENCH = "sepbench"
PAGES = ["home", "leaderboard", "benchmarks", "pairwise", "compare", "examples", "distributions",
         "mechanisms", "slices", "conditions", "plan", "watch", "upload", "methods"]


def build_store(path: Path) -> None:
    """This module's store (conftest.py's ``served``): HumanEval's two demo files and a
    benchmark whose system names hold line separators and URLs."""
    store = open_store(f"sqlite:///{path}")
    for name in ("humaneval.jsonl.gz", "humaneval_hf.jsonl.gz"):
        store.import_file(ROOT / "data" / name)
    store.import_frame(pd.DataFrame([
        {"benchmark": SEP_BENCH, "system": s, "example_id": f"ex{j}", "metric": "acc",
         "value": float((7 * j + 3 * i) % 5 != 0), "family": f"f{i % 2}"}
        for i, s in enumerate(SEPARATED) for j in range(30)]), filename="sep.csv")
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


def _no_evil_link(page: Page) -> None:
    """No link leaves the app for the hostile host (the app's own links may carry the name
    as a parameter: their host is the server's)."""
    hosts = page.evaluate("() => Array.from(document.querySelectorAll('a[href]'), "
                          "a => new URL(a.href, document.baseURI).hostname)")
    assert not [h for h in hosts if "evil" in h], "a URL became a link"


def test_url_in_alpha_and_in_a_name_is_plain_text(served: Served, browser: Browser) -> None:
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.goto(f"{served.url}/leaderboard?benchmark=humaneval&alpha=0.05{EVIL_URL}")
    _title(page, "Leaderboard · humaneval")
    page.get_by_text("evil.example").first.wait_for(timeout=WAIT)  # the warning shows it
    idle(page)
    _no_evil_link(page)
    page.goto(f"{served.url}/pairwise?benchmark={SEP_BENCH}&a=visit%20{EVIL_URL}"
              f"&b=plain-model")
    _title(page, f"Pairwise · {SEP_BENCH}")
    idle(page)
    assert page.get_by_text("evil.example").count() > 0, "the name is shown"
    _no_evil_link(page)
    context.close()


def test_line_separator_in_a_name_renders_every_page(served: Served, browser: Browser) -> None:
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    for path in PAGES:
        page.goto(f"{served.url}/{path}?benchmark={SEP_BENCH}&a=line%E2%80%A8sep-model"
                  f"&b=plain-model&base=plain-model&cand=para%E2%80%A9sep-model&boot=200")
        page.get_by_role("heading", level=1).first.wait_for(timeout=WAIT)
        idle(page)
        assert page.locator("[data-testid=stException]").count() == 0, path
        assert page.get_by_text("Something went wrong").count() == 0, path
        # a chart Vega could not parse shows its error text in place of the chart
        assert page.get_by_text("Unterminated string").count() == 0, path
        _no_evil_link(page)
    assert not [e for e in errors if "Unterminated" in e or "Expression" in e], errors
    context.close()
    assert served.proc.poll() is None
