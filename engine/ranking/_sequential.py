"""Sequential ratings over example-level battles: K-factor Elo and 1-vs-1 TrueSkill.

Arena leaderboards replay battles one at a time and update ratings after each.
The result depends on the order of the battles, so the order is drawn at random
(from a seed) and the ratings are averaged over many orders. All orders are
replayed *together*, with the state a systems × orders array:

* Elo: each order is replayed by the loop of :mod:`engine._jit`, compiled by Numba
  (~7 ns a battle: one order of 1M battles in ~0.08 s CPU with the shuffle, against
  0.12–0.15 s for evalica's Rust) or, without Numba, over plain Python floats and
  integer codes (~0.3 µs a battle) up to ``_PYTHON_ORDERS`` orders, with more orders
  replayed together, one vector operation per battle position. The three give the
  same ratings up to the last bits of ``exp`` (numpy's vectorised exp and the C
  library's differ by an ulp: < 1e-12 Elo points).
* TrueSkill: each order is replayed by the compiled loop of :mod:`engine._jit` (~45 ns
  a battle: 1.4M battles of AlpacaEval in 0.07 s an order, against 6.1 s in rounds below)
  once the work is worth loading Numba; equal to the numpy replay to ~1e-14 (tested),
  which stays the reference and the path without Numba.
  Without it (about 25 vector operations per step): each order is first cut into
  rounds, runs of consecutive battles in which no system appears twice. Updates
  within a round touch disjoint systems, so they commute and run as one vector
  operation; round r of every order runs in one step. Every rating goes through
  exactly the per-battle sequence of updates (tested bit for bit), in about a
  fifth of the steps (~31,000 rounds for 167,000 battles of 78 systems).

The orders are drawn row by row into a C-ordered array: the same orders as
permuting a broadcast view, which returns them column-major and took ~2 s of
CPU for 100 orders of 167,000 battles instead of ~0.5 s.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Literal

import numpy as np
from scipy import special

from .. import _jit

__all__ = ["Battles", "SequentialRatings", "TrueSkillEnv", "battles_from_scores", "draw_margin",
           "sequential_elo", "sequential_trueskill"]

TieRule = Literal["ignore", "draw"]
# Without Numba, up to this many orders are replayed one by one over Python floats (~0.3 µs
# a battle); more are replayed together, one numpy step per battle (~5 µs for 100 orders).
_PYTHON_ORDERS = 8
_PYTHON_BATTLE_S = 2.8e-7  # one battle replayed over Python floats (measured)
# TrueSkill replayed in rounds (measured, 58k and 1.4M battles, 1-20 orders): each battle
# of one order costs ~4 µs of per-round numpy overhead, shared by all orders, plus ~0.45 µs
# for each order (1 order: 4.3-5.1 µs a battle; 20: 0.45-0.51 µs a battle and order).
_ROUND_STEP_S = 4.0e-6
_ROUNDS_BATTLE_S = 4.5e-7
_STEP_BLOCK = 4096  # battles per block of precomputed flat indices (bounds memory to B × P)
_SQRT_2PI = float(np.sqrt(2.0 * np.pi))
_LOG_SQRT_2PI = float(np.log(_SQRT_2PI))


@dataclass(frozen=True)
class TrueSkillEnv:
    """TrueSkill's constants: prior mean ``mu`` and SD ``sigma``, performance SD ``beta``,
    dynamics ``tau`` (added to every SD before a game) and the chance of a draw.

    The defaults are Herbrich, Minka & Graepel's (2006), "TrueSkill: A Bayesian skill
    rating system", NIPS 19: mu0 = 25, sigma0 = mu0/3, beta = sigma0/2, tau = sigma0/100,
    and a 10 % draw chance; the ``trueskill`` package (0.4.5) has the same defaults,
    computed the same way (so bit for bit), and its ``TrueSkill`` objects can be passed
    where one of these is taken (tests/engine/ranking/test_trueskill_constants.py compares them).
    """

    mu: float = 25.0
    sigma: float = 25.0 / 3
    beta: float = 25.0 / 3 / 2
    tau: float = 25.0 / 3 / 100
    draw_probability: float = 0.10


def draw_margin(draw_probability: float, beta: float, size: int = 2) -> float:
    """The draw margin of ``size`` players in all (2 for one against one):
    eps = Phi^-1((p + 1) / 2) * sqrt(size) * beta, where p is the chance of a draw (Herbrich,
    Minka & Graepel 2006, "TrueSkill: A Bayesian skill rating system", NIPS 19). Phi^-1 is
    scipy's ``ndtri``; the ``trueskill`` package's ``calc_draw_margin`` uses an
    approximation of it, ~3e-7 smaller (relative) at p = 0.1.

    >>> round(draw_margin(0.10, 25 / 6), 6)
    0.740467
    """
    return float(special.ndtri((draw_probability + 1.0) / 2.0)) * math.sqrt(size) * beta


@dataclass(frozen=True)
class Battles:
    """Example-level battles in the data's order (example by example, pairs i < j).

    ``a[t]``, ``b[t]`` are system indices; ``score[t]`` is 1 when a won, 0 when b
    won, 0.5 for a draw (only with ``ties="draw"``).
    """

    a: np.ndarray
    b: np.ndarray
    score: np.ndarray
    n_systems: int
    ties: TieRule

    @property
    def n_battles(self) -> int:
        return len(self.a)


@dataclass(frozen=True)
class SequentialRatings:
    """Ratings after replaying the battles in ``n_permutations`` random orders.

    ``rating`` is the mean over orders of the final rating (Elo points, or
    TrueSkill's mu); ``by_permutation`` has one row per order. ``sigma`` is
    TrueSkill's posterior SD averaged over orders (None for Elo).
    """

    rating: np.ndarray
    by_permutation: np.ndarray
    sigma: np.ndarray | None
    method: str
    params: dict[str, float]
    n_battles: int
    n_permutations: int
    seed: int | None


def battles_from_scores(x: np.ndarray, *, ties: TieRule = "ignore") -> Battles:
    """Every example-level battle of an oriented systems × examples array (no NaN).

    For each example (column) and pair i < j: i beats j when x_i > x_j. Ties are
    dropped (``"ignore"``, the decisive battles eval-arena counts) or kept as
    draws (``"draw"``).
    """
    x = np.asarray(x, dtype=float)
    if x.ndim != 2:
        raise ValueError(f"x: must be a systems × examples array; got {x.ndim} dimension(s)")
    if np.isnan(x).any():
        raise ValueError("x: must have no missing scores (use the examples every system has)")
    if ties not in ("ignore", "draw"):
        raise ValueError(f"ties: must be 'ignore' or 'draw'; got {ties!r}")
    s = x.shape[0]
    ii, jj = np.triu_indices(s, 1)
    diff = (x[ii] - x[jj]).T  # examples × pairs: example-major is the data's order
    sign = np.sign(diff).ravel()
    a = np.broadcast_to(ii, diff.shape).ravel()
    b = np.broadcast_to(jj, diff.shape).ravel()
    keep = sign != 0 if ties == "ignore" else np.ones_like(sign, dtype=bool)
    score = (sign[keep] + 1.0) / 2.0
    return Battles(a[keep].astype(np.intp), b[keep].astype(np.intp), score, s, ties)


def _orders(n_battles: int, n_permutations: int, rng: np.random.Generator | int | None,
            orders: np.ndarray | None) -> np.ndarray:
    if orders is not None:
        orders = np.atleast_2d(np.asarray(orders))
        if orders.shape[1] != n_battles or not np.array_equal(
                np.sort(orders, axis=1), np.broadcast_to(np.arange(n_battles), orders.shape)):
            raise ValueError(f"orders: each row must be a permutation of range({n_battles})")
        return orders.astype(np.int32)
    if n_permutations < 1:
        raise ValueError(f"n_permutations: must be at least 1; got {n_permutations}")
    gen = np.random.default_rng(rng)
    # Shuffled in place in a C-ordered copy: the same orders as permuting a broadcast view
    # (which returns them column-major, 4× slower to draw and to read row by row).
    out = np.tile(np.arange(n_battles, dtype=np.int32), (n_permutations, 1))
    gen.permuted(out, axis=1, out=out)
    return out


def _seed_of(rng: np.random.Generator | int | None) -> int | None:
    return rng if isinstance(rng, int) else None


@dataclass(frozen=True)
class _Schedule:
    """All orders' battles laid out round by round, rounds of every order side by side.

    Slots ``bounds[r]:bounds[r + 1]`` hold round r of every order: ``battle`` (index into
    the battles) and ``lane`` (which order). Within a round of one order no two battles
    share a system, so the round's updates commute and run as one vector operation;
    rounds run in each order's sequence, so every rating is updated exactly as one
    battle at a time would.
    """

    battle: np.ndarray
    lane: np.ndarray
    bounds: list[int]


def _round_ends(a: np.ndarray, b: np.ndarray, order: np.ndarray, n_systems: int) -> np.ndarray:
    """``ends[q, s]``: where a round of order q that starts at position s must end.

    That is the first position t > s whose battle shares a system with a battle in
    [s, t). With nxt(v) = the next position after v that shares a system with
    battle v, ends(s) = min over v ≥ s of nxt(v): a suffix minimum. nxt comes from
    one sort per order of the (system, position) events.
    """
    p, t = order.shape
    ends = np.empty((p, t + 1), dtype=np.int64)
    ends[:, t] = t
    span = 2 * t  # event key = system * span + 2 * position + side
    kind: type[np.signedinteger] = np.int32 if n_systems * span < 2**31 else np.int64
    key_a = a.astype(kind) * span  # int32 sorts about 3× faster than int64
    key_b = b.astype(kind) * span + 1
    twice = np.arange(0, span, 2, dtype=kind)
    keys = np.empty(span, dtype=kind)
    nxt = np.empty(span, dtype=kind)
    for q in range(p):
        np.add(key_a[order[q]], twice, out=keys[:t])
        np.add(key_b[order[q]], twice, out=keys[t:])
        keys.sort()
        system = keys // span
        slot = keys - system * span
        same = system[1:] == system[:-1]
        here = slot[:-1][same]
        nxt.fill(t)
        nxt[(here & 1) * t + (here >> 1)] = slot[1:][same] >> 1
        ends[q, :t] = np.minimum.accumulate(np.minimum(nxt[:t], nxt[t:])[::-1])[::-1]
    return ends


def _schedule(battles: Battles, order: np.ndarray) -> _Schedule:
    """Greedy rounds of every order (each round as long as no system repeats), laid out
    round-major so that step r updates round r of all orders at once."""
    p, t = order.shape
    if t == 0:
        return _Schedule(np.zeros(0, np.intp), np.zeros(0, np.intp), [0])
    ends = _round_ends(battles.a, battles.b, order, battles.n_systems).ravel()
    row = np.arange(p, dtype=np.int64) * (t + 1)
    s = np.zeros(p, dtype=np.int64)
    starts = [s]
    while s.min() < t:  # one vector step per round, all orders together
        s = ends[row + s]
        starts.append(s)
    at = np.vstack(starts)  # rounds + 1 × orders: where each order's round r begins
    sizes = np.diff(at, axis=0).ravel()  # round-major, then order
    first = (at[:-1] + np.arange(p, dtype=np.int64) * t).ravel()  # flat q * T + start
    # the slots of one round of one order are consecutive positions of that order
    flat = np.repeat(first - (np.cumsum(sizes) - sizes), sizes) + np.arange(p * t)
    bounds = np.concatenate([[0], np.cumsum(np.diff(at, axis=0).sum(axis=1))]).tolist()
    return _Schedule(order.ravel()[flat].astype(np.intp), (flat // t).astype(np.intp), bounds)


def sequential_elo(
    battles: Battles,
    *,
    k: float = 4.0,
    initial: float = 1000.0,
    scale: float = 400.0,
    n_permutations: int = 100,
    rng: np.random.Generator | int | None = 0,
    orders: np.ndarray | None = None,
) -> SequentialRatings:
    """Online K-factor Elo, replayed in random battle orders and averaged.

    Parameters
    ----------
    battles : Battles
        From :func:`battles_from_scores`.
    k : float, keyword-only
        K-factor: the most points one battle can move a rating (arena uses 4).
    initial, scale : float, keyword-only
        Starting rating of every system; ``scale`` points of difference = 10:1 odds.
    n_permutations : int, keyword-only
        Random orders to replay (ignored when ``orders`` is given).
    rng : Generator or int, keyword-only
        Seed of the orders.
    orders : ndarray (P, T), optional
        Explicit battle orders (each row a permutation of the battle indices).

    Returns
    -------
    SequentialRatings
        ``rating`` = mean final rating over the orders.

    Notes
    -----
    For a battle of a against b with outcome s (1, 0.5, 0):
    E = 1 / (1 + 10^((R_b - R_a) / scale)), R_a ← R_a + K (s - E), R_b ← R_b - K (s - E).
    Points are conserved, so the mean rating stays ``initial``.

    References
    ----------
    Elo (1978), *The Rating of Chessplayers*; Chiang et al. (2024), Chatbot Arena
    (online Elo with K = 4 over shuffled battles); Peyrard, Zhao, Eger & West
    (2021), Better than Average: Paired Evaluation of NLP Systems, ACL-IJCNLP
    2021, appendix G.1.

    Examples
    --------
    >>> import numpy as np
    >>> b = battles_from_scores(np.array([[1.0], [0.0]]))
    >>> sequential_elo(b, k=32, orders=np.array([[0]])).rating.tolist()
    [1016.0, 984.0]
    """
    if not (np.isfinite(k) and k > 0):
        raise ValueError(f"k: must be a positive number; got {k}")
    if not (np.isfinite(scale) and scale > 0):
        raise ValueError(f"scale: must be a positive number; got {scale}")
    order = _orders(battles.n_battles, n_permutations, rng, orders)
    p = order.shape[0]
    c = float(np.log(10.0) / scale)
    # the loop over Python floats costs ~0.28 µs a battle: Numba is loaded past ~1M
    compiled = _jit.kernels_for(p * battles.n_battles * _PYTHON_BATTLE_S)
    if compiled is not None or p <= _PYTHON_ORDERS:
        by_perm = _elo_by_order(battles, order, float(k), float(initial), c, compiled)
    else:
        by_perm = _elo_vectorised(battles, order, k, initial, c)
    return SequentialRatings(by_perm.mean(axis=0), by_perm, None, "elo",
                             {"k": k, "initial": initial, "scale": scale},
                             battles.n_battles, p, _seed_of(rng) if orders is None else None)


def _elo_by_order(battles: Battles, order: np.ndarray, k: float, initial: float,
                  c: float, compiled: SimpleNamespace | None = None) -> np.ndarray:
    """Each order replayed on its own by the loop of :mod:`engine._jit` (compiled, or over
    plain Python floats): orders × systems."""
    out = np.full((len(order), battles.n_systems), initial)
    for q, perm in enumerate(order):
        # the battles laid out in this order, contiguous, as the loop reads them
        _jit.elo_replay(battles.a[perm], battles.b[perm], battles.score[perm], out[q], k, c,
                        compiled)
    return out


def _elo_vectorised(battles: Battles, order: np.ndarray, k: float, initial: float,
                    c: float) -> np.ndarray:
    """All orders replayed together, one vector step per battle position: orders × systems."""
    p = order.shape[0]
    # Flat state laid out systems × orders: system i of order q is i * P + q.
    state = np.full(battles.n_systems * p, float(initial))
    lane = np.arange(p)
    for start in range(0, battles.n_battles, _STEP_BLOCK):
        # steps × orders, C-ordered so that each step's gathers read contiguous memory
        block = np.ascontiguousarray(order[:, start:start + _STEP_BLOCK].T)
        ia, ib = battles.a[block] * p + lane, battles.b[block] * p + lane
        sc = battles.score[block]
        for t in range(len(block)):
            ra, rb = state[ia[t]], state[ib[t]]
            delta = k * (sc[t] - 1.0 / (1.0 + np.exp(c * (rb - ra))))
            state[ia[t]] = ra + delta
            state[ib[t]] = rb - delta
    return np.asarray(state.reshape(battles.n_systems, p).T)


def _pdf(x: np.ndarray) -> np.ndarray:
    return np.asarray(np.exp(-0.5 * x * x) / _SQRT_2PI)


def _v_w_win(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """TrueSkill's V and W for a win, at x = t - eps.

    Written with scipy.special ufuncs: scipy.stats' distribution methods cost
    ~30 µs of overhead per call, which times 10^5 battles is the whole budget.
    pdf/cdf in log space stays finite far in the tail (where trueskill returns -x).
    """
    v = np.exp(-0.5 * x * x - _LOG_SQRT_2PI - special.log_ndtr(x))
    return v, v * (v + x)


def _v_w(t: np.ndarray, eps: np.ndarray, drawn: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """TrueSkill's V and W functions for a win (t - eps) or a draw (|t| within eps)."""
    v_win, w_win = _v_w_win(t - eps)
    if not drawn.any():
        return v_win, w_win
    a, b = eps - np.abs(t), -eps - np.abs(t)
    with np.errstate(divide="ignore", invalid="ignore"):
        denom = special.ndtr(a) - special.ndtr(b)
        pa, pb = _pdf(a), _pdf(b)
        v_draw = np.where(denom > 0, (pb - pa) / denom, a)
        w_draw = v_draw**2 + (a * pa - b * pb) / denom
    v_draw = v_draw * np.where(t < 0, -1.0, 1.0)
    return np.where(drawn, v_draw, v_win), np.where(drawn, w_draw, w_win)


def sequential_trueskill(
    battles: Battles,
    *,
    n_permutations: int = 100,
    rng: np.random.Generator | int | None = 0,
    orders: np.ndarray | None = None,
    env: TrueSkillEnv | None = None,
) -> SequentialRatings:
    """TrueSkill 1-vs-1 updates replayed in random battle orders and averaged.

    Parameters
    ----------
    battles : Battles
        From :func:`battles_from_scores`; draws (score 0.5) are TrueSkill draws.
    n_permutations, rng, orders
        As in :func:`sequential_elo`.
    env : TrueSkillEnv, optional
        Constants (mu, sigma, beta, tau, draw_probability); default: Herbrich et al.'s
        (25, 25/3, 25/6, 25/300, 0.10), which are the ``trueskill`` package's defaults too
        (any object with these five attributes will do, e.g. a ``trueskill.TrueSkill``).

    Returns
    -------
    SequentialRatings
        ``rating`` = mean posterior mu over the orders, ``sigma`` = mean posterior SD.

    Notes
    -----
    The two-player factor graph has a closed form, applied to all orders at once:
    σ² ← σ² + τ²; c² = 2β² + σ_w² + σ_l²; t = (μ_w − μ_l)/c, ε = margin/c;
    μ_w ← μ_w + σ_w²/c · V(t, ε), μ_l ← μ_l − σ_l²/c · V(t, ε),
    σ² ← σ² (1 − σ²/c² · W(t, ε)), with the draw margin ε of :func:`draw_margin`. It
    agrees with the ``trueskill`` package's ``rate_1vs1`` (tested; a test dependency
    only), which costs ~0.3 ms per battle in pure Python.

    References
    ----------
    Herbrich, Minka & Graepel (2007), TrueSkill™: a Bayesian skill rating system,
    NIPS 19; Moser (2010), *Computing your skill*; Peyrard, Zhao, Eger & West
    (2021), Better than Average: Paired Evaluation of NLP Systems, ACL-IJCNLP
    2021, appendix G.2.

    Examples
    --------
    >>> import numpy as np
    >>> b = battles_from_scores(np.array([[1.0], [0.0]]))
    >>> r = sequential_trueskill(b, orders=np.array([[0]]))
    >>> np.round(r.rating, 3).tolist(), np.round(r.sigma, 3).tolist()
    ([29.396, 20.604], [7.171, 7.171])
    """
    env = env if env is not None else TrueSkillEnv()
    mu0, sigma0, beta, tau = float(env.mu), float(env.sigma), float(env.beta), float(env.tau)
    margin = draw_margin(float(env.draw_probability), beta)
    order = _orders(battles.n_battles, n_permutations, rng, orders)
    p = order.shape[0]
    # the compiled loop takes ~45 ns a battle and order: Numba is loaded past ~55,000 battles
    compiled = _jit.kernels_for(battles.n_battles * (_ROUND_STEP_S + p * _ROUNDS_BATTLE_S))
    params = (mu0, sigma0, beta, tau, margin)
    if compiled is not None:
        by_perm, var = _trueskill_by_order(battles, order, params, compiled)
    else:
        by_perm, var = _trueskill_in_rounds(battles, order, params)
    sd = np.sqrt(var).mean(axis=0)
    return SequentialRatings(by_perm.mean(axis=0), by_perm, sd, "trueskill",
                             {"mu": mu0, "sigma": sigma0, "beta": beta, "tau": tau,
                              "draw_probability": float(env.draw_probability)},
                             battles.n_battles, p, _seed_of(rng) if orders is None else None)


def _winner_first(battles: Battles) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Winner, loser and drawn of each battle: TrueSkill's update is written for w beats l
    (a draw keeps a first)."""
    won = battles.score >= 0.5
    return np.where(won, battles.a, battles.b), np.where(won, battles.b, battles.a), \
        battles.score == 0.5


def _trueskill_by_order(battles: Battles, order: np.ndarray,
                        env: tuple[float, float, float, float, float],
                        compiled: SimpleNamespace) -> tuple[np.ndarray, np.ndarray]:
    """Each order replayed on its own by the compiled loop of :mod:`engine._jit`:
    mu and var, orders × systems."""
    mu0, sigma0, beta, tau, margin = env
    win, lose, drawn = _winner_first(battles)
    win, lose = win.astype(np.int32), lose.astype(np.int32)  # half the bytes to gather
    mu = np.full((len(order), battles.n_systems), mu0)
    var = np.full((len(order), battles.n_systems), sigma0**2)
    for q, perm in enumerate(order):  # the battles laid out in this order, contiguous
        compiled.trueskill_replay(win[perm], lose[perm], drawn[perm], mu[q], var[q],
                                  beta, tau, margin)
    return mu, var


def _trueskill_in_rounds(battles: Battles, order: np.ndarray,
                         env: tuple[float, float, float, float, float]
                         ) -> tuple[np.ndarray, np.ndarray]:
    """All orders replayed together round by round (numpy, the reference; no Numba):
    mu and var, orders × systems."""
    mu0, sigma0, beta, tau, margin = env
    p = order.shape[0]
    plan = _schedule(battles, order)
    mu = np.full(battles.n_systems * p, mu0)
    var = np.full(battles.n_systems * p, sigma0**2)
    first, second, tie = _winner_first(battles)
    win = first[plan.battle] * p + plan.lane
    lose = second[plan.battle] * p + plan.lane
    drawn = tie[plan.battle]
    for start, stop in itertools.pairwise(plan.bounds):
        w, lo = win[start:stop], lose[start:stop]
        vw, vl = var[w] + tau**2, var[lo] + tau**2
        c = np.sqrt(2 * beta**2 + vw + vl)
        v, ww = _v_w((mu[w] - mu[lo]) / c, margin / c, drawn[start:stop])
        mu[w] += vw / c * v
        mu[lo] -= vl / c * v
        var[w] = vw * (1 - vw / c**2 * ww)
        var[lo] = vl * (1 - vl / c**2 * ww)
    return mu.reshape(battles.n_systems, p).T, var.reshape(battles.n_systems, p).T
