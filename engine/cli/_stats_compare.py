"""Command ``compare``: the A/B gate of a candidate against a baseline, runs and clusters
taken into account."""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from .._options import ALTERNATIVES, TestOptions
from ._common import Loaded, add_data_options, closest, emit, load_data, wants_json
from ._json import EXIT_CANNOT_DECIDE, ab_exit, compare_exit, compare_json, gate_sides
from ._stats_common import test_options, write_report
from ._text import fmt_number

if TYPE_CHECKING:
    from ..products._judge_gate import JudgeGate
    from ..stats._ab import ABComparison
    from ..stats._missing_bounds import MissingBounds

__all__ = ["register"]


COMPARE_EXIT_CODES = """exit codes:
  0  the candidate passes: not significantly worse (two-sided test at --alpha), or with
     --margin, shown non-inferior (H0 candidate − baseline ≤ −margin rejected, one-sided)
  1  the candidate fails: significantly worse, or with --margin, non-inferiority not shown
  2  bad input (unknown system, unreadable DATA, bad option, the two systems share
     fewer than 2 examples: the gate decides paired data only — on different examples
     skewed scores have no test that keeps alpha); nothing is compared — or
     cannot decide: the baseline's or the candidate's missing scores are not missing at
     random (their examples harder or easier by the other systems' scores; --allow-missing
     decides anyway) — or one system lacks examples the other has and a verdict of better
     or worse does not hold with them at the worst and the best score (--allow-missing N
     declares up to N per side) — or, on a judge metric with human labels, the PPI++
     design cannot keep its promise (labels not a random sample by the data's evidence,
     fewer than 10 examples labelled for both systems, clustered examples)

--pass-hat-k K: the same codes on the pass^K difference (tries as runs, values 0/1); --fail-on
broken / --min-pass-rate R: 1 on a per-task rule instead (the difference still shown)

judge metrics with human labels (--judge/--human, the store's judge-link, or a human_*
metric of the benchmark): the verdict, interval, p-value and exit code are the PPI++ paired
difference on the human-label scale (JSON judge_gate; the judge's own figures in judge_own);
--human - decides on the judge's own scores"""


def _check_systems(loaded: Loaded, args: argparse.Namespace) -> tuple[str, str]:
    from .._matrix import pick_slice

    df = loaded.frame
    bench, met = pick_slice(df, args.benchmark, args.metric)
    present = df.loc[(df["benchmark"] == bench) & (df["metric"] == met), "system"].unique()
    known = {str(s) for s in present}
    for flag, name in (("baseline", args.baseline), ("candidate", args.candidate)):
        if name not in known:
            raise ValueError(closest(name, sorted(known), flag) + f" (on {bench}/{met})")
    return bench, met


def _units(loaded: Loaded, bench: str, met: str, binary: bool | None) -> tuple[float, str]:
    """How to show a difference: binary scores in percentage points, others as they are."""
    if binary is None:
        df = loaded.frame
        values = df.loc[(df["benchmark"] == bench) & (df["metric"] == met), "value"]
        binary = bool(values.isin([0.0, 1.0]).all())
    return (100.0, " points") if binary else (1.0, "")


