"""False "not the best" of the rank sets under no true difference, beside the pairwise FWER.

Run: ``.venv/bin/python benchmarks/calibrate_rank_sets_designs.py [--reps 300]``

Ten systems with no true difference. Per replication: the page's pairwise tests
(:func:`engine.pairwise_tests`, automatic test, Holm, alpha 0.05; cluster-robust with the
cluster column declared) and the leaderboard's simultaneous rank sets
(:func:`engine.ranking._mean_covariance.leaderboard_rank_sets`) built on them ("new"), and
the same sets from the covariance of the means alone ("old", ``pairwise=False``). With all
true ranks tied, every set must contain rank 1: a set without it says "this one is not
the best" falsely. Printed per design: the share of data sets where SOME system's set
excludes rank 1 (new, old), the pairwise FWER (some pair significant), each ± its Monte
Carlo SE sqrt(p(1 − p) / reps). Target: new ≤ 0.05 within MC error.

Designs (``score = example effect + seed shift of the run's whole sweep + noise``; binary:
P(correct) = logistic of it):
* seeds: 3 runs per system, seed SD 0.3 (binary and numeric);
* unbalanced runs: 2 systems with 10 runs, 8 with one (seed SD 0.3);
* heteroscedastic runs: 3 runs, seed SD 0.05–0.6 and noise SD 0.3–2 by system;
* clustered questions: 30 clusters, system × cluster interaction SD 0.5 / 1.0, cluster
  column declared (binary);
* few examples: 10 / 25 binary examples, one run;
* clean: 300 examples, one run (binary, numeric).

Last run (300 replications, seed 2031, 2026-12-07, a pair's seed variance the pool or a
system's own where larger, engine.stats._runs.pair_components), new / old / pairwise FWER:
seeds binary 0.013 ± 0.007 / 0.470 / 0.013, numeric 0.013 ± 0.007 / 0.543 / 0.013; 2 × 10
runs and 8 × 1 binary 0.027 ± 0.009 / 0.853 / 0.027, numeric 0.017 ± 0.007 / 1.000 / 0.017;
heteroscedastic runs 0.023 ± 0.009 / 0.520 / 0.023 (was 0.073 ± 0.015 with one pooled seed
SD for all systems); clustered SD 0.5 0.030 ± 0.010 / 0.137 / 0.030, SD 1.0 0.050 ± 0.013 /
0.143 / 0.050; 10 examples 0.000 / 0.173 / 0.000, 25 examples 0.010 ± 0.006 / 0.123 / 0.010;
clean binary 0.030 ± 0.010 / 0.050 / 0.030, numeric 0.020 ± 0.008 / 0.027 / 0.020.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engine import ScoreMatrix, build_matrix, pairwise_tests, validate_long  # noqa: E402
from engine.ranking._mean_covariance import leaderboard_rank_sets  # noqa: E402
from engine.stats._clusters import ClusterDesign  # noqa: E402

S = 10
Design = Callable[[np.random.Generator], tuple[ScoreMatrix, ClusterDesign | None]]


def _long(y: np.ndarray, runs: np.ndarray) -> ScoreMatrix:
    """A matrix through the public path from y[system, run, example] (runs[s] of them used)."""
    frames = []
    n = y.shape[2]
    ids = np.array([f"e{i:03d}" for i in range(n)], dtype=object)
    for s in range(S):
        for r in range(int(runs[s])):
            frames.append(pd.DataFrame({"benchmark": "b", "metric": "m", "system": f"s{s}",
                                        "example_id": ids, "run": r, "value": y[s, r]}))
    return build_matrix(validate_long(pd.concat(frames, ignore_index=True)))


def _runs_design(runs: np.ndarray, seed_sd: np.ndarray, noise_sd: np.ndarray, n: int,
                 binary: bool) -> Design:
    def make(rng: np.random.Generator) -> tuple[ScoreMatrix, ClusterDesign | None]:
        r_max = int(runs.max())
        ex = rng.normal(0, 1, n)
        lin = (ex[None, None, :] + rng.normal(0, 1, (S, r_max, 1)) * seed_sd[:, None, None]
               + rng.normal(0, 1, (S, r_max, n)) * noise_sd[:, None, None])
        if binary:
            lin = (rng.random(lin.shape) < 1 / (1 + np.exp(-(ex[None, None, :] + rng.normal(
                0, 1, (S, r_max, 1)) * seed_sd[:, None, None])))).astype(float)
        return _long(lin, runs), None
    return make


def _clustered(interaction: float, n: int = 300, clusters: int = 30) -> Design:
    def make(rng: np.random.Generator) -> tuple[ScoreMatrix, ClusterDesign | None]:
        family = np.sort(rng.integers(0, clusters, n))
        lin = rng.normal(0, 1, n) + rng.normal(0, 1, clusters)[family]
        lin = lin[None, :] + rng.normal(0, interaction, (S, clusters))[:, family]
        y = (rng.random(lin.shape) < 1 / (1 + np.exp(-lin))).astype(float)
        return ScoreMatrix.from_array(y), ClusterDesign.from_codes(family, "family")
    return make


def _single(n: int, binary: bool) -> Design:
    def make(rng: np.random.Generator) -> tuple[ScoreMatrix, ClusterDesign | None]:
        ex = rng.normal(0, 1, n)
        if binary:
            y = (rng.random((S, n)) < 1 / (1 + np.exp(-ex[None, :]))).astype(float)
        else:
            y = ex[None, :] + rng.normal(0, 1, (S, n))
        return ScoreMatrix.from_array(y), None
    return make


def designs() -> dict[str, Design]:
    three, one = np.full(S, 3), np.ones(S)
    het = np.random.default_rng(7)
    seed_h, noise_h = het.uniform(0.05, 0.6, S), het.uniform(0.3, 2.0, S)
    return {
        "seeds, 3 runs, seed SD 0.3, binary": _runs_design(three, 0.3 * one, one, 200, True),
        "seeds, 3 runs, seed SD 0.3, numeric": _runs_design(three, 0.3 * one, one, 200, False),
        "2 systems × 10 runs, 8 × 1 run, binary": _runs_design(
            np.array([10, 10] + [1] * 8), 0.3 * one, one, 200, True),
        "2 systems × 10 runs, 8 × 1 run, numeric": _runs_design(
            np.array([10, 10] + [1] * 8), 0.3 * one, one, 200, False),
        "heteroscedastic runs (numeric)": _runs_design(three, seed_h, noise_h, 200, False),
        "clustered, interaction SD 0.5": _clustered(0.5),
        "clustered, interaction SD 1.0": _clustered(1.0),
        "10 examples, binary": _single(10, True),
        "25 examples, binary": _single(25, True),
        "clean, 300 examples, binary": _single(300, True),
        "clean, 300 examples, numeric": _single(300, False),
    }


def _rate(hits: list[bool]) -> str:
    p = float(np.mean(hits))
    return f"{p:.3f} ± {np.sqrt(p * (1 - p) / len(hits)):.3f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--reps", type=int, default=300)
    parser.add_argument("--seed", type=int, default=2031)
    parser.add_argument("--only", default=None, help="run the designs whose name has this text")
    args = parser.parse_args()
    print(f"{S} systems, no true difference, alpha 0.05, {args.reps} replications; "
          "target: new ≤ 0.05 within MC error")
    print(f"{'design':<42} {'new: not-best':>15} {'old: not-best':>15} {'pairwise FWER':>15}")
    for k, (name, make) in enumerate(designs().items()):
        if args.only and args.only not in name:
            continue
        rng = np.random.default_rng(args.seed + k)
        new: list[bool] = []
        old: list[bool] = []
        fwer: list[bool] = []
        start = time.perf_counter()
        for _ in range(args.reps):
            m, design = make(rng)
            pw = pairwise_tests(m, cluster=design)
            codes = None if design is None else design.codes
            for out, sets in ((new, leaderboard_rank_sets(m, alpha=0.05, cluster=codes, pairwise=pw)),
                              (old, leaderboard_rank_sets(m, alpha=0.05, cluster=codes,
                                                          pairwise=False))):
                out.append(sets is not None and bool((sets.table["rank_set_low"] > 1).any()))
            fwer.append(bool(pw.table["significant"].any()))
        took = time.perf_counter() - start
        print(f"{name:<42} {_rate(new):>15} {_rate(old):>15} {_rate(fwer):>15}  ({took:.0f} s)",
              flush=True)


if __name__ == "__main__":
    main()
