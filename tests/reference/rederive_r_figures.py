"""Re-derive, with scipy and statsmodels, the reference figures the engine's tests took from R.

R is not installed where this repository is tested, so the R scripts in ``r/`` (the
computations as they were run) cannot be re-run here; this script recomputes each figure
with independent Python code (no import from ``engine``) and prints it beside the value the
test pins. It exits 1 if any figure differs by more than the test's own tolerance.

Run: ``.venv/bin/python tests/reference/rederive_r_figures.py`` (a few seconds). The figures
and the tests that pin them are listed in tests/reference/README.md.
"""

from __future__ import annotations

import sys

import numpy as np
import scipy
import statsmodels
import statsmodels.api as sm
from scipy import optimize, stats

FAILED: list[str] = []


def check(name: str, got: object, want: object, atol: float) -> None:
    """Print one figure against the pinned one; remember a difference beyond ``atol``."""
    g, w = np.asarray(got, dtype=float), np.asarray(want, dtype=float)
    ok = g.shape == w.shape and bool(np.allclose(g, w, rtol=0.0, atol=atol))
    print(f"{'ok  ' if ok else 'FAIL'} {name}: {np.round(g, 10).tolist()} (pinned {w.tolist()})")
    if not ok:
        FAILED.append(name)


# ------------------------------------------------------------------ ICRanks, Tukey's method
# tests/engine/ranking/test_rank_intervals.py; r/ic_ranks_tukey.R


def tukey_rank_intervals(y: list[float], sigma: list[float], c: float) -> tuple[list[int], list[int]]:
    """Al Mohamad, van Zwet & Goeman (2022): ranks ascending; i's lower rank is 1 + the
    number of j significantly below it, its upper rank n − the number significantly above."""
    ya, sa = np.asarray(y), np.asarray(sigma)
    t = (ya[:, None] - ya[None, :]) / np.sqrt(sa[:, None] ** 2 + sa[None, :] ** 2)
    below = (t > c).sum(axis=1)
    above = (t < -c).sum(axis=1)
    return (1 + below).tolist(), (len(ya) - above).tolist()


def icranks() -> None:
    y = [0.82, 2.31, 2.64, 4.37, 4.96]
    c5 = stats.studentized_range.ppf(0.95, 5, np.inf) / np.sqrt(2)
    check("qtukey(0.95, 5, Inf)/sqrt(2)", c5, 2.727774383, 1e-7)
    check("ic.ranks Tukey, sigma 0.5: Lower, Upper", tukey_rank_intervals(y, [0.5] * 5, c5),
          ([1, 1, 1, 3, 4], [3, 3, 4, 5, 5]), 0)
    # unequal sigma: R's Monte Carlo critical value; the nearest |T_ij| are 2.22 and 3.39, so
    # the intervals are those of any value in between
    check("ic.ranks Tukey, unequal sigma (c = 2.710584794): Lower, Upper",
          tukey_rank_intervals(y, [0.3, 0.6, 0.4, 0.8, 0.5], 2.710584794),
          ([1, 1, 2, 2, 4], [2, 4, 4, 5, 5]), 0)
    y3 = [-1.9, -0.4, 0.3, 0.9, 1.0, 2.2, 3.1, 4.8, 5.0, 7.4]
    c10 = stats.studentized_range.ppf(0.8, 10, np.inf) / np.sqrt(2)
    check("qtukey(0.8, 10, Inf)/sqrt(2)", c10, 2.637706411, 1e-7)
    check("ic.ranks Tukey, ten centres, alpha 0.2: Lower, Upper",
          tukey_rank_intervals(y3, [1.0] * 10, c10),
          ([1, 1, 1, 1, 1, 2, 2, 6, 6, 8], [5, 7, 7, 7, 7, 9, 9, 10, 10, 10]), 0)


# ------------------------------------------------------------------ Bradley–Terry glm
# tests/engine/ranking/test_bt_convergence.py::test_agresti_baseball_table_10_11; r/bt_baseball_glm.R

# (home, away, home wins, away wins), teams Milwaukee, Detroit, Toronto, New York, Boston,
# Cleveland, Baltimore: BradleyTerry2's data/baseball.RData as the test copies it
BASEBALL = [
    (0, 1, 4, 3), (0, 2, 4, 2), (0, 3, 4, 3), (0, 4, 6, 1), (0, 5, 4, 2), (0, 6, 6, 0),
    (1, 0, 3, 3), (1, 2, 4, 2), (1, 3, 4, 3), (1, 4, 6, 0), (1, 5, 6, 1), (1, 6, 4, 3),
    (2, 0, 2, 5), (2, 1, 4, 3), (2, 3, 2, 4), (2, 4, 4, 3), (2, 5, 4, 2), (2, 6, 6, 0),
    (3, 0, 3, 3), (3, 1, 5, 1), (3, 2, 2, 5), (3, 4, 4, 3), (3, 5, 4, 2), (3, 6, 6, 1),
    (4, 0, 5, 1), (4, 1, 2, 5), (4, 2, 3, 3), (4, 3, 4, 2), (4, 5, 5, 2), (4, 6, 6, 0),
    (5, 0, 2, 5), (5, 1, 3, 3), (5, 2, 3, 4), (5, 3, 4, 3), (5, 4, 4, 2), (5, 6, 2, 4),
    (6, 0, 2, 5), (6, 1, 1, 5), (6, 2, 1, 6), (6, 3, 2, 4), (6, 4, 1, 6), (6, 5, 3, 4),
]


