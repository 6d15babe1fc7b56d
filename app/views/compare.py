"""A/B compare: is a candidate better or worse than a baseline, with repeated runs taken into
account; the model that decided and why; power; a self-contained HTML report."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

import numpy as np
import pandas as pd
import streamlit as st

from app import state, widgets
from app.charts.compare import COMPONENT_NAMES, decided_words, model_label
from app.components.cluster_choice import (
    DEFF_HELP,
    cluster_select,
    cluster_sentence,
    clustered_pairwise_note,
    resolve_cluster,
)
from app.components.compare_report import (
    POWER_HELP,
    POWER_TEST_HELP,
    POWER_TEST_NAMES,
    POWER_TEST_TECHNICAL,
    report_html,
)
from app.components.judge_note import gate_verdict, judge_pair
from app.components.pair_reliability import pair_reliability
from app.components.watch_note import several_uploads
from app.data import figures, judge, results
from app.data.query import PowerPlan, Query
from app.downloads import file_name, safe_csv
from app.ranked import NARROW, html_table
from app.url import planned_difference
from engine import compare_report
from engine.app_support import compare_headline, difference_text, md_text, report_with_gate
from engine.results import PowerAnalysis

#: Header tooltips of the per-system and models tables (every column explained).
DESCRIPTIVE_HELP = {"system": "The system", "role": "Baseline or candidate",
                    "n": "Examples scored", "runs": "Runs per example",
                    "mean": "Mean score (metric units)", "sd": "Standard deviation of the scores",
                    "median": "Median score", "q1": "First quartile", "q3": "Third quartile",
                    "iqr": "Interquartile range (q3 − q1)"}
#: The models table's headers in words (the engine's se, pvalue, ci_low, ci_high).
MODEL_HEADERS = {"se": "std. error", "pvalue": "p", "ci_low": "interval low",
                 "ci_high": "interval high"}
MODEL_HELP = {"model": "How the difference was estimated (Methods)",
              "estimate": "Candidate − baseline (metric units)", "std. error": "Its standard error",
              "df": "Degrees of freedom of the test", "statistic": "The test statistic",
              "p": "p-value of 'no difference'", "interval low": "Lower end of the interval",
              "interval high": "Upper end of the interval"}

_PHONE = ("<style>@media (max-width:640px){"
          ".sb-ranked table[aria-label='per system'] :is(th,td):nth-child(n+6),"
          ".sb-ranked table[aria-label='models'] :is(th,td):is(:nth-child(3),:nth-child(4),"
          ":nth-child(5)){display:none}"
          ".sb-ranked table:is([aria-label='per system'],[aria-label='models']) "
          ":is(th,td):first-child{white-space:normal;overflow-wrap:anywhere}}</style>")

token, catalog, view = widgets.page_context()
st.title(f"A/B compare · {md_text(view.benchmark)}")
headline_slot = st.empty()  # the answer in one sentence, first (filled once it is computed)
_ONE_BENCHMARK = ("base", "cand", "cluster", "pdiff")  # names valid on one benchmark only
pick_benchmark, pick_metric = st.columns([3, 2])
with pick_benchmark:
    state.bound(st.selectbox, "Benchmark", "benchmark", view.benchmark,
                options=list(dict.fromkeys(catalog["benchmark"].astype(str))),
                clears=("metric", *_ONE_BENCHMARK))
with pick_metric:
    state.bound(st.selectbox, "Metric", "metric", view.metric, options=list(
        catalog.loc[catalog["benchmark"] == view.benchmark, "metric"].astype(str)),
        clears=("pdiff",))
widgets.test_settings(view)

matrix = results.matrix(token, view.benchmark, view.metric)
means = np.nanmean(matrix.oriented(paired=False), axis=1)
systems = [matrix.systems[i] for i in np.argsort(-means, kind="stable")]  # best first
if len(systems) < 2:
    st.info("This benchmark has a single system: there is nothing to compare.")
    st.stop()
problems = [f"URL parameter `{name}`: “{md_text(value)}” is not a system of this benchmark; "
            "using the default." for name, value in (("base", view.base), ("cand", view.cand))
            if value and value not in systems]
cand = view.cand if view.cand in systems else systems[0]
base = view.base if view.base in systems and view.base != cand else \
    next(s for s in systems if s != cand)
view, cluster, clusters, bad = resolve_cluster(view, token)  # upload's declared one: default
problems += bad
difference, bad = planned_difference(view)
problems += bad
view = replace(view, base=base, cand=cand, pdiff=view.pdiff if difference is not None else "")
options = view.test_options()
# the one question of the page: the verdict, its charts, the power panel and the Pairwise
# note answer it
query = Query.of(view, token, cluster=cluster, pair=(view.base, view.cand),
                 plan=PowerPlan(difference=difference))
several_uploads(query)
state.warn(problems)
state.set_view(view)

left, right, third = st.columns([2, 2, 1.3])
with left:
    state.bound(st.selectbox, "Baseline", "base", view.base, options=systems,
                help="The system you compare against (e.g. what runs in production).")
with right:
    state.bound(st.selectbox, "Candidate", "cand", view.cand, options=systems,
                help="The new system: positive differences mean it is better.")
with third:
    cluster_select(view, clusters)
if view.base == view.cand:
    st.info("Choose two different systems.")
    st.stop()

steps = widgets.Progress(3)  # a bar naming what is computed
steps.step("Comparing the two systems")
try:
    ab = results.ab_result(query)
except ValueError as exc:
    steps.done()
    st.error(f"These two systems cannot be compared: {md_text(exc)}")
    st.stop()
t = ab.test
level = f"{1 - options.alpha:.0%}"
# a judge metric with human labels: the verdict is the PPI++ difference's, as `compare`
gate = judge.gate_of(query)
# the examples one system lacks, bounded as `compare` bounds them: the gate may not decide
bounds = results.ab_missing_bounds(query) if gate is None else judge.gate_bounds_of(query)
undecided = ((gate is None and not ab.decided)
             or (bounds is not None and not bounds.decided))
if undecided:
    why = (ab.missing[0] if gate is None and ab.missing else
           bounds.sentence(flag=None) if bounds else "")
    headline_slot.markdown(f"**Cannot decide (the gate exits 2):** {md_text(why)}")
else:
    headline_slot.markdown(f"**{md_text(compare_headline(ab, binary=ab.binary))}**"
                           if gate is None else f"**{md_text(gate.sentence())}**")
if gate is not None:
    gate_verdict(gate, bounds)
# corrected by humans: the figures beside the verdict
judge_pair(query, view.cand, view.base, sentence=gate is None)


def _units(value: float) -> str:
    """A difference in the metric's units: points for 0/1 scores, as on the Pairwise page."""
    return difference_text(value, percent=ab.binary)


