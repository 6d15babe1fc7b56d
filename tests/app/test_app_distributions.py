"""AppTest tests of the Distributions page and of the Pairwise page's table across metrics.

Multi-metric data: TAC2008 from bt-eval (14 metrics, test data only), imported into
the test's own store copy (``tac_db``, tests/app/conftest.py).
"""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pytest
from apptest_support import app, html_frame, no_exception, params, pictures, table
from streamlit.testing.v1 import AppTest

from engine.store import open_store

DIST = "views/distributions.py"
#: The summary's headers without their confidence level, to the engine's column names
#: (``RankBootstrap.summary``), as app/views/distributions.py labels them.
HEADERS = {"system": "system", "mean": "mean", "mean low": "ci_low", "mean high": "ci_high",
           "rank (observed)": "rank", "median rank": "rank_median",
           "bootstrap rank best": "rank_low", "bootstrap rank worst": "rank_high",
           "P(first)": "p_first", "rank set best": "rank_set_low",
           "rank set worst": "rank_set_high"}


def charts(at: AppTest) -> list[str]:
    """The boxplots drawn on the page: SVG pictures drawn on the server (no Vega chart)."""
    assert not (at.get("arrow_vega_lite_chart") or at.get("vega_lite_chart")), "no Vega bundle"
    return [svg for svg in pictures(at) if svg.startswith("<svg")]


def summary_table(at: AppTest) -> pd.DataFrame:
    """The static "bootstrap summary" table read back as numbers, under the engine's names."""
    assert not at.dataframe, "no data grid on the page"
    frame = html_frame(at, "bootstrap summary")
    names = [HEADERS[re.sub(r" \d+(\.\d+)?%", "", str(h))] for h in frame.columns]
    frame.columns = pd.Index(names)
    for column in names[1:]:
        text = frame[column].str.rstrip("%")
        scale = 100 if column == "p_first" else 1
        frame[column] = pd.to_numeric(text) / scale
    return frame


@pytest.mark.slow
@pytest.mark.parametrize("dist", ["means", "ranks", "values"])
def test_each_distribution_view_draws_its_boxplots(db: Path, dist: str) -> None:
    at = app(DIST, benchmark="humaneval", dist=dist, boot="200")
    no_exception(at)
    assert not at.warning
    assert params(at).get("dist", "means") == dist and params(at)["boot"] == "200"
    assert len(charts(at)) == 1, "only the open view is drawn"
    summary = summary_table(at)
    assert summary["system"].iloc[0] == "claude-3-opus-20240229"
    assert (summary["rank_low"] <= summary["rank_high"]).all()
    assert summary["p_first"].between(0, 1).all()


@pytest.mark.slow
def test_resamples_change_the_bootstrap_and_the_url(db: Path) -> None:
    at = app(DIST, benchmark="humaneval", boot="200")
    first = summary_table(at)
    at.selectbox(key="url_boot").set_value(1000).run()
    no_exception(at)
    assert "boot" not in params(at), "the default is not written to the URL"
    assert not summary_table(at)["p_first"].equals(first["p_first"])


@pytest.mark.slow
def test_colour_by_system_metadata(db: Path) -> None:
    at = app(DIST, benchmark="CRUXEval-input", color="hyperparams", boot="200")
    no_exception(at)
    assert not at.warning
    assert at.selectbox(key="url_color").value == "hyperparams"
    (svg,) = charts(at)
    # the legend: the attribute, then its one value in data/cruxeval_input.jsonl.gz (temp0.2)
    assert "\u2068hyperparams\u2069</text>" in svg, "the attribute titles the legend"
    assert svg.count('width="11" height="11"') == 1, "one swatch"
    assert "\u2068temp0.2\u2069</text>" in svg, "the value is in the legend"
    systems = len(summary_table(at))  # every CRUXEval-input system has the attribute
    assert svg.count("hyperparams\u2069&#58; \u2068temp0.2\u2069") == systems, \
        "and in each row's tooltip"


