"""engine.report._reports (issue #16): the A/B comparison and the leaderboard as self-contained HTML
(inline SVG charts drawn by hand) and as Markdown; every name escaped."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine._matrix import build_matrix
from engine.products._leaderboard import leaderboard
from engine.report._reports import (
    compare_report,
    histogram_svg,
    interval_svg,
    leaderboard_report,
    markdown_text,
    report_format,
)
from engine.stats._ab import compare_ab

HOSTILE = "<b>bold</b> & co|pipe"


def runs_frame(base: str = HOSTILE) -> pd.DataFrame:
    """3 systems × 60 examples × 3 runs, binary; the candidate clearly better."""
    rng = np.random.default_rng(0)
    p = rng.beta(2, 2, 60)
    rows = [("bench", system, f"e{i}", "acc", float(rng.random() < min(1.0, p[i] + shift)), r)
            for system, shift in ((base, 0.0), ("cand", 0.25), ("third", -0.1))
            for r in range(3) for i in range(60)]
    return pd.DataFrame(rows, columns=["benchmark", "system", "example_id", "metric", "value",
                                       "run"])


@pytest.fixture(scope="module")
def ab():  # noqa: ANN201
    return compare_ab(runs_frame(), baseline=HOSTILE, candidate="cand")


@pytest.fixture(scope="module")
def board():  # noqa: ANN201
    return leaderboard(build_matrix(runs_frame()))


class _Svg(HTMLParser):
    """Tags and text inside the document's svg elements."""

    def __init__(self) -> None:
        super().__init__()
        self.depth, self.tags, self.texts, self.axis_labels = 0, [], [], []
        self._axis = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "svg":
            self.depth += 1
        if self.depth:
            self.tags.append(tag)
            self._axis = tag == "text" and ("class", "axis-label") in attrs

    def handle_endtag(self, tag: str) -> None:
        if tag == "svg":
            self.depth -= 1

    def handle_data(self, data: str) -> None:
        if self.depth:
            self.texts.append(data)
            if self._axis:
                self.axis_labels.append(data)
                self._axis = False


def _svg(html: str) -> _Svg:
    parser = _Svg()
    parser.feed(html)
    return parser


def test_compare_html_has_verdict_difference_interval_and_charts(ab) -> None:  # noqa: ANN001
    html = compare_report(ab, fmt="html")
    t = ab.test
    assert html.startswith("<!DOCTYPE html>")
    assert f'id="verdict">Verdict: {ab.verdict}' in html and "significantly better" in ab.verdict
    assert f"{t.estimate:+.4f}" in html and f"[{t.ci_low:+.4f}, {t.ci_high:+.4f}]" in html
    assert html.count("<svg") == 3
    svg = _svg(html)
    assert {"line", "circle", "rect", "text"} <= set(svg.tags)
    assert any("interval" in label for label in svg.axis_labels)
    assert any("per-example difference" in label for label in svg.axis_labels)
    assert "examples" in svg.axis_labels  # the histogram's y axis


def test_html_is_self_contained_and_names_are_escaped(ab, board) -> None:  # noqa: ANN001
    for html in (compare_report(ab, fmt="html", created="2026-01-01"),
                 leaderboard_report(board, fmt="html")):
        low = html.lower()
        assert "http" not in low and "<script" not in low and "src=" not in low
        assert "<link" not in low and "url(" not in low and "@import" not in low
        assert "<b>bold</b>" not in html
        assert "&lt;b&gt;bold&lt;/b&gt; &amp; co|pipe" in html


def test_compare_markdown_has_verdict_tables_and_escapes_pipes(ab) -> None:  # noqa: ANN001
    md = compare_report(ab, fmt="markdown")
    assert f"**Verdict: {ab.verdict}**" in md and f"{ab.test.estimate:+.4f}" in md
    assert "&lt;b&gt;bold&lt;/b&gt; &amp; co\\|pipe" in md and "<b>" not in md
    for block in re.split(r"\n(?!\|)[^\n]*", md):  # runs of consecutive table lines
        counts = {len(re.split(r"(?<!\\)\|", line)) for line in block.splitlines()
                  if line.startswith("|")}
        assert len(counts) <= 1, block  # every row has as many cells as its header
    assert "## Models side by side" in md and "http" not in md


def test_margin_is_stated_in_both_formats() -> None:
    res = compare_ab(runs_frame(), baseline=HOSTILE, candidate="third", margin=0.02)
    assert res.exit_code == 1
    for fmt in ("html", "markdown"):
        text = compare_report(res, fmt=fmt)
        assert "Non-inferiority margin 0.02" in text and "one-sided test of H0" in text
        assert "exit code 1" in text


def test_leaderboard_reports(board) -> None:  # noqa: ANN001
    html = leaderboard_report(board, fmt="html")
    svg = _svg(html)
    assert html.count("<svg") == 1 and svg.tags.count("circle") == 3
    assert any("interval" in label for label in svg.axis_labels)
    md = leaderboard_report(board, fmt="markdown")
    header = next(line for line in md.splitlines() if line.startswith("| rank"))
    assert "rank range" in header and "group" in header
    rows = [line for line in md.splitlines() if line.startswith("| ") and line != header]
    assert len(rows) == 3 and rows[0].startswith("| 1 | cand |")
    assert board.pairwise.reason.split(":")[0] in md


@given(st.text(max_size=40))
@settings(max_examples=40)
def test_markdown_text_never_breaks_a_cell_or_makes_markup(text: str) -> None:
    out = markdown_text(text)
    assert "\n" not in out and "<" not in out and ">" not in out
    assert re.search(r"(?<!\\)\|", out) is None
    assert re.search(r"(?<!\\)[*_`\[\]]", out) is None


def test_interval_svg_places_each_estimate_between_its_limits() -> None:
    svg = interval_svg(["a", "b"], [0.2, 0.5], [0.1, 0.4], [0.3, 0.9], x_label="x", title="t")
    lines = re.findall(r'<line x1="([\d.]+)" y1="([\d.]+)" x2="([\d.]+)" y2="\2" '
                       r'stroke="#4c78a8"', svg)
    dots = re.findall(r'<circle cx="([\d.]+)"', svg)
    assert len(lines) == 2 and len(dots) == 2
    for (x1, _, x2), cx in zip(lines, dots, strict=True):
        assert float(x1) < float(cx) < float(x2)


def test_histogram_counts_every_value() -> None:
    values = np.random.default_rng(1).normal(size=200)
    svg = histogram_svg(values, x_label="d", title="h", marks={"0": 0.0})
    counts = [int(c) for c in re.findall(r"<title>(\d+) in", svg)]
    assert sum(counts) == 200
    assert histogram_svg([], x_label="d", title="empty").count("<rect") == 1  # no crash


def test_report_format_from_suffix() -> None:
    assert report_format("out.HTML") == "html" and report_format("a/b.md") == "markdown"
    with pytest.raises(ValueError, match="report: the file name must end in .html or .md"):
        report_format("out.pdf")
    with pytest.raises(ValueError, match="fmt: must be"):
        compare_report(compare_ab(runs_frame(), baseline=HOSTILE, candidate="cand"), fmt="pdf")
