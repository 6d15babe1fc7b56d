"""Readable at 50–100 systems, plain words, links and errors (issue #13), through AppTest.

The browser-only parts (phone width, chart fitting, /overview) are in
``tests/e2e/test_e2e_browser.py``; here: what the pages send.
"""

from __future__ import annotations

import html
import json
import re
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import parse_qs

import numpy as np
import pytest
from apptest_support import app, no_exception, params, pictures, ranked

from app.charts.examples import MAX_COLUMNS, example_system_heatmap_spec
from app.charts.pairwise import MIN_CELL
from app.data import results
from app.state import FAILED
from engine import ScoreMatrix
from engine._text import ISOLATE, POP

ROOT = Path(__file__).resolve().parents[2]
JARGON = re.compile(r"p5_min|p5_max|paired_d|BT strength|\btau\b|Table 1|\bNone\b|\bnan\b")


def spec(at, index: int = 0) -> dict:  # noqa: ANN001
    charts = at.get("arrow_vega_lite_chart") or at.get("vega_lite_chart")
    return json.loads(charts[index].proto.spec)


def elements(at) -> list:  # noqa: ANN001
    return list(at.get("arrow_vega_lite_chart") or at.get("vega_lite_chart"))


class _SvgText(HTMLParser):
    """The text of every ``<text>`` element of an SVG picture (names without their isolates)."""

    def __init__(self) -> None:
        super().__init__()
        self.texts: list[str] = []
        self._inside = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._inside = tag == "text"
        if self._inside:
            self.texts.append("")

    def handle_endtag(self, tag: str) -> None:
        self._inside = False

    def handle_data(self, data: str) -> None:
        if self._inside:
            self.texts[-1] += data.replace(ISOLATE, "").replace(POP, "")


def svg_texts(body: str) -> set[str]:
    parser = _SvgText()
    parser.feed(body)
    return set(parser.texts)


def test_rank_ci_plot_is_the_first_chart_and_names_every_system(db: Path) -> None:
    at = app("views/leaderboard.py", benchmark="humaneval")
    no_exception(at)
    first = pictures(at)[0]
    assert "confidence interval" in first and "rank range" in first, "the rank/CI plot is first"
    board, _ = ranked(at)
    assert svg_texts(first) >= set(board["system"]), "every system has its own labelled row"
    assert not elements(at), "the Leaderboard's first screen loads no chart library"


@pytest.mark.slow
def test_graph_focus_is_in_the_url_and_labels_every_system_shown(db: Path) -> None:
    at = app("views/leaderboard.py", benchmark="humaneval", top="10", graph="static")
    no_exception(at)
    assert params(at)["top"] == "10"
    board, _ = ranked(at)
    names = set(board["system"])
    shown = svg_texts(pictures(at)[0]) & names
    assert shown == set(board["system"][:10]), "the best 10, every one labelled"
    chosen = list(board["system"][[0, 5, 40]])
    at = app("views/leaderboard.py", benchmark="humaneval", graph="static")
    at.query_params["focus"] = chosen
    at.run()
    assert svg_texts(pictures(at)[0]) & names == set(chosen)


@pytest.mark.slow
def test_heatmaps_label_every_system_and_mark_alpha(db: Path) -> None:
    at = app("views/pairwise.py", benchmark="humaneval", top="30", alpha="0.01")
    no_exception(at)
    heatmap = next(p for p in pictures(at) if "adjusted p-values among" in p)
    board, _ = ranked(app("views/leaderboard.py", benchmark="humaneval", alpha="0.01"))
    best = set(board["system"][:30])
    parser = _SvgText()
    parser.feed(heatmap)
    assert "p < 0.01 (significant)" in parser.texts
    assert "p ≥ 0.01 (not significant)" in parser.texts
    labelled = [t for t in parser.texts if t in best]
    assert set(labelled) == best and len(labelled) == 60, "every system on both axes"
    cells = re.findall(r'width="(\d+)" height="\d+" fill="[^"]+" stroke="white"', heatmap)
    assert cells and all(int(c) >= MIN_CELL for c in cells), "one label line per system"


@pytest.mark.slow
def test_group_letters_are_short_or_a_count(db: Path) -> None:
    # long letters read as how many systems it ties with: a count, so that the row's one
    # rank span is its rank set (issue #29)
    at = app("views/leaderboard.py", benchmark="humaneval")
    board, _ = ranked(at)
    for cell in board["group"]:
        assert len(cell) <= 3 or re.fullmatch(r"ties with \d+", cell), cell
    body = next(h.proto.body for h in at.get("html") if 'aria-label="leaderboard"' in h.proto.body)
    assert "max-height" not in body, "every row in the page: no inner scroll box"
    assert len(board) == 78


@pytest.mark.slow
def test_clique_members_wrap(db: Path) -> None:
    at = app("views/leaderboard.py", benchmark="humaneval", graph="groups")
    no_exception(at)
    groups = next(h.proto.body for h in at.get("html") if 'aria-label="groups"' in h.proto.body)
    assert "white-space:normal" in groups and "overflow-wrap:anywhere" in groups


