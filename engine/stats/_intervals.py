"""Confidence intervals for the difference between two systems, vectorised over pairs.

Arrays of per-pair summaries in, ``(low, high)`` arrays out, at level 1 − alpha.
The difference is system_a minus system_b on oriented scores, so positive means
system_a is better. Undefined intervals (too few examples) are NaN, never a guess.
"""

from __future__ import annotations

import numpy as np
from scipy import stats

__all__ = ["agree_with_test", "newcombe_paired_ci", "newcombe_unpaired_ci", "paired_binary_ci",
           "paired_numeric_ci", "welch_ci", "wilson_ci"]

_CROSSING_WIDTH = 2.0 ** -59  # the limits are exact to this (or to adjacent floats)
_MAX_CROSSING_STEPS = 200  # safeguarded: at most two steps per halving of [-1, 1]


def _z(alpha: float) -> float:
    return float(stats.norm.ppf(1.0 - _alpha(alpha) / 2.0))


def _alpha(alpha: float) -> float:
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha: must be strictly between 0 and 1; got {alpha!r}")
    return float(alpha)


def _arrays(*values: object) -> list[np.ndarray]:
    floats = [np.asarray(v, dtype=float) for v in values]
    return [np.asarray(v, dtype=float) for v in np.broadcast_arrays(*floats)]


def _counts(name: str, value: np.ndarray) -> None:
    if (value < 0).any():
        raise ValueError(f"{name}: counts must be ≥ 0; got minimum {np.nanmin(value):g}")


def paired_numeric_ci(mean_diff: object, sd_diff: object, n: object, *, alpha: float = 0.05
                      ) -> tuple[np.ndarray, np.ndarray]:
    """t interval of the mean of paired differences.

    Parameters
    ----------
    mean_diff, sd_diff, n : array_like
        Mean and SD (ddof = 1) of each pair's differences a − b, and how many.
    alpha : float, keyword-only

    Returns
    -------
    (low, high) : ndarrays
        ``mean ± t_{n−1, 1−α/2} · sd / √n``; NaN where n < 2; a point where sd = 0.

    Examples
    --------
    >>> low, high = paired_numeric_ci([0.5], [1.0], [25])
    >>> [round(float(v), 4) for v in (low[0], high[0])]
    [0.0872, 0.9128]
    """
    q = 1.0 - _alpha(alpha) / 2.0
    m, s, k = _arrays(mean_diff, sd_diff, n)
    # one quantile per distinct n (all pairs share n when every system scored every example)
    sizes, index = np.unique(k, return_inverse=True)
    quantile = stats.t.ppf(q, np.where(sizes >= 2, sizes - 1, np.nan))[index.reshape(k.shape)]
    with np.errstate(invalid="ignore", divide="ignore"):
        half = quantile * s / np.sqrt(k)
    half = np.where((k >= 2) & (s == 0), 0.0, half)
    return m - half, m + half


def welch_ci(mean_diff: object, var_a: object, n_a: object, var_b: object, n_b: object, *,
             alpha: float = 0.05) -> tuple[np.ndarray, np.ndarray]:
    """Welch's interval for the difference of two independent means.

    Parameters
    ----------
    mean_diff : array_like
        mean_a − mean_b.
    var_a, n_a, var_b, n_b : array_like
        Sample variances (ddof = 1) and sizes of each side.
    alpha : float, keyword-only

    Returns
    -------
    (low, high) : ndarrays
        NaN where a side has fewer than 2 scores; a point when both variances are 0.

    Notes
    -----
    ``diff ± t_{ν, 1−α/2} · √(v_a/n_a + v_b/n_b)`` with the Welch–Satterthwaite
    ν = (v_a/n_a + v_b/n_b)² / ((v_a/n_a)²/(n_a−1) + (v_b/n_b)²/(n_b−1)).

    Examples
    --------
    >>> low, high = welch_ci([1.0], [4.0], [10], [1.0], [20])
    >>> [round(float(v), 4) for v in (low[0], high[0])]
    [-0.4716, 2.4716]
    """
    q = 1.0 - _alpha(alpha) / 2.0
    d, va, na, vb, nb = _arrays(mean_diff, var_a, n_a, var_b, n_b)
    ok = (na >= 2) & (nb >= 2)
    with np.errstate(invalid="ignore", divide="ignore"):
        sa, sb = va / na, vb / nb
        df = (sa + sb) ** 2 / (sa**2 / (na - 1) + sb**2 / (nb - 1))
        half = stats.t.ppf(q, df) * np.sqrt(sa + sb)
    half = np.where(ok & (sa + sb == 0), 0.0, np.where(ok, half, np.nan))
    return d - half, d + half


