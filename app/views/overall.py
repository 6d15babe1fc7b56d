"""Overall: systems ranked across benchmarks, with each benchmark's result beside the rank.

Choices (benchmarks, metrics, benchmark weights, test settings, open tab, and whether the
complete block or every system by the joint model is ranked) live in the URL. The first
screen is static HTML (no data grid), like the leaderboard's.
"""

from __future__ import annotations

import json

import streamlit as st

from app import state, widgets
from app.components.cluster_choice import cluster_sentence
from app.components.judge_note import judge_systems
from app.components.overall_joint import joint_section
from app.components.overall_pairs import cliques_section, pairs_section
from app.components.overall_table import systems_html
from app.data import overall, results
from app.data.query import AcrossQuery
from app.downloads import safe_csv
from app.url import OVERALL_TABS, check_choices, format_weights, parse_weights
from engine.app_support import md_text, overall_document, overall_headline, zero_one

token, catalog, view = widgets.page_context()
all_benchmarks = list(dict.fromkeys(catalog["benchmark"].astype(str)))

view, problems = check_choices(view, "bench", all_benchmarks)
default = overall.default_benchmarks(token)  # first visit: the largest complete block
joint = view.omodel == "irt"  # "model all systems": the joint model of the whole matrix
if joint:  # first visit: the largest part of the matrix the model can place on one scale
    chosen = list(overall.joint_benchmarks(token, tuple(view.bench))[0])
else:
    chosen = list(view.bench) or [b for b in all_benchmarks if b in default.benchmarks]
measured = list(dict.fromkeys(catalog.loc[catalog["benchmark"].isin(chosen), "metric"].astype(str)))
view, more = check_choices(view, "ometric", measured)
weights, bad_weights = parse_weights(view.bw, all_benchmarks)
weights = {b: w for b, w in weights.items() if b in chosen}
state.warn(problems + more + bad_weights)
state.set_view(view)

st.title("Overall")
headline_slot = st.empty()  # the answer in one sentence, first (filled once it is computed)
st.caption("Which systems are better across all your benchmarks — and which cannot be told "
           "apart. Each benchmark is tested on its own, then every pair's results are combined.")
state.link("benchmarks", "Per benchmark: sizes and health of each benchmark",
           icon=":material/dashboard:")
MODELS = {"": "Complete block only", "irt": "Model all systems"}
state.bound(st.radio, "Systems ranked", "omodel", view.omodel, options=list(MODELS),
            format_func=MODELS.__getitem__, horizontal=True,
            help="Complete block only: the systems that ran every selected benchmark, each "
                 "pair tested benchmark by benchmark. Model all systems: every system, also "
                 "those that skipped benchmarks, ranked by a joint model of the whole results "
                 "matrix (a two-parameter logistic fit to every system's examples, Methods), "
                 "each with its rank set — wider for a system that ran few benchmarks.")

# one row of buttons (choices, weights, downloads), each opening its widgets only when clicked:
# the landing page's first screen is the table, with no widget code for the browser to fetch
bar = st.container(horizontal=True, vertical_alignment="center")
metrics_label = ("primary metrics" if not view.ometric
                 else f"{len(view.ometric)} of {len(measured)} metrics")
with bar.popover(f"{len(chosen)} of {len(all_benchmarks)} benchmarks · {metrics_label}",
                 icon=":material/checklist:", help="Choose the benchmarks and metrics combined."):
    state.bound(st.multiselect, "Benchmarks", "bench", tuple(chosen), options=all_benchmarks,
                placeholder="the largest complete block" if not joint else "every benchmark "
                "the model can place",
                help="Benchmarks to combine. None chosen: " + (
                    md_text(default.rule) if not joint else "the largest part of the matrix "
                    "the joint model can place on one scale (benchmarks 3 or more systems "
                    "ran, connected through the systems that ran them)") + ".")
    state.bound(st.multiselect, "Metrics", "ometric", view.ometric, options=measured,
                disabled=len(measured) < 2, placeholder="each benchmark's primary metric",
                help="None chosen: each benchmark's primary (first) metric, in its own units. "
                     "Several metrics of one benchmark make its aggregate (each metric "
                     "standardised, then averaged: Ackerman et al. 2025, §6.1), labelled so.")


def _push_weights(names: list[str]) -> None:
    chosen_weights = {b: float(st.session_state[f"overall_w_{i}"]) for i, b in enumerate(names)}
    values = list(format_weights(chosen_weights))
    if values:
        st.query_params["bw"] = values
    else:
        st.query_params.pop("bw", None)


if not joint:  # the joint model weighs each benchmark by its examples
    with bar.popover("Weights", icon=":material/balance:"):
        st.caption("How much each benchmark counts in the score and in the combined tests.")
        for i, b in enumerate(chosen):
            key = f"overall_w_{i}"
            st.session_state[key] = float(weights.get(b, 1.0))
            st.number_input(md_text(b), key=key, min_value=0.0, max_value=100.0, step=0.5,
                            on_change=_push_weights, args=(chosen,))
