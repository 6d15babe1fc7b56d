# ruff: noqa: F401, I001
# mypy: implicit-reexport
"""The result types of the engine's verbs: frozen records of what each computation found.

Naming rule (written in :mod:`engine`): a result type is the noun for what it holds
(``PairwiseTests``, ``ABComparison``); none ends in ``Result``.

Lazy like :mod:`engine`: the ``TYPE_CHECKING`` block below is the table of names, which
drives ``__all__`` and the loader (:mod:`engine._lazy`), so importing this module loads
nothing until a name is used.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

from ._lazy import Home, homes, lazy_module

if TYPE_CHECKING:
    # --- Data in --------------------------------------------------------------------------
    from .intake import Ingested
    from .harness import HarnessImport
    from .store import UploadReport

    # --- One benchmark --------------------------------------------------------------------
    from .stats._pairwise import PairwiseTests
    from .stats._ab import ABComparison
    from .stats._missing_bounds import MissingBounds
    from .stats._power import PowerAnalysis
    from .stats._bootstrap import RankBootstrap
    from .stats._describe import BoxStats
    from .stats._runs_pairs import PairRunTest

    # --- The products ---------------------------------------------------------------------
    from .products._leaderboard import Leaderboard
    from .products._health import HealthReport
    from .products._slices import SliceTable
    from .products._condition import ConditionComparison
    from .products._drilldown import ExampleDrilldown
    from .products._overall import Overall
    from .products._overall_parts import BenchmarkPart
    from .across._coverage import Selection
    from .products._watch_board import WatchBoard
    from .products._judge import JudgeBoard, LabelBudget
    from .products._judge_gate import JudgeGate
    from .products._judge_battles import JudgeBattleBoard

    # --- Ranking --------------------------------------------------------------------------
    from .ranking._bradley_terry import BradleyTerry
    from .ranking._arena import ArenaRatings
    from .ranking._mechanisms import Mechanisms, PBeats
    from .ranking._rank_intervals import RankIntervals
    from .ranking._rank_sets import RankSets

    # --- Across benchmarks and metrics ----------------------------------------------------
    from .across._hmp import HarmonicMeanP
    from .across._friedman import Friedman
    from .across._metrics_table import MetricsTable
    from .across._joint import JointFit


@functools.cache
def _homes() -> dict[str, Home]:
    """Public name → (its defining module, its name there), from the block above."""
    return homes(__file__)


__getattr__, __dir__ = lazy_module(__name__, _homes, globals())
