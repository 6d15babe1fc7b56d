"""Coverage of the Overall score's interval when benchmarks differ in size.

Each replication: 6 systems with no true difference on two 0/1 benchmarks of the given
sizes (equal weights); each example's success probability uniform in [0.2, 0.8], shared by
the systems, so every system's true overall score is 50%. Counted: the share of systems
whose Overall interval holds 50 (target ≥ 0.93). A small benchmark then carries most of the
score's variance, so its few examples decide how normal the sum is.

Usage: ``.venv/bin/python benchmarks/calibrate_overall_sizes.py [--reps 400]``.
Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from engine import overall  # noqa: E402

SIZES = ((10, 200), (20, 400), (25, 25), (50, 500))


def coverage(reps: int, sizes: tuple[int, int], *, systems: int = 6, seed: int = 7
             ) -> tuple[float, float]:
    rng = np.random.default_rng(seed)
    hits: list[bool] = []
    for _ in range(reps):
        rows = []
        for b, n in enumerate(sizes):
            p = rng.uniform(0.2, 0.8, n)
            for s in range(systems):
                rows.append(pd.DataFrame({"benchmark": f"b{b}", "system": f"s{s}",
                                          "example_id": [f"e{i}" for i in range(n)],
                                          "metric": "pass1",
                                          "value": (rng.random(n) < p).astype(float)}))
        t = overall(pd.concat(rows, ignore_index=True)).table
        hits += list((t["ci_low"] <= 50) & (t["ci_high"] >= 50))
    rate = float(np.mean(hits))
    return rate, float(np.sqrt(rate * (1 - rate) / reps))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=400)
    args = ap.parse_args()
    start = time.perf_counter()
    for sizes in SIZES:
        rate, se = coverage(args.reps, sizes)
        print(f"benchmarks of {sizes[0]} and {sizes[1]} examples: coverage {rate:.3f} "
              f"(MC SE ≤ {se:.3f}, per replication; {args.reps} replications × 6 systems)")
    print(f"total {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
