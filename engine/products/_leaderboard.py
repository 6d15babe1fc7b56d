"""The leaderboard: one row per system with its mean, interval, rank range, group and ratings."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats
from statsmodels.stats.proportion import proportion_confint

from .._matrix import ScoreMatrix, orient
from .._options import TestOptions, resolve
from ..ranking._bradley_terry import bradley_terry, elo_scale, win_rates
from ..ranking._bt_bootstrap import bt_bootstrap
from ..ranking._bt_sandwich import bt_sandwich
from ..ranking._groups import Groups, find_groups
from ..ranking._mean_covariance import leaderboard_rank_sets
from ..ranking._rank_sets import RankSets
from ..ranking._ties import competition_ranks
from ..stats._additive import additive_fit, complete_system_intervals, incomplete_system_intervals
from ..stats._clusters import ClusterDesign, clustered_mean_intervals
from ..stats._kernels import row_moments
from ..stats._missing import missing_checks
from ..stats._pairwise import PairwiseTests, pairwise_tests
from ..stats._runs import mean_intervals_with_runs
from ._fragility import LeaderFragility, leaderboard_fragility

__all__ = ["LEADERBOARD_COLUMNS", "Leaderboard", "leaderboard"]

LEADERBOARD_COLUMNS = ("system", "rank", "rank_low", "rank_high", "group", "mean", "ci_low",
                       "ci_high", "n", "runs", "win_rate", "bt_strength", "elo", "bt_low",
                       "bt_high", "elo_low", "elo_high", "win_rate_low", "win_rate_high")


@dataclass(frozen=True)
class Leaderboard:
    """A ranked table with significance groups, plus everything that produced it.

    ``converged`` says whether the Bradley–Terry fit converged (None: nothing to fit).
    ``table`` columns: system, rank (1 = best mean; ties share the best rank),
    rank_low / rank_high (the pairwise tests' range: 1 + systems significantly better to
    systems not significantly worse; the rank range shown everywhere is ``rank_sets``,
    this only without them), group (compact letters, never shared by two systems whose
    rank sets are disjoint), mean, ci_low,
    ci_high (t interval, Wilson for binary scores, level 1 - alpha), n (examples
    scored), runs (most runs on an example), win_rate (share of decisive
    example battles won), bt_strength (Bradley–Terry, sums to 1), elo.
    ``cliques`` are listed on first access (seconds at 1,000 systems); a capped
    listing's note is in ``groups.notes`` (and in the JSON's notes), not in ``notes``,
    so that showing the table never lists them.
    """

    table: pd.DataFrame
    pairwise: PairwiseTests
    groups: Groups
    benchmark: str
    metric: str
    paired: bool
    test: str
    higher_is_better: bool
    anchor: str | None
    notes: tuple[str, ...]
    converged: bool | None = None
    source: ScoreMatrix | None = field(default=None, repr=False, compare=False)
    """The matrix ranked: the rank sets and the fragility are computed from it on first use."""
    source_cluster: np.ndarray | None = field(default=None, repr=False, compare=False)
    """Each example's cluster code when the leaderboard is cluster-robust (its rank sets are too)."""
    given_rank_sets: RankSets | None = field(default=None, repr=False, compare=False)
    """The rank sets the letters were made consistent with (:func:`leaderboard` computes them)."""

    @cached_property
    def rank_sets(self) -> RankSets | None:
        """Simultaneous rank confidence sets and the 1-best set (:mod:`engine.ranking._rank_sets`):
        the rank range every page shows, in the JSON rows as rank_set_low, rank_set_high,
        in_best_set."""
        if self.given_rank_sets is not None or self.source is None:
            return self.given_rank_sets
        return leaderboard_rank_sets(self.source, alpha=self.pairwise.alpha,
                                     cluster=self.source_cluster, pairwise=self.pairwise)

    @cached_property
    def fragility(self) -> LeaderFragility | None:
        """The fewest examples whose removal changes the #1 (JSON ``fragility``)."""
        return None if self.source is None else leaderboard_fragility(self.source)

    @property
    def cliques(self) -> tuple[tuple[str, ...], ...]:
        """Maximal groups of systems that cannot be told apart, best first (listed on
        first access, at most ``groups.max_cliques``; see :class:`Groups`)."""
        return self.groups.cliques

    @property
    def options(self) -> TestOptions:
        """The test options that made this leaderboard."""
        return self.pairwise.options


