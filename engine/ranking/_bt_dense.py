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

import numpy as np
from scipy import linalg

from ._bradley_terry import _CG_SYSTEMS, _MAX_HALVINGS, _conjugate_gradients

__all__ = ["DenseFit", "newton_dense"]


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


def _solve(a: np.ndarray, g: np.ndarray) -> np.ndarray:
    if len(a) < _CG_SYSTEMS:
        return np.asarray(linalg.cho_solve(linalg.cho_factor(a, check_finite=False), g,
                                           check_finite=False))
    x, done = _conjugate_gradients(a[None], g[None])
    return x[0] if done[0] else np.linalg.solve(a, g)


def newton_dense(margin: np.ndarray, total: np.ndarray, tol: float, max_iter: int
                 ) -> DenseFit:
    """Maximise ℓ(θ) for antisymmetric margins M (credit_ij − credit_ji) and symmetric
    battle counts N (zero diagonals), from θ = 0.

    Converged when max_i |∂ℓ/∂θ_i| ≤ ``tol`` × the most battles of any system (the
    rule of :func:`engine.ranking._bradley_terry.bradley_terry`). Steps backtrack on the
    norm of the gradient (Boyd & Vandenberghe 2004, §10.3.2): along a Newton step it
    falls as (1 − t) ‖g‖ to first order, and the gradient and Laplacian at the accepted
    point are the next step's, so a step costs one evaluation; ℓ is computed once at
    the end (and at the previous point, for ``loglik_change``).
    """
    s = len(margin)
    theta = prev = np.zeros(s)
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
