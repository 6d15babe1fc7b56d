"""sigboard's engine: every computation behind the leaderboard (no UI imports here).

The public API is written once, in the ``TYPE_CHECKING`` block below, grouped by who
reaches for it. That block is what type checkers read, and at run time the same block
(parsed once, on the first look-up) drives ``__all__`` and the lazy loader: names load on
first use (PEP 562 ``__getattr__``), so ``import engine`` and ``sigboard --help`` cost
almost nothing and each command imports only the modules it uses (the store and
SQLAlchemy only for store URLs, statsmodels only for tests).

The folders answer one question each:

- ``engine.io`` — how does a file become the canonical long table (contract, limits,
  formats, readers, the isolated parser)?
- ``engine.harness`` — how does an evaluation harness's log become that table?
- ``engine.store`` — where do results live, with their history?
- ``engine.stats`` — is one system better than another on one benchmark (tests,
  intervals, multiplicity, runs, A/B, power, bootstrap)?
- ``engine.ranking`` — in what order do the systems come (Bradley–Terry, Elo/TrueSkill,
  mechanisms, groups, rank intervals)?
- ``engine.across`` — what holds across benchmarks and metrics (HMP, meta-analysis,
  aggregate metric, coverage, Friedman)?
- ``engine.products`` — what each page shows (leaderboard, overall leaderboard, health,
  slices, conditions, drill-down);
- ``engine.report`` — the one-file HTML and Markdown reports;
- ``engine.cli`` — the ``sigboard`` command line.

The data contract, the score matrix and the test options, which every folder uses, are
modules at the top (``_contract``, ``_matrix``, ``_options``), with the one escaping module
of every page, chart and report (``_text``) and the optional compiled kernels (``_jit``).
"""

from __future__ import annotations

import ast
import functools
import importlib
from pathlib import Path
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"  # the one place the version is written (pyproject.toml reads it)

