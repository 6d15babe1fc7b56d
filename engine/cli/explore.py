"""``mechanisms`` (rankings by mean, median, Bradley–Terry, Elo, TrueSkill and how they
disagree) and ``rank-intervals`` (Tukey rank intervals, the Mechanisms page's column).

The Tukey rank intervals take the means as independent, so they ignore the pairing, the
runs and the clusters; they are a different quantity from the rank range (``leaderboard``,
``ranks``: the rank confidence sets built on the page's pairwise tests) and are named apart
from it in the help, the JSON (``tukey_rank_low``, ``tukey_rank_high``) and the table.
"""

from __future__ import annotations

import argparse
from typing import Any

from ._common import add_data_options, emit, load_data, wants_json
from ._json import TUKEY_COLUMNS, mechanisms_json, rank_intervals_json
from ._options_flags import add_alpha

__all__ = ["register"]


def _matrix_args(args: argparse.Namespace) -> Any:
    return load_data(args.data).matrix(args.benchmark, args.metric,
                                       lower_is_better=args.lower_is_better)


def _mechanisms(args: argparse.Namespace) -> int:
    from ..ranking._mechanisms import CORE_MECHANISMS, mechanisms

    res = mechanisms(_matrix_args(args), rng=args.seed, n_permutations=args.n_permutations)
    payload = mechanisms_json(res)
    if wants_json(args):
        emit(payload, None, "json")
        return 0
    import pandas as pd

    n = len(res.scores)
    side = pd.DataFrame({"rank": range(1, n + 1),
                         **{m: list(res.rankings[m]) for m in CORE_MECHANISMS}})
    print(f"{res.benchmark} / {res.metric}: rankings by mechanism ({res.n_examples} shared "
          f"examples, {res.n_battles} decisive battles)")
    emit(payload, side, "table")
    core = [f"{a}|{b}" for i, a in enumerate(CORE_MECHANISMS) for b in CORE_MECHANISMS[i + 1:]]
    taus = ", ".join(f"{k} {res.kendall_tau[k]:.3f}" for k in core if k in res.kendall_tau)
    print(f"\nKendall tau: {taus}")
    print(f"winner differs: {'yes' if res.winner_differs else 'no'}; "
          f"top 3 differs: {'yes' if res.top3_differs else 'no'}")
    return 0


def _rank_intervals(args: argparse.Namespace) -> int:
    from .._options import TestOptions
    from ..ranking._rank_intervals import rank_intervals_of

    res = rank_intervals_of(_matrix_args(args), options=TestOptions(alpha=args.alpha),
                            rng=args.seed)
    payload = rank_intervals_json(res)
    if wants_json(args):
        emit(payload, None, "json")
        return 0
    emit(payload, res.table.rename(columns=TUKEY_COLUMNS), "table")
    print(f"\nTukey rank intervals at {1 - res.alpha:.0%} (critical value "
          f"{res.critical_value:.4g}), from each mean and its standard error taken as "
          "independent: the pairing, runs and clusters are ignored, so they differ from the "
          "rank range (`sigboard leaderboard`, `sigboard ranks`), which is built on the "
          "pairwise tests")
    return 0


def register(subparsers: Any) -> None:
    """Add ``mechanisms`` and ``rank-intervals`` to the ``python -m engine`` parser."""
    p = subparsers.add_parser("mechanisms", help="rankings by mean, median, Bradley–Terry, Elo "
                              "and TrueSkill side by side, and how much they disagree")
    add_data_options(p)
    p.add_argument("--lower-is-better", action="store_true", help="metric direction")
    p.add_argument("--seed", type=int, default=0, help="seed of the battle orders (default 0)")
    p.add_argument("--n-permutations", type=int, default=100,
                   help="battle orders averaged for Elo (default 100)")
    p.set_defaults(handler=_mechanisms)

    p = subparsers.add_parser("rank-intervals", help="Tukey rank intervals from independent "
                              "means (the Mechanisms page's column; the rank range is in "
                              "leaderboard and ranks)")
    add_data_options(p)
    p.add_argument("--lower-is-better", action="store_true", help="metric direction")
    add_alpha(p, meaning="1 − confidence")
    p.add_argument("--seed", type=int, default=0, help="seed of the critical value's "
                   "simulation when standard errors differ (default 0)")
    p.set_defaults(handler=_rank_intervals)
