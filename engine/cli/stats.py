"""Commands ``leaderboard``, ``pairwise`` and ``compare``: files in, tables or JSON out."""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from typing import Any

from ._common import add_data_options, declared_higher_is_better, emit, load_data
from .._leaderboard import leaderboard
from .._matrix import ScoreMatrix, build_matrix
from .._pairwise import ALTERNATIVES, COMPARISONS, CORRECTIONS, CRITERIA, TESTS, pairwise_tests

__all__ = ["register"]

EXIT_WORSE = 1


def _matrix(args: argparse.Namespace) -> ScoreMatrix:
    """The matrix DATA asks for; --lower-is-better overrides the declared direction."""
    df = load_data(args.data)
    m = build_matrix(df, benchmark=args.benchmark, metric=args.metric)
    higher = not args.lower_is_better and declared_higher_is_better(args.data, df, m.benchmark,
                                                                    m.metric)
    return m if higher else replace(m, higher_is_better=False)


def _test_options(args: argparse.Namespace) -> dict[str, Any]:
    return {"test": args.test, "alpha": args.alpha, "correction": args.correction,
            "criterion": args.criterion, "paired": {"auto": None, "yes": True, "no": False}[args.paired],
            "n_resamples": args.n_resamples, "rng": args.seed}


def _add_test_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--alpha", type=float, default=0.05, help="significance level (default 0.05)")
    p.add_argument("--correction", choices=CORRECTIONS, default="holm-sidak")
    p.add_argument("--test", choices=TESTS, default="auto", help="default: chosen from the data")
    p.add_argument("--criterion", choices=CRITERIA, default="pvalue",
                   help="significant by adjusted p-value or by effect size small/medium/large")
    p.add_argument("--paired", choices=["auto", "yes", "no"], default="auto")
    p.add_argument("--lower-is-better", action="store_true", help="metric direction")
    p.add_argument("--n-resamples", type=int, default=9999, help="permutation test resamples")
    p.add_argument("--seed", type=int, default=0, help="seed of random procedures")


def _leaderboard(args: argparse.Namespace) -> int:
    lb = leaderboard(_matrix(args), min_clique_size=args.min_clique_size, anchor=args.anchor,
                     **_test_options(args))
    emit(lb.to_dict(), lb.table, args.format)
    if args.format == "table":
        print(f"\n{lb.benchmark} / {lb.metric}: {lb.pairwise.reason}; "
              f"{lb.pairwise.correction} at alpha {lb.pairwise.alpha}")
        for note in lb.notes:
            print(f"note: {note}")
    return 0


def _pairwise(args: argparse.Namespace) -> int:
    res = pairwise_tests(_matrix(args), compare=args.compare, alternative=args.alternative,
                         **_test_options(args))
    payload = {"benchmark": res.benchmark, "metric": res.metric, "paired": res.paired,
               "test": res.test, "reason": res.reason, "alpha": res.alpha,
               "correction": res.correction, "compare": res.compare,
               "alternative": res.alternative, "notes": list(res.notes),
               "pairs": res.table.to_dict(orient="records")}
    emit(payload, res.table, args.format)
    return 0


def _compare(args: argparse.Namespace) -> int:
    m = _matrix(args)
    res = pairwise_tests(m, order=[args.baseline, args.candidate], compare="first",
                         **_test_options(args))
    row = res.table.iloc[0]
    worse = bool(row["significant"]) and bool(row["a_better"])
    better = bool(row["significant"]) and not bool(row["a_better"])
    verdict = ("significantly worse" if worse else "significantly better" if better
               else "not significantly different")
    payload = {"benchmark": res.benchmark, "metric": res.metric, "baseline": args.baseline,
               "candidate": args.candidate, "test": res.test, "paired": res.paired,
               "mean_baseline": row["mean_a"], "mean_candidate": row["mean_b"],
               "diff": row["mean_b"] - row["mean_a"], "pvalue": row["pvalue"],
               "effect_size": -row["effect_size"], "n": row["n"], "verdict": verdict,
               "worse": worse}
    if args.format == "json":
        emit(payload, None, "json")
    else:
        sys.stdout.write(
            f"{args.candidate} vs {args.baseline} on {res.benchmark}/{res.metric}: {verdict} "
            f"(mean {row['mean_b']:.4g} vs {row['mean_a']:.4g}, {res.test}, p = "
            f"{row['pvalue']:.4g}, n = {row['n']})\n")
    return EXIT_WORSE if worse else 0


def register(sub: Any) -> None:
    """Add the statistics commands to the ``python -m engine`` parser."""
    p = sub.add_parser("leaderboard", help="ranked table with significance groups")
    add_data_options(p)
    _add_test_options(p)
    p.add_argument("--min-clique-size", type=int, default=2)
    p.add_argument("--anchor", help="system whose Elo rating is fixed at 1000")
    p.set_defaults(handler=_leaderboard)

    p = sub.add_parser("pairwise", help="tests for every pair of systems")
    add_data_options(p)
    _add_test_options(p)
    p.add_argument("--compare", choices=COMPARISONS, default="all")
    p.add_argument("--alternative", choices=ALTERNATIVES, default="two-sided")
    p.set_defaults(handler=_pairwise)

    p = sub.add_parser("compare", help="CI gate: exit 1 when the candidate is significantly worse")
    add_data_options(p)
    _add_test_options(p)
    p.add_argument("--baseline", required=True)
    p.add_argument("--candidate", required=True)
    p.set_defaults(handler=_compare, correction="none")


