"""Example-level charts: the example × system heatmap (the difficulty histogram is SVG,
``app/charts/svg_examples.py``)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from engine import ScoreMatrix

from .vl import Datasets, Spec, field, tooltip, top


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


def example_system_heatmap_spec(matrix: ScoreMatrix, systems: Sequence[str] | None = None
                                ) -> Spec:
    """Scores of every system (rows, best first) on every example (columns, easiest first).

    More than :data:`MAX_COLUMNS` examples are averaged in bins of neighbours, so the chart
    fits its column (``width="container"``) and its legend stays in view above it. The
    cells carry only numbers (system and bin indices, the score); names come from two small
    lookup tables, so 100 systems × 1,000 examples ship in a few hundred KB. A Vega-Lite dict
    (:mod:`app.charts.vl`).
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
    data = Datasets()
    ref = data.ref(cells)  # the cells first: the chart's main data
    lookups = [
        {"from": {"data": data.ref(pd.DataFrame({"s": range(len(names)), "system": names})),
                  "fields": ["system"], "key": "s"}, "lookup": "s"},
        {"from": {"data": data.ref(bins), "fields": ["first", "last"], "key": "c"},
         "lookup": "c"}]
    title = (f"example (easiest → hardest; each column averages {width} examples)"
             if width > 1 else "example (easiest → hardest)")
    legend = {"orient": "top", "title": f"{'mean ' if width > 1 else ''}{matrix.metric}"}
    reverse = not matrix.higher_is_better
    color = (field("v", "nominal", legend=legend,
                   scale={"domain": [0.0, 1.0], "range": ["#f3f4f6", "#3b5b92"]})
             if matrix.binary and width == 1 else
             field("v", "quantitative", legend=legend,
                   scale={"reverse": reverse, "scheme": "blues"}))
    tips = [tooltip("system", "nominal"), tooltip("first", "nominal", title="example"),
            tooltip("v", "quantitative", title="score", fmt=".3g")]
    if width > 1:
        tips[1:2] = [tooltip("first", "nominal", title="from example"),
                     tooltip("last", "nominal", title="to example"),
                     tooltip("k", "quantitative", title="examples")]
    return top({
        "data": ref,
        "encoding": {
            "color": color, "tooltip": tips,
            "x": field("c", "ordinal", axis={"labels": False, "ticks": False}, title=title),
            "y": field("system", "nominal", axis={"labelLimit": 220, "labelOverlap": False},
                       sort=order, title=None)},
        "height": max(160, 16 * len(order)),  # a line per name
        "mark": {"type": "rect"}, "transform": lookups, "width": "container"}, data)
