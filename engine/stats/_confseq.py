"""Confidence sequences for a paired difference: intervals valid at every look.

A fixed-n interval covers the truth with probability 1 − alpha *at the one sample
size fixed in advance*; looked at after every upload, it excludes the truth far more
often. A confidence sequence (CS) covers it at every sample size at once, so it can
be watched and stopped at any time. Two constructions:

* **Betting** (Waudby-Smith & Ramdas 2024, "Estimating means of bounded random
  variables by betting", JRSS-B 86(1)) for scores in known bounds ``[lo, hi]``: a
  paired difference ``d ∈ [−R, R]`` (R = hi − lo) is mapped to ``x = (d/R + 1)/2 ∈
  [0, 1]``; for each candidate mean ``m`` on a grid the hedged capital process
  ``K_t(m) = max(θ K⁺_t(m), (1 − θ) K⁻_t(m))``, ``K^±_t = Π (1 ± λ^±_i (x_i − m))``,
  with the predictable plug-in bets ``λ_t = sqrt(2 log(2/α) / (σ̂²_{t−1} t log(1+t)))``
  truncated at ``c/m`` and ``c/(1 − m)`` (c = 1/2, θ = 1/2). The CS is the set of grid
  means with ``K_t(m) < 1/α``, widened by one grid step (as the authors' ``confseq``
  package does). Its state is the wealth on the grid plus two sums.
* **Normal mixture** (Howard, Ramdas, McAuliffe & Sekhon 2021, "Time-uniform,
  nonparametric, nonasymptotic confidence sequences", Annals of Statistics 49(2)) for
  unbounded scores: ``|S_t − tμ| ≤ sqrt((V + ρ) log((V + ρ)/(ρ α²)))``. With a known
  sub-Gaussian scale σ, V = σ² t (closed form); without one, the self-normalised
  V_t(μ) = Σ (d_i − μ)², valid when the differences are symmetric about their mean
  (Howard et al. 2020, Fact 1 — under the null of two exchangeable systems the
  differences are symmetric about 0, so the test of "no difference" is exact). ρ is
  set from the mean square of a burn-in of the first observations (not tested).

Every CS is reported as its running intersection (intervals only shrink), and the
always-valid p-value of "no difference" is ``min(1, 1 / max_{s ≤ t} K_s(0))``; the
current ``K_t(0)`` is an e-value (for e-BH across challengers).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
from scipy import optimize

from .._jit import kernels_for

__all__ = ["BettingState", "MixtureState", "SequenceStep", "betting_cs", "betting_martingale",
           "logical_cs", "normal_mixture_halfwidth", "normal_mixture_radius", "null_log_wealth",
           "plugin_bets", "start_sequence", "state_from_json"]

THETA = 0.5  # weight of the upward capital process (two-sided: 1/2)
TRUNCATION = 0.5  # c of the bets' truncation c/m, c/(1 − m) (the confseq default)
_BLOCK = 2048  # observations per block of grid arithmetic (bounds memory to block × grid)
#: Plain numpy's seconds per observation × grid mean (the compiled walk is worth loading
#: Numba for past ~0.25 s of them, :func:`engine._jit.kernels_for`): measured ~20 ns.
_PLAIN_S_PER_CELL = 2e-8
#: Plain numpy's seconds per observation of the self-normalised mixture's two root searches
#: (~560 array passes of ~15 µs each plus ~20 ns an element: ~3e-5 at 800 observations).
_PLAIN_S_PER_ROOT_STEP = 3e-5


def _check_alpha(alpha: float) -> float:
    if not (isinstance(alpha, int | float) and 0 < alpha < 1):
        raise ValueError(f"alpha: must be a number in (0, 1); got {alpha!r}")
    return float(alpha)


# ------------------------------------------------------------------ normal mixture


def normal_mixture_radius(v: Any, *, rho: float, alpha: float) -> np.ndarray:
    """Two-sided normal-mixture boundary on the sum scale: ``sqrt((v+ρ) log((v+ρ)/(ρα²)))``.

    Howard et al. (2021), eq. (14): ``|S_t| ≥`` this for some t has probability ≤ α
    for a sub-Gaussian process with variance process ``v``.
    """
    alpha = _check_alpha(alpha)
    if not rho > 0:
        raise ValueError(f"rho: must be > 0; got {rho!r}")
    vr = np.asarray(v, dtype=np.float64) + rho
    return np.asarray(np.sqrt(vr * np.log(vr / (rho * alpha**2))))


def normal_mixture_halfwidth(t: Any, *, sigma: float = 1.0, rho: float = 1.0,
                             alpha: float = 0.05) -> np.ndarray:
    """Half-width of the normal-mixture CS for a mean at sample size t (V = σ² t).

    >>> [round(float(w), 4) for w in normal_mixture_halfwidth([10, 100, 1000])]
    [0.9606, 0.3273, 0.1136]
    """
    t = np.asarray(t, dtype=np.float64)
    return np.asarray(normal_mixture_radius(sigma**2 * t, rho=rho, alpha=alpha) / t)


def _best_rho(v_opt: float, alpha: float) -> float:
    """The ρ that makes the boundary narrowest at intrinsic time ``v_opt``."""
    res = optimize.minimize_scalar(
        lambda lr: float(normal_mixture_radius(v_opt, rho=math.exp(lr), alpha=alpha)),
        bounds=(math.log(v_opt) - 12, math.log(v_opt) + 12), method="bounded")
    return float(math.exp(res.x))


# ------------------------------------------------------------------ betting


def plugin_bets(x: np.ndarray, *, alpha: float, n0: int = 0, total0: float = 0.0,
                sq0: float = 0.0) -> tuple[np.ndarray, float, float]:
    """Predictable plug-in bets for ``x`` (last axis = time), continuing after ``n0``
    observations with sum ``total0`` and ``sq0 = Σ (x_i − μ̂_i)²``.

    μ̂_t = (1/2 + Σ_{i≤t} x_i)/(t+1), σ̂²_t = (1/4 + Σ_{i≤t} (x_i − μ̂_i)²)/(t+1)
    (Waudby-Smith & Ramdas 2024, eq. (25)–(26)); returns the untruncated bets and the
    sums after the last observation (for a 2-d ``x``, of its last row).
    """
    t = n0 + np.arange(1, x.shape[-1] + 1, dtype=np.float64)
    csum = total0 + np.cumsum(x, axis=-1)
    sq = sq0 + np.cumsum((x - (0.5 + csum) / (t + 1)) ** 2, axis=-1)
    before = np.concatenate([np.full(x.shape[:-1] + (1,), sq0), sq[..., :-1]], axis=-1)
    var_prev = (0.25 + before) / t
    lam = np.sqrt(2 * math.log(2 / alpha) / (var_prev * t * np.log1p(t)))
    return lam, float(csum.reshape(-1, x.shape[-1])[-1, -1]), \
        float(sq.reshape(-1, x.shape[-1])[-1, -1])


def _log_growth(x: np.ndarray, lam: np.ndarray, m: np.ndarray,
                trunc: float = TRUNCATION) -> tuple[np.ndarray, np.ndarray]:
    """log(1 ± λ^±(x − m)) per observation (rows) and grid mean (columns)."""
    with np.errstate(divide="ignore"):
        cap_up, cap_down = trunc / m, trunc / (1 - m)
    dev = x[:, None] - m[None, :]
    up = np.log1p(np.minimum(lam[:, None], cap_up[None, :]) * dev)
    down = np.log1p(-np.minimum(lam[:, None], cap_down[None, :]) * dev)
    return up, down


def _hedge(up: np.ndarray, down: np.ndarray, theta: float = THETA,
           convex: bool = False) -> np.ndarray:
    """log of max(θK⁺, (1−θ)K⁻) (``convex``: θK⁺ + (1−θ)K⁻) from the two log wealths."""
    a = np.log(theta) + up if theta > 0 else np.full_like(up, -np.inf)
    b = np.log1p(-theta) + down if theta < 1 else np.full_like(down, -np.inf)
    return np.asarray(np.logaddexp(a, b) if convex else np.maximum(a, b))


def betting_martingale(x: Any, m: float, *, alpha: float = 0.05, theta: float = THETA,
                       convex: bool = False) -> np.ndarray:
    """The hedged capital process ``K_t(m)`` over time for ``x`` in [0, 1]."""
    xs = np.asarray(x, dtype=np.float64)
    lam, _, _ = plugin_bets(xs, alpha=_check_alpha(alpha))
    up, down = _log_growth(xs, lam, np.array([float(m)]))
    return np.asarray(np.exp(_hedge(np.cumsum(up, 0), np.cumsum(down, 0), theta, convex)[:, 0]))


def null_log_wealth(x: np.ndarray, m: float, *, alpha: float = 0.05) -> np.ndarray:
    """log K_t(m) of the hedged capital process for many sequences at once (rows of
    ``x``, time along the last axis): simulations of the always-valid test of one mean."""
    lam, _, _ = plugin_bets(x, alpha=_check_alpha(alpha))
    dev = x - m
    with np.errstate(divide="ignore"):
        cap_up, cap_down = (TRUNCATION / m if m > 0 else np.inf,
                            TRUNCATION / (1 - m) if m < 1 else np.inf)
    up = np.cumsum(np.log1p(np.minimum(lam, cap_up) * dev), axis=-1)
    down = np.cumsum(np.log1p(-np.minimum(lam, cap_down) * dev), axis=-1)
    return _hedge(up, down)


def logical_cs(x: Any, population: int) -> tuple[np.ndarray, np.ndarray]:
    """The bounds known without any martingale when sampling ``population`` values in
    [0, 1] without replacement: after t draws, ``[S_t/N, 1 − (t − S_t)/N]``."""
    xs = np.asarray(x, dtype=np.float64)
    s = np.cumsum(xs)
    return s / population, 1 - (np.arange(1, len(xs) + 1) - s) / population


def _grid_interval(log_k: np.ndarray, grid: np.ndarray, alpha: float,
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per row: the grid means not rejected, as [first − step, last + step] in [0, 1]."""
    inside = log_k < math.log(1 / alpha)
    some = inside.any(axis=1)
    first = np.argmax(inside, axis=1)
    last = len(grid) - 1 - np.argmax(inside[:, ::-1], axis=1)
    return (*_grid_ends(grid, first, last), np.asarray(some))


