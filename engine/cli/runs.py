"""``python -m engine power``: how many examples and runs a comparison needs.

JSON: :func:`engine.cli._json.power_json` (``mdd, examples_needed, runs_needed, power``, …).
"""

from __future__ import annotations

import argparse
from typing import Any

from ._common import add_data_options, emit, load_data, wants_json
from ._json import power_json
from ._options_flags import add_alpha
from ._text import fmt_number

__all__ = ["register"]


def _power(args: argparse.Namespace) -> int:
    from .._matrix import pick_slice
    from .._options import TestOptions
    from ..stats._power import power

    loaded = load_data(args.data)
    bench, met = pick_slice(loaded.frame, args.benchmark, args.metric)
    res = power(loaded.frame, benchmark=bench, metric=met, difference=args.difference,
                examples=args.examples, runs=args.runs, n_sim=args.n_sim, rng=args.seed,
                options=TestOptions(alpha=args.alpha), target_power=args.target_power,
                spec=loaded.spec(bench, met))
    payload = power_json(res)
    if wants_json(args):
        emit(payload, None, "json")
        return 0
    import pandas as pd

    table = pd.DataFrame({"test": list(res.power),
                          "power": [res.power[k] for k in res.power],
                          "mc_se": [res.mc_se.get(k) for k in res.power]})
    needed = {"examples": res.examples_needed, "runs": res.runs_needed}
    print(f"{bench} / {met}: minimum detectable difference {fmt_number(res.mdd)} "
          f"(alpha {res.alpha}, power {res.target_power}, {res.examples} examples × "
          f"{res.runs} run(s)): where the default test ({res.default_test}) reaches that power "
          f"in {res.n_sim} simulations; closed-form approximation "
          f"{fmt_number(res.mdd_closed_form)}")
    for what, n in needed.items():
        shown = "no number suffices (the other source of noise alone is too large)" \
            if n is None else str(n)
        print(f"{what} needed for a difference of {fmt_number(res.difference)}: {shown}")
    print(f"\nsimulated power of each test ({res.n_sim} replications):")
    emit(payload, table, "table")
    return 0


def register(subparsers: Any) -> None:
    """Add ``power`` to the ``python -m engine`` parser."""
    p = subparsers.add_parser("power", help="minimum detectable difference, examples and runs "
                              "needed, simulated power of each test")
    add_data_options(p)
    p.add_argument("--difference", type=float, default=None,
                   help="true difference to plan for, in the metric's units (default: the MDD)")
    p.add_argument("--examples", type=int, default=None, help="examples (default: as observed)")
    p.add_argument("--runs", type=int, default=None, help="runs per example (default: as observed)")
    p.add_argument("--n-sim", type=int, default=1000, help="Monte Carlo replications (default 1000)")
    p.add_argument("--seed", type=int, default=0, help="seed of the simulation (default 0)")
    add_alpha(p, meaning="two-sided level")
    p.add_argument("--target-power", type=float, default=0.8,
                   help="power the planner aims at (default 0.8)")
    p.set_defaults(handler=_power)
