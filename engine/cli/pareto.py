"""``sigboard pareto``: which systems may be the best trade-off of a score and a cost, with
confidence (:mod:`engine.products._pareto`).

JSON: ``systems`` (each ``system, score, score_low, score_high, cost, cost_low, cost_high,
status, dominated_by``; ``status`` is ``"possibly optimal"`` or ``"certainly dominated"``,
``dominated_by`` the systems whose boxes dominate it) and ``headline``; beside them
``benchmark, score_metric, cost_metric, confidence, per_interval_confidence, n_examples`` and
``prices`` (with ``--prices FILE``, the sentence saying the cost was computed from tokens at
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

__all__ = ["SYSTEM_KEYS", "pareto_json", "register"]

SYSTEM_KEYS = ("system", "score", "score_low", "score_high", "cost", "cost_low", "cost_high",
               "status", "dominated_by")
_HELP = ("the systems that may be the best trade-off of a score and a cost (Pareto set with "
         "simultaneous confidence boxes)")


def pareto_json(res: ParetoSet, prices: str | None) -> dict[str, Any]:
    """The JSON of ``sigboard pareto`` (keys: the module docstring)."""
    from ._json import records

    systems = records(res.table[[k for k in SYSTEM_KEYS if k != "dominated_by"]], finite=False)
    for row, by in zip(systems, res.table["dominated_by"], strict=True):
        row["dominated_by"] = list(by)
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