def _grid_ends(grid: np.ndarray, first: np.ndarray, last: np.ndarray,
               ) -> tuple[np.ndarray, np.ndarray]:
    """The interval [grid[first] − step, grid[last] + step] kept in [0, 1] (one grid step
    wider each way, as the authors' ``confseq`` package does)."""
    step = grid[1] - grid[0]
    return np.maximum(grid[first] - step, 0.0), np.minimum(grid[last] + step, 1.0)


def betting_cs(x: Any, *, alpha: float = 0.05, breaks: int = 1000,
               running_intersection: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """The betting CS for the mean of ``x`` in [0, 1]: lower and upper bound per time."""
    state = start_sequence(bounds=(0.0, 1.0), alpha=alpha, breaks=breaks)
    xs = np.asarray(x, dtype=np.float64)
    _, steps = state.update(2 * xs - 1, running_intersection=running_intersection)
    return (steps.cs_low + 1) / 2, (steps.cs_high + 1) / 2


def _numpy_walk(x: np.ndarray, lam: np.ndarray, grid: np.ndarray, up0: np.ndarray,
                down0: np.ndarray, alpha: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The grid interval's ends and log K_t at the middle mean after each observation, in
    blocks of log growth; ``up0``/``down0`` (the log wealth before) are advanced in place."""
    lows, highs, logs = [], [], []
    for i in range(0, len(x), _BLOCK):
        g_up, g_down = _log_growth(x[i:i + _BLOCK], lam[i:i + _BLOCK], grid)
        up = up0 + np.cumsum(g_up, axis=0)
        down = down0 + np.cumsum(g_down, axis=0)
        up0[:], down0[:] = up[-1], down[-1]
        log_k = _hedge(up, down)
        lo, hi, some = _grid_interval(log_k, grid, alpha)
        lows.append(np.where(some, lo, 0.0))
        highs.append(np.where(some, hi, 1.0))
        logs.append(log_k[:, (len(grid) - 1) // 2])
    lo_m, hi_m, log_e = (np.concatenate(a) if a else np.empty(0) for a in (lows, highs, logs))
    return lo_m, hi_m, log_e


def _compiled_walk(x: np.ndarray, lam: np.ndarray, grid: np.ndarray, up0: np.ndarray,
                   down0: np.ndarray, alpha: float, compiled: Any,
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`_numpy_walk` by the compiled kernel (:func:`engine._jit._betting_walk`): the
    same ends and values, the wealth multiplied in linear space (~35× less CPU)."""
    with np.errstate(divide="ignore"):
        cap_up, cap_down = TRUNCATION / grid, TRUNCATION / (1 - grid)
    limit = math.log(1 / alpha)
    first = np.empty(len(x), dtype=np.int64)
    last = np.empty(len(x), dtype=np.int64)
    log_mid = np.empty(len(x))
    compiled.betting_walk(np.ascontiguousarray(x), np.ascontiguousarray(lam), grid, cap_up,
                          cap_down, up0, down0, limit - math.log(THETA),
                          limit - math.log1p(-THETA), math.log(THETA), math.log1p(-THETA),
                          (len(grid) - 1) // 2, first, last, log_mid)
    some = first >= 0  # −1: no grid mean inside, the whole range [0, 1]
    lo, hi = _grid_ends(grid, np.maximum(first, 0), np.maximum(last, 0))
    return np.where(some, lo, 0.0), np.where(some, hi, 1.0), log_mid


# ------------------------------------------------------------------ streaming


@dataclass(frozen=True)
class SequenceStep:
    """The sequence after each observation of one update (difference scale)."""

    n: np.ndarray
    cs_low: np.ndarray
    cs_high: np.ndarray
    p_always_valid: np.ndarray
    log_e: np.ndarray  # log of the current e-value of "no difference"


@dataclass(frozen=True)
class BettingState:
    """Betting CS state after ``n`` observations: the log wealth on the grid and two sums.

    ``bounds`` are the score bounds; a difference d is bet on as (d/R + 1)/2, R = hi − lo.
    ``cs_low``/``cs_high`` are the running intersection on the difference scale.
    """

    bounds: tuple[float, float]
    alpha: float
    breaks: int
    n: int = 0
    total: float = 0.0
    sq: float = 0.0
    log_up: np.ndarray = field(default_factory=lambda: np.empty(0))
    log_down: np.ndarray = field(default_factory=lambda: np.empty(0))
    cs_low: float = -math.inf
    cs_high: float = math.inf
    max_log_e: float = 0.0
    log_e: float = 0.0
    method: str = "betting"

    @property
    def grid(self) -> np.ndarray:
        return np.linspace(0.0, 1.0, self.breaks + 1)

    @property
    def span(self) -> float:
        return self.bounds[1] - self.bounds[0]

    def update(self, d: Any, *, running_intersection: bool = True,
               ) -> tuple[BettingState, SequenceStep]:
        """Bet on the differences ``d`` in arrival order; returns the new state and the
        sequence after each of them. The same as one update with all data so far."""
        d = np.asarray(d, dtype=np.float64)
        if d.size and np.nanmax(np.abs(d)) > self.span * (1 + 1e-12):
            bad = float(d[np.argmax(np.abs(d))])
            raise ValueError(f"differences: {bad!r} is outside ±{self.span:g}, the range "
                             f"of scores bounded by {self.bounds}; declare wider bounds")
        x = np.clip((d / self.span + 1) / 2, 0.0, 1.0)
        grid = self.grid
        lam, total, sq = plugin_bets(x, alpha=self.alpha, n0=self.n, total0=self.total,
                                     sq0=self.sq) if x.size else (x, self.total, self.sq)
        up0 = self.log_up.copy() if self.log_up.size else np.zeros(len(grid))
        down0 = self.log_down.copy() if self.log_down.size else np.zeros(len(grid))
        compiled = kernels_for(len(x) * len(grid) * _PLAIN_S_PER_CELL) if len(x) else None
        lo_m, hi_m, log_e = (
            _compiled_walk(x, lam, grid, up0, down0, self.alpha, compiled)
            if compiled is not None
            else _numpy_walk(x, lam, grid, up0, down0, self.alpha))
        low = self.span * (2 * lo_m - 1)
        high = self.span * (2 * hi_m - 1)
        new = replace(self, n=self.n + len(x), total=total, sq=sq, log_up=up0,
                      log_down=down0)
        return _finish(new, low, high, log_e, running_intersection)

    def to_json(self) -> dict[str, Any]:
        out = _common_json(self)
        out.update(bounds=list(self.bounds), breaks=self.breaks, total=self.total,
                   sq=self.sq, log_up=self.log_up.tolist(), log_down=self.log_down.tolist())
        return out


@dataclass(frozen=True)
class MixtureState:
    """Normal-mixture CS state: sums of d and d² after a burn-in that fixed ρ.

    ``sigma`` given: sub-Gaussian with V = σ² t. Otherwise self-normalised (symmetric
    differences); ρ = the ρ narrowest at ``target_n`` observations of the burn-in's
    mean square (the burn-in observations are not tested).
    """

    alpha: float
    sigma: float | None = None
    burn_in: int = 10
    target_n: int = 100
    n: int = 0
    burn: tuple[float, ...] = ()
    rho: float = 0.0
    total: float = 0.0
    sq: float = 0.0
    cs_low: float = -math.inf
    cs_high: float = math.inf
    max_log_e: float = 0.0
    log_e: float = 0.0
    method: str = "normal-mixture"

    def update(self, d: Any, *, running_intersection: bool = True,
               ) -> tuple[MixtureState, SequenceStep]:
        d = np.asarray(d, dtype=np.float64)
        state, k = self, 0
        if self.sigma is not None and self.rho == 0.0:
            state = replace(state, rho=_best_rho(self.sigma**2 * self.target_n, self.alpha))
        while state.rho == 0.0 and k < len(d):  # burn-in: a scale for ρ, nothing tested
            burn = (*state.burn, float(d[k]))
            k += 1
            mean_sq = float(np.mean(np.square(burn)))
            rho = _best_rho(mean_sq * self.target_n, self.alpha) \
                if len(burn) >= self.burn_in and mean_sq > 0 else 0.0
            state = replace(state, burn=burn, rho=rho)
        rest = d[k:]
        n_tested = self.n + k - len(state.burn) + np.arange(1, len(rest) + 1)
        s = state.total + np.cumsum(rest)
        q = state.sq + np.cumsum(rest**2)
        low, high, log_e = _mixture_interval(n_tested, s, q, state) if len(rest) else (
            np.empty(0), np.empty(0), np.empty(0))
        low = np.concatenate([np.full(k, -np.inf), low])
        high = np.concatenate([np.full(k, np.inf), high])
        log_e = np.concatenate([np.zeros(k), log_e])
        new = replace(state, n=self.n + len(d), total=float(s[-1]) if len(s) else state.total,
                      sq=float(q[-1]) if len(q) else state.sq)
        return _finish(new, low, high, log_e, running_intersection)

    def to_json(self) -> dict[str, Any]:
        out = _common_json(self)
        out.update(sigma=self.sigma, burn_in=self.burn_in, target_n=self.target_n,
                   burn=list(self.burn), rho=self.rho, total=self.total, sq=self.sq)
        return out


def _mixture_interval(n: np.ndarray, s: np.ndarray, q: np.ndarray, state: MixtureState,
                      compiled: Any = "auto") -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per time: the CS {μ : |S − nμ| ≤ radius(V(μ))} around the mean, and log E(0).

    ``compiled``: the kernels (:func:`engine._jit.kernels`) or None for the numpy path;
    "auto": :func:`engine._jit.kernels_for` decides (the two agree to the last places)."""
    rho, alpha = state.rho, state.alpha
    if state.sigma is not None:
        v0 = state.sigma**2 * n
        half = normal_mixture_radius(v0, rho=rho, alpha=alpha) / n
        log_e = 0.5 * np.log(rho / (v0 + rho)) + s**2 / (2 * (v0 + rho))
        return s / n - half, s / n + half, log_e
    v0 = q
    log_e = 0.5 * np.log(rho / (v0 + rho)) + s**2 / (2 * (v0 + rho))
    if isinstance(compiled, str):
        compiled = kernels_for(len(n) * _PLAIN_S_PER_ROOT_STEP)
    if compiled is not None:
        low, high = (_compiled_root(n, s, q, rho, alpha, sign, compiled) for sign in (-1.0, 1.0))
        return low, high, log_e
    mean = s / n

    def excess(mu: np.ndarray) -> np.ndarray:  # > 0: μ rejected
        v = np.maximum(q - 2 * mu * s + n * mu**2, 0.0)
        return np.asarray((s - n * mu) ** 2 - normal_mixture_radius(v, rho=rho, alpha=alpha) ** 2)

    def root(sign: float) -> np.ndarray:
        near = np.zeros_like(mean)
        far = np.sqrt((np.maximum(q - s * mean, 0.0) + rho) / n)
        for _ in range(200):  # widen until rejected (never for a few absurd small-n cases)
            open_ = excess(mean + sign * far) <= 0
            if not open_.any():
                break
            far = np.where(open_, far * 2, far)
        far = np.where(excess(mean + sign * far) <= 0, np.inf, far)
        finite = np.isfinite(far)
        top = np.where(finite, far, 1.0)
        for _ in range(80):
            mid = (near + top) / 2
            rejected = excess(mean + sign * mid) > 0
            top = np.where(rejected, mid, top)
            near = np.where(rejected, near, mid)
        return np.asarray(np.where(finite, mean + sign * top, sign * np.inf))

    return root(-1.0), root(1.0), log_e


def _compiled_root(n: np.ndarray, s: np.ndarray, q: np.ndarray, rho: float, alpha: float,
                   sign: float, compiled: Any) -> np.ndarray:
    """One end of the self-normalised mixture CS per time by the compiled root search
    (:func:`engine._jit._mixture_roots`)."""
    out = np.empty(len(n))
    compiled.mixture_roots(*(np.ascontiguousarray(a, dtype=np.float64) for a in (n, s, q)),
                           rho, rho * alpha**2, sign, out)
    return out


def _finish(state: Any, low: np.ndarray, high: np.ndarray, log_e: np.ndarray,
            running_intersection: bool) -> tuple[Any, SequenceStep]:
    """Running intersection (never empty: an empty one keeps the last interval), p-values."""
    if running_intersection and len(low):
        low = np.maximum.accumulate(np.concatenate([[state.cs_low], low]))[1:]
        high = np.minimum.accumulate(np.concatenate([[state.cs_high], high]))[1:]
        crossed = low > high
        if crossed.any():
            keep_low, keep_high = low.copy(), high.copy()
            for i in np.flatnonzero(crossed):
                keep_low[i] = keep_low[i - 1] if i else state.cs_low
                keep_high[i] = keep_high[i - 1] if i else state.cs_high
            low, high = keep_low, keep_high
    max_log = np.maximum.accumulate(np.concatenate([[state.max_log_e], log_e]))[1:]
    p = np.minimum(1.0, np.exp(-max_log))
    n = state.n - len(low) + np.arange(1, len(low) + 1)
    new = state if not len(low) else replace(
        state, cs_low=float(low[-1]) if running_intersection else state.cs_low,
        cs_high=float(high[-1]) if running_intersection else state.cs_high,
        max_log_e=float(max_log[-1]), log_e=float(log_e[-1]))
    return new, SequenceStep(n, low, high, p, log_e)


def _common_json(state: Any) -> dict[str, Any]:
    return {"method": state.method, "alpha": state.alpha, "n": state.n,
            "cs_low": state.cs_low, "cs_high": state.cs_high, "max_log_e": state.max_log_e,
            "log_e": state.log_e}


def state_from_json(data: dict[str, Any]) -> BettingState | MixtureState:
    """The state :meth:`BettingState.to_json` / :meth:`MixtureState.to_json` wrote."""
    common: dict[str, Any] = {"alpha": float(data["alpha"]), "n": int(data["n"]),
              "cs_low": float(data["cs_low"]), "cs_high": float(data["cs_high"]),
              "max_log_e": float(data["max_log_e"]), "log_e": float(data["log_e"])}
    if data["method"] == "betting":
        return BettingState(bounds=(float(data["bounds"][0]), float(data["bounds"][1])),
                            breaks=int(data["breaks"]), total=float(data["total"]),
                            sq=float(data["sq"]), log_up=np.asarray(data["log_up"], float),
                            log_down=np.asarray(data["log_down"], float), **common)
    return MixtureState(sigma=data["sigma"], burn_in=int(data["burn_in"]),
                        target_n=int(data["target_n"]), burn=tuple(data["burn"]),
                        rho=float(data["rho"]), total=float(data["total"]),
                        sq=float(data["sq"]), **common)


def start_sequence(*, bounds: tuple[float, float] | None, alpha: float = 0.05,
                   breaks: int = 1000, sigma: float | None = None,
                   burn_in: int = 10) -> BettingState | MixtureState:
    """An empty sequence: betting when the scores have known ``bounds``, else the normal
    mixture (with the sub-Gaussian scale ``sigma`` when known)."""
    alpha = _check_alpha(alpha)
    if bounds is None:
        if sigma is not None and not sigma > 0:
            raise ValueError(f"sigma: must be > 0; got {sigma!r}")
        if burn_in < 1:
            raise ValueError(f"burn_in: must be ≥ 1; got {burn_in!r}")
        return MixtureState(alpha=alpha, sigma=sigma, burn_in=burn_in)
    lo, hi = (float(b) for b in bounds)
    if not (math.isfinite(lo) and math.isfinite(hi) and hi > lo):
        raise ValueError(f"bounds: must be two finite numbers lo < hi; got {bounds!r}")
    if breaks < 2 or breaks % 2:
        raise ValueError(f"breaks: must be an even number ≥ 2 (0 is a grid point); got {breaks!r}")
    return BettingState(bounds=(lo, hi), alpha=alpha, breaks=int(breaks))
