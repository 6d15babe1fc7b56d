"""Benchmark health: how noisy a benchmark is and which of its examples look broken.

Binary metrics follow eval-arena (Wang et al. 2024, *Eval-Arena: noise and errors by
leaderboard showdowns*, https://github.com/crux-eval/eval-arena) exactly: sign
tests on example battles, gaps as fractions of the examples, "solved" = score 1.
Numeric metrics are tested with paired t-tests in the metric's own units, and
"solved" exists only where a threshold is declared. Every quantity is computed
with matrix operations over the systems × examples matrix, never with a Python
loop over pairs or examples.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from .._matrix import ScoreMatrix
from .._options import TestOptions, resolve
from .._units import zero_one
from ..stats._clusters import ClusterDesign, clustered_pairs, clustered_se
from ..stats._kernels import exact_sign_pvalues, paired_t, win_matrix

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
    """Result of :func:`benchmark_health` (``sigboard health``'s JSON is built from its fields).

    Attributes
    ----------
    benchmark, metric : str
    alpha, power : float
    threshold : float or None
        The declared "solved" threshold of a numeric metric (None: binary metric,
        solved = 1, or numeric metric without a threshold).
    bins : int
        Parameters the report was computed with.
    rating_source : {"mean", "given"}
        Whether ratings are the systems' means or a mapping passed in.
    size : int
        Examples used (those every system scored); ``n_dropped`` were left out.
    systems : tuple of str
    noise_test : {"sign", "paired-t"}
        Test behind ``p5_min``/``p5_max``: exact sign test on example battles
        (binary metrics) or paired t-test on each pair's differences (numeric).
    units : str
        What ``p5_min``/``p5_max``/``gap`` are measured in.
    p5_min, p5_max : float
        Smallest significant / largest non-significant gap between two systems,
        in ``units`` (NaN when no pair qualifies).
    solved_defined : bool
        False for a numeric metric without a threshold: ``no_solve``,
        ``solved_by_one``, ``suspects`` are then empty, ``tau_neg`` is None and the
        ``n_solved``/``tau``/``min_rating`` columns are NaN (see ``notes``).
    solved_rule : str or None
        What "solved" means here, e.g. ``"score = 1"`` or ``"score ≥ 0.4"``.
    no_solve : tuple of str
    tau_neg : int or None
    sd_diff, se_diff, corr, mdd : float
        Typical (median over pairs) SD and SE of paired differences, typical
        Pearson correlation between systems, minimum detectable difference
        (metric units; fractions of examples for binary metrics).
    system_table : DataFrame
        ``system, mean, se, rating, n_solved``.
    pairs : DataFrame
        Every ordered pair: ``system_a, system_b, wins_a, wins_b, gap, pvalue,
        corr, sd_diff, se_diff`` (wins: examples where a's score beats b's; for a
        binary metric, where a solves and b does not).
    example_table : DataFrame
        ``example_id, mean, n_solved, tau, min_rating``.
    solved_by_one : DataFrame
        ``example_id, system, rating``, by descending rating.
    suspects : DataFrame
        ``example_id, tau`` for examples with tau < 0, by ascending tau.
    difficulty : DataFrame
        Histogram of per-example mean score: ``bin_low, bin_high, count``.
    notes : tuple of str
    """

    benchmark: str
    metric: str
    alpha: float
    power: float
    threshold: float | None
    bins: int
    rating_source: str
    size: int
    n_dropped: int
    systems: tuple[str, ...]
    noise_test: str
    units: str
    p5_min: float
    p5_max: float
    solved_defined: bool
    solved_rule: str | None
    no_solve: tuple[str, ...]
    tau_neg: int | None
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
    notes: tuple[str, ...] = ()
    cluster: str | None = None
    """The cluster column when one was given: pair tests, SEs and the MDD
    are then cluster-robust (CR2, Bell–McCaffrey df)."""
    n_clusters: int | None = None
    design_effect: float | None = None
    """Median over pairs of the clustered over the independent-examples variance."""


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


def _validate(matrix: ScoreMatrix, alpha: float, power: float, threshold: float | None,
              bins: int) -> None:
    if not 0.0 < alpha < 1.0 or not 0.0 < power < 1.0:
        raise ValueError("alpha and power must lie strictly between 0 and 1; "
                         f"got alpha={alpha!r}, power={power!r}")
    if threshold is not None and not np.isfinite(threshold):
        raise ValueError(f"threshold: must be a finite number or None; got {threshold!r}")
    if isinstance(bins, bool) or not isinstance(bins, int | np.integer) or bins < 1:
        raise ValueError(f"bins: must be a positive integer; got {bins!r}")
    if matrix.n_common == 0:
        raise ValueError(f"benchmark {matrix.benchmark!r}, metric {matrix.metric!r}: no example "
                         "is scored by every system; health needs paired results "
                         "(restrict the systems or fill the missing results)")


@dataclass(frozen=True)
class _Noise:
    wins: np.ndarray
    gap: np.ndarray
    pvalue: np.ndarray
    test: str
    units: str


def _sign_noise(x: np.ndarray) -> _Noise:
    """eval-arena: battles won = solved by a, not by b; exact sign test; gap / n."""
    n = x.shape[1]
    won = (x > 0.5).astype(float)
    wins = win_matrix(won, binary=True)
    pvalue = exact_sign_pvalues(wins, wins.T, "two-sided")
    return _Noise(wins, np.abs(wins - wins.T) / n, pvalue, "sign",
                  "fraction of examples (exact sign test on example battles)")


def _t_noise(x: np.ndarray, metric: str) -> _Noise:
    """Paired t-test on every pair's differences; gap = |mean difference| in metric units."""
    s, n = x.shape
    ia, ja = np.nonzero(~np.eye(s, dtype=bool))
    pvalue = np.ones((s, s))
    # a single example has no variance of differences: no test (NaN, counted nowhere)
    pvalue[ia, ja] = paired_t(x, ia, ja, "two-sided").pvalue if n > 1 else np.nan
    means = x.mean(axis=1)
    return _Noise(win_matrix(x), np.abs(means[:, None] - means[None, :]), pvalue, "paired-t",
                  f"{metric} units (paired t-test on each pair's differences)")


def _solved(x: np.ndarray, matrix: ScoreMatrix, threshold: float | None
            ) -> tuple[np.ndarray | None, str | None, str | None]:
    """The solved indicator, its rule, or a note saying why it is not defined."""
    if matrix.binary:
        return x > 0.0, "score = 1" if matrix.higher_is_better else "score = 0 (lower is better)", \
            None
    if threshold is None and zero_one(matrix):
        # runs of a 0/1 metric averaged per example: solved when solved in at least half of
        # the runs (the per-example mean is the share of runs that solved it)
        solved = x >= 0.5 if matrix.higher_is_better else x <= 0.5
        return solved, "solved in at least half of the runs", None
    if threshold is None:
        return None, None, (f"'solved' is not defined for the numeric metric {matrix.metric!r} "
                            "without a threshold, so no_solve, solved_by_one, tau_neg and "
                            "suspects are not reported; declare one (MetricSpec(threshold=…) "
                            "or --threshold) to get them.")
    if matrix.higher_is_better:
        return x >= threshold, f"score ≥ {threshold:g}", None
    return x <= threshold, f"score ≤ {threshold:g} (lower is better)", None


def benchmark_health(
    matrix: ScoreMatrix,
    *,
    options: TestOptions | None = None,
    power: float = 0.8,
    threshold: float | None = None,
    ratings: Mapping[str, float] | None = None,
    bins: int = 10,
    cluster: ClusterDesign | None = None,
) -> HealthReport:
    """Noise level and example diagnostics of one benchmark and metric (eval-arena).

    Parameters
    ----------
    matrix : ScoreMatrix
        Scores of one benchmark and metric, any range. Only examples scored by
        every system are used.
    options : TestOptions
        Its ``alpha``: the significance level of the pair tests (``p5_min``/``p5_max``)
        and of the MDD (default: ``TestOptions()``).
    power : float
        Power of the minimum detectable difference.
    cluster : ClusterDesign, optional
        The cluster of each example of ``matrix`` (e.g. passage): the pair
        tests become the cluster-robust paired t (CR2, Bell–McCaffrey df), SEs and the MDD
        use the CR2 variance, and the report gives ``n_clusters`` and ``design_effect``.
    threshold : float, optional
        For a numeric metric, the score at or above which an example counts as
        solved (at or below for a lower-is-better metric), as in
        :class:`MetricSpec`. None: "solved" is not defined and the fields that
        need it are left empty with a note. Ignored for binary metrics (solved = 1).
    ratings : mapping of str to float, optional
        Rating of each system for ``solved_by_one`` and ``min_rating``. Defaults
        to the system's mean (oriented) score; eval-arena uses an Elo-like rating.
    bins : int
        Number of equal-width bins of the difficulty histogram (on [0, 1] for
        binary metrics, on the range of the example means otherwise).

    Returns
    -------
    HealthReport
        See its attributes for the output columns.

    Notes
    -----
    Let ``X`` (S × n) hold the scores, oriented so that larger is better.

    * Binary metrics (eval-arena): ``A = [X = 1]``, battles ``W = A (1 − A)ᵀ``;
      p-value of a pair = exact two-sided sign test on ``(W_ab, W_ba)``;
      ``gap = |W_ab − W_ba| / n`` (a fraction of the examples).
    * Numeric metrics: paired t-test on ``x_a − x_b`` (all pairs from one Gram
      matrix); ``gap = |mean_a − mean_b|`` in the metric's units. A fractional
      score in [0, 1] is numeric too: thresholding it at 0.5 would test whether
      systems cross 0.5, not whether their scores differ.
    * ``p5_min`` = min gap over pairs with ``p < alpha``, ``p5_max`` = max gap
      over pairs with ``p > alpha`` (NaN when there is no such pair).
    * Solved: score 1 (binary) or the threshold rule (numeric). ``no_solve``: no
      system solves it; ``solved_by_one``: exactly one does; ``min_rating``:
      lowest rating among the solvers. ``tau``: Kendall's tau-b between the
      solved indicator and the systems' mean scores; ``tau_neg`` counts tau < 0.
    * SE of a mean: ``s / √n`` (ddof = 1, as ``scipy.stats.sem``). Pairs:
      ``sd_diff = SD(x_a − x_b)``, ``se_diff = sd_diff / √n``, Pearson ``corr``;
      the report's values are medians over unordered pairs.
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
    >>> report.noise_test
    'sign'
    """
    alpha = resolve(options, {}).alpha
    _validate(matrix, alpha, power, threshold, bins)
    x = matrix.oriented(paired=True).astype(float)
    raw = matrix.paired_values().astype(float)
    n_sys, n = x.shape
    systems = np.array(matrix.systems, dtype=object)
    examples = np.array(matrix.examples, dtype=object)[matrix.common]
    means = x.mean(axis=1)
    rating, source = _ratings(matrix, means, ratings)
    noise = _sign_noise(x) if matrix.binary else _t_noise(x, matrix.metric)
    off = ~np.eye(n_sys, dtype=bool)
    sig, nonsig = off & (noise.pvalue < alpha), off & (noise.pvalue > alpha)
    p5_min = float(noise.gap[sig].min()) if sig.any() else float("nan")
    p5_max = float(noise.gap[nonsig].max()) if nonsig.any() else float("nan")

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

    # Example diagnostics: binary scores as eval-arena shows them (oriented), numeric
    # scores in the metric's own units.
    shown = x if matrix.binary else raw
    ex_mean = shown.mean(axis=0)
    solved, rule, note = _solved(x if matrix.binary else raw, matrix, threshold)
    diag = _example_diagnostics(solved, means, rating, examples, systems)
    example_table = pd.DataFrame({"example_id": examples, "mean": ex_mean,
                                  "n_solved": diag.n_solved, "tau": diag.tau,
                                  "min_rating": diag.min_rating})
    low, high = (0.0, 1.0) if matrix.binary else _span(ex_mean)
    counts, edges = np.histogram(ex_mean, bins=bins, range=(low, high))
    difficulty = pd.DataFrame({"bin_low": edges[:-1], "bin_high": edges[1:], "count": counts})

    ia, ib = np.nonzero(off)
    wins = noise.wins
    pairs = pd.DataFrame({
        "system_a": systems[ia], "system_b": systems[ib],
        "wins_a": wins[ia, ib].astype(int), "wins_b": wins[ib, ia].astype(int),
        "gap": noise.gap[ia, ib], "pvalue": noise.pvalue[ia, ib], "corr": corr[ia, ib],
        "sd_diff": sd_pair[ia, ib], "se_diff": sd_pair[ia, ib] / np.sqrt(n),
    })
    system_table = pd.DataFrame({"system": systems, "mean": shown.mean(axis=1), "se": se,
                                 "rating": rating, "n_solved": diag.system_solved})
    report = HealthReport(
        benchmark=matrix.benchmark, metric=matrix.metric, alpha=alpha, power=power,
        threshold=None if matrix.binary else threshold, bins=bins, rating_source=source,
        size=n, n_dropped=matrix.n_examples - n, systems=matrix.systems,
        noise_test=noise.test, units=noise.units, p5_min=p5_min, p5_max=p5_max,
        solved_defined=solved is not None, solved_rule=rule, no_solve=diag.no_solve,
        tau_neg=diag.tau_neg, sd_diff=sd_diff, se_diff=float(sd_diff / np.sqrt(n)),
        corr=_nanmedian(corr[upper]), mdd=mdd, system_table=system_table, pairs=pairs,
        example_table=example_table, solved_by_one=diag.solved_by_one,
        suspects=diag.suspects, difficulty=difficulty, notes=(note,) if note else ())
    return report if cluster is None else _clustered(report, x, cluster, matrix.common, z)


def _clustered(report: HealthReport, x: np.ndarray, cluster: ClusterDesign, common: np.ndarray,
               z: float) -> HealthReport:
    """The report with cluster-robust pair tests, SEs and MDD (design on the shared examples)."""
    design = ClusterDesign.from_codes(np.asarray(cluster.codes)[common], cluster.name)
    n_sys = x.shape[0]
    off = ~np.eye(n_sys, dtype=bool)
    ia, ib = np.nonzero(off)
    cp = clustered_pairs(x, design, ia, ib, "two-sided")
    pvalue = np.ones((n_sys, n_sys))
    pvalue[ia, ib] = cp.pvalue
    gap = np.abs(x.mean(axis=1)[:, None] - x.mean(axis=1)[None, :])
    sig, nonsig = off & (pvalue < report.alpha), off & (pvalue > report.alpha)
    upper = ia < ib
    se_diff = _nanmedian(cp.se[upper])
    deff = cp.design_effect[upper]
    deff = deff[np.isfinite(deff)]
    se = [clustered_se(row, design.codes, convention="cr2") for row in x]
    pairs = report.pairs.assign(pvalue=cp.pvalue, se_diff=cp.se, design_effect=cp.design_effect)
    return replace(report, noise_test="cluster-t",
                   units=f"{report.units.split(' (')[0]} (cluster-robust paired t by "
                         f"{design.name}, CR2)",
                   p5_min=float(gap[sig].min()) if sig.any() else float("nan"),
                   p5_max=float(gap[nonsig].max()) if nonsig.any() else float("nan"),
                   se_diff=se_diff, mdd=float(z * se_diff), pairs=pairs,
                   system_table=report.system_table.assign(se=se), cluster=design.name,
                   n_clusters=design.n_clusters,
                   design_effect=float(np.median(deff)) if deff.size else None,
                   notes=(*report.notes, design.sentence(pairs)))


@dataclass(frozen=True)
class _Diagnostics:
    n_solved: np.ndarray
    tau: np.ndarray
    min_rating: np.ndarray
    system_solved: np.ndarray
    no_solve: tuple[str, ...]
    tau_neg: int | None
    solved_by_one: pd.DataFrame
    suspects: pd.DataFrame


def _example_diagnostics(solved: np.ndarray | None, means: np.ndarray, rating: np.ndarray,
                         examples: np.ndarray, systems: np.ndarray) -> _Diagnostics:
    """Examples nobody / one system solves and Kendall's tau per example (eval-arena)."""
    if solved is None:  # "solved" has no meaning here: nothing is reported, not zeros
        nan = np.full(len(examples), np.nan)
        return _Diagnostics(nan, nan, nan, np.full(len(systems), np.nan), (), None,
                            pd.DataFrame({"example_id": [], "system": [], "rating": []}),
                            pd.DataFrame({"example_id": [], "tau": []}))
    n_solved = solved.sum(axis=0)
    tau = kendall_tau_b_binary(solved, means)
    min_rating = np.where(solved, rating[:, None], np.inf).min(axis=0)
    min_rating = np.where(n_solved > 0, min_rating, np.nan)
    one = n_solved == 1
    solver = solved[:, one].argmax(axis=0)
    solved_by_one = pd.DataFrame({"example_id": examples[one], "system": systems[solver],
                                  "rating": rating[solver]})
    solved_by_one = solved_by_one.sort_values(["rating", "example_id"], ascending=[False, True],
                                              kind="stable", ignore_index=True)
    neg = tau < 0
    suspects = (pd.DataFrame({"example_id": examples[neg], "tau": tau[neg]})
                .sort_values("tau", kind="stable", ignore_index=True))
    return _Diagnostics(n_solved, tau, min_rating, solved.sum(axis=1),
                        tuple(examples[n_solved == 0]), int(neg.sum()), solved_by_one, suspects)


def _span(values: np.ndarray) -> tuple[float, float]:
    low, high = float(np.min(values)), float(np.max(values))
    return (low - 0.5, high + 0.5) if low == high else (low, high)


def _nanmedian(values: np.ndarray) -> float:
    finite = values[np.isfinite(values)]
    return float(np.median(finite)) if finite.size else float("nan")
