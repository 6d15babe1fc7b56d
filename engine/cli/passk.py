"""``sigboard passk``: pass@k and pass^k over repeated tries, every pair's paired
differences and the flaky tasks (:mod:`engine.stats._passk`,
:mod:`engine.stats._passk_reliability`).

JSON (:func:`passk_json`): ``systems`` (each ``system, tasks, pass_at_k, pass_at_k_low,
pass_at_k_high, pass_hat_k, pass_hat_k_low, pass_hat_k_high``), ``pairs`` (each
``system_a, system_b, diff_pass_hat_k, diff_pass_hat_k_low, diff_pass_hat_k_high,
diff_pass_at_k, diff_pass_at_k_low, diff_pass_at_k_high, pvalue, pvalue_adj,
significant`` — the p-values are pass^k's, Holm–Šidák over the pairs by default) and
``flaky`` (each ``system, example_id, tries, successes, low, high``: the flaky tasks only);
beside them ``benchmark, metric, k, alpha, correction``, ``excluded`` (per system, tasks
with fewer than k tries), ``consistency`` (per system ``system, tasks, c_out, low, high``)
and ``rules`` (the exclusion and flaky rules in words).

``sigboard compare DATA --baseline A --candidate B --pass-hat-k K`` decides on the pass^k
difference (:func:`compare_pass_hat_k`; JSON :func:`gate_json`), exit codes as
``compare``'s: 1 when the candidate is significantly worse, 0 otherwise, 2 on bad input.
``--fail-on broken`` (fail only if a task that always passed on the baseline fails on every
try of the candidate) or ``--min-pass-rate R`` (fail if a task's success rate is shown below
R) let a per-task rule of :func:`engine.stats._passk_reliability.task_gate` decide instead;
the JSON adds ``fail_on`` and ``task_rule`` (:func:`task_rule_json`).
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from ._common import add_data_options, emit, load_data, wants_json

if TYPE_CHECKING:
    from .._options import TestOptions
    from ..stats._passk_reliability import PassKGate, Reliability, TaskGate
    from ._common import Loaded

__all__ = ["FLAKY_KEYS", "PAIR_KEYS", "SYSTEM_KEYS", "TASK_KEYS", "compare_pass_hat_k",
           "gate_json", "passk_json", "register", "task_rule_json"]

SYSTEM_KEYS = ("system", "tasks", "pass_at_k", "pass_at_k_low", "pass_at_k_high",
               "pass_hat_k", "pass_hat_k_low", "pass_hat_k_high")
PAIR_KEYS = ("system_a", "system_b", "diff_pass_hat_k", "diff_pass_hat_k_low",
             "diff_pass_hat_k_high", "diff_pass_at_k", "diff_pass_at_k_low",
             "diff_pass_at_k_high", "pvalue", "pvalue_adj", "significant")
FLAKY_KEYS = ("system", "example_id", "tries", "successes", "low", "high")

_STATISTICS = ("engine.stats._passk", "engine.stats._passk_reliability", "engine._options",
               "scipy.stats")


def _rows(frame: Any, keys: tuple[str, ...]) -> list[dict[str, Any]]:
    from ._json import records

    return records(frame[list(keys)], finite=True)


def passk_json(res: Reliability) -> dict[str, Any]:
    """The JSON of ``sigboard passk`` (keys: the module docstring)."""
    est, cons = res.estimates, res.consistency
    return {
        "benchmark": res.benchmark, "metric": res.metric, "k": res.k,
        "alpha": res.options.alpha, "correction": res.options.correction,
        "systems": _rows(est.table, SYSTEM_KEYS),
        "pairs": _rows(res.pairs.table, PAIR_KEYS),
        "flaky": _rows(res.flaky.flaky(), FLAKY_KEYS),
        "excluded": {s: int(n) for s, n in zip(est.systems, est.excluded, strict=True)},
        "consistency": _rows(cons.table, ("system", "tasks", "c_out", "low", "high")),
        "rules": {"excluded": est.rule(), "flaky": res.flaky.rule()},
    }


def _text(res: Reliability) -> str:
    from ._text import fmt_number, interval, table_text

    est, pairs, flaky, cons = res.estimates, res.pairs.table, res.flaky, res.consistency
    level = f"{1 - res.options.alpha:.0%}"
    import pandas as pd

    systems = pd.DataFrame({
        "system": list(est.systems), "tasks": est.tasks,
        f"pass@{res.k}": est.pass_at_k,
        f"{level} interval": [interval(a, b) for a, b in
                              zip(est.pass_at_k_low, est.pass_at_k_high, strict=True)],
        f"pass^{res.k}": est.pass_hat_k,
        f"{level} interval ": [interval(a, b) for a, b in
                               zip(est.pass_hat_k_low, est.pass_hat_k_high, strict=True)],
        "flaky tasks": flaky.counts, "C_out": cons.c_out,
        "C_out interval": [interval(a, b) for a, b in zip(cons.low, cons.high, strict=True)]})
    out = [f"{res.benchmark} / {res.metric}: pass@{res.k} and pass^{res.k} over tasks "
           f"({level} Korn–Graubard intervals; tries nested in tasks)", table_text(systems),
           est.rule()]
    if len(pairs):
        shown = pd.DataFrame({
            "system_a": pairs["system_a"], "system_b": pairs["system_b"],
            "tasks": pairs["tasks"],
            f"Δ pass^{res.k}": pairs["diff_pass_hat_k"],
            "interval": [interval(a, b) for a, b in zip(
                pairs["diff_pass_hat_k_low"], pairs["diff_pass_hat_k_high"], strict=True)],
            f"Δ pass@{res.k}": pairs["diff_pass_at_k"],
            "interval ": [interval(a, b) for a, b in zip(
                pairs["diff_pass_at_k_low"], pairs["diff_pass_at_k_high"], strict=True)],
            "pvalue": pairs["pvalue"], "pvalue_adj": pairs["pvalue_adj"],
            "significant": pairs["significant"]})
        out += ["", f"paired differences a − b on the tasks both ran (p-values: pass^{res.k}, "
                f"{res.options.correction} over {len(pairs)} pair(s))", table_text(shown)]
    listed = flaky.flaky()
    out += ["", f"{flaky.rule()}: {len(listed)} system × task cell(s)"]
    if len(listed):
        head = listed.head(20)
        out.append(table_text(head.drop(columns=["flaky"])))
        if len(listed) > 20:
            out.append(f"… {len(listed) - 20} more (--format json lists them all)")
    out.append(f"C_out: outcome consistency (HAL), the share of tasks whose tries all agree; "
               f"{fmt_number(float(cons.tasks.sum()))} system × task cell(s) with ≥ 2 tries")
    return "\n".join(out) + "\n"


def _passk(args: argparse.Namespace) -> int:
    fmt = None
    if args.report:  # a bad name fails before the work
        from ..report._reports import report_format

        fmt = report_format(args.report)
    loaded = load_data(args.data, meanwhile=_STATISTICS)
    from .._matrix import pick_slice
    from .._options import TestOptions
    from ..stats._passk_reliability import reliability

    bench, met = pick_slice(loaded.frame, args.benchmark, args.metric)
    cluster = loaded.cluster_column(bench, args.cluster)
    frame = loaded.frame if cluster is None else loaded.with_attribute(bench, cluster)
    opts = TestOptions(alpha=args.alpha, correction=args.correction)
    res = reliability(frame, k=args.k, benchmark=bench, metric=met, cluster=cluster,
                      margin=args.flaky_margin, options=opts)
    if args.report and fmt is not None:
        _write_report(args.report, fmt, loaded, res, opts)
    if wants_json(args):
        emit(passk_json(res), None, "json")
    else:
        sys.stdout.write(_text(res))
    return 0


def _write_report(path: str, fmt: str, loaded: Loaded, res: Reliability,
                  opts: TestOptions) -> None:
    """``--report FILE``: the leaderboard report of the tries' mean success rate (runs
    averaged per task, as ``sigboard leaderboard``) with its repeated-tries section: pass^k
    and pass@k at k ranked by pass^k and the k-curves (k = 1…n) with simultaneous bands."""
    from ..products._leaderboard import leaderboard
    from ..report._reports import leaderboard_report
    from ..stats._passk import pass_k_curves
    from ._stats_common import write_report

    matrix = loaded.matrix(res.benchmark, res.metric)
    design = None
    if res.counts.clusters is not None:
        from ..stats._clusters import ClusterDesign, cluster_codes

        column = res.counts.clusters.name
        part = loaded.with_attribute(res.benchmark, column)
        part = part[part["metric"] == res.metric]
        design = ClusterDesign.from_codes(cluster_codes(part, column, matrix.examples), column)
    lb = leaderboard(matrix, opts, cluster=design)
    curves = pass_k_curves(res.counts, alpha=opts.alpha)
    write_report(path, leaderboard_report(lb, fmt=fmt, reliability=(res, curves)))


def register(subparsers: Any) -> None:
    """Add ``passk`` to the ``sigboard`` parser."""
    from .._options import CORRECTIONS, TestOptions
    from ._options_flags import add_alpha

    p = subparsers.add_parser(
        "passk", help="pass@k and pass^k over repeated tries with intervals, paired "
                      "differences of every pair, flaky tasks")
    add_data_options(p)
    p.add_argument("--k", type=int, required=True, help="tries per attempt (k ≥ 1); tasks "
                   "with fewer than k tries are excluded and counted")
    add_alpha(p, meaning="intervals at 1 − alpha, tests at alpha")
    correction = TestOptions().correction
    p.add_argument("--correction", choices=CORRECTIONS, default=correction,
                   help=f"multiplicity adjustment over the pairs (default {correction})")
    p.add_argument("--cluster", default=None, metavar="COLUMN",
                   help="per-task column grouping tasks (CR2 intervals and tests over "
                        "clusters); default with a store: its declared column; '-': none")
    p.add_argument("--flaky-margin", type=float, default=0.0, metavar="M",
                   help="flaky when the exact interval of the task's success rate lies "
                        "inside (M, 1 − M) (default 0: excludes both 0 and 1)")
    p.add_argument("--report", metavar="FILE", help="also write a report: FILE.html "
                   "(self-contained) or FILE.md (Markdown): the leaderboard of the mean "
                   "success rate with pass^k and pass@k at K ranked by pass^k and the "
                   "k-curves (k = 1…n) with simultaneous bands")
    p.set_defaults(handler=_passk)


def gate_json(gate: PassKGate, exit_code: int) -> dict[str, Any]:
    """The JSON of ``compare --pass-hat-k K``: candidate − baseline in pass^k units."""
    return {"benchmark": gate.benchmark, "metric": gate.metric, "baseline": gate.baseline,
            "candidate": gate.candidate, "statistic": "pass_hat_k", "k": gate.k,
            "tasks": gate.tasks, "baseline_pass_hat_k": gate.baseline_pass_hat_k,
            "candidate_pass_hat_k": gate.candidate_pass_hat_k, "difference": gate.diff,
            "ci_low": gate.low, "ci_high": gate.high, "pvalue": gate.pvalue,
            "alpha": gate.alpha, "cluster": gate.clusters, "verdict": gate.verdict(),
            "fail_on": "difference" if gate.task is None else gate.task.rule,
            "task_rule": None if gate.task is None else task_rule_json(gate.task),
            "exit_code": exit_code}


TASK_KEYS = ("example_id", "baseline_tries", "baseline_successes", "tries", "successes",
             "rate", "low", "high", "pvalue", "pvalue_adj")


def task_rule_json(task: TaskGate) -> dict[str, Any]:
    """The per-task rule of ``compare --pass-hat-k K --fail-on RULE``: the rule in words,
    the threshold, and the failing tasks with their exact intervals and p-values."""
    return {"rule": task.rule, "description": task.describe(), "threshold": task.threshold,
            "correction": task.correction if task.rule == "pass-rate" else None,
            "tasks": len(task.table), "failed": _rows(task.failing(), TASK_KEYS)}


def compare_pass_hat_k(loaded: Loaded, args: argparse.Namespace, bench: str, met: str) -> int:
    """``compare --pass-hat-k K``: the gate on candidate − baseline pass^k (paired over the
    tasks both ran with ≥ K tries, two-sided at --alpha): 1 when the candidate is
    significantly worse, else 0; bad input raises (exit 2)."""
    from ..stats._passk_reliability import pass_k_gate
    from ._json import EXIT_FAIL, EXIT_PASS
    from ._stats_common import test_options
    from ._text import fmt_number

    for flag in ("margin", "equivalence", "report", "judge"):
        if getattr(args, flag, None) is not None:
            raise ValueError(f"--pass-hat-k: --{flag} is not available with the pass^k gate")
    opts = test_options(args)
    if opts.alternative != "two-sided":
        raise ValueError("--pass-hat-k: the pass^k gate is two-sided (drop --alternative)")
    cluster = loaded.cluster_column(bench, args.cluster)
    frame = loaded.frame if cluster is None else loaded.with_attribute(bench, cluster)
    min_rate = getattr(args, "min_pass_rate", None)
    fail_on = getattr(args, "fail_on", None) or ("pass-rate" if min_rate is not None
                                                 else "difference")
    gate = pass_k_gate(frame, baseline=args.baseline, candidate=args.candidate,
                       k=args.pass_hat_k, benchmark=bench, metric=met, cluster=cluster,
                       options=opts, fail_on=fail_on, min_pass_rate=min_rate)
    code = EXIT_FAIL if gate.fails else EXIT_PASS
    if wants_json(args):
        emit(gate_json(gate, code), None, "json")
        return code
    level = f"{1 - gate.alpha:.0%}"
    k = gate.k
    sys.stdout.write(
        f"{gate.candidate} vs {gate.baseline} on {gate.benchmark}/{gate.metric}: pass^{k} "
        f"{fmt_number(gate.candidate_pass_hat_k)} vs {fmt_number(gate.baseline_pass_hat_k)}, "
        f"difference {fmt_number(gate.diff)} [{fmt_number(gate.low)}, "
        f"{fmt_number(gate.high)}]: {gate.verdict()}\n"
        f"difference = {gate.candidate} − {gate.baseline} (positive = candidate better), "
        f"{level} interval; paired t over {gate.tasks} tasks with ≥ {k} tries each"
        + ("" if gate.clusters is None else f", CR2 over clusters of {gate.clusters}")
        + f"; p = {fmt_number(gate.pvalue, 3)}\n")
    if gate.task is not None:
        sys.stdout.write(_task_text(gate.task))
    return code


def _task_text(task: TaskGate) -> str:
    """The per-task rule: what decided, and the tasks that fail it."""
    from ._text import table_text

    failing = task.failing()
    out = [f"gate rule: {task.describe()}; the pass^k difference above is reported, the "
           f"rule decides: {len(failing)} of {len(task.table)} task(s) fail it"]
    if len(failing):
        cols = ["example_id", "baseline_tries", "baseline_successes", "tries", "successes",
                "low", "high", "pvalue"] + (["pvalue_adj"] if task.rule == "pass-rate" else [])
        out.append(table_text(failing[cols].head(20)))
        if len(failing) > 20:
            out.append(f"… {len(failing) - 20} more (--format json lists them all)")
    return "\n".join(out) + "\n"
