"""Plan: how small a difference a benchmark can detect with n examples × r runs, how many
examples or runs a target difference needs, and the simulated power of each test choice
(``engine.power``; the seed and every choice are in the URL)."""

from __future__ import annotations

import math

import pandas as pd
import streamlit as st

from app import state, widgets
from app.components.compare_report import POWER_HELP, POWER_TEST_HELP, POWER_TEST_NAMES
from app.components.judge_budget import judge_labels
from app.data import results
from app.data.query import PowerPlan, Query
from app.url import ALPHA_RANGE, PLAN_SIZE, POWER_CHOICES, SEED_MAX, SIM_CHOICES, planned_difference
from engine.app_support import difference_text, md_text, zero_one
from engine.results import PowerAnalysis

#: Design grid of the detectable-difference table: examples as multiples of the plan's,
#: runs per example.
EXAMPLE_FACTORS = (0.25, 0.5, 1, 2, 4)
RUN_CHOICES = (1, 2, 3, 5, 10)
#: Scores drawn per simulated comparison are examples × runs: past SIM_CELLS in all, fewer
#: simulations run (at least MIN_SIM); past MAX_DESIGN per comparison, none.
SIM_CELLS = 20_000_000
MIN_SIM = 20
MAX_DESIGN = 1_000_000

token, catalog, view = widgets.benchmark_page(
    "Plan",
    "Before running an evaluation: how large a difference between two systems this "
    "benchmark can detect, and what it would take to detect a given one. Estimated from "
    "every stored system's scores on it (how examples vary, how systems disagree per "
    "example, how runs vary).")

problems: list[str] = []
difference, bad = planned_difference(view)
problems += bad
if view.pn == 1:
    problems.append("URL parameter `pn`: a paired comparison needs at least 2 examples; "
                    "using the observed number.")
state.warn(problems)
examples = view.pn if view.pn >= 2 else None
runs = view.pr or None
here = catalog[(catalog["benchmark"] == view.benchmark) & (catalog["metric"] == view.metric)]
cells = (examples or int(here["examples"].max())) * (runs or int(here["runs"].max()))
if cells > MAX_DESIGN:
    st.warning(f"{cells:,} scores per system is more than this page simulates "
               f"({MAX_DESIGN:,}); choose fewer examples or runs.", icon=":material/block:")
    examples = runs = None
    cells = int(here["examples"].max()) * int(here["runs"].max())
