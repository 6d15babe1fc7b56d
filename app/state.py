"""The view in the URL: parse and validate query parameters, keep widgets and the URL in sync.

Every choice that shapes a view lives in ``st.query_params`` so that a copied
link reopens the same view. :func:`parse_view` is pure (no Streamlit) and
turns raw parameters into a :class:`View` plus one message per invalid
parameter; the rest of this module is the Streamlit glue.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, fields, replace
from typing import Any
from urllib.parse import urlencode

import pandas as pd
import streamlit as st

from engine import ALTERNATIVES, COMPARISONS, CORRECTIONS, CRITERIA, TESTS

PAIRINGS = ("auto", "paired", "unpaired")
#: Views of the leaderboard table, panels of the significance graph and of the all-pairs
#: section (URL values → tab labels).
TABLE_TABS = {"ranked": "Ranked", "grid": "Sort & select"}
GRAPH_TABS = {"static": "Static", "interactive": "Interactive", "groups": "Groups (cliques)"}
MATRIX_TABS = {"pvalues": "Adjusted p-values", "effects": "Effect sizes", "pwpp": "PWPP",
               "metrics": "Across metrics", "table": "Table"}
DIST_TABS = {"means": "Bootstrap means", "ranks": "Bootstrap ranks", "values": "Scores"}
BOOT_CHOICES = (200, 1000, 2000, 5000, 10000)
ALPHA_RANGE = (0.001, 0.5)
SEED_MAX = 2**32 - 1
MAX_TEXT = 200
LIST_PARAMS = ("cols", "fval")
_VIEW_KEY = "sigboard_view"
_PAGES_KEY = "sigboard_pages"


@dataclass(frozen=True)
class View:
    """Everything that shapes what a page shows; one field per URL parameter."""

    benchmark: str = ""
    metric: str = ""
    alpha: float = 0.05
    correction: str = "holm-sidak"
    compare: str = "all"
    alternative: str = "two-sided"
    criterion: str = "pvalue"
    test: str = "auto"
    paired: str = "auto"
    seed: int = 0
    a: str = ""
    b: str = ""
    q: str = ""
    fcol: str = ""
    fval: tuple[str, ...] = ()
    cols: tuple[str, ...] = ()
    table: str = "ranked"
    graph: str = "static"
    panel: str = "pvalues"
    dist: str = "means"
    boot: int = 1000
    color: str = ""

    @property
    def paired_flag(self) -> bool | None:
        """``paired`` as the engine wants it: None (auto), True or False."""
        return None if self.paired == "auto" else self.paired == "paired"

    def params(self) -> dict[str, str | list[str]]:
        """Query parameters of this view; empty values are left out."""
        out: dict[str, str | list[str]] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, tuple):
                if value:
                    out[f.name] = list(value)
            elif value != "":
                out[f.name] = format_value(value)
        return out

    def test_options(self) -> dict[str, Any]:
        """Keyword arguments of the engine's pairwise tests and leaderboard."""
        return {"test": self.test, "alternative": self.alternative, "compare": self.compare,
                "correction": self.correction, "alpha": self.alpha,
                "criterion": self.criterion, "paired": self.paired_flag, "seed": self.seed}


def format_value(value: object) -> str:
    """A parameter value as it appears in the URL (floats without noise: 0.05, not 0.05000)."""
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


# --------------------------------------------------------------------------- parsing (pure)


def _first(raw: Mapping[str, Sequence[str]], name: str) -> str | None:
    values = raw.get(name) or []
    return values[-1] if values else None


def _choice(raw: Mapping[str, Sequence[str]], name: str, allowed: Sequence[str], default: str,
            problems: list[str]) -> str:
    value = _first(raw, name)
    if value is None:
        return default
    if value in allowed:
        return value
    problems.append(f"URL parameter `{name}`={value!r} is not one of "
                    f"{', '.join(allowed)}; using `{default}`.")
    return default


def _number(raw: Mapping[str, Sequence[str]], name: str, kind: Callable[[str], float | int],
            bounds: tuple[float, float], default: float | int, problems: list[str]) -> Any:
    value = _first(raw, name)
    if value is None:
        return default
    try:
        number = kind(value)
    except ValueError:
        number = None
    if number is None or not math.isfinite(number) or not bounds[0] <= number <= bounds[1]:
        problems.append(f"URL parameter `{name}`={value!r} must be a number from "
                        f"{bounds[0]:g} to {bounds[1]:g}; using `{default}`.")
        return default
    return number


