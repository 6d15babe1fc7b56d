"""AppTests of the A/B compare page and its HTML report (synthetic: 3 runs, example families)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from apptest_support import app, html_frame, no_exception, pictures
from pages_data_support import XSS, compare_frame, store_env

from app.charts.svg_compare import models_svg, variance_svg
from app.components.compare_report import report_html
from engine import compare_ab, power

PAGE = "views/compare.py"


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    with store_env(tmp_path_factory.mktemp("ab") / "sigboard.db", compare_frame()) as path:
        yield path


@pytest.mark.slow
def test_default_pair_verdict_models_and_power(store: Path) -> None:
    at = app(PAGE, benchmark="ab")
    no_exception(at)
    assert [t.value for t in at.title] == ["A/B compare · ab"]
    # defaults: the best system is the candidate, the next one the baseline
    assert at.query_params["cand"] == "cand-model" and at.query_params["base"] == "base-model"
    verdict = at.success[0].value
    assert verdict.startswith("**Verdict: candidate is significantly better**")
    expected = compare_ab(compare_frame().drop(columns="family"), baseline="base-model",
                          candidate="cand-model")
    assert f"{expected.test.estimate:+.4f}" in verdict
    models = html_frame(at, "models")  # a static table (no data-grid code, #27)
    assert len(models) == len(expected.models) and models["model"].iloc[-1].startswith("verdict")
    labels = {m.label for m in at.metric}
    assert {"Difference", "Effect size", "Shared examples", "Runs",
            "Smallest detectable difference"} <= labels
    assert next(m.value for m in at.metric if m.label == "Runs") == "3 / 3"
    assert any(b.label == "Download HTML report" for b in at.get("download_button"))
    # the two charts, SVG written on the server (no drawing process, #27 item 3)
    drawn = pictures(at)
    assert len(drawn) == 2 and all(svg.startswith("<svg") for svg in drawn)
    assert "Difference by model" in drawn[0] and "Where the variance is" in drawn[1]
    assert drawn[0].count("<g><title>") == len(expected.models)


@pytest.mark.slow
def test_cluster_column_and_planned_difference_from_the_url(store: Path) -> None:
    at = app(PAGE, benchmark="ab", base="other-model", cand="cand-model", cluster="family",
             pdiff="0.05")
    no_exception(at)
    assert not at.warning
    assert "cluster" in " ".join(c.value for c in at.caption), "the model says it clusters"
    assert any(m.label == "Examples needed for 0.0500" for m in at.metric)
    expected = power(compare_frame(), benchmark="ab", difference=0.05, n_sim=500, rng=0)
    shown = next(m.value for m in at.metric if m.label == "Smallest detectable difference")
    assert shown == f"{expected.mdd:.4f}"


@pytest.mark.slow
def test_bad_url_values_fall_back_with_a_note(store: Path) -> None:
    at = app(PAGE, benchmark="ab", base=XSS, cand="cand-model", cluster="nope", pdiff="-1")
    no_exception(at)
    warnings = " ".join(w.value for w in at.warning)
    assert "`base`" in warnings and "`cluster`" in warnings and "`pdiff`" in warnings
    assert "\\<img src\\=x" in warnings, "the name is escaped in the (markdown) message"
    assert at.query_params["base"] == "base-model"


def test_report_is_self_contained_html_with_verdict_and_chart() -> None:
    df = compare_frame().drop(columns="family")
    df.loc[df["system"] == "base-model", "system"] = XSS
    ab = compare_ab(df, baseline=XSS, candidate="cand-model")
    pw = power(df, benchmark="ab", n_sim=100, rng=0)
    charts = [models_svg(ab.models, metric="score", level="95%"), variance_svg(ab.variance)]
    html = report_html(ab, pw, charts, created="2026-01-01 00:00 UTC")
    assert html.startswith("<!DOCTYPE html>") and html.count("<svg") == 2
    assert html.count('role="img"') == 2 and html.count("viewBox=") == 2
    assert 'id="verdict">Verdict: candidate is significantly better' in html
    assert "<script" not in html.lower() and "http://" not in html.split("<svg")[0]
    assert 'src="' not in html and "<link" not in html, "nothing is fetched"
    assert XSS not in html and "&lt;img src=x onerror=alert(1)&gt;" in html
    for heading in ("Descriptive statistics", "Models side by side", "Variance decomposition",
                    "Outlier examples", "Power"):
        assert heading in html


@pytest.mark.slow
def test_markdown_downloads_and_the_pairwise_link_to_compare(store: Path) -> None:
    # Compare and Leaderboard offer the engine's Markdown report (engine.report._reports); a pair on
    # the Pairwise page links to its A/B comparison (a → candidate, b → baseline).
    at = app(PAGE, benchmark="ab")
    assert any(b.label == "Download Markdown report" for b in at.get("download_button"))
    at = app("views/leaderboard.py", benchmark="ab")
    no_exception(at)
    assert any(b.label == "Download Markdown report" for b in at.get("download_button"))
    at = app("views/pairwise.py", benchmark="ab", a="cand-model", b="other-model")
    no_exception(at)
    link = next(p for p in at.get("page_link") if p.proto.label.startswith("A/B compare of this pair"))
    assert "cand=cand-model" in link.proto.page or "cand=cand-model" in str(link.proto)
    assert "base=other-model" in str(link.proto)
