"""One Bradley–Terry fit (ties as half wins or ignored) by Newton steps on S × S matrices.

The batched fitter of :mod:`engine.ranking._bradley_terry` keeps one entry per pair
i < j and a (B, S+1, S+1) Hessian so that hundreds of bootstrap resamples and
Davidson's tie parameter share one code path; for a single fit that bookkeeping is
most of the time (3.4 ms at 100 systems, against 1.8 ms for choix's ILSR). Here the
pair terms are whole S × S arrays (symmetric weights, antisymmetric margins), the
Hessian is the weighted graph Laplacian itself, and a step is one Cholesky solve (a
conjugate-gradient solve from ``_CG_SYSTEMS`` systems on), with one evaluation of the
gradient and Laplacian per step (see :func:`newton_dense`). Newton converges in ~5
steps from equal strengths where Zermelo/MM and ILSR need tens to thousands of cheaper
ones; measured against choix's ILSR and evalica in ``benchmarks/bench_peers.py``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import linalg

from ._bradley_terry import _CG_SYSTEMS, _MAX_HALVINGS, _conjugate_gradients

__all__ = ["DenseFit", "newton_dense", "newton_sparse", "use_pair_lists"]


@dataclass(frozen=True)
class DenseFit:
    theta: np.ndarray  # (S,), centred log-strengths
    iterations: int
    converged: bool
    gradient_norm: float
    loglik: float
    loglik_change: float


def _loglik(theta: np.ndarray, margin: np.ndarray, total: np.ndarray) -> float:
    """Σ_{i<j} M_ij d_ij − N_ij log(2 cosh d_ij), d = (θ_i − θ_j)/2, as half the sum over
    all ordered pairs (each term is the same both ways)."""
    d = 0.5 * (theta[:, None] - theta[None, :])
    a = np.abs(d)
    return float(0.5 * (margin * d - total * (a + np.log1p(np.exp(-2.0 * a)))).sum())


@dataclass(frozen=True)
class _Pairs:
    """The data's constant parts: ½ Σ_j M_ij, ½ N and ¼ N (with its row sums)."""

    half_margin_sum: np.ndarray
    half_total: np.ndarray
    quarter_total: np.ndarray
    quarter_total_sum: np.ndarray


def _gradient_laplacian(theta: np.ndarray, pairs: _Pairs) -> tuple[np.ndarray, np.ndarray]:
    """∂ℓ/∂θ = ½ Σ_j (M_ij − N_ij tanh d_ij) and −∂²ℓ/∂θ², the Laplacian of the weights
    ¼ N_ij (1 − tanh² d_ij), in as few S × S passes as the constants allow."""
    half = 0.5 * theta
    tanh = np.tanh(np.subtract.outer(half, half))
    g = pairs.half_margin_sum - (pairs.half_total * tanh).sum(axis=1)
    tanh *= tanh
    tanh *= pairs.quarter_total  # ¼ N tanh²
    lap = tanh - pairs.quarter_total  # −w off the diagonal (w_ii = 0)
    lap[np.diag_indices_from(lap)] = pairs.quarter_total_sum - tanh.sum(axis=1)
    return g, lap


def _start(margin: np.ndarray, total: np.ndarray) -> np.ndarray:
    """The logit of each system's credit share (+½ each way), centred: 0.997+ correlated
    with the fit on arena-like data, it saves Newton steps over equal strengths."""
    credit = 0.5 * (total + margin).sum(axis=1)
    theta = np.log((credit + 0.5) / (total.sum(axis=1) - credit + 0.5))
    return np.asarray(theta - theta.mean())


def _solve(a: np.ndarray, g: np.ndarray) -> np.ndarray:
    if len(a) < _CG_SYSTEMS:
        return np.asarray(linalg.cho_solve(linalg.cho_factor(a, check_finite=False), g,
                                           check_finite=False))
    x, done = _conjugate_gradients(a[None], g[None])
    return x[0] if done[0] else np.linalg.solve(a, g)


