"""The test options: one frozen object that every analysis, the CLI, the app and the cache share.

Every choice a user can make about *how* pairs are tested lives here, with its
default declared once and its validation done once, on creation. The CLI builds
it from its flags, the app from the URL, and every result records the one it
was made with.

Who takes what (the rule): a *product-level* function — one that analyses a score
matrix, a results frame, a battle list, a judge board or a store (``leaderboard``,
``pairwise_tests``, ``benchmark_health``, ``mechanisms``, ``p_beats``, ``judge_board``,
``judge_gate``, ``watch_board``, ``power``, ``rank_sets_of``, ``arena_ratings``, …) —
takes ``options: TestOptions | None = None`` keyword-only (None: ``TestOptions()``) and
reads ``options.alpha``, ``options.correction``, ``options.alternative`` … from it; it
declares none of their defaults again. A statistical *primitive* — a function of arrays
(an adjustment such as ``adjust_pvalues``, an interval such as ``wilson_ci``, a single
test, ``rank_sets`` of estimates and a covariance) — keeps ``alpha`` (and ``method`` or
``alternative``) as plain parameters, so it reads like its reference formula and needs
nothing from this module.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields, replace
from typing import Any, Literal, get_args

import numpy as np

__all__ = [
    "ALTERNATIVES",
    "COMPARISONS",
    "CORRECTIONS",
    "CRITERIA",
    "EFFECT_THRESHOLDS",
    "OPTION_NAMES",
    "TESTS",
    "TestOptions",
]

Test = Literal["auto", "t", "z", "paired-t", "mcnemar", "mcnemar-midp", "wilcoxon", "sign",
               "permutation"]
Alternative = Literal["two-sided", "greater", "less"]
Comparison = Literal["all", "first", "successive"]
Correction = Literal["holm-sidak", "holm", "bonferroni", "fdr_bh", "none"]
Criterion = Literal["pvalue", "small", "medium", "large"]

#: Every test the options accept.
ALL_TESTS: tuple[str, ...] = get_args(Test)
#: The tests the app's menus list by name (mid-p McNemar joins them once the app
#: names it; the CLI and the API accept it now).
TESTS: tuple[str, ...] = tuple(t for t in ALL_TESTS if t != "mcnemar-midp")
ALTERNATIVES: tuple[str, ...] = get_args(Alternative)
COMPARISONS: tuple[str, ...] = get_args(Comparison)
CORRECTIONS: tuple[str, ...] = get_args(Correction)
CRITERIA: tuple[str, ...] = get_args(Criterion)
#: Cohen (1988); Sawilowsky (2009): the smallest |effect| each criterion asks for.
EFFECT_THRESHOLDS: dict[str, float] = {"small": 0.2, "medium": 0.5, "large": 0.8}

#: Every option value by the name people read: the app's menus and settings line, the pages'
#: sentences and the CLI's text all take it from here, so one choice is never called two
#: things. Keys: the :class:`TestOptions` field (``paired``: the URL's pairing choice).
OPTION_NAMES: dict[str, dict[str, str]] = {
    "test": {"auto": "chosen from the data", "t": "Welch's t", "z": "two-proportion z",
             "paired-t": "paired t", "mcnemar": "exact McNemar", "mcnemar-midp": "mid-p McNemar",
             "wilcoxon": "Wilcoxon signed-rank", "sign": "sign", "permutation": "permutation"},
    "correction": {"holm-sidak": "Holm–Šídák", "holm": "Holm", "bonferroni": "Bonferroni",
                   "fdr_bh": "Benjamini–Hochberg (FDR)", "none": "none"},
    "compare": {"all": "all pairs", "first": "first vs rest", "successive": "successive pairs"},
    "alternative": {"two-sided": "either better", "greater": "earlier system better",
                    "less": "earlier system worse"},
    "criterion": {"pvalue": "adjusted p < alpha", "small": "effect size ≥ 0.2 (small)",
                  "medium": "effect size ≥ 0.5 (medium)", "large": "effect size ≥ 0.8 (large)"},
    "paired": {"auto": "paired where systems share examples", "paired": "paired",
               "unpaired": "unpaired"},
}

_CHOICES: dict[str, tuple[str, ...]] = {
    "test": ALL_TESTS, "alternative": ALTERNATIVES, "compare": COMPARISONS,
    "correction": CORRECTIONS, "criterion": CRITERIA,
}


@dataclass(frozen=True, kw_only=True)
class TestOptions:
    """How pairs of systems are tested.

    Parameters
    ----------
    test : {"auto", "t", "z", "paired-t", "mcnemar", "mcnemar-midp", "wilcoxon", "sign", ...}
        (or "permutation"). ``auto`` follows Table 1 of Ackerman et al. (2025) (paired
        numeric → paired t, paired binary → exact McNemar, unpaired numeric → Welch's t,
        unpaired binary → two-proportion z). ``mcnemar-midp``: McNemar's mid-p test
        (Fagerland et al. 2013), opt-in (exact McNemar stays the default until every
        calibration scenario is calibrated).
    alternative : {"two-sided", "greater", "less"}
        ``greater``: system_a is better than system_b (in the metric's direction).
    compare : {"all", "first", "successive"}
        All pairs, the first system against each other, or neighbours in order.
    correction : {"holm-sidak", "holm", "bonferroni", "fdr_bh", "none"}
        Multiplicity adjustment of the p-values.
    alpha : float
        Significance level, strictly between 0 and 1; intervals are at 1 - alpha.
    criterion : {"pvalue", "small", "medium", "large"}
        ``pvalue``: significant when the adjusted p < alpha; an effect-size criterion
        also asks for |effect| at Cohen's small / medium / large threshold.
    paired : bool or None
        Force paired (True) or unpaired (False) tests; None pairs whenever the data allow.
    n_resamples : int
        Resamples of the permutation test (positive).
    seed : int
        Seed of every random procedure (non-negative), so a shared link reproduces.

    Examples
    --------
    >>> TestOptions(alpha=0.01).correction
    'holm-sidak'
    >>> TestOptions(alpha=2)
    Traceback (most recent call last):
    ...
    ValueError: alpha: must be strictly between 0 and 1; got 2
    """

    __test__ = False  # not a pytest test class, whatever its name says

    test: Test = "auto"
    alternative: Alternative = "two-sided"
    compare: Comparison = "all"
    correction: Correction = "holm-sidak"
    alpha: float = 0.05
    criterion: Criterion = "pvalue"
    paired: bool | None = None
    n_resamples: int = 9999
    seed: int = 0

    def __post_init__(self) -> None:
        for name, allowed in _CHOICES.items():
            value = getattr(self, name)
            if value not in allowed:
                raise ValueError(f"{name}: must be one of {', '.join(allowed)}; got {value!r}")
        if isinstance(self.alpha, bool) or not isinstance(self.alpha, int | float) \
                or not 0.0 < self.alpha < 1.0:
            raise ValueError(f"alpha: must be strictly between 0 and 1; got {self.alpha!r}")
        if self.paired not in (None, True, False):
            raise ValueError(f"paired: must be True, False or None (automatic); got {self.paired!r}")
        for name in ("n_resamples", "seed"):
            value = getattr(self, name)
            low = 1 if name == "n_resamples" else 0
            if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < low:
                rule = "a positive integer" if low else "a non-negative integer"
                raise ValueError(f"{name}: must be {rule}; got {value!r}")
        if self.test == "permutation" and self.criterion != "pvalue":
            raise ValueError("criterion: the permutation test has no effect size, so the "
                             f"criterion must be 'pvalue'; got {self.criterion!r}")
        object.__setattr__(self, "alpha", float(self.alpha))

    @property
    def confidence(self) -> float:
        """Level of every interval shown with these options: 1 - alpha."""
        return 1.0 - self.alpha

    def rng(self) -> np.random.Generator:
        """A fresh generator seeded with ``seed`` (same seed, same draws)."""
        return np.random.default_rng(self.seed)

    def with_(self, **changes: Any) -> TestOptions:
        """A copy with ``changes`` applied (and validated)."""
        return replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        """Every option by name (the JSON ``options`` object, and a cache key)."""
        return asdict(self)

    def changed(self) -> dict[str, Any]:
        """Only the options that differ from the defaults (for short links)."""
        default = TestOptions()
        return {f.name: getattr(self, f.name) for f in fields(self)
                if getattr(self, f.name) != getattr(default, f.name)}


def compared_pairs(n: int, compare: str) -> tuple[np.ndarray, np.ndarray]:
    """Index arrays (a, b) of the pairs ``compare`` tests among ``n`` systems in order:
    all pairs a < b, the first against each other, or each against the next."""
    if compare == "first":
        return np.zeros(n - 1, dtype=int), np.arange(1, n)
    if compare == "successive":
        return np.arange(n - 1), np.arange(1, n)
    ia, ja = np.triu_indices(n, k=1)
    return ia, ja


def resolve(options: TestOptions | None, overrides: dict[str, Any]) -> TestOptions:
    """``options`` (default: all defaults) with keyword ``overrides`` applied.

    Analyses accept either an options object or the same names as keywords, for
    one-off calls; both paths go through :class:`TestOptions` validation.
    """
    base = options if options is not None else TestOptions()
    if not isinstance(base, TestOptions):
        raise TypeError(f"options: must be a TestOptions; got {type(base).__name__}")
    unknown = sorted(set(overrides) - {f.name for f in fields(TestOptions)})
    if unknown:
        raise TypeError(f"unknown test option(s) {', '.join(unknown)}; known: "
                        f"{', '.join(f.name for f in fields(TestOptions))}")
    return replace(base, **overrides) if overrides else base
