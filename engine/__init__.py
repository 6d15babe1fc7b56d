"""sigboard's engine: every computation behind the leaderboard (no UI imports here).

Names are loaded on first use (PEP 562 ``__getattr__``): ``python -m engine`` and
``import engine`` cost almost nothing, and each command imports only the modules it
uses (the store and SQLAlchemy only for store URLs, statsmodels only for tests).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ._across import ACROSS_VALUES, MetricsTable, pairs_across_metrics
    from ._bootstrap import BOOTSTRAP_COLUMNS, BootstrapResult, bootstrap_ranks
    from ._contract import (
        KEY_COLUMNS,
        REQUIRED_COLUMNS,
        DataContractError,
        MetricSpec,
        Problem,
        validate_long,
    )
    from ._describe import BOX_COLUMNS, BoxStats, box_stats
    from ._groups import Groups, TooManyCliquesError, find_groups
    from ._health import HealthReport, benchmark_health
    from ._leaderboard import LEADERBOARD_COLUMNS, Leaderboard, leaderboard
    from ._matrix import ScoreMatrix, build_matrix, orient
    from ._options import (
        ALTERNATIVES,
        COMPARISONS,
        CORRECTIONS,
        CRITERIA,
        EFFECT_THRESHOLDS,
        TESTS,
        TestOptions,
    )
    from ._pairwise import PairwiseResult, pairwise_tests
    from ._ranking import BradleyTerry, bradley_terry, elo_scale, win_rates
    from ._readers import metric_specs_of, read_results, read_results_bytes, split_metadata
    from .store import ConflictError, ResultsStore, UploadReport, open_store

#: public name → the module that defines it
_HOMES: dict[str, str] = {
    **dict.fromkeys(("ACROSS_VALUES", "MetricsTable", "pairs_across_metrics"), "._across"),
    **dict.fromkeys(("BOOTSTRAP_COLUMNS", "BootstrapResult", "bootstrap_ranks"), "._bootstrap"),
    **dict.fromkeys(("KEY_COLUMNS", "REQUIRED_COLUMNS", "DataContractError", "MetricSpec",
                     "Problem", "validate_long"), "._contract"),
    **dict.fromkeys(("BOX_COLUMNS", "BoxStats", "box_stats"), "._describe"),
    **dict.fromkeys(("Groups", "TooManyCliquesError", "find_groups"), "._groups"),
    **dict.fromkeys(("HealthReport", "benchmark_health"), "._health"),
    **dict.fromkeys(("LEADERBOARD_COLUMNS", "Leaderboard", "leaderboard"), "._leaderboard"),
    **dict.fromkeys(("ScoreMatrix", "build_matrix", "orient"), "._matrix"),
    **dict.fromkeys(("ALTERNATIVES", "COMPARISONS", "CORRECTIONS", "CRITERIA",
                     "EFFECT_THRESHOLDS", "TESTS", "TestOptions"), "._options"),
    **dict.fromkeys(("PairwiseResult", "pairwise_tests"), "._pairwise"),
    **dict.fromkeys(("BradleyTerry", "bradley_terry", "elo_scale", "win_rates"), "._ranking"),
    **dict.fromkeys(("metric_specs_of", "read_results", "read_results_bytes",
                     "split_metadata"), "._readers"),
    **dict.fromkeys(("ConflictError", "ResultsStore", "UploadReport", "open_store"), ".store"),
}

__all__ = [
    "ACROSS_VALUES",
    "ALTERNATIVES",
    "BOOTSTRAP_COLUMNS",
    "BOX_COLUMNS",
    "BootstrapResult",
    "BoxStats",
    "BradleyTerry",
    "COMPARISONS",
    "CORRECTIONS",
    "CRITERIA",
    "ConflictError",
    "DataContractError",
    "EFFECT_THRESHOLDS",
    "Groups",
    "HealthReport",
    "KEY_COLUMNS",
    "LEADERBOARD_COLUMNS",
    "Leaderboard",
    "MetricSpec",
    "MetricsTable",
    "PairwiseResult",
    "Problem",
    "REQUIRED_COLUMNS",
    "ResultsStore",
    "ScoreMatrix",
    "TESTS",
    "TestOptions",
    "TooManyCliquesError",
    "UploadReport",
    "benchmark_health",
    "bootstrap_ranks",
    "box_stats",
    "bradley_terry",
    "build_matrix",
    "elo_scale",
    "find_groups",
    "leaderboard",
    "metric_specs_of",
    "open_store",
    "orient",
    "pairs_across_metrics",
    "pairwise_tests",
    "read_results",
    "read_results_bytes",
    "split_metadata",
    "validate_long",
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
