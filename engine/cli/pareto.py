"""``sigboard pareto``: which systems may be the best trade-off of a score and a cost, with
confidence (:mod:`engine.products._pareto`).

JSON: ``systems`` (each ``system, score, score_low, score_high, cost, cost_low, cost_high,
status, dominated_by, cost_per_point, cost_per_point_low, cost_per_point_high`` and, for a
0/1 score, ``cost_per_success, cost_per_success_low, cost_per_success_high``: the system's
mean cost per percentage point of a 0/1 score (else per unit of score) and per success, each
with its interval at ``confidence`` for that system alone; ``status`` is ``"possibly
optimal"`` or ``"certainly dominated"``, ``dominated_by`` the systems whose boxes dominate
it) and ``headline``; beside them ``benchmark, score_metric, cost_metric, confidence,
per_interval_confidence, n_examples`` and ``prices`` (with ``--prices FILE``, the sentence saying
the cost was computed from tokens at
the user's prices; null otherwise).

Harness logs are read with their usage (tokens, times, cost: :mod:`engine.harness._usage`)
when the cost metric is not among their scores, so ``--cost latency_s`` works on an Inspect
log and ``--cost cost`` on a promptfoo output.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from ._common import add_format_option, emit, load_data, wants_json

if TYPE_CHECKING:
    from ..products._pareto import ParetoSet

__all__ = ["RATIO_KEYS", "SYSTEM_KEYS", "pareto_json", "register"]

SYSTEM_KEYS = ("system", "score", "score_low", "score_high", "cost", "cost_low", "cost_high",
               "status", "dominated_by")
#: per-system ratios (engine.products._pareto.RATIO_COLUMNS; cost_per_success* for a 0/1 score)
RATIO_KEYS = ("cost_per_success", "cost_per_success_low", "cost_per_success_high",
              "cost_per_point", "cost_per_point_low", "cost_per_point_high")
_HELP = ("the systems that may be the best trade-off of a score and a cost (Pareto set with "
         "simultaneous confidence boxes)")


def pareto_json(res: ParetoSet, prices: str | None) -> dict[str, Any]:
    """The JSON of ``sigboard pareto`` (keys: the module docstring)."""
    from ._json import records

    keys = [k for k in (*SYSTEM_KEYS, *RATIO_KEYS) if k != "dominated_by" and k in res.table]
    systems = records(res.table[keys], finite=False)
    for row, by in zip(systems, res.table["dominated_by"], strict=True):
        row["dominated_by"] = list(by)
    order = [k for k in (*SYSTEM_KEYS, *RATIO_KEYS) if k in res.table]
    systems = [{k: row[k] for k in order} for row in systems]
    return {"benchmark": res.benchmark, "score_metric": res.score_metric,
            "cost_metric": res.cost_metric, "confidence": res.confidence,
            "per_interval_confidence": res.per_interval, "n_examples": res.n_examples,
            "systems": systems, "headline": res.headline, "prices": prices}


def _prices(path: str) -> Any:
    """The user's price table (CSV: system, input_price, output_price)."""
    import pandas as pd

    try:
        return pd.read_csv(path, dtype={"system": str})
    except (OSError, ValueError) as exc:
        raise ValueError(f"--prices {path}: cannot be read as CSV ({exc}); write a CSV with the "
                         "columns system, input_price, output_price (prices per token)") from None


def _pareto(args: argparse.Namespace) -> int:
    # harness logs with their usage metrics, read once in the capped child
    frame = load_data(args.data, meanwhile=("engine.products._pareto", "scipy.stats"),
                      usage=True).frame
    from ..products._pareto import cost_from_prices, pareto_set

    said = None
    if args.prices:
        frame = cost_from_prices(frame, _prices(args.prices), label=args.prices, metric=args.cost)
        said = (f"{args.cost} = tokens_in × input_price + tokens_out × output_price, the prices "
                f"per token from {args.prices} (as given, never fetched)")
    res = pareto_set(frame, args.score, args.cost, benchmark=args.benchmark,
                     confidence=1 - args.alpha, n_resamples=args.resamples, seed=args.seed)
    if wants_json(args):
        emit(pareto_json(res, said), None, "json")
        return 0
    from ._text import interval, table_text

    t = res.table
    import pandas as pd

    shown = pd.DataFrame({
        "system": t["system"], "status": t["status"], res.score_metric: t["score"],
        "score box": [interval(a, b) for a, b in zip(t["score_low"], t["score_high"], strict=True)],
        res.cost_metric: t["cost"],
        "cost box": [interval(a, b) for a, b in zip(t["cost_low"], t["cost_high"], strict=True)],
        "dominated by": [", ".join(d) or "-" for d in t["dominated_by"]]})
    unit = "percentage point" if res.zero_one else "point"
    if "cost_per_success" in t:
        shown["per success"] = [interval(a, b) for a, b in
                                zip(t["cost_per_success_low"], t["cost_per_success_high"], strict=True)]
    if "cost_per_point" in t:
        shown[f"per {unit}"] = [interval(a, b) for a, b in
                                zip(t["cost_per_point_low"], t["cost_per_point_high"], strict=True)]
    sys.stdout.write(
        f"{res.benchmark}: {res.score_metric} (higher is better) against {res.cost_metric} (lower "
        f"is better), {res.n_examples} examples; boxes at {res.per_interval:.4f} per interval "
        f"(Šidák over {2 * len(t)} intervals: {res.confidence:.0%} for all at once)\n"
        + table_text(shown) + "\n" + res.headline + "\n" + (f"{said}\n" if said else ""))
    return 0


def register(subparsers: Any) -> None:
    """Add ``pareto`` to the ``sigboard`` parser."""
    from ._options_flags import add_alpha

    p = subparsers.add_parser("pareto", help=_HELP)
    p.add_argument("data", nargs="+", metavar="DATA",
                   help="result file(s), harness output folder(s) or zip(s), or a store URL")
    p.add_argument("--score", required=True, metavar="METRIC",
                   help="the quality metric (higher is better)")
    p.add_argument("--cost", required=True, metavar="METRIC",
                   help="the cost metric (lower is better): cost, latency_ms, latency_s, "
                        "tokens_out, …")
    p.add_argument("--benchmark", help="benchmark to analyse (needed when DATA has several)")
    add_alpha(p, meaning="all the boxes hold at once with probability ≥ 1 − alpha")
    p.add_argument("--resamples", type=int, default=4999, metavar="B",
                   help="bootstrap resamples of each cost interval (default 4999)")
    p.add_argument("--seed", type=int, default=0, help="seed of the bootstrap (default 0)")
    p.add_argument("--prices", metavar="FILE",
                   help="CSV with columns system, input_price, output_price (per token): the "
                        "--cost metric is computed from each example's tokens_in and tokens_out")
    add_format_option(p)
    p.set_defaults(handler=_pareto)
