"""AppTest tests of the Distributions page and of the Pairwise page's table across metrics.

Multi-metric data: TAC2008 from bt-eval (14 metrics, test data only), imported into
the test's own store copy (``tac_db``, tests/app/conftest.py).
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from apptest_support import app, no_exception, params, table

DIST = "views/distributions.py"


def charts(at) -> list:
    return at.get("arrow_vega_lite_chart") or at.get("vega_lite_chart")


@pytest.mark.parametrize("dist", ["means", "ranks", "values"])
def test_each_distribution_view_draws_its_boxplots(db: Path, dist: str) -> None:
    at = app(DIST, benchmark="humaneval", dist=dist, boot="200")
    no_exception(at)
    assert not at.warning
    assert params(at).get("dist", "means") == dist and params(at)["boot"] == "200"
    assert len(charts(at)) == 1, "only the open view is drawn"
    summary = table(at, 0)
    assert summary["system"].iloc[0] == "claude-3-opus-20240229"
    assert (summary["rank_low"] <= summary["rank_high"]).all()
    assert summary["p_first"].between(0, 1).all()


def test_resamples_change_the_bootstrap_and_the_url(db: Path) -> None:
    at = app(DIST, benchmark="humaneval", boot="200")
    first = table(at, 0)
    at.selectbox(key="url_boot").set_value(1000).run()
    no_exception(at)
    assert "boot" not in params(at), "the default is not written to the URL"
    assert not table(at, 0)["p_first"].equals(first["p_first"])


def test_colour_by_system_metadata(db: Path) -> None:
    at = app(DIST, benchmark="CRUXEval-input", color="hyperparams", boot="200")
    no_exception(at)
    assert not at.warning
    assert at.selectbox(key="url_color").value == "hyperparams"
    assert "hyperparams" in str(charts(at)[0].proto.spec)


def test_unknown_parameters_fall_back_with_a_note(db: Path) -> None:
    at = app(DIST, benchmark="humaneval", color="no-such-column", boot="7", dist="violin")
    no_exception(at)
    notes = " ".join(w.value for w in at.warning)
    for name in ("color", "boot", "dist"):
        assert f"`{name}`" in notes
    assert "boot" not in params(at) and "color" not in params(at)


def test_one_metric_benchmark_says_so_in_the_table_across_metrics(db: Path) -> None:
    at = app("views/pairwise.py", benchmark="humaneval", panel="metrics")
    no_exception(at)
    assert any("has one metric" in i.value for i in at.info)
    across = table(at, 0)
    assert list(across.columns[:5]) == ["system_a", "system_b", "combined p", "significant in",
                                        "conflict"]


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


def test_intervals_follow_alpha(db: Path) -> None:
    at = app(DIST, benchmark="humaneval", alpha="0.01", boot="200")
    no_exception(at)
    assert any("Percentile intervals at 99%" in c.value for c in at.caption)
    wide = table(at, 0)
    narrow = table(app(DIST, benchmark="humaneval", alpha="0.1", boot="200"), 0)
    assert ((wide["ci_high"] - wide["ci_low"]) >= (narrow["ci_high"] - narrow["ci_low"])).all()
