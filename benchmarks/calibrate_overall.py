"""Calibration and power of the overall leaderboard (issue #15), by simulation.

Data: 10 systems, 5 benchmarks × 3 correlated metrics, examples shared by the
systems within a benchmark (paired) and different sizes across benchmarks
(unpaired). Each score = example difficulty (shared by every system and
metric) + a per-(system, example) component shared by the metrics + metric
noise + the system's true effect.

Procedures compared, each declaring pairs "different":

* ``naive``: what sigboard does per view today — paired tests per benchmark
  and metric, Holm–Šídák within each; a pair is flagged when any view flags it;
* ``holm_all_metrics``: testing benchmarks one by one as the per-benchmark
  views do (each benchmark and metric on its own), Holm over all of them
  (pairs × benchmarks × metrics = 675 tests) — the issue's comparator when each
  benchmark has several metrics;
* ``holm_all_benchmarks``: testing benchmarks one by one on their §6.1
  aggregate, Holm over all pairs × benchmarks (225 tests) — the same per-benchmark
  p-values the overall procedure combines, so the stricter comparator;
* ``overall``: :func:`engine.across._overall.overall` (aggregate per benchmark,
  Landau-exact HMP across benchmarks with L = pairs × benchmarks);
* ``hmp_all``: :func:`engine.across._overall.pairs_across` style HMP over the 15
  (benchmark, metric) tests of each pair, L = pairs × 15;
* ``fisher_holm`` (reference only, not offered by sigboard): Fisher's combination of
  each pair's 5 aggregate p-values (valid here because the benchmarks' examples are
  independent, which the HMP does not assume), Holm over the 45 pairs. It shows how
  much the HMP's robustness to dependence costs when benchmarks are independent.

Null: no true difference; reported = share of replications with any pair
declared different (familywise error), with a 95% Monte Carlo interval.
Power: system s0 better by ``--delta`` SD on every benchmark; reported = share
of the 9 true pairs (s0 vs another) declared different, and the share of
replications where s0 is declared better than all 9.

Run: ``.venv/bin/python benchmarks/calibrate_overall.py [--reps 500] [--power-reps 200]``
(``--check`` first verifies on one replication that the parts path equals
:func:`engine.across._overall.overall`).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine._matrix import build_matrix  # noqa: E402
from engine._options import TestOptions  # noqa: E402
from engine.across._hmp import hmp_rows  # noqa: E402
from engine.across._overall import benchmark_part, overall, overall_from_parts  # noqa: E402
from engine.stats._multitest import adjust_pvalues  # noqa: E402
from engine.stats._pairwise import pairwise_tests  # noqa: E402

SYSTEMS, BENCHMARKS, METRICS = 10, 5, 3
SIZES = (80, 100, 120, 150, 200)


def simulate(rng: np.random.Generator, effect: np.ndarray) -> pd.DataFrame:
    """One long table; ``effect[s]`` is system s's true shift in SD units on every metric."""
    frames = []
    for b, n in enumerate(SIZES[:BENCHMARKS]):
        difficulty = rng.normal(size=(1, n, 1))
        shared = rng.normal(scale=0.8, size=(SYSTEMS, n, 1))
        noise = rng.normal(scale=0.6, size=(SYSTEMS, n, METRICS))
        values = difficulty + shared + noise + effect[:, None, None]
        s, e, m = np.meshgrid(np.arange(SYSTEMS), np.arange(n), np.arange(METRICS), indexing="ij")
        frames.append(pd.DataFrame({
            "benchmark": f"b{b}", "system": np.char.add("s", s.ravel().astype(str)),
            "example_id": np.char.add("e", e.ravel().astype(str)),
            "metric": np.char.add("m", m.ravel().astype(str)), "value": values.ravel()}))
    return pd.concat(frames, ignore_index=True)


def _pair_keys(table: pd.DataFrame) -> list[frozenset[str]]:
    return [frozenset(p) for p in zip(table["system_a"], table["system_b"], strict=True)]


def evaluate(df: pd.DataFrame, options: TestOptions) -> dict[str, set[frozenset[str]]]:
    """Pairs each procedure declares different (unordered)."""
    per_metric, per_bench, parts = [], [], []
    frames = {str(b): f for b, f in df.groupby("benchmark", sort=False, observed=True)}
    for b in range(BENCHMARKS):
        sub = frames[f"b{b}"]
        for m in range(METRICS):
            res = pairwise_tests(build_matrix(sub, benchmark=f"b{b}", metric=f"m{m}"), options)
            per_metric.append(res.table)
        # the §6.1 aggregate and its all-pairs tests, once: the part engine.overall combines
        part = benchmark_part(sub, f"b{b}", metrics=[f"m{m}" for m in range(METRICS)],
                              options=options)
        parts.append(part)
        per_bench.append(part.pairwise.table)
    out: dict[str, set[frozenset[str]]] = {}
    out["naive"] = {k for t in per_metric for k, s in zip(_pair_keys(t), t["significant"], strict=True)
                    if s}
    for name, tables in (("holm_all_metrics", per_metric), ("holm_all_benchmarks", per_bench)):
        keys = [k for t in tables for k in _pair_keys(t)]
        p = np.concatenate([t["pvalue"].to_numpy(float) for t in tables])
        adj = adjust_pvalues(p, method="holm", alpha=options.alpha)
        out[name] = {k for k, a in zip(keys, adj, strict=True) if a < options.alpha}
    p = np.column_stack([t["pvalue"].to_numpy(float) for t in per_metric])
    big_l = p.size
    _, _, adj, _ = hmp_rows(p, np.full(p.shape, 1 / big_l), L=big_l)
    out["hmp_all"] = {k for k, a in zip(_pair_keys(per_metric[0]), adj, strict=True)
                      if a < options.alpha}
    p = np.column_stack([t["pvalue"].to_numpy(float) for t in per_bench])
    fisher = stats.chi2.sf(-2 * np.log(p).sum(axis=1), df=2 * p.shape[1])
    adj = adjust_pvalues(fisher, method="holm", alpha=options.alpha)
    out["fisher_holm"] = {k for k, a in zip(_pair_keys(per_bench[0]), adj, strict=True)
                          if a < options.alpha}
    res = overall_from_parts(parts, options=options)  # = overall(df, options=options)
    out["overall"] = set(_pair_keys(res.pairs[res.pairs["significant"]]))
    return out


