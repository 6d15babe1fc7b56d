"""Every kernel compiled ahead of need (issue #27 item 3): after :func:`engine.warm_kernels`, the
engine's real computations compile nothing more, and ``sigboard warm`` says what it did."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from engine import ScoreMatrix, _jit, leaderboard
from engine.app_support import warm_kernels
from engine.io._limits import _COMPILED_FROM, nesting_depth
from engine.ranking._sequential import (
    Battles,
    battles_from_scores,
    sequential_elo,
    sequential_trueskill,
)
from engine.stats._confseq import betting_cs, start_sequence
from engine.stats._kernels import win_matrix

pytestmark = pytest.mark.skipif(_jit.kernels() is None, reason="Numba is not installed")


def _signatures() -> dict[str, int]:
    compiled = _jit.kernels()
    assert compiled is not None
    return {name: len(kernel.signatures) for name, kernel in vars(compiled).items()}


def test_real_work_compiles_nothing_after_warming() -> None:
    """Numeric win counts (≤ 256 and > 256 systems, ties and none), a numeric leaderboard
    (Bradley–Terry sandwich counts, rank sets), Elo and TrueSkill replays of battles from
    scores and of a stored battle list's arrays, a JSON nesting scan and two confidence
    sequences (betting, normal mixture): each kernel's signature set is the one
    :func:`warm_kernels` left."""
    warmed = warm_kernels()
    assert set(warmed.kernels) == set(_signatures())
    assert all(n >= 1 for n in warmed.kernels.values()), warmed.kernels
    before = _signatures()
    rng = np.random.default_rng(3)
    for systems in (30, 300):
        x = rng.integers(0, 5, size=(systems, 60)).astype(float)  # many ties
        win_matrix(x)
        win_matrix(rng.normal(size=(systems, 60)))
        win_matrix((rng.random((systems, 70)) < 0.5).astype(float), binary=True)  # popcounts
    leaderboard(ScoreMatrix.from_array(rng.normal(size=(12, 80))))
    scores = (rng.random((6, 40)) < 0.5).astype(float)
    for ties in ("ignore", "draw"):
        battles = battles_from_scores(scores, ties=ties)
        sequential_elo(battles, n_permutations=2, rng=rng)
        sequential_trueskill(battles, n_permutations=2, rng=rng)
    a = rng.integers(0, 10, 500)  # a battle list's system codes, as the store builds them
    listed = Battles(a, (a + 1) % 10, rng.integers(0, 3, 500) / 2.0, 10, "draw")
    sequential_elo(listed, n_permutations=2, rng=rng)
    sequential_trueskill(listed, n_permutations=2, rng=rng)
    assert nesting_depth(b"[" * 3 + b" " * _COMPILED_FROM + b"]" * 3) == 3
    betting_cs(rng.random(300), alpha=0.1)  # a confidence sequence's betting walk
    start_sequence(bounds=None, alpha=0.1).update(rng.normal(size=300))  # mixture roots
    assert _signatures() == before


@pytest.mark.slow
def test_warm_command_says_what_it_did() -> None:
    """``sigboard warm`` (``python -m engine warm``) exits 0 with one line naming the kernels."""
    out = subprocess.run([sys.executable, "-m", "engine", "warm"], capture_output=True,
                         text=True, timeout=300, check=False)
    assert out.returncode == 0, out.stderr
    assert "compiled kernels ready" in out.stdout, out.stdout
