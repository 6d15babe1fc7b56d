"""Commands ``leaderboard`` and ``overall``: the ranked tables of one benchmark and across."""

from __future__ import annotations

import argparse
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from .._options import COMPARISONS
from .._units import interval_text, score_text, zero_one
from ._common import NO_CLUSTER, Loaded, add_data_options, emit, load_data, wants_json
from ._json import board_rank_range, leaderboard_json, overall_json
from ._lists import LIST_HELP, floats, names
from ._stats_common import (
    SHOWN_CLIQUES,
    add_test_options,
    cluster_design,
    matrix_of,
    missing_warnings,
    test_options,
    write_report,
)
from ._text import fmt_number, interval
from .judge import add_judge_options

if TYPE_CHECKING:
    from collections.abc import Sequence

    import pandas as pd

    from ..products._leaderboard import Leaderboard

__all__ = ["register_leaderboard", "register_overall"]


def _leaderboard_rows(lb: Leaderboard, *, percent: bool = False) -> pd.DataFrame:
    """The leaderboard for reading: intervals in brackets next to their estimates, the rank
    range the JSON and the pages give (the rank set, :func:`board_rank_range`); ``percent``
    (a 0/1 metric, :func:`engine._units.zero_one`): the mean and its interval in percent, as
    the pages write them."""
    import pandas as pd

    table, ranks = lb.table, board_rank_range(lb)
    shown = pd.DataFrame({"system": table["system"], "rank": table["rank"],
                          "rank_low": ranks["rank_set_low"].to_numpy(),
                          "rank_high": ranks["rank_set_high"].to_numpy(),
                          "group": table["group"], "mean": table["mean"]})
    shown["ci"] = [interval(lo, hi) for lo, hi in zip(table["ci_low"], table["ci_high"],
                                                      strict=True)]
    if percent:
        shown["mean"] = [score_text(m, percent=True) for m in table["mean"]]
        shown["ci"] = [interval_text(lo, hi, percent=True)
                       for lo, hi in zip(table["ci_low"], table["ci_high"], strict=True)]
    for c in ("n", "runs", "win_rate", "bt_strength"):
        shown[c] = table[c]
    if "bt_low" in table.columns:
        shown["bt_ci"] = [interval(lo, hi) for lo, hi in zip(table["bt_low"], table["bt_high"],
                                                             strict=True)]
    shown["elo"] = table["elo"].round(0)
    return shown


def _leaderboard(args: argparse.Namespace) -> int:
    if args.judge or args.human:  # a judge metric with human labels: PPI++
        from .judge import judge_leaderboard
        from .judge_battles import battle_frame, judge_battle_leaderboard

        battles = battle_frame(args.data)
        if battles is not None:  # a judged battle list: PPI++ Bradley-Terry
            return judge_battle_leaderboard(args, battles)
        if not args.judge:
            raise ValueError("--human: needs --judge (the judge metric it labels)")
        return judge_leaderboard(args)
    fmt = None
    if args.report:  # a bad name fails before the work (the reports import scipy: not before)
        from ..report._reports import report_format

        fmt = report_format(args.report)
    if args.bt_resamples is not None and args.bt_resamples < 0:
        raise ValueError(f"--bt-resamples: must be 0 or more; got {args.bt_resamples}")
    # the statistics imported while the capped child reads DATA
    loaded = load_data(args.data, meanwhile=("engine.products._leaderboard",))
    from ..products._leaderboard import leaderboard

    matrix = matrix_of(args, loaded)
    design = cluster_design(args, loaded, matrix)
    lb = leaderboard(matrix, test_options(args), min_clique_size=args.min_clique_size,
                     anchor=args.anchor, bt_resamples=args.bt_resamples, cluster=design)
    if args.report and fmt is not None:
        from ..report._reports import leaderboard_report

        write_report(args.report, leaderboard_report(lb, fmt=fmt))
    # above the table: informative missingness, unpaired tests no test keeps alpha on (the
    # pairwise result's warnings), and that no pair can be significant at all
    warnings = [*missing_warnings(matrix), *lb.pairwise.warnings]
    if lb.pairwise.resolution is not None and not lb.pairwise.resolution.can_separate:
        from .._notes import Note

        warnings.append(Note("cannot-separate", lb.pairwise.resolution.message))
    if wants_json(args):
        emit(leaderboard_json(lb, warnings), None, "json")
        return 0
    emit({}, _leaderboard_rows(lb, percent=zero_one(matrix)), "table")
    for warning in warnings:  # right under the table
        if warning.kind != "cannot-separate":  # that sentence is also a note below
            print(f"warning: {warning.text}")
    print(f"\n{lb.benchmark} / {lb.metric}: {lb.pairwise.reason}; "
          f"{lb.pairwise.correction} at alpha {lb.pairwise.alpha}")
    if lb.cliques:
        print(f"Systems that cannot be told apart ({len(lb.cliques)} maximal group(s) of "
              f"≥ {args.min_clique_size}):")
        for i, clique in enumerate(lb.cliques[:SHOWN_CLIQUES]):
            print(f"  {i + 1}. {', '.join(clique)}")
        if len(lb.cliques) > SHOWN_CLIQUES:
            more = "" if lb.groups.complete else " or more"
            print(f"  … {len(lb.cliques) - SHOWN_CLIQUES}{more} more (--format json lists "
                  f"{'them all' if lb.groups.complete else 'the first ' + str(len(lb.cliques))})")
    else:
        print("Every pair of systems differs significantly: no group of indistinguishable "
              "systems.")
    for note in (*lb.notes, *lb.groups.notes):  # a capped clique list is noted in groups
        print(f"note: {note}")
    return 0

