"""Speed of the joint model of the results matrix: fit and intervals, CPU seconds.

Data: 200 systems × 40 benchmarks × 1,000 0/1 examples each, a third of the cells missing
at random (the 2PL of ``benchmarks/calibrate_joint.py``: 8,000 cells, 5.3 million
outcomes). Timed: the maximum-likelihood fit, the sandwich covariance clustered by example
id, the intervals and the simultaneous rank sets of all 200 systems (1,000 draws) —
everything :func:`engine.across._joint.fit_cells` does — in CPU seconds
(``time.process_time``: the machine's load bends wall time, not this). Target ≤ 10 s.

Run: ``.venv/bin/python benchmarks/bench_joint.py [--systems 200 --benchmarks 40 --examples 1000]``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
from scipy import special

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._table import cpu_call  # noqa: E402
from engine.across._joint import fit_cells  # noqa: E402
from engine.across._joint_cells import cells_from_arrays  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--systems", type=int, default=200)
    parser.add_argument("--benchmarks", type=int, default=40)
    parser.add_argument("--examples", type=int, default=1000)
    parser.add_argument("--missing", type=float, default=1 / 3)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    theta = rng.normal(0, 1, args.systems)
    diff, lam = rng.normal(0, 0.8, args.benchmarks), rng.normal(0, 0.3, args.benchmarks)
    p = special.expit(np.exp(lam)[None, :] * (theta[:, None] - diff[None, :]))
    gone = rng.random(p.shape) < args.missing
    scores = []
    for j in range(args.benchmarks):
        own = rng.random(args.examples)
        u = np.where(rng.random((args.systems, args.examples)) < 0.7, own[None, :],
                     rng.random((args.systems, args.examples)))
        x = (u < p[:, j:j + 1]).astype(float)
        x[gone[:, j]] = np.nan
        scores.append(x)
    cells = cells_from_arrays(scores)
    seconds, fit = cpu_call(lambda: fit_cells(cells))
    print(f"{args.systems} systems × {args.benchmarks} benchmarks × {args.examples} examples, "
          f"{fit.cells_missing} of {fit.cells_total} cells missing")
    print(f"fit + sandwich intervals + simultaneous rank sets: {seconds:.2f} CPU s "
          f"(target ≤ 10 s; {fit.iterations} trust-region iterations, converged {fit.converged})")
    widths = (fit.table["rank_set_high"] - fit.table["rank_set_low"]).to_numpy()
    print(f"rank set width: median {np.median(widths):.0f}, largest {widths.max()}")


if __name__ == "__main__":
    main()
