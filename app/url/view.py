"""The view: one frozen :class:`View` field per URL parameter, and the parameters each page reads.

A view turns back into query parameters (:meth:`View.params`, only the values that differ
from the defaults, only the ones the page uses) and into the engine's test options.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

from app.url.choices import OPTION_PARAMS, PAIRED_FLAGS
from engine import TestOptions

_DEFAULT = TestOptions()


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
    omodel: str = ""  # Overall: "irt" ranks every system by the joint model ("": complete block)
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
    k: int = 0  # Leaderboard reliability view: tries k of pass@k and pass^k (0: the default)
    cost: str = ""  # Trade-offs: the cost axis (a lower-is-better metric; "": the first usage one)

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
_TESTED = ("benchmark", "metric", *OPTION_PARAMS)
#: A slice of the benchmark: column, slice name, and the bins that name a numeric column's slices.
_SLICE = ("scol", "sval", "sbins")
#: The URL parameters each page reads (links to a page carry only these).
PAGE_PARAMS: dict[str, tuple[str, ...]] = {
    "benchmarks": (), "methods": (), "upload": (),
    "leaderboard": (*_TESTED, "q", "fcol", "fval", "cols", "table", "graph", "top", "focus",
                    "rows", "cluster", "k", *_SLICE),
    "pairwise": (*_TESTED, "a", "b", "panel", "top", "focus", "cluster", *_SLICE),
    "distributions": ("benchmark", "metric", "alpha", "paired", "seed", "dist", "boot", "color",
                      "cluster"),
    "examples": (*_TESTED, "ex", "etab"),
    "plan": ("benchmark", "metric", "alpha", "seed", "pdiff", "pn", "pr", "ppower", "nsim"),
    "overall": (*OPTION_PARAMS, "bench", "ometric", "bw", "otab", "omodel"),
    "mechanisms": (*_TESTED, "cluster"),
    "compare": (*_TESTED, "base", "cand", "cluster", "pdiff"),
    "slices": (*_TESTED, "scol", "sbins"),
    "conditions": (*_TESTED, "factor", "hold"),
    "pareto": ("benchmark", "metric", "alpha", "seed", "cost"),
}



def format_value(value: object) -> str:
    """A parameter value as it appears in the URL (floats without noise: 0.05, not 0.05000)."""
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)
