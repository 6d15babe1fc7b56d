"""Aggregations of example-level battles: win rate, Bradley–Terry strength, Elo-scale rating."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import connected_components

__all__ = ["BradleyTerry", "bradley_terry", "elo_scale", "win_rates"]


@dataclass(frozen=True)
class BradleyTerry:
    """Bradley–Terry strengths fitted by Zermelo's / Hunter's MM iteration.

    ``strength`` sums to 1 (P(i beats j) = s_i / (s_i + s_j)); ``prior`` is the
    pseudo-count of tied battles added to every pair (0 unless the battle graph
    was not strongly connected, where the maximum-likelihood estimate does not exist).
    """

    strength: np.ndarray
    iterations: int
    converged: bool
    prior: float
    tol: float


def win_rates(wins: np.ndarray) -> np.ndarray:
    """Share of decisive example-level battles each system wins (NaN when it had none).

    ``wins[i, j]`` counts examples where i scores strictly higher than j; ties are
    not decisive and are left out.
    """
    won = wins.sum(axis=1).astype(float)
    decisive = won + wins.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(decisive > 0, won / np.maximum(decisive, 1), np.nan)


def _needs_prior(a: np.ndarray) -> bool:
    """True when the "i beat j at least half a time" graph is not strongly connected."""
    n_components, _ = connected_components(csr_matrix(a > 0), directed=True, connection="strong")
    return bool(n_components > 1)


def bradley_terry(
    wins: np.ndarray, n_battles: int | np.ndarray, *, tol: float = 1e-10, max_iter: int = 10_000,
    prior: float = 0.5,
) -> BradleyTerry:
    """Fit Bradley–Terry strengths from example-level battles, ties counted as half wins.

    Parameters
    ----------
    wins : ndarray (S, S)
        ``wins[i, j]``: examples on which i beats j.
    n_battles : int or ndarray (S, S)
        Battles per pair (the shared examples); ties = battles - wins_ij - wins_ji.
    tol, max_iter : keyword-only
        Stop when the largest relative change of a strength is below ``tol``.
    prior : float, keyword-only
        Tied pseudo-battles added to every pair *only* when the battle graph is not
        strongly connected (some system never wins, or a group never beats another).

    Returns
    -------
    BradleyTerry

    Notes
    -----
    With A_ij = wins_ij + ties_ij / 2 and N_ij = A_ij + A_ji, the MM update
    (Zermelo 1929; Hunter 2004, Ann. Statist. 32:384) is
    p_i ← Σ_j A_ij / Σ_j N_ij / (p_i + p_j), then p is renormalised to sum 1.

    References
    ----------
    Peyrard et al. (2021), "Better than Average: Paired Evaluation of NLP
    Systems" (seed 002), appendix F.
    """
    s = len(wins)
    if s <= 1:  # nothing to compare: a lone system holds all the strength
        return BradleyTerry(np.ones(s), 0, True, 0.0, tol)
    w = wins.astype(float)
    battles = np.broadcast_to(np.asarray(n_battles, dtype=float), w.shape)
    a = w + (battles - w - w.T) / 2.0
    np.fill_diagonal(a, 0.0)
    used_prior = prior if s > 1 and _needs_prior(a) else 0.0
    if used_prior:
        a = a + used_prior / 2.0
        np.fill_diagonal(a, 0.0)
    n = a + a.T
    won = a.sum(axis=1)
    p = np.full(s, 1.0 / s)
    converged = s == 1
    it = 0
    for it in range(1, max_iter + 1):  # noqa: B007 - the count is part of the result
        with np.errstate(divide="ignore", invalid="ignore"):
            denom = (n / (p[:, None] + p[None, :])).sum(axis=1)
            new = np.where(denom > 0, won / denom, 0.0)
        new = new / new.sum()
        change = np.max(np.abs(new - p) / np.maximum(p, 1e-300))
        p = new
        if change < tol:
            converged = True
            break
    return BradleyTerry(p, it, converged, used_prior, tol)


def elo_scale(strength: np.ndarray, *, anchor: int | None = None, base: float = 1000.0) -> np.ndarray:
    """Elo-scale ratings 400 · log10(strength), shifted so the mean (or ``anchor``'s) is ``base``.

    A difference of 400 points means 10:1 odds of winning a battle, as in chess Elo.
    """
    with np.errstate(divide="ignore"):
        r = 400.0 * np.log10(strength)
    finite = np.isfinite(r)
    shift = r[anchor] if anchor is not None else (r[finite].mean() if finite.any() else 0.0)
    return np.asarray(r - shift + base, dtype=float)