def _overall_missing(loaded: Loaded, benchmarks: Sequence[str], metrics: list[str] | None,
                     lower_is_better: bool) -> list[str]:
    """Informative missingness on each benchmark and metric the Overall combines."""
    frame = loaded.frame
    out = []
    for bench in benchmarks:
        present = frame.loc[frame["benchmark"] == bench, "metric"].unique()
        for met in sorted(str(m) for m in present if metrics is None or m in metrics):
            matrix = loaded.matrix(bench, met, lower_is_better=lower_is_better)
            out += [f"{bench}/{met}: {w.text}" for w in missing_warnings(matrix)]
    return out


def _overall_clusters(loaded: Loaded, benchmarks: Sequence[str], given: str | None
                      ) -> tuple[pd.DataFrame, str | dict[str, str] | None]:
    """The table Overall reads and its clusters: ``--cluster COL`` for every benchmark
    (``-``: none); without it, from a store, each benchmark's declared cluster column, the
    store's example attribute joined onto that benchmark's rows."""
    if given is not None or loaded.url is None:
        return loaded.frame, None if given in (None, NO_CLUSTER) else given
    declared = {b: c for b in benchmarks if (c := loaded.cluster_column(b, None))}
    frame = loaded.frame.copy()
    for bench, column in declared.items():
        rows = loaded.with_attribute(bench, column)
        if column in rows.columns:  # merge(how="left") keeps the benchmark's row order
            if column not in frame.columns:
                frame[column] = None
            frame.loc[frame["benchmark"] == bench, column] = rows[column].to_numpy()
    return frame, declared or None


def _overall_judges(loaded: Loaded, benchmarks: Sequence[str], metrics: list[str] | None,
                    args: argparse.Namespace) -> tuple[dict[str, Any], list[str]]:
    """The judge boards of the benchmarks whose one metric has human labels, as the
    Leaderboard uses them, and a note for each whose labels cannot serve PPI++."""
    from ..products._overall_parts import choose_overall
    from .judge import judge_board_of

    chosen, per = choose_overall(loaded.frame, list(benchmarks), metrics)
    opts = test_options(args)
    boards: dict[str, Any] = {}
    refused = []
    for bench in chosen:
        if len(per[bench]) != 1:
            continue  # an aggregate of several metrics: the judge's own scores
        found = judge_board_of(loaded, bench, per[bench][0], None, options=opts,
                               higher_is_better=not args.lower_is_better)
        if found is None:
            continue
        if isinstance(found[1], str):
            refused.append(f"{bench}: the judge's own scores (its human labels cannot serve "
                           f"PPI++: {found[1]})")
        else:
            boards[bench] = found[1]
    return boards, refused


