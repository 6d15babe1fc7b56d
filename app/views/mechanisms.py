"""Mechanisms: the same benchmark ranked by mean, median, head-to-head strength, Elo and
TrueSkill, where they disagree, and who beats whom example by example."""

from __future__ import annotations

import streamlit as st

from app import state, widgets
from app.charts.mechanisms import LABELS
from app.components.all_pairs import PHONE_ROWS, PHONE_SWAP, PHONE_SYSTEMS
from app.components.arena import arena_mechanisms
from app.components.cluster_choice import DEFF_HELP, cluster_select, cluster_sentence, resolve_cluster
from app.components.mechanisms_table import (
    TIPS,
    VERDICT_HELP,
    decisive_pairs,
    positions,
    rankings_html,
    verdicts_beside,
)
from app.data import figures, results
from app.data.query import Query
from app.downloads import safe_csv
from app.ranked import html_table
from engine.app_support import best_set_sentence, md_text
from engine.results import Leaderboard, RankIntervals

token, catalog, view = widgets.page_context()

st.title(f"Mechanisms · {md_text(view.benchmark)}")
widgets.benchmark_metric(view, catalog)
widgets.test_settings(view)
view, cluster, cluster_columns, cluster_problems = resolve_cluster(view, token)
state.warn(cluster_problems)
state.set_view(view)
cluster_select(view, cluster_columns)
st.caption("Does the winner depend on how scores are summed up? The same results ranked five "
           "ways: by mean and median score, and from the example-by-example battles between "
           "systems (head-to-head strength, arena-style rating, skill rating). Hover a column "
           "for its method.")

more_orders = st.toggle("More battle orders", key="mechanisms_more", help=(
    "Replay the battles in {} orders for the arena rating and {} for the skill rating: steadier "
    "ratings, but seconds to minutes on large benchmarks.").format(
        *results.battle_orders(more=True)))
# the one question of the page: its rankings, tables and heatmaps are this query's answer
query = Query.of(view, token, cluster=cluster, more_orders=bool(more_orders))
elo_orders, trueskill_orders = results.battle_orders(more_orders, results.battle_count(query))
steps = widgets.Progress(3)  # a bar naming what is computed
steps.step(f"Replaying the battles in {elo_orders} orders (arena rating) and "
           f"{trueskill_orders} (skill rating)")
try:
    result = results.mechanisms_of(query)
except ValueError as exc:
    steps.done()
    st.error(f"The mechanisms cannot rank this benchmark: {md_text(exc)}")
    st.stop()
board: Leaderboard | None
steps.step("Testing every pair of systems")
try:
    board = results.board_of(query)
except ValueError:
    board = None
intervals: RankIntervals | None
steps.step("Computing Tukey rank intervals")
try:
    intervals = results.rank_intervals(query)
except ValueError:
    intervals = None
steps.done()
if board is not None and board.pairwise.clusters is not None:  # as on the Leaderboard
    st.caption(cluster_sentence(board.pairwise.clusters.n_clusters,
                                board.table.get("design_effect")), help=DEFF_HELP)

core = list(LABELS)
taus = [result.kendall_tau.get(f"{a}|{b}", float("nan")) for i, a in enumerate(core)
        for b in core[i + 1:]]
winners = {m: result.rankings[m][0] for m in core}
# the three answers as one line of text (not st.metric: its browser code would be fetched
# on a first visit before the rankings table is done)
st.markdown(f"**Same winner everywhere?** {'no' if result.winner_differs else 'yes'} · "
            f"**Same top 3 everywhere?** {'no' if result.top3_differs else 'yes'} · "
            f"**Lowest agreement** between two rankings: {min(taus):.2f} (1 = the same "
            "order, 0 = unrelated)", help="Agreement is Kendall's tau between two rankings.")
if result.winner_differs:
    st.warning("The winner depends on the mechanism: " + "; ".join(
        f"{LABELS[m]}: {md_text(w)}" for m, w in winners.items()), icon=":material/warning:")

st.subheader("Rankings side by side")
level = f"{1 - view.alpha:.0%}"
st.caption(f"Position of each system under each mechanism, systems in the order of the mean. "
           f"Green: higher than by the mean; red: lower. *Rank range (leaderboard)*: each "
           f"system's {level} rank confidence set, the same span on every page (from the paired "
           f"covariance of the means, all sets together); *Tukey rank interval*: simultaneous "
           f"intervals for all ranks at once that take the means as independent with equal "
           f"variances — a different question, so the spans can differ. Computed on the "
           f"{result.n_examples} examples every system has "
           f"({result.n_battles:,} decisive battles). The arena rating replays the battles in "
           f"{elo_orders} random orders and the skill rating in "
           f"{trueskill_orders} (seed {view.seed}); the engine's defaults are 100 "
           "and 20 — fewer orders here keep the page fast (fewer still on large benchmarks; "
           "“More battle orders” above replays more). On a phone the two rank columns give way.")
st.html(rankings_html(result, board, intervals, level=level))
if board is not None and board.rank_sets is not None:  # the Leaderboard's set
    st.caption(md_text(best_set_sentence(board.rank_sets)) + " The Tukey interval above assumes "
               "independent means; the rank range (the Leaderboard's rank sets) uses their "
               "paired covariance.")
