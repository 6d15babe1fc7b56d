"""The view in the URL: parameters parsed and validated into one frozen :class:`View`.

Every choice that shapes a view lives in the query string, so a copied link
reopens the same view. Pure: no Streamlit here (``app/state.py`` is the glue), so
everything is testable as plain functions. The test options' defaults and
validation are the engine's (:class:`engine.TestOptions`): the view only maps
URL text to them.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, fields, replace
from typing import Any

import pandas as pd

from engine import (
    ALTERNATIVES,
    COMPARISONS,
    CORRECTIONS,
    CRITERIA,
    TESTS,
    TestOptions,
    md_isolated,
    md_text,
)

#: ``paired`` in the URL ↔ the engine's flag (None: pair whenever the data allow).
PAIRED_FLAGS: dict[str, bool | None] = {"auto": None, "paired": True, "unpaired": False}
PAIRINGS = tuple(PAIRED_FLAGS)
#: Views of the leaderboard table, panels of the significance graph and of the all-pairs
#: section (URL values → tab labels).
TABLE_TABS = {"ranked": "Ranked", "grid": "Sort & select"}
#: The Leaderboard's chart tabs (URL ``graph``), the rank/CI plot first.
GRAPH_TABS = {"ranks": "Means and intervals", "static": "Significance graph",
              "interactive": "Interactive graph", "groups": "Groups (cliques)"}
MATRIX_TABS = {"pvalues": "Adjusted p-values", "effects": "Effect sizes", "pwpp": "PWPP",
               "metrics": "Across metrics", "table": "Table"}
DIST_TABS = {"means": "Bootstrap means", "ranks": "Bootstrap ranks", "values": "Scores"}
#: Systems past which the Leaderboard's table starts with the best ones (``rows=all``: all).
MANY_ROWS = 100
#: The Examples page's charts: the light histogram first, the every-score heatmap on demand.
EXAMPLE_TABS = {"difficulty": "Difficulty", "scores": "Every score"}
#: Leaderboard columns: URL key (the engine's column name; ``rank_range`` and ``ci`` join
#: rank_low/rank_high and ci_low/ci_high) → the label shown. Uploaded metadata columns
#: are their own key and label.
TABLE_COLUMNS = {"rank": "rank", "rank_range": "rank range", "group": "group", "mean": "mean",
                 "ci": "CI", "n": "n", "runs": "runs", "win_rate": "win rate",
                 "bt_strength": "strength", "elo": "Elo"}
#: Links made before the URL carried keys held labels in ``cols``: they still work.
_COLUMN_KEYS = {label: key for key, label in TABLE_COLUMNS.items()} | {"BT strength": "bt_strength"}
BOOT_CHOICES = (200, 1000, 2000, 5000, 10000)
#: Systems the significance graph and the pairwise heatmaps focus on (best first): every one
#: of them keeps a readable label. ``focus`` (chosen systems) overrides it.
TOP_CHOICES = (10, 20, 30, 40)
#: The benchmark a link without ``benchmark`` opens (the one the README shows), when stored.
DEFAULT_BENCHMARK = "humaneval"
ALPHA_RANGE = (0.001, 0.5)
SEED_MAX = 2**32 - 1
MAX_TEXT = 200
_DEFAULT = TestOptions()
#: Plan page: examples or runs to plan for (0 = as observed), target powers, simulation sizes.
PLAN_SIZE = (0, 100_000)
POWER_CHOICES = (0.8, 0.9, 0.95)
SIM_CHOICES = (200, 500, 1000, 2000)
#: Quantile bins a numeric per-example column is cut into on the Slices page (engine default 4).
SLICE_BINS = (2, 3, 4, 5, 6, 8, 10)
_OPTION_PARAMS = ("test", "alternative", "compare", "correction", "alpha", "criterion",
                  "paired", "seed")


def _paired_text(flag: bool | None) -> str:
    return next(text for text, value in PAIRED_FLAGS.items() if value is flag)


@dataclass(frozen=True)
class View:
    """Everything that shapes what a page shows; one field per URL parameter.

    The test options' defaults are :class:`engine.TestOptions`' own.
    """

    benchmark: str = ""
    metric: str = ""
    alpha: float = _DEFAULT.alpha
    correction: str = _DEFAULT.correction
    compare: str = _DEFAULT.compare
    alternative: str = _DEFAULT.alternative
    criterion: str = _DEFAULT.criterion
    test: str = _DEFAULT.test
    paired: str = _paired_text(_DEFAULT.paired)
    seed: int = _DEFAULT.seed
    a: str = ""
    b: str = ""
    q: str = ""
    fcol: str = ""
    fval: tuple[str, ...] = ()
    cols: tuple[str, ...] = ()
    table: str = "ranked"
    graph: str = "ranks"
    panel: str = "pvalues"
    dist: str = "means"
    boot: int = 1000
    color: str = ""
    top: int = 20
    focus: tuple[str, ...] = ()
    bench: tuple[str, ...] = ()  # Overall: benchmarks combined (none: all)
    ometric: tuple[str, ...] = ()  # Overall: metrics used where measured (none: all)
    bw: tuple[str, ...] = ()  # Overall: benchmark weights, "benchmark:weight" (none: equal)
    otab: str = ""  # Overall: open tab (OVERALL_TABS; "": the first)
    base: str = ""  # Compare: baseline system
    cand: str = ""  # Compare: candidate system
    cluster: str = ""  # Leaderboard/Pairwise/Compare/Mechanisms/Distributions: example attribute
    # ("": the benchmark's declared cluster column, if any; NO_CLUSTER: none, chosen)
    pdiff: str = ""  # Compare: difference the power panel plans for ("": the detectable one)
    pn: int = 0  # Plan: examples to plan for (0: as observed)
    pr: int = 0  # Plan: runs per example to plan for (0: as observed)
    ppower: float = 0.8  # Plan: power the planner aims at
    nsim: int = 500  # Plan: Monte Carlo replications of the power simulation
    scol: str = ""  # Slices: per-example column the benchmark is split by (with sval: the slice)
    sval: str = ""  # Leaderboard, Pairwise: only the examples of this slice of scol ("": all)
    sbins: int = 4  # quantile bins of a numeric scol (slice names such as "q1 [2, 1032]")
    factor: str = ""  # Conditions: system setting whose levels are compared ("": the default)
    hold: tuple[str, ...] = ()  # Conditions: settings held fixed (("",): none; (): the default)
    ex: str = ""  # Examples: example shown in detail ("": the first suspect)
    etab: str = "difficulty"  # Examples: open chart tab (EXAMPLE_TABS)
    rows: str = ""  # Leaderboard: "all" shows every row past MANY_ROWS systems ("": the best)

    def params(self, page: str | None = None) -> dict[str, str | list[str]]:
        """Query parameters of this view: only values that differ from the defaults (the
        benchmark and metric always), and for ``page`` only the ones it uses
        (:data:`PAGE_PARAMS`; a page not listed there gets them all)."""
        used = PAGE_PARAMS.get(page or "")
        default = View()
        out: dict[str, str | list[str]] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if used is not None and f.name not in used:
                continue
            if f.name not in _ALWAYS and value == getattr(default, f.name):
                continue
            if isinstance(value, tuple):
                if value:
                    out[f.name] = list(value)
            elif value != "":
                out[f.name] = format_value(value)
        return out

    def test_options(self) -> TestOptions:
        """The engine's options for this view (validated by :class:`engine.TestOptions`).

        Raises ``ValueError`` for a combination the engine rejects; a view made by
        :func:`parse_view` never holds one.
        """
        chosen: dict[str, Any] = {"test": self.test, "alternative": self.alternative,
                                  "compare": self.compare, "correction": self.correction,
                                  "alpha": self.alpha, "criterion": self.criterion,
                                  "paired": PAIRED_FLAGS[self.paired], "seed": self.seed}
        return TestOptions(**chosen)


_ALWAYS = ("benchmark", "metric")
#: URL ``cluster`` value of "(no grouping)" chosen on a benchmark with a declared cluster column.
NO_CLUSTER = "-"
_TESTED = ("benchmark", "metric", *_OPTION_PARAMS)
#: A slice of the benchmark: column, slice name, and the bins that name a numeric column's slices.
_SLICE = ("scol", "sval", "sbins")
#: The URL parameters each page reads (links to a page carry only these).
PAGE_PARAMS: dict[str, tuple[str, ...]] = {
    "benchmarks": (), "methods": (), "upload": (),
    "leaderboard": (*_TESTED, "q", "fcol", "fval", "cols", "table", "graph", "top", "focus",
                    "rows", "cluster", *_SLICE),
    "pairwise": (*_TESTED, "a", "b", "panel", "top", "focus", "cluster", *_SLICE),
    "distributions": ("benchmark", "metric", "alpha", "paired", "seed", "dist", "boot", "color",
                      "cluster"),
    "examples": (*_TESTED, "ex", "etab"),
    "plan": ("benchmark", "metric", "alpha", "seed", "pdiff", "pn", "pr", "ppower", "nsim"),
    "overall": (*_OPTION_PARAMS, "bench", "ometric", "bw", "otab"),
    "mechanisms": (*_TESTED, "cluster"),
    "compare": (*_TESTED, "base", "cand", "cluster", "pdiff"),
    "slices": (*_TESTED, "scol", "sbins"),
    "conditions": (*_TESTED, "factor", "hold"),
}


def format_value(value: object) -> str:
    """A parameter value as it appears in the URL (floats without noise: 0.05, not 0.05000)."""
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


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
    problems.append(f"URL parameter `{name}`={_quoted(value)} is not one of "
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
        problems.append(f"URL parameter `{name}`={_quoted(value)} must be a number from "
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
        problems.append(f"URL parameter `benchmark`={_quoted(benchmark)} is not in the store; "
                        f"showing {md_isolated(fallback)}.")
        benchmark = None
    benchmark = benchmark or _default_benchmark(benchmarks)
    metrics = list(dict.fromkeys(catalog.loc[catalog["benchmark"] == benchmark, "metric"]
                                 .astype(str)))
    metric = _first(raw, "metric")
    if metric is not None and metric not in metrics:
        problems.append(f"URL parameter `metric`={_quoted(metric)} does not exist for "
                        f"benchmark {md_isolated(benchmark)}; showing {md_isolated(metrics[0])}.")
        metric = None
    return benchmark, metric or metrics[0]


def _default_benchmark(benchmarks: Sequence[str]) -> str:
    return DEFAULT_BENCHMARK if DEFAULT_BENCHMARK in benchmarks else benchmarks[0]


def _quoted(value: str) -> str:
    """A value from the URL inside a message: quoted, inert (no markdown, no HTML), isolated."""
    return f"“{md_isolated(value[:MAX_TEXT])}”"


def planned_difference(view: View) -> tuple[float | None, list[str]]:
    """The difference ``pdiff`` the power planner aims at (None: the smallest detectable one),
    and a message when the URL's value is not a positive number (A/B compare and Plan pages)."""
    if not view.pdiff:
        return None, []
    try:
        difference = float(view.pdiff)
    except ValueError:
        difference = math.nan
    if math.isfinite(difference) and difference > 0:
        return difference, []
    return None, [f"URL parameter `pdiff`: {_quoted(view.pdiff)} is not a positive number; "
                  "planning for the smallest detectable difference."]


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
            fixed = replace(view, **{name: getattr(default, name) for name in _OPTION_PARAMS})
        changed = [n for n in _OPTION_PARAMS if getattr(fixed, n) != getattr(view, n)]
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
        table=_choice(raw, "table", tuple(TABLE_TABS), default.table, problems),
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
    )
    if view.sval and not view.scol:
        problems.append(f"URL parameter `sval`={_quoted(view.sval)} needs `scol`, the column it "
                        "is a slice of; showing all examples.")
        view = replace(view, sval="")
    return _valid_options(view, problems), problems


