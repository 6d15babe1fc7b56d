"""The max-t stepdown behind the rank confidence sets (Mogstad, Romano, Shaikh & Wilhelm 2024).

Parametric bootstrap draws Z ~ N(0, Σ̂), the pair statistics (Z_a − Z_b) / σ_ab, and the
stepdown (Romano & Wolf 2005) over one all-pairs family (simultaneous sets) or over each
system's own family (marginal sets). Used by :func:`engine.ranking._rank_sets.rank_sets`.
"""

from __future__ import annotations

import numpy as np

from .._jit import kernels_for

_CELLS = 4_000_000  # bootstrap cells per block (pairs × draws): bounds memory to ~100 MB


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
    # ~2.5 ns a pair and draw in numpy; the compiled loop (engine._jit) ~5x less
    compiled = kernels_for(2.5e-9 * float(both.sum() + one.sum()) * z.shape[1])
    if compiled is not None:
        best = np.full(z.shape[1], -np.inf, dtype=np.float32)
        compiled.pair_max(z, inv, both, one, best)
        return best.astype(float)
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