scores = result.scores
st.download_button("Download scores CSV", lambda: safe_csv(scores.join(
    positions(result).add_prefix("position_"), on="system")), icon=":material/download:",
    file_name=f"{view.benchmark}-{view.metric}-mechanisms.csv", mime="text/csv",
    on_click="ignore")

left, right = st.columns([2, 3])
with left:
    st.subheader("Agreement")
    st.caption("How similar two rankings are (Kendall tau: 1 = the same order).")
    shown = widgets.focus_systems(view, result.rankings["mean"])  # the heatmap's
    tau_svg, pbeats_svg = figures.mechanisms_svgs(query, shown)
    widgets.picture(tau_svg)  # drawn on the server, shown by the browser's own parser
    st.caption("Agreement between rankings.")
with right:
    st.subheader("Other variants")
    st.caption("Bradley–Terry with ties ignored or modelled (Davidson), and the Elo scale fitted "
               "to all battles at once; ± columns: spread over battle orders.")
    scores_box = st.popover("Every score of every variant", icon=":material/table:")
    scores_box.dataframe(scores, hide_index=True, height=300, width="stretch", column_config={
        "system": st.column_config.TextColumn(pinned=True),
        **{m: st.column_config.NumberColumn(LABELS[m], help=TIPS[m], format="%.4g")
           for m in core},
        "elo_sd": st.column_config.NumberColumn("arena rating ±", format="%.3g", help=(
            "Spread of the arena rating over battle orders (SD, Elo points)")),
        "trueskill_sigma": st.column_config.NumberColumn("skill rating ±", format="%.3g", help=(
            "TrueSkill's uncertainty σ of the skill rating, averaged over orders (TrueSkill "
            "points; a new player's is 8.33)")),
    })

st.subheader("Who wins more examples (a sign test, not the leaderboard's test)")
pb = results.mechanisms_p_beats(query)  # the heatmap's, above
significant = int(pb.table["significant"].sum())
beside = verdicts_beside(pb.table, board)
st.caption(f"Its own question: on how many shared examples does the row system score higher "
           f"than the column system (ties count half)? Faded cells: not significant by the sign "
           f"test on wins after correction (alpha = {pb.alpha:g}"
           f"{f'; cluster-robust by {md_text(cluster)}' if cluster else ''}); {significant:,} of "
           f"{len(pb.table):,} pairs are. The Leaderboard asks whether the *means* differ (its "
           "paired test), so the two can disagree: a system can win more examples by a little "
           "and still not have a different mean, or the reverse.")
if board is not None:
    lb_sig = int(board.pairwise.table["significant"].sum())
    differ = int((~beside["agree"]).sum())
    st.markdown(f"**Leaderboard's verdict beside it:** {lb_sig:,} of {len(pb.table):,} pairs "
                f"differ by the Leaderboard's test; the two answers disagree on {differ:,} "
                "pairs (listed below the chart).")
# the best systems by default, as on the Pairwise page: every system of humaneval was 6,084
# cells, 1.2 MB that held the browser 8-13 s under load; the CSV has every pair
widgets.focus_controls(view, result.rankings["mean"])
if len(shown) > PHONE_SYSTEMS:  # on a phone, the heatmap's labels would be ~4 px
    st.html(PHONE_SWAP)
    decisive = decisive_pairs(pb.table, shown, PHONE_ROWS)
    with st.container(key="sb_phone_pairs_beats"):
        st.caption(f"On a narrow screen: the {len(decisive)} most decisive of the pairs among "
                   f"these {len(shown)} systems, {int(decisive.pop('differs').sum())} of them "
                   "significant (the heatmap shows on a wider screen).")
        st.html(html_table(decisive, label="most decisive pairs", max_height=None,
                           formats={"P(beats)": ".1%", "adjusted p": ".2g"},
                           help={"P(beats)": "Share of the shared examples on which the first "
                                             "system scores higher (ties count half)",
                                 "adjusted p": "Sign test on the wins, corrected for testing "
                                               "many pairs"}))
    with st.container(key="sb_heatmap_beats"):
        widgets.picture(pbeats_svg)
else:
    widgets.picture(pbeats_svg)
st.caption(f"P(A beats B): row system vs column system, among {len(shown)} of the "
           f"{len(result.rankings['mean'])} systems (the best by mean, or those chosen under "
           "“Systems shown”).")
if board is not None:
    # a static table, not st.dataframe: the data grid's browser code (~1.5 MB) would be
    # fetched on every first view, expander closed or not
    with st.expander("Pairs where the sign test and the Leaderboard disagree "
                     f"({int((~beside['agree']).sum()):,})"):
        st.html(html_table(beside[~beside["agree"]].drop(columns="agree"),
                           label="sign test and leaderboard disagree",
                           formats={"P(A beats B)": ".3f"}, help=VERDICT_HELP))
st.download_button("Download P(A beats B) CSV", lambda: safe_csv(pb.table),
                   icon=":material/download:", on_click="ignore", mime="text/csv",
                   file_name=f"{view.benchmark}-{view.metric}-p-beats.csv")
arena_mechanisms()  # battle lists in the store: who beats whom