def check_pair(view: View, systems: Sequence[str]) -> tuple[View, list[str]]:
    """Validate the selected pair against the systems of the current matrix."""
    problems = []
    a, b = view.a, view.b
    for name, value in (("a", a), ("b", b)):
        if value and value not in systems:
            problems.append(f"URL parameter `{name}`={_quoted(value)} is not a system of "
                            f"{md_isolated(view.benchmark)}; using the default pair.")
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
        changes: dict[str, Any] = {name: kept}
        return replace(view, **changes), [
            f"URL parameter `{name}` has unknown value(s) {', '.join(map(_quoted, bad))}; "
            "ignored."]
    if not current or current in allowed:
        return view, []
    cleared: dict[str, Any] = {name: ""}
    return replace(view, **cleared), [f"URL parameter `{name}`={_quoted(current)} is unknown; "
                                      "ignored."]


def check_slice(view: View, slices: Mapping[str, Sequence[str]]) -> tuple[View, list[str]]:
    """Validate ``scol``/``sval`` against the benchmark's per-example columns and their slices.

    Parameters
    ----------
    view : View
        The parsed view (:func:`parse_view` already dropped a ``sval`` without ``scol``).
    slices : mapping
        Each per-example column that splits the benchmark → its slice names, as
        :func:`engine.slice_labels` writes them (quantile bins for a numeric column).

    Returns
    -------
    view, problems
        The view with an unknown column or slice dropped (all examples are shown then), and
        one message per dropped value naming what exists.

    Examples
    --------
    >>> view, problems = check_slice(View(benchmark="b", scol="lang", sval="go"),
    ...                              {"lang": ["python", "rust"]})
    >>> view.sval, len(problems)
    ('', 1)
    """
    if not view.scol:
        return view, []
    if view.scol not in slices:
        if slices:
            known = f"its per-example columns are {', '.join(map(_quoted, slices))}"
        else:
            known = "it has no per-example columns (such as a category, a language or a difficulty)"
        return replace(view, scol="", sval=""), [
            f"URL parameter `scol`={_quoted(view.scol)} is not a per-example column of "
            f"{md_isolated(view.benchmark)}: {known}. Showing all examples."]
    if view.sval and view.sval not in slices[view.scol]:
        names = list(slices[view.scol])
        shown = ", ".join(map(_quoted, names[:12])) + (", …" if len(names) > 12 else "")
        return replace(view, sval=""), [
            f"URL parameter `sval`={_quoted(view.sval)} is not a slice of "
            f"{_quoted(view.scol)}; its slices are {shown}. "
            "Showing all examples."]
    return view, []