def _text(raw: Mapping[str, Sequence[str]], name: str, problems: list[str]) -> str:
    value = _first(raw, name) or ""
    if len(value) > MAX_TEXT:
        problems.append(f"URL parameter `{name}` is longer than {MAX_TEXT} characters; ignored.")
        return ""
    return value


def _benchmark_metric(raw: Mapping[str, Sequence[str]], catalog: pd.DataFrame,
                      problems: list[str]) -> tuple[str, str]:
    if catalog.empty:
        return "", ""
    benchmarks = list(dict.fromkeys(catalog["benchmark"].astype(str)))
    benchmark = _first(raw, "benchmark")
    if benchmark is not None and benchmark not in benchmarks:
        problems.append(f"URL parameter `benchmark`={benchmark!r} is not in the store; "
                        f"showing `{benchmarks[0]}`.")
        benchmark = None
    benchmark = benchmark or benchmarks[0]
    metrics = list(dict.fromkeys(catalog.loc[catalog["benchmark"] == benchmark, "metric"]
                                 .astype(str)))
    metric = _first(raw, "metric")
    if metric is not None and metric not in metrics:
        problems.append(f"URL parameter `metric`={metric!r} does not exist for benchmark "
                        f"`{benchmark}`; showing `{metrics[0]}`.")
        metric = None
    return benchmark, metric or metrics[0]


def parse_view(raw: Mapping[str, Sequence[str]], catalog: pd.DataFrame) -> tuple[View, list[str]]:
    """Turn raw query parameters into a valid :class:`View` and a message per invalid one.

    ``raw`` maps a parameter to all its values (repeated keys are lists);
    ``catalog`` is the store's catalog (benchmark, metric, …). Invalid values
    fall back to defaults; nothing here raises.
    """
    problems: list[str] = []
    benchmark, metric = _benchmark_metric(raw, catalog, problems)
    default = View()
    view = View(
        benchmark=benchmark,
        metric=metric,
        alpha=float(_number(raw, "alpha", float, ALPHA_RANGE, default.alpha, problems)),
        correction=_choice(raw, "correction", CORRECTIONS, default.correction, problems),
        compare=_choice(raw, "compare", COMPARISONS, default.compare, problems),
        alternative=_choice(raw, "alternative", ALTERNATIVES, default.alternative, problems),
        criterion=_choice(raw, "criterion", CRITERIA, default.criterion, problems),
        test=_choice(raw, "test", TESTS, default.test, problems),
        paired=_choice(raw, "paired", PAIRINGS, default.paired, problems),
        seed=int(_number(raw, "seed", _int, (0, SEED_MAX), default.seed, problems)),
        a=_text(raw, "a", problems),
        b=_text(raw, "b", problems),
        q=_text(raw, "q", problems),
        fcol=_text(raw, "fcol", problems),
        fval=tuple(v for v in raw.get("fval") or () if v),
        cols=tuple(v for v in raw.get("cols") or () if v),
        table=_choice(raw, "table", tuple(TABLE_TABS), default.table, problems),
        graph=_choice(raw, "graph", tuple(GRAPH_TABS), default.graph, problems),
        panel=_choice(raw, "panel", tuple(MATRIX_TABS), default.panel, problems),
        dist=_choice(raw, "dist", tuple(DIST_TABS), default.dist, problems),
        boot=int(_choice(raw, "boot", [str(n) for n in BOOT_CHOICES], str(default.boot),
                         problems)),
        color=_text(raw, "color", problems),
    )
    return view, problems


def _int(text: str) -> int:
    return int(text.strip())


def check_pair(view: View, systems: Sequence[str]) -> tuple[View, list[str]]:
    """Validate the selected pair against the systems of the current matrix."""
    problems = []
    a, b = view.a, view.b
    for name, value in (("a", a), ("b", b)):
        if value and value not in systems:
            problems.append(f"URL parameter `{name}`={value!r} is not a system of "
                            f"`{view.benchmark}`; using the default pair.")
    if a not in systems or b not in systems or a == b:
        if a == b and a:
            problems.append("URL parameters `a` and `b` name the same system; using the default pair.")
        a, b = (systems[0], systems[1]) if len(systems) > 1 else ("", "")
    return replace(view, a=a, b=b), problems


