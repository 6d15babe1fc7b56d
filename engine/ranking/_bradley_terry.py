"""Aggregations of example-level battles: win rate, Bradley–Terry strength, Elo-scale rating.

Bradley–Terry is fitted by Newton's method on the log-likelihood (concave in the
log-strengths), to a stated tolerance on the score equations, and says whether it
got there. Ties count as half wins (default), are ignored (pairformance: Peyrard et al. 2021)
or are modelled (Davidson 1970). :func:`engine.ranking._bt_bootstrap.bt_bootstrap` resamples
examples and refits all resamples at once with this module's batched Newton iteration.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np

__all__ = ["TIE_MODELS", "BradleyTerry", "bradley_terry", "elo_scale", "win_rates"]

TIE_MODELS = ("half", "ignore", "davidson")
_MAX_HALVINGS = 50  # backtracking steps of the line search (step ≥ 2^-50)


@dataclass(frozen=True)
class BradleyTerry:
    """Bradley–Terry strengths and how the fit ended.

    Attributes
    ----------
    strength : ndarray (S,)
        Sums to 1; P(i beats j) = s_i / (s_i + s_j) (Davidson: s_i / (s_i + s_j + ν √(s_i s_j))).
    iterations : int
        Newton steps taken.
    converged : bool
        True when the largest score-equation residual ``gradient_norm`` is at
        most ``tol`` × the most battles any system has.
    prior : float
        Tied pseudo-battles added to every pair (0 unless the battle graph was not
        strongly connected, where the maximum-likelihood estimate does not exist).
    tol : float
    ties : {"half", "ignore", "davidson"}
    tie_strength : float
        Davidson's ν (NaN for the other tie models; 0 with no tie, inf with only ties).
    gradient_norm : float
        max |∂ℓ/∂θ| (and |∂ℓ/∂log ν|) at the returned estimate, in battles.
    loglik, loglik_change : float
        Log-likelihood at the estimate (battles as independent Bernoulli /
        trinomial trials) and its change over the last Newton step.
    """

    strength: np.ndarray
    iterations: int
    converged: bool
    prior: float
    tol: float
    ties: str = "half"
    tie_strength: float = float("nan")
    gradient_norm: float = 0.0
    loglik: float = 0.0
    loglik_change: float = 0.0


@dataclass(frozen=True)
class _Battles:
    """Batched battle summaries per unordered pair i < j, arrays (B, P).

    margin = credit_ij − credit_ji, tied = T_ij (ties and pseudo-ties the model
    counts), total = N_ij (battles the model counts).
    """

    margin: np.ndarray
    tied: np.ndarray
    total: np.ndarray
    davidson: bool
    ia: np.ndarray
    ja: np.ndarray
    n_systems: int


@dataclass(frozen=True)
class _Fit:
    theta: np.ndarray  # (B, S), centred
    phi: np.ndarray  # (B,), log ν (-inf: ν = 0)
    iterations: int
    converged: np.ndarray
    gradient_norm: np.ndarray
    loglik: np.ndarray
    loglik_change: np.ndarray


class _OneBlasThread:
    """BLAS on one thread while any fit runs, for every thread of the process.

    The fits make many small products and solves, where OpenBLAS's threads mostly wait
    on each other (3× the CPU time of one thread for the same answer on a loaded 2-core
    server). The limit is process-wide, so concurrent fits (sessions of one server)
    share it: the first to enter sets it, the last to leave restores the thread count
    found by the first (entering and leaving one at a time would otherwise let a later
    fit save the limit itself as the count to restore).
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._depth = 0
        self._limiter: Any = None

    @contextmanager
    def __call__(self) -> Iterator[None]:
        with self._lock:
            if self._depth == 0:
                self._limiter = _blas_controller().limit(limits=1, user_api="blas")
            self._depth += 1
        try:
            yield
        finally:
            with self._lock:
                self._depth -= 1
                if self._depth == 0:
                    self._limiter.restore_original_limits()
                    self._limiter = None


@cache
def _blas_controller() -> Any:
    """One inspection of the loaded BLAS libraries (a few milliseconds), on the first fit
    (imported then: the CLI's other commands never load threadpoolctl)."""
    from threadpoolctl import ThreadpoolController  # type: ignore[import-untyped]

    return ThreadpoolController()


_one_blas_thread = _OneBlasThread()