n_sim = max(MIN_SIM, min(view.nsim, SIM_CELLS // max(cells, 1)))
inputs = st.container()
# the one question of the page: the design, the power table and the label budget answer it
query = Query.of(view, token, plan=PowerPlan(difference=difference, examples=examples,
                                             runs=runs, n_sim=n_sim,
                                             target_power=view.ppower))
steps = widgets.Progress(1)  # a bar naming what is computed
steps.step(f"Simulating {n_sim:,} comparisons per test")
try:
    pw: PowerAnalysis = results.power_of(query)
except ValueError as exc:
    steps.done()
    st.error(f"This benchmark cannot be planned for: {md_text(exc)}")
    st.stop()
steps.done()
observed_n, observed_r = len(pw.scenario.example_means), pw.scenario.runs

with inputs:
    design = st.columns(3)
    with design[0]:
        state.bound(st.number_input, "Examples", "pn", pw.examples, min_value=2,
                    max_value=PLAN_SIZE[1], step=1,
                    help=f"Examples per system (this benchmark has {observed_n:,}); more than "
                         "it has are drawn from its examples.")
    with design[1]:
        state.bound(st.number_input, "Runs per example", "pr", pw.runs, min_value=1,
                    max_value=100, step=1,
                    help=f"Repeated runs of each system on each example (observed: {observed_r}).")
    with design[2]:
        state.bound(st.text_input, "Difference to plan for", "pdiff", view.pdiff,
                    placeholder="the smallest detectable one",
                    help=f"In {md_text(view.metric)} units, e.g. 0.02 for two points of a 0–1 "
                         "score.")
    settings = st.columns(4)
    with settings[0]:
        state.bound(st.selectbox, "Target power", "ppower", view.ppower, options=POWER_CHOICES,
                    format_func=lambda p: f"{p:.0%}",
                    help="The chance of detecting the difference when it is real.")
    with settings[1]:
        state.bound(st.number_input, "Alpha", "alpha", view.alpha, min_value=ALPHA_RANGE[0],
                    max_value=ALPHA_RANGE[1], step=0.01, format="%.3f",
                    help="Two-sided significance level of the test.")
    with settings[2]:
        state.bound(st.selectbox, "Simulations", "nsim", view.nsim, options=SIM_CHOICES,
                    help="Simulated comparisons per test (more: smaller Monte Carlo error).")
    with settings[3]:
        state.bound(st.number_input, "Random seed", "seed", view.seed, min_value=0,
                    max_value=SEED_MAX, step=1, help="Seeds the simulation: part of the link.")

design_text = f"{pw.examples:,} examples × {pw.runs} run(s)"
# a 0/1 metric (decided on its runs' own scores) in percentage points, as on every page
binary = zero_one(results.matrix(token, view.benchmark, view.metric))


def _size(value: float) -> str:
    """A difference in the metric's units: points for 0/1 scores, as on A/B compare."""
    return difference_text(value, percent=binary, signed=False)


cols = st.columns(3)
cols[0].metric("Smallest detectable difference", _size(pw.mdd),
               help=f"With {pw.target_power:.0%} power at alpha {pw.alpha:g} and {design_text}: "
                    f"where the default test reaches that power in {pw.n_sim:,} simulations, "
                    "as on A/B compare and Examples.")
cols[1].metric(f"Examples needed for {_size(pw.difference)}",
               "—" if pw.examples_needed is None else f"{pw.examples_needed:,}",
               help=f"At {pw.runs} run(s) per example; '—': no number of examples suffices "
                    "(run-to-run noise alone is too large).")
cols[2].metric(f"Runs needed for {_size(pw.difference)}",
               "—" if pw.runs_needed is None else f"{pw.runs_needed:,}",
               help=f"With {pw.examples:,} examples; '—': no number of runs suffices, or "
                    "run-to-run noise is not identified (one run of numeric scores).")
s = pw.scenario
st.caption(f"Variance of one example's difference between two systems: "
           f"{2 * s.var_interaction:.3g} from systems disagreeing per example, "
           f"{2 * s.var_resid:.3g} from within-run noise (divided by the runs), and "
           f"{2 * s.var_run:.3g} from whole runs shifting (divided by the runs only).")

st.subheader("Smallest detectable difference by design")
# The engine's MDD is (z₁₋α/₂ + z_power) × the standard error of the mean paired difference,
# so another design's is the engine's scaled by the ratio of the two standard errors
# (PowerScenario.var_difference): one engine.power call for the whole grid.
planned = s.var_difference(pw.examples, pw.runs)
per_error = pw.mdd / math.sqrt(planned) if planned > 0 else 0.0
sizes = sorted({max(2, round(pw.examples * f)) for f in EXAMPLE_FACTORS})
# in points for 0/1 scores, like the figures above (the grid showed 0.1458 under "14.6 points")
scale = 100.0 if binary else 1.0
grid = pd.DataFrame({"examples": sizes, **{
    f"{r} run{'s' if r > 1 else ''}": [scale * per_error * math.sqrt(s.var_difference(n, r))
                                        for n in sizes]
    for r in RUN_CHOICES}})
unit = ("percentage points (score units × 100)" if binary
        else f"{view.metric} units (0.02 = two points of a 0–1 score)")
st.dataframe(grid, hide_index=True, column_config={
    "examples": st.column_config.NumberColumn(format="localized", pinned=True,
                                              help="Examples per system (a count)"),
    **{c: st.column_config.NumberColumn(format="%.1f" if binary else "%.4f",
                                        help=f"Smallest difference between two "
                                        f"systems detected with {pw.target_power:.0%} power "
                                        f"at alpha {pw.alpha:g}, with {c} of each example, in "
                                        f"{unit}")
       for c in grid.columns[1:]}})
st.caption(f"Computed directly, without simulation, at {pw.target_power:.0%} power and alpha "
           f"{pw.alpha:g} from how much examples and runs vary.",
           help="Closed form: (z₁₋α/₂ + z_power) × the standard error of the mean paired "
                "difference.")

st.subheader(f"Simulated power of each test at {_size(pw.difference)}")
st.dataframe({"test": [POWER_TEST_NAMES.get(k, k) for k in pw.power],
              "power": list(pw.power.values()), "±": list(pw.mc_se.values())},
             hide_index=True, placeholder="does not apply", column_config={
                 "test": st.column_config.TextColumn(help=POWER_TEST_HELP),
                 "power": st.column_config.NumberColumn(format="percent",
                                                        help=POWER_HELP["power"]),
                 "±": st.column_config.NumberColumn(format="percent", help=POWER_HELP["±"])})
fewer = f" (fewer than the {view.nsim:,} chosen: the design is large)" \
    if pw.n_sim < view.nsim else ""
missing = any(v is None or v != v for v in pw.power.values())  # None or NaN: not run
st.caption(f"{pw.n_sim:,} simulated A/B comparisons{fewer} with {design_text}, seed "
           f"{view.seed}" + ("; “does not apply”: the test does not fit these scores (the one "
                             "on examples only one system solves needs 0/1 scores)."
                             if missing else "."))
state.link("compare", "Compare two systems on this benchmark", icon=":material/compare_arrows:")
judge_labels(query)  # a judge metric: how many human labels it needs
