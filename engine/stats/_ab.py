"""The A/B comparison: is a candidate better or worse than a baseline, with repeated runs?

Chain: validate → pair cube on shared examples (:mod:`engine.stats._runs`) → run-aware
test (the verdict) → descriptive statistics, effect size with CI, outliers,
variance decomposition and the models side by side (the table of Lumiste 2023, *Why you
should A/B test your LLM evals*, https://mlumiste.com/technical/ab-test-llm-evals/).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import pandas as pd
from scipy import optimize, stats

from .._contract import MetricSpec
from .._matrix import ScoreMatrix, _pick, build_matrix
from .._options import TestOptions
from ._ab_models import model_table, variance_components
from ._churn import Churn, churn_of_pair
from ._clusters import ClusterDesign
from ._design_effect import ModelDesignEffect, model_design_effect
from ._equivalence import Equivalence, tost
from ._missing import missing_checks
from ._noninferiority import NonInferiority, check_margin, ni_verdict, noninferiority_test
from ._pairwise import PairwiseTests, pairwise_tests
from ._resolution import Resolution
from ._runs import RunCube, pooled_runs, run_anova, run_cube
from ._runs_pairs import PairRunTest, cr2_variance, pair_run_test

__all__ = ["ABComparison", "NonInferiority", "compare_ab", "model_table", "noninferiority_test"]
#: Fewest runs of each system that give the run-variance (variance-components) model
#: enough degrees of freedom: with 2 runs each its run variance has 2, and its
#: Satterthwaite t interval can span more than any possible difference (−0.69 to +1.09 on
#: a 0/1 metric), so the interval is cut at the possible range and the reason says why.
MIN_RUNS_FOR_RUN_MODEL = 3
# |z| > 3 flags an outlier: the z-score rule of the guide *Statistical Significance Testing*
# (LangGraph evaluation, github.com/hiroshi75/protografico, skills/fine-tune/evaluation_statistics.md)
_OUTLIER_Z = 3.0




@dataclass(frozen=True)
class ABComparison:
    """A baseline/candidate comparison, oriented so that positive = candidate better.

    ``test``: the run-aware test behind the verdict. ``descriptives``: per
    system mean, sd, median, q1, q3, iqr of per-example means, n, runs.
    ``effect_size``: paired d_z of per-example means with ``effect_ci``.
    ``outliers``: example_id, baseline, candidate, difference, z for |z| > 3.
    ``variance``: component, variance, share (example, system×example, run,
    residual). ``models``: the columns of ``MODEL_COLUMNS``, one row per model.
    ``noninferiority``: the margin's one-sided test when ``margin`` was given
    (then it, not the two-sided test, makes the verdict and the exit code).
    ``differences``: per-example mean differences, candidate − baseline, oriented.
    """

    baseline: str
    candidate: str
    benchmark: str
    metric: str
    higher_is_better: bool
    cluster: str | None
    test: PairRunTest
    verdict: str
    exit_code: int
    descriptives: pd.DataFrame
    effect_size: float
    effect_ci: tuple[float, float]
    outliers: pd.DataFrame
    variance: pd.DataFrame
    models: pd.DataFrame
    options: TestOptions
    noninferiority: NonInferiority | None = None
    differences: np.ndarray = field(default_factory=lambda: np.empty(0))
    pairwise: dict[str, Any] = field(default_factory=dict)
    note: str = ""
    binary: bool = False
    churn: Churn | None = None
    """The examples the candidate fixes and breaks (JSON ``fixed``, ``broken``)."""
    equivalence: Equivalence | None = None
    """TOST against ``compare_ab(equivalence=margin)`` (JSON ``equivalence``)."""
    seed_variance_from: tuple[str, ...] = ()
    missing: tuple[str, ...] = ()
    """Informative missingness of the two systems, judged by every system of the benchmark
    (:func:`engine.stats._missing.missing_checks`): one sentence each."""
    """The systems whose repeated runs estimate the seed variance the test adds (every
    system of the benchmark with ≥ 2 runs; JSON ``seed_variance_from``)."""
    clusters: tuple[int, float] | None = None
    """With a cluster column: the number of clusters among the shared examples and the design
    effect (clustered over independent-examples variance of the mean difference; Miller 2024
    asks for both beside a clustered interval). JSON ``n_clusters``, ``design_effect``."""
    cluster_icc: ModelDesignEffect | None = None
    """Beside it, the random-effects model's design effect 1 + (m̄ − 1) · ICC of the same
    differences (one-way ANOVA ICC(1), Kish's m̄ = Σm²/Σm; :mod:`engine.stats._design_effect`);
    None without clusters or with no cluster of two examples. JSON ``icc``,
    ``cluster_mean_size``, ``design_effect_model``."""
    resolution: Resolution | None = None
    """Whether the pair's test can reach p < alpha at all on these examples, with the power
    figures (JSON ``resolution``)."""

    @property
    def decided(self) -> bool:
        """False when these data cannot decide the pair: a system's missing scores look not
        missing at random (``missing``), where ``sigboard compare`` exits 2 and the A/B
        page says "cannot decide" whatever ``verdict`` says. With two systems that check has
        little power; :func:`engine.stats._missing_bounds.missing_bounds` bounds the verdict
        over the examples one side lacks (``compare`` and the page apply both)."""
        return not self.missing

    @property
    def same_as_pairwise(self) -> bool:
        """The verdict's test is the Pairwise page's (same p-value and interval)."""
        return bool(self.pairwise) and self.test.model == self.pairwise["test"] and \
            math.isclose(self.test.pvalue, self.pairwise["pvalue"], rel_tol=1e-9, abs_tol=1e-15)


def compare_ab(df: pd.DataFrame, *, baseline: str, candidate: str, benchmark: str | None = None,
               metric: str | None = None, spec: MetricSpec | None = None,
               options: TestOptions | None = None, cluster: str | None = None,
               margin: float | None = None, equivalence: float | None = None) -> ABComparison:
    """Compare ``candidate`` with ``baseline`` on their shared examples, runs taken into account.

    Parameters
    ----------
    df : DataFrame
        Validated long table (``validate_long``), with or without ``run``.
    baseline, candidate : str
        The two systems.
    benchmark, metric : str, optional
        The slice; may be omitted when the table holds only one.
    spec : MetricSpec, optional
        Direction of the metric (default: higher is better).
    options : TestOptions, optional
        ``alpha`` (level of the test and of every interval) and ``alternative``
        ("greater": candidate better) are used.
    cluster : str, optional
        A per-example column of ``df`` (e.g. task family): standard errors are
        cluster-robust by it (CR2, Bell–McCaffrey df; Miller 2024 asks for clustering).
    margin : float, optional
        Non-inferiority margin (> 0, metric units): the gate then fails only when
        the candidate may be worse by more than ``margin`` (see Notes).
    equivalence : float, optional
        Equivalence margin (> 0, metric units): TOST of −margin < difference < margin on
        the verdict test's estimate, SE and df (:func:`engine.stats._equivalence.tost`);
        reported beside the verdict, which it does not change.

    Returns
    -------
    ABComparison
        Its fields (the test's estimate, interval, p-value and model, the verdict and its
        exit code, …); ``sigboard compare``'s JSON is built from them by the command line.

    Notes
    -----
    The verdict is "worse" / "better" when p < alpha and the difference is
    negative / positive, else "no significant difference"; ``exit_code`` is 1
    only for "worse" (a CI gate). No repeated runs on the benchmark (no cluster, no
    margin): the test is the Pairwise page's (:func:`engine.pairwise_tests` on the pair,
    with the benchmark's modality: exact McNemar when every system's scores are 0/1, the
    paired t otherwise), so both pages give the same p-value and interval. Clusters: the
    CR2 cluster-robust t with Bell–McCaffrey df (:func:`engine.stats._runs_pairs.cr2_variance`),
    the Pairwise page's with ``cluster``, to the same p-value when no run variance enters.
    Repeated runs of any system of the benchmark, clusters or a
    margin: the run-aware test, its seed variance pooled over every system of the benchmark
    with runs (single-run pairs included, as on the leaderboard; ``seed_variance_from``
    names them)
    (:func:`engine.stats._runs_pairs.pair_run_test`), the Pairwise figure kept beside it
    (``pairwise``) and ``note`` saying why they differ. Scores within [0, 1]: the
    interval is cut at ±1 (with 2 runs per system the run variance has about 2 degrees of
    freedom and its t interval can pass the possible range; ``test.reason`` says so).
    d_z's interval inverts the noncentral t when the paired t decides (Cumming & Finch
    2001), else it is the difference interval over the SD of the differences: both
    intervals exclude 0 together.

    With ``margin`` = δ the verdict is the non-inferiority test instead
    (:func:`noninferiority_test`): H0 ``D ≤ −δ`` against H1 ``D > −δ``,
    ``t = (D̂ + δ) / SE`` with the same SE and df as the run-aware test,
    one-sided at alpha (Wellek 2010, ch. 2; FDA 2016 non-inferiority guidance).
    Exit code 1 when H0 is not rejected (the candidate may be worse by more
    than δ), else 0.

    References
    ----------
    Lumiste, M. (2023). Why you should A/B test your LLM evals. Blog post,
    https://mlumiste.com/technical/ab-test-llm-evals/ (repeated runs, fixed/mixed
    effects). Miller, E. (2024). Adding error
    bars to evals. arXiv:2411.00640. Wellek, S. (2010). Testing Statistical
    Hypotheses of Equivalence and Noninferiority, 2nd ed. CRC Press.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"benchmark": "b", "metric": "acc", "system": ["A"] * 6 + ["B"] * 6,
    ...     "example_id": [f"e{i}" for i in range(6)] * 2,
    ...     "value": [1., 0., 1., 0., 1., 0., 1., 1., 1., 1., 1., 0.]})
    >>> res = compare_ab(df, baseline="A", candidate="B")
    >>> res.test.model, round(res.test.estimate, 3), res.exit_code
    ('mcnemar', 0.333, 0)
    >>> compare_ab(df, baseline="A", candidate="B", margin=0.5).exit_code
    0
    """
    opts = options if options is not None else TestOptions()
    margin = check_margin(margin)
    pair, codes, whole, part = _pair(df, baseline, candidate, benchmark, metric, spec, cluster)
    figure, binary, reach, missing = _pairwise_figure(part, pair, spec, opts, codes, cluster)
    pooled = pooled_runs(run_anova(whole.values, whole.runs), whole.systems)
    if cluster is None and margin is None and not pooled.systems:
        test = _from_pairwise(figure, pair, opts)  # the Pairwise page's test: same answer
    else:  # runs anywhere on the benchmark: every system's runs estimate the seed variance
        test = pair_run_test(pair, cluster=codes, cluster_name=cluster or "cluster",
                             alpha=opts.alpha, alternative=opts.alternative, pooled=pooled)
        if pooled.systems:
            test = replace(test, reason=f"{test.reason}; {pooled.note()}")
    test = _within_range(test, pair)
    ni = None if margin is None else noninferiority_test(test, margin=margin, alpha=opts.alpha)
    verdict, code = _verdict(test, opts.alpha) if ni is None else ni_verdict(ni)
    means = np.nanmean(pair.values, axis=1)
    d = (means[1] - means[0]) * pair.sign
    effect, effect_ci = _effect_size(d, opts.alpha, test)
    return ABComparison(baseline, candidate, pair.benchmark, pair.metric, pair.higher_is_better,
                    cluster, test, verdict, code, _descriptives(pair, means), effect, effect_ci,
                    _outliers(pair, means, d), variance_components(pair), model_table(pair, test),
                    opts, ni, d, figure, _note(test, figure, margin), binary,
                    churn_of_pair(pair, binary=binary, alpha=opts.alpha),
                    None if equivalence is None else
                    tost(test.estimate, test.se, test.df, margin=equivalence, alpha=opts.alpha),
                    seed_variance_from=pooled.systems, missing=missing, resolution=reach,
                    clusters=_clusters(d, codes), cluster_icc=_cluster_icc(d, codes))


def _clusters(d: np.ndarray, codes: np.ndarray | None) -> tuple[int, float] | None:
    """(clusters, design effect) of the per-example differences ``d`` (CR2 variance of their
    mean, as the test and the Pairwise page's ``design_effect``, over s²_d / n); NaN design
    effect when the differences are constant."""
    if codes is None:
        return None
    clustered, _ = cr2_variance(d, codes)
    iid = float(d.var(ddof=1) / len(d))
    return int(len(np.unique(codes))), clustered / iid if iid > 0 else math.nan


def _cluster_icc(d: np.ndarray, codes: np.ndarray | None) -> ModelDesignEffect | None:
    """The model-based design effect of ``d`` by cluster, or None where the ICC has no
    within-cluster degrees of freedom (every cluster a single example)."""
    if codes is None or len(np.unique(codes)) >= len(d):
        return None
    return model_design_effect(d, codes)


def _pairwise_figure(df: pd.DataFrame, pair: RunCube, spec: MetricSpec | None,
                     opts: TestOptions, codes: np.ndarray | None = None,
                     cluster: str | None = None
                     ) -> tuple[dict[str, Any], bool, Resolution | None, tuple[str, ...]]:
    """The Pairwise page's test of the pair on ``df``, the rows of its slice
    (:func:`_slice`): per-example means, its automatic test, the
    same alternative, oriented candidate − baseline; whether the metric is 0/1; whether
    the pair can be significant at all (its :class:`Resolution`); and the two systems'
    informative-missingness warnings, judged by every system of the benchmark.

    The Pairwise page chooses one test for the benchmark, by the modality of all its
    systems: two single-sample systems (0/1) on a benchmark of sample fractions get its
    paired t, not McNemar, so the pair's matrix is declared with the benchmark's modality.
    With clusters the page's test is the CR2 cluster-robust t on the shared examples
    (:func:`engine.stats._clusters.clustered_pairs`), whatever the modality."""
    baseline, candidate = pair.systems
    bench = df  # the slice's rows (_slice)
    everyone = build_matrix(bench, benchmark=pair.benchmark, metric=pair.metric, spec=spec)
    missing = tuple(c.warning() for c in missing_checks(everyone, systems=(baseline, candidate))
                    if c.informative)
    ours = bench["system"].isin([baseline, candidate])
    binary = bool(bench.loc[ours, "value"].isin([0.0, 1.0]).all())
    if codes is not None:  # the shared examples only: the clustered t needs every cell
        mine = bench[ours & bench["example_id"].isin(pair.examples)]
    elif ours.all():  # the benchmark holds the two systems only: the same rows, the same matrix
        mine = bench
    else:
        mine = bench[ours]
    if mine is bench:
        matrix = everyone
    else:
        modality = replace(spec if spec is not None else MetricSpec(),
                           higher_is_better=everyone.higher_is_better, binary=everyone.binary)
        matrix = build_matrix(mine, benchmark=pair.benchmark, metric=pair.metric, spec=modality)
    matrix = matrix.subset([candidate, baseline])
    design = None
    if codes is not None:  # the pair's cluster codes, in the matrix's order of examples
        code_of = dict(zip(pair.examples, codes, strict=True))
        design = ClusterDesign.from_codes(np.array([code_of[e] for e in matrix.examples]),
                                          cluster or "cluster")
    first = [candidate, baseline] if opts.alternative != "less" else [baseline, candidate]
    result = _pair_tests(matrix, first, opts, design)
    row = _row(result, first)
    if design is None and max(pair.runs) > 1 and len(everyone.systems) > 2:
        # with repeated runs the page pools the run-to-run variance over every system of
        # the benchmark that has runs, so its figure comes from the whole benchmark (the
        # pair alone pooled two systems' and misquoted it); the pair's resolution stays
        row = _row(_pair_tests(everyone, first, opts, None), first)
    sign = 1.0 if row["system_a"] == candidate else -1.0
    lo, hi = sign * float(row["ci_low"]), sign * float(row["ci_high"])
    figure = {"test": str(row["test"]), "pvalue": float(row["pvalue"]),
              "difference": sign * float(row["difference"]), "ci_low": min(lo, hi),
              "ci_high": max(lo, hi), "n": int(row["n"])}
    return figure, binary, result.resolution, missing


def _pair_tests(matrix: ScoreMatrix, first: list[str], opts: TestOptions,
                design: ClusterDesign | None) -> PairwiseTests:
    """The Pairwise page's tests of ``matrix`` holding the pair ``first``: two-sided every
    pair; one-sided ``first[0]`` against the others, "greater" (toward ``first[0]``)."""
    if opts.alternative == "two-sided":
        return pairwise_tests(matrix, opts.with_(compare="all"), cluster=design)
    others = [s for s in matrix.systems if s not in first]
    return pairwise_tests(matrix, opts.with_(compare="first", alternative="greater"),
                          order=[*first, *others], cluster=design)


def _row(result: PairwiseTests, first: list[str]) -> pd.Series:
    """The row of the pair ``first`` in ``result``'s table (either order)."""
    t = result.table
    return t[t["system_a"].isin(first) & t["system_b"].isin(first)].iloc[0]


def _from_pairwise(figure: dict[str, Any], pair: RunCube, opts: TestOptions) -> PairRunTest:
    """The Pairwise page's test as the verdict's test (one or two runs per system)."""
    runs = (int(pair.runs[0]), int(pair.runs[1]))
    z = float(stats.norm.isf(opts.alpha / 2))
    se = (figure["ci_high"] - figure["ci_low"]) / (2 * z)
    n = int(figure["n"])
    stat = figure["difference"] / se if se > 0 else 0.0
    why = "one run per system: the Pairwise page's test, same p-value and interval"
    df_ = float(n - 1) if figure["test"] in ("paired-t", "t") else math.inf
    return PairRunTest(figure["test"], why, figure["difference"], se, df_, stat,
                       figure["pvalue"], figure["ci_low"], figure["ci_high"], math.nan,
                       math.nan, math.nan, n, runs, bool(pair.balanced().all()), opts.alpha,
                       opts.alternative)


def _within_range(test: PairRunTest, pair: RunCube) -> PairRunTest:
    """The interval cut to the possible differences (±1 for scores within [0, 1]), saying
    why it reached past them."""
    values = pair.values[~np.isnan(pair.values)]
    if not values.size or values.min() < 0 or values.max() > 1:
        return test
    low, high = max(test.ci_low, -1.0), min(test.ci_high, 1.0)
    if (low, high) == (test.ci_low, test.ci_high):
        return test
    few = int(min(pair.runs)) < MIN_RUNS_FOR_RUN_MODEL and test.var_run > 0
    why = (f"; with fewer than {MIN_RUNS_FOR_RUN_MODEL} runs of each system the run variance "
           f"rests on {test.df:.1f} degrees of freedom, so the interval was wider than any "
           "possible difference and is cut at ±1") if few else \
        "; the interval is cut at ±1, the largest possible difference"
    return replace(test, ci_low=low, ci_high=high, reason=test.reason + why)


def _note(test: PairRunTest, figure: dict[str, Any], margin: float | None) -> str:
    """One sentence when the verdict's test is not the Pairwise page's, with its figure."""
    if not figure or (test.model == figure["test"] and math.isclose(
            test.pvalue, figure["pvalue"], rel_tol=1e-9, abs_tol=1e-15)):
        return ""
    # clusters are no reason: with them the Pairwise figure is the same CR2 t
    why = ("a non-inferiority margin" if margin is not None else
           "repeated runs" if max(test.runs) > 1 else "the seed variance other systems' runs show")
    return (f"A/B compare uses {test.model} because of {why}; the Pairwise page's "
            f"{figure['test']} gives p = {figure['pvalue']:.3g}, difference "
            f"{figure['difference']:+.4g} ({figure['ci_low']:+.4g} to "
            f"{figure['ci_high']:+.4g}).")



def _pair(df: pd.DataFrame, baseline: str, candidate: str, benchmark: str | None,
          metric: str | None, spec: MetricSpec | None, cluster: str | None
          ) -> tuple[RunCube, np.ndarray | None, RunCube, pd.DataFrame]:
    """The pair's cube on their shared examples, its examples' cluster codes, the cube of
    every system of the benchmark (whose runs estimate the seed variance, as the leaderboard
    and Pairwise pool it: :func:`engine.stats._runs.pooled_runs`; two single-run systems then
    pay the seed variance the others' runs show: the plain paired t there gave
    ``compare`` false alarms 0.227 / 0.283), and the slice's rows (:func:`_slice`). The
    pair's cube is cut from the benchmark's, pivoted once: the same examples (sorted), runs
    and values as its own pivot."""
    if baseline == candidate:
        raise ValueError(f"candidate: must differ from the baseline; got {candidate!r} for both")
    if cluster is not None and cluster not in df.columns:
        raise ValueError(f"cluster: column {cluster!r} not in the data; columns: {list(df.columns)!r}")
    df, bench, met = _slice(df, benchmark, metric)
    whole = run_cube(df, benchmark=bench, metric=met, spec=spec)
    if baseline not in whole.systems or candidate not in whole.systems:  # its message
        run_cube(df, benchmark=bench, metric=met, systems=[baseline, candidate], spec=spec)
    cube = whole.restrict([baseline, candidate], np.ones(len(whole.examples), dtype=bool))
    shared = cube.common()
    if shared.sum() < 2:
        raise ValueError(f"baseline, candidate: {baseline!r} and {candidate!r} share "
                         f"{int(shared.sum())} example(s); the A/B comparison is paired and needs "
                         "at least 2")
    pair = cube.restrict([baseline, candidate], shared)
    if cluster is None:
        return pair, None, whole, df
    labels = df.groupby("example_id")[cluster].agg(["first", "nunique"])
    if (labels["nunique"] > 1).any():
        bad = labels.index[labels["nunique"] > 1][0]
        raise ValueError(f"cluster: column {cluster!r} must hold one value per example; example "
                         f"{bad!r} has {int(labels.loc[bad, 'nunique'])}")
    codes, _ = pd.factorize(labels["first"].reindex(list(pair.examples)).astype("string"))
    return pair, np.asarray(codes), whole, df


def _slice(df: pd.DataFrame, benchmark: str | None, metric: str | None
           ) -> tuple[pd.DataFrame, str, str]:
    """The rows of one (benchmark, metric), chosen as :func:`engine.stats._runs.run_cube`
    chooses them (the same :func:`engine._matrix._pick`, its messages and its stated
    default metric), with ``benchmark`` and ``metric`` as one-category categoricals; and
    the two names.

    Why: the comparison filters its slice again in every pivot it makes (the cube, the
    Pairwise page's matrix, its run-aware test), and ``==`` on a column of Python strings
    is a Python comparison per row (on 100,000 rows about seven times as long as hashing
    them once); on a categorical it compares integer codes. The values, and so every
    result, are the same.
    """
    bench = _pick(df, "benchmark", benchmark)
    part = _rows(df, _equal(df["benchmark"], bench))
    met = _pick(part, "metric", metric)
    part = _rows(part, _equal(part["metric"], met))
    n = len(part)
    zeros = np.zeros(n, dtype=np.int8)
    part = part.assign(benchmark=pd.Categorical.from_codes(zeros, pd.Index([bench])),
                       metric=pd.Categorical.from_codes(zeros, pd.Index([met])))
    return part, bench, met


def _equal(column: pd.Series, value: str) -> np.ndarray | None:
    """``column == value`` by one hash of the column (None: every row)."""
    codes, uniques = pd.factorize(column, use_na_sentinel=True)
    hits = np.flatnonzero(np.asarray([u == value for u in uniques], dtype=bool))
    if len(hits) == len(uniques) and (codes >= 0).all():
        return None
    return np.isin(codes, hits)


def _rows(df: pd.DataFrame, mask: np.ndarray | None) -> pd.DataFrame:
    return df if mask is None else df[mask]


def _verdict(test: PairRunTest, alpha: float) -> tuple[str, int]:
    if test.pvalue < alpha and test.estimate < 0:
        return "candidate is significantly worse", 1
    if test.pvalue < alpha and test.estimate > 0:
        return "candidate is significantly better", 0
    return "no significant difference", 0


def _descriptives(pair: RunCube, means: np.ndarray) -> pd.DataFrame:
    q1, median, q3 = np.percentile(means, [25, 50, 75], axis=1)
    return pd.DataFrame({"system": list(pair.systems), "role": ["baseline", "candidate"],
                         "n": means.shape[1], "runs": pair.runs, "mean": means.mean(axis=1),
                         "sd": means.std(axis=1, ddof=1), "median": median, "q1": q1, "q3": q3,
                         "iqr": q3 - q1})


def _effect_size(d: np.ndarray, alpha: float, test: PairRunTest
                 ) -> tuple[float, tuple[float, float]]:
    """Paired d_z = mean / SD of differences, with an interval that agrees with the verdict's.

    Verdict by the paired t: the noncentral-t interval of √n·d_z (Cumming & Finch 2001),
    which excludes 0 exactly when the t test rejects. Any other test (McNemar, the
    run-variance or cluster-robust t): the difference interval in SD units, so both
    intervals exclude 0 together.
    """
    n, sd = len(d), float(d.std(ddof=1))
    if sd == 0:
        value = 0.0 if d.mean() == 0 else float(np.copysign(np.inf, d.mean()))
        return value, (value, value)
    dz = float(d.mean() / sd)
    if test.model != "paired-t" or not math.isclose(test.estimate, float(d.mean()),
                                                    rel_tol=1e-9, abs_tol=1e-12):
        return dz, (test.ci_low / sd, test.ci_high / sd)
    t_obs, df = dz * np.sqrt(n), n - 1

    def bound(q: float) -> float:
        f = lambda nc: stats.nct.cdf(t_obs, df, nc) - q  # noqa: E731
        reach = 6.0 * math.sqrt(1.0 + t_obs**2 / (2.0 * df))
        try:
            return float(optimize.brentq(f, t_obs - reach, t_obs + reach) / math.sqrt(n))
        except ValueError:  # scipy's nct.cdf can return NaN far in a tail: normal approximation
            se = math.sqrt(1.0 / n + dz**2 / (2.0 * n))  # Hedges & Olkin (1985)
            return dz + float(stats.norm.ppf(1 - q)) * se

    return dz, (bound(1 - alpha / 2), bound(alpha / 2))


def _outliers(pair: RunCube, means: np.ndarray, d: np.ndarray) -> pd.DataFrame:
    sd = d.std(ddof=1)
    z = (d - d.mean()) / sd if sd > 0 else np.zeros_like(d)
    flag = np.abs(z) > _OUTLIER_Z
    out = pd.DataFrame({"example_id": np.asarray(pair.examples, dtype=object)[flag],
                        "baseline": means[0][flag], "candidate": means[1][flag],
                        "difference": d[flag], "z": z[flag]})
    return out.sort_values("z", key=np.abs, ascending=False, kind="stable", ignore_index=True)
