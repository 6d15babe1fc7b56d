"""Example-level charts: the difficulty histogram and the example × system heatmap."""

from __future__ import annotations

from collections.abc import Sequence

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


#: Most example columns drawn; more examples are averaged in bins of neighbours (by difficulty).
MAX_COLUMNS = 100


def system_order(matrix: ScoreMatrix) -> list[str]:
    """Systems from best to worst mean (their own examples; no pairwise tests needed)."""
    with np.errstate(invalid="ignore"):
        means = np.nanmean(matrix.values, axis=1)
    key = -means if matrix.higher_is_better else means
    order = np.lexsort((np.array(matrix.systems), np.nan_to_num(key, nan=np.inf)))
    return [matrix.systems[i] for i in order]


def binned_scores(matrix: ScoreMatrix, *, columns: int = MAX_COLUMNS) -> tuple[pd.DataFrame, int]:
    """Long frame (system, column, first, last, score, examples) of mean scores per bin of
    consecutive examples (easiest first), at most ``columns`` bins; and the bin width."""
    examples = example_order(matrix)
    index = {e: i for i, e in enumerate(matrix.examples)}
    values = matrix.values[:, [index[e] for e in examples]]
    width = max(1, -(-len(examples) // columns))  # ceil
    bins = -(-len(examples) // width)
    padded = np.full((matrix.n_systems, bins * width), np.nan)
    padded[:, :len(examples)] = values
    blocks = padded.reshape(matrix.n_systems, bins, width)
    with np.errstate(invalid="ignore"):
        score = np.nanmean(blocks, axis=2)
    counts = (~np.isnan(blocks)).sum(axis=2)
    starts = np.arange(bins) * width
    ends = np.minimum(starts + width, len(examples)) - 1
    frame = pd.DataFrame({
        "system": np.repeat(np.asarray(matrix.systems, dtype=object), bins),
        "column": np.tile(np.arange(bins), matrix.n_systems),
        "first": np.tile(np.asarray(examples, dtype=object)[starts], matrix.n_systems),
        "last": np.tile(np.asarray(examples, dtype=object)[ends], matrix.n_systems),
        "score": score.ravel(), "examples": counts.ravel(),
    })
    return frame[frame["examples"] > 0].reset_index(drop=True), width


def example_system_heatmap(matrix: ScoreMatrix, systems: Sequence[str] | None = None) -> alt.Chart:
    """Scores of every system (rows, best first) on every example (columns, easiest first).

    More than :data:`MAX_COLUMNS` examples are averaged in bins of neighbours, so the chart
    fits its column (``width="container"``) and its legend stays in view above it. The
    cells carry only numbers (system and bin indices, the score); names come from two small
    lookup tables, so 100 systems × 1,000 examples ship in a few hundred KB.
    """
    order = list(systems) if systems is not None else system_order(matrix)
    frame, width = binned_scores(matrix)
    names = list(matrix.systems)
    cells = pd.DataFrame({"s": frame["system"].map({n: i for i, n in enumerate(names)}),
                          "c": frame["column"], "v": frame["score"].round(3)})
    if width > 1:
        cells["k"] = frame["examples"]
    bins = frame.drop_duplicates("column")[["column", "first", "last"]].rename(
        columns={"column": "c"})
    lookup_systems = alt.LookupData(pd.DataFrame({"s": range(len(names)), "system": names}),
                                    key="s", fields=["system"])
    lookup_bins = alt.LookupData(bins, key="c", fields=["first", "last"])
    title = (f"example (easiest → hardest; each column averages {width} examples)"
             if width > 1 else "example (easiest → hardest)")
    legend = alt.Legend(orient="top", title=f"{'mean ' if width > 1 else ''}{matrix.metric}")
    reverse = not matrix.higher_is_better
    color = (alt.Color("v:N", scale=alt.Scale(domain=[0.0, 1.0], range=["#f3f4f6", "#3b5b92"]),
                       legend=legend)
             if matrix.binary and width == 1 else
             alt.Color("v:Q", scale=alt.Scale(scheme="blues", reverse=reverse), legend=legend))
    tooltip: list[str | alt.Tooltip] = ["system:N", alt.Tooltip("first:N", title="example"),
                                        alt.Tooltip("v:Q", title="score", format=".3g")]
    if width > 1:
        tooltip[1:2] = [alt.Tooltip("first:N", title="from example"),
                        alt.Tooltip("last:N", title="to example"),
                        alt.Tooltip("k:Q", title="examples")]
    return alt.Chart(cells).transform_lookup(lookup="s", from_=lookup_systems).transform_lookup(
        lookup="c", from_=lookup_bins).mark_rect().encode(
        x=alt.X("c:O", title=title, axis=alt.Axis(labels=False, ticks=False)),
        y=alt.Y("system:N", sort=order, title=None,
                axis=alt.Axis(labelLimit=220, labelOverlap=False)),
        color=color, tooltip=tooltip,
    ).properties(width="container", height=max(160, 16 * len(order)))  # a line per name
