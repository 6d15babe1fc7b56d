"""Widgets shared by the analysis pages; each one is bound to a URL parameter."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pandas as pd
import streamlit as st

from app import state
from app.charts.svg import svg_html
from app.data import store
from app.url import ALPHA_RANGE, PAIRINGS, SEED_MAX, TOP_CHOICES, View
from engine import ALTERNATIVES, COMPARISONS, CORRECTIONS, CRITERIA, OPTION_NAMES, TESTS
from engine.app_support import error_rate_words, md_isolated
from engine.results import Leaderboard

#: Pages that test all pairs stop past this many systems (their tables grow with its square).
MAX_SYSTEMS = 400

_NAMES = OPTION_NAMES  # the engine's one table of the options' names
_CORRECTION_NAMES = _NAMES["correction"]
#: The corrections in words: the error rate each holds (its name in the tooltip).
_CORRECTION_WORDS = {**dict.fromkeys(("holm-sidak", "holm", "bonferroni"),
                                    "chance of any false difference ≤ α"),
                     "fdr_bh": "share of false differences ≤ α",
                     "none": "each pair on its own (no correction)"}
_COMPARE_NAMES = _NAMES["compare"]
_CRITERION_NAMES = _NAMES["criterion"]
TEST_NAMES = _NAMES["test"]
_PAIRED_NAMES = _NAMES["paired"]
_ALTERNATIVE_NAMES = _NAMES["alternative"]
_PAIR_CLEARS = ("a", "b")
#: Choices that name things of one benchmark (its example attributes and slices, its
#: system settings, one of its examples): another benchmark starts without them.
_BENCHMARK_CHOICES = ("scol", "sval", "factor", "hold", "ex", "cluster")


def page_context() -> tuple[str, pd.DataFrame, View]:
    """Data version, catalog and URL view of a benchmark page; stops with a hint on an empty store."""
    token = store.token()
    catalog = store.catalog(token)
    view = state.view()
    if catalog.empty:
        st.info("The store is empty: upload results on the Upload page.")
        st.stop()
    return token, catalog, view


def benchmark_page(page: str, caption: str) -> tuple[str, pd.DataFrame, View]:
    """A one-benchmark page's preamble: its context (:func:`page_context`), its title, the
    benchmark and metric pickers, and the caption saying what the page does."""
    token, catalog, view = page_context()
    title(page, view)
    benchmark_metric(view, catalog)
    st.caption(caption)
    return token, catalog, view


class Progress:
    """A progress bar over a page's computations, naming the one under way: drawn where
    it is made, after the sidebar's links (which stay usable: a click there stops this run),
    and removed by :meth:`done`. A cached result passes its step in an instant.

    Examples
    --------
    ``steps = Progress(2); steps.step("Testing every pair"); ...; steps.done()``
    """

    def __init__(self, steps: int, slot: Any = None) -> None:
        self._bar = slot if slot is not None else st.empty()  # e.g. the headline's place
        self._steps = max(steps, 1)
        self._done = 0

    def step(self, what: str) -> None:
        """Start the next step: the bar shows how far the page is and ``what`` it computes."""
        self._bar.progress(min(self._done / self._steps, 1.0),
                           text=f"{what}… (step {self._done + 1} of {self._steps})")
        self._done += 1

    def done(self) -> None:
        """Every step finished: the bar goes."""
        self._bar.empty()


def title(page: str, view: View) -> None:
    """The page's title with the benchmark's name as inert text."""
    st.title(f"{page} · {md_isolated(view.benchmark)}")


def names(value: object) -> str:
    """A stored name as a selectbox/multiselect option. Options are drawn as plain text and
    stand alone on their line, so no isolates are added (they would be copied with the name)."""
    return str(value)


def system_limit(n: int, steps: Progress | None = None) -> None:
    """Stop a page that tests all pairs when the benchmark has more than MAX_SYSTEMS systems
    (its progress bar, if any, removed first: nothing is computed)."""
    if n > MAX_SYSTEMS:
        if steps is not None:
            steps.done()
        st.warning(f"This benchmark has {n:,} systems. Pages that compare every pair stop at "
                   f"{MAX_SYSTEMS:,} systems (their tables grow with the square of the count): "
                   "split the systems into several benchmarks, or use the command line "
                   "(`python -m engine leaderboard`).", icon=":material/block:")
        st.stop()


def focus_systems(view: View, order: Sequence[str]) -> tuple[str, ...]:
    """The systems the graph and heatmaps show: those chosen in ``focus`` (in rank order), else
    the best ``top``."""
    chosen = set(view.focus)
    picked = tuple(s for s in order if s in chosen)
    return picked if len(picked) >= 2 else tuple(order[:view.top])


def focus_controls(view: View, order: Sequence[str]) -> tuple[str, ...]:
    """'Show the best k' and 'or these systems' in a popover; returns the focus."""
    shown = focus_systems(view, order)
    with st.popover(f"Systems shown: {len(shown)} of {len(order)}", icon=":material/filter_center_focus:"):
        state.bound(st.selectbox, "Show the best", "top", view.top, options=TOP_CHOICES,
                    help="Every system shown keeps a readable label.")
        state.bound(st.multiselect, "…or these systems", "focus", view.focus,
                    options=list(order), format_func=names, max_selections=max(TOP_CHOICES))
    return shown


def benchmark_metric(view: View, catalog: pd.DataFrame) -> None:
    """The page's benchmark and metric on one button that opens their pickers (changing the
    benchmark resets the rest).

    A popover, like the test settings: its select boxes are drawn only when it opens, so a
    page's first screen does not wait for the select box's browser code (about 140 KB in 21
    files, fetched on first use; measured 0.15 s of a first visit to the Leaderboard).
    """
    benchmarks = list(dict.fromkeys(catalog["benchmark"].astype(str)))
    metrics = list(catalog.loc[catalog["benchmark"] == view.benchmark, "metric"].astype(str))
    label = f"Benchmark {md_isolated(view.benchmark)} · metric {md_isolated(view.metric)}"
    with st.popover(label, icon=":material/swap_horiz:",
                    help=f"Change the benchmark ({len(benchmarks)} in the store) or the metric."):
        state.bound(st.selectbox, "Benchmark", "benchmark", view.benchmark, options=benchmarks,
                    format_func=names,
                    clears=("metric", *_PAIR_CLEARS, "fcol", "fval", "cols", "focus", "color",
                            *_BENCHMARK_CHOICES))
        state.bound(st.selectbox, "Metric", "metric", view.metric, options=metrics,
                    format_func=names, clears=_PAIR_CLEARS)


def test_settings(view: View) -> None:
    """The test options in a sidebar popover, with a one-line summary of them under it.

    A popover rather than an open expander: its widgets are drawn only when it is
    opened, so a page's first screen does not wait for nine of them.
    """
    test = "test chosen from the data" if view.test == "auto" else f"{TEST_NAMES[view.test]} test"
    # plain words on every page's first screen; the correction's name in the tooltip
    st.sidebar.caption(f":material/tune: α = {view.alpha:g} · {_CORRECTION_WORDS[view.correction]}"
                       f" · {_COMPARE_NAMES[view.compare]} · "
                       f"{_ALTERNATIVE_NAMES[view.alternative]} · {test}",
                       help=f"Correction for testing many pairs: "
                            f"{_CORRECTION_NAMES[view.correction]} — "
                            f"{error_rate_words(view.alpha, view.correction)} (Methods).")
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
                    options=ALTERNATIVES, format_func=_ALTERNATIVE_NAMES.__getitem__,
                    help="One-sided tests ask whether the earlier system is better; "
                    "choose them only for an order fixed in advance.")
        state.bound(st.selectbox, "Significant when", "criterion", view.criterion,
                    options=CRITERIA, format_func=_CRITERION_NAMES.__getitem__)
        state.bound(st.selectbox, "Test", "test", view.test, options=TESTS,
                    format_func=TEST_NAMES.__getitem__,
                    help="Chosen from the data: paired or not, 0/1 or numbers (Methods page).")
        state.bound(st.selectbox, "Pairing", "paired", view.paired, options=PAIRINGS,
                    format_func=_PAIRED_NAMES.__getitem__,
                    help="Paired tests use the examples every system scored.")
        state.bound(st.number_input, "Random seed", "seed", view.seed, min_value=0,
                    max_value=SEED_MAX, step=1,
                    help="Seeds the permutation test; part of the link, so results reproduce.")


def describe_test(view: View, test: str, paired: bool, reason: str) -> str:
    """One line saying which test ran and why."""
    pairing = "paired" if paired else "unpaired"
    head, arrow, chosen = reason.partition(" → ")
    if arrow and chosen.strip() == test:  # the reason would name the test a second time
        reason = head
    return (f"**{TEST_NAMES.get(test, test)}** ({pairing}), "
            f"{_CORRECTION_NAMES[view.correction]} correction, {_COMPARE_NAMES[view.compare]}, "
            f"{_ALTERNATIVE_NAMES[view.alternative]}, significant when "
            f"{_CRITERION_NAMES[view.criterion]} (alpha = {view.alpha:g}). {plain_reason(reason)}")


def error_rate(view: View) -> str:
    """The error rate the chosen correction controls, in words (its name stays in tooltips)."""
    return error_rate_words(view.alpha, view.correction)  # the engine's headlines say the same


def plain_test(view: View, board: Leaderboard) -> tuple[str, str]:
    """What the pages compared and found, in words, and the test's technical description
    (:func:`describe_test`) for the sentence's tooltip."""
    pairs = board.pairwise.table
    differ = int(pairs["significant"].astype(bool).sum())
    how = ("on the examples both scored" if board.paired else "on all their scores (unpaired)")
    text = (f"{len(board.table)} systems compared two at a time {how}: {differ:,} of "
            f"{len(pairs):,} pairs differ and {len(pairs) - differ:,} cannot be told apart, "
            f"{error_rate(view)}.")
    return text, describe_test(view, board.test, board.paired, board.pairwise.reason)


def plain_reason(reason: str) -> str:
    """The engine's reason for its test choice in words (test codes → their names)."""
    head, arrow, tests = reason.partition(" → ")
    if arrow:
        tests = ", ".join(TEST_NAMES.get(t.strip(), t.strip()) for t in tests.split(","))
        return md_isolated(f"{head}: {tests}.")
    return md_isolated(reason.replace("chosen by the user", "as chosen") + ".")


def picture(svg: str, where: Any = st) -> None:
    """A chart drawn on the server as SVG (``app/charts/svg*.py``), in ``where`` (a container,
    a tab; default: the current place). Shown by the browser's own parser, not markdown
    (:func:`app.charts.svg.svg_html`), so it needs no code fetched and keeps its hover text."""
    where.html(svg_html(svg), unsafe_allow_javascript=True)


def notes(lines: tuple[str, ...] | list[str]) -> None:
    """The engine's notes (dropped examples, degenerate cases) as visible captions."""
    for line in lines:  # notes may quote system names: inert text
        st.caption(f":material/info: {md_isolated(line)}")