if TYPE_CHECKING:
    # --- Data in: the contract, files, harness logs and the store -------------------------
    from ._contract import (
        KEY_COLUMNS, REQUIRED_COLUMNS, DataContractError, MetricSpec, MetricSpecs, Problem,
        spec_for, validate_long,
    )
    from .io._limits import Limits, check_produced, limits_in_force
    from .io._readers import (
        TableUpload, is_text, metric_specs_of, read_results, read_results_bytes,
        read_table_upload, split_metadata, table_upload_of,
    )
    from .io._worker import parse_isolated
    from .intake import Ingested, ingest
    from .io._battles import BATTLE_COLUMNS, WINNERS, is_battle_table, read_battles, validate_battles
    from .io._judge import (
        INCLUSION_COLUMN, JudgeContractError, JudgePair, LabelPreview, check_random_labels,
        human_metric_for,
        inclusion_probabilities, judge_pair, label_preview,
    )
    from .harness import HARNESS_FORMATS, HarnessImport, detect_format, read_harness
    from .store import (
        ConflictError, OnConflict, ResultsStore, UnsafeStoreError, UploadReport, open_store,
    )
    from .store._viewer import open_viewer_store
    from .store._judge_links import judge_link, judge_links, link_judge

    # --- The pages' answers: one call per product -----------------------------------------
    from .products._leaderboard import LEADERBOARD_COLUMNS, Leaderboard, leaderboard
    from .products._health import HealthReport, benchmark_health
    from .products._slices import SliceTable, restrict_to_slice, slice_labels, slice_table
    from .products._condition import ConditionResult, condition_and_compare, system_identifiers
    from .products._drilldown import ExampleDrilldown, example_drilldown
    from .products._overall import BenchmarkPart, Overall, benchmark_part, overall, overall_from_parts
    from .products._overall_judge import judged_note, judged_part
    from .products._overall_parts import choose_overall
    from .across._coverage import SELECTION_RULE, Selection, default_selection
    from .across._bounded import leading_systems
    from .products._headline import (
        compare_headline, error_rate_words, leaderboard_headline, overall_headline, pair_headline,
    )
    from .report._reports import compare_report, leaderboard_report, report_format
    from .products._watch_board import WATCH_BOARD_COLUMNS, WatchBoard, watch_board
    from .report._watch_svg import sequence_svg
    from .products._judge import (
        JUDGE_COLUMNS, JudgeBoard, LabelBudget, budget_check, judge_board,
        label_budget, predicted_width, simulate_ppi_width,
    )
    from .products._judge_pair import JudgePairFigures, judge_pair_figures
    from .io._battles_judged import HUMAN_WINNER, judged_battles
    from .products._judge_battles import JudgeBattleBoard, judge_battle_board
    from .products._judge_gate import MIN_GATE_LABELS, JudgeGate, judge_gate, report_with_gate

    # --- One benchmark: the systems × examples matrix and its tests -----------------------
    from ._matrix import ScoreMatrix, build_matrix, orient
    from ._options import (
        ALTERNATIVES, COMPARISONS, CORRECTIONS, CRITERIA, EFFECT_THRESHOLDS, TESTS,
        Alternative, Comparison, Correction, Criterion, Test, TestOptions,
    )
    from .stats._pairwise import PairwiseResult, pairwise_tests
    from .stats._overlap import MIN_PAIRED_OVERLAP
    from .stats._intervals import (
        newcombe_paired_ci, newcombe_unpaired_ci, paired_binary_ci, paired_numeric_ci, welch_ci,
        wilson_ci,
    )
    from .stats._multitest import adjust_pvalues
    from .stats._runs import run_cube
    from .stats._runs_pairs import PairRunTest, RunsPairwise, pair_run_test, runs_pairwise
    from .stats._ab import ABResult, compare_ab
    from .stats._clusters import ClusterDesign, cluster_codes
    from .stats._power import PowerResult, PowerScenario, power, simulate_power
    from .stats._bootstrap import BOOTSTRAP_COLUMNS, BootstrapResult, bootstrap_ranks
    from .stats._describe import BOX_COLUMNS, BoxStats, box_stats
    from .stats._additive import AdditiveFit, additive_fit
    from .stats._confseq import normal_mixture_halfwidth, start_sequence
    from .stats._arrivals import WatchReport, watch_frame
    from .stats._ebh import EBHResult, e_bh
    from .stats._ppi import PPIMean, PPIPairs, ppi_mean, ppi_means, ppi_pairs
    from .stats._ppi_ipw import ppi_ipw_means, ppi_ipw_pairs

    # --- Ranking: ratings, mechanisms, groups and rank intervals --------------------------
    from .ranking._bradley_terry import BradleyTerry, bradley_terry, elo_scale, win_rates
    from .ranking._bt_bootstrap import BTIntervals, bt_bootstrap
    from .ranking._bt_sandwich import bt_sandwich
    from .ranking._arena import (
        ArenaRatings, PairCounts, arena_elo, arena_ratings, pair_counts, win_rate_matrix,
    )
    from .ranking._sequential import (
        Battles, SequentialRatings, battles_from_scores, sequential_elo, sequential_trueskill,
    )
    from .ranking._mechanisms import (
        CORE_MECHANISMS, Davidson, Mechanisms, PBeats, davidson, kendall_tau_matrix, mechanisms,
        p_beats,
    )
    from .ranking._groups import Groups, find_groups
    from .ranking._rank_intervals import (
        RANK_INTERVAL_COLUMNS, RankIntervals, rank_intervals, rank_intervals_of,
    )
    from .ranking._rank_sets import (
        RANK_SET_COLUMNS, RankSets, best_set_sentence, rank_sets, tau_best_set, tau_worst_set,
    )
    from .ranking._mean_covariance import MeanCovariance, mean_covariance, rank_sets_of

    # --- Across benchmarks and metrics ----------------------------------------------------
    from .across._hmp import HMPResult, harmonic_mean_p
    from .across._meta import MetaResult, fixed_effect, standardized_means
    from .across._aggregate import aggregate_metric
    from .across._pairs_across import pairs_across
    from .across._metrics_table import ACROSS_VALUES, MetricsTable, pairs_across_metrics
    from .across._friedman import Friedman, friedman, friedman_of

    # --- Text: names and uploaded text made inert in HTML, Markdown and plain text --------
    from ._text import ISOLATE, JOINER, POP, html_text, isolate, md_isolated, md_text, one_line_all
    from ._text import masked, safe_url

    # --- Compiled kernels: compiled ahead of need (install, image build, server start) ----
    from ._warm import Warmed, warm_kernels


@functools.cache
def _homes() -> dict[str, str]:
    """Public name → the module that defines it, read from the ``TYPE_CHECKING`` block above."""
    tree = ast.parse(Path(__file__).read_text(encoding="utf-8"))
    block = next(node for node in tree.body
                 if isinstance(node, ast.If) and getattr(node.test, "id", "") == "TYPE_CHECKING")
    return {alias.asname or alias.name: "." * node.level + (node.module or "")
            for node in block.body if isinstance(node, ast.ImportFrom) for alias in node.names}


def __getattr__(name: str) -> Any:
    if name == "__all__":
        return sorted(_homes())
    home = _homes().get(name)
    if home is None:
        raise AttributeError(f"module 'engine' has no attribute {name!r}")
    value = getattr(importlib.import_module(home, __name__), name)
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_homes()})
