"""Raw query parameters → a valid :class:`View`, with one message per value that was not valid.

Invalid values fall back to the defaults; nothing here raises.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace

import pandas as pd

from app.url.choices import (
    ALPHA_RANGE,
    BOOT_CHOICES,
    DEFAULT_BENCHMARK,
    DIST_TABS,
    EXAMPLE_TABS,
    GRAPH_TABS,
    MATRIX_TABS,
    MAX_K,
    MAX_LIST,
    MAX_TEXT,
    OPTION_PARAMS,
    OVERALL_TABS,
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
from app.url.text import quoted
from app.url.view import View, format_value
from engine import ALTERNATIVES, COMPARISONS, CORRECTIONS, CRITERIA, TESTS
from engine.app_support import md_isolated

#: Links made before the URL carried keys held labels in ``cols``: they still work.
_COLUMN_KEYS = {label: key for key, label in TABLE_COLUMNS.items()} | {
    "BT strength": "bt_strength", "strength": "bt_strength"}


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
    problems.append(f"URL parameter `{name}`={quoted(value)} is not one of "
                    f"{', '.join(allowed)}; using `{default}`.")
    return default


def _number(raw: Mapping[str, Sequence[str]], name: str, kind: Callable[[str], float],
            bounds: tuple[float, float], default: float, problems: list[str]) -> float:
    value = _first(raw, name)
    if value is None:
        return default
    try:
        number: float | None = kind(value)
    except ValueError:
        number = None
    if number is None or not math.isfinite(number) or not bounds[0] <= number <= bounds[1]:
        problems.append(f"URL parameter `{name}`={quoted(value)} must be a number from "
                        f"{bounds[0]:g} to {bounds[1]:g}; using `{default}`.")
        return default
    return number


def _int(text: str) -> int:
    return int(text.strip())


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
        fallback = _default_benchmark(benchmarks)
        problems.append(f"URL parameter `benchmark`={quoted(benchmark)} is not in the store; "
                        f"showing {md_isolated(fallback)}.")
        benchmark = None
    benchmark = benchmark or _default_benchmark(benchmarks)
    metrics = list(dict.fromkeys(catalog.loc[catalog["benchmark"] == benchmark, "metric"]
                                 .astype(str)))
    metric = _first(raw, "metric")
    if metric is not None and metric not in metrics:
        problems.append(f"URL parameter `metric`={quoted(metric)} does not exist for "
                        f"benchmark {md_isolated(benchmark)}; showing {md_isolated(metrics[0])}.")
        metric = None
    return benchmark, metric or metrics[0]


def _default_benchmark(benchmarks: Sequence[str]) -> str:
    return DEFAULT_BENCHMARK if DEFAULT_BENCHMARK in benchmarks else benchmarks[0]


def _texts(raw: Mapping[str, Sequence[str]], name: str, problems: list[str]) -> tuple[str, ...]:
    """A repeated text parameter: distinct non-empty values, each at most MAX_TEXT long."""
    values = [v for v in raw.get(name) or () if v]
    if any(len(v) > MAX_TEXT for v in values):
        problems.append(f"URL parameter `{name}` has a value longer than {MAX_TEXT} characters; "
                        "ignored.")
    return tuple(dict.fromkeys(v for v in values if len(v) <= MAX_TEXT))[:MAX_LIST]


def _columns(raw: Mapping[str, Sequence[str]]) -> tuple[str, ...]:
    """``cols`` as keys: a label from an older link (``win rate``) becomes its key."""
    return tuple(_COLUMN_KEYS.get(v, v) for v in raw.get("cols") or () if v)


def _valid_options(view: View, problems: list[str]) -> View:
    """The view with test options the engine accepts (each option alone may be valid while
    their combination is not, e.g. the permutation test with an effect-size criterion)."""
    try:
        view.test_options()
    except ValueError as exc:
        default = View()
        fixed = replace(view, criterion=default.criterion)
        try:
            fixed.test_options()
        except ValueError:
            fixed = replace(view, **{name: getattr(default, name) for name in OPTION_PARAMS})
        changed = [n for n in OPTION_PARAMS if getattr(fixed, n) != getattr(view, n)]
        problems.append(f"URL parameters {', '.join(f'`{n}`' for n in changed)}: {exc}; "
                        f"using {', '.join(f'`{n}`={getattr(fixed, n)}' for n in changed)}.")
        return fixed
    return view


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
        cols=_columns(raw),
        table=_choice(raw, "table", (*TABLE_TABS, *RELIABILITY_TABS), default.table, problems),
        graph=_choice(raw, "graph", tuple(GRAPH_TABS), default.graph, problems),
        panel=_choice(raw, "panel", tuple(MATRIX_TABS), default.panel, problems),
        dist=_choice(raw, "dist", tuple(DIST_TABS), default.dist, problems),
        boot=int(_choice(raw, "boot", [str(n) for n in BOOT_CHOICES], str(default.boot),
                         problems)),
        color=_text(raw, "color", problems),
        top=int(_choice(raw, "top", [str(n) for n in TOP_CHOICES], str(default.top), problems)),
        focus=tuple(v for v in raw.get("focus") or () if v)[:max(TOP_CHOICES)],
        bench=_texts(raw, "bench", problems),
        ometric=_texts(raw, "ometric", problems),
        bw=_texts(raw, "bw", problems),
        otab=_choice(raw, "otab", ("", *OVERALL_TABS), "", problems),
        omodel=_choice(raw, "omodel", ("", "irt"), "", problems),
        base=_text(raw, "base", problems),
        cand=_text(raw, "cand", problems),
        cluster=_text(raw, "cluster", problems),
        pdiff=_text(raw, "pdiff", problems),
        pn=int(_number(raw, "pn", _int, PLAN_SIZE, default.pn, problems)),
        pr=int(_number(raw, "pr", _int, PLAN_SIZE, default.pr, problems)),
        ppower=float(_choice(raw, "ppower", [format_value(p) for p in POWER_CHOICES],
                             format_value(default.ppower), problems)),
        nsim=int(_choice(raw, "nsim", [str(n) for n in SIM_CHOICES], str(default.nsim),
                         problems)),
        scol=_text(raw, "scol", problems),
        sval=_text(raw, "sval", problems),
        sbins=int(_choice(raw, "sbins", [str(n) for n in SLICE_BINS], str(default.sbins),
                          problems)),
        factor=_text(raw, "factor", problems),
        # kept even when empty: ``?hold=`` means "hold nothing fixed"
        hold=tuple(v[:MAX_TEXT] for v in raw.get("hold") or ())[:MAX_LIST],
        ex=_text(raw, "ex", problems),
        etab=_choice(raw, "etab", tuple(EXAMPLE_TABS), default.etab, problems),
        rows=_choice(raw, "rows", ("", "all"), "", problems),
        k=int(_number(raw, "k", _int, (0, MAX_K), default.k, problems)),
        cost=_text(raw, "cost", problems),
    )
    if view.sval and not view.scol:
        problems.append(f"URL parameter `sval`={quoted(view.sval)} needs `scol`, the column it "
                        "is a slice of; showing all examples.")
        view = replace(view, sval="")
    return _valid_options(view, problems), problems

