"""Benchmark health: how noisy a benchmark is and which of its examples look broken.

The definitions follow eval-arena (Wang et al. 2024, ``seeds/003``); every
quantity is computed with matrix operations over the systems × examples
matrix, never with a Python loop over pairs or examples.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from ._kernels import exact_sign_pvalues, win_matrix
from ._matrix import ScoreMatrix

__all__ = ["HealthReport", "benchmark_health", "kendall_tau_b_binary"]


def kendall_tau_b_binary(solved: np.ndarray, quality: np.ndarray) -> np.ndarray:
    """Kendall's tau-b between each column of a 0/1 matrix and one fixed vector.

    Parameters
    ----------
    solved : ndarray of {0, 1}, shape (n_systems, n_examples)
    quality : ndarray, shape (n_systems,)

    Returns
    -------
    ndarray, shape (n_examples,)
        ``scipy.stats.kendalltau(solved[:, e], quality).statistic`` for every
        ``e``; NaN where tau-b is undefined (constant column or constant quality).

    Notes
    -----
    With ``x`` binary, concordant minus discordant pairs is
    ``S = Σ_{i solved, j unsolved} sign(q_i − q_j) = xᵀ M (1 − x)`` with
    ``M_ij = sign(q_i − q_j)``, so all columns cost one matrix product.
    ``tau_b = S / sqrt((n0 − n1)(n0 − n2))`` with ``n0 = n(n−1)/2``,
    ``n1 = C(k, 2) + C(n − k, 2)`` (ties in ``x``, ``k`` solvers) and
    ``n2 = Σ_t t(t−1)/2`` over tie groups of ``quality`` (Kendall 1945).

    Examples
    --------
    >>> solved = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
    >>> kendall_tau_b_binary(solved, np.array([0.9, 0.5, 0.1])).round(4).tolist()
    [0.8165, -0.8165]
    """
    x = np.asarray(solved, dtype=float)
    q = np.asarray(quality, dtype=float)
    n = x.shape[0]
    sign = np.sign(q[:, None] - q[None, :])
    s = np.einsum("ie,ie->e", x, sign @ (1.0 - x))
    k = x.sum(axis=0)
    n0 = n * (n - 1) / 2.0
    n1 = k * (k - 1) / 2.0 + (n - k) * (n - k - 1) / 2.0
    _, counts = np.unique(q, return_counts=True)
    n2 = float((counts * (counts - 1) / 2.0).sum())
    denom = (n0 - n1) * (n0 - n2)
    with np.errstate(invalid="ignore", divide="ignore"):
        tau: np.ndarray = np.where(denom > 0, s / np.sqrt(np.where(denom > 0, denom, 1.0)), np.nan)
    return tau


@dataclass(frozen=True, eq=False)
class HealthReport:
    """Result of :func:`benchmark_health`; ``to_dict()`` is the ``health`` JSON object.

    Attributes
    ----------
    benchmark, metric : str
    alpha, power, threshold : float
    bins : int
        Parameters the report was computed with.
    rating_source : {"mean", "given"}
        Whether ratings are the systems' means or a mapping passed in.
    size : int
        Examples used (those every system scored); ``n_dropped`` were left out.
    systems : tuple of str
    p5_min, p5_max : float
        Smallest significant / largest non-significant gap, as fractions of ``size``.
    no_solve : tuple of str
    tau_neg : int
    sd_diff, se_diff, corr, mdd : float
        Typical (median over pairs) SD and SE of paired differences, typical
        Pearson correlation between systems, minimum detectable difference.
    system_table : DataFrame
        ``system, mean, se, rating, n_solved``.
    pairs : DataFrame
        Every ordered pair: ``system_a, system_b, wins_a, wins_b, gap, pvalue,
        corr, sd_diff, se_diff``.
    example_table : DataFrame
        ``example_id, mean, n_solved, tau, min_rating``.
    solved_by_one : DataFrame
        ``example_id, system, rating``, by descending rating.
    suspects : DataFrame
        ``example_id, tau`` for examples with tau < 0, by ascending tau.
    difficulty : DataFrame
        Histogram of per-example mean score: ``bin_low, bin_high, count``.
    """

    benchmark: str
    metric: str
    alpha: float
    power: float
    threshold: float
    bins: int
    rating_source: str
    size: int
    n_dropped: int
    systems: tuple[str, ...]
    p5_min: float
    p5_max: float
    no_solve: tuple[str, ...]
    tau_neg: int
    sd_diff: float
    se_diff: float
    corr: float
    mdd: float
    system_table: pd.DataFrame
    pairs: pd.DataFrame
    example_table: pd.DataFrame
    solved_by_one: pd.DataFrame
    suspects: pd.DataFrame
    difficulty: pd.DataFrame

    def to_dict(self) -> dict[str, Any]:
        """The JSON object of ``python -m engine health`` (SPEC keys first, then extras)."""
        se = self.system_table["se"].to_numpy(float)
        has_se = se[np.isfinite(se)]
        return {
            "benchmark": self.benchmark,
            "metric": self.metric,
            "size": self.size,
            "systems": len(self.systems),
            "p5_min": self.p5_min,
            "p5_max": self.p5_max,
            "no_solve": list(self.no_solve),
            "solved_by_one": _records(self.solved_by_one),
            "tau_neg": self.tau_neg,
            "suspects": _records(self.suspects),
            "alpha": self.alpha,
            "power": self.power,
            "threshold": self.threshold,
            "bins": self.bins,
            "rating": self.rating_source,
            "n_dropped": self.n_dropped,
            "se_system": {
                "min": float(has_se.min()) if has_se.size else float("nan"),
                "median": float(np.median(has_se)) if has_se.size else float("nan"),
                "max": float(has_se.max()) if has_se.size else float("nan"),
            },
            "sd_diff": self.sd_diff,
            "se_diff": self.se_diff,
            "corr": self.corr,
            "mdd": self.mdd,
            "system_stats": _records(self.system_table),
            "difficulty": _records(self.difficulty),
            "examples": _records(self.example_table),
        }


def _records(frame: pd.DataFrame) -> list[dict[str, Any]]:
    return [{str(k): v for k, v in row.items()} for row in frame.to_dict(orient="records")]


def _ratings(matrix: ScoreMatrix, means: np.ndarray,
             ratings: Mapping[str, float] | None) -> tuple[np.ndarray, str]:
    if ratings is None:
        return means, "mean"
    missing = [s for s in matrix.systems if s not in ratings]
    if missing:
        raise ValueError(f"ratings: no rating for system(s) {missing[:10]!r}; "
                         "give one for every system or omit ratings to use the means")
    return np.array([float(ratings[s]) for s in matrix.systems]), "given"


def _scores(matrix: ScoreMatrix) -> np.ndarray:
    if matrix.n_common == 0:
        raise ValueError(f"benchmark {matrix.benchmark!r}, metric {matrix.metric!r}: no example "
                         "is scored by every system; health needs paired results "
                         "(restrict the systems or fill the missing results)")
    x = matrix.oriented(paired=True).astype(float)
    if x.min() < 0.0 or x.max() > 1.0:
        raise ValueError(f"benchmark {matrix.benchmark!r}, metric {matrix.metric!r}: scores "
                         f"range over [{x.min():.4g}, {x.max():.4g}]; health needs scores in "
                         "[0, 1] such as pass rates (rescale the metric)")
    return x


def benchmark_health(
    matrix: ScoreMatrix,
    *,
    alpha: float = 0.05,
    power: float = 0.8,
    threshold: float = 0.5,
    ratings: Mapping[str, float] | None = None,
    bins: int = 10,
) -> HealthReport:
    """Noise level and example diagnostics of one benchmark and metric (eval-arena).

    Parameters
    ----------
    matrix : ScoreMatrix
        Scores in [0, 1] (pass rates; fractional scores allowed), oriented so
        that larger is better. Only examples scored by every system are used.
    alpha : float
        Significance level of the sign tests (``p5_min``/``p5_max``) and of the MDD.
    power : float
        Power of the minimum detectable difference.
    threshold : float
        A system *wins* an example battle when its score is > ``threshold``
        and the opponent's is ≤ ``threshold`` (eval-arena thresholds at 0.5).
    ratings : mapping of str to float, optional
        Rating of each system for ``solved_by_one`` and ``min_rating``. Defaults
        to the system's mean score (accuracy); eval-arena uses an Elo-like
        rating instead.
    bins : int
        Number of equal-width bins on [0, 1] of the difficulty histogram.

    Returns
    -------
    HealthReport
        See its attributes for the output columns.

    Notes
    -----
    Let ``X`` (S × n) hold the scores and ``A = [X > threshold]``.

    * Battles: ``W = A (1 − A)ᵀ``; ``W_ab`` is how often A wins against B. The
      p-value of a pair is the exact two-sided sign test on ``(W_ab, W_ba)``;
      ``gap = |W_ab − W_ba| / n``. ``p5_min`` = min gap over pairs with
      ``p < alpha``, ``p5_max`` = max gap over pairs with ``p > alpha`` (NaN
      when there is no such pair).
    * Solved: score > 0. ``no_solve``: no system solves it; ``solved_by_one``:
      exactly one does. ``min_rating``: lowest rating among the solvers.
    * ``tau``: Kendall's tau-b (scipy's default) between the solved indicator
      across systems and the systems' mean scores; ``tau_neg`` counts tau < 0
      (undefined tau is not counted). eval-arena's current code correlates
      the raw score instead; both agree on binary data.
    * SE of a mean: ``s / √n`` (sample SD, ddof = 1, as ``scipy.stats.sem``;
      eval-arena uses ddof = 0). Pairs: ``sd_diff = SD(x_a − x_b)`` from the
      covariance matrix, ``se_diff = sd_diff / √n``, Pearson ``corr``. The
      report's ``sd_diff``, ``se_diff``, ``corr`` are medians over unordered pairs.
    * Minimum detectable difference (paired z approximation):
      ``MDD = (z_{1−α/2} + z_{power}) · sd_diff / √n``.

    References
    ----------
    Wang, S. I., Gu, A., et al. (2024). Eval-Arena: noise and errors by
    leaderboard showdowns. https://github.com/crux-eval/eval-arena
    Kendall, M. G. (1945). The treatment of ties in ranking problems.
    Biometrika 33(3), 239–251.

    Examples
    --------
    >>> import pandas as pd
    >>> from engine._matrix import build_matrix
    >>> df = pd.DataFrame({"benchmark": "b", "metric": "pass1",
    ...     "system": ["s1"] * 3 + ["s2"] * 3, "example_id": ["e1", "e2", "e3"] * 2,
    ...     "value": [1.0, 1.0, 0.0, 1.0, 0.0, 0.0]})
    >>> report = benchmark_health(build_matrix(df))
    >>> report.size, report.no_solve, report.solved_by_one["example_id"].tolist()
    (3, ('e3',), ['e2'])
    """
    if not 0.0 < alpha < 1.0 or not 0.0 < power < 1.0:
        raise ValueError("alpha and power must lie strictly between 0 and 1")
    x = _scores(matrix)
    n_sys, n = x.shape
    systems = np.array(matrix.systems, dtype=object)
    examples = np.array(matrix.examples, dtype=object)[matrix.common]
    means = x.mean(axis=1)
    rating, source = _ratings(matrix, means, ratings)

    # Example battles and sign tests, all pairs at once.
    # (the exact sign test is the pairwise engine's exact McNemar kernel)
    won = (x > threshold).astype(float)
    wins = win_matrix(won, binary=True)
    pvalue = exact_sign_pvalues(wins, wins.T, "two-sided")
    gap = np.abs(wins - wins.T) / n
    off = ~np.eye(n_sys, dtype=bool)
    sig, nonsig = off & (pvalue < alpha), off & (pvalue > alpha)
    p5_min = float(gap[sig].min()) if sig.any() else float("nan")
    p5_max = float(gap[nonsig].max()) if nonsig.any() else float("nan")

    # Standard errors and correlations from the covariance matrix.
    with np.errstate(invalid="ignore", divide="ignore"):
        cov = np.atleast_2d(np.cov(x, ddof=1)) if n > 1 else np.full((n_sys, n_sys), np.nan)
        var = np.diag(cov)
        se = np.sqrt(var / n)
        sd_pair = np.sqrt(np.clip(var[:, None] + var[None, :] - 2.0 * cov, 0.0, None))
        corr = cov / np.sqrt(var[:, None] * var[None, :])
    upper = np.triu(np.ones((n_sys, n_sys), dtype=bool), k=1)
    sd_diff = _nanmedian(sd_pair[upper])
    z = stats.norm.ppf(1.0 - alpha / 2.0) + stats.norm.ppf(power)
    mdd = float(z * sd_diff / np.sqrt(n))

    # Example diagnostics.
    solved = x > 0.0
    n_solved = solved.sum(axis=0)
    tau = kendall_tau_b_binary(solved, means)
    min_rating = np.where(solved, rating[:, None], np.inf).min(axis=0)
    min_rating = np.where(n_solved > 0, min_rating, np.nan)
    ex_mean = x.mean(axis=0)
    example_table = pd.DataFrame({"example_id": examples, "mean": ex_mean,
                                  "n_solved": n_solved, "tau": tau, "min_rating": min_rating})
    one = n_solved == 1
    solver = solved[:, one].argmax(axis=0)
    solved_by_one = pd.DataFrame({"example_id": examples[one], "system": systems[solver],
                                  "rating": rating[solver]})
    solved_by_one = solved_by_one.sort_values(["rating", "example_id"], ascending=[False, True],
                                              kind="stable", ignore_index=True)
    neg = tau < 0
    suspects = (pd.DataFrame({"example_id": examples[neg], "tau": tau[neg]})
                .sort_values("tau", kind="stable", ignore_index=True))
    counts, edges = np.histogram(ex_mean, bins=bins, range=(0.0, 1.0))
    difficulty = pd.DataFrame({"bin_low": edges[:-1], "bin_high": edges[1:], "count": counts})

    ia, ib = np.nonzero(off)
    pairs = pd.DataFrame({
        "system_a": systems[ia], "system_b": systems[ib],
        "wins_a": wins[ia, ib].astype(int), "wins_b": wins[ib, ia].astype(int),
        "gap": gap[ia, ib], "pvalue": pvalue[ia, ib], "corr": corr[ia, ib],
        "sd_diff": sd_pair[ia, ib], "se_diff": sd_pair[ia, ib] / np.sqrt(n),
    })
    system_table = pd.DataFrame({"system": systems, "mean": means, "se": se, "rating": rating,
                                 "n_solved": solved.sum(axis=1)})
    return HealthReport(
        benchmark=matrix.benchmark, metric=matrix.metric, alpha=alpha, power=power,
        threshold=threshold, bins=bins, rating_source=source, size=n,
        n_dropped=matrix.n_examples - n, systems=matrix.systems,
        p5_min=p5_min, p5_max=p5_max, no_solve=tuple(examples[n_solved == 0]),
        tau_neg=int(neg.sum()), sd_diff=sd_diff, se_diff=float(sd_diff / np.sqrt(n)),
        corr=_nanmedian(corr[upper]), mdd=mdd, system_table=system_table, pairs=pairs,
        example_table=example_table, solved_by_one=solved_by_one, suspects=suspects,
        difficulty=difficulty)


def _nanmedian(values: np.ndarray) -> float:
    finite = values[np.isfinite(values)]
    return float(np.median(finite)) if finite.size else float("nan")
