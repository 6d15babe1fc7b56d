"""False alarms and power of the per-task pass^k gate rules (``compare --pass-hat-k K
--min-pass-rate R`` and ``--fail-on broken``), by simulation through
:func:`engine.stats._passk_reliability.task_gate` itself.

pass-rate: the gate fails when some task's success rate is shown below R (exact one-sided
binomial test per task, Holm–Šidák over the tasks at 0.05). Under the null every task
meets the threshold; the hardest case is every task's rate **exactly R** ("at R"), beside
rates spread over [R, 1] ("above R", uniform). The false-alarm rate is the share of
replications in which the gate fails; it must be ≤ 0.05 (exact tests are conservative).
Power: one task of the T at rate R − 0.4 (the others at R), the share of replications in
which that task is flagged.

broken: the gate fails only if a task that always passed on the baseline fails on every
try of the candidate. It is a rule, not a test with a level: its false-alarm rate when the
candidate equals the baseline (same per-task success probability, Beta(4, 0.4): most
tasks almost always pass; Beta(0.5, 0.5): spread) is printed so a user knows what it costs,
and its power when the candidate breaks one task (rate 0 on a task with p = 1).

Every rate is printed with its Monte Carlo standard error √(r(1−r)/reps).

    .venv/bin/python benchmarks/calibrate_passk_gate.py [--reps 2000]

Last run (500 replications per cell, 928 s on 2 shared cores): highest false-alarm rate of
the pass-rate rule 0.042 ± 0.009 (R = 0.8, 200 tasks, 16 tries; every cell ≤ 0.05 within MC
error); power on one task 0.4 below R from 0.000 (4 tries: too few to show any rate below
R after adjustment) to 0.90 (R = 0.95, 16 tries). The broken rule, no change: ≤ 0.002 with 8
or more tries, but 0.210 ± 0.018 with 4 tries on 200 spread tasks (with few tries a task
passing every try on one side and failing every try on the other happens by chance);
one task broken: caught in every replication.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from engine.stats._passk import TryCounts  # noqa: E402
from engine.stats._passk_reliability import task_gate  # noqa: E402

TASKS = (20, 50, 200)
TRIES = (4, 8, 16)
RATES = (0.5, 0.8, 0.95)


def rate(hits: np.ndarray) -> str:
    r = float(np.mean(hits))
    return f"{r:.3f} ± {math.sqrt(r * (1 - r) / len(hits)):.3f}"


def counts(base: np.ndarray, cand: np.ndarray, tries: int) -> TryCounts:
    t = base.shape[0]
    n = np.full((2, t), tries)
    return TryCounts("b", "m", ("base", "cand"), tuple(f"t{i}" for i in range(t)), n,
                     np.vstack([base, cand]))


def pass_rate(reps: int, rng: np.random.Generator) -> float:
    print(f"## pass-rate rule: false alarms (every task meets R) and power (one task at "
          f"R − 0.4); {reps} replications per cell, alpha 0.05, Holm–Šidák over tasks\n")
    print(f"{'R':>4} {'tasks':>5} {'tries':>5} {'false alarm at R':>17} "
          f"{'false alarm above R':>20} {'power':>13}")
    highest = 0.0
    for thr in RATES:
        for tasks in TASKS:
            for tries in TRIES:
                at = np.zeros(reps, dtype=bool)
                above = np.zeros(reps, dtype=bool)
                power = np.zeros(reps, dtype=bool)
                full = np.full(tasks, tries)
                for r in range(reps):
                    for hits, p in ((at, np.full(tasks, thr)),
                                    (above, rng.uniform(thr, 1.0, tasks))):
                        gate = task_gate(counts(full, rng.binomial(tries, p), tries),
                                         baseline="base", candidate="cand", rule="pass-rate",
                                         threshold=thr)
                        hits[r] = gate.failed
                    p = np.full(tasks, thr)
                    p[0] = thr - 0.4
                    gate = task_gate(counts(full, rng.binomial(tries, p), tries),
                                     baseline="base", candidate="cand", rule="pass-rate",
                                     threshold=thr)
                    power[r] = bool(gate.table["failed"].iloc[0])
                highest = max(highest, float(at.mean()), float(above.mean()))
                print(f"{thr:>4} {tasks:>5} {tries:>5} {rate(at):>17} {rate(above):>20} "
                      f"{rate(power):>13}")
    print(f"\nhighest false-alarm rate of the pass-rate rule: {highest:.3f}")
    return highest


def broken(reps: int, rng: np.random.Generator) -> None:
    print(f"\n## broken rule: fails when the candidate equals the baseline (no change) and "
          f"when it breaks one task; {reps} replications per cell\n")
    print(f"{'population':<10} {'tasks':>5} {'tries':>5} {'fails, no change':>17} "
          f"{'fails, one broken':>18}")
    for name, (a, b) in {"near 1": (4.0, 0.4), "spread": (0.5, 0.5)}.items():
        for tasks in TASKS:
            for tries in TRIES:
                same = np.zeros(reps, dtype=bool)
                hit = np.zeros(reps, dtype=bool)
                for r in range(reps):
                    p = rng.beta(a, b, tasks)
                    base, cand = rng.binomial(tries, p), rng.binomial(tries, p)
                    same[r] = task_gate(counts(base, cand, tries), baseline="base",
                                        candidate="cand", rule="broken").failed
                    base[0], cand[0] = tries, 0  # task 0 always passed, now always fails
                    hit[r] = task_gate(counts(base, cand, tries), baseline="base",
                                       candidate="cand", rule="broken").failed
                print(f"{name:<10} {tasks:>5} {tries:>5} {rate(same):>17} {rate(hit):>18}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--reps", type=int, default=2000, help="replications per cell")
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    start = time.perf_counter()
    pass_rate(args.reps, rng)
    broken(args.reps, rng)
    print(f"\n({time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main()