def _size(value: float) -> str:
    """The size of a difference (no sign) in the units of :func:`_units`."""
    return difference_text(value, percent=ab.binary, signed=False)


own = "" if gate is None else "Judge's own scores (not the verdict above): "
# the judge's own beside the gate, not a second verdict
box = (st.info if gate is not None else st.warning if undecided else
       {"better": st.success, "worse": st.error}.get(ab.verdict.rsplit(" ", 1)[-1], st.info))
said = (f"on the examples both have: {ab.verdict}, but the gate cannot decide" if undecided
        else ab.verdict)
box(f"**{own}Verdict: {said}** — difference {_units(t.estimate)} ({level} interval "
    f"{_units(t.ci_low)} to {_units(t.ci_high)}, p = {t.pvalue:.3g}).",
    icon=":material/gavel:")
for warning in ab.missing:  # informative missingness: `compare` refuses to decide
    st.warning(f"**The gate would not decide this pair (exit 2).** {md_text(warning)}",
               icon=":material/warning:")
if bounds is not None:  # the same sentence as `compare`, without its command-line flag
    (st.warning if not bounds.decided else st.caption)(
        ("**The gate would not decide this pair (exit 2).** " if not bounds.decided else "")
        + md_text(bounds.sentence(flag=None)))
if ab.resolution is not None and not ab.resolution.can_separate:
    st.info(f"**No difference can be significant here, whatever the scores.** "
            f"{md_text(ab.resolution.message)}", icon=":material/block:")
if cluster:  # the Pairwise page grouped by the same column
    st.caption(clustered_pairwise_note(query, t))