# ------------------------------------------------------------ Conditions and Examples pages


def held(view: View) -> tuple[str, ...] | None:
    """``hold`` as the engine takes it: None for its default (every other setting held
    fixed), () for nothing held (``?hold=`` in the URL), else the settings held fixed."""
    return tuple(v for v in view.hold if v) if view.hold else None


def _names(values: Sequence[str]) -> str:
    return ", ".join(map(_quoted, values))


def check_conditions(view: View, factors: Sequence[str], settings: Sequence[str] | None = None
                     ) -> tuple[View, list[str]]:
    """Validate ``factor`` and ``hold`` against the benchmark's system settings.

    Parameters
    ----------
    view : View
        The parsed view.
    factors : sequence of str
        Settings that can be compared (system metadata with at least two levels); the
        first is the default factor.
    settings : sequence of str, optional
        Every system metadata column (what ``hold`` may name); default ``factors``.

    Returns
    -------
    view, problems
        The view with a valid ``factor`` ("" when the systems have no setting) and ``hold``
        (:func:`held`: the default, or only other settings of these systems), and one
        message per value dropped.

    Examples
    --------
    >>> view, problems = check_conditions(View(factor="template", hold=("family",)),
    ...                                   ["template", "family", "temperature"])
    >>> view.factor, held(view), problems
    ('template', ('family',), [])
    >>> check_conditions(View(factor="colour"), ["template"])[0].factor
    'template'
    """
    problems: list[str] = []
    settings = list(factors if settings is None else settings)
    factor = view.factor
    if factor and factor not in factors:
        if factors:
            problems.append(f"URL parameter `factor`={_quoted(factor)} is not a setting of these "
                            f"systems; they have {_names(factors)}. Showing {_quoted(factors[0])}.")
        else:
            problems.append(f"URL parameter `factor`={_quoted(factor)}: these systems have no "
                            "settings to compare; ignored.")
        factor = ""
    factor = factor or (factors[0] if factors else "")
    if not view.hold or not factor:
        return replace(view, factor=factor, hold=()), problems
    values = [v for v in view.hold if v]
    bad = [v for v in values if v not in settings or v == factor or len(v) > MAX_TEXT]
    if bad:
        others = [s for s in settings if s != factor]
        problems.append(f"URL parameter `hold` has {_names(bad)}, not another setting of these "
                        f"systems ({_names(others) or 'there is none'}); ignored.")
    kept = tuple(dict.fromkeys(v for v in values if v not in bad))
    return replace(view, factor=factor, hold=kept or ("",)), problems


