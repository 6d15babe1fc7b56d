"""The view in the URL: parameters parsed and validated into one frozen :class:`View`.

Every choice that shapes a view lives in the query string, so a copied link
reopens the same view. Pure: no Streamlit here (``app/state.py`` is the glue), so
everything is testable as plain functions. The test options' defaults and
validation are the engine's (:class:`engine.TestOptions`): the view only maps
URL text to them.

Modules: :mod:`~app.url.choices` (the values each parameter may take),
:mod:`~app.url.view` (:class:`View` and the parameters each page reads),
:mod:`~app.url.parse` (query string → view), :mod:`~app.url.checks` (a view against the
page's data), :mod:`~app.url.weights` (the Overall page's benchmark weights). Callers
import from ``app.url``.
"""

from __future__ import annotations

from app.url.checks import (
    check_choices,
    check_conditions,
    check_example,
    check_pair,
    check_slice,
    held,
    planned_difference,
)
from app.url.choices import (
    ALPHA_RANGE,
    BOOT_CHOICES,
    DEFAULT_BENCHMARK,
    DIST_TABS,
    EXAMPLE_TABS,
    GRAPH_TABS,
    MANY_ROWS,
    MATRIX_TABS,
    MAX_K,
    MAX_LIST,
    MAX_TEXT,
    NO_CLUSTER,
    OVERALL_TABS,
    PAIRED_FLAGS,
    PAIRINGS,
    PLAN_SIZE,
    POWER_CHOICES,
    RELIABILITY_TABS,
    SEED_MAX,
    SIM_CHOICES,
    SLICE_BINS,
    TABLE_COLUMNS,
    TABLE_TABS,
    TOP_CHOICES,
)
from app.url.parse import parse_view
from app.url.view import PAGE_PARAMS, View, format_value
from app.url.weights import format_weights, parse_weights

__all__ = [
    "ALPHA_RANGE", "BOOT_CHOICES", "DEFAULT_BENCHMARK", "DIST_TABS", "EXAMPLE_TABS", "GRAPH_TABS",
    "MANY_ROWS", "MATRIX_TABS", "MAX_K", "MAX_LIST", "MAX_TEXT", "NO_CLUSTER", "OVERALL_TABS",
    "PAGE_PARAMS", "PAIRED_FLAGS", "PAIRINGS", "PLAN_SIZE", "POWER_CHOICES", "RELIABILITY_TABS", "SEED_MAX",
    "SIM_CHOICES", "SLICE_BINS", "TABLE_COLUMNS", "TABLE_TABS", "TOP_CHOICES", "View",
    "check_choices", "check_conditions", "check_example", "check_pair", "check_slice",
    "format_value", "format_weights", "held", "parse_view", "parse_weights",
    "planned_difference",
]
