"""A/A calibration of the run-aware test: false-alarm rate ± Monte Carlo error.

Two systems with no true difference, 5 runs × 200 examples, scored as
``example + run sweep + noise``. "per-example samples": no sweep (runs are
independent draws per example); "seed sweeps": each run shifts every example of
its sweep (SD 0.5, noise SD 1). Each regime is simulated ``--reps`` times through
``compare_ab`` on a long table (the full public path) and, for more precision,
through the vectorised kernel. Intermediate sweeps and 2-run designs are printed
too. For comparison, the paired t on per-example means (what averaging runs does).

    .venv/bin/python benchmarks/calibrate_runs.py [--reps 500]
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from engine.stats._ab import compare_ab  # noqa: E402
from engine.stats._runs import run_anova, satterthwaite_t  # noqa: E402


def draw(rng: np.random.Generator, reps: int, runs: int, n: int, sd_run: float) -> np.ndarray:
    ex = rng.normal(0, 1, (reps, 1, 1, n))
    return ex + rng.normal(0, sd_run, (reps, 2, runs, 1)) + rng.normal(0, 1, (reps, 2, runs, n))


def kernel_pvalues(y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    reps, _, runs, n = y.shape
    cube = y.reshape(2 * reps, runs, n)
    a = run_anova(cube, np.full(2 * reps, runs))
    ia, ja = np.arange(0, 2 * reps, 2), np.arange(1, 2 * reps, 2)
    d = cube[ja].mean(axis=1) - cube[ia].mean(axis=1)
    res = satterthwaite_t(d.mean(axis=1), d.var(axis=1, ddof=1) / n, np.full(reps, n - 1.0),
                          a.ss_run[ia] + a.ss_run[ja], a.df_run[ia] + a.df_run[ja],
                          a.ss_resid[ia] + a.ss_resid[ja], a.df_resid[ia] + a.df_resid[ja],
                          a.df_run[ia] * a.n[ia] + a.df_run[ja] * a.n[ja],
                          np.full(reps, 2.0 / runs), "two-sided")
    return res["pvalue"], stats.ttest_1samp(d, 0.0, axis=1).pvalue


def long_table(y: np.ndarray) -> pd.DataFrame:
    _, runs, n = y.shape
    s, r, e = np.meshgrid(np.arange(2), np.arange(runs), np.arange(n), indexing="ij")
    return pd.DataFrame({"benchmark": "b", "metric": "m",
                         "system": np.where(s.ravel() == 0, "A", "A'").astype(object),
                         "example_id": pd.Series(e.ravel()).map("e{:03d}".format).astype(object),
                         "run": r.ravel(), "value": y.ravel()})


def rate(p: np.ndarray) -> str:
    k = float((p < 0.05).mean())
    return f"{k:.3f} ± {math.sqrt(k * (1 - k) / len(p)):.3f}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=500)
    ap.add_argument("--seed", type=int, default=20240)
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    print(f"A/A false-alarm rate at alpha = 0.05 (rate ± MC standard error), reps = {args.reps}")
    for label, sd_run in (("per-example samples", 0.0), ("seed sweeps", 0.5)):
        y = draw(rng, args.reps, 5, 200, sd_run)
        t0 = time.perf_counter()
        p = np.array([compare_ab(long_table(y[i]), baseline="A", candidate="A'").test.pvalue
                      for i in range(args.reps)])
        took = time.perf_counter() - t0
        print(f"  {label:20s} compare_ab: {rate(p)}   ({took:.1f} s)")
    print("kernel, 20,000 reps each (run-aware | paired t on per-example means):")
    for runs in (5, 2):
        for sd_run in (0.0, 0.05, 0.1, 0.2, 0.5, 1.0):
            vc, pt = kernel_pvalues(draw(rng, 20_000, runs, 200, sd_run))
            print(f"  runs {runs}, sweep SD {sd_run:4.2f}: {rate(vc)} | {rate(pt)}")


if __name__ == "__main__":
    main()
