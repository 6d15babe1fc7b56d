"""``sigboard ranks``: confidence sets for every system's rank and for the τ best.

JSON: :func:`engine.cli._json.rank_sets_json` (``benchmark, metric, cluster, kind, alpha, tau_best,
best_set, systems[{system, estimate, se, rank, rank_set_low, rank_set_high,
in_best_set, in_worst_set}]``).
"""

from __future__ import annotations

import argparse
from typing import Any

from ._common import add_data_options, emit, load_data, output_format, wants_json
from ._json import rank_sets_json
from ._options_flags import add_alpha

__all__ = ["register"]


def _cluster_labels(frame: Any, benchmark: str, metric: str, column: str,
                    examples: tuple[str, ...]) -> list[object]:
    """One cluster label per example of the matrix, from ``column`` of the long table."""
    if column not in frame.columns:
        raise ValueError(f"--cluster: column {column!r} not in DATA; columns: {list(frame.columns)!r}")
    part = frame[(frame["benchmark"] == benchmark) & (frame["metric"] == metric)]
    labels = part.groupby(part["example_id"].astype(str))[column].agg(["first", "nunique"])
    if (labels["nunique"] > 1).any():
        bad = labels.index[labels["nunique"] > 1][0]
        raise ValueError(f"--cluster: column {column!r} must hold one value per example; example "
                         f"{bad!r} has {int(labels.loc[bad, 'nunique'])} (fix the data)")
    return list(labels["first"].reindex(list(examples)))


def _ranks(args: argparse.Namespace) -> int:
    from .._options import TestOptions
    from ..ranking._mean_covariance import rank_sets_of

    loaded = load_data(args.data)
    matrix = loaded.matrix(args.benchmark, args.metric, lower_is_better=args.lower_is_better)
    cluster = None if args.cluster is None else _cluster_labels(
        loaded.frame, matrix.benchmark, matrix.metric, args.cluster, matrix.examples)
    res = rank_sets_of(matrix, kind=args.kind, options=TestOptions(alpha=args.alpha),
                       tau_best=args.tau_best,
                       tau_worst=args.tau_worst, cluster=cluster, n_draws=args.draws, rng=args.seed)
    payload = rank_sets_json(res, benchmark=matrix.benchmark, metric=matrix.metric,
                             cluster=args.cluster)
    if not wants_json(args):
        level = f"{1 - args.alpha:.0%}"
        best = ", ".join(res.best_set)
        which = "best system" if res.tau_best == 1 else f"{res.tau_best} best systems"
        print(f"{matrix.benchmark} / {matrix.metric}: {args.kind} {level} rank sets; the "
              f"{which} {'is' if res.tau_best == 1 else 'are'} among {{{best}}} ({level})")
    emit(payload, res.table, output_format(args))
    return 0


def register(subparsers: Any) -> None:
    """Add ``ranks`` to the ``sigboard`` parser."""
    p = subparsers.add_parser(
        "ranks", help="confidence sets for ranks (marginal or simultaneous) and for the τ best "
                      "(Mogstad, Romano, Shaikh & Wilhelm 2024)")
    add_data_options(p)
    p.add_argument("--kind", choices=["marginal", "simultaneous"], default="simultaneous",
                   help="simultaneous: all sets hold together (default); marginal: each on its own")
    p.add_argument("--tau-best", type=int, default=1, metavar="K",
                   help="confidence set for the K best systems (default 1: the best)")
    p.add_argument("--tau-worst", type=int, default=1, metavar="K",
                   help="confidence set for the K worst systems (default 1)")
    add_alpha(p, meaning="1 - coverage")
    p.add_argument("--cluster", default=None, metavar="COLUMN",
                   help="column of DATA grouping examples (cluster-robust covariance)")
    p.add_argument("--draws", type=int, default=1000, help="bootstrap draws (default 1000)")
    p.add_argument("--seed", type=int, default=0, help="seed of the bootstrap (default 0)")
    p.add_argument("--lower-is-better", action="store_true",
                   help="rank 1 = the lowest score (overrides the metric's declared direction)")
    p.set_defaults(handler=_ranks)
