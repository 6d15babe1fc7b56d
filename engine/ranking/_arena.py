"""Ratings from a battle list: unique pair counts → Bradley–Terry, Elo, win rates, groups.

The battle list (:func:`engine.io._battles.read_battles`) is compressed to counts per
pair — wins each way and ties, weighted — as LMArena's published computation does
(FastChat ``rating_systems.preprocess_for_bt``: unique (pair, outcome) rows with their
counts; ``arena-rank``'s ``PairDataset``). Bradley–Terry is fitted on those counts
(:func:`engine.ranking._bradley_terry.bradley_terry`, ties as half a win each way or
Davidson's model), put on LMArena's scale (400 points = 10:1 odds, mean 1000, or one
model anchored), with sandwich intervals over independent battles (arena-rank's
default) and significance groups from z-tests of the rating differences.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy import stats

from .._options import TestOptions, resolve
from ..io._battles import WINNERS
from ._bradley_terry import bradley_terry
from ._groups import Groups, find_groups
from ._sequential import Battles, sequential_elo

__all__ = ["ArenaRatings", "PairCounts", "arena_elo", "arena_ratings", "pair_counts",
           "win_rate_matrix"]


@dataclass(frozen=True)
class PairCounts:
    """Weighted battle counts per pair: ``wins[i, j]`` i beat j, ``ties`` symmetric;
    ``wins_sq``/``ties_sq`` the same sums of squared weights (the sandwich's meat)."""

    systems: tuple[str, ...]
    wins: np.ndarray
    ties: np.ndarray
    wins_sq: np.ndarray
    ties_sq: np.ndarray
    n_battles: int

    @property
    def battles(self) -> np.ndarray:
        """Weighted battles per pair (symmetric)."""
        return np.asarray(self.wins + self.wins.T + self.ties)


def _codes(battles: pd.DataFrame) -> tuple[np.ndarray, np.ndarray, tuple[str, ...]]:
    """Integer codes of model_a and model_b over one list of names (first appearance)."""
    codes, names = pd.factorize(pd.concat([battles["model_a"], battles["model_b"]],
                                          ignore_index=True), sort=False)
    n = len(battles)
    return codes[:n].astype(np.intp), codes[n:].astype(np.intp), tuple(map(str, names))


def pair_counts(battles: pd.DataFrame) -> PairCounts:
    """Unique pair counts of a validated battle list (one bincount over pair and outcome)."""
    a, b, systems = _codes(battles)
    s = len(systems)
    # the outcome of each distinct word, then per battle (a million-row Series.map of
    # Arrow text goes through Python objects; factorize does not): 0 model_a won, 1 model_b
    # won, 2 tie, 3 anything else (an unchecked frame's unknown word: counted nowhere)
    verdicts, words = pd.factorize(battles["winner"])
    score = pd.Series(words, dtype=object).map(WINNERS).to_numpy(dtype=float)
    kind_of = np.select([score == 1.0, score == 0.0, score == 0.5], [0, 1, 2], 3)
    kind = np.append(kind_of, 3).astype(np.intp)[verdicts]
    w = battles["weight"].to_numpy(dtype=float) if "weight" in battles.columns \
        else np.ones(len(battles))
    # one bincount over (outcome, winner, loser) instead of a masked one per outcome: each
    # cell still adds its battles' weights in file order, and model_a's and model_b's wins
    # are still summed apart and then added, so the counts are the same to the last bit
    lost_a = kind == 1
    key = kind * (s * s) + np.where(lost_a, b, a) * s + np.where(lost_a, a, b)
    if (kind == 3).any():
        keep = kind != 3
        key, w = key[keep], w[keep]

    def count(weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        flat = np.bincount(key, weights, minlength=3 * s * s).reshape(3, s, s)
        return flat[0] + flat[1], flat[2]

    wins, ties = count(w)
    w_sq = w * w
    # weights of 0 and 1 (the default) are their own squares
    wins_sq, ties_sq = (wins.copy(), ties.copy()) if np.array_equal(w_sq, w) else count(w_sq)
    return PairCounts(systems, wins, ties + ties.T, wins_sq, ties_sq + ties_sq.T, len(battles))


def win_rate_matrix(counts: PairCounts, *, ties: str = "half") -> np.ndarray:
    """``R[i, j]``: share of i's battles against j that i won (ties half each, or left out
    with ``ties="ignore"``); NaN for pairs that never met."""
    credit = counts.wins + (0.5 * counts.ties if ties == "half" else 0.0)
    total = counts.battles if ties == "half" else counts.wins + counts.wins.T
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(total > 0, credit / np.where(total > 0, total, 1.0), np.nan)


@dataclass(frozen=True)
class ArenaRatings:
    """Bradley–Terry ratings of a battle list on the Elo scale, with intervals and groups.

    ``table``: system, rank, rating, rating_low, rating_high, win_rate (ties half),
    battles, group — best first. ``covariance``: sandwich covariance of the ratings
    (Elo points², sum-zero gauge or relative to the anchor); NaN under Davidson.
    """

    table: pd.DataFrame
    counts: PairCounts
    covariance: np.ndarray
    groups: Groups
    converged: bool
    ties: str
    tie_strength: float
    params: dict[str, object] = field(default_factory=dict)


def _sandwich(theta: np.ndarray, counts: PairCounts) -> np.ndarray:
    """Cov(θ) = H⁺ G H⁺ over independent battles: H the Laplacian of N_ij p_ij (1 − p_ij),
    G of Σ_battles w² (y − p_ij)² per pair (y = 1, ½, 0 for i)."""
    p = 1.0 / (1.0 + np.exp(theta[None, :] - theta[:, None]))
    h = counts.battles * p * p.T
    g = counts.wins_sq * (1.0 - p) ** 2 + counts.wins_sq.T * p**2 + \
        counts.ties_sq * (0.5 - p) ** 2
    bread = np.linalg.pinv(_laplacian(h), hermitian=True)
    return np.asarray(bread @ _laplacian(g) @ bread)


def _laplacian(w: np.ndarray) -> np.ndarray:
    w = np.where(np.eye(len(w), dtype=bool), 0.0, w)
    return np.asarray(np.diag(w.sum(axis=1)) - w)


def arena_ratings(
    battles: pd.DataFrame, *, ties: str = "half", anchor: str | None = None,
    anchor_rating: float = 1000.0, scale: float = 400.0, base: float = 10.0,
    init_rating: float = 1000.0, options: TestOptions | None = None,
) -> ArenaRatings:
    """LMArena-style leaderboard of a validated battle list.

    Parameters
    ----------
    battles : DataFrame
        From :func:`engine.io._battles.read_battles`.
    ties : {"half", "davidson", "ignore"}, keyword-only
        Ties (and both-bad) as half a win each way (LMArena's choice), Davidson's tie
        model, or left out.
    anchor, anchor_rating : keyword-only
        A model whose rating is fixed (LMArena: mixtral-8x7b-instruct-v0.1 at 1114);
        default: mean ``init_rating``.
    scale, base, init_rating : keyword-only
        ``scale`` points of difference = ``base``:1 odds (LMArena: 400, 10, 1000).
    options : TestOptions, keyword-only
        Its ``alpha``: the sandwich intervals are at 1 − alpha (``options.confidence``) and
        the Holm-corrected z-tests of rating differences behind the groups at alpha
        (default ``TestOptions()``).

    Notes
    -----
    rating_i = init + scale · θ_i / ln(base) with θ centred (FastChat's
    ``scale_and_offset``); Bradley–Terry on unique pair counts as FastChat's
    ``compute_bt`` (tested against its formulas within 1e-6 points). Intervals are
    arena-rank's sandwich, rating ± z · se; a pair differs when Holm-adjusted
    p < ``alpha`` for z = (r_i − r_j) / se(r_i − r_j).

    References
    ----------
    Chiang et al. (2024), Chatbot Arena: An Open Platform for Evaluating LLMs by Human
    Preference, ICML; Bradley & Terry (1952), Biometrika 39:324–345; Davidson (1970),
    JASA 65:317–328.
    """
    opts = resolve(options, {})
    alpha, confidence = opts.alpha, opts.confidence
    counts = pair_counts(battles)
    s = len(counts.systems)
    if anchor is not None and anchor not in counts.systems:
        raise ValueError(f"anchor: model {anchor!r} has no battle; known: "
                         f"{list(counts.systems)[:10]!r}")
    fit = bradley_terry(counts.wins, None, ties=ties, tie_counts=counts.ties)
    theta = np.log(fit.strength)
    theta -= theta.mean()
    points = scale / np.log(base)
    shift = init_rating if anchor is None else \
        anchor_rating - points * theta[counts.systems.index(anchor)]
    rating = points * theta + shift
    cov = _sandwich(theta, counts) * points**2 if ties == "half" else np.full((s, s), np.nan)
    var = np.diag(cov)
    if anchor is not None:
        k = counts.systems.index(anchor)
        var = var + cov[k, k] - 2.0 * cov[:, k]
    z = float(stats.norm.ppf((1.0 + confidence) / 2.0))
    se = np.sqrt(np.maximum(var, 0.0))
    groups = _groups(counts.systems, rating, cov, alpha)
    battles_of = counts.battles.sum(axis=1)
    won = (counts.wins + 0.5 * counts.ties).sum(axis=1)
    table = pd.DataFrame({
        "system": list(counts.systems), "rating": rating, "rating_low": rating - z * se,
        "rating_high": rating + z * se,
        "win_rate": np.where(battles_of > 0, won / np.maximum(battles_of, 1e-300), np.nan),
        "battles": battles_of, "group": [groups.letters[m] for m in counts.systems]})
    order = np.argsort(-rating, kind="stable")
    table = table.iloc[order].reset_index(drop=True)
    table.insert(1, "rank", np.arange(1, s + 1))
    return ArenaRatings(table, counts, cov, groups, fit.converged, ties, fit.tie_strength,
                        {"anchor": anchor, "anchor_rating": anchor_rating, "scale": scale,
                         "base": base, "init_rating": init_rating, "confidence": confidence,
                         "alpha": alpha, "prior": fit.prior})


def _groups(systems: tuple[str, ...], rating: np.ndarray, cov: np.ndarray,
            alpha: float) -> Groups:
    """Groups from Holm-corrected two-sided z-tests of every rating difference."""
    from statsmodels.stats.multitest import multipletests

    ia, ja = np.triu_indices(len(systems), 1)
    diff = rating[ia] - rating[ja]
    se = np.sqrt(np.maximum(cov[ia, ia] + cov[ja, ja] - 2.0 * cov[ia, ja], 0.0))
    with np.errstate(invalid="ignore", divide="ignore"):
        p = 2.0 * stats.norm.sf(np.abs(diff / se))
    p = np.where(np.isfinite(p), p, 1.0)
    adjusted = multipletests(p, alpha=alpha, method="holm")[1] if len(p) else p
    names = np.asarray(systems, dtype=object)
    pairs = pd.DataFrame({"system_a": names[ia], "system_b": names[ja], "pvalue_adj": adjusted,
                          "significant": adjusted < alpha, "a_better": diff > 0})
    return find_groups(list(systems), rating.tolist(), pairs)


def arena_elo(battles: pd.DataFrame, *, k: float = 4.0, scale: float = 400.0,
              init_rating: float = 1000.0, n_permutations: int = 1,
              rng: np.random.Generator | int | None = 0) -> pd.Series:
    """Online Elo over the battles: in the file's order (``n_permutations=1``, as
    FastChat's ``compute_elo``), or averaged over random orders; weights are not used."""
    a, b, systems = _codes(battles)
    # the outcome of each distinct word, then per battle (a million-row Series.map of
    # Arrow text goes through Python objects; factorize does not)
    verdicts, words = pd.factorize(battles["winner"])
    score = np.append(pd.Series(words, dtype=object).map(WINNERS).to_numpy(dtype=float),
                      np.nan)[verdicts]
    replay = Battles(a, b, score, len(systems), "draw")
    orders = np.arange(len(a))[None] if n_permutations == 1 else None
    res = sequential_elo(replay, k=k, initial=init_rating, scale=scale,
                         n_permutations=n_permutations, rng=rng, orders=orders)
    return pd.Series(res.rating, index=list(systems), name="elo")
