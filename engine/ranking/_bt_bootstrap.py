"""Bootstrap intervals of Bradley–Terry strength, Elo and win rate (:func:`bt_bootstrap`).

Examples are resampled; each resample's battles are weighted comparison counts
(matrix products over blocks of systems), and all resamples are refitted at once
by the batched Newton iteration of :mod:`engine.ranking._bradley_terry`, warm-started from the
point fit, with BLAS on one thread.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np

from ._bradley_terry import (
    _battles,
    _check_tie_model,
    _newton,
    _one_blas_thread,
    _strengths,
    _take,
    win_rates,
)

__all__ = ["BTIntervals", "bt_bootstrap"]

_BLOCK_CELLS = 8_000_000  # comparison cells held at once by bt_bootstrap (64 MB as float64)


@dataclass(frozen=True)
class BTIntervals:
    """Bootstrap percentile intervals of Bradley–Terry strength, Elo and win rate.

    Attributes
    ----------
    strength, strength_low, strength_high : ndarray (S,)
    elo, elo_low, elo_high : ndarray (S,)
    win_rate, win_rate_low, win_rate_high : ndarray (S,)
        Point estimates (all examples) and percentile limits over resamples.
    converged : bool
        Whether the point fit converged; ``n_not_converged`` counts resamples whose
        fit did not (their estimates are still used).
    prior : float
        Pseudo-battles added to the point fit (see :class:`BradleyTerry`).
    n_resamples, confidence, ties, anchor
        Parameters the intervals were computed with.
    """

    strength: np.ndarray
    strength_low: np.ndarray
    strength_high: np.ndarray
    elo: np.ndarray
    elo_low: np.ndarray
    elo_high: np.ndarray
    win_rate: np.ndarray
    win_rate_low: np.ndarray
    win_rate_high: np.ndarray
    converged: bool
    n_not_converged: int
    prior: float
    n_resamples: int
    confidence: float
    ties: str
    anchor: int | None


def _weighted_battles(x: np.ndarray, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """wins_b[i, j] = Σ_e c_be [x_ie > x_je], ties_b likewise with =, as matrix products.

    NaN compares false both ways, so each pair only counts the examples it shares.
    Without NaN, ties are the rest of the battles, Σ_e c_be − wins_b − wins_bᵀ, and
    only the wins are multiplied out: for 0/1 scores as one product
    (x ∘ c_b)(1 − x)ᵀ per resample, otherwise from the comparison indicators of
    blocks of systems, kept below ``_BLOCK_CELLS`` cells.
    """
    s, e = x.shape
    n_batch = len(weights)
    off = ~np.eye(s, dtype=bool)
    w32 = np.ascontiguousarray(weights.T, dtype=np.float32)
    if not np.isnan(x).any():
        wins = _weighted_wins(x, w32)
        tied = weights.sum(axis=1)[:, None, None] - wins - wins.transpose(0, 2, 1)
        return wins * off, np.maximum(tied, 0.0) * off
    wins = np.empty((n_batch, s, s))
    tied = np.empty((n_batch, s, s))
    for rows in _system_blocks(s, e):
        xi = x[rows][:, None, :]
        r = xi.shape[0]
        # float32 products of 0/1 indicators and counts are exact integers below 2^24
        gt = (xi > x[None]).reshape(r * s, e).astype(np.float32)
        eq = (xi == x[None]).reshape(r * s, e).astype(np.float32)
        wins[:, rows] = (gt @ w32).T.reshape(n_batch, r, s)
        tied[:, rows] = (eq @ w32).T.reshape(n_batch, r, s)
    return wins * off, tied * off


def _system_blocks(s: int, e: int) -> list[slice]:
    """Rows of systems whose (rows × S × E) comparison cells stay below ``_BLOCK_CELLS``."""
    step = max(1, _BLOCK_CELLS // max(s * e, 1))
    return [slice(start, min(start + step, s)) for start in range(0, s, step)]


def _weighted_wins(x: np.ndarray, w32: np.ndarray) -> np.ndarray:
    """wins_b[i, j] = Σ_e c_be [x_ie > x_je] for scores without NaN (``w32``: E × B)."""
    s, e = x.shape
    n_batch = w32.shape[1]
    wins = np.empty((n_batch, s, s))
    if np.isin(x, (0.0, 1.0)).all():  # [x_i > x_j] = x_i (1 − x_j): one product per resample
        ones, zeros = x.astype(np.float32), (1.0 - x).astype(np.float32).T.copy()
        for b in range(n_batch):
            wins[b] = (ones * w32[:, b]) @ zeros
        return wins
    for rows in _system_blocks(s, e):
        xi = x[rows][:, None, :]
        r = xi.shape[0]
        gt = (xi > x[None]).reshape(r * s, e).astype(np.float32)
        wins[:, rows] = (gt @ w32).T.reshape(n_batch, r, s)
    return wins


def _elo_rows(strength: np.ndarray, anchor: int | None) -> np.ndarray:
    r = 400.0 * np.log10(strength)
    shift = r[..., anchor] if anchor is not None else r.mean(axis=-1)
    return np.asarray(r - shift[..., None] + 1000.0, dtype=float)


def _fit_resamples(x: np.ndarray, weights: np.ndarray, ties: str, prior: float, tol: float,
                   max_iter: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """Strengths, win rates and convergence of every weighting, in chunks of resamples so
    that the (chunk, S, S) battle arrays stay below ``_BLOCK_CELLS`` cells; and the prior's
    pseudo-battles the first weighting (the data as observed) needed."""
    s = x.shape[0]
    chunk = max(1, _BLOCK_CELLS // (s * s))
    parts = []
    point = None  # the first weighting's fit starts the others (resamples land near it)
    used_first = 0.0
    for start in range(0, len(weights), chunk):
        wins, tied = _weighted_battles(x, weights[start:start + chunk])
        battles, used = _battles(wins, tied, ties, prior)
        if point is None:
            used_first = float(used[0])
            first = _newton(_take(battles, np.array([0])), tol, max_iter)
            point = first.theta[0] if np.isfinite(first.theta).all() else None
        fit = _newton(battles, tol, max_iter, point)
        parts.append((_strengths(fit.theta), win_rates(wins), fit.converged))
    return (np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts]),
            np.concatenate([p[2] for p in parts]), used_first)


def bt_bootstrap(
    x: np.ndarray, *, n_resamples: int = 200, confidence: float = 0.95, ties: str = "half",
    rng: np.random.Generator | int | None = None, anchor: int | None = None,
    prior: float = 0.5, tol: float = 1e-10, max_iter: int = 100,
) -> BTIntervals:
    """Paired bootstrap intervals for Bradley–Terry strength, Elo and win rate.

    Parameters
    ----------
    x : ndarray (S, E)
        Scores, systems × examples, oriented so that larger is better; NaN = not scored.
    n_resamples : int, keyword-only
        Bootstrap resamples of the examples (with replacement, all systems together).
    confidence : float, keyword-only
        Level of the percentile intervals.
    ties : {"half", "ignore", "davidson"}, keyword-only
        Tie model (see :func:`bradley_terry`).
    rng : Generator or int, optional
    anchor : int, optional
        Index of the system whose Elo is fixed at 1000 (default: the mean is 1000).
    prior, tol, max_iter : keyword-only
        Passed to the fits (see :func:`bradley_terry`).

    Returns
    -------
    BTIntervals

    Notes
    -----
    A resample draws example counts c_b ~ Multinomial(E, 1/E). Its battles are
    wins_b[i, j] = Σ_e c_be [x_ie > x_je] and ties_b[i, j] = Σ_e c_be [x_ie = x_je]:
    one matrix product of the (S·S) × E comparison indicators with the counts, for
    all resamples; every pair uses the examples it shares. All resamples are then
    fitted together by batched Newton steps. Limits are the (1 ± confidence)/2
    percentiles; Elo is 400 log10(strength) centred on 1000 in each resample.

    References
    ----------
    Efron & Tibshirani (1993), An Introduction to the Bootstrap, ch. 13
    (percentile intervals).

    Examples
    --------
    >>> x = np.array([[3.0, 2, 5, 4, 1, 6], [1.0, 3, 2, 2, 0, 5]])
    >>> res = bt_bootstrap(x, n_resamples=50, rng=0)
    >>> bool(res.strength_low[0] <= res.strength[0] <= res.strength_high[0])
    True
    """
    tie_model = _check_tie_model(ties)
    values = np.asarray(x, dtype=float)
    if values.ndim != 2:
        raise ValueError(f"x: must be a systems × examples matrix; got shape {values.shape}")
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, int | np.integer) \
            or n_resamples < 1:
        raise ValueError(f"n_resamples: must be a positive integer; got {n_resamples!r}")
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence: must be strictly between 0 and 1; got {confidence!r}")
    s, e = values.shape
    if anchor is not None and not 0 <= anchor < s:
        raise ValueError(f"anchor: must index one of the {s} systems; got {anchor!r}")
    generator = np.random.default_rng(rng)
    counts = generator.multinomial(e, np.full(e, 1.0 / e), size=n_resamples) if e else \
        np.zeros((n_resamples, 0))
    weights = np.vstack([np.ones((1, e)), counts.astype(float)])
    if s <= 1:
        one = np.ones(s)
        return BTIntervals(one, one, one, one * 1000.0, one * 1000.0, one * 1000.0,
                           *(np.full(s, np.nan),) * 3, True, 0, 0.0, n_resamples, confidence,
                           tie_model, anchor)
    with _one_blas_thread():
        strength, rate, converged, used = _fit_resamples(values, weights, tie_model, prior,
                                                         tol, max_iter)
    elo = _elo_rows(strength, anchor)
    q = [(1.0 - confidence) / 2.0, (1.0 + confidence) / 2.0]
    with warnings.catch_warnings():
        # a system without a decisive battle has no win rate in any resample: NaN limits
        warnings.simplefilter("ignore", RuntimeWarning)
        bounds = [np.nanquantile(v[1:], q, axis=0) if v[1:].size else np.full((2, s), np.nan)
                  for v in (strength, elo, rate)]
    return BTIntervals(strength[0], bounds[0][0], bounds[0][1], elo[0], bounds[1][0],
                       bounds[1][1], rate[0], bounds[2][0], bounds[2][1], bool(converged[0]),
                       int((~converged[1:]).sum()), used, n_resamples, confidence,
                       tie_model, anchor)