elif ab.same_as_pairwise:
    st.caption(":material/check: The Pairwise page's test on the same data: same p-value and "
               "interval.")
elif ab.pairwise:
    figure = ab.pairwise
    st.caption(f":material/info: {md_text(ab.note)} On the Pairwise page: difference "
               f"{_units(figure['difference'])} ({level} interval {_units(figure['ci_low'])} "
               f"to {_units(figure['ci_high'])}), p = {figure['pvalue']:.3g}.")
cols = st.columns(4)
cols[0].metric("Difference", _units(t.estimate),
               help=f"Candidate − baseline in {view.metric} units"
                    f"{' (percentage points)' if ab.binary else ''}, {level} interval "
                    f"[{_units(t.ci_low)}, {_units(t.ci_high)}]; positive = candidate better.")
cols[1].metric("Effect size", f"{ab.effect_size:+.2f}",
               help=f"Paired d_z (mean difference / SD of differences), {level} interval "
                    f"[{ab.effect_ci[0]:+.2f}, {ab.effect_ci[1]:+.2f}].")
cols[2].metric("Shared examples", f"{t.n:,}")
cols[3].metric("Runs", f"{t.runs[0]} / {t.runs[1]}", help="Runs per example: baseline / candidate.")
plain, technical = decided_words(t.model, t.reason, runs=t.runs, run_varies=t.var_run > 0,
                                 run_p=t.run_pvalue, balanced=t.balanced)
st.caption(f":material/science: How it was decided: {md_text(plain)}.",
           help=md_text(technical))  # test names in the tooltip, plain words on screen
if ab.clusters is not None:  # beside the clustered interval (Miller 2024)
    st.caption(f":material/workspaces: {cluster_sentence(ab.clusters[0], np.array([ab.clusters[1]]))}",
               help=DEFF_HELP)

steps.step("Drawing the models")
models_svg, variance_svg = figures.ab_svgs(query)
# the models' chart on a row of its own: in a column its long model names shrank every
# label to about 7 px; SVG written on the server, no chart code in the
# browser, put in the page by its own parser (widgets.picture: the hover text works, which
# an <img> of st.image never showed). Hidden on a phone (4 px labels): "Models side by side"
# below has its figures.
st.html(f"<style>@media (max-width:{NARROW}px){{[class*=st-key-sb_models_chart]"
        "{display:none}}</style>")
with st.container(key="sb_models_chart"):
    widgets.picture(models_svg)
left, right = st.columns([3, 2])
with left:
    widgets.picture(variance_svg)
with right:
    st.caption("How much of the score's variation comes from which examples are drawn, from "
               "how each system handles each example, and from run to run.")

pair_reliability(query, view.cand, view.base)  # repeated 0/1 tries: pass^k candidate − baseline

# Static HTML tables (app.ranked.html_table), not st.dataframe: the data grid's browser code
# (~1.5 MB) made this page's first view the slowest after Mechanisms
st.subheader("Per system")
st.html(_PHONE)  # at a phone's width the secondary columns give way: nothing is cut off
# a 0/1 metric's scores in percent, as in the verdict and on every page
score = ".1%" if ab.binary else ".4f"
st.html(html_table(ab.descriptives, label="per system", max_height=None,
                   formats={c: score for c in ("mean", "sd", "median", "q1", "q3", "iqr")},
                   help=DESCRIPTIVE_HELP))
st.subheader("Models side by side")
st.caption("The same difference estimated by the models of the repeated-runs literature; the "
           "last row decided the verdict." + (" Estimates, standard errors and intervals in "
                                              "percentage points." if ab.binary else ""))
# a 0/1 metric's differences in points, as the verdict above writes them
in_points = [c for c in ("estimate", "se", "ci_low", "ci_high") if ab.binary and c in ab.models]
models = ab.models.assign(**{c: ab.models[c] * 100 for c in in_points})
st.html(html_table(models.assign(model=[model_label(m) for m in ab.models["model"]])
                   .rename(columns=MODEL_HEADERS), label="models", max_height=None,
                   help=MODEL_HELP, formats={c: ".4g" for c in ("estimate", "std. error", "df",
                                                                "statistic", "p", "interval low",
                                                                "interval high")}))