def check_example(view: View, examples: Sequence[str], default: str) -> tuple[View, list[str]]:
    """Validate ``ex`` (the example shown in detail) against the benchmark's examples.

    Returns the view showing ``ex``, or ``default`` when ``ex`` is absent or unknown, and
    one message when it is unknown.

    Examples
    --------
    >>> view, problems = check_example(View(ex="HumanEval/3"), ["HumanEval/3", "HumanEval/4"],
    ...                                "HumanEval/4")
    >>> view.ex, problems
    ('HumanEval/3', [])
    """
    if not view.ex:
        return replace(view, ex=default), []
    if view.ex in set(examples):
        return view, []
    shown = f"showing {_quoted(default)}." if default else "ignored."
    return replace(view, ex=default), [
        f"URL parameter `ex`={_quoted(view.ex)} is not an example of this benchmark; {shown}"]


# ------------------------------------------------------- Overall, Mechanisms and Compare pages

#: Tabs of the Overall page (URL values → labels).
OVERALL_TABS = {"systems": "Systems × benchmarks", "pairs": "Pairs × benchmarks"}
MAX_LIST = 100  # values kept of a repeated text parameter (bench, ometric, bw)


def _texts(raw: Mapping[str, Sequence[str]], name: str, problems: list[str]) -> tuple[str, ...]:
    """A repeated text parameter: distinct non-empty values, each at most MAX_TEXT long."""
    values = [v for v in raw.get(name) or () if v]
    if any(len(v) > MAX_TEXT for v in values):
        problems.append(f"URL parameter `{name}` has a value longer than {MAX_TEXT} characters; "
                        "ignored.")
    return tuple(dict.fromkeys(v for v in values if len(v) <= MAX_TEXT))[:MAX_LIST]