def wilson_ci(x: object, n: object, *, alpha: float = 0.05) -> tuple[np.ndarray, np.ndarray]:
    """Wilson score interval of a proportion x / n (NaN where n = 0).

    Examples
    --------
    >>> low, high = wilson_ci([0], [10])
    >>> [round(float(v), 4) for v in (low[0], high[0])]
    [0.0, 0.2775]
    """
    z = _z(alpha)
    k, m = _arrays(x, n)
    with np.errstate(invalid="ignore", divide="ignore"):
        centre = (k + z * z / 2.0) / (m + z * z)
        half = z * np.sqrt(k * (m - k) / m + z * z / 4.0) / (m + z * z)
    ok = m > 0
    low = np.where(ok, np.clip(centre - half, 0.0, 1.0), np.nan)
    high = np.where(ok, np.clip(centre + half, 0.0, 1.0), np.nan)
    return low, high


def newcombe_unpaired_ci(x_a: object, n_a: object, x_b: object, n_b: object, *,
                         alpha: float = 0.05) -> tuple[np.ndarray, np.ndarray]:
    """Newcombe's hybrid score interval for p_a − p_b from independent samples.

    Parameters
    ----------
    x_a, n_a, x_b, n_b : array_like
        Successes and trials of each side (successes may be fractional sums of
        0/1 scores; they are used as they come).
    alpha : float, keyword-only

    Returns
    -------
    (low, high) : ndarrays
        NaN where a side has no trial.

    Notes
    -----
    With Wilson limits (l_a, u_a), (l_b, u_b) and θ = p_a − p_b (method 10 of
    Newcombe 1998a): L = θ − √((p_a − l_a)² + (u_b − p_b)²),
    U = θ + √((u_a − p_a)² + (p_b − l_b)²). Same as statsmodels'
    ``confint_proportions_2indep(..., compare="diff", method="newcomb")``.

    References
    ----------
    Newcombe, R. G. (1998a). Interval estimation for the difference between
    independent proportions: comparison of eleven methods. Stat Med 17:873–890.

    Examples
    --------
    >>> low, high = newcombe_unpaired_ci([56], [70], [48], [80])  # Newcombe 1998a, example (a)
    >>> [round(float(v), 4) for v in (low[0], high[0])]
    [0.0524, 0.3339]
    """
    xa, na, xb, nb = _arrays(x_a, n_a, x_b, n_b)
    for name, v in (("x_a", xa), ("n_a", na), ("x_b", xb), ("n_b", nb)):
        _counts(name, v)
    la, ua = wilson_ci(xa, na, alpha=alpha)
    lb, ub = wilson_ci(xb, nb, alpha=alpha)
    with np.errstate(invalid="ignore", divide="ignore"):
        pa, pb = xa / na, xb / nb
    theta = pa - pb
    low = theta - np.sqrt((pa - la) ** 2 + (ub - pb) ** 2)
    high = theta + np.sqrt((ua - pa) ** 2 + (pb - lb) ** 2)
    return low, high


