"""Compiling the Numba kernels of :mod:`engine._jit` ahead of need, once per installation.

A kernel compiles on its first call with new argument types (1-3 s of CPU each, 14-26 s for
all of them measured on a fresh clone) and is then cached on disk (``cache=True``: next to
``engine/_jit.py`` in ``__pycache__``, or under ``NUMBA_CACHE_DIR``); loading a cached one
costs ~5 ms after Numba's ~0.6 s start. :func:`warm_kernels` runs every kernel through the
engine's own call sites on tiny inputs, so each signature a real computation uses is
compiled (or, when cached, loaded) here rather than during someone's first page:
``sigboard warm`` after installing (``scripts/test.sh``, the Dockerfile) and the server
before it opens its port (``app/server.py``).

The inputs go through the same functions as the real work (not a list of signatures), so a
kernel whose argument types change still warms with its new types; ``tests/engine/
test_warm.py`` checks that real computations compile nothing more afterwards.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from . import _jit

__all__ = ["Warmed", "warm_kernels"]

#: More systems than uint8 ranks hold: the win counts then rank in int16 (a second signature).
_WIDE = 257


@dataclass(frozen=True)
class Warmed:
    """What :func:`warm_kernels` did: the signatures ready per kernel and the seconds taken
    (``kernels`` empty: Numba is not installed, the plain paths run)."""

    kernels: dict[str, int]
    seconds: float

    def sentence(self) -> str:
        """One line for a log or a terminal."""
        if not self.kernels:
            return "Numba is not installed: the engine runs its plain numpy paths (no kernels)"
        total = sum(self.kernels.values())
        return (f"{len(self.kernels)} compiled kernels ready ({total} signatures, compiled "
                f"or loaded from Numba's cache) in {self.seconds:.1f} s")


def warm_kernels() -> Warmed:
    """Compile (or load from the disk cache) every kernel for every argument type the engine
    calls it with: numeric win counts (uint8 and int16 ranks, tie-free and tied examples), 0/1
    win counts (bit-packed population counts), Bradley–Terry run counts, the rank sets' pair
    maximum, Elo and TrueSkill replays, the JSON nesting scan and the confidence sequences'
    betting walk and mixture roots. Idempotent; seconds when compiling, ~1 s when cached."""
    start = time.perf_counter()
    compiled = _jit.kernels()
    if compiled is None:
        return Warmed({}, time.perf_counter() - start)
    from .io._limits import _COMPILED_FROM, nesting_depth
    from .ranking._bt_sandwich import _block_counts
    from .ranking._max_t import _family_max
    from .ranking._sequential import battles_from_scores, sequential_elo, sequential_trueskill
    from .stats._confseq import MixtureState, _mixture_interval, start_sequence
    from .stats._kernels import _rank_comparisons, _two_level_popcounts

    rng = np.random.default_rng(0)
    for systems in (4, _WIDE):  # uint8 ranks, then int16
        scores = rng.normal(size=(systems, 12))
        scores[:2, :6] = 0.0  # tied examples (all pairs counted) beside tie-free ones
        _rank_comparisons(scores)
    _two_level_popcounts((rng.random((3, 70)) < 0.5).astype(float), 1.0, compiled)  # 0/1 wins
    _block_counts(np.ascontiguousarray(rng.normal(size=(6, 4))))
    z = rng.normal(size=(4, 8)).astype(np.float32)
    active = ~np.eye(4, dtype=bool)
    active[0, 1] = False  # pairs open one way and both ways
    _family_max(z, np.ones((4, 4), dtype=np.float32), active)
    battles = battles_from_scores(np.array([[1.0, 0.0, 0.5], [0.0, 1.0, 0.5]]), ties="draw")
    orders = np.arange(battles.n_battles)[None, :]
    sequential_elo(battles, orders=orders)
    sequential_trueskill(battles, orders=orders)
    nesting_depth(b"[" + b" " * _COMPILED_FROM + b"]")
    start_sequence(bounds=(0.0, 1.0), alpha=0.05, breaks=10).update(rng.uniform(-1, 1, 20))
    _mixture_interval(np.arange(1.0, 4.0), np.ones(3), np.full(3, 2.0),
                      MixtureState(alpha=0.05, rho=1.0), compiled)
    counts = {name: len(getattr(compiled, name).signatures) for name in vars(compiled)}
    return Warmed(counts, time.perf_counter() - start)