widgets.test_settings(view)
if joint:
    joint_section(overall.joint_result(token, tuple(view.bench),
                                       tuple(view.ometric) if view.ometric else None,
                                       view.alpha, view.seed), headline_slot)
    st.stop()

# every pair of ranked systems, two-sided: a one-sided set needs an order fixed before the
# results (the CLI's --order), never the order this page would show
options = view.test_options().with_(compare="all", alternative="two-sided")
metrics = tuple(view.ometric) if view.ometric else None
weight_items = tuple((b, float(weights.get(b, 1.0))) for b in chosen) if weights else ()
clusters = overall.declared_clusters(token, tuple(chosen))  # each benchmark's, from upload
# the one question of the page: the ranking, each benchmark's pairs and the judge tables
query = AcrossQuery(token, tuple(chosen), metrics, weight_items, options, clusters)
try:
    result = overall.overall_result(query)
except ValueError as exc:
    st.error(f"These choices cannot be ranked: {md_text(exc)}")
    st.stop()

t = result.table
headline_slot.markdown(f"**{md_text(overall_headline(result))}**")
separated = int(result.pairs["significant"].sum())
shown_weights = ", ".join(f"{md_text(b)} {w:.0%}"
                          for b, w in zip(result.benchmarks, result.benchmark_weights, strict=True))
st.caption(f"{len(t)} systems ranked · {len(result.unranked)} not ranked (did not run every "
           f"benchmark) · {len(result.benchmarks)} benchmarks · {separated:,} of "
           f"{len(result.pairs):,} ranked pairs differ, {widgets.error_rate(view)} · weights: "
           f"{shown_weights}" + ("" if view.bench else " · benchmarks: the largest complete block"),
           help=f"Significance level {options.alpha:g}, corrected for testing many pairs "
                f"({md_text(options.correction)}; Methods).")


def _cluster_notes() -> tuple[list[str], list[str]]:
    """The starts of the engine's cluster notes (test names: Methods has them) to leave out,
    and one plain sentence per benchmark grouped by its declared cluster column."""
    said, plain = [], []
    for b, column in clusters:
        said.append(f"{b}: clustered by ")
        if b not in result.benchmarks:
            continue
        try:
            pairs = overall.benchmark_pairs(query, b)
        except ValueError:  # a single system there: nothing tested
            continue
        if pairs.clusters is None:
            plain.append(f"{b}: not clustered by {column} (the column declared on upload): "
                         "not every example has one, or all share one.")
            continue
        plain.append(f"{b}: clustered by {column} (declared on upload): "
                     + cluster_sentence(pairs.clusters.n_clusters, pairs.table["design_effect"]))
    return said, plain


# the headline and the caption already say who is not ranked
engine_cluster_notes, cluster_lines = _cluster_notes()
widgets.notes([*cluster_lines, *(n for n in result.notes if "not ranked (a score over" not in n
                                 and not n.startswith(tuple(engine_cluster_notes)))])

tabs = state.bound_tabs("otab", view.otab or "systems", OVERALL_TABS)
if tabs["systems"].open:
    metric_of = {b: result.metrics[b][0] for b in result.benchmarks if len(result.metrics[b]) == 1}
    links = dict(zip(metric_of, state.hrefs("leaderboard", [
        {"benchmark": b, "metric": m} for b, m in metric_of.items()]), strict=True))
    tabs["systems"].caption(
        f"Best first, among the systems that ran every selected benchmark. *{result.scale.label}*: "
        f"{result.scale.explanation} *Rank range*: the ranks each system could hold (its "
        f"{1 - options.alpha:.0%} rank confidence set, all sets together, from the paired "
        "covariance of the scores); systems sharing a *group* letter cannot be told apart by "
        "the pairwise tests (where the letters would be long: how many systems it ties "
        "with). Each benchmark cell: its primary metric in its own "
        "units, its interval and the group letters on that benchmark alone. Shaded rows could "
        "rank first (the confidence set for the best). Below the ranked systems, the "
        "others, unranked, by what they ran; *not run*: no results there. Click a benchmark "
        "for its leaderboard.")
    # a 0/1 benchmark's cells in percent beside a standardised score too (runs' own scores)
    zero_ones = {b for b, m in metric_of.items() if zero_one(results.matrix(token, b, m))}
    tabs["systems"].html(systems_html(result, links=links, zero_one=zero_ones))
    with tabs["systems"]:  # judge metrics with human labels: corrected beside the rank
        for b, m in metric_of.items():
            judge_systems(query.benchmark_query(b, m))
with bar.popover("Download", icon=":material/download:"):
    st.download_button("Download table CSV", lambda: safe_csv(result.table),
                       icon=":material/download:", file_name="overall.csv",
                       mime="text/csv", on_click="ignore")
    st.download_button("Download JSON", lambda: json.dumps(overall_document(result), indent=1),
                       icon=":material/data_object:", file_name="overall.json",
                       mime="application/json", on_click="ignore")
if tabs["pairs"].open:
    with tabs["pairs"]:
        pairs_section(query)
        cliques_section(result)
