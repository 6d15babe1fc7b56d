"""Calibration by simulation of the missing-examples bound of the A/B gate.

``engine.stats._missing_bounds``: when one side of ``sigboard compare`` lacks examples the
other has, the verdict must survive the worst / best case for the missing scores. Two
systems, 300 examples, 0/1 scores; each example's difficulty p_i ~ Beta(2, 2) (a
correlated pair: both systems find the same examples hard), each system succeeding with
probability p_i (+ the candidate's effect, clipped to [0, 1]).

(a) no true difference; the candidate's failures dropped with probability 0.5 (its
    successes all kept): the gate must not say "better" (target ≥ 95% of replications);
    again with the failures dropped at 0.2 (about 10% of the examples missing).
(c) the candidate truly 8 points worse, its failures dropped at 0.5: how often the gate
    does not pass it.
(b) every score missing completely at random with probability 0.05 on each side: the gate
    must decide as on the complete data — same verdict and not "cannot decide" (target ≥
    90%), with no true difference and with the candidate 12 points better.

Each under two rules — "claims" (only better / worse must survive the bound against them)
and "passes too" (no significant difference must not turn worse either; the module's
rule, checked against ``MissingBounds.survives`` on every replication) — and three
tolerances (share per side under which the bounds are not enforced; the module's: 10%).

Run: ``.venv/bin/python benchmarks/bench_missing_gate.py [--reps 300] [--seed 0]``.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.stats._ab import compare_ab  # noqa: E402
from engine.stats._missing_bounds import TOLERANCE, missing_bounds  # noqa: E402

N = 300
NSD = "no significant difference"
BETTER = "candidate is significantly better"


def _frame(base: np.ndarray, cand: np.ndarray, keep_b: np.ndarray,
           keep_c: np.ndarray) -> pd.DataFrame:
    ids = np.array([f"e{i:03d}" for i in range(len(base))])
    return pd.DataFrame({"benchmark": "b", "metric": "acc",
                         "system": ["base"] * int(keep_b.sum()) + ["cand"] * int(keep_c.sum()),
                         "example_id": np.r_[ids[keep_b], ids[keep_c]],
                         "value": np.r_[base[keep_b], cand[keep_c]]})


def _scores(rng: np.random.Generator, effect: float) -> tuple[np.ndarray, np.ndarray]:
    p = rng.beta(2.0, 2.0, N)
    base = (rng.random(N) < p).astype(float)
    cand = (rng.random(N) < np.clip(p + effect, 0.0, 1.0)).astype(float)
    return base, cand


TOLERANCES = (0.0, 0.05, 0.10)
RULES = ("claims", "passes too")
WORSE = "candidate is significantly worse"


def _gate(df: pd.DataFrame) -> tuple[str, dict[tuple[str, float], bool]]:
    """The observed verdict, and whether the gate decides under each rule and tolerance:
    "claims" (better must stay better under the bound against the candidate, worse stay
    worse under the one for it) or "passes too" (also: no significant difference must not
    turn worse under the bound against the candidate)."""
    obs = compare_ab(df, baseline="base", candidate="cand")
    b = missing_bounds(df, obs, tolerance=0.0)
    if b is None:
        return obs.verdict, {(r, t): True for r in RULES for t in TOLERANCES}
    claims = {BETTER: b.low_verdict == BETTER, WORSE: b.high_verdict == WORSE}.get(
        obs.verdict, True)
    passes = claims and not (obs.verdict == NSD and b.low_verdict == WORSE)
    if passes != b.survives:
        raise AssertionError("the module's rule is not the benchmark's 'passes too'")
    return obs.verdict, {(r, t): (claims if r == "claims" else passes)
                         or replace(b, tolerance=t).within_tolerance
                         for r in RULES for t in TOLERANCES}


def _rate(hits: int, reps: int) -> str:
    p = hits / reps
    return f"{p:.3f} (MC SE {math.sqrt(p * (1 - p) / reps):.3f})"


def _grid(label: str, hits: dict[tuple[str, float], int], reps: int) -> None:
    print(f"    {label}:")
    for r in RULES:
        mark = " (chosen)" if r == "passes too" else ""
        print(f"      rule {r!r:<12} " + "; ".join(
            f"tolerance {t:.0%}{mark if t == TOLERANCE else ''}: {_rate(hits[r, t], reps)}"
            for t in TOLERANCES))


def _zero() -> dict[tuple[str, float], int]:
    return {(r, t): 0 for r in RULES for t in TOLERANCES}


def scenario_a(rng: np.random.Generator, reps: int, drop: float, effect: float = 0.0) -> None:
    """The candidate's failures dropped at rate ``drop``: how often it is called better
    (no true difference) or passes (truly worse)."""
    wrong = _zero()
    today = 0
    for _ in range(reps):
        base, cand = _scores(rng, effect)
        keep_c = (cand == 1.0) | (rng.random(N) >= drop)
        verdict, decided = _gate(_frame(base, cand, np.ones(N, bool), keep_c))
        bad = verdict == BETTER if effect == 0 else verdict != WORSE
        today += bad
        for key in wrong:
            wrong[key] += not (bad and decided[key])
    what = "'better'" if effect == 0 else "pass (exit 0)"
    print(f"({'a' if effect == 0 else 'c'}) candidate effect {100 * effect:+.0f} points, its "
          f"failures dropped at rate {drop}, {reps} reps; without the bound the gate says "
          f"{what} in {_rate(today, reps)}")
    _grid(f"the gate never says {what}" + (" (target >= 0.95)" if effect == 0 else ""),
          wrong, reps)


def scenario_b(rng: np.random.Generator, reps: int, effect: float) -> None:
    same = _zero()
    complete_better = 0
    for _ in range(reps):
        base, cand = _scores(rng, effect)
        full = compare_ab(_frame(base, cand, np.ones(N, bool), np.ones(N, bool)),
                          baseline="base", candidate="cand").verdict
        complete_better += full == BETTER
        keep_b, keep_c = rng.random(N) >= 0.05, rng.random(N) >= 0.05
        verdict, decided = _gate(_frame(base, cand, keep_b, keep_c))
        for key in same:
            same[key] += verdict == full and decided[key]
    print(f"(b) missing completely at random, 5% each side, candidate effect "
          f"{100 * effect:+.0f} points, {reps} reps; complete data 'better' in "
          f"{_rate(complete_better, reps)}")
    _grid("decides as on complete data (target >= 0.90)", same, reps)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=300)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    t0 = time.perf_counter()
    scenario_a(rng, args.reps, 0.5)
    scenario_a(rng, args.reps, 0.2)
    scenario_a(rng, args.reps, 0.5, effect=-0.08)
    scenario_b(rng, args.reps, 0.0)
    scenario_b(rng, args.reps, 0.12)
    print(f"({time.perf_counter() - t0:.0f} s, seed {args.seed})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
