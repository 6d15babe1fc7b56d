"""``sigboard audit``: which differences of a public board are real, from its per-item results
(:mod:`engine.products._audit`, over the leaderboard of the same data and options).

DATA is a folder of per-system files (SWE-bench resolved lists, ``results.json`` or harness
reports, BigCodeBench ``eval_results.json``, LiveCodeBench-style per-problem records; read by
:mod:`engine.io._board`), one JSON object mapping each system to its resolved ids, or any
result file the other commands read (e.g. eval-arena's per-problem JSON Lines).

JSON: ``benchmark, metric, n_items, n_systems, test, alpha, correction, leader,
tied_with_leader`` (the systems not separable from #1), ``adjacent_separable,
adjacent_total, adjacent`` (each ``upper, lower, difference, separable``),
``top_split_half_stability`` (in [0, 1]) with ``split_half_se, split_half_splits,
split_half_seed``, ``smallest_separable_gap`` and ``smallest_separable_gap_uncorrected``
(each pair at alpha: eval-arena's ``p5_min``), ``rank_sets`` (each ``system, rank, mean,
group, rank_set_low, rank_set_high, in_best_set``), ``headline`` and ``notes``.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from ._common import add_format_option, emit, wants_json

if TYPE_CHECKING:
    from .._matrix import ScoreMatrix
    from ..products._audit import BoardAudit

__all__ = ["audit_json", "register"]

_HELP = ("audit a public board from its per-item results: ties with #1, separable adjacent "
         "ranks, rank sets, split-half stability of #1")


def audit_json(res: BoardAudit) -> dict[str, Any]:
    """The JSON of ``sigboard audit`` (keys: the module docstring)."""
    from ._json import board_rank_range, records

    board = res.board
    ranks = board_rank_range(board)
    table = board.table
    rank_sets = [{"system": str(s), "rank": int(r), "mean": float(m), "group": str(g),
                  "rank_set_low": int(lo), "rank_set_high": int(hi), "in_best_set": bool(b)}
                 for s, r, m, g, lo, hi, b in zip(
                     table["system"], table["rank"], table["mean"], table["group"],
                     ranks["rank_set_low"], ranks["rank_set_high"], ranks["in_best_set"],
                     strict=True)]
    return {"benchmark": board.benchmark, "metric": board.metric, "n_items": res.n_items,
            "n_systems": len(table), "test": board.test, "alpha": board.pairwise.alpha,
            "correction": board.pairwise.correction, "leader": res.leader,
            "tied_with_leader": list(res.tied_with_leader),
            "adjacent_separable": res.adjacent_separable, "adjacent_total": res.adjacent_total,
            "adjacent": records(res.adjacent, finite=True),
            "top_split_half_stability": res.top_split_half_stability,
            "split_half_se": res.split_half_se, "split_half_splits": res.n_splits,
            "split_half_seed": res.seed,
            "smallest_separable_gap": res.smallest_separable_gap,
            "smallest_separable_gap_uncorrected": res.smallest_separable_gap_uncorrected,
            "rank_sets": rank_sets, "headline": res.headline,
            "notes": list(board.notes) + list(board.groups.notes)}


def board_matrix(args: argparse.Namespace) -> ScoreMatrix:
    """DATA as one board's matrix: per-system board files, else any result file."""
    from .._matrix import build_matrix
    from ..io._board import read_board
    from ._common import load_data, upload_limits

    board = read_board(args.data, instances=args.instances, benchmark=args.benchmark,
                       limits=upload_limits(), isolated=True)
    if board is not None:
        return build_matrix(board.frame, spec=None)
    if args.instances is not None:
        raise ValueError(f"--instances: {args.data} is not a folder of per-system board files "
                         "(resolved lists or reports), so an item list does not apply; leave "
                         "--instances out for a results table")
    loaded = load_data([args.data], meanwhile=("engine.products._audit",))
    return loaded.matrix(args.benchmark, args.metric, lower_is_better=args.lower_is_better)


def _audit(args: argparse.Namespace) -> int:
    from ._stats_common import test_options

    opts = test_options(args)  # bad options fail before DATA is read
    matrix = board_matrix(args)
    from ..products._audit import audit_board

    res = audit_board(matrix, opts, n_splits=args.splits, seed=opts.seed)
    payload = audit_json(res)
    if wants_json(args):
        emit(payload, None, "json")
        return 0
    import pandas as pd

    from .._units import difference_text, score_text, zero_one
    from ._text import table_text

    percent = zero_one(matrix)
    rows = payload["rank_sets"]
    shown = pd.DataFrame({
        "system": [r["system"] for r in rows], "rank": [r["rank"] for r in rows],
        "rank set": [f"{r['rank_set_low']}–{r['rank_set_high']}"
                     if r["rank_set_low"] != r["rank_set_high"] else str(r["rank_set_low"])
                     for r in rows],
        "mean": [score_text(r["mean"], percent=percent) for r in rows],
        "group": [r["group"] for r in rows],
        "tied with #1": ["#1" if r["system"] == res.leader else
                         ("yes" if r["system"] in res.tied_with_leader else "no") for r in rows]})
    gap = res.smallest_separable_gap_uncorrected
    gap_text = "none" if gap is None else difference_text(gap, percent=percent, signed=False)
    sys.stdout.write(
        f"{payload['benchmark']} / {payload['metric']}: {payload['n_systems']} systems, "
        f"{payload['n_items']:,} items; {res.board.pairwise.reason}; "
        f"{payload['correction']} at alpha {payload['alpha']}\n" + table_text(shown) + "\n"
        f"adjacent ranks separable: {res.adjacent_separable} of {res.adjacent_total}\n"
        f"split-half stability of #1: {res.top_split_half_stability:.3f} "
        f"(± {res.split_half_se:.3f} Monte Carlo SE, {res.n_splits:,} splits, seed {res.seed})\n"
        f"smallest gap significant with each pair at alpha (uncorrected): {gap_text}\n"
        f"{res.headline}\n")
    return 0


def register(subparsers: Any) -> None:
    """Add ``audit`` to the ``sigboard`` parser."""
    from ._stats_common import add_test_options

    p = subparsers.add_parser("audit", help=_HELP)
    p.add_argument("data", metavar="DIR_OR_FILE",
                   help="folder of per-system files (SWE-bench resolved lists or reports, "
                        "BigCodeBench eval_results.json, per-problem records), a JSON object "
                        "{system: [resolved ids]}, or any result file")
    p.add_argument("--instances", metavar="FILE",
                   help="the board's full item list (JSON list or one id per line); default "
                        "instances.json or instances.txt in the folder")
    p.add_argument("--benchmark", help="benchmark name (default: the folder's name), or the "
                                       "benchmark to audit in a results table with several")
    p.add_argument("--metric", help="metric to audit in a results table with several")
    p.add_argument("--splits", type=int, default=1000, metavar="N",
                   help="random halves for the split-half stability of #1 (default 1000; "
                        "seeded by --seed)")
    add_test_options(p)
    add_format_option(p)
    p.set_defaults(handler=_audit)
