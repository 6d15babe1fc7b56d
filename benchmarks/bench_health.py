"""Speed of the benchmark health report on the 7 eval-arena benchmarks.

Run: ``.venv/bin/python benchmarks/bench_health.py [--repeat N]``

Reads every eval-arena file together (so ``humaneval`` and ``humaneval_hf`` form
the 78-system ``humaneval`` benchmark), then for each benchmark prints the time of
:func:`engine.products._health.benchmark_health` (first call and best of ``--repeat``
calls, matrix already built) and the total.

The matrices are small, so multi-threaded BLAS only adds overhead, and on a busy
machine (more runnable threads than cores) OpenBLAS's spinning threads can make
it 5–10× slower: compare with ``OPENBLAS_NUM_THREADS=1``. As a baseline it also times the
per-pair / per-example scipy loop the report replaces (``binomtest`` for every
ordered pair, ``kendalltau`` for every example) on the largest benchmark.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings
from pathlib import Path

import pandas as pd
from scipy import stats

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engine._matrix import ScoreMatrix, build_matrix  # noqa: E402
from engine.io._readers import read_results  # noqa: E402
from engine.products._health import benchmark_health  # noqa: E402

DATA = ROOT / "data"  # the bundled eval-arena files


def _loop_baseline(m: ScoreMatrix) -> float:
    """What loops over pairs and examples cost: one scipy call each."""
    x = m.paired_values()
    won = x > 0.5
    means = x.mean(axis=1)
    t0 = time.perf_counter()
    for i in range(m.n_systems):
        for j in range(m.n_systems):
            if i != j:
                a = int((won[i] & ~won[j]).sum())
                b = int((won[j] & ~won[i]).sum())
                if a + b:
                    stats.binomtest(a, a + b)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for e in range(x.shape[1]):
            stats.kendalltau(x[:, e] > 0, means)
    return time.perf_counter() - t0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()

    print(f"OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS', '(unset)')}, "
          f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}")
    t0 = time.perf_counter()
    files = sorted(DATA.glob("*.jsonl.gz"))
    df = pd.concat([read_results(f) for f in files], ignore_index=True)
    print(f"read {len(files)} files, {len(df):,} rows: {time.perf_counter() - t0:.3f} s")

    total_first = total_best = 0.0
    largest: ScoreMatrix | None = None
    print(f"{'benchmark':16s} {'S × E':>10s} {'first':>9s} {'best':>9s}   p5_min  tau_neg")
    for bench in dict.fromkeys(df["benchmark"]):
        m = build_matrix(df, benchmark=str(bench))
        t1 = time.perf_counter()
        report = benchmark_health(m)
        first = time.perf_counter() - t1
        times = []
        for _ in range(args.repeat):
            t1 = time.perf_counter()
            benchmark_health(m)
            times.append(time.perf_counter() - t1)
        best = min(times)
        total_first += first
        total_best += best
        if largest is None or m.values.size > largest.values.size:
            largest = m
        print(f"{m.benchmark:16s} {m.n_systems:4d} × {m.n_examples:4d} "
              f"{first * 1e3:7.1f}ms {best * 1e3:7.1f}ms   {report.p5_min:.3f}  {report.tau_neg:5d}")
    print(f"{'total':16s} {'':>10s} {total_first * 1e3:7.1f}ms {total_best * 1e3:7.1f}ms")

    assert largest is not None
    loop = _loop_baseline(largest)
    vec = min(_time(largest) for _ in range(args.repeat))
    print(f"largest ({largest.benchmark}, {largest.n_systems} × {largest.n_examples}): "
          f"scipy loop over pairs/examples {loop:.3f} s vs whole report {vec * 1e3:.1f} ms "
          f"({loop / vec:.0f}× faster)")


def _time(m: ScoreMatrix) -> float:
    t0 = time.perf_counter()
    benchmark_health(m)
    return time.perf_counter() - t0


if __name__ == "__main__":
    main()