def _overall(args: argparse.Namespace) -> int:
    if args.model == "irt":  # every system, on a joint model of the results matrix
        given = [flag for flag, value in (("--weights", args.weights), ("--order", args.order))
                 if value]
        if given:
            raise ValueError(f"{', '.join(given)}: not used by --model irt (it weighs each "
                             "benchmark by its examples); leave it out or use --model block")
        from ._overall_joint import overall_joint

        return overall_joint(args)
    from ..across._coverage import coverage_groups, default_selection
    from ..products._overall import overall

    loaded = load_data(args.data)
    specs = loaded.all_specs()
    if args.lower_is_better:
        specs = {k: replace(v, higher_is_better=False) for k, v in specs.items()}
    benchmarks = names(args.benchmarks, "--benchmarks")
    rule = None
    if benchmarks is None:  # the pages' first view: the largest complete block
        selection = default_selection(loaded.frame)
        benchmarks, rule = list(selection.benchmarks), selection.rule
    frame, clusters = _overall_clusters(loaded, benchmarks, args.cluster)
    metrics = names(args.metrics, "--metrics")
    judges, refused = _overall_judges(loaded, benchmarks, metrics, args)
    res = overall(frame, benchmarks=benchmarks, metrics=metrics,
                  weights=floats(args.weights, "--weights"), specs=specs,
                  options=test_options(args), order=names(args.order, "--order"),
                  cluster=clusters, judges=judges)
    payload = overall_json(res, notes=refused, selection_rule=rule, warnings=_overall_missing(
        loaded, res.benchmarks, metrics, args.lower_is_better))
    if wants_json(args):
        emit(payload, None, "json")
        return 0
    import pandas as pd

    rows = []
    for s in payload["systems"]:
        if s["rank"] is None:
            continue
        row = {"system": s["system"], "rank": s["rank"], "rank_low": s["rank_low"],
               "rank_high": s["rank_high"], "group": s["group"], res.scale.label: s["score"],
               "ci": interval(s["ci_low"], s["ci_high"])}
        for b, cell in s["cells"].items():
            row[b] = "" if cell["mean"] is None else f"{fmt_number(cell['mean'])} {cell['group']}"
        rows.append(row)
    print(f"{payload['headline']}\n")
    for warning in payload["warnings"]:
        print(f"warning: {warning}")
    emit(payload, pd.DataFrame(rows), "table")
    print(f"\n{res.scale.label}: {res.scale.explanation} Per-benchmark columns: the benchmark's "
          "own mean and group letters there (a judge metric with human labels: its PPI++ "
          "estimate, see the notes).")
    if rule is not None:
        print(f"benchmarks: {', '.join(res.benchmarks)} — default selection: {rule} "
              "(--benchmarks to choose)")
    partial = {str(r["system"]): tuple(r["coverage"]) for r in res.unranked.to_dict("records")}
    for ran, systems in coverage_groups(partial, res.benchmarks):
        print(f"not ranked — ran {len(ran)} of {len(res.benchmarks)} ({', '.join(ran)}): "
              f"{', '.join(systems)}")
    for i, clique in enumerate(res.cliques[:SHOWN_CLIQUES]):
        print(f"  {i + 1}. {', '.join(clique)}")
    if len(res.cliques) > SHOWN_CLIQUES:
        print(f"  … {len(res.cliques) - SHOWN_CLIQUES} more (--format json lists them all)")
    for note in payload["notes"]:
        print(f"note: {note}")
    return 0


def register_leaderboard(sub: Any) -> None:
    """Add ``leaderboard`` to the ``python -m engine`` parser."""
    p = sub.add_parser("leaderboard", help="ranked table with significance groups")
    add_data_options(p)
    add_test_options(p)
    p.add_argument("--min-clique-size", type=int, default=2)
    p.add_argument("--anchor", help="system whose Elo rating is fixed at 1000")
    p.add_argument("--bt-resamples", type=int, default=None, metavar="N",
                   help="intervals of Bradley-Terry, Elo and win rate: by default sandwich "
                   "(one pass); N > 0 bootstraps N resamples (refits each), 0 leaves them out")
    p.add_argument("--report", metavar="FILE", help="also write a report: FILE.html "
                   "(self-contained, charts inline) or FILE.md (Markdown tables)")
    p.add_argument("--cluster", help="per-example column (e.g. passage, task family): "
                   "cluster-robust tests, intervals, groups and rank ranges (CR2, Bell-McCaffrey "
                   "df); JSON n_clusters and design_effect. Default with a store: the "
                   "benchmark's declared cluster column; '-': none")
    add_judge_options(p)
    p.set_defaults(handler=_leaderboard)


def register_overall(sub: Any) -> None:
    """Add ``overall`` to the ``python -m engine`` parser."""
    p = sub.add_parser("overall", help="one leaderboard across benchmarks and metrics")
    add_data_options(p)
    add_test_options(p)
    p.add_argument("--compare", choices=COMPARISONS, default=argparse.SUPPRESS,
                   help="all pairs two-sided (default), or the set of --order one-sided")
    p.add_argument("--order", action="append", help="with --compare first|successive: the order "
                   "fixed before looking at the results, S1,S2,… (e.g. the champion first)" + LIST_HELP)
    p.add_argument("--benchmarks", action="append", help="benchmarks to combine, B1,B2,… (default: "
                   "the largest block of systems that ran all of them)" + LIST_HELP)
    p.add_argument("--metrics", action="append", help="metrics to aggregate on each benchmark, "
                   "M1,M2,… (default all)" + LIST_HELP)
    p.add_argument("--weights", action="append", help="weights of --metrics, w1,w2,… (default equal)")
    p.add_argument("--cluster", help="per-example column (e.g. passage): each benchmark whose rows "
                   "give it is tested cluster-robustly (CR2); the notes give its clusters and "
                   "design effect. Default with a store: each benchmark's declared cluster "
                   "column; '-': none")
    p.add_argument("--model", choices=("block", "irt"), default="block",
                   help="block (default): rank the systems that ran every selected benchmark; "
                   "irt: rank every system by a joint two-parameter logistic model of the whole "
                   "results matrix (missing cells allowed), with ability intervals from the "
                   "examples, simultaneous rank sets and fit residuals per benchmark (default "
                   "benchmarks: the largest part of the matrix it can place on one scale)")
    p.set_defaults(handler=_overall)