@pytest.mark.slow
def test_examples_heatmap_fits_and_stays_small() -> None:
    rng = np.random.default_rng(0)
    matrix = ScoreMatrix.from_array((rng.random((100, 1000)) > 0.5).astype(float))
    chart = example_system_heatmap_spec(matrix)
    assert chart["width"] == "container" and chart["encoding"]["color"]["legend"]["orient"] == "top"
    cells = chart["datasets"][chart["data"]["name"]]  # a frame: sent to the browser as Arrow
    assert cells["c"].max() + 1 <= MAX_COLUMNS
    as_json = {**chart, "datasets": {"d": cells.to_dict("records")}}
    assert len(json.dumps(as_json, default=float)) < 600_000, "no megabytes of chart data"


@pytest.mark.slow
def test_examples_page_draws_in_plain_words(db: Path) -> None:
    at = app("views/examples.py", benchmark="humaneval")
    no_exception(at)
    labels = [m.label for m in at.metric]
    assert "smallest significant gap" in labels and not any(JARGON.search(x) for x in labels)
    # first the light difficulty histogram (an SVG written on the server, labelled axes);
    # the every-score heatmap only on its tab
    picture = pictures(at)[0]
    text = html.unescape(picture).replace("\u2068", "").replace("\u2069", "")
    assert "mean score over systems (per example)</text>" in text and ">examples</text>" in text
    assert not (at.get("arrow_vega_lite_chart") or at.get("vega_lite_chart"))
    at = app("views/examples.py", benchmark="humaneval", etab="scores")
    no_exception(at)
    chart = spec(at, len(at.get("arrow_vega_lite_chart") or at.get("vega_lite_chart")) - 1)
    assert chart["width"] == "container"


@pytest.mark.slow
@pytest.mark.parametrize("page", ["views/leaderboard.py", "views/pairwise.py",
                                  "views/examples.py", "views/benchmarks.py"])
def test_no_jargon_on_main_screens(db: Path, page: str) -> None:
    at = app(page, benchmark="humaneval")
    no_exception(at)
    texts = [e.value for kind in ("title", "subheader", "markdown", "caption", "info")
             for e in at.get(kind)] + [m.label for m in at.metric]
    if page == "views/leaderboard.py":
        texts += list(ranked(at)[0].columns)
    for text in texts:
        assert not JARGON.search(text), text


@pytest.mark.slow
def test_permutation_test_has_no_empty_effect_chart(db: Path) -> None:
    at = app("views/pairwise.py", benchmark="humaneval", test="permutation", panel="effects")
    no_exception(at)
    specs = [c.proto.spec for c in at.get("arrow_vega_lite_chart") or at.get("vega_lite_chart")]
    assert not any("effect (A vs B)" in s for s in specs), "no empty effect-size chart"
    assert any("no effect size" in i.value for i in at.info)
    sentence = next(m.value for m in at.markdown if "beats" in m.value)
    assert "nan" not in sentence and "none =" not in sentence


@pytest.mark.slow
def test_percent_scale_for_binary_metrics(db: Path) -> None:
    at = app("views/leaderboard.py", benchmark="humaneval")
    board, _ = ranked(at)
    assert board["mean"][0].endswith("%") and board["CI"][0].endswith("%]")


@pytest.mark.slow
def test_links_carry_only_used_settings_that_differ(db: Path) -> None:
    at = app("views/pairwise.py", benchmark="mbpp", alpha="0.01", panel="effects")
    no_exception(at)
    links = {p.proto.label: p.proto.query_string for p in at.sidebar.get("page_link")}
    assert links["Methods"] == "" and links["Benchmarks"] == ""
    leaderboard = parse_qs(links["Leaderboard"])
    assert leaderboard["alpha"] == ["0.01"] and leaderboard["benchmark"] == ["mbpp"]
    assert not {"panel", "a", "b"} & set(leaderboard), "settings the page does not use"
    assert "correction" not in leaderboard, "a default is not written"
    assert "correction" not in params(at) and "seed" not in params(at)


@pytest.mark.slow
def test_demo_opens_on_humaneval(db: Path) -> None:
    at = app("views/leaderboard.py")
    no_exception(at)
    assert "humaneval" in at.title[0].value and params(at)["benchmark"] == "humaneval"


@pytest.mark.slow
def test_errors_show_a_friendly_message_and_log_the_details(
        db: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    def boom(*args: object, **kwargs: object) -> None:
        raise RuntimeError("secret internals")

    monkeypatch.setattr(results, "board_of", boom)
    with caplog.at_level("ERROR", logger="sigboard"):
        at = app("views/leaderboard.py", benchmark="humaneval")
    assert not at.exception, "no traceback reaches the page"
    assert any(FAILED in e.value for e in at.error)
    assert not any("secret internals" in e.value for e in at.error)
    assert "secret internals" in caplog.text
    config = (ROOT / ".streamlit" / "config.toml").read_text()
    assert re.search(r'^showErrorDetails\s*=\s*"none"', config, re.M)
