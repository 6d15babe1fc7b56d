"""Calibration of the joint model of the results matrix (engine.across._joint), by simulation.

Data: ``--systems`` systems × ``--benchmarks`` benchmarks × ``--examples`` 0/1 examples.
Truth: θ_s ~ N(0, 1), d_b ~ N(0, 0.8²), log a_b ~ N(0, 0.3²), normalised as the fit is
(Σθ = 0, mean log a = 0). System s solves example e of benchmark b when U_sbe < p_sb =
σ(a_b(θ_s − d_b)), with U_sbe the example's own uniform (shared by every system) with
probability 0.7, else the system's own: each cell's mean is exactly the model's, while the
examples differ in difficulty (a hard example is failed by most systems), which makes the
systems' scores correlated and the binomial variance of a difference wrong — the sandwich
must account for it. Benchmarks 0 and 1 share their example ids and, with probability 0.5,
their uniforms (as HumanEval and HumanEval+ do): the clustering by example id must too.

Missing cells, at 30%, 50% and 70%:

* ``MCAR``: each cell missing with the same probability;
* ``design``: weak systems skip hard benchmarks, P(missing) = σ(c + 1.5 (d_b − θ_s)), c set
  so that the share missing is the target.

Draws that leave a system or benchmark unidentifiable (a benchmark with < 3 systems, a
part of the matrix not connected) are redrawn. Counted over ``--reps`` replications:
coverage of the 95% ability intervals (share of systems), the simultaneous 95% rank sets'
coverage (every true rank in its set at once), and Spearman's and Kendall's rank
correlation with the true abilities at 67% coverage (33% missing), of the joint model and
of averaging each system's observed benchmark means (arXiv:2605.11205's comparison).
MC error: the standard deviation of the per-replication figure over √reps.

The rank sets use 500 normal draws per replication (the product uses 1,000): the draws only
set the max-t critical value, whose Monte Carlo error at 500 draws moves the sets' coverage
by well under the replications' own MC error.

Run: ``.venv/bin/python benchmarks/calibrate_joint.py [--reps 300]``.

Figures of the last run (``--reps 300``; coverage seed 2026, correlations seed 2028; ± MC
error; 135 + 83 CPU seconds):

======  ======  =======  ====================  =======================
target  kind    missing  ability 95% coverage  rank sets 95% (simult.)
======  ======  =======  ====================  =======================
30%     MCAR    29.7%    0.952 ± 0.002         1.000 ± 0.000
50%     MCAR    49.8%    0.943 ± 0.003         0.997 ± 0.003
70%     MCAR    69.5%    0.951 ± 0.003         1.000 ± 0.000
30%     design  29.6%    0.948 ± 0.003         1.000 ± 0.000
50%     design  49.3%    0.946 ± 0.003         1.000 ± 0.000
70%     design  67.2%    0.948 ± 0.004         0.997 ± 0.003
======  ======  =======  ====================  =======================

Rank correlation with the true abilities at 67% coverage, 50 systems × 8 benchmarks × 1,000
examples: MCAR — Spearman joint 0.999 ± 0.000 vs averaging 0.961 ± 0.001, Kendall 0.985 ±
0.000 vs 0.854 ± 0.003; by design — Spearman 0.999 ± 0.000 vs 0.949 ± 0.002, Kendall 0.985 ±
0.000 vs 0.838 ± 0.003 (the shape of arXiv:2605.11205: the joint model stays near 1,
averaging what each system ran falls well below). The simultaneous rank sets are
conservative (they cover all ranks at once, so each is wider than a marginal set).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from scipy import optimize, special, stats

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.across._joint import fit_cells  # noqa: E402
from engine.across._joint_cells import cells_from_arrays, identifiability  # noqa: E402

COUPLING, SHARED_COUPLING, DESIGN_SLOPE = 0.7, 0.5, 1.5


def _truth(rng: np.random.Generator, n_sys: int, n_bench: int
           ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    theta, diff, lam = rng.normal(0, 1, n_sys), rng.normal(0, 0.8, n_bench), rng.normal(0, 0.3,
                                                                                        n_bench)
    k, c = theta.mean(), np.exp(lam.mean())
    return (theta - k) * c, (diff - k) * c, lam - lam.mean()


def _scores(rng: np.random.Generator, theta: np.ndarray, diff: np.ndarray, lam: np.ndarray,
            n_ex: int) -> list[np.ndarray]:
    p = special.expit(np.exp(lam)[None, :] * (theta[:, None] - diff[None, :]))
    per_example = [rng.random(n_ex) for _ in diff]
    # benchmark 1 shares benchmark 0's ids, and half its examples' uniforms
    per_example[1] = np.where(rng.random(n_ex) < SHARED_COUPLING, per_example[0], per_example[1])
    out = []
    for j, own in enumerate(per_example):
        u = np.where(rng.random((len(theta), n_ex)) < COUPLING, own[None, :],
                     rng.random((len(theta), n_ex)))
        out.append((u < p[:, j:j + 1]).astype(float))
    return out


def _missing(rng: np.random.Generator, theta: np.ndarray, diff: np.ndarray, share: float,
             kind: str) -> np.ndarray:
    """Cells not run; every system keeps at least one (its likeliest: a team evaluates its
    system on something), which leaves the share missing a little under the target."""
    if kind == "MCAR":
        prob = np.full((len(theta), len(diff)), share)
    else:
        gap = DESIGN_SLOPE * (diff[None, :] - theta[:, None])
        c = optimize.brentq(lambda c: special.expit(c + gap).mean() - share, -20, 20)
        prob = special.expit(c + gap)
    gone = rng.random(prob.shape) < prob
    empty = np.flatnonzero(gone.all(axis=1))
    gone[empty, np.argmin(prob[empty] + rng.random(prob[empty].shape) * 1e-9, axis=1)] = False
    return gone


def _replicate(rng: np.random.Generator, args: argparse.Namespace, share: float, kind: str,
               rank: bool, n_ex: int) -> dict[str, float]:
    while True:
        theta, diff, lam = _truth(rng, args.systems, args.benchmarks)
        gone = _missing(rng, theta, diff, share, kind)
        scores = _scores(rng, theta, diff, lam, n_ex)
        for j, x in enumerate(scores):
            x[gone[:, j]] = np.nan
        ids = [np.array([f"e{k}" for k in range(n_ex)]) if j < 2 else
               np.array([f"b{j}e{k}" for k in range(n_ex)]) for j in range(args.benchmarks)]
        cells = cells_from_arrays(scores, ids)
        if not identifiability(cells):
            break
    fit = fit_cells(cells, alpha=0.05, n_draws=500, seed=int(rng.integers(2**31)), rank=rank)
    t = fit.table.set_index("system").loc[list(cells.systems)]
    half = stats.norm.isf(0.025) * t["se"].to_numpy()
    est = t["theta"].to_numpy()
    out = {"ability": float(np.mean(np.abs(est - theta) <= half)),
           "missing": fit.cells_missing / fit.cells_total}
    if rank:
        true_rank = stats.rankdata(-theta, method="min")
        inside = (t["rank_set_low"].to_numpy() <= true_rank) & (true_rank <= t["rank_set_high"]
                                                                .to_numpy())
        out["rank_sets"] = float(inside.all())
    # each system's average of the benchmark means it has (the comparison's "averaging")
    sums = np.stack([np.nansum(x, axis=1) for x in scores], axis=1)
    counts = np.stack([(~np.isnan(x)).sum(axis=1) for x in scores], axis=1)
    ran = counts > 0
    average = (np.where(ran, sums / np.maximum(counts, 1), 0).sum(axis=1) / ran.sum(axis=1))
    out["spearman_joint"] = float(stats.spearmanr(est, theta).statistic)
    out["spearman_avg"] = float(stats.spearmanr(average, theta).statistic)
    out["kendall_joint"] = float(stats.kendalltau(est, theta).statistic)
    out["kendall_avg"] = float(stats.kendalltau(average, theta).statistic)
    return out


def _summary(values: list[float]) -> str:
    v = np.asarray(values)
    return f"{v.mean():.3f} ± {v.std(ddof=1) / np.sqrt(len(v)):.3f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--reps", type=int, default=300)
    parser.add_argument("--systems", type=int, default=30)
    parser.add_argument("--benchmarks", type=int, default=8)
    parser.add_argument("--examples", type=int, default=200)
    parser.add_argument("--corr-systems", type=int, default=50,
                        help="systems of the rank-correlation table")
    parser.add_argument("--corr-examples", type=int, default=1000,
                        help="examples per benchmark of the rank-correlation table")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--only", action="append", metavar="KIND:SHARE",
                        help="run only these coverage scenarios (e.g. design:0.7); repeatable")
    parser.add_argument("--no-coverage", action="store_true", help="only the correlation table")
    parser.add_argument("--no-correlation", action="store_true", help="only the coverage table")
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    start = time.process_time()
    print(f"{args.systems} systems × {args.benchmarks} benchmarks × {args.examples} examples, "
          f"{args.reps} replications (± MC error)\n")
    print(f"{'target':<8}{'kind':<8}{'missing':>9}{'ability 95% coverage':>24}"
          f"{'rank sets 95% (simult.)':>26}")
    scenarios = [(k, s) for k in ("MCAR", "design") for s in (0.3, 0.5, 0.7)]
    if args.only:
        scenarios = [(o.split(":")[0], float(o.split(":")[1])) for o in args.only]
    for kind, share in [] if args.no_coverage else scenarios:
        reps = [_replicate(rng, args, share, kind, True, args.examples)
                for _ in range(args.reps)]
        print(f"{share:<8.0%}{kind:<8}{np.mean([r['missing'] for r in reps]):>9.1%}"
              f"{_summary([r['ability'] for r in reps]):>24}"
              f"{_summary([r['rank_sets'] for r in reps]):>26}", flush=True)
    if args.no_correlation:
        print(f"\nCPU seconds: {time.process_time() - start:.0f}")
        return
    corr = argparse.Namespace(**{**vars(args), "systems": args.corr_systems})
    print(f"\nRank correlation with the true abilities at 67% coverage (33% of cells missing), "
          f"{args.corr_systems} systems × {args.benchmarks} benchmarks × {args.corr_examples} "
          "examples:")
    print(f"{'kind':<8}{'Spearman joint':>18}{'Spearman average':>20}{'Kendall joint':>18}"
          f"{'Kendall average':>20}")
    for kind in ("MCAR", "design"):
        reps = [_replicate(rng, corr, 1 / 3, kind, False, args.corr_examples)
                for _ in range(args.reps)]
        print(f"{kind:<8}" + "".join(f"{_summary([r[k] for r in reps]):>{w}}" for k, w in (
            ("spearman_joint", 18), ("spearman_avg", 20), ("kendall_joint", 18),
            ("kendall_avg", 20))), flush=True)
    print(f"\nCPU seconds: {time.process_time() - start:.0f}")


if __name__ == "__main__":
    main()
