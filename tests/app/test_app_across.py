"""Pure helpers of the heatmap table across metrics (app/components/metrics_table.py) and the
boxplot chart."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from app.components.metrics_table import cell_css, format_cell, strength, styled
from engine import build_matrix, pairs_across_metrics, pairwise_tests


def _results() -> list:
    rng = np.random.default_rng(0)
    n = 40
    frames = []
    for metric, shift in (("m1", 1.0), ("m2", -1.0)):
        for system, level in (("A", shift), ("B", 0.0), ("C", 0.05)):
            frames.append(pd.DataFrame({"benchmark": "b", "metric": metric, "system": system,
                                        "example_id": [f"e{i}" for i in range(n)],
                                        "value": level + 0.3 * rng.normal(size=n)}))
    df = pd.concat(frames, ignore_index=True)
    return [pairwise_tests(build_matrix(df, metric=m)) for m in ("m1", "m2")]


def test_colours_say_direction_and_strength() -> None:
    assert "rgba(192, 34, 34" in cell_css(1, 1.0) and "color: white" in cell_css(1, 1.0)
    assert "rgba(38, 84, 176, 0.15)" in cell_css(-1, 0.0) and "color: black" in cell_css(-1, 0.0)
    assert cell_css(1, math.nan) == "" and cell_css(0, 0.5) == ""


def test_strength_grows_as_p_falls_below_alpha() -> None:
    s = strength(pd.Series([0.05, 0.05e-4, 1e-300, np.nan]), value="pvalue_adj", alpha=0.05)
    assert s.iloc[0] == 0.0 and s.iloc[1] == pytest.approx(0.5) and s.iloc[2] == 1.0
    assert np.isnan(s.iloc[3])
    e = strength(pd.Series([-1.0, 3.0]), value="effect_size", alpha=0.05)
    assert list(e) == [0.5, 1.0]


@pytest.mark.parametrize(("x", "value", "text"), [
    (0.0123, "pvalue_adj", "0.012"), (3.4e-7, "pvalue_adj", "3.4e-07"),
    (0.456, "effect_size", "+0.46"), (-1.2, "effect_size", "-1.20"), (np.nan, "pvalue_adj", ""),
])
def test_cell_text(x: float, value: str, text: str) -> None:
    assert format_cell(x, value) == text


def test_styled_table_colours_each_direction() -> None:
    result = pairs_across_metrics(_results())
    html = styled(result, alpha=0.05).to_html()
    assert "rgba(192, 34, 34" in html and "rgba(38, 84, 176" in html  # metrics disagree on A
    assert result.table["conflict"].any(), "the conflicting pair is flagged"
    assert len(styled(result, alpha=0.05, rows=1).data) == 1


