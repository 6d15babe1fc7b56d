"""One Elo update from given ratings: expected scores and the new rating (:func:`elo_update`).

The K-factor rule of Elo (1978, *The Rating of Chessplayers, Past and Present*): a player
rated R who meets opponents rated R_i and scores S_i (1 win, ½ draw, 0 loss) was expected
to score E_i = 1 / (1 + 10^((R_i − R)/400)) against each, and is rated
R' = R + K · Σ_i (S_i − E_i) after the games (one update for the whole event, every
expectation from the ratings before it). :func:`~engine.ranking._sequential.sequential_elo`
applies the same rule one battle at a time over a battle list; this is the closed form for
one player and one event, for checking a rating by hand.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import special

__all__ = ["EloUpdate", "elo_expected", "elo_update"]


@dataclass(frozen=True)
class EloUpdate:
    """One player's Elo update over one event.

    ``expected``: the expected score against each opponent (same order as given);
    ``expected_total`` and ``score_total``: their sum and the actual score's;
    ``change`` = K · (score_total − expected_total); ``rating``: the new rating
    (unrounded; rating lists round it to an integer).
    """

    old_rating: float
    expected: np.ndarray
    expected_total: float
    score_total: float
    k: float
    change: float
    rating: float


def elo_expected(rating: float, opponents: np.ndarray | list[float] | float, *,
                 scale: float = 400.0) -> np.ndarray:
    """Expected score of a player rated ``rating`` against each of ``opponents``:
    ``1 / (1 + 10^((R_opp − R) / scale))`` (Elo 1978; ``scale`` points = 10:1 odds)."""
    r = _finite_scalar(rating, "rating")
    opp = np.atleast_1d(np.asarray(opponents, dtype=float))
    if not np.isfinite(opp).all():
        bad = int(np.flatnonzero(~np.isfinite(opp))[0])
        raise ValueError(f"opponents: rating {bad} is {opp[bad]}; give finite ratings")
    if not (np.isfinite(scale) and scale > 0):
        raise ValueError(f"scale: must be a positive number of rating points; got {scale!r}")
    # 1 / (1 + 10^x) as the logistic of −x·ln 10, which cannot overflow for rating gaps
    # of many thousand points (10^x does for x > 308)
    return np.asarray(special.expit(-(opp - r) / scale * np.log(10.0)))


def elo_update(rating: float, opponents: np.ndarray | list[float], scores: np.ndarray | list[float],
               *, k: float = 32.0, scale: float = 400.0) -> EloUpdate:
    """A player's new Elo rating after games against opponents of given ratings.

    Parameters
    ----------
    rating : float
        The player's rating before the event.
    opponents : array_like (n,)
        Each opponent's rating before the event.
    scores : array_like (n,)
        The player's score in each game: 1 win, 0.5 draw, 0 loss (any value in
        [0, 1], e.g. a match's share of points, is taken).
    k : float, keyword-only
        K-factor (≥ 0): the most points one game can move the rating (32 in the
        Wikipedia and USCF examples; FIDE uses 40, 20 or 10).
    scale : float, keyword-only
        Rating points of difference that mean 10:1 odds (400 in chess).

    Returns
    -------
    EloUpdate
        Expected scores, totals, the change K · Σ(S − E) and the new rating.

    Notes
    -----
    The expected scores are those of the ratings *before* the event, so the result does
    not depend on the order of the games. Between two players with the same K the
    change is zero-sum (E_ab + E_ba = 1 and S_ab + S_ba = 1).

    References
    ----------
    Elo, A. E. (1978), *The Rating of Chessplayers, Past and Present*, Arco.
    Wikipedia, "Elo rating system", section "Mathematical details" (worked example of a
    player rated 1613 in a five-game event; tests/engine/ranking/test_elo_update.py).

    Examples
    --------
    >>> res = elo_update(1613, [1609, 1477, 1388, 1586, 1720], [0, 0.5, 1, 1, 0], k=32)
    >>> round(res.expected_total, 3), round(res.rating)
    (2.867, 1601)
    """
    expected = elo_expected(rating, opponents, scale=scale)
    s = np.atleast_1d(np.asarray(scores, dtype=float))
    if s.shape != expected.shape:
        raise ValueError(f"scores: one score per opponent; got {s.size} scores for "
                         f"{expected.size} opponents")
    if not ((s >= 0.0) & (s <= 1.0)).all():  # also rejects NaN
        bad = int(np.flatnonzero(~((s >= 0.0) & (s <= 1.0)))[0])
        raise ValueError(f"scores: score {bad} is {s[bad]}; each score must be in [0, 1] "
                         "(1 win, 0.5 draw, 0 loss)")
    kk = _finite_scalar(k, "k")
    if kk < 0:
        raise ValueError(f"k: the K-factor must be ≥ 0; got {k!r}")
    e_total, s_total = float(expected.sum()), float(s.sum())
    change = kk * float((s - expected).sum())
    r = float(rating)
    return EloUpdate(r, expected, e_total, s_total, kk, change, r + change)


def _finite_scalar(value: float, name: str) -> float:
    try:
        out = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name}: must be a number; got {value!r}") from None
    if not np.isfinite(out):
        raise ValueError(f"{name}: must be finite; got {value!r}")
    return out