def win_rates(wins: np.ndarray) -> np.ndarray:
    """Share of decisive example-level battles each system wins (NaN when it had none).

    ``wins[i, j]`` counts examples where i scores strictly higher than j; ties are
    not decisive and are left out.
    """
    won = wins.sum(axis=-1).astype(float)
    decisive = won + wins.sum(axis=-2)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(decisive > 0, won / np.maximum(decisive, 1), np.nan)


def _needs_prior(credit: np.ndarray) -> bool:
    """True when the "i earned credit against j" graph is not strongly connected: some
    system is not reached from system 0 along the edges, or does not reach it (two
    breadth-first searches over the dense adjacency, O(S²); a sparse strongly-connected-
    components search costs ~0.25 ms more at 100 systems, most of a fit)."""
    adj = np.asarray(credit > 0)
    for edges in (adj, adj.T):
        seen = np.zeros(len(adj), dtype=bool)
        seen[0] = True
        frontier = seen.copy()
        while frontier.any():
            frontier = edges[frontier].any(axis=0) & ~seen
            seen |= frontier
        if not seen.all():
            return True
    return False


def _check_tie_model(ties: object) -> str:
    if isinstance(ties, np.ndarray):
        raise ValueError("ties: the tie model, one of 'half', 'ignore', 'davidson'; got an "
                         "array (pass tie counts as tie_counts=)")
    if ties not in TIE_MODELS:
        raise ValueError(f"ties: must be one of {', '.join(TIE_MODELS)}; got {ties!r}")
    return str(ties)


def _battles(wins: np.ndarray, tied: np.ndarray, ties: str, prior: float
             ) -> tuple[_Battles, np.ndarray]:
    """Battle summaries of a batch (B, S, S) under a tie model, with the prior where needed."""
    s = wins.shape[-1]
    off = ~np.eye(s, dtype=bool)
    ia, ja = np.triu_indices(s, k=1)
    credit = wins + tied if ties != "ignore" else wins
    # every pair credited both ways is strongly connected: the graph search is for the rest
    complete = np.asarray(((credit > 0) | ~off).all(axis=(-1, -2)), dtype=bool)
    used = np.array([0.0 if ok or not _needs_prior(c) else prior
                     for ok, c in zip(complete.tolist(), credit, strict=True)])
    w_ij, w_ji = wins[:, ia, ja], wins[:, ja, ia]
    counted = tied[:, ia, ja] if ties != "ignore" else np.zeros_like(w_ij)
    counted = counted + used[:, None]  # tied pseudo-battles: half a win each way
    return _Battles(w_ij - w_ji, counted, w_ij + w_ji + counted, ties == "davidson", ia, ja,
                    s), used


def _log_denominator(d: np.ndarray, phi: np.ndarray, b: _Battles) -> np.ndarray:
    """log(2 cosh d + ν), computed without overflow."""
    a = np.abs(d)
    rest = np.exp(-2.0 * a)
    if b.davidson:
        with np.errstate(over="ignore"):
            rest = rest + np.exp(np.where(np.isfinite(phi), phi, -np.inf)[:, None] - a)
    return np.asarray(a + np.log1p(rest))