left, right = st.columns(2)
with left:
    st.subheader("Variance")
    st.html(html_table(ab.variance.assign(component=[COMPONENT_NAMES.get(c, c)
                                                     for c in ab.variance["component"]]),
                       label="variance", max_height=None, formats={"variance": ".4g",
                                                                    "share": ".0%"},
                       help={"component": "Where the variation of a score comes from",
                             "variance": "Its variance (squared metric units); — not "
                                         "estimable from these runs",
                             "share": "Its share of the total"}))
with right:
    st.subheader(f"Outlier examples ({len(ab.outliers)})")
    st.caption("Examples whose difference is more than 3 standard deviations from the mean one.")
    if len(ab.outliers):
        st.html(html_table(ab.outliers, label="outlier examples", formats={
            c: ".4g" for c in ("baseline", "candidate", "difference", "z")}, help={
            "example_id": "The example", "baseline": "Baseline's score on it",
            "candidate": "Candidate's score on it", "difference": "Candidate − baseline",
            "z": "Standard deviations from the mean difference"}))

st.subheader("Power")
st.caption("How large a difference this benchmark can detect, and what it would take to detect "
           "a given one (estimated from all systems' scores on it).")
state.link("plan", "Plan the next run: examples, runs, power",
           icon=":material/calculate:")
state.bound(st.text_input, "Difference to plan for", "pdiff", view.pdiff,
            placeholder="the smallest detectable one",
            help=f"In {view.metric} units, e.g. 0.02 for two points of a 0–1 score.")
pw: PowerAnalysis | None
steps.step("Simulating the power of each test")
try:
    pw = results.power_of(query)
except ValueError as exc:
    st.warning(f"Power cannot be estimated here: {md_text(exc)}")
    pw = None
if pw is not None:
    planned = st.columns(3)
    planned[0].metric("Smallest detectable difference", _size(pw.mdd),
                   help=f"With {pw.target_power:.0%} power at alpha {pw.alpha:g}, "
                        f"{pw.examples} examples and {pw.runs} run(s): where the default test "
                        f"({POWER_TEST_TECHNICAL.get(pw.default_test, pw.default_test)}) "
                        f"reaches that power in {pw.n_sim:,} simulations. "
                        f"Closed-form approximation: {pw.mdd_closed_form:.4f}.")
    planned[1].metric(f"Examples needed for {_size(pw.difference)}",
                   "—" if pw.examples_needed is None else f"{pw.examples_needed:,}",
                   help="None suffices when run-to-run noise alone is too large.")
    planned[2].metric(f"Runs needed for {_size(pw.difference)}",
                   "—" if pw.runs_needed is None else f"{pw.runs_needed:,}",
                   help="Not identified with one run of numeric scores.")
    st.html(html_table(pd.DataFrame({"test": [POWER_TEST_NAMES.get(k, k) for k in pw.power],
                                     "power": list(pw.power.values()),
                                     "±": list(pw.mc_se.values())}),
                       label="power", max_height=None, formats={"power": ".0%", "±": ".1%"},
                       help={"test": POWER_TEST_HELP, **POWER_HELP}))
    st.caption(f"Simulated power of each test at that difference ({pw.n_sim} replications).")
steps.done()


def _report() -> str:
    created = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    return report_with_gate(report_html(ab, pw, [models_svg, variance_svg], created=created),
                            gate, "html")  # the gate's verdict first on a judge metric


st.download_button("Download HTML report", _report, icon=":material/description:",
                   file_name=f"ab-{view.benchmark}.html", mime="text/html", on_click="ignore",
                   help="One self-contained file: verdict, tables and charts; opens offline.")
st.download_button("Download Markdown report",
                   lambda: report_with_gate(compare_report(ab, fmt="markdown"), gate, "markdown"),
                   icon=":material/article:", file_name=file_name("ab", view.benchmark, suffix=".md"),
                   mime="text/markdown", on_click="ignore",
                   help="Verdict, difference and tables as Markdown: paste into a pull request.")
st.download_button("Download models CSV", lambda: safe_csv(ab.models), icon=":material/download:",
                   file_name=f"ab-{view.benchmark}-models.csv", mime="text/csv", on_click="ignore")
