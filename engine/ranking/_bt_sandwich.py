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

from ._bt_bootstrap import BTIntervals

__all__ = ["bt_sandwich"]

_LOG10_POINTS = 400.0 / np.log(10.0)  # Elo points per unit of log-strength
_CELLS = 4_000_000  # examples × systems cells ranked at once (bounded working memory)


def _example_counts(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per system and example (S × E): systems beaten, systems tied, systems present
    besides it (0 where the system has no score), from ranks among the scored systems."""
    beaten = np.zeros(x.shape)
    tied = np.zeros(x.shape)
    others = np.zeros(x.shape)
    step = max(1, _CELLS // max(len(x), 1))
    for start in range(0, x.shape[1], step):
        block = x[:, start:start + step]
        has = ~np.isnan(block)
        low = stats.rankdata(block, method="min", axis=0, nan_policy="omit")
        high = stats.rankdata(block, method="max", axis=0, nan_policy="omit")
        cols = slice(start, start + block.shape[1])
        beaten[:, cols] = np.where(has, low - 1.0, 0.0)
        tied[:, cols] = np.where(has, high - low, 0.0)
        others[:, cols] = np.where(has, has.sum(axis=0) - 1.0, 0.0)
    return beaten, tied, others


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
    beaten, tied, others = _example_counts(x)
    has = ~np.isnan(x)
    # Σ_{j scored on e} p_ij: a product only when some scores are missing
    expected = p @ has.astype(float) if not has.all() else p.sum(axis=1)[:, None]
    u = np.where(has, beaten + 0.5 * tied - expected, 0.0)
    meat = u @ u.T
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
    decisive = others - tied
    won, total = beaten.sum(axis=1), decisive.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        rate = np.where(total > 0, won / total, np.nan)
        resid = beaten - np.nan_to_num(rate)[:, None] * decisive
        se_r = np.sqrt((resid * resid).sum(axis=1)) / total
    clip = lambda v: np.clip(v, 0.0, 1.0)  # noqa: E731
    return BTIntervals(np.asarray(strength, dtype=float), clip(strength - z * se_s),
                       clip(strength + z * se_s), elo, elo - z * se_elo, elo + z * se_elo,
                       rate, clip(rate - z * se_r), clip(rate + z * se_r), True, 0, 0.0, 0,
                       confidence, "half", anchor)
