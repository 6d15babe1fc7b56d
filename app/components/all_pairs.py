"""All pairs: adjusted p-values, effect sizes, the PWPP, the table across metrics and the raw
table; only the open tab is drawn. Charts show the focus (best k or chosen systems)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from app import state, widgets
from app.components.metrics_table import metrics_table
from app.data import figures, results
from app.data.query import Query
from app.downloads import safe_csv
from app.ranked import NARROW, html_table
from app.tables import fit_height, pairs_in_points
from app.url import MATRIX_TABS, View
from engine.app_support import zero_one
from engine.results import Leaderboard, PairwiseTests

#: The pairs table's columns: engine name → what is shown (technical names in the CSV).
PAIR_COLUMNS = {"system_a": "system A", "system_b": "system B", "difference": "A − B",
                "ci_low": "interval from", "ci_high": "interval to", "n": "n",
                "paired": "paired", "test": "test", "pvalue": "p", "pvalue_adj": "adjusted p",
                "effect_size": "effect size", "significant": "significant"}
MAX_PAIR_ROWS = 2000  # rows drawn on the page; the CSV has every pair
#: Past this many systems shown a heatmap is unreadable on a phone: below NARROW pixels the
#: most significant PHONE_ROWS pairs are listed instead (the heatmap stays on wider screens).
#: At 390 px the default 20 systems drew 4 px labels (it was 30 then).
PHONE_SYSTEMS = 10
PHONE_ROWS = 30
#: The swap at NARROW pixels: containers keyed sb_heatmap… hide, sb_phone_pairs… show (also
#: the Mechanisms page's P(A beats B) heatmap and its table).
PHONE_SWAP = (f"<style>@media (max-width:{NARROW}px){{[class*=st-key-sb_heatmap]{{display:none}}}}"
           f"@media (min-width:{NARROW + 1}px){{[class*=st-key-sb_phone_pairs]{{display:none}}}}"
           # the two names wrap (numbers never do), both read from the left
           '.sb-ranked table[aria-label^="most "] :is(th,td):nth-child(-n+2)'
           "{white-space:normal;overflow-wrap:anywhere;text-align:left}</style>")


#: Every column of the pairs table explained (every column has a tooltip).
PAIR_HELP = {
    "system A": "The first system of the pair", "system B": "The second system of the pair",
    "A − B": "Difference of the two means in the metric's units; positive: A is better",
    "interval from": "Lower end of the confidence interval of A − B",
    "interval to": "Upper end of the confidence interval of A − B",
    "n": "Examples (paired) or scores (unpaired) the test used",
    "paired": "Whether the test compared the two systems example by example",
    "test": "The test that gave the p-value (Methods explains each)",
    "p": "p-value of this pair alone",
    "adjusted p": "p-value corrected for testing many pairs (the correction is in Test "
                  "settings)",
    "effect size": "Standardised difference (Cohen's d or h, Methods): 0.2 small, 0.5 medium, "
                   "0.8 large",
    "significant": "The pair differs at the chosen alpha (after correction)",
    "missing examples": "Cannot decide: one system lacks examples the other has, and with "
                        "those at their worst score the difference could vanish (A/B "
                        "compare says the same; rerun the missing examples)"}


def _pair_columns() -> dict[str, Any]:
    """The pairs table's column settings: a tooltip on each, numbers formatted."""
    formats = {"A − B": "%.4g", "interval from": "%.4g", "interval to": "%.4g", "p": "%.3g",
               "adjusted p": "%.3g", "effect size": "%.3f"}
    return {c: (st.column_config.NumberColumn(help=h, format=formats[c]) if c in formats
                else st.column_config.Column(help=h)) for c, h in PAIR_HELP.items()}


def has_effect_sizes(result: PairwiseTests) -> bool:
    """False when no pair has an effect size (the permutation test reports none)."""
    effects = result.table["effect_size"].to_numpy(float)
    return bool(np.isfinite(effects).any())


def pair_rows(result: PairwiseTests) -> pd.DataFrame:
    """The pairwise table with readable columns; the test's name in words; a pair the
    missing examples leave open says "cannot decide (…)" beside ``significant``."""
    t = result.table
    rows = t[list(PAIR_COLUMNS)].rename(columns=PAIR_COLUMNS)
    rows["test"] = rows["test"].map(lambda c: widgets.TEST_NAMES.get(c, c))
    if "undecided" in t.columns:  # beside the names: past "significant" it was off-screen
        rows.insert(2, "missing examples", t["undecided"].replace("", None).to_numpy())
    return rows


def strongest_pairs(board: Leaderboard, systems: tuple[str, ...], rows: int = PHONE_ROWS,
                    result: PairwiseTests | None = None) -> pd.DataFrame:
    """The most significant pairs among ``systems``, smallest adjusted p first (then the
    largest difference), better system first: the phone's replacement of a heatmap
    (``result``: the page's tests, default the board's)."""
    t = (board.pairwise if result is None else result).table
    keep = set(systems)
    t = t[t["system_a"].isin(keep) & t["system_b"].isin(keep)]
    t = t.assign(size=t["difference"].abs()).sort_values(["pvalue_adj", "size"],
                                                          ascending=[True, False]).head(rows)
    ahead = t["difference"] >= 0
    higher = board.higher_is_better
    first = ahead if higher else ~ahead
    return pd.DataFrame({
        "better": np.where(first, t["system_a"], t["system_b"]).astype(str),
        "worse": np.where(first, t["system_b"], t["system_a"]).astype(str),
        "by": t["size"].to_numpy(float),
        "adjusted p": t["pvalue_adj"].to_numpy(float),
        "differs": t["significant"].astype(bool).to_numpy(),
        **({"cannot decide": t["undecided"].to_numpy()} if "undecided" in t.columns else {})})