def newcombe_paired_ci(a: object, b: object, c: object, d: object, *, alpha: float = 0.05
                       ) -> tuple[np.ndarray, np.ndarray]:
    """Newcombe's score interval (method 10) for p_1 − p_2 from a paired 2 × 2 table.

    Parameters
    ----------
    a, b, c, d : array_like
        Counts of examples: both solve (a), only system 1 (b), only system 2 (c),
        neither (d).
    alpha : float, keyword-only

    Returns
    -------
    (low, high) : ndarrays
        For θ = (b − c)/n; NaN where n = 0.

    Notes
    -----
    With Wilson limits (l_1, u_1) for p_1 = (a+b)/n, (l_2, u_2) for p_2 = (a+c)/n:
    L = θ − √((p_1−l_1)² − 2φ (p_1−l_1)(u_2−p_2) + (u_2−p_2)²),
    U = θ + √((u_1−p_1)² − 2φ (u_1−p_1)(p_2−l_2) + (p_2−l_2)²), where
    φ = (ad − bc − n/2)⁺ / √((a+b)(c+d)(a+c)(b+d)) when ad > bc, (ad − bc)/√(…)
    otherwise, and 0 when a margin is empty (Newcombe 1998b, method 10).

    References
    ----------
    Newcombe, R. G. (1998b). Improved confidence intervals for the difference
    between binomial proportions based on paired data. Stat Med 17:2635–2650.

    Examples
    --------
    >>> low, high = newcombe_paired_ci([36], [12], [2], [0])  # Newcombe 1998b, example (a)
    >>> [round(float(v), 4) for v in (low[0], high[0])]
    [0.0569, 0.3404]
    """
    a_, b_, c_, d_ = _arrays(a, b, c, d)
    for name, v in (("a", a_), ("b", b_), ("c", c_), ("d", d_)):
        _counts(name, v)
    n = a_ + b_ + c_ + d_
    l1, u1 = wilson_ci(a_ + b_, n, alpha=alpha)
    l2, u2 = wilson_ci(a_ + c_, n, alpha=alpha)
    with np.errstate(invalid="ignore", divide="ignore"):
        p1, p2 = (a_ + b_) / n, (a_ + c_) / n
        margins = (a_ + b_) * (c_ + d_) * (a_ + c_) * (b_ + d_)
        cross = a_ * d_ - b_ * c_
        num = np.where(cross > 0, np.maximum(cross - n / 2.0, 0.0), cross)
        phi = np.where(margins > 0, num / np.sqrt(np.where(margins > 0, margins, 1.0)), 0.0)
        theta = (b_ - c_) / n
    dl1, du1, dl2, du2 = p1 - l1, u1 - p1, p2 - l2, u2 - p2
    low = theta - np.sqrt(np.maximum(dl1**2 - 2 * phi * dl1 * du2 + du2**2, 0.0))
    high = theta + np.sqrt(np.maximum(du1**2 - 2 * phi * du1 * dl2 + dl2**2, 0.0))
    return low, high


class _TangoTerms:
    """The parts of Tango's score that do not depend on Δ₀, computed once per pair."""

    def __init__(self, b: np.ndarray, c: np.ndarray, n: np.ndarray) -> None:
        self.n, self.c = n, c
        self.qa = 2.0 * n
        self.sum_bc = -b - c
        self.slope = 2.0 * n - b + c
        self.b_minus_c = b - c

    def take(self, rows: np.ndarray) -> _TangoTerms:
        part = object.__new__(_TangoTerms)
        for name in ("n", "c", "qa", "sum_bc", "slope", "b_minus_c"):
            setattr(part, name, getattr(self, name)[rows])
        return part

    def score(self, delta: np.ndarray) -> np.ndarray:
        qb = self.sum_bc + self.slope * delta
        qc = -self.c * delta * (1.0 - delta)
        with np.errstate(invalid="ignore", divide="ignore"):
            q21 = (np.sqrt(np.maximum(qb * qb - 4.0 * self.qa * qc, 0.0)) - qb) / (2.0 * self.qa)
            var = self.n * (2.0 * q21 + delta * (1.0 - delta))
            diff = self.b_minus_c - self.n * delta
            score = np.where(var > 0, diff / np.sqrt(np.where(var > 0, var, 1.0)),
                             np.sign(diff) * np.inf)
        return np.asarray(score, dtype=float)


def _crossing(terms: _TangoTerms, target: float, lo: np.ndarray, hi: np.ndarray,
              guess: np.ndarray) -> np.ndarray:
    """Where the decreasing score falls through ``target`` in [lo, hi], for every pair.

    From ``guess`` on, regula falsi with the Illinois modification, safeguarded by
    bisection (when the false-position point is unusable, or the bracket did not
    halve in two steps), until lo and hi are a few ulps or 2^-59 apart: the limit a
    bisection of [-1, 1] reaches in 60 halvings (to a few units in the last place),
    in about ten score evaluations instead of sixty. Near the limit the
    false-position point is kept a few ulps inside the bracket, so that an end
    already at the limit does not leave the other to crawl (the known stall of
    regula falsi).
    """
    out = np.empty(len(lo))
    idx = np.arange(len(lo))  # the pairs still being solved, and their state below
    left, right = lo.copy(), hi.copy()
    f_left, f_right = terms.score(left) - target, terms.score(right) - target
    last = np.zeros(len(left), dtype=np.int8)  # which end moved last: 1 = lo, -1 = hi
    width_1 = np.full(len(left), np.inf)  # the bracket one and two steps ago
    width_2 = np.full(len(left), np.inf)
    part = terms
    for step in range(_MAX_CROSSING_STEPS):
        nudge = np.maximum(4.0 * np.spacing(np.maximum(np.abs(left), np.abs(right))), _CROSSING_WIDTH)
        done = right - left <= nudge
        if done.sum() * 4 >= len(idx):  # write out the finished pairs once they are many
            out[idx[done]] = (left[done] + right[done]) / 2.0
            keep = ~done
            idx, left, right, f_left, f_right, last, width_1, width_2, nudge = (
                v[keep] for v in (idx, left, right, f_left, f_right, last, width_1, width_2, nudge))
            if not len(idx):
                return out
            part = part.take(keep)
        if step == 0:
            point = guess[idx]
            usable = right - left > 4.0 * nudge
        else:
            usable = np.isfinite(f_left) & np.isfinite(f_right) & (f_left > 0) & (f_right <= 0) & \
                (right - left > 4.0 * nudge) & (right - left <= 0.5 * width_2)
            with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
                point = left + f_left * (right - left) / (f_left - f_right)
        # a point at least a few ulps inside: next to an end that is already at the limit
        # (its score equal to the target up to rounding) it tests the other side of it
        point = np.where(usable, np.clip(point, left + nudge, right - nudge), (left + right) / 2.0)
        value = part.score(point) - target
        above = value > 0  # as the bisection: the score still above target moves lo up
        width_2, width_1 = width_1, right - left
        # Illinois: an end kept twice in a row has its value halved, so it moves next time
        f_left = np.where(above, value, np.where(last == -1, f_left / 2.0, f_left))
        f_right = np.where(above, np.where(last == 1, f_right / 2.0, f_right), value)
        # the score equals the target at a float: that is the limit
        left = np.where(above | (value == 0), point, left)
        right = np.where(above, right, point)
        last = np.where(above, 1, -1).astype(np.int8)
    out[idx] = (left + right) / 2.0
    return out


