"""Missing scores that are not harmless.

A harness that drops a system's failures (timeouts, crashes, refusals written as no
row) leaves that system scored on its easy examples: its mean rises and every paired
test runs on a biased subset. The check: are the examples a system lacks harder (or
easier) than the ones it has, judged by *the other systems'* scores on them? Under
missingness at random the two sets of examples have the same difficulty.

Chain: oriented matrix → each example's difficulty by the other systems → per system
with missing examples, Mann–Whitney U of that difficulty, scored vs missing → Holm over
the systems checked → informative ones with a sensitivity bound (the system's mean with
its missing examples counted as the worst vs the best score seen).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats

from .._matrix import ScoreMatrix, orient
from ._multitest import adjust_pvalues

__all__ = ["ALPHA_MISSING", "MissingCheck", "missing_checks"]

#: Family-wise level of the check (Holm over the systems with missing examples): false
#: warnings on data missing at random in at most 5% of analyses (calibrate.py "partial":
#: 10 systems each missing 15% at random), while a system whose failures are dropped with
#: probability 0.5 on 164 examples is flagged in ≥ 95% (calibrate.py "missing-failures";
#: at 0.01 it was 0.87).
ALPHA_MISSING = 0.05
_MIN_SIDE = 3  # examples needed on each side (scored, missing) for a rank test


@dataclass(frozen=True)
class MissingCheck:
    """One system's missing examples against its scored ones.

    ``shift``: mean score of the *other* systems on the examples this system lacks minus on
    the ones it has, oriented (negative: the missing ones are harder — failures dropped);
    ``pvalue``: Mann–Whitney U (two-sided), ``pvalue_adj`` Holm over the systems checked;
    ``informative``: pvalue_adj < alpha. ``mean_low``/``mean_high``: the system's mean over
    every example with its missing scores set to the worst / best score seen on the
    benchmark (for 0/1 scores: as failures / as successes), in the metric's units.
    """

    system: str
    scored: int
    missing: int
    shift: float
    pvalue: float
    pvalue_adj: float
    informative: bool
    mean_observed: float
    mean_low: float
    mean_high: float

    def warning(self) -> str:
        kind = "harder" if self.shift < 0 else "easier"
        return (f"{self.system}'s {self.missing} missing example(s) are {kind} than its "
                f"{self.scored} scored ones by the other systems' scores (Mann–Whitney p = "
                f"{self.pvalue:.2g}, Holm-adjusted {self.pvalue_adj:.2g}): its missing scores "
                f"are not missing at random (skipped failures?), so its mean "
                f"{self.mean_observed:.4g} and its tests are biased; with the missing counted as "
                f"the worst vs the best score its mean lies in [{self.mean_low:.4g}, "
                f"{self.mean_high:.4g}]")


def _difficulty_by_others(x: np.ndarray) -> np.ndarray:
    """``out[s, e]``: the mean oriented score of every system but s on example e (NaN when
    no other system scored it) — every system's row at once from the column sums."""
    has = ~np.isnan(x)
    col_sum = np.where(has, x, 0.0).sum(axis=0)
    col_n = has.sum(axis=0)
    own = np.where(has, x, 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.asarray((col_sum[None, :] - own) / (col_n[None, :] - has), dtype=float)


def missing_checks(matrix: ScoreMatrix, *, alpha: float = ALPHA_MISSING,
                   systems: tuple[str, ...] | None = None) -> tuple[MissingCheck, ...]:
    """Check every system with missing examples (or only ``systems``); see the module docstring.

    Returns one :class:`MissingCheck` per system that lacks at least ``_MIN_SIDE`` examples
    other systems scored and has at least as many scored; none when every system scored
    every example.
    """
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha: must be strictly between 0 and 1; got {alpha!r}")
    values = matrix.values
    has = ~np.isnan(values)
    if has.all() or matrix.n_systems < 2:
        return ()
    x = orient(values, higher_is_better=matrix.higher_is_better, binary=matrix.binary)
    others = _difficulty_by_others(x)
    wanted = set(matrix.systems if systems is None else systems)
    rows, shifts, pvalues = [], [], []
    for s, name in enumerate(matrix.systems):
        if name not in wanted:
            continue
        judged = ~np.isnan(others[s])
        lacking, present = others[s][judged & ~has[s]], others[s][judged & has[s]]
        if len(lacking) < _MIN_SIDE or len(present) < _MIN_SIDE:
            continue
        rows.append(s)
        shifts.append(float(lacking.mean() - present.mean()))
        same = np.ptp(np.r_[lacking, present]) == 0
        pvalues.append(1.0 if same else float(stats.mannwhitneyu(lacking, present).pvalue))
    if not rows:
        return ()
    adjusted = adjust_pvalues(np.array(pvalues), method="holm", alpha=alpha)
    finite = values[has]
    worst, best = (finite.min(), finite.max()) if matrix.higher_is_better else \
        (finite.max(), finite.min())
    out = []
    for s, shift, p, p_adj in zip(rows, shifts, pvalues, adjusted, strict=True):
        own = values[s][has[s]]
        gap = int((~has[s]).sum())
        total = len(own) + gap
        low = (own.sum() + gap * worst) / total
        high = (own.sum() + gap * best) / total
        out.append(MissingCheck(matrix.systems[s], len(own), gap, shift, p, float(p_adj),
                                bool(p_adj < alpha), float(own.mean()),
                                float(min(low, high)), float(max(low, high))))
    return tuple(out)
