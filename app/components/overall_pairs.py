"""The Overall page's pairs × benchmarks heatmap table (the Across-metrics table's look)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pandas as pd
import streamlit as st

from app.components.metrics_table import cell_css, format_cell, strength
from app.components.overall_table import MISSING, UNTESTED, pairs_frame
from app.data import overall
from app.data.query import AcrossQuery
from app.downloads import safe_csv
from engine.results import Overall

if TYPE_CHECKING:  # pandas' Styler (and jinja2) only when a table is styled: ~0.15 s of a
    from pandas.io.formats.style import Styler  # first view that shows none

MAX_ROWS = 200  # pairs shown (all of them go into the CSV)
_UNTESTED_CSS = "color: #8a94a6; font-style: italic"


def styled(table: pd.DataFrame, directions: pd.DataFrame, *, alpha: float) -> Styler:
    """Benchmark cells coloured red (system A better there) or blue (B better), darker = smaller p."""
    css = pd.DataFrame("", index=table.index, columns=table.columns)
    shown = table.copy()
    for column in directions.columns:
        untested = directions[column] == UNTESTED
        darkness = strength(table[column], value="pvalue_adj", alpha=alpha)
        css[column] = [_UNTESTED_CSS if u else cell_css(int(d), float(s))
                       for u, d, s in zip(untested, directions[column], darkness, strict=True)]
        shown[column] = table[column].mask(untested, -1.0)  # −1: shown as "not run"

    def cell(x: object) -> str:
        value = float(x)  # type: ignore[arg-type]
        return MISSING if value == -1.0 else format_cell(value, "pvalue_adj")

    formats: dict[Any, str | Callable[[object], str] | None] = dict.fromkeys(directions.columns,
                                                                             cell)
    formats |= {"adjusted p": "{:.2g}".format, "differs somewhere p": "{:.2g}".format,
                "difference": "{:+.2f}".format}
    return shown.style.apply(lambda _: css, axis=None).format(formats, na_rep="")


def pairs_section(q: AcrossQuery) -> None:
    """Each pair's significant differences per benchmark, most significant combined p first:
    the query's overall result and the benchmark shares it combined."""
    result, options = overall.overall_result(q), q.options
    per = {}
    for b in result.benchmarks:
        try:  # grouped as Overall grouped it: by the benchmark's declared cluster column
            per[b] = overall.benchmark_pairs(q, b)
        except ValueError:  # a single system there: nothing to test
            continue
    table, directions = pairs_frame(result, per)
    unit = "points" if result.scale.units == "percent" else "standardised units"
    st.caption("One row per pair of ranked systems, most significant first. *difference*: "
               f"of the two scores ({unit}), tested as one figure — *better* when it is "
               "significant; *differs by benchmark, no overall order* when the pair differs on "
               "some benchmark (*differs somewhere p*, the harmonic mean p of its benchmark "
               "tests) but not in one direction overall. A benchmark cell shows the adjusted "
               "p-value where the pair differs significantly there and is blank where it does "
               "not. Red: system A (the higher overall) is better there; blue: system B is; "
               "darker = more significant.")
    n = len(table)
    if n > MAX_ROWS:
        st.caption(f"The {MAX_ROWS} most significant of {n:,} pairs; the CSV has all of them.")
    head = table.head(MAX_ROWS)
    # the pair pinned: where the benchmarks do not fit the page's width (at 1,400 px, past
    # three), the grid scrolls sideways with the pair still in view
    config: dict[str, Any] = {
        "system A": st.column_config.TextColumn(
            pinned=True, help="The system ranked higher overall of the two"),
        "system B": st.column_config.TextColumn(pinned=True, help="The other system"),
        "difference": st.column_config.NumberColumn(
            help=f"Score of A − score of B ({unit}): the weighted sum of the benchmark "
                 "differences"),
        "adjusted p": st.column_config.NumberColumn(
            help="p-value of the overall difference, adjusted over the pairs with "
                 f"{options.correction}; significant when below alpha = {options.alpha:g}"),
        "verdict": st.column_config.TextColumn(help="What the tests say about the pair overall"),
        "differs somewhere p": st.column_config.NumberColumn(
            help="Adjusted harmonic mean p-value of the pair's tests on the benchmarks "
                 "(Wilson 2019): does it differ on some benchmark, in either direction"),
    } | {b: st.column_config.TextColumn(
        help=f"Adjusted p-value of the pair on {b} where it differs "
                            f"significantly there (red: A better, blue: B better); blank where "
                            f"it does not; {MISSING} where one of the two did not run it")
        for b in directions.columns}
    st.dataframe(styled(head, directions.head(MAX_ROWS), alpha=options.alpha), hide_index=True,
                 width="stretch", height=min(560, 38 + 35 * max(len(head), 1)),
                 column_config=config, placeholder="")
    st.download_button("Download pairs CSV", lambda: safe_csv(table), icon=":material/download:",
                       file_name="overall-pairs.csv", mime="text/csv", on_click="ignore")


def cliques_section(result: Overall, *, shown: int = 50) -> None:
    """The groups of systems that cannot be told apart (maximal cliques), best first.

    Listed here rather than under the systems table: listing them can cost more than the
    rest of a weight change, and the table's letters and rank ranges already show them.
    """
    cliques = result.cliques  # listed on first access (engine.Overall)
    if not cliques:
        return
    with st.expander(f"Groups of systems that cannot be told apart ({len(cliques)})"):
        for note in result.groups.notes:
            st.caption(note)
        for i, clique in enumerate(cliques[:shown]):
            st.text(f"{i + 1}. " + ", ".join(clique))
        if len(cliques) > shown:
            st.caption(f"The first {shown} of {len(cliques)} groups (all in the JSON).")