def _unique_tables(b: np.ndarray, c: np.ndarray, n: np.ndarray
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The distinct (b, c, n) of integer counts and the index of each pair's one: at
    1,000 systems the 500k pairs of a benchmark repeat a few thousand tables."""
    top = float(n.max(initial=0.0)) + 1.0
    if not b.size or top ** 3 >= 2.0 ** 62 or not (np.all(b == np.rint(b)) and
                                                    np.all(c == np.rint(c)) and
                                                    np.all(n == np.rint(n))):
        return b, c, n, np.arange(len(b))
    k = int(top)
    key = (n.astype(np.int64) * k + b.astype(np.int64)) * k + c.astype(np.int64)
    distinct, index = np.unique(key, return_inverse=True)
    n_u, rest = np.divmod(distinct, k * k)
    b_u, c_u = np.divmod(rest, k)
    return b_u.astype(float), c_u.astype(float), n_u.astype(float), index.reshape(-1)


def paired_binary_ci(b: object, c: object, n: object, *, alpha: float = 0.05
                     ) -> tuple[np.ndarray, np.ndarray]:
    """Tango's score interval for the difference of paired proportions, from b, c and n.

    Parameters
    ----------
    b, c : array_like
        Discordant examples: only system 1 solves (b), only system 2 solves (c).
    n : array_like
        Examples the pair shares.
    alpha : float, keyword-only

    Returns
    -------
    (low, high) : ndarrays
        For Δ = (b − c)/n = p_1 − p_2; NaN where n = 0.

    Notes
    -----
    The limits are the Δ₀ where |T(Δ₀)| = z_{1−α/2}, with
    T(Δ₀) = (b − c − nΔ₀) / √(n (2 q̃ + Δ₀ (1 − Δ₀))) and q̃ the restricted
    maximum-likelihood estimate of P(only system 2) under Δ = Δ₀, the positive
    root of 2n q² + (−b − c + (2n − b + c)Δ₀) q − c Δ₀ (1 − Δ₀) = 0. T(0) is
    McNemar's z. The roots are found on all pairs at once (regula falsi safeguarded
    by bisection), once per distinct (b, c, n). Needs
    only the discordant counts, so it fits the pairwise table's wins_a / wins_b.

    References
    ----------
    Tango, T. (1998). Equivalence test and confidence interval for the difference
    in proportions for the paired-sample design. Stat Med 17:891–908.
    Newcombe (1998b) compares it with method 10 (:func:`newcombe_paired_ci`).

    Examples
    --------
    >>> low, high = paired_binary_ci([0], [0], [54])
    >>> [round(float(v), 4) for v in (low[0], high[0])]
    [-0.0664, 0.0664]
    """
    z = _z(alpha)
    b_, c_, n_ = _arrays(b, c, n)
    for name, v in (("b", b_), ("c", c_), ("n", n_)):
        _counts(name, v)
    if (b_ + c_ > n_).any():
        raise ValueError("b, c: discordant counts b + c must not exceed n; got "
                         f"b + c − n up to {np.nanmax(b_ + c_ - n_):g}")
    b_u, c_u, n_u, index = _unique_tables(b_, c_, n_)
    low, high = np.empty(len(b_u)), np.empty(len(b_u))
    for part in range(0, len(b_u), _TANGO_TABLES):  # a bounded working set (peak memory)
        rows = slice(part, part + _TANGO_TABLES)
        low[rows], high[rows] = _tango_limits(b_u[rows], c_u[rows], n_u[rows], z)
    return low[index], high[index]


#: Distinct tables solved together: ~25 arrays of this many floats live at once (26 MB);
#: at 1,000 systems all 500k pairs at once held 140 MB more at the leaderboard's peak.
_TANGO_TABLES = 1 << 17


def _tango_limits(b_u: np.ndarray, c_u: np.ndarray, n_u: np.ndarray, z: float
                  ) -> tuple[np.ndarray, np.ndarray]:
    """:func:`paired_binary_ci`'s limits of distinct tables (b, c, n), solved together."""
    terms = _TangoTerms(b_u, c_u, n_u)
    with np.errstate(invalid="ignore", divide="ignore"):
        est = np.where(n_u > 0, (b_u - c_u) / np.where(n_u > 0, n_u, 1.0), 0.0)
        # first guess: the Wald limit est ∓ z·se (at least 1/n from the estimate)
        spread = np.sqrt(np.maximum((b_u + c_u) / n_u - est * est, 0.0) / n_u)
        spread = np.maximum(spread, 1.0 / n_u)
    limits = []
    for target, edge in ((z, -1.0), (-z, 1.0)):
        # the limit lies between the estimate and the edge; T − target changes sign there
        limit = _crossing(terms, target, np.minimum(est, edge), np.maximum(est, edge),
                          est - target * spread)
        reached = terms.score(np.full_like(est, edge))
        edge_inside = reached <= target if edge < 0 else reached >= target
        limits.append(np.where(n_u > 0, np.where(edge_inside, edge, limit), np.nan))
    return limits[0], limits[1]


