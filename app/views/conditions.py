"""Conditions: is one level of a system setting better than another, other settings held fixed?"""

from __future__ import annotations

from typing import Any

import streamlit as st

from app import state, widgets
from app.components.conditions_table import pairs_table
from app.data import results
from app.data.query import Query
from app.downloads import safe_csv
from app.tables import fit_height
from app.url import check_conditions, held
from engine.app_support import md_text, zero_one
from engine.results import ConditionComparison

#: Sentences of the summary shown (one per pair of levels; a setting with many levels has
#: hundreds: the table and the CSV have them all).
_SENTENCES = 12

token, catalog, view = widgets.page_context()

widgets.title("Conditions", view)
widgets.benchmark_metric(view, catalog)
widgets.test_settings(view)
st.caption("Is one level of a setting better than another (prompt template B vs A, temperature "
           "0.7 vs 0.2)? Only systems that differ in that setting alone are compared, pair by "
           "pair, so the other settings cannot explain the difference.")

factors, settings = results.settings(token, view.benchmark)
named = results.system_name_columns(token, view.benchmark)
if named:
    st.caption(f"Not offered, they name the system rather than set it: "
               f"{', '.join(map(md_text, named))}.")
if not factors:
    if settings:
        st.info(f"The systems of {md_text(view.benchmark)} carry settings "
                f"({', '.join(map(md_text, settings))}), but every system has the same value, "
                "so there are no two levels to compare.", icon=":material/info:")
    else:
        st.info(f"The systems of {md_text(view.benchmark)} carry no settings (system metadata "
                "such as prompt template, temperature or model family), so there is nothing to "
                "compare.", icon=":material/info:")
    st.caption("To use this page, upload results with one column per setting, the same value "
               "on every row of a system and shared by several systems (e.g. `template`, "
               "`temperature`, `family`), two levels or more. No bundled demo benchmark has "
               "such a setting.")
    st.stop()


def _changed(key: str, param: str) -> None:
    """A widget changed: its value goes to the address bar (the next run reads it); nothing
    held is ``hold=`` there, the default no ``hold`` at all."""
    value: Any = st.session_state[key]
    if param == "factor":  # another factor: its own default settings held fixed
        state.set_params({"factor": str(value)}, clears=("hold",))
    else:
        state.set_params({"factor": view.factor, "hold": [str(v) for v in value] or [""]})


view, problems = check_conditions(view, factors, settings)
state.warn(problems)
state.set_view(view)

left, right = st.columns([2, 3])
st.session_state["conditions_factor"] = view.factor
left.selectbox("Setting to compare", factors, key="conditions_factor", format_func=widgets.names,
               on_change=_changed, args=("conditions_factor", "factor"),
               help="A system setting (system metadata) with two or more values.")
# the one question of the page: the matched pairs and every figure of them are its answer
query = Query.of(view, token, factor=view.factor, hold=held(view))
message = ""
result: ConditionComparison | None
steps = widgets.Progress(1)  # a bar naming what is computed
steps.step(f"Matching systems that differ only in {md_text(view.factor)} and testing them")
try:
    result = results.condition(query)
except ValueError as exc:
    result = None
    message = str(exc)
steps.done()
st.session_state["conditions_hold"] = list(result.held if result is not None else
                                           held(view) or ())
right.multiselect("Held fixed", [s for s in settings if s != view.factor], key="conditions_hold",
                  format_func=widgets.names, on_change=_changed, args=("conditions_hold", "hold"),
                  help="Systems are matched when they agree on every setting held fixed. By "
                       "default every other setting is held, except one with a different value "
                       "for every system (a name or a path).")
if result is None:
    st.warning(f"No matched pairs: {md_text(message)}", icon=":material/link_off:")
    st.caption("A matched pair is two systems that differ in the compared setting and agree on "
               "every setting held fixed. Hold fewer settings, or compare another one.")
    st.stop()

matrix = results.matrix(token, view.benchmark, view.metric)
percent = zero_one(matrix)  # on the runs' own scores: averaged 0/1 runs stay in points
table = result.table
significant = int(table["significant"].sum())
one, two, three = st.columns(3)
one.metric("matched pairs", len(table), help="Pairs of systems that differ only in "
           f"{md_text(result.factor)} (among the settings held fixed).")
two.metric("significant", significant, help=f"Adjusted p below alpha = {view.alpha:g}, "
           "corrected for every matched pair together.")
three.metric("levels", len(result.levels), help=", ".join(map(md_text, result.levels)))

st.subheader("Summary")
sentences = result.summary()
more = len(sentences) - _SENTENCES
st.markdown("\n".join(f"- {md_text(line)}" for line in sentences[:_SENTENCES])
            + (f"\n- … and {more:,} more pairs of levels (all in the table below)." if more > 0
               else ""))
held_text = ", ".join(map(md_text, result.held)) or "nothing"
st.caption(f"Held fixed: {held_text}. Each pair is tested on its own examples with the "
           f"leaderboard's tests; p-values are adjusted over all {len(table)} pairs together "
           f"(alpha = {view.alpha:g}). Differences: second level minus first, positive when the "
           "second is better" + (", in percentage points." if percent else "."))
widgets.notes(result.notes)

st.subheader("Matched pairs")
shown = pairs_table(result, percent)
st.dataframe(shown, hide_index=True, width="stretch", height=fit_height(len(shown)),
             column_config={
                 "compared": st.column_config.TextColumn(help="Second level vs first level."),
                 "systems": st.column_config.TextColumn(help="The system at the second level "
                                                        "vs the one at the first."),
                 "difference": st.column_config.TextColumn(
                     help="Mean score of the second system minus the first's."),
                 "interval": st.column_config.TextColumn(
                     help=f"{1 - view.alpha:.0%} confidence interval of the difference."),
                 "adjusted p": st.column_config.TextColumn(
                     help=f"p-value of the pair's test, adjusted for all {len(table)} pairs."),
                 "test": st.column_config.TextColumn(help="Which test (Methods page)."),
                 "examples": st.column_config.NumberColumn(help="Examples compared (n)."),
             })
st.download_button("Download matched pairs CSV", lambda: safe_csv(table),
                   icon=":material/download:", on_click="ignore", mime="text/csv",
                   file_name=f"{view.benchmark}-{view.metric}-{result.factor}-conditions.csv")