def check_choices(view: View, name: str, allowed: Sequence[str]) -> tuple[View, list[str]]:
    """Drop values of list parameter ``name`` (``cols``/``fval``) or of a text one not in ``allowed``."""
    current = getattr(view, name)
    if isinstance(current, tuple):
        kept = tuple(v for v in current if v in allowed)
        bad = [v for v in current if v not in allowed]
        if not bad:
            return view, []
        return replace(view, **{name: kept}), [
            f"URL parameter `{name}` has unknown value(s) {', '.join(map(repr, bad))}; ignored."]
    if not current or current in allowed:
        return view, []
    return replace(view, **{name: ""}), [f"URL parameter `{name}`={current!r} is unknown; ignored."]


# --------------------------------------------------------------------------- Streamlit glue


def raw_params() -> dict[str, list[str]]:
    """The current query parameters with every value as a list."""
    return {k: st.query_params.get_all(k) for k in st.query_params}


def _normalised(params: Mapping[str, str | list[str]]) -> dict[str, list[str]]:
    return {k: (list(v) if isinstance(v, list) else [v]) for k, v in params.items()}


def sync_url(view: View) -> None:
    """Write ``view`` to the URL when it differs (validated values, defaults made explicit)."""
    if _normalised(view.params()) != raw_params():
        st.query_params.from_dict(view.params())


def set_view(view: View) -> None:
    """Make ``view`` the current view: session state (for links) and the URL."""
    st.session_state[_VIEW_KEY] = view
    sync_url(view)


def view() -> View:
    """The current (validated) view, as set by ``app/main.py`` before the page runs."""
    current = st.session_state.get(_VIEW_KEY)
    return current if isinstance(current, View) else View()


def warn(problems: Sequence[str]) -> None:
    """Show one visible note per invalid parameter."""
    for message in problems:
        st.warning(message, icon=":material/link_off:")


def _encode(value: Any) -> str | list[str]:
    if isinstance(value, list | tuple):
        return [str(v) for v in value]
    return format_value(value)


def _push(param: str, key: str, clears: tuple[str, ...]) -> None:
    value = _encode(st.session_state[key])
    if value in ("", []):
        st.query_params.pop(param, None)
    else:
        st.query_params[param] = value
    for name in clears:
        st.query_params.pop(name, None)


def bound(widget: Callable[..., Any], label: str, param: str, current: Any, *,
          clears: tuple[str, ...] = (), **kwargs: Any) -> Any:
    """Create ``widget`` whose value is URL parameter ``param``; a change rewrites the URL.

    The URL is the source of truth: the widget's state is set from ``current``
    on every run, and its ``on_change`` callback writes the new value back
    (and removes the parameters in ``clears`` that depend on it).
    """
    key = f"url_{param}"
    st.session_state[key] = list(current) if isinstance(current, tuple) else current
    return widget(label, key=key, on_change=_push, args=(param, key, clears), **kwargs)


def _push_tab(param: str, key: str, tabs: Mapping[str, str]) -> None:
    labels = {label: value for value, label in tabs.items()}
    st.query_params[param] = labels.get(st.session_state[key], next(iter(tabs)))


def bound_tabs(param: str, current: str, tabs: Mapping[str, str]) -> dict[str, Any]:
    """Tabs whose selection is URL parameter ``param``; only the open one should be drawn.

    Returns the tab containers by URL value; ``container.open`` tells which one is selected.
    """
    key = f"url_{param}"
    st.session_state[key] = tabs[current]
    containers = st.tabs(list(tabs.values()), key=key, on_change=_push_tab,
                         args=(param, key, tabs))
    return dict(zip(tabs, containers, strict=True))


def register_pages(pages: Mapping[str, Any]) -> None:
    """Remember the ``st.Page`` objects by url_path, for links between pages."""
    st.session_state[_PAGES_KEY] = dict(pages)


def page(name: str) -> Any:
    """The registered ``st.Page`` called ``name`` (its url_path)."""
    return st.session_state[_PAGES_KEY][name]


def hrefs(name: str, changes: Sequence[Mapping[str, str]]) -> list[str]:
    """Relative URLs of page ``name``: the current view with each set of ``changes`` applied.

    The view's other parameters are encoded once (a link per leaderboard row must be cheap).
    """
    keys = {k for change in changes for k in change}
    base = {k: v for k, v in view().params().items() if k not in keys}
    prefix = f"{page(name).url_path}?{urlencode(base, doseq=True)}"
    return [f"{prefix}&{urlencode(change)}" for change in changes]


def link(name: str, label: str, *, icon: str | None = None, **changes: Any) -> None:
    """A link to page ``name`` that carries the current view (with ``changes``)."""
    params = replace(view(), **changes).params() if changes else view().params()
    st.page_link(page(name), label=label, icon=icon, query_params=params)
