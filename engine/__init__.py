"""sigboard's engine: every computation behind the leaderboard (no UI imports here).

The front door is in tiers, each a module whose public API is written once, in its
``TYPE_CHECKING`` block, which type checkers read and which at run time (parsed once, on
the first look-up) drives ``__all__`` and the lazy loader (:mod:`engine._lazy`): names load
on first use (PEP 562 ``__getattr__``), so ``import engine`` and ``sigboard --help`` cost
almost nothing and each command imports only the modules it uses. A class or function
says where it is public in its ``repr`` (``engine.ScoreMatrix``, not the private file).

- ``engine`` (this module) — the workflow: the verbs (read, ingest, build the matrix, test,
  rank, compare, report, store), :class:`TestOptions`, the data contract and the errors;
- ``engine.results`` — the types those verbs return;
- ``engine.app_support`` — what only the Streamlit app needs (escaping, credential
  masking, page sentences, SVG, server warm-up, the pages' plumbing): not a stable API;
- everything else is importable from the module that defines it (tests, benchmarks and
  the CLI do so) and may move.

Naming rule for results: a result type is the noun for what it holds (``Leaderboard``,
``HealthReport``, ``RankSets``, ``PairwiseTests``); none ends in ``Result``, and each has
one name, the same where it is defined and where it is exported.

The constants of the front door:

- ``REQUIRED_COLUMNS`` — the columns of the canonical long table;
- ``KEY_COLUMNS`` — the columns that identify one score (one row per key);
- ``HARNESS_FORMATS`` — every harness log format :func:`read_harness` reads;
- ``TESTS``, ``CORRECTIONS``, ``COMPARISONS``, ``ALTERNATIVES``, ``CRITERIA`` — the values
  each field of :class:`TestOptions` accepts (the menus list them);
- ``EFFECT_THRESHOLDS`` — the smallest |effect| each effect-size criterion asks for;
- ``OPTION_NAMES`` — each option value by the name menus, sentences and the CLI give it;
- ``OnConflict`` — what the store does when an upload's keys are already stored.

The folders answer one question each:

- ``engine.io`` — how does a file become the canonical long table (contract, limits,
  formats, readers, the isolated parser)?
- ``engine.harness`` — how does an evaluation harness's log become that table?
- ``engine.intake`` — the one decision about an upload, in the memory-capped child;
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

import functools
from typing import TYPE_CHECKING

from ._lazy import Home, homes, lazy_module

__version__ = "0.1.0"  # the one place the version is written (pyproject.toml reads it)

if TYPE_CHECKING:
    # --- The data contract and the errors -------------------------------------------------
    from ._contract import KEY_COLUMNS, REQUIRED_COLUMNS, DataContractError, MetricSpec, Problem
    from ._contract import validate_long
    from .io._judge import JudgeContractError
    from .store import ConflictError, UnsafeStoreError

    # --- Data in: files, uploads, harness logs, battle lists and the store ----------------
    from .intake import ingest
    from .io._limits import Limits
    from .io._readers import read_results
    from .io._battles import read_battles
    from .harness import HARNESS_FORMATS, read_harness
    from .store import OnConflict, ResultsStore, open_store
    from .store._viewer import open_viewer_store

    # --- The test options and the score matrix --------------------------------------------
    from ._options import ALTERNATIVES, COMPARISONS, CORRECTIONS, CRITERIA, EFFECT_THRESHOLDS
    from ._options import OPTION_NAMES, TESTS, TestOptions
    from ._matrix import ScoreMatrix, build_matrix
    from .stats._clusters import ClusterDesign, cluster_codes

    # --- One benchmark: tests, multiplicity, A/B, power, bootstrap ------------------------
    from .stats._pairwise import pairwise_tests
    from .stats._multitest import adjust_pvalues
    from .stats._ab import compare_ab
    from .stats._power import power
    from .stats._bootstrap import bootstrap_ranks

    # --- The products: one call per page --------------------------------------------------
    from .products._leaderboard import leaderboard
    from .products._health import benchmark_health
    from .products._slices import slice_table
    from .products._condition import condition_and_compare
    from .products._drilldown import example_drilldown
    from .products._overall import overall
    from .products._watch_board import watch_board
    from .products._judge import judge_board
    from .products._judge_gate import judge_gate
    from .report._reports import compare_report, leaderboard_report

    # --- Ranking: ratings, mechanisms and the uncertainty of ranks ------------------------
    from .ranking._bradley_terry import bradley_terry
    from .ranking._arena import arena_ratings
    from .ranking._mechanisms import mechanisms, p_beats
    from .ranking._rank_intervals import rank_intervals, rank_intervals_of
    from .ranking._rank_sets import rank_sets
    from .ranking._mean_covariance import rank_sets_of

    # --- Across benchmarks and metrics ----------------------------------------------------
    from .across._hmp import harmonic_mean_p
    from .across._friedman import friedman
    from .across._metrics_table import pairs_across_metrics


#: names that left the front door, still importable (with a DeprecationWarning) until the
#: files that import them from here are updated: name → its new public module
MOVED: dict[str, str] = {}


@functools.cache
def _homes() -> dict[str, Home]:
    """Public name → (its defining module, its name there), from the block above."""
    return homes(__file__)


__getattr__, __dir__ = lazy_module(__name__, _homes, globals(), MOVED)
