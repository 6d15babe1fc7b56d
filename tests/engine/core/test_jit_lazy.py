"""Numba is loaded only for work worth its ~0.6 s first-use cost (issue #32, item 3)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from engine import _jit

_SMALL_WORK = """
import sys
import numpy as np
from engine import ScoreMatrix, leaderboard
from engine.ranking._sequential import Battles, sequential_elo

rng = np.random.default_rng(0)
leaderboard(ScoreMatrix.from_array(rng.random((20, 300))))  # numeric: win counts, sandwich
a = rng.integers(0, 10, 2_000)
sequential_elo(Battles(a, (a + 1) % 10, rng.integers(0, 2, 2_000).astype(float), 10, "draw"),
               orders=np.arange(2_000)[None])
print("numba" in sys.modules)
"""


@pytest.mark.slow
def test_a_small_leaderboard_and_elo_never_import_numba() -> None:
    """A 20 × 300 numeric leaderboard (win counts, sandwich intervals) and one Elo order of
    2,000 battles run their numpy / Python paths in a fresh process: Numba is never imported."""
    out = subprocess.run([sys.executable, "-c", _SMALL_WORK], capture_output=True, text=True,
                         check=True, timeout=120)
    assert out.stdout.strip() == "False", out.stderr


def test_kernels_are_loaded_for_large_work_then_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    """Below the threshold nothing is loaded; at it the kernels are; once loaded they serve
    small work too (the cost is paid)."""
    loaded: list[bool] = []

    def fake() -> object:
        loaded.append(True)
        return "kernels"

    fake_cached = _jit.cache(fake)  # type: ignore[attr-defined]
    monkeypatch.setattr(_jit, "kernels", fake_cached)
    monkeypatch.setattr(_jit, "_plain_work", [0.0])
    assert _jit.kernels_for(_jit._WORTH_LOADING_S / 10) is None
    assert not loaded
    assert _jit.kernels_for(_jit._WORTH_LOADING_S) == "kernels"
    assert _jit.kernels_for(0.0) == "kernels"
    assert loaded == [True]


def test_many_small_calls_add_up_to_loading(monkeypatch: pytest.MonkeyPatch) -> None:
    """Small calls run their plain paths until their work adds up to the threshold (a
    server or a benchmark repeating them), then the kernels serve them."""
    monkeypatch.setattr(_jit, "kernels", _jit.cache(lambda: "kernels"))  # type: ignore[attr-defined]
    monkeypatch.setattr(_jit, "_plain_work", [0.0])
    tenth = _jit._WORTH_LOADING_S / 10
    assert [_jit.kernels_for(tenth) for _ in range(9)] == [None] * 9
    assert _jit.kernels_for(tenth * 1.01) == "kernels"
