"""Calibration of the audit's split-half stability of #1 (engine.products._audit).

What the number should be, where it is known:

* ``exchangeable``: k systems with the same true pass rate on every item (each item's
  difficulty shared, 0/1 outcomes drawn independently per system). The two halves of a
  split hold disjoint, independent items and the systems are exchangeable, so the #1 of
  one half is the #1 of the other with probability Σᵢ P(i top)² = k · (1/k)² = 1/k
  exactly (ties broken at random). The mean of the estimates over ``--reps`` boards must
  be 1/k within Monte Carlo error (± 1.96 · SD / √reps).
* ``dominant``: one system 1.5 on the logit scale above k − 1 exchangeable others on 400
  items: the stability must be near 1; and 0.3 above (a lead the tests often cannot
  show): in between (reported, with the share of boards whose #1 is that system).
* ``separated-by-tests``: beside each, the share of boards whose leaderboard separates #1
  from every other system (tied_with_leader empty), to read the two numbers side by side.

Run: ``.venv/bin/python benchmarks/calibrate_audit.py [--reps 200] [--splits 200]``.
Prints one line per scenario; nothing is timed.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine import ScoreMatrix  # noqa: E402
from engine.products._audit import audit_board, split_half_stability  # noqa: E402


def _board(rng: np.random.Generator, k: int, n: int, lift: float) -> ScoreMatrix:
    difficulty = rng.normal(0.0, 1.5, size=n)
    logit = difficulty[None, :] + np.r_[lift, np.zeros(k - 1)][:, None]
    x = (rng.random((k, n)) < 1.0 / (1.0 + np.exp(-logit))).astype(float)
    return ScoreMatrix.from_array(x, systems=[f"s{i}" for i in range(k)])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=200)
    parser.add_argument("--splits", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    print(f"{args.reps} boards per scenario, {args.splits} random halves each")
    for k, n in ((2, 164), (5, 164), (10, 400)):
        shares = np.array([split_half_stability(_board(rng, k, n, 0.0), n_splits=args.splits,
                                                seed=int(rng.integers(2**31)))[0]
                           for _ in range(args.reps)])
        mean, half = shares.mean(), 1.96 * shares.std(ddof=1) / np.sqrt(args.reps)
        ok = abs(mean - 1 / k) <= half
        print(f"exchangeable k={k:>2} n={n}: mean stability {mean:.4f} ± {half:.4f} "
              f"(expected 1/k = {1 / k:.4f}) {'ok' if ok else 'OUTSIDE'}")
    for k, lift in ((5, 1.5), (10, 1.5), (5, 0.3)):
        top, alone, found = 0, 0, []
        for _ in range(args.reps // 4):
            a = audit_board(_board(rng, k, 400, lift), n_splits=args.splits,
                            seed=int(rng.integers(2**31)))
            found.append(a.top_split_half_stability)
            top += a.leader == "s0"
            alone += not a.tied_with_leader
        m = len(found)
        print(f"dominant k={k:>2} n=400 (+{lift} logit): mean stability {np.mean(found):.3f}; "
              f"#1 is the dominant system in {top}/{m}; separated from all in {alone}/{m}")


if __name__ == "__main__":
    main()