def newton_dense(margin: np.ndarray, total: np.ndarray, tol: float, max_iter: int
                 ) -> DenseFit:
    """Maximise ℓ(θ) for antisymmetric margins M (credit_ij − credit_ji) and symmetric
    battle counts N (zero diagonals), from the logit of the credit shares (:func:`_start`).

    Converged when max_i |∂ℓ/∂θ_i| ≤ ``tol`` × the most battles of any system (the
    rule of :func:`engine.ranking._bradley_terry.bradley_terry`). Steps backtrack on the
    norm of the gradient (Boyd & Vandenberghe 2004, §10.3.2): along a Newton step it
    falls as (1 − t) ‖g‖ to first order, and the gradient and Laplacian at the accepted
    point are the next step's, so a step costs one evaluation; ℓ is computed once at
    the end (and at the previous point, for ``loglik_change``).
    """
    s = len(margin)
    theta = prev = _start(margin, total)
    scale = max(1.0, float(total.sum(axis=1).max()))
    quarter = 0.25 * total
    pairs = _Pairs(0.5 * margin.sum(axis=1), 0.5 * total, quarter, quarter.sum(axis=1))
    g, lap = _gradient_laplacian(theta, pairs)
    it = 0
    while np.abs(g).max() > tol * scale and it < max_iter:
        it += 1
        # L + c 11ᵀ/S is definite; the step stays orthogonal to 1 (g sums to 0)
        c = float(np.abs(np.diagonal(lap)).mean()) + 1.0
        step = _solve(lap + c / s, g)
        size, t = float(np.linalg.norm(g)), 1.0
        for _ in range(_MAX_HALVINGS):
            cand = theta + t * step
            g_new, lap_new = _gradient_laplacian(cand, pairs)
            if np.isfinite(g_new).all() and np.linalg.norm(g_new) <= (1.0 - 1e-4 * t) * size:
                break
            t /= 2.0
        else:
            break  # no step shrinks the gradient: as far as rounding lets it go
        prev, theta, g, lap = theta, cand, g_new, lap_new
    norm = float(np.abs(g).max())
    ll = _loglik(theta, margin, total)
    change = ll - _loglik(prev, margin, total) if it else 0.0
    return DenseFit(theta - theta.mean(), it, norm <= tol * scale, norm, ll, change)


#: Pair lists instead of S × S arrays when fewer than this share of the pairs met and
#: there are at least ``_SPARSE_SYSTEMS`` systems (arena data: ~100 battles per system).
_SPARSE_SHARE = 0.25
_SPARSE_SYSTEMS = 200
_CG_RELATIVE = 1e-12  # residual of the sparse Newton step's conjugate gradients


def use_pair_lists(total: np.ndarray) -> bool:
    """True when the battles are sparse enough for :func:`newton_sparse`."""
    s = len(total)
    return bool(s >= _SPARSE_SYSTEMS and np.count_nonzero(total) < _SPARSE_SHARE * s * (s - 1))