def _pair_terms(d: np.ndarray, phi: np.ndarray, b: _Battles
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per pair: 2 sinh d / D, −(∂²ℓ/∂d²) / N and ν / D, with D = 2 cosh d + ν.

    The pair log-likelihood in d = (θ_i − θ_j)/2 is M d + T log ν − N log D
    (ν = 0 for plain BT, where the terms are tanh d, 1 − tanh² d and 0). With
    u = e^{-2|d|} and v = ν e^{-|d|} nothing overflows:
    2 sinh d / D = sign(d)(1 − u)/(1 + u + v), −h/N = (4u + v(1 + u))/(1 + u + v)².
    """
    a = np.abs(d)
    u = np.exp(-2.0 * a)
    if not b.davidson:
        inv = 1.0 / (1.0 + u)
        return np.sign(d) * (1.0 - u) * inv, 4.0 * u * inv * inv, np.zeros_like(u)
    with np.errstate(over="ignore"):
        v = np.exp(phi[:, None] - a)
    inv = 1.0 / (1.0 + u + v)
    ur, vr = u * inv, v * inv
    return np.sign(d) * (1.0 - u) * inv, 4.0 * ur * inv + vr * (inv + ur), vr


def _half_d(theta: np.ndarray, b: _Battles) -> np.ndarray:
    return np.asarray((theta[:, b.ia] - theta[:, b.ja]) / 2.0)


def _loglik(theta: np.ndarray, phi: np.ndarray, b: _Battles) -> np.ndarray:
    d = _half_d(theta, b)
    ll = (b.margin * d - b.total * _log_denominator(d, phi, b)).sum(axis=1)
    if b.davidson:
        ll = ll + b.tied.sum(axis=1) * np.where(np.isfinite(phi), phi, 0.0)
    return np.asarray(ll, dtype=float)


def _to_systems(pair_values: np.ndarray, b: _Battles, *, sign: float = -1.0) -> np.ndarray:
    """Σ_j v_ij over the pairs of each system, v antisymmetric (v_ji = −v_ij; ``sign=1``:
    symmetric), for every batch member: two weighted bincounts over (member, system)
    cells. A pairs × systems incidence matrix would take 4 GB at 1,000 systems."""
    n_batch, s = pair_values.shape[0], b.n_systems
    offsets = (np.arange(n_batch) * s)[:, None]
    size = n_batch * s
    first = np.bincount((offsets + b.ia).ravel(), pair_values.ravel(), minlength=size)
    second = np.bincount((offsets + b.ja).ravel(), pair_values.ravel(), minlength=size)
    return np.asarray((first + sign * second).reshape(n_batch, s))


def _gradient_hessian(theta: np.ndarray, phi: np.ndarray, b: _Battles, free_phi: np.ndarray
                      ) -> tuple[np.ndarray, np.ndarray]:
    """Gradient and Hessian in (θ, log ν); the log ν row is inert where ν is not fitted.

    ∂d_ij/∂θ_i = ½ = −∂d_ij/∂θ_j, so ∂ℓ/∂θ = ½ Σ_j ∂ℓ_ij/∂d and the θ block of the
    Hessian is a weighted graph Laplacian with weights −¼ ∂²ℓ_ij/∂d².
    """
    slope, curv, vr = _pair_terms(_half_d(theta, b), phi, b)
    n, s = b.total, b.n_systems
    weight = 0.25 * n * curv
    g = np.zeros((len(theta), s + 1))
    h = np.zeros((len(theta), s + 1, s + 1))
    g[:, :s] = 0.5 * _to_systems(b.margin - n * slope, b)
    flat = h.reshape(len(theta), -1)  # one index per cell: faster than (row, column) pairs
    flat[:, b.ia * (s + 1) + b.ja] = weight
    flat[:, b.ja * (s + 1) + b.ia] = weight
    diag = np.arange(s)
    h[:, diag, diag] = -h[:, :s, :s].sum(axis=2)
    if b.davidson:
        cross = 0.5 * _to_systems(n * slope * vr, b)  # ½ Σ_j N 2 sinh d ν / D²
        h[:, :s, s] = h[:, s, :s] = np.where(free_phi[:, None], cross, 0.0)
        g[:, s] = np.where(free_phi, (b.tied - n * vr).sum(axis=1), 0.0)
        h[:, s, s] = np.where(free_phi, -(n * vr * (1.0 - vr)).sum(axis=1), -1.0)
    else:
        h[:, s, s] = -1.0
    return g, h


def _newton(b: _Battles, tol: float, max_iter: int, start: np.ndarray | None = None) -> _Fit:
    """Damped Newton ascent of the concave log-likelihood, all batch members at once, from
    θ = ``start`` (S,) (default 0: equal strengths)."""
    n_batch, s = b.total.shape[0], b.n_systems
    theta = np.zeros((n_batch, s))
    if start is not None:
        theta += start - start.mean()
    tied_total = b.tied.sum(axis=1)
    free_phi = b.davidson & (tied_total > 0)
    decisive = (b.total - b.tied).sum(axis=1)
    with np.errstate(divide="ignore"):
        # start at the tie share of equal strengths: P(tie) = ν / (2 + ν)
        start = np.log(2.0 * tied_total / np.maximum(b.total.sum(axis=1) - tied_total, 1e-300))
    phi = np.where(free_phi, start, -np.inf)
    # Davidson with nothing but ties: ν = inf, equal strengths, nothing to fit
    only_ties = free_phi & (decisive == 0)
    fit_phi = free_phi & ~only_ties
    phi = np.where(only_ties, 0.0, phi)
    battles_of = _to_systems(b.total, b, sign=1.0)
    scale = np.maximum(1.0, battles_of.max(axis=1))
    gauge = np.zeros((s + 1, s + 1))
    gauge[:s, :s] = 1.0 / s  # H − c 11ᵀ/S is definite; Newton steps stay orthogonal to 1
    ll = _loglik(theta, phi, b)
    change = np.zeros(n_batch)
    norm = np.zeros(n_batch)
    done = np.zeros(n_batch, dtype=bool)
    it = 0
    while True:
        # only the members still short of the tolerance take another step
        act = np.flatnonzero(~done)
        sub = _take(b, act)
        g, h = _gradient_hessian(theta[act], phi[act], sub, fit_phi[act])
        g[only_ties[act]] = 0.0
        norm[act] = np.abs(g).max(axis=1)
        done[act] = norm[act] <= tol * scale[act]
        if done.all() or it >= max_iter:
            break
        it += 1
        keep = ~done[act]
        if not keep.all():
            act, g, h, sub = act[keep], g[keep], h[keep], _take(sub, np.flatnonzero(keep))
        c = np.abs(np.diagonal(h, axis1=1, axis2=2)[:, :s]).mean(axis=1) + 1.0
        step = _newton_step(c[:, None, None] * gauge - h, g)
        theta[act], phi[act], new_ll = _line_search(theta[act], phi[act], ll[act], g, step, sub)
        change[act] = new_ll - ll[act]
        ll[act] = new_ll
    phi = np.where(only_ties, np.inf, phi)
    return _Fit(theta - theta.mean(axis=1, keepdims=True), phi, it, done, norm, ll, change)


#: From this many systems on, a Newton step is first solved by conjugate gradients (a dense
#: solve costs S³; the Hessian of many battles per pair is well conditioned).
_CG_SYSTEMS = 400
_CG_ITERATIONS = 80


def _newton_step(a: np.ndarray, g: np.ndarray) -> np.ndarray:
    """x with a x = g for each batch member, a (B, n, n) symmetric positive definite.

    Many systems: Jacobi-preconditioned conjugate gradients, to a residual of 1e-13 of
    ‖g‖ (the step is then as exact as the direct solve's rounding); a member that gets
    no closer in ``_CG_ITERATIONS`` iterations falls back to the direct solve.
    """
    if a.shape[-1] < _CG_SYSTEMS:
        return np.asarray(np.linalg.solve(a, g[:, :, None])[:, :, 0])
    x, done = _conjugate_gradients(a, g)
    if not done.all():
        rest = np.flatnonzero(~done)
        x[rest] = np.linalg.solve(a[rest], g[rest][:, :, None])[:, :, 0]
    return x


def _conjugate_gradients(a: np.ndarray, g: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    inv_diag = 1.0 / np.diagonal(a, axis1=1, axis2=2)
    x = np.zeros_like(g)
    res = g.copy()
    z = inv_diag * res
    p = z.copy()
    rz = (res * z).sum(axis=1)
    goal = 1e-13 * np.linalg.norm(g, axis=1)
    done = np.linalg.norm(res, axis=1) <= goal
    for _ in range(_CG_ITERATIONS):
        if done.all():
            break
        ap = np.matmul(a, p[:, :, None])[:, :, 0]
        with np.errstate(divide="ignore", invalid="ignore"):
            alpha = np.where(done, 0.0, rz / (p * ap).sum(axis=1))
        x += alpha[:, None] * p
        res -= alpha[:, None] * ap
        done |= np.linalg.norm(res, axis=1) <= goal
        z = inv_diag * res
        rz_new = (res * z).sum(axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            beta = np.where(done, 0.0, rz_new / rz)
        p = z + beta[:, None] * p
        rz = rz_new
    return x, done & np.isfinite(x).all(axis=1)


def _take(b: _Battles, rows: np.ndarray) -> _Battles:
    if len(rows) == len(b.total) and (rows == np.arange(len(rows))).all():
        return b  # every member: no copy
    return _Battles(b.margin[rows], b.tied[rows], b.total[rows], b.davidson, b.ia, b.ja,
                    b.n_systems)


def _line_search(theta: np.ndarray, phi: np.ndarray, ll: np.ndarray, g: np.ndarray,
                 step: np.ndarray, b: _Battles) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Backtracking (Armijo) along the Newton step, per batch member."""
    s = b.n_systems
    t = np.ones(len(theta))
    slope = (g * step).sum(axis=1)
    accepted = np.zeros(len(theta), dtype=bool)
    new_theta, new_phi, new_ll = theta.copy(), phi.copy(), ll.copy()
    for _ in range(_MAX_HALVINGS):
        cand_theta = theta + t[:, None] * step[:, :s]
        cand_phi = phi + t * step[:, s] if b.davidson else phi
        cand_ll = _loglik(cand_theta, cand_phi, b)
        # rounding of ℓ near the optimum must not block a step that is already tiny
        ok = ~accepted & np.isfinite(cand_ll) & (
            cand_ll >= ll + 1e-4 * t * slope - 1e-12 * np.abs(ll))
        new_theta[ok], new_phi[ok], new_ll[ok] = cand_theta[ok], cand_phi[ok], cand_ll[ok]
        accepted |= ok
        if accepted.all():
            break
        t = np.where(accepted, t, t / 2.0)
    return new_theta, new_phi, new_ll


def _strengths(theta: np.ndarray) -> np.ndarray:
    p = np.exp(theta - theta.max(axis=-1, keepdims=True))
    return np.asarray(p / p.sum(axis=-1, keepdims=True), dtype=float)


def _tie_counts(wins: np.ndarray, n_battles: int | np.ndarray | None,
                tie_counts: np.ndarray | None) -> np.ndarray:
    if tie_counts is not None:
        tied = np.asarray(tie_counts, dtype=float)
        if tied.shape != wins.shape or (tied < 0).any() or not np.allclose(tied, tied.T):
            raise ValueError(f"tie_counts: must be a symmetric non-negative {wins.shape} matrix")
        return tied
    if n_battles is None:
        raise ValueError("n_battles: needed when tie_counts is not given; got None")
    battles = np.broadcast_to(np.asarray(n_battles, dtype=float), wins.shape)
    tied = battles - wins  # in place from here: each S × S pass counts at 1,000 systems
    tied -= wins.T
    np.fill_diagonal(tied, 0.0)
    if tied.min(initial=0.0) < -1e-9:
        off = ~np.eye(len(wins), dtype=bool)
        raise ValueError("n_battles: fewer battles than wins_ij + wins_ji for some pair; "
                         f"got n_battles with minimum {battles[off].min():g}")
    return np.asarray(np.maximum(tied, 0.0, out=tied))


def bradley_terry(
    wins: np.ndarray, n_battles: int | np.ndarray | None, *, ties: str = "half",
    tie_counts: np.ndarray | None = None, tol: float = 1e-10, max_iter: int = 100,
    prior: float = 0.5,
) -> BradleyTerry:
    """Fit Bradley–Terry strengths from example-level battles, to a stated tolerance.

    Parameters
    ----------
    wins : ndarray (S, S)
        ``wins[i, j]``: examples on which i beats j.
    n_battles : int or ndarray (S, S) or None
        Battles per pair (the examples the pair shares); ties = battles − wins_ij − wins_ji.
    ties : {"half", "ignore", "davidson"}, keyword-only
        Ties as half a win each (default), left out (pairformance, Peyrard et al. 2021), or
        modelled with Davidson's tie parameter ν.
    tie_counts : ndarray (S, S), keyword-only, optional
        ``tie_counts[i, j]``: examples i and j score equal on; replaces the ties
        derived from ``n_battles``.
    tol, max_iter : keyword-only
        Converged when max_i |∂ℓ/∂θ_i| ≤ ``tol`` × the most battles of any system;
        at most ``max_iter`` Newton steps.
    prior : float, keyword-only
        Tied pseudo-battles added to every pair *only* when the battle graph is not
        strongly connected (some system never wins, or a group never beats another).

    Returns
    -------
    BradleyTerry
        ``strength`` (sums to 1), ``converged``, ``iterations``, ``gradient_norm``,
        ``loglik``, ``loglik_change``, ``prior``, ``tie_strength``.

    Notes
    -----
    With θ = log strength and d_ij = (θ_i − θ_j)/2, a pair contributes
    ℓ_ij = M_ij d_ij + T_ij log ν − N_ij log(2 cosh d_ij + ν), M = credit_ij − credit_ji.
    Half: credit = wins + ties/2, N = all battles, ν = 0 (the usual
    Σ A_ij log s_i/(s_i + s_j)); ignore: credit = wins, N = decisive battles;
    Davidson (1970): P(i ≻ j) = s_i / (s_i + s_j + ν √(s_i s_j)), P(tie) = ν √(s_i s_j) / (…).
    ℓ is concave in (θ, log ν); Newton steps with backtracking converge
    quadratically, where Zermelo's MM iteration (Hunter 2004) can need many
    thousands. At the optimum Σ_j N_ij (A_ij/N_ij − s_i/(s_i+s_j)) = 0 for every i.

    References
    ----------
    Hunter (2004), MM algorithms for generalized Bradley–Terry models, Ann.
    Statist. 32:384–406. Davidson (1970), JASA 65:317–328. Agresti (2002),
    Categorical Data Analysis, 2nd ed., §10.6. Peyrard, Zhao, Eger & West
    (2021). Better than Average: Paired Evaluation of NLP Systems. ACL-IJCNLP
    2021, pp. 2301–2315.

    Examples
    --------
    >>> bt = bradley_terry(np.array([[0, 1], [2, 0]]), 3)
    >>> bt.strength.round(6).tolist(), bt.converged
    ([0.333333, 0.666667], True)
    >>> round(bradley_terry(np.array([[0, 2], [1, 0]]), 4, ties="davidson").tie_strength, 4)
    0.7071
    """
    tie_model = _check_tie_model(ties)
    if not tol > 0 or max_iter < 0 or prior < 0:
        raise ValueError(f"tol, max_iter, prior: must be > 0, ≥ 0, ≥ 0; got {tol}, {max_iter}, "
                         f"{prior}")
    w = np.asarray(wins, dtype=float)
    s = len(w)
    nan = float("nan")
    if s <= 1:  # nothing to compare: a lone system holds all the strength
        return BradleyTerry(np.ones(s), 0, True, 0.0, tol, tie_model, nan, 0.0, 0.0, 0.0)
    tied = _tie_counts(w, n_battles, tie_counts)
    if tie_model != "davidson":  # one fit, no tie parameter: S × S Newton
        from ._bt_dense import newton_dense, newton_sparse, use_pair_lists

        credit = w + tied if tie_model == "half" else w
        # every pair credited both ways (count_nonzero: one cheap pass) or strongly connected
        complete = np.count_nonzero(credit) - np.count_nonzero(np.diagonal(credit)) \
            == s * (s - 1)
        used = 0.0 if complete or not _needs_prior(credit) else prior
        # ties and pseudo-ties add half a win each way: margins are the wins' alone
        total = w + w.T
        if tie_model == "half":
            total += tied
        total += used
        np.fill_diagonal(total, 0.0)  # a system's battles with itself count for nothing
        fitter = newton_sparse if use_pair_lists(total) else newton_dense
        with _one_blas_thread():
            one = fitter(w - w.T, total, tol, max_iter)
        return BradleyTerry(_strengths(one.theta), one.iterations, one.converged, used, tol,
                            tie_model, nan, one.gradient_norm, one.loglik, one.loglik_change)
    battles, used_by = _battles(w[None], tied[None], tie_model, prior)
    with _one_blas_thread():
        fit = _newton(battles, tol, max_iter)
    nu = float(np.exp(fit.phi[0]))
    return BradleyTerry(_strengths(fit.theta[0]), fit.iterations, bool(fit.converged[0]),
                        float(used_by[0]), tol, tie_model, nu, float(fit.gradient_norm[0]),
                        float(fit.loglik[0]), float(fit.loglik_change[0]))


def elo_scale(strength: np.ndarray, *, anchor: int | None = None, base: float = 1000.0) -> np.ndarray:
    """Elo-scale ratings 400 · log10(strength), shifted so the mean (or ``anchor``'s) is ``base``.

    A difference of 400 points means 10:1 odds of winning a battle, as in chess Elo.
    """
    with np.errstate(divide="ignore"):
        r = 400.0 * np.log10(strength)
    finite = np.isfinite(r)
    shift = r[anchor] if anchor is not None else (r[finite].mean() if finite.any() else 0.0)
    return np.asarray(r - shift + base, dtype=float)
