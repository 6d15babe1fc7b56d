"""Can this benchmark separate anything? The smallest p its test can reach against the
smallest p its multiplicity correction can call significant.

A discrete test has a floor: exact McNemar (or the sign test) on n examples cannot go
below 2^(1−n) two-sided, whatever the systems do. When that floor is above the first
threshold of the correction (Holm–Šídák: 1 − (1 − α)^(1/m) over m pairs), no pair can
ever be significant, every system shares group "a" and every rank range is 1–S: the
output must say so rather than let "no difference" read as evidence of equality.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import stats

from .._options import OPTION_NAMES

__all__ = ["Resolution", "first_threshold", "resolution", "smallest_pvalue"]

_TARGET_POWER = 0.8  # as the Plan panel's planner (engine.power)


@dataclass(frozen=True)
class Resolution:
    """Whether any pair can be significant, and what it would take.

    ``smallest_p``: the smallest raw p the test can reach on these examples (best case
    over pairs); ``threshold``: the largest raw p the correction can call significant
    (its first step, in the most favourable case); ``examples_needed``: the fewest
    examples per pair whose smallest p is below the threshold (None: the test has no
    floor that matters); ``mdd`` / ``mdd_needed``: the difference a pair needs to be
    found with 80% power at the threshold's level, now and with ``examples_needed``
    (normal approximation with the median SD of the pairs' differences; NaN when
    unknown).
    """

    can_separate: bool
    smallest_p: float
    threshold: float
    pairs: int
    examples: int
    test: str
    correction: str
    alpha: float
    examples_needed: int | None
    mdd: float
    mdd_needed: float
    message: str


def first_threshold(alpha: float, pairs: int, correction: str) -> float:
    """The largest raw p the correction can call significant with ``pairs`` tests.

    Holm–Šídák and Šídák: 1 − (1 − α)^(1/m); Holm and Bonferroni: α/m (their first step);
    Benjamini–Hochberg and none: α (BH rejects every pair at p ≤ α when all are there).
    """
    m = max(int(pairs), 1)
    if correction == "holm-sidak":
        return float(-math.expm1(math.log1p(-alpha) / m))
    if correction in ("holm", "bonferroni"):
        return alpha / m
    return float(alpha)


def smallest_pvalue(test: str, n: int, alternative: str, *, n_b: int = 0,
                    n_resamples: int = 9999) -> float:
    """The smallest raw p ``test`` can give on ``n`` paired examples (or n and ``n_b``
    unpaired ones); 0 for tests on continuous statistics (t tests)."""
    sides = 1.0 if alternative != "two-sided" else 2.0
    if n < 1:
        return 1.0
    if test in ("mcnemar", "sign"):  # every example won by one side: Bin(n, 1/2) tail
        return min(1.0, sides * 0.5 ** n)
    if test == "mcnemar-midp":  # half the probability of the observed, extreme count
        return min(1.0, sides * 0.5 ** n / 2.0)
    if test == "wilcoxon":  # exact (n ≤ 50, no ties): the all-positive pattern
        return min(1.0, sides * 0.5 ** n) if n <= 50 else 0.0
    if test == "permutation":
        exact = min(1.0, sides * 0.5 ** n)
        return exact if n <= 20 and 2 ** n <= n_resamples else max(exact, 1 / (n_resamples + 1))
    if test == "z" and n_b >= 1:  # one side all successes, the other all failures
        pooled = n / (n + n_b)
        z = 1.0 / math.sqrt(pooled * (1 - pooled) * (1 / n + 1 / n_b))
        return float(sides * stats.norm.sf(z))
    return 0.0


def _mdd(level: float, sd: float, n: int) -> float:
    if not (math.isfinite(sd) and sd > 0 and n >= 2 and 0 < level < 1):
        return float("nan")
    z = stats.norm.ppf(1 - level / 2) + stats.norm.ppf(_TARGET_POWER)
    return float(z * sd / math.sqrt(n))


def resolution(*, test: str, examples: np.ndarray, alternative: str, alpha: float,
               correction: str, systems: int, sd_difference: float,
               examples_b: np.ndarray | None = None, n_resamples: int = 9999) -> Resolution:
    """Whether any of the compared pairs can reach significance (see the module docstring).

    ``examples``: examples per pair (paired) or the first side's (unpaired, with
    ``examples_b``); ``systems``: how many systems are compared; ``sd_difference``:
    median SD of the pairs' per-example differences (for the power figures).
    """
    pairs = len(examples)
    threshold = first_threshold(alpha, pairs, correction)
    ns = np.asarray(examples, dtype=int)
    nb = np.zeros_like(ns) if examples_b is None else np.asarray(examples_b, dtype=int)
    width = int(nb.max(initial=0)) + 1  # each distinct (n_a, n_b) once: one integer key each
    keys = np.unique(ns.astype(np.int64) * width + nb)
    floors = [smallest_pvalue(test, int(k // width), alternative, n_b=int(k % width),
                              n_resamples=n_resamples) for k in keys]
    floor = min(floors) if floors else 1.0
    can = floor < threshold or (floor == threshold and floor > 0)
    n = int(ns.max(initial=0))
    needed: int | None = None
    if floor > 0 and test != "z":
        needed = n
        while smallest_pvalue(test, needed, alternative, n_resamples=n_resamples) > threshold:
            needed += 1
            if needed > 10_000:
                needed = None
                break
    mdd = _mdd(threshold, sd_difference, n)
    mdd_needed = _mdd(threshold, sd_difference, needed) if needed else float("nan")
    message = ""
    if not can:
        name = f"the {OPTION_NAMES['test'].get(test, test)} test"
        named = OPTION_NAMES["correction"].get(correction, correction)
        more = f"At least {needed} examples per pair are needed" if needed else \
            "More examples are needed"
        power = (f"; with {needed} examples a pair needs a difference of about {mdd_needed:.3g} "
                 f"to be found with 80% power at that level (normal approximation, the pairs' "
                 f"median SD of differences {sd_difference:.3g})"
                 if math.isfinite(mdd_needed) else "")
        message = (f"{n} examples cannot separate {systems} systems at alpha = {alpha:g} "
                   f"({named} over {pairs} pair(s)): the smallest p {name} can reach on "
                   f"{n} examples is {floor:.3g}, above the first threshold {threshold:.3g}, so no "
                   f"pair can be significant whatever the scores — every system shares one group "
                   f"and every rank range is wide. {more} for any pair to be significant (or "
                   f"fewer systems compared, or a larger alpha){power}.")
    return Resolution(bool(can), float(floor), float(threshold), pairs, n, test, correction,
                      float(alpha), needed, mdd, mdd_needed, message)
