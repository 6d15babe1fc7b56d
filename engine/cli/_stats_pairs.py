"""Command ``pairwise``: tests for every pair of systems, or combined ``--across`` metrics or
benchmarks."""

from __future__ import annotations

import argparse
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from .._options import ALTERNATIVES, COMPARISONS, TestOptions
from .._units import zero_one
from ._common import Loaded, add_data_options, emit, load_data, wants_json
from ._json import pairwise_json
from ._lists import LIST_HELP, floats, names
from ._stats_common import add_test_options, cluster_design, matrix_of, test_options
from ._text import interval
from .judge import add_judge_options, judge_as_metric

if TYPE_CHECKING:
    import pandas as pd

    from .._matrix import ScoreMatrix
    from ..stats._pairwise import PairwiseTests

__all__ = ["register"]

SORTS = ("pvalue", "pair", "effect")


def _sorted_pairs(table: pd.DataFrame, sort: str) -> pd.DataFrame:
    if sort == "pair":
        return table
    if sort == "effect":
        key = table["effect_size"].abs()
        return table.assign(_k=key).sort_values("_k", ascending=False, kind="stable",
                                               na_position="last").drop(columns="_k")
    return table.sort_values(["pvalue_adj", "pvalue"], kind="stable", na_position="last")


def _pair_rows(table: pd.DataFrame, *, percent: bool = False) -> pd.DataFrame:
    """The columns a reader needs: n, difference with its interval, test, p-values, effect;
    ``percent`` (a 0/1 metric, :func:`engine._units.zero_one`): the difference and its
    interval in percentage points, as the pages and ``compare`` write them."""
    import pandas as pd

    from .._units import difference_text, interval_text

    bounds = zip(table["ci_low"], table["ci_high"], strict=True)
    return pd.DataFrame({
        "system_a": table["system_a"], "system_b": table["system_b"], "n": table["n"],
        "paired": table["paired"],
        "difference": [difference_text(d, percent=True) for d in table["difference"]]
        if percent else table["difference"],
        "ci": [interval_text(lo, hi, percent=True, difference=True) if percent
               else interval(lo, hi) for lo, hi in bounds],
        "test": table["test"], "pvalue": table["pvalue"], "pvalue_adj": table["pvalue_adj"],
        "effect_size": table["effect_size"], "effect": table["effect_name"],
        "significant": table["significant"],
    })


def _judged(args: argparse.Namespace, loaded: Loaded, matrix: ScoreMatrix,
            res: PairwiseTests) -> tuple[PairwiseTests, dict[str, Any] | None]:
    """On a judge metric with human labels (--human, the store's judge-link or a human_*
    metric, :func:`engine.cli.judge.judge_board_of`; ``--human -``: the judge's own) the PPI++
    pair rows of ``leaderboard --judge`` and the compare gate, with the ``judge`` part of the
    JSON; else ``res`` and None. The judge's own rows stay, with the reason, where the labels
    cannot serve PPI++, the examples are clustered or only some pairs are asked for."""
    import numpy as np

    from ..products._judge import IPW_METHOD, METHOD
    from ..products._overall_judge import judged_note, judged_pairwise
    from .judge import judge_board_of

    found = judge_board_of(loaded, matrix.benchmark, matrix.metric, args.human,
                           options=res.options, higher_is_better=matrix.higher_is_better)
    if found is None:
        return res, None
    human, board = found
    why = (f"the human labels of {human!r} cannot serve PPI++: {board}" if isinstance(board, str)
           else "the examples are clustered, and PPI++ treats them as independent"
           if res.clusters is not None else
           f"--compare {res.compare}: PPI++ pair tests are adjusted over all pairs"
           if res.compare != "all" else None)
    if why is not None or isinstance(board, str):
        return res, {"human_metric": human, "ppi": False,
                     "note": f"the judge's own scores: {why}"}
    judged = judged_pairwise(res, board, 1.0 if matrix.higher_is_better else -1.0)
    t = judged.table.assign(statistic=np.nan, df=np.nan, effect_size=np.nan, effect_name="")
    note = judged_note(board)
    # the text footer already names "benchmark / metric:", so the reason leaves it out
    reason = note.removeprefix(f"{board.benchmark}: ")
    return replace(judged, table=t, test="ppi++", reason=reason), {
        "human_metric": human, "ppi": True, "note": note,
        "method": METHOD if board.inclusion is None else METHOD + IPW_METHOD}


def _pairwise(args: argparse.Namespace) -> int:
    if args.across is not None:
        return _pairwise_across(args)
    from ..stats._pairwise import pairwise_tests

    judge_as_metric(args, "tested")  # --judge J: the tested metric is J (as compare)
    loaded = load_data(args.data)
    matrix = matrix_of(args, loaded)
    res = pairwise_tests(matrix, test_options(args), cluster=cluster_design(args, loaded, matrix))
    res, judge = _judged(args, loaded, matrix, res)
    table = res.table
    if args.sort is not None or not wants_json(args):
        table = _sorted_pairs(table, args.sort or "pvalue")
    payload = pairwise_json(res, table, judge)
    if wants_json(args):
        emit(payload, None, "json")
        return 0
    emit(payload, _pair_rows(table, percent=zero_one(matrix)), "table")
    print(f"\n{res.benchmark} / {res.metric}: {res.reason}; {res.correction} at alpha "
          f"{res.alpha}; difference = system_a − system_b (positive = system_a better), "
          f"interval at {1 - res.alpha:.0%}")
    for note in res.notes:
        print(f"note: {note}")
    if judge is not None:  # n of a PPI++ row: the examples labelled for both systems
        print(f"note: {'n = examples labelled for both' if judge['ppi'] else judge['note']}")
    return 0


