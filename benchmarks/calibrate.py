"""Calibration of the default analysis: false alarms with no true difference, and power.

For each scenario, 10 systems with no true difference are simulated ``--reps`` times
(default 500) and analysed exactly as the leaderboard does (all pairs, automatic test,
Holm–Šídák at alpha 0.05). The family-wise false-alarm rate — the share of runs in
which *any* pair is declared different — must stay at or below alpha within Monte
Carlo error (rate ± 1.96·√(rate(1−rate)/reps)). Then one system is made better and the
power is the share of its 9 pairs declared significant in the right direction.

Scenarios (issue #12, plus #16's seed sweeps):

* ``binary``: 164 examples of heterogeneous difficulty (logit difficulty ~ N(0, 1.5²)),
  0/1 scores → exact McNemar.
* ``heavy-tailed``: 500 examples, example effect + Student-t(3) noise → paired t.
* ``runs``: 3 independent runs per example (binary), kept as runs → the run-aware
  paired t (per-example means plus any run variance component).
* ``partial``: as ``binary`` but each system misses 15% of the examples at random →
  each pair paired on the examples it shares. Power is compared with the old rule
  (every pair paired on the examples *all* systems share).
* ``seed-sweep``: 3 runs per system where a run is a seed shifting the whole sweep
  (run effect ~ N(0, 0.3²) on a numeric score): the default analysis (run-aware,
  as the leaderboard runs it) against the plain paired t on per-example means.

Run: ``.venv/bin/python benchmarks/calibrate.py [--reps 500] [--only binary,partial]``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine import ScoreMatrix, build_matrix, pairwise_tests  # noqa: E402

SYSTEMS, ALPHA = 10, 0.05


def _binary(rng: np.random.Generator, n: int, shift: np.ndarray) -> np.ndarray:
    difficulty = rng.normal(0, 1.5, n)
    logits = 0.5 + shift[:, None] - difficulty[None, :]
    return (rng.random((len(shift), n)) < 1 / (1 + np.exp(-logits))).astype(float)


def _heavy(rng: np.random.Generator, n: int, shift: np.ndarray) -> np.ndarray:
    example = rng.normal(0, 1, n)
    return example[None, :] + shift[:, None] + rng.standard_t(3, (len(shift), n))


def _runs(rng: np.random.Generator, n: int, shift: np.ndarray) -> pd.DataFrame:
    """3 independent runs per example, kept as runs: the default analysis sees them."""
    frames = []
    for r in range(3):
        x = _binary_fixed(rng, n, shift)
        frames.append(pd.DataFrame({"benchmark": "b", "metric": "m", "run": r,
                                    "system": np.repeat([f"s{i}" for i in range(len(shift))], n),
                                    "example_id": np.tile([f"e{j:04d}" for j in range(n)],
                                                          len(shift)),
                                    "value": x.ravel()}))
    return pd.concat(frames, ignore_index=True)


_DIFFICULTY: dict[int, np.ndarray] = {}


def _binary_fixed(rng: np.random.Generator, n: int, shift: np.ndarray) -> np.ndarray:
    """Binary scores with the replication's difficulty shared by its runs."""
    difficulty = _DIFFICULTY[n]
    logits = 0.5 + shift[:, None] - difficulty[None, :]
    return (rng.random((len(shift), n)) < 1 / (1 + np.exp(-logits))).astype(float)


def _partial(rng: np.random.Generator, n: int, shift: np.ndarray) -> np.ndarray:
    x = _binary(rng, n, shift)
    x[rng.random(x.shape) < 0.15] = np.nan
    return x


def _flags(x: np.ndarray | pd.DataFrame, best: int | None, *,
           common_only: bool = False) -> tuple[bool, float]:
    """(any pair significant, share of the best system's pairs significant its way)."""
    if isinstance(x, pd.DataFrame):  # a long table with runs: the default analysis
        res = pairwise_tests(build_matrix(x))
    else:
        if common_only:  # the old rule: every pair on the examples all systems share
            x = x[:, ~np.isnan(x).any(axis=0)]
        res = pairwise_tests(ScoreMatrix.from_array(x))
    t = res.table
    any_sig = bool(t["significant"].any())
    if best is None:
        return any_sig, float("nan")
    name = f"s{best}"
    mine = t[(t["system_a"] == name) | (t["system_b"] == name)]
    right = np.where(mine["system_a"] == name, mine["a_better"], ~mine["a_better"])
    return any_sig, float((mine["significant"].to_numpy() & right).mean())


def _seed_sweep_frame(rng: np.random.Generator, n: int, shift: np.ndarray) -> pd.DataFrame:
    example = rng.normal(0, 1, n)
    rows = []
    for s, d in enumerate(shift):
        for r in range(3):
            seed_effect = rng.normal(0, 0.3)  # a seed shifts the whole sweep
            v = example + d + seed_effect + rng.normal(0, 0.5, n)
            rows.append(pd.DataFrame({"benchmark": "b", "system": f"s{s}", "metric": "m",
                                      "example_id": [f"e{j:04d}" for j in range(n)],
                                      "run": r, "value": v}))
    return pd.concat(rows, ignore_index=True)


def _report(name: str, flags: list[bool], powers: list[float], extra: str = "") -> None:
    reps = len(flags)
    rate = float(np.mean(flags))
    err = 1.96 * np.sqrt(max(rate * (1 - rate), 1e-12) / reps)
    ok = "ok" if rate - err <= ALPHA else "TOO HIGH"
    power = float(np.nanmean(powers)) if powers else float("nan")
    print(f"{name:<28} false alarms {rate:.3f} ± {err:.3f} ({ok})   power {power:.3f} {extra}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=500)
    parser.add_argument("--only", default="binary,heavy-tailed,runs,partial,seed-sweep")
    args = parser.parse_args()
    rng = np.random.default_rng(20261123)
    null = np.zeros(SYSTEMS)
    better = np.r_[np.zeros(SYSTEMS - 1), 1.0]  # s9 better by 1 logit (binary) or 1 unit
    wanted = set(args.only.split(","))
    start = time.perf_counter()
    print(f"{SYSTEMS} systems, alpha {ALPHA}, {args.reps} replications per scenario; "
          "power = share of the better system's 9 pairs found (right direction)")
    for name, make, n in (("binary", _binary, 164), ("heavy-tailed", _heavy, 500),
                          ("runs", _runs, 164), ("partial", _partial, 164)):
        if name not in wanted:
            continue
        flags, powers, old_powers = [], [], []
        for _ in range(args.reps):
            _DIFFICULTY[n] = rng.normal(0, 1.5, n)
            flags.append(_flags(make(rng, n, null), None)[0])
            _DIFFICULTY[n] = rng.normal(0, 1.5, n)
            x = make(rng, n, better)
            powers.append(_flags(x, SYSTEMS - 1)[1])
            if name == "partial":
                old_powers.append(_flags(x, SYSTEMS - 1, common_only=True)[1])
        extra = (f"(old rule, pairs on the examples all systems share: {np.mean(old_powers):.3f})"
                 if old_powers else "")
        _report(name, flags, powers, extra)
    if "seed-sweep" in wanted:
        aware, naive = [], []
        for _ in range(args.reps):
            df = _seed_sweep_frame(rng, 200, null)
            aware.append(bool(pairwise_tests(build_matrix(df)).table["significant"].any()))
            means = df.groupby(["system", "example_id"])["value"].mean().unstack()
            naive.append(_flags(means.to_numpy(), None)[0])
        _report("seed-sweep, default analysis", aware, [])
        _report("seed-sweep, per-example means", naive, [], "(runs ignored: the defect)")
    print(f"total {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
