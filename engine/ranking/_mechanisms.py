"""Aggregation mechanisms compared: mean, median, Bradley–Terry, Elo, TrueSkill (Peyrard et al.
2021, *Better than Average: Paired Evaluation of NLP Systems*, ACL-IJCNLP 2021).

The mean and the median score each system on its own; Bradley–Terry, Elo and
TrueSkill look at the example-level battles between systems, so they keep the
pairing. This module ranks one benchmark and metric by every mechanism,
measures how much the rankings disagree, and gives the P(A beats B) matrix
with sign-test significance.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy import optimize
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import connected_components
from statsmodels.stats.multitest import multipletests

from .._matrix import ScoreMatrix
from .._options import TestOptions, resolve
from ..stats import _kernels as k
from ..stats._clusters import ClusterDesign, clustered_sign_pvalues
from ._bradley_terry import bradley_terry, elo_scale
from ._sequential import battles_from_scores, sequential_elo, sequential_trueskill

__all__ = ["CORE_MECHANISMS", "Davidson", "Mechanisms", "PBeats", "davidson",
           "kendall_tau_matrix", "mechanisms", "p_beats", "rank_by"]

#: The mechanisms SPEC names; ``winner_differs`` and ``top3_differs`` compare these.
CORE_MECHANISMS = ("mean", "median", "bradley_terry", "elo", "trueskill")
_MAX_PHI = 30.0  # |log ν| bound: ν = e^-30 is "no ties" for any data size


@dataclass(frozen=True)
class Davidson:
    """Davidson (1970) Bradley–Terry with ties: ``strength`` sums to 1, ``nu`` the tie parameter."""

    strength: np.ndarray
    nu: float
    loglik: float
    converged: bool
    prior: float


@dataclass(frozen=True)
class PBeats:
    """P(A beats B) per pair with an exact sign test.

    ``prob`` (S × S DataFrame): share of shared examples where the row system
    scores higher than the column system, ties split half-half (diagonal NaN).
    ``table`` columns: system_a, system_b, wins_a, wins_b, ties, n, p_a_beats_b,
    pvalue (two-sided sign test on the decisive examples), pvalue_adj, significant.
    """

    prob: pd.DataFrame
    table: pd.DataFrame
    correction: str
    alpha: float


@dataclass(frozen=True)
class Mechanisms:
    """Rankings of one benchmark and metric by each aggregation mechanism.

    ``scores`` (DataFrame, one row per system): mean, median, bradley_terry (ties
    as half wins), bradley_terry_ignore_ties, bradley_terry_davidson, elo_mle
    (400·log10 of the half-win strength), elo (sequential, mean over orders),
    elo_sd (its SD over orders), trueskill (mu), trueskill_sigma.
    ``rankings``: mechanism → systems best first. ``kendall_tau``: "a|b" → tau-b
    between the two mechanisms' scores.
    """

    benchmark: str
    metric: str
    scores: pd.DataFrame
    rankings: dict[str, tuple[str, ...]]
    kendall_tau: dict[str, float]
    winner_differs: bool
    top3_differs: bool
    p_beats: PBeats
    n_examples: int
    n_battles: int
    params: dict[str, object] = field(default_factory=dict)


def _strongly_connected(a: np.ndarray) -> bool:
    n_components, _ = connected_components(csr_matrix(a > 0), directed=True, connection="strong")
    return bool(n_components == 1)


def _davidson_terms(theta: np.ndarray, phi: float, n: np.ndarray
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """D_ij = π_i + π_j + ν√(π_i π_j) (in units of the largest π, for overflow) and its parts."""
    pi = np.exp(theta - theta.max())
    tie = np.exp(phi) * np.sqrt(np.outer(pi, pi))
    d = pi[:, None] + pi[None, :] + tie
    return pi, tie, np.where(n > 0, d, 1.0)


def davidson(wins: np.ndarray, ties: np.ndarray, *, prior: float = 0.5, tol: float = 1e-10
             ) -> Davidson:
    """Fit Davidson's Bradley–Terry model with ties by maximum likelihood.

    Parameters
    ----------
    wins : ndarray (S, S)
        ``wins[i, j]``: examples on which i beats j.
    ties : ndarray (S, S), symmetric
        Tied examples per pair.
    prior : float, keyword-only
        Tied pseudo-battles added to every pair only when the "i won or tied
        against j" graph is not strongly connected (the MLE would not exist).

    Returns
    -------
    Davidson

    Notes
    -----
    P(i beats j) = π_i / D_ij, P(tie) = ν √(π_i π_j) / D_ij with
    D_ij = π_i + π_j + ν √(π_i π_j). The log-likelihood
    Σ_i θ_i (w_i + t_i / 2) + T log ν − Σ_{i<j} N_ij log D_ij (θ = log π) is
    concave in (θ, log ν) and is maximised with L-BFGS on its exact gradient.
    At the optimum each system's expected wins plus half ties equal the
    observed ones, and the expected ties equal the observed ties.

    References
    ----------
    Davidson (1970), On extending the Bradley–Terry model to accommodate ties
    in paired comparison experiments, JASA 65:317–328.
    """
    s = len(wins)
    w = np.asarray(wins, dtype=float)
    t = np.asarray(ties, dtype=float)
    if s <= 1:
        return Davidson(np.ones(s), 0.0, 0.0, True, 0.0)
    used_prior = 0.0 if _strongly_connected(w + t) else prior
    t = t + used_prior * (1.0 - np.eye(s))
    n = w + w.T + t
    score = w.sum(axis=1) + t.sum(axis=1) / 2.0
    ties_total = np.triu(t, 1).sum()

    def negloglik(params: np.ndarray) -> tuple[float, np.ndarray]:
        theta, phi = params[:-1], float(params[-1])
        pi, tie, d = _davidson_terms(theta, phi, n)
        ll = (theta - theta.max()) @ score + phi * ties_total - np.triu(n * np.log(d), 1).sum()
        share = n / d
        grad_theta = score - (share * (pi[:, None] + tie / 2.0)).sum(axis=1)
        grad_phi = ties_total - np.triu(share * tie, 1).sum()
        return -float(ll), -np.append(grad_theta, grad_phi)

    start = np.append(np.zeros(s), 0.0 if ties_total > 0 else -_MAX_PHI)
    bounds = [(None, None)] * s + [(-_MAX_PHI, _MAX_PHI)]
    res = optimize.minimize(negloglik, start, jac=True, method="L-BFGS-B", bounds=bounds,
                            options={"gtol": tol, "ftol": 1e-15, "maxiter": 10_000})
    theta = res.x[:-1]
    strength = np.exp(theta - theta.max())
    return Davidson(strength / strength.sum(), float(np.exp(res.x[-1])), -float(res.fun),
                    bool(res.success), used_prior)


def p_beats(matrix: ScoreMatrix, *, options: TestOptions | None = None,
            cluster: ClusterDesign | None = None) -> PBeats:
    """P(A beats B) for every pair on the shared examples, with exact sign tests.

    Parameters
    ----------
    matrix : ScoreMatrix
        Needs at least one example scored by every system.
    options : TestOptions, keyword-only
        Its ``correction`` adjusts the sign-test p-values over all pairs (statsmodels
        ``multipletests``, as the pairwise tests) and its ``alpha`` is the level of
        ``significant`` (adjusted p < alpha); default: ``TestOptions()``.
    cluster : ClusterDesign, optional
        The cluster of each shared example (every system on every example): each pair's
        sign test is then cluster-robust (:func:`engine.stats._clusters.clustered_sign_pvalues`:
        CR2 t of the mean win − loss sign, Bell–McCaffrey df), as the leaderboard's tests are.

    Returns
    -------
    PBeats

    Notes
    -----
    With W = the win matrix and T_ij = n − W_ij − W_ji the ties,
    P(A beats B) = (W_AB + T_AB / 2) / n. The sign test is the two-sided exact
    binomial test of W_AB against W_AB + W_BA decisive examples, p0 = 1/2.

    References
    ----------
    Peyrard, Zhao, Eger & West (2021). Better than Average: Paired Evaluation
    of NLP Systems. ACL-IJCNLP 2021, pp. 2301–2315, §2.2 and Fig. 5.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from engine._matrix import build_matrix
    >>> df = pd.DataFrame({"benchmark": "b", "metric": "m", "system": ["A"] * 3 + ["B"] * 3,
    ...                    "example_id": ["1", "2", "3"] * 2, "value": [1, 1, 0, 0, 1, 0.0]})
    >>> p_beats(build_matrix(df)).prob.loc["A", "B"]
    np.float64(0.6666666666666666)
    """
    opts = resolve(options, {})
    alpha, correction = opts.alpha, opts.correction
    x = _paired_scores(matrix)
    s, n = x.shape
    wins = k.win_matrix(x, binary=matrix.binary)
    ties = n - wins - wins.T
    with np.errstate(invalid="ignore", divide="ignore"):
        prob = (wins + ties / 2.0) / n
    np.fill_diagonal(prob, np.nan)
    ia, ja = np.triu_indices(s, 1)
    if cluster is None:
        p = k.exact_sign_pvalues(wins[ia, ja], wins[ja, ia], "two-sided")
    else:
        if len(cluster.codes) != n or matrix.pairing != "full":
            raise ValueError("cluster: a cluster-robust sign test needs every system scored on "
                             "every example")
        p = clustered_sign_pvalues(x, cluster, ia, ja)
    if correction == "none" or len(p) == 0:
        p_adj = p.copy()
    else:
        with np.errstate(divide="ignore", invalid="ignore"):  # p = 1 makes Šidák take log(0)
            p_adj = np.maximum(multipletests(p, alpha=alpha, method=correction)[1], p)
    systems = list(matrix.systems)
    table = pd.DataFrame({
        "system_a": [systems[i] for i in ia], "system_b": [systems[j] for j in ja],
        "wins_a": wins[ia, ja], "wins_b": wins[ja, ia], "ties": ties[ia, ja],
        "n": np.full(len(ia), n), "p_a_beats_b": prob[ia, ja], "pvalue": p,
        "pvalue_adj": p_adj, "significant": p_adj < alpha,
    })
    frame = pd.DataFrame(prob, index=systems, columns=systems)
    return PBeats(frame, table, correction, alpha)


def _quantise(x: np.ndarray) -> np.ndarray:
    """Scores rounded to 9 digits of their largest magnitude: iterative fits (Bradley–Terry
    to 1e-10) leave ~1e-12 noise between systems that are exactly tied."""
    x = np.asarray(x, dtype=float)
    finite = np.abs(x[np.isfinite(x)])
    scale = float(finite.max()) if finite.size and finite.max() > 0 else 1.0
    return np.asarray(np.round(x / scale, 9))


def rank_by(scores: np.ndarray, systems: tuple[str, ...] | list[str],
            tiebreak: np.ndarray | None = None) -> tuple[str, ...]:
    """Systems ordered best first by ``scores``; ties broken by ``tiebreak`` (higher first), then name."""
    scores = _quantise(scores)
    second = np.zeros_like(scores) if tiebreak is None else _quantise(tiebreak)
    names = np.asarray(systems, dtype=object)
    name_rank = np.argsort(np.argsort(names.astype(str)))
    order = np.lexsort((name_rank, -second, -scores))  # last key is the primary one
    return tuple(str(names[i]) for i in order)


def kendall_tau_matrix(scores: dict[str, np.ndarray]) -> dict[str, float]:
    """Kendall's tau-b between every two score vectors, keyed "a|b" in the given order.

    Notes
    -----
    With sgn_m(i, j) = sign(x_m,i − x_m,j) over pairs i < j, tau-b between
    mechanisms m and m' is Σ sgn_m sgn_m' / √(n_m n_m'), n_m = pairs not tied
    under m: one matrix product for all mechanisms (scipy.stats.kendalltau's
    default variant; NaN when a mechanism ties every pair). Scores equal to 9
    significant digits count as tied.
    """
    names = list(scores)
    if not names:
        return {}
    x = np.vstack([_quantise(scores[m]) for m in names])
    ii, jj = np.triu_indices(x.shape[1], 1)
    sign = np.sign(x[:, ii] - x[:, jj])
    untied = (sign != 0).sum(axis=1).astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        tau = (sign @ sign.T) / np.sqrt(np.outer(untied, untied))
    return {f"{names[a]}|{names[b]}": float(tau[a, b])
            for a in range(len(names)) for b in range(a + 1, len(names))}


def _paired_scores(matrix: ScoreMatrix) -> np.ndarray:
    if matrix.n_common < 1:
        raise ValueError("matrix: no example is scored by every system, so battles between "
                         "systems (Bradley–Terry, Elo, TrueSkill, P(A beats B)) are undefined")
    return matrix.oriented(paired=True)


def _battle_scores(x: np.ndarray, binary: bool) -> dict[str, np.ndarray]:
    """Bradley–Terry in its three tie rules, and the static Elo scale."""
    n = x.shape[1]
    wins = k.win_matrix(x, binary=binary)
    ties = n - wins - wins.T
    np.fill_diagonal(ties, 0)
    half = bradley_terry(wins, n).strength
    return {
        "bradley_terry": half,
        "bradley_terry_ignore_ties": bradley_terry(wins, wins + wins.T).strength,
        "bradley_terry_davidson": davidson(wins, ties).strength,
        "elo_mle": elo_scale(half),
    }


def mechanisms(
    matrix: ScoreMatrix,
    *,
    k_factor: float = 4.0,
    n_permutations: int = 100,
    trueskill_permutations: int = 20,
    rng: np.random.Generator | int | None = 0,
    options: TestOptions | None = None,
) -> Mechanisms:
    """Rank the systems by mean, median, Bradley–Terry, Elo and TrueSkill, and compare.

    Parameters
    ----------
    matrix : ScoreMatrix
        One benchmark and metric; every mechanism uses the examples all systems share.
    k_factor : float, keyword-only
        K of the sequential Elo (4, as arena leaderboards).
    n_permutations, trueskill_permutations : int, keyword-only
        Random battle orders averaged for Elo and for TrueSkill (TrueSkill's
        ratings vary far less between orders and cost more per battle).
    rng : Generator or int, keyword-only
        Seed of the battle orders.
    options : TestOptions, keyword-only
        Its ``correction`` and ``alpha`` are the sign tests' of the P(A beats B) matrix
        (default: ``TestOptions()``).

    Returns
    -------
    Mechanisms
        ``scores`` columns: system, mean, median, bradley_terry,
        bradley_terry_ignore_ties, bradley_terry_davidson, elo_mle, elo, elo_sd,
        trueskill, trueskill_sigma; ``rankings``; ``kendall_tau``;
        ``winner_differs`` / ``top3_differs`` (among the five SPEC mechanisms);
        ``p_beats``.

    Notes
    -----
    Battles are decisive example-level comparisons (ties dropped) for the
    sequential Elo and TrueSkill; Bradley–Terry counts ties as half wins
    (as the leaderboard), or drops them, or models them (Davidson). A tie in
    a mechanism's scores is broken by the mean, then by name. ``top3_differs``
    compares the *sets* of the three best systems.

    References
    ----------
    Peyrard, Zhao, Eger & West (2021). Better than Average: Paired Evaluation
    of NLP Systems. ACL-IJCNLP 2021, pp. 2301–2315, §2, §5 and appendix G.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from engine._matrix import build_matrix
    >>> rng = np.random.default_rng(0)
    >>> df = pd.DataFrame({"benchmark": "b", "metric": "m",
    ...                    "system": np.repeat(["A", "B", "C"], 40),
    ...                    "example_id": np.tile(np.arange(40).astype(str), 3),
    ...                    "value": (rng.random(120) < np.repeat([0.8, 0.5, 0.2], 40)) * 1.0})
    >>> res = mechanisms(build_matrix(df), n_permutations=10, trueskill_permutations=2)
    >>> res.rankings["mean"], res.winner_differs
    (('A', 'B', 'C'), False)
    """
    opts = resolve(options, {})
    alpha, correction = opts.alpha, opts.correction
    x = _paired_scores(matrix)
    battles = battles_from_scores(x)
    gen = np.random.default_rng(rng)
    elo = sequential_elo(battles, k=k_factor, n_permutations=n_permutations, rng=gen)
    ts = sequential_trueskill(battles, n_permutations=trueskill_permutations, rng=gen)
    values: dict[str, np.ndarray] = {"mean": x.mean(axis=1), "median": np.median(x, axis=1),
                                     **_battle_scores(x, matrix.binary),
                                     "elo": elo.rating, "trueskill": ts.rating}
    order = ["mean", "median", "bradley_terry", "elo", "trueskill", "bradley_terry_ignore_ties",
             "bradley_terry_davidson", "elo_mle"]
    rankings = {m: rank_by(values[m], matrix.systems, values["mean"]) for m in order}
    winners = {rankings[m][0] for m in CORE_MECHANISMS}
    top3 = {frozenset(rankings[m][:3]) for m in CORE_MECHANISMS}
    scores = pd.DataFrame({"system": list(matrix.systems), **{m: values[m] for m in order},
                           "elo_sd": elo.by_permutation.std(axis=0),
                           "trueskill_sigma": ts.sigma})
    params: dict[str, object] = {
        "k_factor": k_factor, "n_permutations": n_permutations,
        "trueskill_permutations": trueskill_permutations,
        "seed": rng if isinstance(rng, int) else None, "correction": correction, "alpha": alpha,
        "ties": {"elo": "ignore", "trueskill": "ignore", "bradley_terry": "half"},
    }
    return Mechanisms(matrix.benchmark, matrix.metric, scores, rankings,
                      kendall_tau_matrix({m: values[m] for m in order}),
                      len(winners) > 1, len(top3) > 1,
                      p_beats(matrix, options=opts),
                      x.shape[1], battles.n_battles, params)
