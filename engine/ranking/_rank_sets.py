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
The draws and the stepdown are :mod:`._max_t`; the covariance of means from
paired example-level data is :func:`engine.ranking._mean_covariance.mean_covariance`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import pandas as pd
from scipy import stats

from ._max_t import _draws, _inverse, _marginal, _pair_sd, _scale, _simultaneous, _t_matrix
from ._ties import competition_ranks

__all__ = ["RANK_SET_COLUMNS", "KINDS", "Kind", "PairEvidence", "RankSets", "best_set_sentence",
           "rank_set_fields", "rank_sets", "tau_best_set", "tau_worst_set", "with_rank_set_fields"]

Kind = Literal["marginal", "simultaneous"]
KINDS: tuple[Kind, ...] = ("marginal", "simultaneous")
RANK_SET_COLUMNS = ("system", "estimate", "se", "rank", "rank_set_low", "rank_set_high",
                    "in_best_set", "in_worst_set")


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


@dataclass(frozen=True)
class PairEvidence:
    """What the pairwise tests say about every ordered pair (S × S, rows in input order).

    ``t[a, b]``: the test's t statistic of "a better than b" (oriented, ``t[b, a] =
    −t[a, b]``; NaN where the test has none, e.g. McNemar: the covariance's σ_ab is used
    there); ``df[a, b]``: its degrees of freedom (∞ for a normal statistic); ``shown[a,
    b]``: the corrected test shows a better than b. The rank sets then studentise each
    pair as its test does, take each statistic's tail from t(df) (below), and reject
    "a ≤ b" only where the test shows a better than b, so that a rank set never claims
    more than the pairwise tests on the same page — but for a difference known without
    error (the same on every example, σ_ab = 0), whose sign no test can doubt.
    """

    t: np.ndarray
    df: np.ndarray
    shown: np.ndarray


def _normal_scale(t: np.ndarray, df: np.ndarray) -> np.ndarray:
    """T_ab mapped to the normal scale by its own t(df_ab) tail: Φ⁻¹(F_df(T)).

    The max-t critical value is then taken from the N(0, Σ̂) draws as before: this is a
    Gaussian copula with t(df_ab) marginals, which gives each pair its small-sample tail
    (a run variance on a few seeds, a few clusters) and, for a given set of margins, a
    larger max quantile than the multivariate t with its shared denominator (Slepian-type
    comparison: more tail dependence, a smaller union), so it errs on the safe side.
    """
    finite_df = np.isfinite(df) & (df > 0)
    with np.errstate(invalid="ignore"):
        tail = stats.t.sf(np.abs(t), np.where(finite_df, df, 1.0))
        z = np.sign(t) * stats.norm.isf(tail)
    return np.asarray(np.where(finite_df & np.isfinite(t), z, t), dtype=float)


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


# --- an order of the systems that does not depend on their names ----------------------------

def _keys(values: np.ndarray) -> np.ndarray:
    """Dense integer codes of ``values`` equal up to float noise (1e-9 of their largest size):
    a covariance from rows in another order can differ in the last bits."""
    scale = max(float(np.abs(values).max()) if values.size else 1.0, 1e-300)
    snapped = np.round(values / scale, 9)
    return np.unique(snapped, return_inverse=True)[1].reshape(values.shape)