def _sparse_terms(theta: np.ndarray, ia: np.ndarray, ja: np.ndarray, margin: np.ndarray,
                  total: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Gradient and the pair weights ¼ N (1 − tanh² d) over the pairs that met."""
    s = len(theta)
    tanh = np.tanh(0.5 * (theta[ia] - theta[ja]))
    r = 0.5 * (margin - total * tanh)
    g = np.bincount(ia, r, minlength=s) - np.bincount(ja, r, minlength=s)
    return g, 0.25 * total * (1.0 - tanh * tanh)


def _sparse_step(g: np.ndarray, weight: np.ndarray, adjacency: Any, slots: np.ndarray,
                 ia: np.ndarray, ja: np.ndarray, rtol: float) -> np.ndarray:
    """Solve (L + c 11ᵀ/S) x = g, L the Laplacian of ``weight``, to a residual of ``rtol``
    ‖g‖ by Jacobi-preconditioned conjugate gradients; the adjacency's sparsity pattern is
    fixed, its values are set."""
    s = len(g)
    adjacency.data[slots] = np.concatenate([-weight, -weight])
    diag = np.bincount(ia, weight, minlength=s) + np.bincount(ja, weight, minlength=s)
    c = float(diag.mean()) + 1.0
    inv = 1.0 / (diag + c / s)

    def apply(v: np.ndarray) -> np.ndarray:
        return np.asarray(diag * v + adjacency @ v + c / s * v.sum())

    x = np.zeros(s)
    res = g.copy()
    z = inv * res
    p = z.copy()
    rz = float(res @ z)
    goal = rtol * float(np.linalg.norm(g))
    for _ in range(4 * s):
        if np.linalg.norm(res) <= goal:
            break
        ap = apply(p)
        alpha = rz / float(p @ ap)
        x += alpha * p
        res -= alpha * ap
        z = inv * res
        rz, rz_old = float(res @ z), rz
        p = z + (rz / rz_old) * p
    return x


def newton_sparse(margin: np.ndarray, total: np.ndarray, tol: float, max_iter: int
                  ) -> DenseFit:
    """:func:`newton_dense` over the list of pairs that met: O(pairs) per evaluation and
    per conjugate-gradient product, for arenas where most pairs never met."""
    from scipy import sparse

    s = len(margin)
    ia, ja = np.nonzero(total)
    upper = ia < ja
    ia, ja = ia[upper], ja[upper]
    m, n = margin[ia, ja], total[ia, ja]
    rows, cols = np.concatenate([ia, ja]), np.concatenate([ja, ia])
    adjacency = sparse.csr_matrix((np.arange(1.0, len(rows) + 1.0), (rows, cols)), shape=(s, s))
    slots = np.empty(len(rows), dtype=np.intp)
    slots[adjacency.data.astype(np.intp) - 1] = np.arange(len(rows))  # entry k's place
    # battles and credit per system from the pair lists (no further S × S pass)
    battles_of = np.bincount(ia, n, minlength=s) + np.bincount(ja, n, minlength=s)
    credit = 0.5 * (battles_of + np.bincount(ia, m, minlength=s) - np.bincount(ja, m, minlength=s))
    scale = max(1.0, float(battles_of.max()))
    theta = np.log((credit + 0.5) / (battles_of - credit + 0.5))  # as _start
    theta = prev = theta - theta.mean()
    g, weight = _sparse_terms(theta, ia, ja, m, n)
    it = 0
    first = float(np.linalg.norm(g))
    while np.abs(g).max() > tol * scale and it < max_iter:
        it += 1
        # inexact Newton (Eisenstat & Walker 1996): rough solves while far from the optimum,
        # exact ones near it, where they keep the convergence quadratic
        rtol = max(_CG_RELATIVE, min(0.1, float(np.linalg.norm(g)) / max(first, 1e-300)))
        step = _sparse_step(g, weight, adjacency, slots, ia, ja, rtol)
        size, t = float(np.linalg.norm(g)), 1.0
        for _ in range(_MAX_HALVINGS):
            cand = theta + t * step
            g_new, w_new = _sparse_terms(cand, ia, ja, m, n)
            if np.isfinite(g_new).all() and np.linalg.norm(g_new) <= (1.0 - 1e-4 * t) * size:
                break
            t /= 2.0
        else:
            break
        prev, theta, g, weight = theta, cand, g_new, w_new
    norm = float(np.abs(g).max())

    def loglik(th: np.ndarray) -> float:
        d = 0.5 * (th[ia] - th[ja])
        a = np.abs(d)
        return float((m * d - n * (a + np.log1p(np.exp(-2.0 * a)))).sum())

    ll = loglik(theta)
    change = ll - loglik(prev) if it else 0.0
    return DenseFit(theta - theta.mean(), it, norm <= tol * scale, norm, ll, change)
