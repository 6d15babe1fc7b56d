"""Speed of every pair's pass^k difference with intervals: 1,000 tasks × 8 tries × 50 systems.

sigboard: :func:`engine.stats._passk.pass_k_pairs` (pass^k and pass@k differences of the
1,225 pairs with intervals, p-values and Holm–Šidák, from matrix products), after
:func:`engine.stats._passk.try_counts` on the 400,000-row long table (timed apart and
together). Baseline, in the same run: a loop over the pairs with scipy.stats.ttest_rel and
its t confidence interval on the same per-task estimates (pass^k only, and a t interval
instead of sigboard's MOVER: the baseline does less than half the work). Differences and
p-values agree to 1e-9 (checked before timing). CPU seconds
(``time.process_time``), best of 3.

    .venv/bin/python benchmarks/bench_passk.py [--systems 50 --tasks 1000 --tries 8 --k 4]
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from engine.stats._passk import pass_hat_k, pass_k_pairs, try_counts  # noqa: E402


def cpu(fn, repeat: int = 3) -> tuple[float, object]:  # type: ignore[no-untyped-def]
    best, out = float("inf"), None
    for _ in range(repeat):
        start = time.process_time()
        out = fn()
        best = min(best, time.process_time() - start)
    return best, out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--systems", type=int, default=50)
    parser.add_argument("--tasks", type=int, default=1000)
    parser.add_argument("--tries", type=int, default=8)
    parser.add_argument("--k", type=int, default=4)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    s, t, r = args.systems, args.tasks, args.tries
    p = np.clip(rng.beta(0.5, 0.5, (1, t)) + rng.normal(0, 0.05, (s, 1)), 0, 1)
    y = (rng.random((s, r, t)) < p[:, None, :]).astype(np.int8)
    si, ri, ti = np.meshgrid(np.arange(s), np.arange(r), np.arange(t), indexing="ij")
    frame = pd.DataFrame({"benchmark": "b", "metric": "m",
                          "system": pd.Categorical.from_codes(
                              si.ravel(), [f"sys{i:02d}" for i in range(s)]).astype(str),
                          "example_id": pd.Series(ti.ravel()).map("t{:04d}".format),
                          "run": ri.ravel(), "value": y.ravel()})
    counts = try_counts(frame)
    x = pass_hat_k(counts.tries, counts.successes, args.k)

    def loop() -> list[tuple[float, float, float, float]]:
        out = []
        for a, b in itertools.combinations(range(s), 2):
            res = stats.ttest_rel(x[a], x[b])
            ci = res.confidence_interval(0.95)
            out.append((float(np.mean(x[a] - x[b])), float(ci.low), float(ci.high),
                        float(res.pvalue)))
        return out

    fast = pass_k_pairs(counts, args.k).table
    ref = np.array(loop())
    assert np.allclose(fast["diff_pass_hat_k"], ref[:, 0], atol=1e-12)
    assert np.allclose(fast["pvalue"], ref[:, 3], rtol=1e-9, atol=1e-300)

    t_count, _ = cpu(lambda: try_counts(frame))
    t_pairs, _ = cpu(lambda: pass_k_pairs(counts, args.k))
    t_both, _ = cpu(lambda: pass_k_pairs(try_counts(frame), args.k))
    t_loop, _ = cpu(loop, repeat=1)
    from engine.stats._clusters import ClusterDesign
    from engine.stats._passk import TryCounts

    clustered = TryCounts(counts.benchmark, counts.metric, counts.systems, counts.examples,
                          counts.tries, counts.successes,
                          ClusterDesign.from_codes(np.arange(t) % 100, "family"))
    t_cluster, _ = cpu(lambda: pass_k_pairs(clustered, args.k))
    pairs = s * (s - 1) // 2
    print(f"{t} tasks × {r} tries × {s} systems ({len(frame):,} rows), k = {args.k}, "
          f"{pairs:,} pairs; CPU seconds, best of 3")
    print(f"{'step':<60} {'CPU s':>8}")
    print(f"{'try_counts (long table → tries, successes)':<60} {t_count:>8.3f}")
    print(f"{'pass_k_pairs (pass^k + pass@k, intervals, p, Holm–Šidák)':<60} {t_pairs:>8.3f}")
    print(f"{'both (long table → every pair)':<60} {t_both:>8.3f}")
    print(f"{'pass_k_pairs with 100 clusters of tasks (CR2, Bell–McCaffrey)':<60} "
          f"{t_cluster:>8.3f}")
    print(f"{'baseline: loop of ttest_rel + interval (pass^k only)':<60} {t_loop:>8.3f}")
    print(f"\nevery pair from the long table in {t_both:.2f} s CPU (target ≤ 2 s); "
          f"pass_k_pairs {t_loop / t_pairs:.0f}× faster than the loop over pairs")


if __name__ == "__main__":
    main()
