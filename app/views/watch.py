"""Watch: the champion against every challenger while results keep arriving.

Each comparison is a confidence sequence (``engine.watch_board``): its interval and
always-valid p-value hold however often the page is looked at, and the challengers'
e-values are combined by e-BH (false-discovery control under any dependence).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from app import state, widgets
from app.data import results, watch
from app.data.query import Query
from engine.app_support import POINTS, md_isolated, md_text, sequence_svg, zero_one

#: Charts drawn open at first (the rest one click away, in order of the table).
OPEN_CHARTS = 1
#: At most this many charts: a benchmark with hundreds of systems keeps a readable page.
MAX_CHARTS = 30
#: Width of each chart in pixels (the picture shrinks to a phone's width, never grows).
CHART_WIDTH = 480
#: e-values are written up to this; past it as "> 1e+15" (overwhelming evidence either way).
E_SHOWN = 1e15

token, catalog, view = widgets.benchmark_page(
    "Watch",
    "Fixed-n p-values assume the data were looked at once. Here the champion is "
    "compared with each challenger by a **confidence sequence**: an interval for the "
    "difference that holds at every look, so the page can be checked after every "
    "upload and a verdict taken whenever the interval leaves 0. Examples arrive in "
    "upload order (an example when both systems have it, its runs averaged up to then). "
    "See Methods.")

matrix = results.matrix(token, view.benchmark, view.metric)
means = np.nanmean(matrix.oriented(paired=False), axis=1)
systems = [matrix.systems[i] for i in np.argsort(-means, kind="stable")]  # best first
if len(systems) < 2:
    st.info("This benchmark has a single system: there is nothing to watch.")
    st.stop()
if view.base and view.base not in systems:
    state.warn([f"URL parameter `base`: “{md_text(view.base)}” is not a system of this "
                "benchmark; using the best mean."])
# the one question of the page: the table and every confidence sequence drawn are its answer;
# a champion the URL names is taken as fixed in advance, else the engine picks the best mean
# and its e-BH accounts for that choice (board.champion_note says which)
board = watch.board(Query.of(view, token, champion=view.base if view.base in systems else ""))
champion = board.champion
state.bound(st.selectbox, "Champion", "base", champion, options=systems,
            format_func=widgets.names,
            help="The system every other one is compared with (default: the best mean). "
                 "Positive differences mean the challenger is better.")
table = board.table
# a challenger whose verdict does not survive the examples one side lacks is no decision
# (`watch` exits 2 on it): left out of the counts and said beside the table
cannot = {b.candidate for b in board.undecided}
counted = ~table["challenger"].astype(str).isin(cannot)
found = int((table["ebh_discovery"] & counted).sum())
st.markdown(f"**{found} of {len(table)}** challenger(s) differ from "
            f"{md_isolated(champion)}, with on average at most {board.alpha:.0%} of such "
            f"findings false however often the page is checked; "
            f"{int((table['excludes_0'] & counted).sum())} differ when each is taken on its "
            "own.",
            help=f"Discoveries by e-BH at a false-discovery rate of {board.alpha:g}; on its own: "
                 f"the challenger's {1 - board.alpha:.0%} confidence sequence excluded 0.")
for bound in board.undecided:
    st.warning(f"**Cannot decide {md_isolated(bound.candidate)} (`watch` exits 2):** "
               f"{md_text(bound.sentence(flag=None))}", icon=":material/block:")
# in points for 0/1 scores, as on Pairwise and A/B compare (the unit in the header); 0/1
# decided on the runs' own scores, so averaged 0/1 runs stay in points
percent = zero_one(matrix)
scale, unit = (100.0, POINTS) if percent else (1.0, view.metric)
low, high = (f"low ({unit})", f"high ({unit})") if percent else ("low", "high")
shown = pd.DataFrame({
    "challenger": table["challenger"].astype(str),
    "seen": table["n_seen"],
    low: table["cs_low"] * scale, high: table["cs_high"] * scale,
    "always-valid p": table["p_always_valid"],
    "e-value": table["e_value"],
    "excludes 0": table["excludes_0"],
    "e-BH": table["ebh_discovery"],
    "first at": table["first_excluded_n"],
})
# e-values written by Python: the grid's "%.3g" wrote 5.44e9 as 5440000000 and could not draw
# numbers past 1e21 at all (1.5e88 came out as a grey string of 17 digits); shown up to
# E_SHOWN, past it "> 1e+15" over the value clipped there, still a number for sorting
shown["e-value"] = shown["e-value"].clip(upper=E_SHOWN)


def e_text(e: object) -> str:
    value = float(e)  # type: ignore[arg-type]  # the Styler passes the column's floats
    return f"{value:.3g}" if value < E_SHOWN else f"> {E_SHOWN:.0e}"


styled = shown.style.format({"e-value": e_text})
# "—" where a sequence never excluded 0 (the grid wrote "None")
st.dataframe(styled, hide_index=True, placeholder="—", column_config={
    "challenger": st.column_config.TextColumn(help="The system compared with the champion",
                                              pinned=True),  # named on a phone's scroll too
    "seen": st.column_config.NumberColumn(help="Paired observations (examples, or clusters) so far"),
    low: st.column_config.NumberColumn(format="%.1f" if percent else "%.4f",
                                       help="Lower end of the sequence's interval for "
                                            f"challenger − champion ({unit})"),
    high: st.column_config.NumberColumn(format="%.1f" if percent else "%.4f",
                                        help="Upper end of the sequence's interval for "
                                             f"challenger − champion ({unit})"),
    "always-valid p": st.column_config.NumberColumn(format="%.3g", help="A p-value that stays "
                                                    "valid however often the page is looked at"),
    "e-value": st.column_config.NumberColumn(help="Evidence against 'no difference' now "
                                             "(1 = none; 1/alpha = a verdict); combined by "
                                             "e-BH"),
    "excludes 0": st.column_config.CheckboxColumn(help="The interval has left 0: a verdict "
                                                  "for this challenger alone"),
    "e-BH": st.column_config.CheckboxColumn(help="A discovery after the false-discovery "
                                            "control over every challenger (e-BH)"),
    "first at": st.column_config.NumberColumn(help="Observation at which the sequence first "
                                              "excluded 0 (— : not yet)"),
})
st.caption(md_text(board.champion_note))
st.caption(f"e-BH caveat: {board.caveat}")
for i, report in enumerate(board.reports[:MAX_CHARTS]):
    label = f"{md_isolated(report.candidate)} − {md_isolated(report.baseline)}"  # markdown
    with st.expander(label, expanded=i < OPEN_CHARTS):
        history = report.history.assign(cs_low=report.history["cs_low"] * scale,
                                        cs_high=report.history["cs_high"] * scale)
        # the pair is named by the expander; a narrower picture keeps its text readable
        # when a phone scales it to its width (640 px drawn at 310 px: 5 px letters)
        widgets.picture(sequence_svg(
            history, title=f"{1 - board.alpha:.0%} confidence sequence over uploads",
            y_label=f"difference ({unit})", first_excluded_n=report.first_excluded_n,
            width=CHART_WIDTH))
if len(board.reports) > MAX_CHARTS:
    st.caption(f"Charts of the first {MAX_CHARTS} challengers in the table's order.")