def _compare_text(res: ABComparison, scale: float, unit: str) -> str:
    from .._units import difference_text, interval_text
    from ..stats._churn import churn_sentence

    t = res.test
    d, lo, hi = (t.estimate * scale, t.ci_low * scale, t.ci_high * scale)
    ci = f"[{fmt_number(lo, 3)}, {fmt_number(hi, 3)}]"
    points = unit == " points"  # to 0.1 point, as `pairwise` and the pages write them

    def size(value: float) -> str:
        return (difference_text(value / scale, percent=True, signed=False) if points
                else f"{fmt_number(value, 3)}{unit}")

    if points:
        ci = interval_text(lo / scale, hi / scale, percent=True, difference=True)
    level = f"{1 - res.options.alpha:.0%}"
    ni = res.noninferiority
    if ni is not None:
        head = f"{res.candidate} vs {res.baseline}: {size(d)} {ci}"
    elif ab_exit(res) == 1:
        worse = (interval_text(-hi / scale, -lo / scale, percent=True, difference=True)
                 if points else f"[{fmt_number(-hi, 3)}, {fmt_number(-lo, 3)}]")
        head = f"{res.candidate} trails {res.baseline} by {size(-d)} {worse}"
    elif t.pvalue < res.options.alpha and t.estimate > 0:  # significantly better
        head = f"{res.candidate} beats {res.baseline} by {size(d)} {ci}"
    else:
        head = (f"{res.candidate} vs {res.baseline}: {size(d)} {ci}")
    base_runs, cand_runs = t.runs
    runs = (f"{base_runs} run(s)" if base_runs == cand_runs else
            f"{base_runs}/{cand_runs} runs (baseline/candidate)")
    margin = "" if ni is None else (
        f"non-inferiority: {ni.hypothesis()} (margin in {res.metric} units); t = "
        f"{fmt_number(ni.statistic, 3)}, p = {fmt_number(ni.pvalue, 3)}; one-sided "
        f"{1 - ni.alpha:.0%} lower bound {size(ni.lower * scale)}\n")
    return (f"{head} on {res.benchmark}/{res.metric}: {res.verdict}\n"
            f"difference = {res.candidate} − {res.baseline} (positive = candidate better), "
            f"{level} interval; p = {fmt_number(t.pvalue, 3)}; n = {t.n} examples, "
            f"{runs} per example\n"
            f"model: {t.model} ({t.reason})\n{margin}"
            + ("" if res.clusters is None else f"clusters: {res.clusters[0]}, design effect "
               f"{fmt_number(res.clusters[1], 3)}\n")
            + ("" if res.churn is None else churn_sentence(res.churn) + "\n")
            + ("" if res.equivalence is None else res.equivalence.sentence() + "\n")
            + ("" if res.resolution is None or res.resolution.can_separate else
               f"note: {res.resolution.message}\n")
            + (f"{res.note}\n" if res.note else ""))


def _judge_gate(loaded: Loaded, args: argparse.Namespace, bench: str, met: str,
                higher: bool, cluster: str | None) -> JudgeGate | None:
    """The PPI++ gate when ``met`` is a judge metric with human labels, else None."""
    from ..products._judge_gate import judge_gate
    from .judge import judge_board_of

    opts = test_options(args)
    found = judge_board_of(loaded, bench, met, args.human, options=opts,
                           higher_is_better=higher)
    if found is None:
        return None
    human, board = found
    return judge_gate(board, baseline=args.baseline, candidate=args.candidate, benchmark=bench,
                      judge=met, human=human, higher_is_better=higher, options=opts,
                      margin=args.margin,
                      equivalence=args.equivalence, cluster=cluster)


#: What ``compare`` imports once DATA is read: imported while the child reads it
#: (:func:`engine.cli._common.load_data`'s ``meanwhile``).
_STATISTICS = ("engine.stats._ab", "engine.products._judge_gate", "engine.products._headline",
               "engine._matrix", "engine.stats._churn", "engine.stats._missing_bounds")


def _compare(args: argparse.Namespace) -> int:
    from .judge import judge_as_metric

    fmt = None
    if args.report:  # a bad name fails before the work (the reports import scipy: not before)
        from ..report._reports import report_format

        fmt = report_format(args.report)
    judge_as_metric(args, "compared")  # --judge J: the compared metric is J
    loaded = load_data(args.data, meanwhile=_STATISTICS)
    from .._notes import Note
    from ..products._headline import compare_headline
    from ..products._judge_gate import report_with_gate
    from ..stats._ab import compare_ab

    bench, met = _check_systems(loaded, args)
    if args.pass_hat_k is None and (args.fail_on or args.min_pass_rate is not None):
        raise ValueError("--fail-on / --min-pass-rate: rules of the pass^k gate; add "
                         "--pass-hat-k K")
    if args.pass_hat_k is not None:  # repeated 0/1 tries: the gate on the pass^k difference
        from .passk import compare_pass_hat_k

        return compare_pass_hat_k(loaded, args, bench, met)
    spec = loaded.spec(bench, met)
    if args.lower_is_better:
        spec = replace(spec, higher_is_better=False)
    # --cluster COL, else the store's declared column (``-``: none), as leaderboard/pairwise
    cluster = loaded.cluster_column(bench, args.cluster)
    frame = loaded.frame if cluster is None else loaded.with_attribute(bench, cluster)
    res = compare_ab(frame, baseline=args.baseline, candidate=args.candidate,
                     benchmark=bench, metric=met, spec=spec, options=test_options(args),
                     cluster=cluster, margin=args.margin, equivalence=args.equivalence)
    gate = _judge_gate(loaded, args, bench, met, spec.higher_is_better, cluster)
    if args.report and fmt is not None:
        from ..report._reports import compare_report

        write_report(args.report, report_with_gate(compare_report(res, fmt=fmt), gate, fmt))
    # the two systems judged by every system of the file
    warnings = [Note("missing-not-at-random", w) for w in res.missing]
    code = compare_exit(res, gate, warnings, args.allow_missing is not None)
    bounds = (_bounds(frame, res, spec, args.allow_missing) if gate is None else
              _gate_bounds(loaded, args, gate))
    if bounds is not None and not bounds.decided:
        code = EXIT_CANNOT_DECIDE  # the verdict does not survive the missing examples
    if wants_json(args):
        headline = compare_headline(res, binary=res.binary) if gate is None else None
        out = compare_json(res, gate, headline=headline, exit_code=code)
        if bounds is not None:
            out["missing_bounds"] = _bounds_json(bounds)
        emit(out, None, "json")
    else:
        scale, unit = _units(loaded, bench, met, spec.binary)
        sys.stdout.write(("" if bounds is None else bounds.sentence() + "\n")
                         + "".join(f"warning: {w.text}\n" for w in warnings)
                         + ("" if gate is None else _gate_text(gate, res))
                         + _compare_text(res, scale, unit))
    if code == 2 and warnings and args.allow_missing is None:
        print(f"cannot decide: {warnings[0].text.split(' (')[0]}, so its missing scores are not "
              "missing at random; fix the harness or pass --allow-missing", file=sys.stderr)
    elif bounds is not None and not bounds.decided:
        print(bounds.sentence(), file=sys.stderr)
    elif code == 2 and gate is not None:
        print(f"cannot decide: {gate.refused}", file=sys.stderr)
    return code