def agree_with_test(low: object, high: object, pvalue: object, *, alpha: float = 0.05
                    ) -> tuple[np.ndarray, np.ndarray]:
    """The interval made to agree at 0 with the two-sided test reported beside it.

    Parameters
    ----------
    low, high : array_like
        An interval at 1 − alpha per pair (e.g. Tango's, which inverts the asymptotic
        score test).
    pvalue : array_like
        The raw two-sided p-value of the test reported for the pair (e.g. exact or
        mid-p McNemar).
    alpha : float, keyword-only

    Returns
    -------
    (low, high) : ndarrays
        The set of differences not rejected by the reported test at Δ = 0 and by the
        interval's own test elsewhere, as one interval: where p ≥ alpha but the
        interval excludes 0, its end nearer 0 moves to 0 (wider, so coverage can only
        rise); where p < alpha but the interval holds 0, its end nearer 0 moves just
        past 0, to the next float on the estimate's side (the open end of the set).
        So "interval excludes 0" ⇔ "p < alpha" for every pair.

    Notes
    -----
    With exact McNemar the second case never happens: at alpha 0.1, 0.05 and 0.01 and
    up to 2,000 discordant examples the exact test never rejects where McNemar's z
    (Tango's statistic at Δ = 0) does not (enumerated); with mid-p McNemar it happens
    on a few tables at alpha = 0.001.

    Examples
    --------
    >>> low, high = agree_with_test([-0.256], [-0.012], [0.0703])  # b = 1, c = 7, n = 48
    >>> [round(float(v), 3) for v in (low[0], high[0])]
    [-0.256, 0.0]
    """
    _alpha(alpha)
    lo, hi, p = _arrays(low, high, pvalue)
    lo, hi = lo.copy(), hi.copy()
    excludes = (lo > 0) | (hi < 0)
    keep = (p >= alpha) & excludes  # not significant: the interval must hold 0
    lo = np.where(keep & (lo > 0), 0.0, lo)
    hi = np.where(keep & (hi < 0), 0.0, hi)
    holds = (lo <= 0) & (hi >= 0)
    move = (p < alpha) & holds & np.isfinite(lo) & np.isfinite(hi)
    centre = (lo + hi) / 2.0  # the estimate's side: the interval's larger part
    tiny = np.nextafter(0.0, 1.0)
    lo = np.where(move & (centre > 0), tiny, lo)
    hi = np.where(move & (centre <= 0), -tiny, hi)
    return lo, hi
