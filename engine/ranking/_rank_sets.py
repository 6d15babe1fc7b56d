"""Confidence sets for ranks and for the τ best (Mogstad, Romano, Shaikh & Wilhelm 2024).

From estimates θ̂ (one per system) and their covariance Σ̂, every ordered pair (a, b)
carries the hypothesis "θ_a ≤ θ_b"; rejecting it says a is better than b. The
hypotheses are tested with the max-t statistic max (θ̂_a − θ̂_b − (θ_a − θ_b)) / σ_ab
over the hypotheses still open, its quantile taken from a parametric bootstrap
Z ~ N(0, Σ̂), with stepdown (Romano & Wolf 2005): reject, drop the rejected pairs,
take the quantile again over the rest, until nothing more is rejected. A system's
rank set runs from 1 + (systems shown better) to S − (systems shown worse).

- *simultaneous*: one family of all ordered pairs; the sets cover all true ranks
  together with probability ≥ 1 − α;
- *marginal*: system i's family is only the pairs involving i; its set covers i's
  true rank with probability ≥ 1 − α;
- *τ best* (*τ worst*): the systems whose simultaneous lower (upper) rank bound is
  ≤ τ (≥ S − τ + 1): they contain every truly τ-best system with probability ≥ 1 − α.

Chain: validate → covariance square root and bootstrap draws → pair statistics →
stepdown (simultaneous, or every system's marginal family at once) → table.
The covariance of means from paired example-level data is :func:`mean_covariance`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import pandas as pd

from .._matrix import ScoreMatrix, orient

__all__ = ["RANK_SET_COLUMNS", "KINDS", "MeanCovariance", "RankSets", "best_set_sentence",
           "leaderboard_rank_sets",
           "mean_covariance", "overall_rank_sets", "rank_set_fields", "rank_sets", "rank_sets_of",
           "tau_best_set", "tau_worst_set", "with_rank_set_fields"]

Kind = Literal["marginal", "simultaneous"]
KINDS: tuple[Kind, ...] = ("marginal", "simultaneous")
RANK_SET_COLUMNS = ("system", "estimate", "se", "rank", "rank_set_low", "rank_set_high",
                    "in_best_set", "in_worst_set")
_CELLS = 4_000_000  # bootstrap cells per block (pairs × draws): bounds memory to ~100 MB


@dataclass(frozen=True)
class RankSets:
    """Rank confidence sets of every system and the τ-best / τ-worst sets.

    ``table`` columns: system, estimate, se, rank (1 = best, ties share the best),
    rank_set_low, rank_set_high (the 1 − alpha rank set, ``kind``), in_best_set
    (in the 1 − alpha confidence set for the ``tau_best`` best), in_worst_set
    (for the ``tau_worst`` worst); rows best first. ``steps`` is the number of
    stepdown rounds the procedure took (the largest over systems for marginal sets);
    ``critical_value`` is the first round's 1 − alpha quantile of the all-pairs max-t
    statistic (with independent equal variances: Tukey's q(1 − α; S, ∞) / √2).
    """

    table: pd.DataFrame
    kind: Kind
    alpha: float
    tau_best: int
    tau_worst: int
    higher_is_better: bool
    n_draws: int
    seed: int | None
    steps: int
    critical_value: float

    @property
    def best_set(self) -> tuple[str, ...]:
        """The systems that may be among the ``tau_best`` best (1 − alpha), best first."""
        return tuple(self.table.loc[self.table["in_best_set"], "system"])

    def to_dict(self) -> dict[str, object]:
        """The JSON object of ``sigboard ranks --format json``."""
        return {"kind": self.kind, "alpha": self.alpha, "method": "mogstad-romano-shaikh-wilhelm",
                "tau_best": self.tau_best, "best_set": list(self.best_set),
                "tau_worst": self.tau_worst, "n_draws": self.n_draws, "seed": self.seed,
                "stepdown_steps": self.steps, "critical_value": self.critical_value,
                "systems": self.table.to_dict(orient="records")}


@dataclass(frozen=True)
class MeanCovariance:
    """Each system's mean score and the covariance matrix of those means.

    ``estimates`` are oriented (larger is better); ``means`` raw. ``method`` says
    which variance: "paired" (examples as independent units), "cluster" (cluster-robust
    by ``n_clusters`` clusters); ``run_variance`` is the seed-sweep component added to
    each system's variance (0 without runs).
    """

    systems: tuple[str, ...]
    means: np.ndarray
    estimates: np.ndarray
    cov: np.ndarray
    n: np.ndarray
    method: str
    n_clusters: int
    run_variance: np.ndarray


# --- validation -----------------------------------------------------------------------------

def _validate(x: np.ndarray, cov: np.ndarray, alpha: float, labels: Sequence[str] | None,
              n_draws: int) -> list[str]:
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha: must be strictly between 0 and 1; got {alpha}")
    if x.ndim != 1 or len(x) < 2:
        raise ValueError(f"estimates: must be a 1-D array of at least 2 values; got shape {x.shape}")
    if not np.isfinite(x).all():
        raise ValueError("estimates: must be finite numbers; got NaN or infinity")
    if cov.shape != (len(x), len(x)):
        raise ValueError(f"cov: must be a {len(x)} × {len(x)} matrix (one row per estimate); "
                         f"got shape {cov.shape}")
    if not np.isfinite(cov).all():
        raise ValueError("cov: must hold finite numbers; got NaN or infinity")
    if not np.allclose(cov, cov.T, rtol=1e-8, atol=1e-12 * max(float(np.abs(cov).max()), 1e-300)):
        raise ValueError("cov: must be symmetric; got cov != cov.T")
    if (np.diag(cov) < 0).any():
        raise ValueError(f"cov: variances on the diagonal must be ≥ 0; got {np.diag(cov).min()}")
    if n_draws < 100:
        raise ValueError(f"n_draws: must be at least 100; got {n_draws}")
    names = [str(i) for i in range(len(x))] if labels is None else [str(s) for s in labels]
    if len(names) != len(x):
        raise ValueError(f"labels: must have one label per estimate ({len(x)}); got {len(names)}")
    return names


def _check_tau(tau: int, p: int, name: str) -> int:
    if isinstance(tau, bool) or int(tau) != tau or not 1 <= tau <= p:
        raise ValueError(f"{name}: must be a whole number from 1 to the number of systems ({p}); "
                         f"got {tau!r}")
    return int(tau)


# --- bootstrap draws and pair statistics ----------------------------------------------------

def _draws(cov: np.ndarray, n_draws: int, rng: np.random.Generator | int | None) -> np.ndarray:
    """``n_draws`` draws of Z ~ N(0, cov) / s as a systems × draws float32 array, with s
    the largest standard deviation (so float32 neither under- nor overflows).

    The square root is the Cholesky factor, or, for a singular covariance (two systems
    with the same scores), the eigendecomposition with negative eigenvalues set to 0.
    float32 halves the memory traffic of the pair statistics; the critical value moves
    by ~1e-6.
    """
    scale = _scale(cov)
    try:
        root = np.linalg.cholesky(cov / scale**2)
    except np.linalg.LinAlgError:
        vals, vecs = np.linalg.eigh(cov / scale**2)
        root = vecs * np.sqrt(np.clip(vals, 0.0, None))
    gen = np.random.default_rng(rng)
    return np.asarray(root @ gen.standard_normal((len(cov), n_draws)), dtype=np.float32)


def _scale(cov: np.ndarray) -> float:
    """The largest standard deviation (1 when all are 0)."""
    top = float(np.sqrt(np.diag(cov).max()))
    return top if top > 0 else 1.0


def _pair_sd(cov: np.ndarray) -> np.ndarray:
    """σ_ab = sd(θ̂_a − θ̂_b) = √(Σ_aa + Σ_bb − 2Σ_ab), 0 on the diagonal."""
    d = np.diag(cov)
    var = d[:, None] + d[None, :] - 2.0 * cov
    scale = max(float(d.max()), 1e-300)
    return np.sqrt(np.where(var > 1e-12 * scale, var, 0.0))


def _t_matrix(x: np.ndarray, sd: np.ndarray) -> np.ndarray:
    """T_ab = (θ̂_a − θ̂_b) / σ_ab; a difference known without error is ±∞ (0 when none)."""
    diff = x[:, None] - x[None, :]
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(sd > 0, diff / np.where(sd > 0, sd, 1.0), np.sign(diff) * np.inf)
    return np.asarray(np.nan_to_num(t, nan=0.0, posinf=np.inf, neginf=-np.inf))


def _inverse(sd: np.ndarray, scale: float) -> np.ndarray:
    """s / σ_ab (float32, to match the draws of :func:`_draws`), 0 where σ_ab = 0
    (such a pair's bootstrap difference is 0)."""
    return np.where(sd > 0, scale / np.where(sd > 0, sd, 1.0), 0.0).astype(np.float32)


def _family_max(z: np.ndarray, inv: np.ndarray, active: np.ndarray) -> np.ndarray:
    """Per draw, the max over the active ordered pairs (a, b) of (Z_a − Z_b) / σ_ab.

    Pairs open in both directions contribute |Z_a − Z_b| / σ_ab once, so each unordered
    pair is computed once; the work is a gather over the pair list in blocks.
    """
    upper = np.triu(np.ones(active.shape, dtype=bool), 1)
    both = active & active.T & upper
    one = active & ~active.T
    out = np.full(z.shape[1], -np.inf)
    step = max(1, _CELLS // max(z.shape[1], 1))
    for mask, absolute in ((both, True), (one, False)):
        a, b = np.nonzero(mask)
        for start in range(0, len(a), step):
            ia, ib = a[start:start + step], b[start:start + step]
            d = (z[ia] - z[ib]) * inv[ia, ib][:, None]
            out = np.maximum(out, (np.abs(d) if absolute else d).max(axis=0))
    return out


def _system_max(z: np.ndarray, inv: np.ndarray, out_open: np.ndarray,
                in_open: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Per system i in ``rows`` and draw: the max over i's open family of the pair statistic.

    System i's family is (i, k) for k in ``out_open[i]`` (i better than k) and (k, i) for
    k in ``in_open[i]``; one block of systems × systems × draws at a time.
    """
    n_draws = z.shape[1]
    step = max(1, _CELLS // max(len(z) * n_draws, 1))
    result = np.empty((len(rows), n_draws))
    for start in range(0, len(rows), step):
        r = rows[start:start + step]
        d = (z[r][:, None, :] - z[None, :, :]) * inv[r][:, :, None]
        up = np.where(out_open[r][:, :, None], d, -np.inf).max(axis=1)
        down = np.where(in_open[r][:, :, None], -d, -np.inf).max(axis=1)
        result[start:start + len(r)] = np.maximum(up, down)
    return result


# --- stepdown ---------------------------------------------------------------------------------

def _simultaneous(t: np.ndarray, z: np.ndarray, inv: np.ndarray, alpha: float,
                  stepdown: bool) -> tuple[np.ndarray, int, float]:
    """Rejected ordered pairs (a shown better than b) of the one all-pairs family, the
    number of rounds and the first round's critical value."""
    open_ = ~np.eye(len(t), dtype=bool)
    rejected = np.zeros_like(open_)
    steps, first = 0, float("nan")
    while open_.any():
        steps += 1
        crit = float(np.quantile(_family_max(z, inv, open_), 1.0 - alpha))
        first = crit if steps == 1 else first
        new = open_ & (t > crit)
        rejected |= new
        open_ &= ~new
        if not stepdown or not new.any():
            break
    return rejected, steps, first


def _marginal(t: np.ndarray, z: np.ndarray, inv: np.ndarray, alpha: float,
              stepdown: bool) -> tuple[np.ndarray, np.ndarray, int]:
    """Per system i: the systems i is shown better than (``wins[i]``) and worse than
    (``losses[i]``) in i's own family, every system's stepdown at once."""
    p = len(t)
    out_open = ~np.eye(p, dtype=bool)
    in_open = out_open.copy()
    wins, losses = np.zeros_like(out_open), np.zeros_like(out_open)
    todo = np.arange(p)
    steps = 0
    while todo.size:
        steps += 1
        crit = np.quantile(_system_max(z, inv, out_open, in_open, todo), 1.0 - alpha, axis=1)
        won = out_open[todo] & (t[todo] > crit[:, None])
        lost = in_open[todo] & (-t[todo] > crit[:, None])
        wins[todo] |= won
        losses[todo] |= lost
        out_open[todo] &= ~won
        in_open[todo] &= ~lost
        changed = (won | lost).any(axis=1) & (out_open[todo] | in_open[todo]).any(axis=1)
        todo = todo[changed] if stepdown else todo[:0]
    return wins, losses, steps


# --- public functions -------------------------------------------------------------------------

def rank_sets(
    estimates: Sequence[float] | np.ndarray,
    cov: np.ndarray,
    *,
    kind: Kind = "simultaneous",
    alpha: float = 0.05,
    tau_best: int = 1,
    tau_worst: int = 1,
    labels: Sequence[str] | None = None,
    higher_is_better: bool = True,
    stepdown: bool = True,
    n_draws: int = 1_000,
    rng: np.random.Generator | int | None = 0,
) -> RankSets:
    """Marginal or simultaneous 1 − alpha confidence sets for ranks, and the τ-best set.

    Parameters
    ----------
    estimates : array-like (S,)
        One estimate per system (e.g. its mean score).
    cov : array (S, S)
        Covariance matrix of the estimates (of the *means*; diagonal for independent
        estimates: ``np.diag(se**2)``).
    kind : {"simultaneous", "marginal"}, keyword-only
        Simultaneous sets cover all true ranks together; marginal sets each cover one.
    alpha : float
        1 − coverage.
    tau_best, tau_worst : int
        τ of the confidence sets for the τ best and the τ worst (1: "the best is one of").
    labels : sequence of str, optional
        System names (default "0", "1", …).
    higher_is_better : bool
        Rank 1 = the largest estimate (False: the smallest).
    stepdown : bool
        Stepdown (default, as ``csranks``) or a single step.
    n_draws, rng
        Parametric bootstrap draws (``csranks``' R, default 1,000) and their seed.

    Returns
    -------
    RankSets

    Notes
    -----
    The τ-best and τ-worst sets are always the projections of the *simultaneous* rank
    sets (as ``csranks::cstaubest``), whatever ``kind``. Every stepdown round draws
    from the same bootstrap sample, so rounds only ever reject more.

    References
    ----------
    Mogstad, Romano, Shaikh & Wilhelm (2024), "Inference for Ranks with Applications to
    Mobility across Neighbourhoods and Academic Achievement across Countries", Review
    of Economic Studies 91(1):476–518; R package ``csranks`` (``csranks``, ``cstaubest``,
    ``cstauworst``).

    Examples
    --------
    >>> res = rank_sets([10.0, 9.0, 0.0], np.eye(3) * 0.01, labels=list("ABC"))
    >>> res.table[["system", "rank_set_low", "rank_set_high"]].values.tolist()
    [['A', 1, 1], ['B', 2, 2], ['C', 3, 3]]
    """
    x = np.asarray(estimates, dtype=float)
    sigma = np.asarray(cov, dtype=float)
    names = _validate(x, sigma, alpha, labels, n_draws)
    sigma = (sigma + sigma.T) / 2.0  # exactly symmetric: σ_ab and σ_ba are the same number
    # the draws depend on the order of the rows: fix it by name, so that two pages listing
    # the same systems in different orders get the same sets
    by_name = np.argsort(np.asarray(names, dtype=object), kind="stable")
    x, sigma, names = x[by_name], sigma[np.ix_(by_name, by_name)], [names[i] for i in by_name]
    p = len(x)
    tau_best, tau_worst = _check_tau(tau_best, p, "tau_best"), _check_tau(tau_worst, p, "tau_worst")
    quality = x if higher_is_better else -x
    sd = _pair_sd(sigma)
    t, inv = _t_matrix(quality, sd), _inverse(sd, _scale(sigma))
    z = _draws(sigma, n_draws, rng)
    rejected, steps, crit = _simultaneous(t, z, inv, alpha, stepdown)
    simul_low, simul_high = 1 + rejected.sum(axis=0), p - rejected.sum(axis=1)
    if kind == "simultaneous":
        low, high = simul_low, simul_high
    elif kind == "marginal":
        wins, losses, steps = _marginal(t, z, inv, alpha, stepdown)
        low, high = 1 + losses.sum(axis=1), p - wins.sum(axis=1)
    else:
        raise ValueError(f"kind: must be one of {list(KINDS)}; got {kind!r}")
    table = pd.DataFrame({
        "system": names, "estimate": x, "se": np.sqrt(np.diag(sigma)),
        "rank": pd.Series(quality).rank(method="min", ascending=False).astype(int).to_numpy(),
        "rank_set_low": low.astype(int), "rank_set_high": high.astype(int),
        "in_best_set": simul_low <= tau_best, "in_worst_set": simul_high >= p - tau_worst + 1,
    })
    table = table.assign(_q=quality).sort_values(["rank", "_q", "system"],
                                                   ascending=[True, False, True])
    table = table.drop(columns="_q").reset_index(drop=True)
    return RankSets(table, kind, alpha, tau_best, tau_worst, higher_is_better, n_draws,
                    rng if isinstance(rng, int) else None, steps, crit)


def tau_best_set(estimates: Sequence[float] | np.ndarray, cov: np.ndarray, *, tau: int = 1,
                 alpha: float = 0.05, n_draws: int = 1_000,
                 rng: np.random.Generator | int | None = 0) -> np.ndarray:
    """Boolean mask (in input order) of the 1 − alpha confidence set for the τ best
    (``csranks::cstaubest``): every truly τ-best system is in it with probability ≥ 1 − alpha."""
    res = rank_sets(estimates, cov, alpha=alpha, tau_best=tau, n_draws=n_draws, rng=rng)
    return _in_input_order(res, "in_best_set", len(np.asarray(estimates)))


def tau_worst_set(estimates: Sequence[float] | np.ndarray, cov: np.ndarray, *, tau: int = 1,
                  alpha: float = 0.05, n_draws: int = 1_000,
                  rng: np.random.Generator | int | None = 0) -> np.ndarray:
    """Boolean mask (in input order) of the 1 − alpha confidence set for the τ worst
    (``csranks::cstauworst``)."""
    res = rank_sets(estimates, cov, alpha=alpha, tau_worst=tau, n_draws=n_draws, rng=rng)
    return _in_input_order(res, "in_worst_set", len(np.asarray(estimates)))


def _in_input_order(res: RankSets, column: str, p: int) -> np.ndarray:
    flags = dict(zip(res.table["system"], res.table[column], strict=True))
    return np.array([bool(flags[str(i)]) for i in range(p)])


def mean_covariance(matrix: ScoreMatrix, *,
                    cluster: Sequence[object] | np.ndarray | None = None) -> MeanCovariance:
    """Each system's mean score and the full covariance of the means, from paired examples.

    Each system's mean uses every example it has (as the leaderboard). With ``u_ai =
    (x_ai − x̄_a) / n_a`` on the examples a scored (0 elsewhere), the covariance is the
    sandwich ``Σ_ab = G/(G − 1) Σ_g (Σ_{i∈g} u_ai)(Σ_{i∈g} u_bi)`` over clusters g (each
    example its own cluster by default, when this is the sample covariance / n on fully
    paired data). Shared examples make means positively correlated, which narrows σ_ab
    and sharpens the rank sets. With several runs, each system's seed-sweep variance
    component σ²_run / R (:func:`engine.stats._runs.run_anova`) is added to its variance.

    ``cluster`` gives one label per example of ``matrix.examples`` (e.g. a task family).
    """
    x = orient(matrix.values, higher_is_better=matrix.higher_is_better, binary=matrix.binary)
    has = ~np.isnan(x)
    n = has.sum(axis=1)
    empty = [s for s, k in zip(matrix.systems, n, strict=True) if k == 0]
    if empty:
        raise ValueError(f"matrix: system(s) {empty!r} scored no example; drop them first")
    est = np.where(has, x, 0.0).sum(axis=1) / n
    u = np.where(has, x - est[:, None], 0.0) / n[:, None]
    used = has.any(axis=0)
    if cluster is None:
        units, g, method = u[:, used], int(used.sum()), "paired"
    else:
        codes = _cluster_codes(cluster, matrix.n_examples)
        onehot = np.zeros((matrix.n_examples, int(codes.max()) + 1))
        onehot[np.arange(matrix.n_examples), codes] = 1.0
        units = u @ onehot
        units = units[:, np.abs(units).sum(axis=0) > 0] if units.size else units
        g, method = int((onehot[used].sum(axis=0) > 0).sum()), "cluster"
    if g < 2:
        raise ValueError(f"matrix: needs at least 2 examples (or clusters) with scores; got {g}")
    cov = units @ units.T * (g / (g - 1))
    run_var = _run_variance(matrix)
    cov[np.diag_indices_from(cov)] += run_var
    means = np.where(has, matrix.values, 0.0).sum(axis=1) / n
    return MeanCovariance(matrix.systems, means, est, cov, n, method, g, run_var)


def _cluster_codes(cluster: Sequence[object] | np.ndarray, n_examples: int) -> np.ndarray:
    labels = pd.Series(np.asarray(cluster, dtype=object))
    if len(labels) != n_examples:
        raise ValueError(f"cluster: needs one label per example ({n_examples}); got {len(labels)}")
    if labels.isna().any():
        raise ValueError(f"cluster: example {int(labels.isna().to_numpy().argmax())} has no cluster "
                         "label; give every example one")
    return np.asarray(pd.factorize(labels)[0])


def _run_variance(matrix: ScoreMatrix) -> np.ndarray:
    """Per system σ̂²_run / R: the variance a whole-sweep seed shift adds to its mean."""
    if matrix.run_scores is None:
        return np.zeros(matrix.n_systems)
    from ..stats._runs import run_anova, run_cube  # only data with runs pays for it
    frame = matrix.run_scores.assign(benchmark=matrix.benchmark, metric=matrix.metric)
    cube = run_cube(frame, systems=list(matrix.systems))
    a = run_anova(cube.values, cube.runs)
    with np.errstate(divide="ignore", invalid="ignore"):
        var_run = (a.ss_run / a.df_run - a.ss_resid / a.df_resid) / a.n
    var_run = np.where((a.df_run > 0) & (a.df_resid > 0), np.maximum(var_run, 0.0), 0.0)
    return np.asarray(var_run / np.maximum(cube.runs, 1), dtype=float)


def rank_sets_of(matrix: ScoreMatrix, *, kind: Kind = "simultaneous", alpha: float = 0.05,
                 tau_best: int = 1, tau_worst: int = 1,
                 cluster: Sequence[object] | np.ndarray | None = None, n_draws: int = 1_000,
                 rng: np.random.Generator | int | None = 0) -> RankSets:
    """:func:`rank_sets` of each system's mean score with the covariance of
    :func:`mean_covariance` (paired examples, runs and clusters); ``estimate`` is the
    raw mean and rank 1 follows the metric's direction."""
    mc = mean_covariance(matrix, cluster=cluster)
    res = rank_sets(mc.estimates, mc.cov, kind=kind, alpha=alpha, tau_best=tau_best,
                    tau_worst=tau_worst, labels=matrix.systems, n_draws=n_draws, rng=rng)
    raw = dict(zip(matrix.systems, mc.means, strict=True))
    table = res.table.assign(estimate=res.table["system"].map(raw))
    return RankSets(table, res.kind, alpha, res.tau_best, res.tau_worst, matrix.higher_is_better,
                    n_draws, res.seed, res.steps, res.critical_value)


# --- the leaderboard's and the overall table's rank sets ---------------------------------------

def leaderboard_rank_sets(matrix: ScoreMatrix, *, alpha: float,
                          cluster: np.ndarray | None = None) -> RankSets | None:
    """The simultaneous rank sets and the 1-best set of a leaderboard's systems, cluster-robust
    when the leaderboard is (``cluster``: each example's cluster code); None when the matrix
    cannot give a covariance (fewer than 2 systems, or 2 scored examples or clusters)."""
    if matrix.n_systems < 2:
        return None
    try:
        return rank_sets_of(matrix, alpha=alpha, cluster=cluster)
    except ValueError:
        return None


def overall_rank_sets(matrices: Sequence[ScoreMatrix], systems: Sequence[str],
                      score: np.ndarray, factors: np.ndarray, *, alpha: float) -> RankSets | None:
    """Simultaneous rank sets of an overall score Σ_j a_j · (± mean_j − c_j) over benchmarks.

    Cov(score) = Σ_j a_j² Σ_j, each benchmark's covariance of means (:func:`mean_covariance`)
    on ``systems``; benchmarks are taken as independent (the overall's correlation of
    benchmarks that share example ids is not in it).
    """
    if len(systems) < 2 or not np.isfinite(score).all():
        return None
    cov = np.zeros((len(systems), len(systems)))
    try:
        for a, m in zip(factors, matrices, strict=True):
            cov += a**2 * mean_covariance(m.subset(list(systems))).cov
        return rank_sets(score, cov, labels=systems, alpha=alpha)
    except ValueError:
        return None


def rank_set_fields(sets: RankSets | None, system: str) -> dict[str, object]:
    """A JSON row's ``rank_set_low``, ``rank_set_high`` and ``in_best_set`` (None without sets)."""
    if sets is None:
        return {"rank_set_low": None, "rank_set_high": None, "in_best_set": None}
    i = int(np.flatnonzero(sets.table["system"].to_numpy() == system)[0])
    return {"rank_set_low": int(sets.table["rank_set_low"].to_numpy()[i]),
            "rank_set_high": int(sets.table["rank_set_high"].to_numpy()[i]),
            "in_best_set": bool(sets.table["in_best_set"].to_numpy()[i])}


def with_rank_set_fields(records: Sequence[Mapping[Any, Any]],
                         sets: RankSets | None) -> list[dict[Any, Any]]:
    """``records`` (one per system) with :func:`rank_set_fields` added to each."""
    return [{**r, **rank_set_fields(sets, str(r["system"]))} for r in records]


def best_set_sentence(sets: RankSets, *, limit: int = 6) -> str:
    """"The best system is one of {A, B, C} (95%)": the 1-best set in words (the first
    ``limit`` names, then how many more)."""
    names = list(sets.best_set)
    level = f"{1 - sets.alpha:.0%}"
    if len(names) == 1:
        return f"The best system is {names[0]} ({level}; its rank set is {{1}})."
    shown = ", ".join(names[:limit]) + (f" and {len(names) - limit} more" if len(names) > limit
                                        else "")
    return (f"The best system is one of {{{shown}}} ({level}, confidence set for the best; "
            "Mogstad et al. 2024).")
