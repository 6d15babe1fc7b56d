"""Commands ``leaderboard``, ``pairwise`` (also ``--across``), ``compare`` and ``overall``.

One module per command group: :mod:`._stats_board` (leaderboard, overall),
:mod:`._stats_pairs` (pairwise), :mod:`._stats_compare` (compare); what they share is in
:mod:`._stats_common`.
"""

from __future__ import annotations

from typing import Any

from . import _stats_board, _stats_compare, _stats_pairs

__all__ = ["register"]


def register(sub: Any) -> None:
    """Add the statistics commands to the ``python -m engine`` parser."""
    _stats_board.register_leaderboard(sub)
    _stats_pairs.register(sub)
    _stats_compare.register(sub)
    _stats_board.register_overall(sub)
