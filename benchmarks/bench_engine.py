"""Engine speed and memory: leaderboard + all pairs on eval-arena and on synthetic matrices.

Run: ``.venv/bin/python benchmarks/bench_engine.py [--quick]``

Prints, in one run:
1. each of the 7 eval-arena benchmarks read from the raw files
   (read + validate + matrix + leaderboard with all pairs), and the total
   (target ≤ 2.5 s; eval-arena's own analysis takes about 250 s on the same data);
2. a per-pair baseline measured in the same run — scipy's ``binomtest`` /
   ``ttest_rel`` called once per pair, the way a loop over pairs would do it —
   and the speed-up of the vectorised engine over it;
3. bootstrap means and ranks (1,000 paired resamples) against a per-resample loop
   that indexes the examples, the usual way to write a bootstrap, in the same run;
4. synthetic binary and numeric matrices of 200 × 5,000 and 500 × 10,000
   (targets ≤ 2 s and ≤ 10 s), each in a fresh process so its peak memory
   (max RSS, target ≤ 2 GB) is its own.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import resource
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
from scipy import stats

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engine import ScoreMatrix, bootstrap_ranks, build_matrix, leaderboard  # noqa: E402
from engine._readers import read_results  # noqa: E402

DATA = ROOT.parent / "shared" / "data" / "eval-arena"
FILES = ["humaneval+", "humaneval", "mbpp", "mbpp+", "cruxeval_input", "cruxeval_output",
         "lcb_codegen"]


def _eval_arena() -> float:
    t0 = time.perf_counter()
    leaderboard(build_matrix(read_results(DATA / "humaneval+.jsonl.gz")))
    print(f"warm-up (first call pays scipy/pyarrow lazy initialisation): "
          f"{time.perf_counter() - t0:.3f} s, not counted below")
    print("eval-arena (read raw file + leaderboard + all pairs):")
    total = 0.0
    for name in FILES:
        t0 = time.perf_counter()
        df = read_results(DATA / f"{name}.jsonl.gz")
        m = build_matrix(df)
        lb = leaderboard(m)
        dt = time.perf_counter() - t0
        total += dt
        print(f"  {name:16s} {m.n_systems:3d} × {m.n_examples:4d}  {lb.test:9s} "
              f"{len(lb.pairwise.table):5d} pairs  {len(lb.cliques):3d} cliques  {dt:6.3f} s")
    print(f"  total {total:.3f} s (target ≤ 2.5 s)")
    return total


def _per_pair_baseline(m: ScoreMatrix) -> float:
    """What a Python loop over pairs costs: one scipy call per pair."""
    x = m.paired_values()
    t0 = time.perf_counter()
    for i in range(m.n_systems):
        for j in range(i + 1, m.n_systems):
            if m.binary:
                b = int(((x[i] == 1) & (x[j] == 0)).sum())
                c = int(((x[i] == 0) & (x[j] == 1)).sum())
                stats.binomtest(b, b + c) if b + c else None
            else:
                stats.ttest_rel(x[i], x[j])
    return time.perf_counter() - t0


def _baseline() -> None:
    print("per-pair scipy loop vs vectorised engine (tests only, same run):")
    for name in ("humaneval+", "cruxeval_input"):
        m = build_matrix(read_results(DATA / f"{name}.jsonl.gz"))
        loop = _per_pair_baseline(m)
        t0 = time.perf_counter()
        leaderboard(m)
        fast = time.perf_counter() - t0
        print(f"  {name:16s} loop {loop:6.3f} s   engine leaderboard {fast:6.3f} s   "
              f"ratio {loop / fast:5.1f}×")


def _bootstrap_loop(x: np.ndarray, n_resamples: int, rng: np.random.Generator) -> np.ndarray:
    """Baseline: one index draw and one mean per resample, ranks by scipy per resample."""
    ranks = np.empty((n_resamples, len(x)), dtype=np.int64)
    for b in range(n_resamples):
        idx = rng.integers(0, x.shape[1], x.shape[1])
        ranks[b] = stats.rankdata(-x[:, idx].mean(axis=1), method="min")
    return ranks


def _best_of(repeats: int, run: Callable[[], object]) -> float:
    """Fastest of ``repeats`` timed calls (the first one also pays page faults and caches)."""
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        run()
        times.append(time.perf_counter() - t0)
    return min(times)


def _bootstrap() -> None:
    print("bootstrap means + ranks, 1,000 paired resamples, best of 3 "
          "(loop baseline in the same run):")
    for name in ("humaneval", "cruxeval_input", "lcb_codegen"):
        m = build_matrix(read_results(DATA / f"{name}.jsonl.gz"))
        loop = _best_of(3, lambda m=m: _bootstrap_loop(m.paired_values(), 1000,
                                                        np.random.default_rng(0)))
        fast = _best_of(3, lambda m=m: bootstrap_ranks(m, n_resamples=1000, rng=0))
        print(f"  {name:16s} {m.n_systems:3d} × {m.n_examples:4d}  loop {loop:6.3f} s   "
              f"engine {fast:6.3f} s   speed-up {loop / fast:5.1f}×")


def _synthetic_case(args: tuple[int, int, bool, mp.Queue]) -> None:  # type: ignore[type-arg]
    s, e, binary, queue = args
    rng = np.random.default_rng(0)
    skill = rng.normal(0, 0.5, size=(s, 1))
    difficulty = rng.normal(0, 1, size=(1, e))
    logits = skill - difficulty + rng.normal(0, 1, size=(s, e))
    values = (logits > 0).astype(float) if binary else 1 / (1 + np.exp(-logits))
    systems = tuple(f"system-{i:03d}" for i in range(s))
    examples = tuple(f"ex-{j:05d}" for j in range(e))
    m = ScoreMatrix("synthetic", "score", systems, examples, values,
                    np.ones((s, e), dtype=int), True, binary, "full", np.ones(e, dtype=bool))
    t0 = time.perf_counter()
    lb = leaderboard(m)
    dt = time.perf_counter() - t0
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    queue.put((dt, peak_mb, len(lb.pairwise.table), lb.groups.complete))


def _synthetic(quick: bool) -> None:
    print("synthetic leaderboard + all pairs (fresh process each; peak = max RSS):")
    sizes = [(200, 5_000, 2.0)] + ([] if quick else [(500, 10_000, 10.0)])
    ctx = mp.get_context("spawn")
    for s, e, target in sizes:
        for binary in (True, False):
            queue = ctx.Queue()
            proc = ctx.Process(target=_synthetic_case, args=((s, e, binary, queue),))
            proc.start()
            dt, peak, pairs, complete = queue.get()
            proc.join()
            kind = "binary " if binary else "numeric"
            groups = "groups" if complete else "groups capped"
            print(f"  {s:3d} × {e:5d} {kind} {pairs:6d} pairs  {dt:6.2f} s (target ≤ {target:g} s)"
                  f"  peak {peak:7.0f} MB (target ≤ 2048)  {groups}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="skip the 500 × 10,000 cases")
    args = parser.parse_args()
    _eval_arena()
    _baseline()
    _bootstrap()
    _synthetic(args.quick)


if __name__ == "__main__":
    main()
