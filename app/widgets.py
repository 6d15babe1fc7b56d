"""Widgets shared by the analysis pages; each one is bound to a URL parameter."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from app import cache, state
from app.url import ALPHA_RANGE, PAIRINGS, SEED_MAX, View
from engine import ALTERNATIVES, COMPARISONS, CORRECTIONS, CRITERIA, TESTS

_CORRECTION_NAMES = {"holm-sidak": "Holm–Šídák", "holm": "Holm", "bonferroni": "Bonferroni",
                     "fdr_bh": "Benjamini–Hochberg (FDR)", "none": "none"}
_COMPARE_NAMES = {"all": "all pairs", "first": "first vs rest", "successive": "successive pairs"}
_CRITERION_NAMES = {"pvalue": "adjusted p < alpha", "small": "effect size ≥ 0.2 (small)",
                    "medium": "effect size ≥ 0.5 (medium)", "large": "effect size ≥ 0.8 (large)"}
_TEST_NAMES = {"auto": "automatic (Table 1)", "t": "Welch's t", "z": "two-proportion z",
               "paired-t": "paired t", "mcnemar": "exact McNemar", "wilcoxon": "Wilcoxon signed-rank",
               "sign": "sign test", "permutation": "permutation"}
_PAIRED_NAMES = {"auto": "automatic", "paired": "paired", "unpaired": "unpaired"}
_PAIR_CLEARS = ("a", "b")


def page_context() -> tuple[str, pd.DataFrame, View]:
    """Data version, catalog and URL view of a benchmark page; stops with a hint on an empty store."""
    token = cache.token()
    catalog = cache.catalog(token)
    view = state.view()
    if catalog.empty:
        st.info("The store is empty: upload results on the Upload page.")
        st.stop()
    return token, catalog, view


def benchmark_metric(view: View, catalog: pd.DataFrame) -> None:
    """Benchmark and metric pickers side by side (changing the benchmark resets the rest)."""
    benchmarks = list(dict.fromkeys(catalog["benchmark"].astype(str)))
    metrics = list(catalog.loc[catalog["benchmark"] == view.benchmark, "metric"].astype(str))
    left, right = st.columns([3, 2])
    with left:
        state.bound(st.selectbox, "Benchmark", "benchmark", view.benchmark, options=benchmarks,
                    clears=("metric", *_PAIR_CLEARS, "fcol", "fval", "cols"))
    with right:
        state.bound(st.selectbox, "Metric", "metric", view.metric, options=metrics,
                    clears=_PAIR_CLEARS)


def test_settings(view: View) -> None:
    """The test options in a sidebar popover, with a one-line summary of them under it.

    A popover rather than an open expander: its widgets are drawn only when it is
    opened, so a page's first screen does not wait for nine of them.
    """
    st.sidebar.caption(f":material/tune: α = {view.alpha:g} · {_CORRECTION_NAMES[view.correction]}"
                       f" · {_COMPARE_NAMES[view.compare]} · {view.alternative} · "
                       f"{_TEST_NAMES[view.test]} test")
    with st.sidebar.popover("Test settings", icon=":material/tune:", width="stretch"):
        state.bound(st.number_input, "Alpha", "alpha", view.alpha, min_value=ALPHA_RANGE[0],
                    max_value=ALPHA_RANGE[1], step=0.01, format="%.3f",
                    help="Significance level of the (adjusted) p-values.")
        state.bound(st.selectbox, "Multiplicity correction", "correction", view.correction,
                    options=CORRECTIONS, format_func=_CORRECTION_NAMES.__getitem__)
        state.bound(st.selectbox, "Comparisons", "compare", view.compare, options=COMPARISONS,
                    format_func=_COMPARE_NAMES.__getitem__,
                    help="'first vs rest' and 'successive' follow the systems' upload order, "
                    "which must be fixed before looking at results.")
        state.bound(st.selectbox, "Alternative", "alternative", view.alternative,
                    options=ALTERNATIVES,
                    help="One-sided tests ask whether the earlier system is better; "
                    "choose them only for an order fixed in advance.")
        state.bound(st.selectbox, "Significant when", "criterion", view.criterion,
                    options=CRITERIA, format_func=_CRITERION_NAMES.__getitem__)
        state.bound(st.selectbox, "Test", "test", view.test, options=TESTS,
                    format_func=_TEST_NAMES.__getitem__)
        state.bound(st.selectbox, "Pairing", "paired", view.paired, options=PAIRINGS,
                    format_func=_PAIRED_NAMES.__getitem__,
                    help="Paired tests use the examples every system scored.")
        state.bound(st.number_input, "Random seed", "seed", view.seed, min_value=0,
                    max_value=SEED_MAX, step=1,
                    help="Seeds the permutation test; part of the link, so results reproduce.")


def describe_test(view: View, test: str, paired: bool, reason: str) -> str:
    """One line saying which test ran and why."""
    pairing = "paired" if paired else "unpaired"
    return (f"**{_TEST_NAMES.get(test, test)}** ({pairing}), "
            f"{_CORRECTION_NAMES[view.correction]} correction, {_COMPARE_NAMES[view.compare]}, "
            f"{view.alternative}, significant when {_CRITERION_NAMES[view.criterion]} "
            f"(alpha = {view.alpha:g}). {reason}")


def notes(lines: tuple[str, ...] | list[str]) -> None:
    """The engine's notes (dropped examples, degenerate cases) as visible captions."""
    for line in lines:
        st.caption(f":material/info: {line}")
