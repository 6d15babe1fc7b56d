"""``python -m engine health``: benchmark health (noise thresholds, suspect examples, MDD).

Which slices are analysed: every (benchmark, metric) present in DATA, narrowed by
``--benchmark`` and ``--metric``. With exactly one slice the JSON output is the
SPEC object (plus ``benchmark``, ``metric`` and the extra fields of
:func:`engine.cli._json.health_json`); with several it is a list of such objects, in the
order the benchmarks and metrics first appear in DATA. When several slices are
analysed, a slice the report cannot handle (scores outside [0, 1], no example
shared by every system) is skipped with a note on stderr; if every slice fails,
or the one slice asked for does, the command exits with 2.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from ._common import add_data_options, emit, load_data, output_format
from ._json import health_json
from ._options_flags import add_alpha

if TYPE_CHECKING:
    import pandas as pd

    from ..products._health import HealthReport

__all__ = ["health_command", "register", "slices"]


def register(subparsers: Any) -> None:
    """Add the ``health`` subcommand."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "health", help="benchmark health: noise thresholds, suspect examples, MDD",
        description="Per benchmark and metric: p5_min/p5_max, the smallest significant and "
        "largest non-significant gap (sign tests over example battles for binary metrics, "
        "paired t-tests in the metric's units for numeric ones), examples no system or one "
        "system solves and suspect examples (Kendall tau < 0) where 'solved' is defined "
        "(binary metrics, or a threshold), standard errors and the minimum detectable "
        "difference. Without --benchmark/--metric every benchmark and metric in DATA is "
        "analysed.")
    add_data_options(parser)
    add_alpha(parser, meaning="significance level of the sign tests and the MDD")
    parser.add_argument("--power", type=float, default=0.8,
                        help="power of the minimum detectable difference (default 0.8)")
    parser.add_argument("--threshold", type=float, default=None,
                        help="for a numeric metric: the score at or above which an example "
                        "counts as solved (default: the metric's declared threshold; without "
                        "one, 'solved' is not defined and its counts are left empty)")
    parser.add_argument("--bins", type=int, default=10,
                        help="bins of the difficulty histogram (default 10)")
    parser.add_argument("--cluster", default=None, metavar="COL",
                        help="per-example column (e.g. passage): cluster-robust pair tests, "
                        "SEs and MDD (CR2); JSON n_clusters and design_effect")
    parser.set_defaults(handler=health_command)


def slices(df: pd.DataFrame, benchmark: str | None, metric: str | None) -> list[tuple[str, str]]:
    """The (benchmark, metric) pairs to analyse, in order of first appearance.

    An unknown ``benchmark``/``metric`` is passed through so that
    :func:`build_matrix` reports it with the names that are present.
    """
    keys = df[["benchmark", "metric"]].drop_duplicates()
    if benchmark is not None:
        keys = keys[keys["benchmark"] == benchmark]
    if metric is not None:
        keys = keys[keys["metric"] == metric]
    found = [(str(b), str(m)) for b, m in keys.itertuples(index=False)]
    if found:
        return found
    return [(benchmark or str(df["benchmark"].iloc[0]), metric or str(df["metric"].iloc[0]))]


def _row(report: HealthReport) -> dict[str, Any]:
    solved = report.solved_defined  # "solved" counts mean nothing without a definition
    return {
        "benchmark": report.benchmark, "metric": report.metric, "size": report.size,
        "systems": len(report.systems), "test": report.noise_test, "units": report.units,
        "p5_min": report.p5_min, "p5_max": report.p5_max,
        "no_solve": len(report.no_solve) if solved else None,
        "solved_by_one": len(report.solved_by_one) if solved else None,
        "tau_neg": report.tau_neg if solved else None, "sd_diff": report.sd_diff,
        "se_diff": report.se_diff, "mdd": report.mdd, "dropped": report.n_dropped,
    }


def health_command(args: argparse.Namespace) -> int:
    """Run ``health`` on DATA; exit code 0 (bad input raises ``ValueError`` → 2)."""
    from .._matrix import build_matrix
    from .._options import TestOptions
    from ..products._health import benchmark_health
    from ._stats_common import cluster_design

    loaded = load_data(args.data)
    df = loaded.frame
    reports: list[HealthReport] = []
    todo = slices(df, args.benchmark, args.metric)
    first_error: ValueError | None = None
    for bench, met in todo:
        try:
            # the stored (or read) definition: a lower-is-better error metric counts
            # the system that erred least as solving, never the one that erred most
            spec = loaded.spec(bench, met)
            matrix = build_matrix(df, benchmark=bench, metric=met, spec=spec)
            threshold = args.threshold if args.threshold is not None else spec.threshold
            reports.append(benchmark_health(matrix, options=TestOptions(alpha=args.alpha),
                                            power=args.power,
                                            threshold=threshold, bins=args.bins,
                                            cluster=cluster_design(args, loaded, matrix)))
        except ValueError as exc:
            if len(todo) == 1:
                raise
            first_error = first_error or exc
            print(f"note: skipped: {exc}", file=sys.stderr)
    if not reports:
        assert first_error is not None
        raise first_error
    objects = [health_json(r) for r in reports]
    payload: Any = objects[0] if len(todo) == 1 else objects
    import pandas as pd

    table = pd.DataFrame([_row(r) for r in reports]).round(4)
    emit(payload, table, output_format(args))
    return 0