def _inert(text: str) -> str:
    """``text`` (from the URL) inside a markdown message: inert, at most MAX_TEXT long."""
    return md_text(text[:MAX_TEXT])


def parse_weights(items: Sequence[str], names: Sequence[str]) -> tuple[dict[str, float], list[str]]:
    """``bw`` values ``name:weight`` → {name: weight} for known ``names``; a message per bad one.

    The weight follows the last colon (a name may hold colons); it must be a finite
    number ≥ 0. Unknown names and bad weights are left out (equal weight then).
    """
    weights: dict[str, float] = {}
    problems: list[str] = []
    for item in items:
        name, _, text = item.rpartition(":")
        try:
            weight = float(text)
        except ValueError:
            weight = math.nan
        if name not in names:
            problems.append(f"URL parameter `bw`: “{_inert(name or item)}” is not a chosen "
                            "benchmark; ignored.")
        elif not math.isfinite(weight) or weight < 0:
            problems.append(f"URL parameter `bw`: the weight of “{_inert(name)}” must be a "
                            f"number ≥ 0; got “{_inert(text)}”; using 1.")
        else:
            weights[name] = weight
    return weights, problems


def format_weights(weights: Mapping[str, float]) -> tuple[str, ...]:
    """The ``bw`` values of ``weights`` (weights of 1 are the default and left out)."""
    return tuple(f"{name}:{format_value(float(w))}" for name, w in weights.items() if w != 1)