def _check(options: TestOptions) -> None:
    df = simulate(np.random.default_rng(0), np.linspace(0.0, 0.3, SYSTEMS))
    parts = [benchmark_part(f, str(b), metrics=[f"m{m}" for m in range(METRICS)], options=options)
             for b, f in df.groupby("benchmark", sort=False, observed=True)]
    pd.testing.assert_frame_equal(overall_from_parts(parts, options=options).pairs,
                                  overall(df, options=options).pairs, check_exact=True)
    print("check: the parts path equals engine.overall on one replication")


def _interval(k: float, n: int) -> str:
    rate = k / n
    half = 1.96 * np.sqrt(max(rate * (1 - rate), 1e-12) / n)
    return f"{rate:6.3f}  ({max(rate - half, 0):.3f}–{rate + half:.3f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--reps", type=int, default=500)
    parser.add_argument("--power-reps", type=int, default=200)
    parser.add_argument("--delta", type=float, default=0.2)
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--check", action="store_true",
                        help="verify the per-benchmark parts against engine.overall first")
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    options = TestOptions()
    if args.check:
        _check(options)
    names = ("naive", "holm_all_metrics", "holm_all_benchmarks", "hmp_all", "overall",
             "fisher_holm")

    start = time.perf_counter()
    any_pair = dict.fromkeys(names, 0)
    for rep in range(1, args.reps + 1):
        found = evaluate(simulate(rng, np.zeros(SYSTEMS)), options)
        for name in names:
            any_pair[name] += bool(found[name])
        if rep % 50 == 0:  # progress, so a long run can be read before it ends
            print(f"  [{rep} null replications] " + ", ".join(
                f"{n} {any_pair[n] / rep:.3f}" for n in names), flush=True)
    if args.reps:
        _report_null(args, options, names, any_pair, time.perf_counter() - start)
    _power(args, options, names, rng)


def _report_null(args: argparse.Namespace, options: TestOptions, names: tuple[str, ...],
                 any_pair: dict[str, int], seconds: float) -> None:
    print(f"NULL: {args.reps} replications, {SYSTEMS} systems, {BENCHMARKS} benchmarks × "
          f"{METRICS} metrics, examples {SIZES}; alpha {options.alpha} "
          f"({seconds:.0f} s)")
    print("  procedure              P(any pair declared different)  (95% MC interval)")
    for name in names:
        print(f"  {name:22s} {_interval(any_pair[name], args.reps)}")


def _power(args: argparse.Namespace, options: TestOptions, names: tuple[str, ...],
           rng: np.random.Generator) -> None:
    start = time.perf_counter()
    effect = np.zeros(SYSTEMS)
    effect[0] = args.delta
    true_pairs = {frozenset(("s0", f"s{i}")) for i in range(1, SYSTEMS)}
    hits, all_nine = dict.fromkeys(names, 0), dict.fromkeys(names, 0)
    false = dict.fromkeys(names, 0)
    for rep in range(1, args.power_reps + 1):
        found = evaluate(simulate(rng, effect), options)
        if rep % 25 == 0:
            print(f"  [{rep} power replications] overall {hits['overall'] / (9 * rep):.3f}, "
                  f"holm_all_metrics {hits['holm_all_metrics'] / (9 * rep):.3f}, "
                  f"holm_all_benchmarks {hits['holm_all_benchmarks'] / (9 * rep):.3f}", flush=True)
        for name in names:
            hits[name] += len(found[name] & true_pairs)
            all_nine[name] += found[name] >= true_pairs
            false[name] += bool(found[name] - true_pairs)
    print(f"\nPOWER: s0 better by {args.delta} SD on every benchmark and metric, "
          f"{args.power_reps} replications ({time.perf_counter() - start:.0f} s)")
    print("  procedure              share of the 9 true pairs   s0 above all 9    any false pair")
    for name in names:
        share = hits[name] / (9 * args.power_reps)
        print(f"  {name:22s} {share:8.3f}                 {all_nine[name] / args.power_reps:8.3f}"
              f"          {false[name] / args.power_reps:8.3f}")


if __name__ == "__main__":
    main()
