"""Commands ``leaderboard``, ``pairwise`` and ``compare``: files in, tables or JSON out."""

from __future__ import annotations

import argparse
import sys
from dataclasses import fields
from typing import TYPE_CHECKING, Any

from .._options import ALTERNATIVES, COMPARISONS, CORRECTIONS, CRITERIA, TESTS, TestOptions
from ._common import add_data_options, emit, load_data

if TYPE_CHECKING:
    from .._matrix import ScoreMatrix

__all__ = ["register"]

EXIT_WORSE = 1


def _matrix(args: argparse.Namespace) -> ScoreMatrix:
    """The matrix DATA asks for; --lower-is-better overrides the declared direction."""
    return load_data(args.data).matrix(args.benchmark, args.metric,
                                       lower_is_better=args.lower_is_better)


_PAIRED = {"auto": None, "yes": True, "no": False}


def _options(args: argparse.Namespace) -> TestOptions:
    """The :class:`TestOptions` the flags ask for (validated there, once)."""
    given = {f.name: getattr(args, f.name) for f in fields(TestOptions) if hasattr(args, f.name)}
    given["paired"] = _PAIRED[args.paired]
    return TestOptions(**given)


def _add_test_options(p: argparse.ArgumentParser) -> None:
    # Defaults come from TestOptions: the parser states none of its own (argparse.SUPPRESS
    # leaves a flag that was not given out of the namespace).
    d = TestOptions()
    p.add_argument("--alpha", type=float, default=argparse.SUPPRESS,
                   help=f"significance level (default {d.alpha})")
    p.add_argument("--correction", choices=CORRECTIONS, default=argparse.SUPPRESS,
                   help=f"multiplicity correction (default {d.correction})")
    p.add_argument("--test", choices=TESTS, default=argparse.SUPPRESS,
                   help="default: auto, chosen from the data")
    p.add_argument("--criterion", choices=CRITERIA, default=argparse.SUPPRESS,
                   help="significant by adjusted p-value (default) or also by effect size "
                   "small/medium/large")
    p.add_argument("--paired", choices=list(_PAIRED), default="auto")
    p.add_argument("--lower-is-better", action="store_true", help="metric direction")
    p.add_argument("--n-resamples", type=int, default=argparse.SUPPRESS,
                   help=f"permutation test resamples (default {d.n_resamples})")
    p.add_argument("--seed", type=int, default=argparse.SUPPRESS,
                   help=f"seed of random procedures (default {d.seed})")


def _leaderboard(args: argparse.Namespace) -> int:
    from .._leaderboard import leaderboard

    lb = leaderboard(_matrix(args), _options(args), min_clique_size=args.min_clique_size,
                     anchor=args.anchor)
    emit(lb.to_dict(), lb.table, args.format)
    if args.format == "table":
        print(f"\n{lb.benchmark} / {lb.metric}: {lb.pairwise.reason}; "
              f"{lb.pairwise.correction} at alpha {lb.pairwise.alpha}")
        for note in lb.notes:
            print(f"note: {note}")
    return 0


def _pairwise(args: argparse.Namespace) -> int:
    from .._pairwise import pairwise_tests

    res = pairwise_tests(_matrix(args), _options(args))
    payload = {"benchmark": res.benchmark, "metric": res.metric, "paired": res.paired,
               "test": res.test, "reason": res.reason, "alpha": res.alpha,
               "correction": res.correction, "compare": res.compare,
               "alternative": res.alternative, "notes": list(res.notes),
               "pairs": res.table.to_dict(orient="records")}
    emit(payload, res.table, args.format)
    return 0


def _compare(args: argparse.Namespace) -> int:
    from .._pairwise import pairwise_tests

    m = _matrix(args)
    res = pairwise_tests(m, _options(args).with_(compare="first"),
                         order=[args.baseline, args.candidate])
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
    p.add_argument("--compare", choices=COMPARISONS, default=argparse.SUPPRESS,
                   help="pairs to test (default all)")
    p.add_argument("--alternative", choices=ALTERNATIVES, default=argparse.SUPPRESS,
                   help="default two-sided")
    p.set_defaults(handler=_pairwise)

    p = sub.add_parser("compare", help="CI gate: exit 1 when the candidate is significantly worse")
    add_data_options(p)
    _add_test_options(p)
    p.add_argument("--baseline", required=True)
    p.add_argument("--candidate", required=True)
    p.set_defaults(handler=_compare, correction="none")