@pytest.mark.slow
def test_hostile_names_and_metadata_are_text_in_the_boxplots(db: Path) -> None:
    # issue #17: uploaded names and metadata values are shown as text, never as markup
    script, rtl = "<script>alert(1)</script>", "safe\u202eevil"
    frame = pd.DataFrame([{"benchmark": "hostile", "system": s, "example_id": f"ex{j}",
                           "metric": "m", "value": float((j + i) % 3 != 0), "o'brien": v}
                          for i, (s, v) in enumerate([(script, "</svg><b>x"), (rtl, "g"),
                                                      ("plain", "g")])
                          for j in range(12)])
    store = open_store(f"sqlite:///{db}")
    store.import_frame(frame, filename="hostile.csv")
    store.close()
    at = app(DIST, benchmark="hostile", color="o'brien", boot="200")
    no_exception(at)
    (svg,) = charts(at)
    assert "<script" not in svg and "<b>" not in svg and svg.count("</svg>") == 1
    assert "&lt;script&gt;" in svg and "&lt;/svg&gt;&lt;b&gt;x" in svg
    assert f"\u2068{rtl}\u2069" in svg, "a right-to-left override stays inside its isolate"
    assert "o&#x27;brien" in svg
    assert set(summary_table(at)["system"]) == {script, rtl, "plain"}


@pytest.mark.slow
def test_unknown_parameters_fall_back_with_a_note(db: Path) -> None:
    at = app(DIST, benchmark="humaneval", color="no-such-column", boot="7", dist="violin")
    no_exception(at)
    notes = " ".join(w.value for w in at.warning)
    for name in ("color", "boot", "dist"):
        assert f"`{name}`" in notes
    assert "boot" not in params(at) and "color" not in params(at)


@pytest.mark.slow
def test_one_metric_benchmark_says_so_in_the_table_across_metrics(db: Path) -> None:
    at = app("views/pairwise.py", benchmark="humaneval", panel="metrics")
    no_exception(at)
    assert any("has one metric" in i.value for i in at.info)
    across = table(at, 0)
    assert list(across.columns[:5]) == ["system_a", "system_b", "combined p", "significant in",
                                        "conflict"]


@pytest.mark.slow
def test_table_across_metrics_on_tac2008(tac_db: Path) -> None:
    at = app("views/pairwise.py", benchmark="TAC2008", panel="metrics")
    no_exception(at)
    across = table(at, 0)
    assert len(across) == 200, "the 200 most significant pairs of 1,653"
    assert any("200 most significant of 1,653 pairs" in c.value for c in at.caption)
    assert {"ROUGE_1", "BERTScore", "human_pyramid"} <= set(across.columns)
    assert len(across.columns) == 5 + 14
    combined = pd.to_numeric(across["combined p"])
    assert combined.is_monotonic_increasing
    at.selectbox(key="url_criterion").set_value("medium").run()  # effect sizes in the cells
    no_exception(at)
    shown = pd.to_numeric(table(at, 0)["ROUGE_1"]).dropna()
    assert len(shown) and (shown.abs() >= 0.5).all(), "cells are effect sizes of at least 0.5"


@pytest.mark.slow
def test_intervals_follow_alpha(db: Path) -> None:
    at = app(DIST, benchmark="humaneval", alpha="0.01", boot="200")
    no_exception(at)
    assert any("percentile intervals at 99%" in c.value for c in at.caption)
    wide = summary_table(at)
    assert "mean 99% low" in next(h.proto.body for h in at.get("html")
                                  if 'aria-label="bootstrap summary"' in h.proto.body)
    narrow = summary_table(app(DIST, benchmark="humaneval", alpha="0.1", boot="200"))
    assert ((wide["ci_high"] - wide["ci_low"]) >= (narrow["ci_high"] - narrow["ci_low"])).all()


@pytest.mark.slow
def test_the_bootstrap_rank_interval_is_named_and_why_it_differs(db: Path) -> None:
    """Issue #25 item 5: the page's rank interval is labelled as the bootstrap's, with one
    sentence on why it differs from the Leaderboard's rank range."""
    at = app(DIST, benchmark="humaneval", boot="200")
    no_exception(at)
    caption = next(c.value for c in at.caption if "Bootstrap rank interval" in c.value)
    assert "different question from the *rank set* (the *rank range* of the Leaderboard" in caption
    headers = list(html_frame(at, "bootstrap summary").columns)
    assert any(str(h).startswith("bootstrap rank") for h in headers)
