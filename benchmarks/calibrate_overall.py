"""Calibration of the overall leaderboard, by simulation.

Data: ``--systems`` systems on two 0/1 benchmarks of ``--examples`` examples each. An
example's success probability p_e is drawn uniformly in [0.2, 0.8] per replication, and a
system's outcome is Bernoulli(p_e + δ_s), so a system's true score is 100·(0.5 + δ_s) on
each benchmark. Benchmarks either have their own examples (ρ = 0) or share example ids,
b2's outcome copying b1's with probability ρ (else drawn afresh) — HumanEval and
HumanEval+ are of this kind.

Scenarios and what is counted (each ``--reps`` replications, 95% Monte Carlo interval):

* ``null``: no system differs (δ = 0). Family-wise error: any pair "better overall".
  Coverage: share of systems whose score interval holds the true score, and of pairs
  whose difference interval holds 0.
* ``first``: ``compare="first"``, one-sided, in an order fixed before the data (s0 first,
  the stored champion); no difference, so any rejection is an error.
* ``reversal``: s0 better than s1 by ``--shift`` on b1 and worse by as much on b2, others
  equal: share of replications declaring s0/s1 "better overall" (an error: their overall
  difference is 0), and share calling them "differs by benchmark" (power of that verdict).

Run: ``.venv/bin/python benchmarks/calibrate_overall.py [--reps 300]``.

Figures of the last run (``--reps 400``, seed 2025; 95% Monte Carlo intervals):

=========================  ==========================  ==========================
scenario                   rho = 0                     rho = 0.8
=========================  ==========================  ==========================
null: FWER                 0.030 (0.013–0.047)         0.043 (0.023–0.062)
null: score coverage       0.940 (0.930–0.950)         0.940 (0.931–0.950)
null: difference coverage  0.970 (0.966–0.975)         0.965 (0.960–0.969)
first, order fixed: FWER   0.013 (0.002–0.023)         0.025 (0.010–0.040)
reversal: "better"         0.000                       0.000
reversal: "differs"        1.000                       1.000
=========================  ==========================  ==========================

Before the overall verdicts the reversal was "significant" (combined p 1.7e-18) with a direction taken
from name order, and ``first`` in the observed order had FWER 0.080 / 0.137.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine._options import TestOptions  # noqa: E402
from engine.products._overall import overall  # noqa: E402
from engine.products._overall_pairs import BETTER, MIXED  # noqa: E402


def simulate(rng: np.random.Generator, systems: int, n: int, rho: float,
             shift: np.ndarray) -> pd.DataFrame:
    """One long table; ``shift[s, b]``: system s's true shift on benchmark b."""
    p = rng.uniform(0.2, 0.8, size=(2, n))
    if rho > 0:
        p[1] = p[0]  # shared examples: the same item difficulty
    u1 = rng.random((systems, n))
    fresh = rng.random((systems, n))
    copy = rng.random((systems, n)) < rho
    frames = []
    for b in range(2):
        prob = np.clip(p[b][None, :] + shift[:, b][:, None], 0, 1)
        u = u1 if b == 0 else (np.where(copy, u1, fresh) if rho > 0 else fresh)
        values = (u < prob).astype(float)
        ids = [f"e{i}" for i in range(n)] if rho > 0 else [f"b{b}-e{i}" for i in range(n)]
        s, e = np.meshgrid(np.arange(systems), np.arange(n), indexing="ij")
        frames.append(pd.DataFrame({"benchmark": f"b{b}",
                                    "system": np.char.add("s", s.ravel().astype(str)),
                                    "example_id": np.asarray(ids)[e.ravel()], "metric": "pass1",
                                    "value": values.ravel()}))
    return pd.concat(frames, ignore_index=True)


def _rate(k: float, n: int) -> str:
    r = k / n
    half = 1.96 * np.sqrt(max(r * (1 - r), 1e-12) / n)
    return f"{r:.3f} ({max(r - half, 0):.3f}–{min(r + half, 1):.3f})"


def null(args: argparse.Namespace, rho: float, rng: np.random.Generator) -> None:
    any_sig, covered, total, pair_cov, pairs = 0, 0, 0, 0, 0
    start = time.perf_counter()
    for _ in range(args.reps):
        df = simulate(rng, args.systems, args.examples, rho, np.zeros((args.systems, 2)))
        res = overall(df)
        any_sig += bool(res.pairs["significant"].any())
        t = res.table
        covered += int(((t["ci_low"] <= 50) & (t["ci_high"] >= 50)).sum())
        total += len(t)
        p = res.pairs
        pair_cov += int(((p["ci_low"] <= 0) & (p["ci_high"] >= 0)).sum())
        pairs += len(p)
    print(f"null, rho={rho}: FWER {_rate(any_sig, args.reps)}; score coverage "
          f"{_rate(covered, total)}; difference coverage {_rate(pair_cov, pairs)} "
          f"({time.perf_counter() - start:.0f} s)", flush=True)


def first(args: argparse.Namespace, rho: float, rng: np.random.Generator) -> None:
    order = [f"s{i}" for i in range(args.systems)]
    wrong = 0
    for _ in range(args.reps):
        df = simulate(rng, args.systems, args.examples, rho, np.zeros((args.systems, 2)))
        res = overall(df, options=TestOptions(compare="first"), order=order)
        wrong += bool(res.pairs["significant"].any())
    print(f"first (order fixed in advance), rho={rho}: FWER {_rate(wrong, args.reps)}",
          flush=True)


def reversal(args: argparse.Namespace, rho: float, rng: np.random.Generator) -> None:
    shift = np.zeros((args.systems, 2))
    shift[0] = (args.shift, -args.shift)
    shift[1] = (-args.shift, args.shift)
    better, mixed = 0, 0
    for _ in range(args.reps):
        res = overall(simulate(rng, args.systems, args.examples, rho, shift))
        p = res.pairs
        row = p[p["system_a"].isin(["s0", "s1"]) & p["system_b"].isin(["s0", "s1"])].iloc[0]
        better += row["verdict"] == BETTER
        mixed += row["verdict"] == MIXED
    print(f"reversal ±{args.shift}, rho={rho}: 'better overall' {_rate(better, args.reps)}; "
          f"'differs by benchmark' {_rate(mixed, args.reps)}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--reps", type=int, default=300)
    parser.add_argument("--systems", type=int, default=6)
    parser.add_argument("--examples", type=int, default=150)
    parser.add_argument("--shift", type=float, default=0.15)
    parser.add_argument("--seed", type=int, default=2025)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    print(f"{args.systems} systems, 2 benchmarks × {args.examples} examples (0/1), "
          f"{args.reps} replications, alpha 0.05, Holm–Šídák")
    for rho in (0.0, 0.8):
        null(args, rho, rng)
        first(args, rho, rng)
        reversal(args, rho, rng)


if __name__ == "__main__":
    main()
