"""Judge metrics with human labels: ``leaderboard --judge J --human H``, ``ppi-budget``
and ``judge-link`` (declare in a store which human metric belongs to a judge metric)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from ._common import add_data_options, emit, load_data, open_existing, output_format, wants_json
from ._json import judge_board_json, label_budget_json
from ._options_flags import add_alpha

if TYPE_CHECKING:
    from .._options import TestOptions
    from ..products._judge import JudgeBoard
    from ._common import Loaded

__all__ = ["judge_as_metric", "judge_board_of", "judge_leaderboard", "register"]


def _human_metric(args: argparse.Namespace, loaded: Loaded, benchmark: str | None) -> str:
    """--human, or the link declared in the store for --judge."""
    if getattr(args, "human", None):
        return str(args.human)
    if loaded.url is not None:
        from ..store._judge_links import judge_links

        links = judge_links(open_existing(loaded.url))
        if benchmark is None:
            benches = {b for b, j in links if j == args.judge}
            benchmark = next(iter(benches)) if len(benches) == 1 else None
        if benchmark is None:  # the data's own benchmark of the judge metric
            benchmark = _only_benchmark(loaded, args.judge)
        human = links.get((benchmark or "", str(args.judge)))
        if human is not None:
            return human
    raise ValueError(f"--human: name the human metric of {args.judge!r} (or declare it in the "
                     "store with judge-link)")


def _only_benchmark(loaded: Loaded, judge: str) -> str | None:
    frame = loaded.frame
    benches = frame.loc[frame["metric"] == judge, "benchmark"].astype(str).unique()
    return str(benches[0]) if len(benches) == 1 else None


def _board(args: argparse.Namespace) -> JudgeBoard:
    from ..products._judge import judge_board
    from ._stats_common import test_options

    loaded = load_data(args.data)
    human = _human_metric(args, loaded, args.benchmark)
    return judge_board(loaded.frame, judge=args.judge, human=human, benchmark=args.benchmark,
                       options=test_options(args),
                       higher_is_better=not getattr(args, "lower_is_better", False),
                       inclusion=_stored_inclusion(loaded, args))


def _stored_inclusion(loaded: Loaded, args: argparse.Namespace) -> Any:
    """A store's per-example inclusion probabilities of the judge's benchmark (a file keeps
    its column in the frame), or None."""
    from ..io._judge import INCLUSION_COLUMN

    benchmark = args.benchmark or _only_benchmark(loaded, args.judge)
    if loaded.url is None or benchmark is None:
        return None
    meta = open_existing(loaded.url).example_metadata(benchmark)
    if INCLUSION_COLUMN not in meta.columns:
        return None
    return meta.set_index(meta["example_id"].astype(str))[INCLUSION_COLUMN]


def judge_board_of(loaded: Loaded, benchmark: str, metric: str, human: str | None, *,
                   options: TestOptions, higher_is_better: bool
                   ) -> tuple[str, JudgeBoard | str] | None:
    """(human metric, the judge board of ``metric`` or the sentence saying why its labels
    cannot serve PPI++), or None when ``metric`` has no human labels: ``human`` (the --human
    flag; ``-``: use the judge's own scores), else the store's judge-link, else a human_*
    metric of the benchmark — the rule of the app's pages (:func:`engine.human_metric_for`).
    """
    import pandas as pd

    from ..io._judge import JudgeContractError, human_metric_for
    from ..products._judge import judge_board

    if human == "-":
        return None
    if human is None:
        linked = None
        if loaded.url is not None:
            from ..store._judge_links import judge_links

            linked = judge_links(open_existing(loaded.url)).get((benchmark, metric))
        frame = loaded.frame
        # the distinct names, then as text (not every row's name as text, then the distinct)
        metrics = dict.fromkeys(map(str, pd.unique(frame.loc[frame["benchmark"] == benchmark,
                                                             "metric"])))
        human = human_metric_for(metric, list(metrics), linked)
        if human is None:
            return None
    args = argparse.Namespace(benchmark=benchmark, judge=metric)
    try:
        return human, judge_board(loaded.frame, judge=metric, human=human, benchmark=benchmark,
                                  options=options, higher_is_better=higher_is_better,
                                  inclusion=_stored_inclusion(loaded, args))
    except JudgeContractError as exc:
        return human, str(exc)


def judge_leaderboard(args: argparse.Namespace) -> int:
    """``leaderboard DATA --judge J --human H``: the PPI++ leaderboard."""
    board = _board(args)
    payload = judge_board_json(board)
    if wants_json(args):
        emit(payload, None, "json")
        return 0
    cols = ["rank", "system", "ppi_mean", "ppi_low", "ppi_high", "n_human", "effective_n",
            "judge_mean", "human_mean"]
    emit(payload, board.table[cols].round(4), "table")
    sig = board.pairs.table[board.pairs.table["significant"]]
    print(f"\n{board.benchmark} / {board.judge} rectified by {board.human} (PPI++): "
          f"{len(sig)} of {len(board.pairs.table)} pairs differ ({board.correction} at alpha "
          f"{board.alpha}); judge-human Pearson r = {_r(board.agreement['pearson'])}")
    if board.agreement.get("bias_differs"):
        print("warning: the judge's bias differs between systems (judge-only ranks mislead)")
    return 0


def _r(value: float | None) -> str:
    return "undefined (constant scores)" if value is None else f"{value:.3f}"


def _budget(args: argparse.Namespace) -> int:
    from ..products._judge import label_budget

    board = _board(args)
    budget = label_budget(board, target_width=args.width, delta=args.delta, power=args.power)
    emit(label_budget_json(budget), budget.table.round(4), output_format(args))
    return 0


def _link(args: argparse.Namespace) -> int:
    from ..store._judge_links import link_judge

    link_judge(open_existing(args.store), args.benchmark, args.judge, args.human)
    print(f"{args.benchmark}: {args.judge} is judged; its human labels are {args.human}")
    return 0


def judge_as_metric(args: argparse.Namespace, role: str) -> None:
    """``--judge J`` of compare/pairwise: J is the ``role`` metric (``--metric`` J or none)."""
    if args.judge:
        if args.metric and args.metric != args.judge:
            raise ValueError(f"--judge: names the {role} metric; got --metric {args.metric!r} "
                             f"and --judge {args.judge!r}")
        args.metric = args.judge


def add_judge_options(p: argparse.ArgumentParser) -> None:
    """--judge/--human (the leaderboard takes them too)."""
    p.add_argument("--judge", default=None, help="judge metric (LLM-judge scores on every "
                   "example): PPI++ estimates of the human-label mean")
    p.add_argument("--human", default=None, help="human metric with labels on a random subset "
                   "(default: the store's judge-link)")


def register(sub: Any) -> None:
    p = sub.add_parser("ppi-budget", help="human labels needed for a PPI++ interval width or "
                       "power, from the observed judge-human correlation")
    add_data_options(p)
    add_judge_options(p)
    p.add_argument("--width", type=float, default=None, help="target full interval width")
    p.add_argument("--delta", type=float, default=None,
                   help="pair difference to detect (instead of --width)")
    p.add_argument("--power", type=float, default=0.8)
    add_alpha(p)
    p.set_defaults(handler=_budget_checked)

    p = sub.add_parser("judge-link", help="declare a judge metric's human metric in a store")
    p.add_argument("store", help="store URL (sqlite:///…)")
    p.add_argument("--benchmark", required=True)
    p.add_argument("--judge", required=True)
    p.add_argument("--human", required=True)
    p.set_defaults(handler=_link)


def _budget_checked(args: argparse.Namespace) -> int:
    if not args.judge:
        raise ValueError("--judge: name the judge metric")
    return _budget(args)
