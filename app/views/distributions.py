"""Distributions: boxplots of scores, bootstrap means and bootstrap ranks, with rank intervals."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from app import state, widgets
from app.components.cluster_choice import cluster_select, cluster_sentence, resolve_cluster
from app.data import figures, results, store
from app.data.query import Query
from app.downloads import safe_csv
from app.rank_span import rank_span
from app.ranked import html_table
from app.url import BOOT_CHOICES, DIST_TABS, check_choices
from engine.app_support import md_isolated, zero_one

token, catalog, view = widgets.page_context()

widgets.title("Distributions", view)
bar = st.container(horizontal=True, vertical_alignment="center")  # buttons that open widgets
with bar:
    widgets.benchmark_metric(view, catalog)
widgets.test_settings(view)
meta_columns = [c for c in store.system_metadata(token, view.benchmark).columns if c != "system"]
view, problems = check_choices(view, "color", meta_columns)
state.warn(problems)
view, cluster, cluster_columns, cluster_problems = resolve_cluster(view, token)
state.warn(cluster_problems)
state.set_view(view)
with bar:
    cluster_select(view, cluster_columns)

# in a popover: its select boxes are drawn only when it opens (a lighter first screen)
colour_label = f" · colour by {md_isolated(view.color)}" if view.color else ""
with bar.popover(f"{view.boot:,} resamples{colour_label}", icon=":material/tune:",
                 help="Bootstrap resamples and the colour of the boxes."):
    state.bound(st.selectbox, "Bootstrap resamples", "boot", view.boot,
                options=BOOT_CHOICES, format_func="{:,}".format,
                help="More resamples: smoother distributions, longer to compute.")
    state.bound(st.selectbox, "Colour by", "color", view.color, options=["", *meta_columns],
                format_func=lambda c: c or "(one colour)",
                disabled=not meta_columns,
                help="A system attribute uploaded as metadata.")
options = view.test_options()  # intervals at 1 - alpha, like the leaderboard's
# the one question of the page: the boxplots, the summary and its rank sets answer it
query = Query.of(view, token, cluster=cluster, resamples=view.boot)
try:
    result = results.bootstrap(query)
except ValueError as exc:
    st.error(f"These settings cannot be bootstrapped on this benchmark: {md_isolated(exc)}")
    st.stop()

pairing = ("paired: each resample draws the examples once, for every system"
           if result.paired else "unpaired: each system's own examples are resampled")
units = "the examples"
if result.n_clusters is not None:  # whole clusters resampled
    units = f"the clusters of {md_isolated(cluster)}"
    pairing = "paired: each resample draws whole clusters once, for every system"
st.caption(f"{result.n_resamples:,} bootstrap resamples of {units} ({pairing}; seed "
           f"{view.seed}). Boxes: quartiles; whiskers: 1.5 × IQR; systems from best mean down.")
if result.n_clusters is not None:
    st.caption(cluster_sentence(result.n_clusters, result.design_effect), help=(
        "Design effect: the variance of a system's mean over the resamples of whole clusters "
        "over the variance that treats every example as independent (s² / n), median over "
        "the systems; interval widths grow by its square root."))
captions = {
    "means": "How much each system's mean moves when the examples are redrawn.",
    "ranks": "Where each system ranks across resamples: separated boxes mean the order is "
             "reliable; overlapping ones mean it is not.",
    "values": "Each system's per-example scores" + (
        " — binary here, so the boxes only show 0 and 1; the bootstrap means say more."
        if results.matrix(token, view.benchmark, view.metric).binary else "."),
}
tabs = state.bound_tabs("dist", view.dist, DIST_TABS)
for kind, tab in tabs.items():
    if tab.open:
        tab.caption(captions[kind])
        # SVG: no chart library for the browser to fetch (app/charts/svg.py)
        widgets.picture(figures.distribution_svg(query, kind, view.color), tab)

st.subheader("Ranks and intervals")
level = f"{result.confidence:.1%}".replace(".0%", "%")
st.caption(f"Bootstrap percentile intervals at {level}, per system (not simultaneous). "
           "*Bootstrap rank interval*: where the system's rank falls in the resamples — a "
           "different question from the *rank set* (the *rank range* of the Leaderboard, "
           "Overall and Mechanisms pages), so the two spans differ: the bootstrap one is "
           "usually narrower, because it covers one system at a time. *P(first)*: share of "
           "resamples in which the system has the best mean (ties count for each).")
summary = result.summary
# the Leaderboard's simultaneous rank confidence set, the same on every page
try:
    board = results.board_of(query)
    spans = rank_span(board.table, board.rank_sets)
except ValueError:  # these settings cannot be tested: no rank sets either
    spans = pd.DataFrame({"system": summary["system"].astype(str), "low": pd.NA, "high": pd.NA})
summary = summary.merge(spans[["system", "low", "high"]].rename(
    columns={"low": "rank_set_low", "high": "rank_set_high"}), on="system", how="left")
st.caption(f"*Rank set*: the rank range, the {1 - options.alpha:.0%} simultaneous "
           "confidence set for each system's rank, built on the pairwise tests (Mogstad, "
           "Romano, Shaikh & Wilhelm 2024; JSON rank_set_low / rank_set_high) — it covers all "
           "true ranks at once; the bootstrap rank interval is a different question (one "
           "system, uncorrected).")
# a static table: the data grid's code (about 1.7 MB) would hold up the page's first load
columns = {"ci_low": f"mean {level} low", "ci_high": f"mean {level} high",
           "rank": "rank (observed)", "rank_median": "median rank",
           "rank_low": f"bootstrap rank {level} best",
           "rank_high": f"bootstrap rank {level} worst", "p_first": "P(first)",
           "rank_set_low": "rank set best", "rank_set_high": "rank set worst"}
ranks = ["rank (observed)", "median rank", columns["rank_low"], columns["rank_high"],
         "rank set best", "rank set worst"]
# a 0/1 metric's means in percent (decided on its runs' own scores), as on every page
score = ".1%" if zero_one(results.matrix(token, view.benchmark, view.metric)) else ".4f"
st.html(html_table(summary.rename(columns=columns), label="bootstrap summary", max_height=560,
                   formats={"mean": score, columns["ci_low"]: score,
                            columns["ci_high"]: score, "P(first)": ".2%",
                            **dict.fromkeys(ranks, ".0f")}))
st.download_button("Download CSV", lambda: safe_csv(summary), icon=":material/download:",
                   file_name="bootstrap.csv", mime="text/csv",
                   on_click="ignore")
