"""sigboard's engine: every computation behind the leaderboard (no UI imports here)."""

from ._across import ACROSS_VALUES, MetricsTable, pairs_across_metrics
from ._bootstrap import BOOTSTRAP_COLUMNS, BootstrapResult, bootstrap_ranks
from ._contract import KEY_COLUMNS, REQUIRED_COLUMNS, DataContractError, Problem, validate_long
from ._describe import BOX_COLUMNS, BoxStats, box_stats
from ._groups import Groups, TooManyCliquesError, find_groups
from ._health import HealthReport, benchmark_health
from ._leaderboard import LEADERBOARD_COLUMNS, Leaderboard, leaderboard
from ._matrix import ScoreMatrix, build_matrix, orient
from ._pairwise import (
    ALTERNATIVES,
    COMPARISONS,
    CORRECTIONS,
    CRITERIA,
    EFFECT_THRESHOLDS,
    TESTS,
    PairwiseResult,
    pairwise_tests,
)
from ._ranking import BradleyTerry, bradley_terry, elo_scale, win_rates
from ._readers import MetricSpec, metric_specs_of, read_results, read_results_bytes, split_metadata
from ._store import ConflictError, ResultsStore, UploadReport, open_store

__all__ = [
    "ACROSS_VALUES",
    "BOOTSTRAP_COLUMNS",
    "BootstrapResult",
    "BOX_COLUMNS",
    "BoxStats",
    "box_stats",
    "MetricsTable",
    "bootstrap_ranks",
    "pairs_across_metrics",
    "ALTERNATIVES",
    "COMPARISONS",
    "CORRECTIONS",
    "CRITERIA",
    "EFFECT_THRESHOLDS",
    "TESTS",
    "metric_specs_of",
    "read_results_bytes",
    "LEADERBOARD_COLUMNS",
    "BradleyTerry",
    "ConflictError",
    "HealthReport",
    "MetricSpec",
    "ResultsStore",
    "UploadReport",
    "benchmark_health",
    "open_store",
    "read_results",
    "split_metadata",
    "Groups",
    "Leaderboard",
    "PairwiseResult",
    "TooManyCliquesError",
    "bradley_terry",
    "elo_scale",
    "find_groups",
    "leaderboard",
    "pairwise_tests",
    "win_rates",
    "KEY_COLUMNS",
    "REQUIRED_COLUMNS",
    "DataContractError",
    "Problem",
    "ScoreMatrix",
    "build_matrix",
    "orient",
    "validate_long",
]
