"""Worst- and best-case bounds for the examples one side of an A/B comparison lacks.

A harness that drops a system's failures leaves it scored on its easy examples, and the
paired test on the examples both systems have then favours it. With many systems
:mod:`engine.stats._missing` sees that the lacking examples are hard by the other systems'
scores; with two systems that check has almost no power. This module asks instead whether
the gate's verdict could change whatever the missing scores are: the sensitivity bounds
of Manski (1990, *Nonparametric bounds on treatment effects*, AER 80:319) and Horowitz &
Manski (2000, JASA 95:77), applied to the gate itself.

Chain: the examples each side lacks that the other has → fill them as the worst score on
the candidate's side and the best on the baseline's (``low``: every gap against the
candidate) and the other way round (``high``) → the same gate (:func:`compare_ab`, same
options) on each filled table → decided when the observed verdict survives the bound that
works against it.

The worst / best score: 0 / 1 for a 0/1 metric, else the lowest / highest score seen on
the benchmark (any system), by the metric's direction.

Which verdicts must survive (chosen by simulation, ``benchmarks/bench_missing_gate.py``,
two systems, 300 0/1 examples, 300 replications; its figures quoted here):

* "significantly better" must still be "better" under ``low`` (the candidate's gaps failed,
  the baseline's passed); "no significant difference", a pass, must not turn "worse" there;
* a fail (significantly worse) must still be "worse" under ``high``; with a
  non-inferiority margin the pass must still pass under ``low``, the fail still fail under
  ``high``.

Protecting the pass matters: a candidate truly 8 points worse that drops half its failures
looks "not different" and passed in 100% of replications; with "better" bounded alone it
still passed in 80%, with the pass bounded too in 24% (the rest is the test's power on the
complete data). A candidate with no true difference dropping half its failures is called
better in 88% without the bound, in 2.3% with it (target ≤ 5%).

``tolerance`` (default 10% of the examples either side has, per side): at or under it the
bounds are reported, not enforced. Without it, scores missing completely at random at 5%
on each side (about 15 of 300) move the bounds by up to 10 points: a candidate truly 12
points better kept its complete-data verdict in only 53% of replications, against 95% with
the tolerance (96% with no true difference; target ≥ 90%). A tolerance of 5% does not do
it (64%): the count missing at random straddles it. The price: a harness dropping a fifth
of the failures (about 10% of the examples) gets "better" with no true difference in 10%
of replications instead of 2%. Above the tolerance the bound is the plain worst / best
case, whatever the reason the examples are missing; ``declared`` (``sigboard compare
--allow-missing N``) raises it to N examples per side.

``declared``: the number of lacking examples per side the user accepts; at or under it
the bounds are reported, not enforced, and the sentence says the gap was declared.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd

from .._contract import MetricSpec
from ._ab import ABComparison, compare_ab

__all__ = ["TOLERANCE", "MissingBounds", "Outcome", "bound_gate", "missing_bounds", "outcome_of"]

#: Share of the examples either side has that each side may lack with the bounds reported,
#: not enforced (calibrated in the module docstring: MCAR at 5% per side then keeps the
#: complete-data verdict in ≥ 95% of replications).
TOLERANCE = 0.10


@dataclass(frozen=True)
class MissingBounds:
    """The gate's verdict with each side's missing examples at the worst and best score.

    ``candidate_lacks`` / ``baseline_lacks``: examples the other side has and this one does
    not; ``n``: examples either has. ``low``: the difference (candidate − baseline, oriented,
    metric units) with the candidate's gaps at the worst score and the baseline's at the
    best, ``high`` the other way round; ``low_verdict`` / ``high_verdict`` the gate's verdict
    there. ``decided``: the observed verdict survives the bound against it (see the module
    docstring); ``declared``: the missingness is within the declared tolerance (the bounds
    then do not block the verdict).
    """

    baseline: str
    candidate: str
    n: int
    baseline_lacks: int
    candidate_lacks: int
    binary: bool
    worst: float
    best: float
    observed_verdict: str
    low: float
    high: float
    low_verdict: str
    high_verdict: str
    survives: bool
    declared: int = 0
    tolerance: float = 0.0

    @property
    def within_declared(self) -> bool:
        return max(self.baseline_lacks, self.candidate_lacks) <= self.declared

    @property
    def within_tolerance(self) -> bool:
        """Each side lacks at most ``tolerance`` of the ``n`` examples: bounds not enforced."""
        return max(self.baseline_lacks, self.candidate_lacks) <= self.tolerance * self.n

    @property
    def decided(self) -> bool:
        """The verdict may be used: it survives its bound, or the gap was declared or is
        within the tolerance."""
        return self.survives or self.within_declared or self.within_tolerance

    def _diff(self, value: float) -> str:
        return f"{100 * value:+.1f} points" if self.binary else f"{value:+.4g}"

    def _as(self, worst: bool) -> str:
        if self.binary:
            return "failed" if worst else "passed"
        return f"at the {'worst' if worst else 'best'} score seen ({self.worst if worst else self.best:.4g})"

    def sentence(self, flag: str | None = "--allow-missing") -> str:
        """One line: who lacks how many examples, the difference at both bounds, and whether
        the gate can decide (``flag``: the option that declares the gap, None: none)."""
        c, b = self.candidate, self.baseline
        if self.baseline_lacks == 0:
            head = (f"{c} lacks {self.candidate_lacks} of {self.n} examples {b} has: with them "
                    f"{self._as(True)} the difference is {self._diff(self.low)}, with them "
                    f"{self._as(False)} {self._diff(self.high)}")
        elif self.candidate_lacks == 0:
            head = (f"{b} lacks {self.baseline_lacks} of {self.n} examples {c} has: with them "
                    f"{self._as(False)} the difference is {self._diff(self.low)}, with them "
                    f"{self._as(True)} {self._diff(self.high)}")
        else:
            head = (f"{c} lacks {self.candidate_lacks} and {b} lacks {self.baseline_lacks} of "
                    f"the {self.n} examples either has: with {c}'s {self._as(True)} and {b}'s "
                    f"{self._as(False)} the difference is {self._diff(self.low)}, the other "
                    f"way round {self._diff(self.high)}")
        need = max(self.baseline_lacks, self.candidate_lacks)
        shared = self.n - self.baseline_lacks - self.candidate_lacks
        if self.within_declared:
            how = "" if flag is None else f" with {flag} {self.declared}"
            return (f"{head}; declared{how}: the verdict stands on the {shared} examples both "
                    "have")
        if not self.survives and self.within_tolerance:
            return (f"{head}; at most {self.tolerance:.0%} of the examples missing on each "
                    f"side, tolerated: the verdict stands on the {shared} examples both have")
        if self.survives:
            return f"{head}; the verdict holds with the missing scores against it"
        declare = "declare them" if flag is None else f"declare them with {flag} {need}"
        return f"{head}; cannot decide — rerun the missing examples or {declare}"


@dataclass(frozen=True)
class Outcome:
    """What a gate decided, as the bounds compare it: its verdict text, exit code (0 pass, 1
    fail, 2 refused), the difference (oriented, metric units), whether the verdict is
    "better" and whether a non-inferiority margin decided it."""

    verdict: str
    exit_code: int
    estimate: float
    better: bool
    margin: bool = False


def outcome_of(result: Any) -> Outcome:
    """The :class:`Outcome` of an :class:`ABComparison` or a judge gate (the same fields)."""
    test = result.test
    return Outcome(result.verdict, int(result.exit_code),
                   float("nan") if test is None else float(test.estimate),
                   result.verdict == "candidate is significantly better",
                   result.noninferiority is not None)


def _survives(observed: Outcome, low: Outcome, high: Outcome) -> bool:
    """The observed verdict holds under the bound against it (module docstring)."""
    if observed.margin:
        return low.exit_code == 0 if observed.exit_code == 0 else high.exit_code == 1
    if observed.exit_code == 1:  # significantly worse: still worse with the gaps for it
        return high.exit_code == 1
    if observed.better:
        return low.better
    return low.exit_code == 0  # no significant difference: a pass, and not worse at low


def _extremes(values: pd.Series, binary: bool, higher_is_better: bool) -> tuple[float, float]:
    """(worst, best) score: 0/1 for a 0/1 metric, else the lowest / highest seen."""
    v = values.to_numpy(dtype=float)
    v = v[np.isfinite(v)]
    if binary or (len(v) and np.isin(v, (0.0, 1.0)).all()):
        lowest, highest = 0.0, 1.0
    else:
        lowest, highest = float(v.min()), float(v.max())
    return (lowest, highest) if higher_is_better else (highest, lowest)


def _filled(frame: pd.DataFrame, system: str, other: str, lacking: list[str],
            value: float | dict[str, float]) -> pd.DataFrame:
    """Rows for ``system`` on the ``lacking`` examples at ``value``: the other system's row
    of each example (its per-example columns, e.g. a cluster or the upload it came in), one
    per run ``system`` has. ``value``: one score, or one per metric (a judge metric and its
    human labels: the other system's label rows are filled too)."""
    rows = frame[(frame["system"] == other) & frame["example_id"].isin(lacking)]
    keys = ["example_id", "metric"] if "metric" in rows.columns else ["example_id"]
    rows = rows.drop_duplicates(keys).copy()
    rows["system"] = system
    rows["value"] = (rows["metric"].map(value).astype(float) if isinstance(value, dict)
                     else value)
    if "run" in frame.columns:
        runs = frame.loc[frame["system"] == system, "run"].dropna().unique()
        if len(runs):
            rows = pd.concat([rows.assign(run=r) for r in runs], ignore_index=True)
    return rows


def _ids_of(rows: pd.DataFrame, system: str) -> set[str]:
    """The example ids ``system`` has among ``rows``, each once: the distinct ones taken as
    a NumPy array first (``set`` of a string column walks it one Arrow scalar at a time:
    on 100,000 rows 0.2 s, three quarters of what the bounds took)."""
    return set(np.asarray(rows.loc[rows["system"] == system, "example_id"].unique()))


def bound_gate(frame: pd.DataFrame, observed: Outcome, decide: Callable[[pd.DataFrame], Outcome],
               *, baseline: str, candidate: str, metric: str, binary: bool,
               higher_is_better: bool, declared: int = 0, tolerance: float = TOLERANCE
               ) -> MissingBounds | None:
    """Any gate's verdict bounded over every value the examples one side lacks could take.

    ``frame``: one benchmark's rows — ``metric``'s, and any other metric whose rows go with
    an example (a judge's human labels): each is filled at its own worst / best score.
    ``decide``: the gate on a table (``frame`` with the filled rows added), same options as
    ``observed``. The examples a side lacks are those of ``metric`` the other side has.
    """
    if isinstance(declared, bool) or not isinstance(declared, int | np.integer) or declared < 0:
        raise ValueError(f"declared: must be a whole number ≥ 0; got {declared!r}")
    if not 0.0 <= tolerance < 1.0:
        raise ValueError(f"tolerance: must be a share in [0, 1); got {tolerance!r}")
    frame = frame.assign(example_id=frame["example_id"].astype(str))
    main = frame[frame["metric"] == metric]
    has_base, has_cand = _ids_of(main, baseline), _ids_of(main, candidate)
    cand_lacks, base_lacks = sorted(has_base - has_cand), sorted(has_cand - has_base)
    if not cand_lacks and not base_lacks:
        return None
    ends = {str(m): _extremes(part["value"], binary and m == metric, higher_is_better)
            for m, part in frame.groupby("metric", sort=False)}
    worst = {m: e[0] for m, e in ends.items()}
    best = {m: e[1] for m, e in ends.items()}

    def gate(cand_fill: dict[str, float], base_fill: dict[str, float]) -> Outcome:
        extra = [_filled(frame, candidate, baseline, cand_lacks, cand_fill),
                 _filled(frame, baseline, candidate, base_lacks, base_fill)]
        return decide(pd.concat([frame, *extra], ignore_index=True))

    low, high = gate(worst, best), gate(best, worst)
    return MissingBounds(baseline, candidate, len(has_base | has_cand), len(base_lacks),
                         len(cand_lacks), binary, worst[metric], best[metric],
                         observed.verdict, low.estimate, high.estimate, low.verdict,
                         high.verdict, _survives(observed, low, high), int(declared),
                         float(tolerance))


def missing_bounds(df: pd.DataFrame, observed: ABComparison, *, spec: MetricSpec | None = None,
                   declared: int = 0, tolerance: float = TOLERANCE) -> MissingBounds | None:
    """Bound the gate's verdict over every value the examples one side lacks could take.

    Parameters
    ----------
    df : DataFrame
        The long table ``observed`` was computed from (its cluster column included).
    observed : ABComparison
        :func:`compare_ab`'s result on ``df``; its systems, slice, options, cluster and
        margin are reused.
    spec : MetricSpec, optional
        As given to :func:`compare_ab` (direction; 0/1 or not).
    declared : int
        Lacking examples per side accepted as declared (≥ 0).
    tolerance : float
        Share of the examples either side has that each side may lack with the bounds
        reported, not enforced (default :data:`TOLERANCE`; 0: always enforced).

    Returns
    -------
    MissingBounds or None
        None when each side has every example the other has.

    Examples
    --------
    >>> import pandas as pd
    >>> from engine.stats._ab import compare_ab
    >>> ids = [f"e{i}" for i in range(40)]
    >>> df = pd.DataFrame({"benchmark": "b", "metric": "acc",
    ...     "system": ["base"] * 40 + ["cand"] * 30, "example_id": ids + ids[:30],
    ...     "value": [0.0] * 20 + [1.0] * 20 + [1.0] * 30})
    >>> b = missing_bounds(df, compare_ab(df, baseline="base", candidate="cand"))
    >>> b.observed_verdict, b.low_verdict, b.decided
    ('candidate is significantly better', 'no significant difference', False)
    >>> print(b.sentence())  # doctest: +NORMALIZE_WHITESPACE
    cand lacks 10 of 40 examples base has: with them failed the difference is +25.0 points,
    with them passed +50.0 points; cannot decide — rerun the missing examples or declare
    them with --allow-missing 10
    """
    base, cand = observed.baseline, observed.candidate
    frame = df[(df["benchmark"] == observed.benchmark) & (df["metric"] == observed.metric)]
    ni = observed.noninferiority
    the_spec = replace(spec if spec is not None else MetricSpec(),
                       higher_is_better=observed.higher_is_better)

    def decide(whole: pd.DataFrame) -> Outcome:
        return outcome_of(compare_ab(
            whole, baseline=base, candidate=cand, benchmark=observed.benchmark,
            metric=observed.metric, spec=the_spec, options=observed.options,
            cluster=observed.cluster, margin=None if ni is None else ni.margin))

    return bound_gate(frame, outcome_of(observed), decide, baseline=base, candidate=cand,
                      metric=observed.metric, binary=observed.binary,
                      higher_is_better=observed.higher_is_better, declared=declared,
                      tolerance=tolerance)