def baseball_glm() -> None:
    x = np.zeros((len(BASEBALL), 7))
    wins = np.array([[hw, aw] for _, _, hw, aw in BASEBALL], dtype=float)
    for i, (home, away, _, _) in enumerate(BASEBALL):
        x[i, home], x[i, away] = 1.0, -1.0
    fit = sm.GLM(wins, x[:, :6], family=sm.families.Binomial()).fit(tol=1e-14)  # Baltimore = 0
    check("glm(cbind(home.wins, away.wins) ~ X[, -1] - 1, binomial)", fit.params,
          [1.5813558767, 1.4364084318, 1.2944851239, 1.2476178451, 1.1076977054, 0.6838527692],
          1e-8)


# ------------------------------------------------------------------ Tango's score interval
# tests/engine/stats/test_intervals.py::test_tango_matches_propcis; r/propcis_tango.R


def tango_z(b: int, c: int, n: int, delta: float) -> float:
    """Tango (1998), eq. 3: the score statistic of H0: (b − c)/n = delta, with the
    restricted maximum-likelihood estimate of the discordant cell c's probability."""
    a_ = 2.0 * n
    b_ = -b - c + (2.0 * n - b + c) * delta
    c_ = -c * delta * (1.0 - delta)
    q21 = (np.sqrt(max(b_ * b_ - 4.0 * a_ * c_, 0.0)) - b_) / (2.0 * a_)
    var = n * (2.0 * q21 + delta * (1.0 - delta))
    return float((b - c - n * delta) / np.sqrt(var)) if var > 0 else float(np.sign(b - c - n * delta))


def tango_ci(b: int, c: int, n: int, level: float = 0.95) -> tuple[float, float]:
    """{delta : |Z(delta)| <= z}: Z falls as delta grows, so each end is one root (or ±1)."""
    z = stats.norm.ppf(1 - (1 - level) / 2)
    est, edge = (b - c) / n, 1.0 - 1e-13
    low = -1.0 if tango_z(b, c, n, -edge) <= z else optimize.brentq(
        lambda d: tango_z(b, c, n, d) - z, -edge, est, xtol=1e-13)
    high = 1.0 if tango_z(b, c, n, edge) >= -z else optimize.brentq(
        lambda d: tango_z(b, c, n, d) + z, est, edge, xtol=1e-13)
    return low, high


def tango() -> None:
    cases = [((12, 2, 50), (0.0611124, 0.3447088)), ((0, 0, 54), (-0.0664136, 0.0664136)),
             ((30, 0, 30), (0.7729732, 1.0)), ((1, 7, 40), (-0.3011269, -0.0143595)),
             ((0, 0, 1), (-0.7934507, 0.7934508)), ((1, 0, 1), (-0.5869014, 1.0)),
             ((5, 3, 20), (-0.1878980, 0.3723408))]
    for (b, c, n), want in cases:
        # PropCIs' bisection stops at a step of 1e-7: the test's tolerance is 2e-7
        check(f"PropCIs scoreci.mp, b={b} c={c} n={n}", tango_ci(b, c, n), want, 2e-7)


# ------------------------------------------------------------------ base R and multtest
# tests/engine/stats/test_pairwise.py, tests/engine/stats/test_equivalence.py;
# r/sleep_and_proportions.R

SLEEP_1 = [0.7, -1.6, -0.2, -1.2, -0.1, 3.4, 3.7, 0.8, 0.0, 2.0]
SLEEP_2 = [1.9, 0.8, 1.1, 0.1, -0.1, 4.4, 5.5, 1.6, 4.6, 3.4]


def sleep_and_proportions() -> None:
    welch = stats.ttest_ind(SLEEP_1, SLEEP_2, equal_var=False)
    check("t.test(extra ~ group, sleep): t, df, p",
          [welch.statistic, welch.df, welch.pvalue], [-1.8608, 17.776, 0.07939],
          5e-4)  # R prints 5 significant digits; df has the widest rounding step
    paired = stats.ttest_rel(SLEEP_1, SLEEP_2)
    check("t.test(..., paired = TRUE): t, p", [paired.statistic, paired.pvalue],
          [-4.0621, 0.002833], 5e-5)
    x2, p, _, _ = stats.chi2_contingency([[73, 13], [90, 3]], correction=False)
    check("prop.test(c(73, 90), c(86, 93), correct = FALSE): X-squared, p", [x2, p],
          [7.7611, 0.005338], 5e-5)
    # step-down Šidák: the i-th smallest p becomes max over j ≤ i of 1 − (1 − p_(j))^(m − j + 1)
    pv = np.array([.001, .002, .003, .004, .005, .05, .06, .07, .08, .09])
    m = len(pv)
    adj = np.maximum.accumulate(1 - (1 - np.sort(pv)) ** (m - np.arange(m)))
    check("multtest::mt.rawp2adjp(p, 'SidakSD')", adj,
          [0.0099551, 0.0178567, 0.0237495, 0.0276662, 0.0296275] + [0.2262191] * 5, 5e-8)


def main() -> int:
    print(f"Python {sys.version.split()[0]}, numpy {np.__version__}, scipy {scipy.__version__}, "
          f"statsmodels {statsmodels.__version__}")
    icranks()
    baseball_glm()
    tango()
    sleep_and_proportions()
    if FAILED:
        print(f"{len(FAILED)} figure(s) differ: {', '.join(FAILED)}")
        return 1
    print("every figure re-derived within the test's tolerance")
    return 0


if __name__ == "__main__":
    sys.exit(main())
