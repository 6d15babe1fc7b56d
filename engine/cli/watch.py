"""Command ``watch``: an A/B gate that stays valid however often it is re-run.

``compare`` answers at one sample size fixed in advance; re-run after every upload
until it "looks significant", its 5% test rejects a true null far more often.
``watch`` keeps a confidence sequence (:mod:`engine.stats._confseq`) of the paired
difference instead: its interval and always-valid p-value hold at every look.
"""

from __future__ import annotations

import argparse
import math
import sys
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ._common import Loaded, add_data_options, closest, emit, load_data, wants_json
from ._json import EXIT_CANNOT_DECIDE, watch_json
from ._options_flags import add_alpha
from ._stats_compare import _ALL, _count, _declared
from ._stats_compare import _bounds_json as bounds_json
from ._text import fmt_number

if TYPE_CHECKING:
    from ..stats._arrivals import WatchReport
    from ..stats._missing_bounds import MissingBounds

__all__ = ["register"]

WATCH_EXIT_CODES = """exit codes:
  0  the candidate is not shown worse: better, or undecided so far (keep collecting),
     or the budget --max-n reached without a difference
  1  the candidate is worse: the confidence sequence lies below 0 (always valid: the
     verdict holds however many times the gate was run before)
  2  bad input (unknown system, unreadable DATA, bad option); nothing is watched — or
     cannot decide: one system lacks more than 10% of the examples the other has and the
     verdict does not hold with them at the worst and the best score, put where they would
     have arrived (--allow-missing N declares up to N per side)

DATA: a store URL (the watch is kept in the store, each upload a batch, updated from
the uploads it has not seen), or result files, each file one batch in the order given.
An example arrives in the batch where both systems first have it (runs averaged per
example within the batches up to then); with --cluster whole clusters are the unit."""


def _bounds(text: str | None) -> tuple[float, float] | str | None:
    if text is None or text == "auto":
        return "auto"
    if text == "none":
        return None
    try:
        lo, hi = (float(v) for v in text.split(","))
    except ValueError:
        raise ValueError(f"--bounds: give LO,HI (e.g. 0,1), 'auto' or 'none'; got {text!r}") \
            from None
    return (lo, hi)


def verdict(report: WatchReport) -> tuple[str, int]:
    """The always-valid verdict and its exit code."""
    from ..stats._watch_missing import watch_verdict

    return watch_verdict(report)


def _run(args: argparse.Namespace) -> tuple[WatchReport, MissingBounds | None]:
    """The watch, and its verdict bounded over the examples one side lacks."""
    report, frame, higher, binary = _watched(args)
    from ..stats._watch_missing import watch_bounds

    return report, _declared(watch_bounds(frame, report, higher_is_better=higher,
                                          binary=binary), args.allow_missing)


def _watched(args: argparse.Namespace) -> tuple[WatchReport, Any, bool, bool | None]:
    from .._options import TestOptions

    bounds = _bounds(args.bounds)
    if len(args.data) == 1 and "://" in args.data[0]:
        from .._matrix import pick_slice
        from ._common import open_existing

        store = open_existing(args.data[0])
        bench, met = pick_slice(store.catalog(), args.benchmark, args.metric)
        report = store.watch(bench, met, baseline=args.baseline, candidate=args.candidate,
                             cluster=args.cluster, options=TestOptions(alpha=args.alpha),
                             bounds=bounds, sigma=args.sigma, max_n=args.max_n)
        stored = store.metric_spec(bench, met)
        rows = store.watch_rows(bench, met, [args.baseline, args.candidate],
                                cluster=args.cluster)
        return report, rows, stored.higher_is_better, stored.binary
    import pandas as pd

    from .._matrix import pick_slice
    from ..stats._arrivals import watch_frame

    if any("://" in d for d in args.data):
        raise ValueError("DATA: a store URL must be the only DATA argument")
    parts = [load_data([path]) for path in args.data]
    frame = pd.concat([p.frame.assign(batch=i + 1) for i, p in enumerate(parts)],
                      ignore_index=True)
    frame.attrs["metric_specs"] = {k: v for p in parts
                                   for k, v in p.frame.attrs.get("metric_specs", {}).items()}
    loaded = Loaded(frame, specs={k: v for p in parts for k, v in p.specs.items()})
    bench, met = pick_slice(frame, args.benchmark, args.metric)
    known = set(frame.loc[(frame["benchmark"] == bench) & (frame["metric"] == met), "system"])
    for flag, name in (("baseline", args.baseline), ("candidate", args.candidate)):
        if name not in known:
            raise ValueError(closest(name, sorted(map(str, known)), flag) + f" (on {bench}/{met})")
    spec = loaded.spec(bench, met)
    if args.lower_is_better:
        spec = replace(spec, higher_is_better=False)
    report = watch_frame(frame, baseline=args.baseline, candidate=args.candidate,
                         benchmark=bench, metric=met, higher_is_better=spec.higher_is_better,
                         binary=spec.binary, cluster=args.cluster,
                         options=TestOptions(alpha=args.alpha), bounds=bounds, sigma=args.sigma,
                         max_n=args.max_n)
    return report, frame, spec.higher_is_better, spec.binary


