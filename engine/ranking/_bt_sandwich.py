"""Sandwich (cluster-robust) intervals of Bradley–Terry strength, Elo and win rate.

The default rating intervals of the leaderboard: one pass over the scores after the
point fit, instead of refitting Bradley–Terry on hundreds of resamples
(:func:`engine.ranking._bt_bootstrap.bt_bootstrap`, still there on request). The
battles of one example share that example, so the example is the cluster: the
"meat" sums the outer products of each example's score vector, as the bootstrap
resamples whole examples.
"""

from __future__ import annotations

import numpy as np
from scipy import stats

from .. import _jit
from ._bt_bootstrap import BTIntervals

__all__ = ["bt_sandwich"]

_LOG10_POINTS = 400.0 / np.log(10.0)  # Elo points per unit of log-strength
_CELLS = 4_000_000  # examples × systems cells ranked at once (bounded working memory)


def _block_counts(block: np.ndarray, total_cells: int | None = None
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For a block of examples × systems (contiguous): per cell the scored systems below,
    equal (itself excluded) and all others (0 where unscored), from one argsort per
    example: a run of equal sorted values starts at the count of systems below it."""
    has = ~np.isnan(block)
    ones = block == 1.0
    if (ones | (block == 0.0) | ~has).all():  # 0/1 scores: counts of each value, no sort
        n1 = ones.sum(axis=1, keepdims=True).astype(float)
        n0 = has.sum(axis=1, keepdims=True) - n1
        beaten = np.where(ones, n0, 0.0)
        tied = np.where(ones, n1 - 1.0, np.where(has, n0 - 1.0, 0.0))
        return beaten, tied, np.where(has, n0 + n1 - 1.0, 0.0)
    order = np.argsort(block, axis=1)  # NaN sorts last
    beaten, tied, others = (np.zeros(block.shape) for _ in range(3))
    # numpy's runs cost ~30 ns a cell: Numba is loaded for ~10^7 cells (of all blocks)
    compiled = _jit.kernels_for((total_cells or block.size) * 3e-8)
    if compiled is not None:
        compiled.run_counts(block, order, beaten, tied, others)
        return beaten, tied, others
    s = block.shape[1]
    k = np.arange(s)
    ordered = np.take_along_axis(block, order, axis=1)
    new = np.ones(block.shape, dtype=bool)
    new[:, 1:] = ordered[:, 1:] != ordered[:, :-1]
    first = np.maximum.accumulate(np.where(new, k, 0), axis=1)
    ends = np.ones(block.shape, dtype=bool)
    ends[:, :-1] = new[:, 1:]
    last = np.minimum.accumulate(np.where(ends, k, s - 1)[:, ::-1], axis=1)[:, ::-1]
    np.put_along_axis(beaten, order, first, axis=1)
    np.put_along_axis(tied, order, last - first, axis=1)
    others[:] = has.sum(axis=1, keepdims=True) - 1.0
    return beaten * has, tied * has, others * has


def _sums(x: np.ndarray, p: np.ndarray) -> dict[str, np.ndarray]:
    """Block by block of examples: the meat Σ_e u_e u_eᵀ and the per-system sums the win
    rate's variance needs (Σ b, Σ d, Σ b², Σ b d, Σ d²), no S × E array held."""
    s, e = x.shape
    out = {"meat": np.zeros((s, s))} | {k: np.zeros(s) for k in ("b", "d", "bb", "bd", "dd")}
    full = not np.isnan(x).any()
    row_sums = p.sum(axis=1)
    step = max(1, _CELLS // max(s, 1))
    for start in range(0, e, step):
        block = np.ascontiguousarray(x[:, start:start + step].T)
        beaten, tied, others = _block_counts(block, x.size)
        has = ~np.isnan(block)
        # Σ_{j scored on e} p_ij: a product only when some scores are missing
        expected = row_sums if full else has.astype(float) @ p.T
        u = np.where(has, beaten + 0.5 * tied - expected, 0.0)
        out["meat"] += u.T @ u
        decisive = others - tied
        for key, v in (("b", beaten), ("d", decisive), ("bb", beaten * beaten),
                       ("bd", beaten * decisive), ("dd", decisive * decisive)):
            out[key] += v.sum(axis=0)
    return out


def bt_sandwich(
    x: np.ndarray, strength: np.ndarray, n_battles: np.ndarray, *, confidence: float = 0.95,
    anchor: int | None = None,
) -> BTIntervals:
    """Cluster-robust (sandwich) intervals around a Bradley–Terry fit with ties as half wins.

    Parameters
    ----------
    x : ndarray (S, E)
        Oriented scores (larger is better); NaN = not scored.
    strength : ndarray (S,)
        The fitted strengths (:func:`engine.ranking._bradley_terry.bradley_terry`, ties "half").
    n_battles : ndarray (S, S)
        Battles per pair (examples the pair shares).
    confidence : float, keyword-only
    anchor : int, optional
        System whose Elo is fixed at 1000 (default: the mean is 1000).

    Returns
    -------
    BTIntervals
        With ``n_resamples`` = 0 (no resampling).

    Notes
    -----
    With θ = log strength and p_ij = σ(θ_i − θ_j), example e contributes the score
    u_ie = (beaten_ie + ½ tied_ie) − Σ_{j scored on e} p_ij to ∂ℓ/∂θ_i. The bread is
    the Fisher information, a graph Laplacian L with weights N_ij p_ij (1 − p_ij); the
    meat is M = Σ_e u_e u_eᵀ. Cov(θ) = L⁺ M L⁺ in the sum-zero gauge (L⁺ the
    pseudo-inverse), carried to strength by the softmax Jacobian diag(s) − s sᵀ and to
    Elo by 400/ln 10. Win rate r_i = Σ_e b_ie / Σ_e d_ie (d = decisive battles) has the
    ratio estimator's variance Σ_e (b_ie − r_i d_ie)² / (Σ_e d_ie)². Intervals are
    estimate ± z_{(1+confidence)/2} · se, strength and win rate clipped to [0, 1].

    References
    ----------
    White (1982), Maximum likelihood estimation of misspecified models, Econometrica
    50:1–25; Liang & Zeger (1986), Biometrika 73:13–22 (clustered scores);
    Chiang et al. (2024), Chatbot Arena, ICML (sandwich intervals for Bradley–Terry).
    """
    x = np.asarray(x, dtype=float)
    theta = np.log(np.maximum(strength, 1e-300))
    theta = theta - theta.mean()
    p = 1.0 / (1.0 + np.exp(theta[None, :] - theta[:, None]))  # p_ij = σ(θ_i − θ_j)
    np.fill_diagonal(p, 0.0)
    sums = _sums(x, p)
    meat = sums["meat"]
    weight = np.asarray(n_battles, dtype=float) * p * p.T  # p_ij (1 − p_ij) = p_ij p_ji
    np.fill_diagonal(weight, 0.0)
    bread = np.linalg.pinv(np.diag(weight.sum(axis=1)) - weight, hermitian=True)
    cov = bread @ meat @ bread
    z = float(stats.norm.ppf((1.0 + confidence) / 2.0))
    jac = np.diag(strength) - np.outer(strength, strength)
    se_s = np.sqrt(np.maximum(np.diag(jac @ cov @ jac), 0.0))
    var = np.diag(cov)
    if anchor is not None:
        var = var + cov[anchor, anchor] - 2.0 * cov[:, anchor]
    se_elo = _LOG10_POINTS * np.sqrt(np.maximum(var, 0.0))
    elo = _LOG10_POINTS * (theta - (theta[anchor] if anchor is not None else 0.0)) + 1000.0
    won, total = sums["b"], sums["d"]
    with np.errstate(invalid="ignore", divide="ignore"):
        rate = np.where(total > 0, won / total, np.nan)
        r = np.nan_to_num(rate)  # Σ (b − r d)² expanded over the sums
        spread = sums["bb"] - 2.0 * r * sums["bd"] + r * r * sums["dd"]
        se_r = np.sqrt(np.maximum(spread, 0.0)) / total
    low, high = np.clip([strength - z * se_s, strength + z * se_s, rate - z * se_r,
                         rate + z * se_r], 0.0, 1.0).reshape(2, 2, -1).transpose(1, 0, 2)
    return BTIntervals(np.asarray(strength, dtype=float), low[0], high[0], elo,
                       elo - z * se_elo, elo + z * se_elo, rate, low[1], high[1], True, 0,
                       0.0, 0, confidence, "half", anchor)