def _phone_pairs(board: Leaderboard, result: PairwiseTests, shown: tuple[str, ...],
                 where: DeltaGenerator, percent: bool) -> None:
    """Below NARROW pixels, the most significant pairs instead of the heatmap (``percent``:
    the differences in points, 0/1 metrics)."""
    pairs = strongest_pairs(board, shown, result=result)
    differ = int(pairs.pop("differs").sum())  # said in the caption: one column fewer to fit
    open_ = pairs.pop("cannot decide") if "cannot decide" in pairs.columns else None
    if open_ is not None and (open_ != "").any():  # the adjusted p alone would read "differs"
        pairs["adjusted p"] = [f"{p:.2g}" + (" (cannot decide)" if o else "")
                               for p, o in zip(pairs["adjusted p"], open_, strict=True)]
    by = "by (points)" if percent else f"by ({board.metric})"  # the unit in the header
    pairs = pairs.assign(by=pairs["by"] * (100 if percent else 1)).rename(columns={"by": by})
    with where.container(key="sb_phone_pairs"):
        st.caption(f"On a narrow screen: the {len(pairs)} most significant of the pairs among "
                   f"these {len(shown)} systems, {differ} of them different at alpha = "
                   f"{board.pairwise.alpha:g} (the heatmap shows on a wider screen).")
        st.html(html_table(pairs, label="most significant pairs",
                           formats={by: ".1f" if percent else ".3g", "adjusted p": ".2g"},
                           max_height=None,
                           help={by: "Difference of the two means"
                                     + (", in percentage points" if percent
                                        else ", in the metric's units"),
                                 "adjusted p": "p-value corrected for testing many pairs "
                                               "(Test settings; Methods); cannot decide: one "
                                               "system lacks examples the other has"}))


def _differ_among(result: PairwiseTests, shown: tuple[str, ...]) -> str:
    """"12 of 190 pairs among them differ": the heatmap's answer in words (the best 20 of
    humaneval are all grey, which a picture alone leaves the reader to count), and how many
    the missing examples leave open."""
    t = result.table
    keep = set(shown)
    among = t[t["system_a"].isin(keep) & t["system_b"].isin(keep)]
    said = (f"{int(among['significant'].astype(bool).sum()):,} of {len(among):,} pairs among "
            "them differ")
    if "undecided" in among.columns and (open_ := int((among["undecided"] != "").sum())):
        said += (f", {open_:,} cannot be decided (one system lacks examples the other has; "
                 "marked so in every tab)")
    return said


def all_pairs(q: Query, view: View) -> None:
    """The all-pairs tabs of the Pairwise page, bound to URL parameter ``panel`` (``view``:
    the tab and the focus); every tab draws the query's board, the page's."""
    board = results.board_of(q)
    result = results.pairwise_of(q)  # the tests every tab draws, undecided pairs marked
    order = list(board.table["system"])
    shown = widgets.focus_controls(view, order)
    tabs = state.bound_tabs("panel", view.panel, MATRIX_TABS)
    if tabs["effects"].open and not has_effect_sizes(result):
        tabs["effects"].info("The permutation test reports p-values only, no effect size: "
                             "choose another test to see effect sizes.", icon=":material/info:")
    elif tabs["effects"].open:
        tabs["effects"].caption("Positive (red): the row system is better than the column one.")
    for kind in ("pvalues", "effects", "pwpp"):
        if tabs[kind].open and (kind != "effects" or has_effect_sizes(result)):
            tabs[kind].caption(f"{len(shown)} of {len(order)} systems (best first): "
                               f"{_differ_among(result, shown)}; the *Table* tab and its CSV "
                               "have every pair.")
            where = tabs[kind]
            if kind != "pwpp" and len(shown) > PHONE_SYSTEMS:  # the heatmaps: a table on phones
                where.html(PHONE_SWAP)
                percent = zero_one(results.matrix(q.token, q.benchmark, q.metric))
                _phone_pairs(board, result, shown, where, percent)
                where = where.container(key=f"sb_heatmap_{kind}")
            if kind == "pvalues":  # the default panel: SVG, no chart library to load
                widgets.picture(figures.pvalue_svg(q, shown), where)
                continue
            spec = figures.panel_spec(q, kind, shown)
            where.vega_lite_chart(spec=spec, width="stretch" if kind == "pwpp" else "content")
    if tabs["metrics"].open:
        with tabs["metrics"]:
            metrics_table(q)
    if tabs["table"].open:
        with tabs["table"]:
            rows, points = pairs_in_points(pair_rows(result), PAIR_HELP, percent=zero_one(
                results.matrix(q.token, q.benchmark, q.metric)))  # 0/1 metrics in points
            if len(rows) > MAX_PAIR_ROWS:
                st.caption(f"The first {MAX_PAIR_ROWS:,} of {len(rows):,} pairs; the CSV has all.")
            st.dataframe(rows.head(MAX_PAIR_ROWS), hide_index=True, width="stretch",
                         height=fit_height(min(len(rows), MAX_PAIR_ROWS), 560), placeholder="—",
                         column_config=_pair_columns() | points)
            st.download_button("Download CSV", lambda: safe_csv(result.table),
                               icon=":material/download:", file_name="pairs.csv",
                               mime="text/csv", on_click="ignore")
