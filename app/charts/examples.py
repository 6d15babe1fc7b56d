"""Example-level charts: the difficulty histogram and the example × system heatmap."""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

import altair as alt
import numpy as np
import pandas as pd

from engine import ScoreMatrix


def difficulty_histogram(difficulty: pd.DataFrame) -> alt.Chart:
    """Bars of the health report's histogram of per-example mean score (0 = solved by none)."""
    return alt.Chart(difficulty).mark_bar(color="#3b5b92").encode(
        x=alt.X("bin_low:Q", bin="binned", title="mean score over systems (per example)",
                scale=alt.Scale(domain=[0, 1])),
        x2="bin_high:Q",
        y=alt.Y("count:Q", title="examples"),
        tooltip=[alt.Tooltip("bin_low:Q", title="from", format=".2f"),
                 alt.Tooltip("bin_high:Q", title="to", format=".2f"), "count:Q"],
    ).properties(height=260)


def example_order(matrix: ScoreMatrix) -> list[str]:
    """Examples from easiest to hardest (mean over the systems that scored them)."""
    with np.errstate(invalid="ignore"):
        means = np.nanmean(matrix.values, axis=0)
    if not matrix.higher_is_better:
        means = -means
    order = np.lexsort((np.array(matrix.examples), -np.nan_to_num(means, nan=-np.inf)))
    return [matrix.examples[i] for i in order]


def example_system_heatmap(matrix: ScoreMatrix, systems: Sequence[str]) -> alt.Chart:
    """Scores of every system (rows, best first) on every example (columns, easiest first)."""
    examples = example_order(matrix)
    frame = matrix.to_frame().loc[list(systems), examples]
    # one column level: stack() gives a Series (typed DataFrame | Series)
    stacked = cast(pd.Series, frame.rename_axis(index="system", columns="example").stack())
    stacked = stacked.dropna()
    long = stacked.reset_index(name="score")
    cell = max(2, min(14, 1100 // max(len(examples), 1)))
    color = (alt.Color("score:N", title=matrix.metric,
                       scale=alt.Scale(domain=[0.0, 1.0], range=["#f3f4f6", "#3b5b92"]))
             if matrix.binary else
             alt.Color("score:Q", title=matrix.metric,
                       scale=alt.Scale(scheme="blues", reverse=not matrix.higher_is_better)))
    return alt.Chart(long).mark_rect().encode(
        x=alt.X("example:N", sort=examples, title="example (easiest → hardest)",
                axis=alt.Axis(labels=len(examples) <= 60, ticks=False)),
        y=alt.Y("system:N", sort=list(systems), title=None, axis=alt.Axis(labelLimit=220)),
        color=color,
        tooltip=["system:N", "example:N", alt.Tooltip("score:Q", format=".3g")],
    ).properties(width=cell * len(examples), height=max(160, 13 * len(systems)))
