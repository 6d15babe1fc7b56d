"""Which test each pair of :func:`engine.pairwise_tests` gets, and why.

Pairing (every pair paired on the examples it shares, or unpaired when it shares
too few), the choice of the paired and unpaired tests (Table 1 of Ackerman et al. 2025,
arXiv:2501.18243,
or the user's test checked against the data), and the run-aware paired t that
replaces the automatic paired test when the scores have repeated runs.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._contract import MetricSpec
from .._matrix import ScoreMatrix
from .._options import TestOptions
from . import _kernels as k
from ._overlap import MIN_PAIRED_OVERLAP
from ._runs import PooledRuns

__all__ = ["Plan", "RunAware", "choose", "pairing", "run_aware_tests", "wants_runs"]

_PAIRED_TESTS = ("paired-t", "mcnemar", "mcnemar-midp", "wilcoxon", "sign", "permutation")
_UNPAIRED_TESTS = ("t", "z", "permutation")


@dataclass(frozen=True)
class Plan:
    """Which pairs are paired, which test runs on each kind, and why (said in the output)."""

    paired_rows: np.ndarray
    paired_test: str
    unpaired_test: str
    reason: str


def pairing(matrix: ScoreMatrix, shared: np.ndarray, paired: bool | None) -> tuple[np.ndarray, str]:
    """Per pair: paired or not. Every pair is paired on the examples *it* shares."""
    if paired is False:
        return np.zeros(len(shared), dtype=bool), "unpaired, as chosen"
    if paired is True:
        few = shared < 2
        if few.any():
            raise ValueError(f"paired: {int(few.sum())} pair(s) share fewer than 2 examples, so "
                             "a paired test is impossible for them; use paired=None (automatic) "
                             "or paired=False")
        return np.ones(len(shared), dtype=bool), "paired, as chosen"
    if matrix.pairing == "full":
        if matrix.n_examples >= 2:
            return np.ones(len(shared), dtype=bool), "every system scored the same examples"
        return np.zeros(len(shared), dtype=bool), "fewer than 2 examples"
    rows = shared >= MIN_PAIRED_OVERLAP
    if rows.all():
        return rows, "each pair paired on the examples it shares"
    if not rows.any():
        return rows, (f"no pair shares {MIN_PAIRED_OVERLAP} examples, so pairs are tested unpaired"
                      if shared.max(initial=0) >= 2 else
                      "fewer than 2 examples are shared by any pair: unpaired")
    return rows, (f"each pair paired on the examples it shares; {int((~rows).sum())} pair(s) "
                  f"sharing fewer than {MIN_PAIRED_OVERLAP} examples tested unpaired")


def choose(matrix: ScoreMatrix, test: str, rows: np.ndarray, why: str) -> Plan:
    """Decide the test of paired and of unpaired pairs (Ackerman et al. 2025, Table 1) and say why."""
    binary = matrix.binary
    design = "paired" if rows.all() else "unpaired" if not rows.any() else "partly paired"
    kind = f"{design} {'binary (0/1)' if binary else 'numeric'}"
    if test == "auto":
        paired_test, unpaired_test = ("mcnemar", "z") if binary else ("paired-t", "t")
        shown = ", ".join(t for t, used in ((paired_test, rows.any()), (unpaired_test,
                                                                           (~rows).any())) if used)
        return Plan(rows, paired_test, unpaired_test, f"{kind} scores ({why}) → {shown}")
    needs = "paired" if test in _PAIRED_TESTS and test != "permutation" else \
        "unpaired" if test in _UNPAIRED_TESTS and test != "permutation" else "either"
    if (needs == "paired" and not rows.all()) or (needs == "unpaired" and rows.any()):
        have = "paired" if rows.all() else "unpaired" if not rows.any() else "partly paired"
        allowed = _PAIRED_TESTS if rows.all() else _UNPAIRED_TESTS if not rows.any() else \
            ("permutation",)
        raise ValueError(f"test: {test!r} needs {needs} data but the comparison is {have}; "
                         f"choose one of {', '.join(allowed)} (or set paired)")
    if test in ("mcnemar", "mcnemar-midp", "z") and not binary:
        raise ValueError(f"test: {test!r} needs binary (0/1) scores; this metric has other "
                         "values (use 'paired-t' or 't')")
    return Plan(rows, test, test, f"{test} chosen by the user ({why})")


@dataclass(frozen=True)
class RunAware:
    stats: k.PairStats
    se: np.ndarray
    tests: np.ndarray
    name: str
    reason: str
    pooled: PooledRuns | None = None


def wants_runs(matrix: ScoreMatrix, opts: TestOptions, rows: np.ndarray) -> bool:
    """Repeated runs enter the test when they exist, the test is automatic and paired, and
    every system scored every example (the run-variance model is paired on them all)."""
    return (matrix.has_runs and opts.test == "auto" and bool(rows.all())
            and matrix.pairing == "full")


def run_aware_tests(matrix: ScoreMatrix, opts: TestOptions, ia: np.ndarray, ja: np.ndarray
               ) -> RunAware:
    """Each pair's paired t on per-example means with the run-to-run variance added
    (:func:`engine.stats._runs_pairs.runs_pairwise`): when a run is a seed that shifts a whole sweep,
    averaging runs would hide that variance and inflate false alarms."""
    from ._runs_pairs import runs_pairwise

    assert matrix.run_scores is not None  # checked by wants_runs
    order = {s: i for i, s in enumerate(matrix.systems)}
    # each row's place in the matrix's order of systems, looked up once per system (as
    # Series.map(order) gives it, NaN for a system not in it, without its per-row lookup:
    # on 100,000 rows a sixth of the A/B comparison's time)
    codes, names = pd.factorize(matrix.run_scores["system"])
    place = np.array([order.get(s, np.nan) for s in names] + [np.nan])[codes]
    if not np.isnan(place).any():
        place = place.astype(np.int64)
    frame = matrix.run_scores.assign(benchmark=matrix.benchmark, metric=matrix.metric,
                                     _order=place)
    frame = frame.sort_values("_order", kind="stable").drop(columns="_order")
    spec = MetricSpec(higher_is_better=matrix.higher_is_better)
    runs = runs_pairwise(frame, spec=spec, options=opts)
    rt = runs.table  # same systems order and pairs
    tests = rt["test"].to_numpy(object)
    with_var = int((tests == "vc-t").sum())
    reason = ("repeated runs: each pair's paired t on per-example means, with the run-to-run "
              f"variance added where the runs differ as a whole (seed sweeps; {with_var} of "
              f"{len(tests)} pair(s)), Satterthwaite degrees of freedom"
              + (f"; {runs.pooled.note()}" if runs.pooled is not None else ""))
    stats_ = k.PairStats(rt["statistic"].to_numpy(float), rt["pvalue"].to_numpy(float),
                         rt["effect_size"].to_numpy(float), rt["df"].to_numpy(float))
    if len(rt) != len(ia):
        raise RuntimeError("run-aware tests: pairs do not line up with the matrix")
    return RunAware(stats_, rt["se"].to_numpy(float), tests,
                    "vc-t" if with_var else "paired-t", reason, runs.pooled)