def _confidence_intervals(values: np.ndarray, binary: bool, level: float,
                          moments: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
                          ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Mean and Wilson (binary) or t interval per system; a block of rows at a time, so
    no full-size temporary (800 MB at 1,000 × 100,000). ``moments``: the values' row
    moments when the caller has them."""
    count, mean, var = row_moments(values) if moments is None else moments
    n = count.astype(np.int64)
    if binary:
        # every score 0 or 1: the row totals are integers, and mean · n is within far less
        # than ½ of them (no second pass over the values)
        successes = np.rint(mean * count)
        low, high = proportion_confint(successes, np.maximum(n, 1), alpha=1 - level,
                                       method="wilson")
        return mean, np.asarray(low, float), np.asarray(high, float), n
    sd = np.sqrt(var)
    with np.errstate(invalid="ignore"):
        half = stats.t.ppf(0.5 + level / 2, n - 1) * sd / np.sqrt(np.maximum(n, 1))
    half = np.where(n > 1, half, np.nan)
    return mean, mean - half, mean + half, n


def _estimates(matrix: ScoreMatrix, level: float
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, list[str]]:
    """Each system's estimate and interval at ``level``, on equal footing.

    Every system scored every example (or none shares any): the mean, with a Wilson
    (binary) or t interval. Partial overlap: the adjusted mean of the additive
    system + example model (:mod:`engine.stats._additive`), with a t interval from the
    spread of the system's difficulty-adjusted scores, so that a system scored only
    on easy examples is not ranked above one scored on all.
    """
    if matrix.pairing != "partial":
        mean, low, high, n = _confidence_intervals(matrix.values, matrix.binary, level,
                                                    matrix.moments)
        return mean, low, high, n, []
    fit = additive_fit(matrix.values)
    mean, low, high, n = _confidence_intervals(fit.adjusted, False, level)
    notes = ["Not every system scored every example: the estimates are adjusted means "
             "(system + example difficulty model), each system's predicted mean over all "
             f"{matrix.n_examples} examples, so systems are compared on equal footing."]
    # the one informative-missingness check (Holm over the systems, calibrated in
    # calibrate.py), so the page, the JSON notes and the CLI's warnings say the same
    notes += [c.warning() for c in missing_checks(matrix) if c.informative]
    # ``mean`` (the row means of the adjusted scores) is the unbounded adjusted mean, so
    # low/high are already its interval; intersected with the scores' range, as the
    # estimate is (engine.stats._additive), it keeps its coverage
    low, high = np.clip(low, *fit.bounds), np.clip(high, *fit.bounds)
    return fit.adjusted_mean, low, high, n, notes


def _snap(quality: np.ndarray) -> np.ndarray:
    """Estimates equal up to float noise (1e-9 of their largest size) made exactly equal, so
    ties (rank, group order) do not depend on the order the rows came in."""
    finite = quality[np.isfinite(quality)]
    scale = max(float(np.abs(finite).max()) if finite.size else 1.0, 1e-300)
    return np.asarray(np.round(quality / scale, 9) * scale, dtype=float)


def _pairs_for_groups(pw: PairwiseTests) -> tuple[pd.DataFrame, list[str]]:
    """The pair table groups are built from: every pair, untested ones "not shown to differ".

    With ``compare="first"`` or ``"successive"`` most pairs are never tested; a pair
    that was not tested has not been shown to differ, so it joins the groups (never
    splits them) and widens the rank ranges.
    """
    if pw.compare == "all":
        return pw.table, []
    names = np.asarray(pw.systems, dtype=object)
    k = len(names)
    ia, ja = np.triu_indices(k, k=1)
    where = {s: i for i, s in enumerate(pw.systems)}
    a = pw.table["system_a"].map(where).to_numpy(np.int64)
    b = pw.table["system_b"].map(where).to_numpy(np.int64)
    tested = np.minimum(a, b) * k + np.maximum(a, b)  # unordered pair keys
    untested = ~np.isin(ia * k + ja, tested)
    extra = pd.DataFrame({"system_a": names[ia[untested]], "system_b": names[ja[untested]],
                          "significant": False, "a_better": False})
    note = (f"Only the {len(pw.table)} pair(s) of compare={pw.compare!r} were tested; the other "
            f"{len(extra)} pair(s) count as not shown to differ in the groups and rank ranges.")
    table = pd.concat([pw.table, extra], ignore_index=True) if len(extra) else pw.table
    return table, [note] if len(extra) else []


def _separate_by_rank_sets(pairs: pd.DataFrame, sets: RankSets | None
                           ) -> tuple[pd.DataFrame, list[str]]:
    """The pair table with every pair whose rank sets are disjoint counted as told apart.

    The letters come from the pairwise tests, the rank range from the simultaneous rank
    sets (max-t over all pairs, Mogstad et al. 2024): the two can disagree, e.g. a
    system certainly first by its rank set ({1}) whose pairwise tests, corrected over
    all pairs, separate it from no one. Two systems whose rank sets do not overlap are
    shown apart at 1 − alpha, so they must not share a letter; the pair joins the
    significant ones for the letters and cliques (never the other way round).
    """
    if sets is None or pairs.empty:
        return pairs, []
    by = sets.table.assign(system=sets.table["system"].astype(str)).set_index("system")
    lo, hi = by["rank_set_low"], by["rank_set_high"]
    a = pairs["system_a"].astype(str).to_numpy()
    b = pairs["system_b"].astype(str).to_numpy()
    lo_a, hi_a = lo.reindex(a).to_numpy(float), hi.reindex(a).to_numpy(float)
    lo_b, hi_b = lo.reindex(b).to_numpy(float), hi.reindex(b).to_numpy(float)
    a_above, b_above = hi_a < lo_b, hi_b < lo_a  # NaN (a system without a set): False
    significant = pairs["significant"].to_numpy(bool)
    new = (a_above | b_above) & ~significant
    if not new.any():
        return pairs, []
    a_better = np.where(new, a_above, pairs["a_better"].to_numpy(bool))
    out = pairs.assign(significant=significant | new, a_better=a_better)
    note = (f"{int(new.sum())} pair(s) not significant in the pairwise tests have disjoint rank "
            "sets (told apart by the simultaneous rank sets): they share no group letter.")
    return out, [note]


def _battle_ratings(matrix: ScoreMatrix, pw: PairwiseTests, anchor: str | None
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, str | None, bool | None]:
    """Win rate, Bradley–Terry and Elo from each pair's battles on the examples it shares,
    and whether the Bradley–Terry fit converged (None when there was nothing to fit)."""
    s = matrix.n_systems
    wins, ties = pw.wins, pw.ties
    if wins is None or ties is None or not (wins + wins.T + ties)[~np.eye(s, dtype=bool)].any():
        nan = np.full(s, np.nan)
        return nan, nan, nan, ("No example is shared by any two systems, so win rate and "
                               "Bradley–Terry ratings (which need paired battles) are not "
                               "shown."), None
    bt = bradley_terry(wins, wins + wins.T + ties)
    anchor_index = matrix.systems.index(anchor) if anchor is not None else None
    note = None
    if bt.prior:
        note = (f"Bradley–Terry: some system never wins a battle, so {bt.prior} tied "
                "pseudo-battle per pair was added to make the ratings finite.")
    if not bt.converged:
        note = ((note + " ") if note else "") + (
            f"Bradley–Terry did not converge in {bt.iterations} Newton steps (gradient norm "
            f"{bt.gradient_norm:.2g}): its strengths and Elo are approximate.")
    return (win_rates(wins), bt.strength, elo_scale(bt.strength, anchor=anchor_index), note,
            bool(bt.converged))


#: Above this many systems the rating intervals are left out (their bootstrap refits
#: Bradley–Terry per resample: minutes at 1,000 systems); the table says so.
MAX_SYSTEMS_FOR_RATING_INTERVALS = 300


def _with_rating_intervals(table: pd.DataFrame, matrix: ScoreMatrix, opts: TestOptions,
                           anchor: str | None, resamples: int | None
                           ) -> tuple[pd.DataFrame, list[str]]:
    """Intervals (1 - alpha) of Bradley–Terry strength, Elo and win rate: ``bt_low``/
    ``bt_high``, ``elo_low``/``elo_high``, ``win_rate_low``/``win_rate_high``; sandwich
    (cluster-robust) when ``resamples`` is None, bootstrap when positive, none at 0."""
    cols = ("bt_low", "bt_high", "elo_low", "elo_high", "win_rate_low", "win_rate_high")
    if resamples == 0 or matrix.n_systems > MAX_SYSTEMS_FOR_RATING_INTERVALS \
            or table["bt_strength"].isna().all():
        skipped = [] if resamples == 0 or table["bt_strength"].isna().all() else [
            f"Rating intervals are left out above {MAX_SYSTEMS_FOR_RATING_INTERVALS} systems."]
        return table.assign(**dict.fromkeys(cols, np.nan)), skipped
    x = orient(matrix.values, higher_is_better=matrix.higher_is_better, binary=matrix.binary)
    anchor_index = matrix.systems.index(anchor) if anchor is not None else None
    if resamples is None:  # the default: sandwich intervals around the fit, no refits
        shared = np.full((len(x), len(x)), float(x.shape[1]))  # battles per pair
        if matrix.pairing != "full":
            has = (~np.isnan(x)).astype(np.float32)  # counts < 2^24: exact in float32
            shared = np.rint(has @ has.T).astype(float)
        strength = table.set_index("system")["bt_strength"].reindex(matrix.systems).to_numpy()
        r = bt_sandwich(x, strength, shared, confidence=opts.confidence, anchor=anchor_index)
    else:
        r = bt_bootstrap(x, n_resamples=resamples, confidence=opts.confidence, rng=opts.seed,
                         anchor=anchor_index)
    order = [matrix.systems.index(s) for s in table["system"]]
    out = table.assign(bt_low=r.strength_low[order], bt_high=r.strength_high[order],
                       elo_low=r.elo_low[order], elo_high=r.elo_high[order],
                       win_rate_low=r.win_rate_low[order], win_rate_high=r.win_rate_high[order])
    notes = [] if r.n_not_converged == 0 else [
        f"Bradley–Terry did not converge in {r.n_not_converged} of {resamples} bootstrap "
        "resamples; its intervals are approximate."]
    return out, notes


def leaderboard(
    matrix: ScoreMatrix,
    options: TestOptions | None = None,
    /,
    *,
    order: Sequence[str] | None = None,
    min_clique_size: int = 2,
    anchor: str | None = None,
    bt_resamples: int | None = None,
    cluster: ClusterDesign | None = None,
    **overrides: Any,
) -> Leaderboard:
    """Rank systems, test every pair and group the ones that cannot be told apart.

    Parameters
    ----------
    matrix : ScoreMatrix
        Scores of one benchmark and metric.
    options : TestOptions, optional
        How pairs are tested (see :func:`engine.pairwise_tests`); intervals are at
        1 - alpha.
    order : sequence of str, optional
        Order of systems for ``first``/``successive`` comparisons.
    min_clique_size : int, keyword-only
        Smallest group listed in ``cliques``.
    anchor : str, optional
        System whose Elo rating is fixed at 1000 (default: the mean rating is 1000).
    bt_resamples : int or None, keyword-only
        Intervals of Bradley–Terry strength, Elo and win rate: None (default) sandwich
        (cluster-robust over examples, one pass after the fit); a positive number: that
        many bootstrap resamples of the examples, each refitted; 0 leaves them out (as
        they are above 300 systems).
    **overrides
        Any :class:`TestOptions` field by name, applied on top of ``options``.

    Returns
    -------
    Leaderboard
        ``table`` with columns system, rank, rank_low, rank_high, group, mean,
        ci_low, ci_high, n, runs, win_rate, bt_strength, elo.

    Notes
    -----
    When every system scored every example, estimates are means with Wilson
    (binary) or t intervals mean ± t_{n-1, 1-α/2} · s / √n. Under partial overlap
    they are adjusted means of the additive system + example model (predicted
    means over all examples) with t intervals, so order, estimate, interval and
    rank range agree. Tests, win rates and Bradley–Terry use each pair's own
    shared examples. The rank range is the simultaneous rank confidence set
    (``rank_sets``; Mogstad, Romano, Shaikh & Wilhelm 2024); pairs whose sets are
    disjoint count as significant for the letters and cliques, so letters never
    contradict it. The table's rank_low / rank_high are the pairwise tests' range
    (best = 1 + systems significantly better, worst = systems not significantly
    worse; untested pairs count as not shown to differ; it always holds the row's
    rank), shown only where there are no rank sets. The all-pairs leaderboard is
    two-sided.

    References
    ----------
    Ackerman, Farchi, Raz & Toledo (2025). Statistical multi-metric evaluation
    and visualization of LLM system predictive performance. arXiv:2501.18243, §4–§5.1.
    Peyrard, Zhao, Eger & West (2021). Better than Average: Paired Evaluation
    of NLP Systems. ACL-IJCNLP 2021, pp. 2301–2315, for Bradley–Terry on paired battles.

    Examples
    --------
    >>> from engine import ScoreMatrix
    >>> m = ScoreMatrix.from_array([[1] * 30 + [0] * 10, [1] * 12 + [0] * 28,
    ...                             [1] * 13 + [0] * 27], systems=["A", "B", "C"])
    >>> leaderboard(m).table[["system", "rank", "group"]].to_dict("list")
    {'system': ['A', 'C', 'B'], 'rank': [1, 2, 3], 'group': ['a', 'b', 'b']}
    """
    opts = resolve(options, overrides)
    if anchor is not None and anchor not in matrix.systems:
        raise ValueError(f"anchor: system {anchor!r} is not on this leaderboard")
    if opts.compare == "all" and opts.alternative != "two-sided":
        raise ValueError(f"alternative: a ranked leaderboard of all pairs tests both directions "
                         f"(two-sided); got {opts.alternative!r}. One-sided tests are for "
                         "systems ordered before looking: use compare='first' or 'successive'")
    pw = pairwise_tests(matrix, opts, order=order, cluster=cluster)
    if order is not None:
        matrix = matrix.subset(list(order))
    notes = list(pw.notes)
    mean, low, high, n, estimate_note = _estimates(matrix, opts.confidence)
    if matrix.pairing == "partial":  # complete systems keep their own interval, the others
        low, high = complete_system_intervals(matrix.values, matrix.binary, opts.confidence,
                                              low, high)  # never a narrower one than it
        low, high = incomplete_system_intervals(matrix.values, matrix.binary, opts.confidence,
                                                mean, low, high)
    if pw.pooled_runs is not None:  # seed variance in every mean too
        low, high = mean_intervals_with_runs(matrix.values, matrix.runs, mean, low, high,
                                             pw.pooled_runs, opts.confidence)
    deff = None
    if cluster is not None:  # cluster-robust means and their design effect
        low, high, deff = clustered_mean_intervals(matrix.values, cluster, opts.confidence)
    notes += estimate_note
    from ..harness._pairing import unpaired_note  # ids kept apart by content

    notes += unpaired_note(matrix.examples)
    quality = _snap(orient(mean, higher_is_better=matrix.higher_is_better, binary=matrix.binary))
    pairs, groups_note = _pairs_for_groups(pw)
    notes += groups_note
    sets = leaderboard_rank_sets(matrix, alpha=pw.alpha,
                                 cluster=None if cluster is None else cluster.codes, pairwise=pw)
    pairs, sets_note = _separate_by_rank_sets(pairs, sets)
    notes += sets_note
    groups = find_groups(matrix.systems, quality.tolist(), pairs, min_size=min_clique_size)
    win_rate, strength, elo, bt_note, converged = _battle_ratings(matrix, pw, anchor)
    rank = competition_ranks(quality)  # tied estimates share the best rank
    rank_low = np.array([groups.rank_low[s] for s in matrix.systems])
    rank_high = np.array([groups.rank_high[s] for s in matrix.systems])
    outside = (rank < rank_low) | (rank > rank_high)
    if outside.any():
        # a test on a pair's shared examples can disagree with the adjusted estimates;
        # the range is widened so that it always holds the row's own rank
        names = ", ".join(np.asarray(matrix.systems)[outside][:5])
        notes.append(f"Rank range widened to include the rank of {names}: the order of the "
                     "estimates and a significant test on the examples a pair shares disagree.")
        rank_low, rank_high = np.minimum(rank_low, rank), np.maximum(rank_high, rank)
    table = pd.DataFrame({
        "system": list(matrix.systems),
        "rank": rank, "rank_low": rank_low, "rank_high": rank_high,
        "group": [groups.letters[s] for s in matrix.systems],
        "mean": mean, "ci_low": low, "ci_high": high, "n": n.astype(int),
        "runs": matrix.runs.max(axis=1).astype(int),
        **({} if deff is None else {"design_effect": deff}),
        "win_rate": win_rate, "bt_strength": strength, "elo": elo,
    })
    table = table.sort_values(["rank", "system"], kind="stable").reset_index(drop=True)
    if bt_note:
        notes.append(bt_note)
    table, interval_note = _with_rating_intervals(table, matrix, opts, anchor, bt_resamples)
    notes += interval_note
    return Leaderboard(table, pw, groups, matrix.benchmark, matrix.metric,
                       pw.paired, pw.test, matrix.higher_is_better, anchor, tuple(notes),
                       converged, matrix, None if cluster is None else cluster.codes, sets)