def _text(report: WatchReport, text: str) -> str:
    ci = f"[{fmt_number(report.cs_low, 3)}, {fmt_number(report.cs_high, 3)}]"
    level = f"{1 - report.alpha:.0%}"
    unit = "clusters" if report.cluster else "examples"
    lines = [f"{report.candidate} vs {report.baseline} on {report.benchmark}/{report.metric}: "
             f"{text}",
             f"difference = {report.candidate} − {report.baseline} (positive = candidate "
             f"better): {level} confidence sequence {ci}, always-valid p = "
             f"{fmt_number(report.p_always_valid, 3)}; n = {report.n_seen} {unit} "
             f"({report.method})"]
    if report.rebuilt:
        lines.append("note: an upload this watch had seen was deleted or replaced; the "
                     "sequence was rebuilt from the store as it is now")
    if report.dropped:
        lines.append(f"note: {report.dropped} example(s) arrived after their cluster was "
                     "observed and are not used (upload clusters whole)")
    return "\n".join(lines) + "\n"


def _watch(args: argparse.Namespace) -> int:
    if not (0 < args.alpha < 1) or math.isnan(args.alpha):
        raise ValueError(f"--alpha: must be in (0, 1); got {args.alpha!r}")
    report, missing = _run(args)
    text, code = verdict(report)
    if missing is not None and not missing.decided:
        code = EXIT_CANNOT_DECIDE  # the verdict does not survive the examples one side lacks
    if wants_json(args):
        out = watch_json(report, verdict=text, exit_code=code)
        if missing is not None:
            out["missing_bounds"] = bounds_json(missing)
        emit(out, None, "json")
    else:
        sys.stdout.write(("" if missing is None else missing.sentence() + "\n")
                         + _text(report, text))
    if missing is not None and not missing.decided:
        print(missing.sentence(), file=sys.stderr)
    return code


def register(sub: Any) -> None:
    """Add ``watch`` to the ``python -m engine`` parser."""
    p = sub.add_parser("watch", help="anytime-valid A/B gate: a confidence sequence updated "
                       "per upload (exit 1 when the candidate is shown worse)",
                       epilog=WATCH_EXIT_CODES,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    add_data_options(p)
    p.add_argument("--baseline", required=True)
    p.add_argument("--candidate", required=True)
    p.add_argument("--cluster", help="per-example column (store: example attribute) whose "
                   "clusters are the unit of the sequence")
    add_alpha(p, meaning="level")
    p.add_argument("--max-n", type=int, help="budget: observations after which the watch stops")
    p.add_argument("--bounds", help="score bounds LO,HI for the betting sequence; 'auto' "
                   "(default: [0, 1] for 0/1 or [0, 1] scores), 'none' = unbounded "
                   "(normal mixture)")
    p.add_argument("--sigma", type=float, help="sub-Gaussian scale of unbounded differences, "
                   "when known (default: self-normalised)")
    p.add_argument("--lower-is-better", action="store_true", help="metric direction (files)")
    p.add_argument("--allow-missing", nargs="?", type=_count, const=_ALL, default=None,
                   metavar="N", help="declare the examples one system lacks and the other has "
                   "(any number; with N: up to N per side); undeclared, exit 2 when the "
                   "verdict does not hold with them at the worst and the best score")
    p.set_defaults(handler=_watch)