def _across_results(loaded: Loaded, args: argparse.Namespace,
                    options: TestOptions) -> list[PairwiseTests]:
    """One pairwise result per metric of the benchmark, or per benchmark."""
    from .._matrix import build_matrix, pick_slice
    from ..stats._pairwise import pairwise_tests

    df = loaded.frame
    if args.across == "metrics":
        benches = [str(b) for b in df["benchmark"].unique()]
        bench = args.benchmark or (benches[0] if len(benches) == 1 else None)
        if bench is None or bench not in benches:
            raise ValueError(f"--benchmark: --across metrics combines the metrics of one "
                             f"benchmark; choose one of {len(benches)} "
                             f"({', '.join(benches[:5])}{', …' if len(benches) > 5 else ''})"
                             + (f"; got {bench!r}" if bench is not None else ""))
        metrics = names(args.metrics, "--metrics") or [
            str(m) for m in df.loc[df["benchmark"] == bench, "metric"].unique()]
        slices = [(bench, m) for m in metrics]
    else:
        benches = names(args.benchmarks, "--benchmarks") or [
            str(b) for b in df["benchmark"].unique()]
        slices = [pick_slice(df, b, args.metric) for b in benches]
    if len(slices) < 2:
        raise ValueError(f"--across {args.across}: DATA has one {args.across[:-1]} here "
                         f"({slices[0][0]}/{slices[0][1]}); drop --across")
    results = []
    for bench, met in slices:
        spec = loaded.spec(bench, met)
        if args.lower_is_better:
            spec = replace(spec, higher_is_better=False)
        results.append(pairwise_tests(build_matrix(df, benchmark=bench, metric=met, spec=spec),
                                      options))
    return results


def _pairwise_across(args: argparse.Namespace) -> int:
    from ..across._pairs_across import pairs_across

    loaded = load_data(args.data)
    results = _across_results(loaded, args, test_options(args))
    weights = floats(args.weights, "--weights")
    pairs = pairs_across(results, across=args.across, weights=weights)
    if args.sort == "pair":
        order: dict[str, int] = {}
        for r in results:
            for name in r.systems:
                order.setdefault(name, len(order))
        pairs = pairs.assign(_a=pairs["system_a"].map(order), _b=pairs["system_b"].map(order)) \
            .sort_values(["_a", "_b"], kind="stable").drop(columns=["_a", "_b"])
    elif args.sort == "effect":
        pairs = pairs.assign(_k=pairs["effect"].abs()).sort_values(
            "_k", ascending=False, kind="stable", na_position="last").drop(columns="_k")
    units = [r.metric if args.across == "metrics" else r.benchmark for r in results]
    payload = {"across": args.across,
               "benchmarks": list(dict.fromkeys(r.benchmark for r in results)),
               "metrics": list(dict.fromkeys(r.metric for r in results)), "units": units,
               "alpha": results[0].alpha, "alternative": results[0].alternative,
               "pairs": pairs.to_dict(orient="records")}
    if wants_json(args):
        emit(payload, None, "json")
        return 0
    import pandas as pd

    shown = pd.DataFrame({
        "system_a": pairs["system_a"], "system_b": pairs["system_b"], "p_hmp": pairs["p_hmp"],
        "p_hmp_adj": pairs["p_hmp_adj"], "effect": pairs["effect"],
        "effect_ci": [interval(lo, hi) for lo, hi in zip(pairs["effect_ci_low"],
                                                         pairs["effect_ci_high"], strict=True)],
        "i2": pairs["i2"], "significant": pairs["significant"]})
    emit(payload, shown, "table")
    print(f"\nCombined across {args.across} ({', '.join(units)}): harmonic mean p (Landau-exact); "
          f"significant when p_hmp_adj < {results[0].alpha}; effect = pooled standardised "
          "difference, positive = system_a better")
    return 0


def register(sub: Any) -> None:
    """Add ``pairwise`` to the ``python -m engine`` parser."""
    p = sub.add_parser("pairwise", help="tests for every pair of systems (or combined across "
                       "metrics/benchmarks with --across)")
    add_data_options(p)
    add_test_options(p)
    p.add_argument("--compare", choices=COMPARISONS, default=argparse.SUPPRESS,
                   help="pairs to test (default all)")
    p.add_argument("--alternative", choices=ALTERNATIVES, default=argparse.SUPPRESS,
                   help="default two-sided")
    p.add_argument("--sort", choices=SORTS, default=None,
                   help="row order: adjusted p-value (the table's default), pair (system "
                   "order; JSON's default), or effect size (largest first)")
    p.add_argument("--across", choices=["metrics", "benchmarks"], default=None,
                   help="combine each pair's p-values across the metrics of one benchmark or "
                   "across benchmarks (harmonic mean p) and pool the effect sizes")
    p.add_argument("--metrics", action="append",
                   help="with --across metrics: metrics to combine, M1,M2,…" + LIST_HELP)
    p.add_argument("--benchmarks", action="append",
                   help="with --across benchmarks: benchmarks to combine, B1,B2,…" + LIST_HELP)
    p.add_argument("--weights", action="append",
                   help="with --across: weights of the metrics/benchmarks, w1,w2,…")
    p.add_argument("--cluster", help="per-example column (e.g. passage, task family): "
                   "cluster-robust paired t on every pair (CR2, Bell-McCaffrey df), 0/1 included; "
                   "JSON n_clusters and design_effect. Default with a store: the "
                   "benchmark's declared cluster column; '-': none")
    add_judge_options(p)
    p.set_defaults(handler=_pairwise)