def _bounds(frame: Any, res: ABComparison, spec: Any, allow: int | None
            ) -> MissingBounds | None:
    """The verdict with the examples one side lacks at the worst and best score (None when
    neither lacks any); ``allow``: ``--allow-missing`` (None, N, or ``_ALL`` without N)."""
    from ..stats._missing_bounds import missing_bounds

    return _declared(missing_bounds(frame, res, spec=spec), allow)


def _gate_bounds(loaded: Loaded, args: argparse.Namespace, gate: JudgeGate
                 ) -> MissingBounds | None:
    """The judge gate's verdict with the examples one side lacks (judge scores, and human
    labels where the other side's example has one) at the worst and best score."""
    from ..products._judge_missing import judge_gate_bounds
    from .judge import _stored_inclusion

    inclusion = _stored_inclusion(loaded, argparse.Namespace(benchmark=gate.benchmark,
                                                             judge=gate.judge))
    found = judge_gate_bounds(loaded.frame, gate, options=test_options(args),
                              inclusion=inclusion)
    return _declared(found, args.allow_missing)


def _declared(found: MissingBounds | None, allow: int | None) -> MissingBounds | None:
    """``found`` with ``--allow-missing`` applied (None, N, or ``_ALL`` without N)."""
    if found is None or allow is None:
        return found
    need = max(found.baseline_lacks, found.candidate_lacks)
    return replace(found, declared=need if allow == _ALL else int(allow))


def _bounds_json(b: MissingBounds) -> dict[str, Any]:
    return {"baseline_lacks": b.baseline_lacks, "candidate_lacks": b.candidate_lacks,
            "n": b.n, "worst": b.worst, "best": b.best, "low": b.low, "high": b.high,
            "low_verdict": b.low_verdict, "high_verdict": b.high_verdict,
            "survives": b.survives, "declared": b.declared, "decided": b.decided,
            "sentence": b.sentence()}


_ALL = -1  # --allow-missing without N: any number (not a str: argparse would convert it)


def _count(text: str) -> int:
    """``--allow-missing N``: a whole number ≥ 0."""
    try:
        n = int(text)
    except ValueError:
        n = -1
    if n < 0:
        raise argparse.ArgumentTypeError(f"must be a whole number ≥ 0 (examples per side); "
                                         f"got {text!r} (without N, put --allow-missing "
                                         "after DATA)")
    return n


