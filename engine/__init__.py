"""sigboard's engine: every computation behind the leaderboard (no UI imports here).

Names are loaded on first use (PEP 562 ``__getattr__``): ``python -m engine`` and
``import engine`` cost almost nothing, and each command imports only the modules it
uses (the store and SQLAlchemy only for store URLs, statsmodels only for tests).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ._ab import ABResult, compare_ab
    from ._across import ACROSS_VALUES, MetricsTable, pairs_across_metrics
    from ._additive import AdditiveFit, additive_fit
    from ._aggregate import aggregate_metric
    from ._bootstrap import BOOTSTRAP_COLUMNS, BootstrapResult, bootstrap_ranks
    from ._bt_bootstrap import BTIntervals, bt_bootstrap
    from ._condition import ConditionResult, condition_and_compare
    from ._contract import (
        KEY_COLUMNS,
        REQUIRED_COLUMNS,
        DataContractError,
        MetricSpec,
        MetricSpecs,
        Problem,
        spec_for,
        validate_long,
    )
    from ._describe import BOX_COLUMNS, BoxStats, box_stats
    from ._drilldown import ExampleDrilldown, example_drilldown
    from ._elo import Battles, SequentialRatings, battles_from_scores, sequential_elo, sequential_trueskill
    from ._friedman import Friedman, friedman, friedman_of
    from ._groups import Groups, find_groups
    from ._health import HealthReport, benchmark_health
    from ._hmp import HMPResult, harmonic_mean_p
    from ._intervals import (
        newcombe_paired_ci,
        newcombe_unpaired_ci,
        paired_binary_ci,
        paired_numeric_ci,
        welch_ci,
        wilson_ci,
    )
    from ._leaderboard import LEADERBOARD_COLUMNS, Leaderboard, leaderboard
    from ._limits import Limits
    from ._matrix import ScoreMatrix, build_matrix, orient
    from ._mechanisms import (
        CORE_MECHANISMS,
        Davidson,
        Mechanisms,
        PBeats,
        davidson,
        kendall_tau_matrix,
        mechanisms,
        p_beats,
    )
    from ._meta import MetaResult, fixed_effect, standardized_means
    from ._multitest import adjust_pvalues
    from ._options import (
        ALTERNATIVES,
        COMPARISONS,
        CORRECTIONS,
        CRITERIA,
        EFFECT_THRESHOLDS,
        TESTS,
        Alternative,
        Comparison,
        Correction,
        Criterion,
        Test,
        TestOptions,
    )
    from ._overall import BenchmarkPart, Overall, benchmark_part, overall, overall_from_parts
    from ._overlap import MIN_PAIRED_OVERLAP
    from ._pairs_across import pairs_across
    from ._pairwise import PairwiseResult, pairwise_tests
    from ._parse_worker import parse_isolated
    from ._power import PowerResult, PowerScenario, power, simulate_power
    from ._rank_intervals import RANK_INTERVAL_COLUMNS, RankIntervals, rank_intervals, rank_intervals_of
    from ._ranking import BradleyTerry, bradley_terry, elo_scale, win_rates
    from ._readers import metric_specs_of, read_results, read_results_bytes, split_metadata
    from ._report import compare_report, leaderboard_report, report_format
    from ._runs import PairRunTest, RunsPairwise, pair_run_test, run_cube, runs_pairwise
    from ._slices import SliceTable, restrict_to_slice, slice_labels, slice_table
    from .harness import HARNESS_FORMATS, HarnessImport, detect_format, read_harness
    from .store import ConflictError, ResultsStore, UploadReport, open_store

#: module → the public names it defines
_EXPORTS: dict[str, tuple[str, ...]] = {
    "._report": (
        "compare_report",
        "leaderboard_report",
        "report_format",
    ),
    "._drilldown": (
        "ExampleDrilldown",
        "example_drilldown",
    ),
    "._condition": (
        "ConditionResult",
        "condition_and_compare",
    ),
    "._slices": (
        "SliceTable",
        "restrict_to_slice",
        "slice_labels",
        "slice_table",
    ),
    "._ab": (
        "ABResult", "compare_ab",
    ),
    "._across": (
        "ACROSS_VALUES", "MetricsTable", "pairs_across_metrics",
    ),
    "._additive": (
        "AdditiveFit", "additive_fit",
    ),
    "._aggregate": (
        "aggregate_metric",
    ),
    "._bootstrap": (
        "BOOTSTRAP_COLUMNS", "BootstrapResult", "bootstrap_ranks",
    ),
    "._contract": (
        "DataContractError", "KEY_COLUMNS", "MetricSpec", "MetricSpecs", "Problem", "REQUIRED_COLUMNS",
        "spec_for", "validate_long",
    ),
    "._describe": (
        "BOX_COLUMNS", "BoxStats", "box_stats",
    ),
    "._elo": (
        "Battles", "SequentialRatings", "battles_from_scores", "sequential_elo", "sequential_trueskill",
    ),
    "._friedman": (
        "Friedman", "friedman", "friedman_of",
    ),
    "._groups": (
        "Groups", "find_groups",
    ),
    "._health": (
        "HealthReport", "benchmark_health",
    ),
    "._hmp": (
        "HMPResult", "harmonic_mean_p",
    ),
    "._intervals": (
        "newcombe_paired_ci", "newcombe_unpaired_ci", "paired_binary_ci", "paired_numeric_ci",
        "welch_ci", "wilson_ci",
    ),
    "._leaderboard": (
        "LEADERBOARD_COLUMNS", "Leaderboard", "leaderboard",
    ),
    "._limits": (
        "Limits",
    ),
    "._matrix": (
        "ScoreMatrix", "build_matrix", "orient",
    ),
    "._mechanisms": (
        "CORE_MECHANISMS", "Davidson", "Mechanisms", "PBeats", "davidson", "kendall_tau_matrix",
        "mechanisms", "p_beats",
    ),
    "._meta": (
        "MetaResult", "fixed_effect", "standardized_means",
    ),
    "._multitest": (
        "adjust_pvalues",
    ),
    "._options": (
        "ALTERNATIVES", "Alternative", "COMPARISONS", "CORRECTIONS", "CRITERIA", "Comparison",
        "Correction", "Criterion", "EFFECT_THRESHOLDS", "TESTS", "Test", "TestOptions",
    ),
    "._overall": (
        "BenchmarkPart", "Overall", "benchmark_part", "overall", "overall_from_parts",
    ),
    "._pairs_across": (
        "pairs_across",
    ),
    "._overlap": (
        "MIN_PAIRED_OVERLAP",
    ),
    "._pairwise": (
        "PairwiseResult", "pairwise_tests",
    ),
    "._parse_worker": (
        "parse_isolated",
    ),
    "._power": (
        "PowerResult", "PowerScenario", "power", "simulate_power",
    ),
    "._rank_intervals": (
        "RANK_INTERVAL_COLUMNS", "RankIntervals", "rank_intervals", "rank_intervals_of",
    ),
    "._bt_bootstrap": (
        "BTIntervals", "bt_bootstrap",
    ),
    "._ranking": (
        "BradleyTerry", "bradley_terry", "elo_scale", "win_rates",
    ),
    "._readers": (
        "metric_specs_of", "read_results", "read_results_bytes", "split_metadata",
    ),
    "._runs": (
        "PairRunTest", "RunsPairwise", "pair_run_test", "run_cube", "runs_pairwise",
    ),
    ".harness": (
        "HARNESS_FORMATS", "HarnessImport", "detect_format", "read_harness",
    ),
    ".store": (
        "ConflictError", "ResultsStore", "UploadReport", "open_store",
    ),
}
#: public name → the module that defines it
_HOMES: dict[str, str] = {name: home for home, names in _EXPORTS.items() for name in names}

__all__ = [
    "ABResult",
    "ACROSS_VALUES",
    "ALTERNATIVES",
    "AdditiveFit",
    "Alternative",
    "BOOTSTRAP_COLUMNS",
    "BOX_COLUMNS",
    "BTIntervals",
    "BenchmarkPart",
    "Battles",
    "BootstrapResult",
    "BoxStats",
    "BradleyTerry",
    "COMPARISONS",
    "CORE_MECHANISMS",
    "CORRECTIONS",
    "CRITERIA",
    "Comparison",
    "ConditionResult",
    "ConflictError",
    "Correction",
    "Criterion",
    "DataContractError",
    "Davidson",
    "EFFECT_THRESHOLDS",
    "ExampleDrilldown",
    "Friedman",
    "Groups",
    "HARNESS_FORMATS",
    "HMPResult",
    "HarnessImport",
    "HealthReport",
    "KEY_COLUMNS",
    "LEADERBOARD_COLUMNS",
    "Leaderboard",
    "Limits",
    "MIN_PAIRED_OVERLAP",
    "Mechanisms",
    "MetaResult",
    "MetricSpec",
    "MetricSpecs",
    "MetricsTable",
    "Overall",
    "PBeats",
    "PairRunTest",
    "PairwiseResult",
    "PowerResult",
    "PowerScenario",
    "Problem",
    "RANK_INTERVAL_COLUMNS",
    "REQUIRED_COLUMNS",
    "RankIntervals",
    "ResultsStore",
    "RunsPairwise",
    "ScoreMatrix",
    "SequentialRatings",
    "SliceTable",
    "TESTS",
    "Test",
    "TestOptions",
    "UploadReport",
    "additive_fit",
    "adjust_pvalues",
    "aggregate_metric",
    "battles_from_scores",
    "benchmark_health",
    "benchmark_part",
    "bootstrap_ranks",
    "box_stats",
    "bradley_terry",
    "bt_bootstrap",
    "build_matrix",
    "compare_ab",
    "compare_report",
    "condition_and_compare",
    "davidson",
    "detect_format",
    "elo_scale",
    "example_drilldown",
    "find_groups",
    "fixed_effect",
    "friedman",
    "friedman_of",
    "harmonic_mean_p",
    "kendall_tau_matrix",
    "leaderboard",
    "leaderboard_report",
    "mechanisms",
    "metric_specs_of",
    "newcombe_paired_ci",
    "newcombe_unpaired_ci",
    "open_store",
    "orient",
    "overall",
    "overall_from_parts",
    "p_beats",
    "pair_run_test",
    "paired_binary_ci",
    "paired_numeric_ci",
    "pairs_across",
    "pairs_across_metrics",
    "pairwise_tests",
    "parse_isolated",
    "power",
    "rank_intervals",
    "rank_intervals_of",
    "read_harness",
    "read_results",
    "read_results_bytes",
    "report_format",
    "restrict_to_slice",
    "run_cube",
    "runs_pairwise",
    "sequential_elo",
    "sequential_trueskill",
    "simulate_power",
    "slice_labels",
    "slice_table",
    "spec_for",
    "split_metadata",
    "standardized_means",
    "validate_long",
    "welch_ci",
    "wilson_ci",
    "win_rates",
]


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'engine' has no attribute {name!r}")
    value = getattr(importlib.import_module(home, __name__), name)
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