def _canonical_order(quality: np.ndarray, cov: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rows best first by what the systems are, and each row's class of systems that this
    cannot tell apart.

    Classes start from (estimate, variance) and are refined by each system's multiset of
    (class, covariance) with the others until they stop splitting (colour refinement,
    Weisfeiler & Leman 1968): the result depends on the estimates and the covariance
    only, so relabelling the systems permutes rows within a class and nothing else.
    Systems in one class are exchangeable but for structures refinement cannot split
    (regular graphs); within a class the input order is kept, and every member gets the
    class's union of sets (:func:`_class_union`), which no order within it can change.
    """
    p = len(quality)
    q_key, v_key = _keys(-quality), _keys(np.diag(cov))
    c_key = _keys(cov)
    codes = np.unique(np.stack([q_key, v_key], axis=1), axis=0, return_inverse=True)[1].ravel()
    off = ~np.eye(p, dtype=bool)
    n_classes = len(np.unique(codes))
    while n_classes < p:
        pair = codes[None, :].astype(np.int64) * (int(c_key.max()) + 1) + c_key
        pair = np.sort(np.where(off, pair, -1), axis=1)  # each row's multiset; itself first
        rows = np.concatenate([codes[:, None].astype(np.int64), pair], axis=1)
        codes = np.unique(rows, axis=0, return_inverse=True)[1].ravel()
        new = len(np.unique(codes))
        if new == n_classes:
            break
        n_classes = new
    return np.argsort(codes, kind="stable"), codes


def _with_pairs(t: np.ndarray, pairs: PairEvidence, order: np.ndarray
                ) -> tuple[np.ndarray, np.ndarray]:
    """The pair statistics on the normal scale from the tests' t and df (the covariance's
    where a test has no t), and the pairs the tests separate, rows in ``order``."""
    p = len(t)
    for name in ("t", "df", "shown"):
        if np.shape(getattr(pairs, name)) != (p, p):
            raise ValueError(f"pairs.{name}: must be a {p} × {p} matrix (one row per estimate); "
                             f"got shape {np.shape(getattr(pairs, name))}")
    ix = np.ix_(order, order)
    tt, df = np.asarray(pairs.t, float)[ix], np.asarray(pairs.df, float)[ix]
    tt = np.where(np.isnan(tt), t, tt)
    tt[np.diag_indices(p)] = 0.0
    # a difference the same on every example (σ_ab = 0: 10/10 against 0/10) is known
    # without error; a rank test on few examples cannot reach it, its sign is still certain
    shown = np.asarray(pairs.shown, bool)[ix] | (np.isinf(t) & (t > 0))
    return _normal_scale(tt, np.where(np.isnan(df), np.inf, df)), shown


def _class_union(low: np.ndarray, high: np.ndarray, classes: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray]:
    """Every system's set widened to the union of its class's sets (lowest low, highest
    high), so that which member drew which bootstrap column does not matter."""
    lo, hi = low.copy(), high.copy()
    for c in np.unique(classes):
        members = classes == c
        if members.sum() > 1:
            lo[members], hi[members] = low[members].min(), high[members].max()
    return lo, hi


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
    pairs: PairEvidence | None = None,
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
    pairs : PairEvidence, optional
        The pairwise tests' statistics, degrees of freedom and verdicts: each pair is then
        studentised by its test's standard error (run variance, clusters), its tail is
        t(df), and only pairs the tests separate can be rejected (:class:`PairEvidence`).
        ``cov`` then only gives the dependence between the pairs' statistics.

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
    quality = x if higher_is_better else -x
    # the draws depend on the order of the rows: fix it by what the systems are (estimate,
    # variance, covariances), never by name, so that renaming or reordering the systems
    # leaves every set unchanged; systems that cannot be told apart that way get one set
    order, classes = _canonical_order(quality, sigma)
    x, quality, sigma = x[order], quality[order], sigma[np.ix_(order, order)]
    names, classes = [names[i] for i in order], classes[order]
    p = len(x)
    tau_best, tau_worst = _check_tau(tau_best, p, "tau_best"), _check_tau(tau_worst, p, "tau_worst")
    sd = _pair_sd(sigma)
    t, inv = _t_matrix(quality, sd), _inverse(sd, _scale(sigma))
    shown = np.ones((p, p), dtype=bool)
    if pairs is not None:
        t, shown = _with_pairs(t, pairs, order)
    z = _draws(sigma, n_draws, rng)
    rejected, steps, crit = _simultaneous(t, z, inv, alpha, stepdown)
    rejected &= shown
    simul_low, simul_high = 1 + rejected.sum(axis=0), p - rejected.sum(axis=1)
    if kind == "simultaneous":
        low, high = simul_low, simul_high
    elif kind == "marginal":
        wins, losses, steps = _marginal(t, z, inv, alpha, stepdown)
        wins, losses = wins & shown, losses & shown.T
        low, high = 1 + losses.sum(axis=1), p - wins.sum(axis=1)
    else:
        raise ValueError(f"kind: must be one of {list(KINDS)}; got {kind!r}")
    low, high = _class_union(low, high, classes)
    simul_low, simul_high = _class_union(simul_low, simul_high, classes)
    table = pd.DataFrame({
        "system": names, "estimate": x, "se": np.sqrt(np.diag(sigma)),
        "rank": competition_ranks(quality),
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


def best_set_sentence(sets: RankSets, *, limit: int = 6, cite: bool = True) -> str:
    """"The best system is one of {A, B, C} (95%)": the 1-best set in words (the first
    ``limit`` names, then how many more); ``cite`` adds what the set is and its reference."""
    names = list(sets.best_set)
    level = f"{1 - sets.alpha:.0%}"
    if len(names) == 1:
        return (f"The best system is {names[0]} ({level}"
                + ("; its rank set is {1})." if cite else ")."))
    shown = ", ".join(names[:limit]) + (f" and {len(names) - limit} more" if len(names) > limit
                                        else "")
    return (f"The best system is one of {{{shown}}} ({level}"
            + (", confidence set for the best; Mogstad et al. 2024)." if cite else ")."))
