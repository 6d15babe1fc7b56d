"""Label budget of the inverse-probability-weighted PPI++ mean (known inclusion
probabilities): how far to scale the labelling design for a target interval width.

The estimator of :mod:`engine.stats._ppi_ipw` has the influence

    psi_i = lam f_i + xi_i / q_i (a_i - lam b_i),    a = y - E y,  b = f - E f,

over the N judged examples, with xi_i ~ Bernoulli(q_i) the labelling of example i. Taking
the expectation over the examples and the labelling (E[xi / q] = 1, E[xi / q^2] = 1 / q):

    N se^2 = Var(psi) = E[(a - lam b)^2 / q] - lam^2 Var(f) + 2 lam Cov(f, y)
           = A - 2 lam (B - c) + lam^2 (C - v),

A = E[a^2 / q], B = E[a b / q], C = E[b^2 / q], v = Var(f), c = Cov(f, y); the tuned lambda
is (B - c) / (C - v) clipped to [0, 1], as the estimator's (which minimises the sample
variance of psi). With q = n / N for every example this is the uniform PPI++ variance
(v_y + lam^2 v - 2 lam c) / n + (2 lam c - lam^2 v) / N: the design enters through 1 / q
only. The expectations over the population are Hajek-weighted means over the labelled
examples (weights 1 / pi, pi the probabilities the labels were drawn with), so the planner
needs only the data the estimator sees (Zrnic & Candès 2024, "Active Statistical Inference",
ICML, for the variance of inverse-probability-weighted PPI under a sampling rule).

The plan scales the declared probabilities: q_i = min(1, s pi_i), keeping the design's shape
(which examples get more labels); the expected label count is sum_i q_i over the judged
examples (exact when every judged example has its probability, else Hajek-estimated).
The t quantile takes the effective number of labels m = (sum 1 / q)^2 / sum 1 / q^3 in
expectation minus 2 df and the standard error times sqrt(m / (m - 2)), as the estimator's
``small_sample`` intervals with lambda tuned (the mean and lambda are fitted on the labels).
Planned / simulated widths (tests/engine/stats/test_ppi_ipw_plan.py): 1.068 / 1.016 at ~50 / ~150
labels of a known population, 1.011 / 0.957 planned from a 5% sample for 5% / 20% designs;
without the factor (df m - 2 only) 0.967 / 0.985 / 0.920 / 0.937.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import stats

__all__ = ["IPWDesign", "ipw_design", "ipw_plan", "ipw_scale_needed", "population_design"]

_STEPS = 60  # bisection steps on log(scale): far below one label of resolution


@dataclass(frozen=True)
class IPWDesign:
    """One system's (or pair difference's) data as the planner sees it: on the labelled
    examples the human labels ``y``, judge scores ``f`` and probabilities ``pi`` they were
    drawn with; the judge's variance over all ``total`` judged examples; every judged
    example's probability ``pi_all`` when all are known (else None); ``weights`` of the
    population means (1 / pi; ones when the rows are the whole population, as in a
    simulation)."""

    y: np.ndarray
    f: np.ndarray
    pi: np.ndarray
    var_judge: float
    total: int
    pi_all: np.ndarray | None
    weights: np.ndarray

    def hajek(self, values: np.ndarray) -> float:
        """Population mean of ``values`` (over the labelled examples) weighted by 1 / pi."""
        w = self.weights
        return float(np.sum(w * values) / np.sum(w))

    def moments(self) -> tuple[float, float, float]:
        """Var(y), Var(f), Cov(f, y) (population: Hajek; the judge's over all examples)."""
        a, b = self.y - self.hajek(self.y), self.f - self.hajek(self.f)
        return self.hajek(a * a), self.var_judge, self.hajek(a * b)

    def design(self, scale: float) -> np.ndarray:
        """The labelled examples' inclusion probabilities scaled by ``scale`` (at most 1)."""
        return np.minimum(1.0, scale * self.pi)

    def expected_labels(self, scale: float) -> float:
        if self.pi_all is not None:
            return float(np.sum(np.minimum(1.0, scale * self.pi_all)))
        return self.total * self.hajek(self.design(scale))

    @property
    def max_scale(self) -> float:
        """The scale at which every example with a probability is labelled for sure."""
        smallest = self.pi.min() if self.pi_all is None else self.pi_all[self.pi_all > 0].min()
        return float(1.0 / smallest)


def ipw_design(judge: Any, human: Any, inclusion: Any) -> IPWDesign:
    """The planner's view of one row: ``judge`` scores (NaN: not judged), ``human`` labels
    (NaN: not labelled), ``inclusion`` each example's probability (needed where labelled)."""
    f, y, pi = (np.asarray(a, dtype=float).ravel() for a in (judge, human, inclusion))
    present = np.isfinite(f)
    lab = present & np.isfinite(y)
    if not ((pi[lab] > 0) & (pi[lab] <= 1)).all():
        raise ValueError("inclusion: every labelled example needs a probability in (0, 1]")
    known = pi[present]
    pi_all = known if (np.isfinite(known) & (known > 0) & (known <= 1)).all() else None
    return IPWDesign(y[lab], f[lab], pi[lab], float(np.var(f[present])), int(present.sum()),
                     pi_all, 1.0 / pi[lab])


def population_design(judge: Any, human: Any, inclusion: Any) -> IPWDesign:
    """The planner's view of a whole population (every label known, weights 1), whose
    labelling design is ``inclusion``: the exact plan a simulation of it should match."""
    f, y, pi = (np.asarray(a, dtype=float).ravel() for a in (judge, human, inclusion))
    return IPWDesign(y, f, pi, float(np.var(f)), f.size, pi, np.ones(f.size))


def _variance(d: IPWDesign, q: np.ndarray) -> tuple[float, float, float]:
    """(N se^2, tuned lambda, E[psi^4]) under the labelled examples' design ``q`` (module
    docstring); the fourth moment for the spread of the estimated variance."""
    a, b = d.y - d.hajek(d.y), d.f - d.hajek(d.f)
    big_a, big_b, big_c = d.hajek(a * a / q), d.hajek(a * b / q), d.hajek(b * b / q)
    _, v, c = d.moments()
    curvature = big_c - v
    lam = float(np.clip((big_b - c) / curvature, 0.0, 1.0)) if curvature > 0 else 0.0
    kish = d.weights.sum() ** 2 / np.sum(d.weights**2)  # the labels' effective number
    # moments about estimated means: the usual n / (n - 1), with Kish's effective n
    var = max(big_a - 2 * lam * (big_b - c) + lam**2 * curvature, 0.0) * kish / max(kish - 1, 1)
    u, r = lam * b, a - lam * b  # psi - E psi = u + (xi / q) r; E[(xi / q)^k] = q^(1 - k)
    fourth = d.hajek(u**4 + 4 * u**3 * r + 6 * u**2 * r**2 / q + 4 * u * r**3 / q**2
                     + r**4 / q**3)
    return var, lam, fourth


def _df(d: IPWDesign, q: np.ndarray) -> float:
    """Satterthwaite's effective number of weighted labels in expectation, minus 2 (the
    estimator's df with lambda tuned: the mean and lambda are fitted on the labels)."""
    return d.total * d.hajek(1 / q) ** 2 / d.hajek(1 / q**3) - 2


def ipw_plan(d: IPWDesign, scale: float, *, alpha: float = 0.05) -> dict[str, float]:
    """The design ``scale`` x the probabilities: expected labels, lambda, the expected
    standard error, df and the full width of the t interval (the estimator's
    ``small_sample`` one)."""
    q = d.design(scale)
    var, lam, fourth = _variance(d, q)
    # the mean of the estimated se, not the root of its mean: E sqrt(V) ~ sqrt(E V) (1 -
    # Var(V) / (8 (E V)^2)) (second-order delta method), Var(V) ~ (E psi^4 - (E psi^2)^2) / N;
    # a few heavily weighted labels make the estimated variance skewed (simulated widths
    # fell 7-9% short of sqrt(E V) at ~40 labels without it)
    spread = (fourth - var**2) / (d.total * var**2) if var > 0 else 0.0
    se = float(np.sqrt(var / d.total) * max(1.0 - spread / 8, 0.5))
    df = max(_df(d, q), 1.0)
    se *= float(np.sqrt((df + 2) / df))  # the estimator's m / (m - 2): lambda is fitted
    return {"scale": scale, "expected_labels": d.expected_labels(scale), "lam": lam, "se": se,
            "df": df, "width": float(2 * stats.t.ppf(1 - alpha / 2, df) * se)}


def ipw_scale_needed(d: IPWDesign, *, width: float | None = None,
                     se: float | None = None, alpha: float = 0.05) -> dict[str, float] | None:
    """The smallest scale of the probabilities whose plan has at most ``width`` (t interval)
    or ``se``; None when labelling every example with a probability is not enough. The
    variance is monotone in the scale (each 1 / q falls), so a bisection on log(scale)."""
    if (width is None) == (se is None):
        raise ValueError("width, se: give exactly one")
    key, target = ("width", width) if width is not None else ("se", se)
    def ok(s: float) -> bool:
        return ipw_plan(d, s, alpha=alpha)[key] <= float(target)  # type: ignore[arg-type]
    hi = d.max_scale
    if not ok(hi):
        return None
    lo = min(1e-6, hi)
    if ok(lo):
        return ipw_plan(d, lo, alpha=alpha)
    for _ in range(_STEPS):
        mid = float(np.sqrt(lo * hi))
        lo, hi = (lo, mid) if ok(mid) else (mid, hi)
    return ipw_plan(d, hi, alpha=alpha)