def _gate_text(gate: JudgeGate, res: ABComparison) -> str:
    """The PPI++ gate's lines above the judge's own: verdict, judge-only, human-only."""
    out = [f"{gate.candidate} vs {gate.baseline} on {gate.benchmark}/{gate.judge}: "
           f"{gate.sentence()}"]
    sides = gate_sides(gate)
    for name in ("judge_only", "human_only"):
        side = sides[name]
        if side is not None:
            out.append(f"  {name.replace('_', '-')}: {_fmt_side(side)}"
                       + (" (examples labelled for both)" if name == "human_only" else
                          " (every example judged for both; biased if the judge is)"))
    if gate.noninferiority is not None:
        out.append(f"  non-inferiority: {gate.noninferiority.hypothesis()}; p = "
                   f"{fmt_number(gate.noninferiority.pvalue, 3)}")
    if gate.equivalence is not None:
        out.append(f"  {gate.equivalence.sentence()}")
    out.append(f"the judge's own scores (not the gate: {res.verdict}):")
    return "\n".join(out) + "\n"


def _fmt_side(side: dict[str, Any]) -> str:
    d, lo, hi = (side[k] for k in ("difference", "ci_low", "ci_high"))
    if d is None:
        return "undefined"
    return (f"{fmt_number(d, 4)}" + ("" if lo is None or hi is None else
                                     f" [{fmt_number(lo, 4)}, {fmt_number(hi, 4)}]"))


def register(sub: Any) -> None:
    """Add ``compare`` to the ``python -m engine`` parser."""
    p = sub.add_parser("compare", help="A/B gate with repeated runs: exit 1 when the candidate "
                       "is significantly worse", epilog=COMPARE_EXIT_CODES,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    add_data_options(p)
    d = TestOptions()
    p.add_argument("--baseline", required=True)
    p.add_argument("--candidate", required=True)
    p.add_argument("--alpha", type=float, default=argparse.SUPPRESS,
                   help=f"level of the test and the interval (default {d.alpha})")
    p.add_argument("--alternative", choices=ALTERNATIVES, default=argparse.SUPPRESS,
                   help="two-sided (default), greater (candidate better) or less")
    p.add_argument("--cluster", help="per-example column (e.g. task family): cluster-robust "
                   "standard errors; default with a store: the benchmark's declared cluster "
                   "column; '-': none")
    p.add_argument("--lower-is-better", action="store_true", help="metric direction")
    p.add_argument("--allow-missing", nargs="?", type=_count, const=_ALL, default=None,
                   metavar="N",
                   help="decide (exit 0/1) even when a system's missing scores are not missing "
                   "at random (harder or easier examples by the other systems' scores); "
                   "without it such data exits 2. Also declares the examples one system "
                   "lacks and the other has (any number; with N: up to N per side), which "
                   "undeclared exit 2 when a verdict of better or worse does not hold with "
                   "them at the worst and the best score")
    p.add_argument("--margin", type=float, default=None,
                   help="non-inferiority margin (> 0, metric units): fail only when the "
                   "candidate may be worse by more than it (one-sided test of H0: candidate − "
                   "baseline ≤ −margin at --alpha)")
    p.add_argument("--equivalence", type=float, default=None, metavar="MARGIN",
                   help="equivalence margin (> 0, metric units): TOST of −MARGIN < candidate − "
                   "baseline < MARGIN, verdict equivalent / different / not shown (JSON "
                   "equivalence)")
    p.add_argument("--judge", default=None, help="judge metric (the compared metric): the "
                   "gate decides on the PPI++ difference corrected by its human labels")
    p.add_argument("--human", default=None, help="human metric with labels on a random subset "
                   "(default: the store's judge-link, else a human_* metric of the benchmark; "
                   "'-': decide on the judge's own scores)")
    p.add_argument("--pass-hat-k", type=int, default=None, metavar="K",
                   help="gate on pass^K over repeated 0/1 tries (runs): the paired difference "
                   "on the tasks both ran with at least K tries; exit 1 when the candidate's "
                   "pass^K is significantly lower")
    p.add_argument("--fail-on", choices=("difference", "broken", "pass-rate"), default=None,
                   help="with --pass-hat-k: what fails the gate. difference (default): the "
                   "pass^K difference; broken: only a task that always passed on the baseline "
                   "and fails every try of the candidate; pass-rate: a task whose success rate "
                   "is shown below --min-pass-rate (exact binomial test per task, Holm–Šidák "
                   "over the tasks)")
    p.add_argument("--min-pass-rate", type=float, default=None, metavar="R",
                   help="with --pass-hat-k: fail if a task's success rate over its tries is "
                   "shown below R (implies --fail-on pass-rate)")
    p.add_argument("--report", metavar="FILE", help="also write a report: FILE.html "
                   "(self-contained, charts inline) or FILE.md (Markdown tables)")
    p.set_defaults(handler=_compare)
