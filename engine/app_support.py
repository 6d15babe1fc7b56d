# ruff: noqa: F401, I001
# mypy: implicit-reexport
"""What only the Streamlit app needs from the engine: not a stable API.

Escaping of uploaded text for HTML and Markdown, credential masking, the pages' sentences
and headlines, the SVG of the watch sequences, the server's kernel warm-up, and the
plumbing of the pages (the Overall page's parts, the judge page's budget, the upload's
metadata). The app imports ``engine``, :mod:`engine.results` and this module only
(``tests/test_layering.py`` holds it); these names change with the pages that use them.

Lazy like :mod:`engine`: the ``TYPE_CHECKING`` block below is the table of names.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

from ._lazy import Home, homes, lazy_module

if TYPE_CHECKING:
    # --- Text: names and uploaded text made inert in HTML, Markdown and plain text --------
    from ._text import html_text, isolate, masked, md_isolated, md_text, one_line_all, safe_url
    from ._units import POINTS, difference_text, interval_text, score_text, zero_one

    # --- Sentences and headlines of the pages ---------------------------------------------
    from .products._headline import (
        compare_headline, error_rate_words, leaderboard_headline, overall_headline, pair_headline,
    )
    from .ranking._rank_sets import best_set_sentence

    # --- Figures --------------------------------------------------------------------------
    from .report._svg import NAME_CHARS, cut_name, nice_ticks
    from .report._watch_svg import sequence_svg
    from .report._overall_json import overall_document
    from .stats._describe import box_stats
    from .ranking._arena import arena_elo, win_rate_matrix

    # --- The Upload page ------------------------------------------------------------------
    from .io._readers import is_text, metric_specs_of, split_metadata
    from .harness._grouping import belong_together
    from .io._judge import INCLUSION_COLUMN, human_metric_for, label_preview

    # --- The pages' plumbing --------------------------------------------------------------
    from .stats._overlap import MIN_PAIRED_OVERLAP
    from .stats._missing_bounds import TOLERANCE as MISSING_TOLERANCE, missing_bounds
    from .stats._missing import ALPHA_MISSING, missing_checks
    from .products._judge_missing import judge_gate_bounds
    from .products._slices import restrict_to_slice, slice_labels
    from .products._condition import system_identifiers
    from .products._overall import benchmark_part, overall_from_parts
    from .products._overall_parts import choose_overall
    from .products._overall_judge import judged_part
    from .ranking._groups import find_groups
    from .across._coverage import default_selection
    from .across._bounded import leading_systems
    from .across._joint import joint_model
    from .across._joint_cells import connected_selection
    from .across._joint_words import SCALE_TEXT as JOINT_SCALE_TEXT, joint_document
    from .across._joint_words import joint_headline, joint_notes
    from .products._judge import budget_check, label_budget
    from .products._judge_pair import judge_pair_figures
    from .products._judge_gate import report_with_gate
    from .products._judge_battles import judge_battle_board
    from .io._battles_judged import judged_battles
    from .store._judge_links import judge_links
    from .store._reads import RUN_FIELDS

    # --- The Audit page: a public board's per-system files, audited -------------------------
    from .io._board import read_board
    from .products._audit import audit_board

    # --- Repeated tries: the Leaderboard's reliability view, the Examples page's flaky list -
    from .stats._passk import PassKCurves, pass_k_curves
    from .stats._passk_reliability import Reliability, reliability

    # --- Cost and speed beside quality: the upload's usage, the Trade-offs page -------------
    from ._contract import USAGE_METRICS
    from .harness._usage import USAGE_MEANINGS, usage_table
    from .products._pareto import (
        CERTAINLY_DOMINATED, POSSIBLY_OPTIMAL, PRICE_COLUMNS, ParetoSet, cost_from_prices,
        pareto_set,
    )

    # --- Server start: compile the kernels ahead of the first request ---------------------
    from ._warm import warm_kernels


@functools.cache
def _homes() -> dict[str, Home]:
    """Public name → (its defining module, its name there), from the block above."""
    return homes(__file__)


__getattr__, __dir__ = lazy_module(__name__, _homes, globals())
