"""One way to write a score and a difference of scores, on every page and in the reports.

A 0/1 metric (pass/fail, exact match) is read as a share of examples: its scores are written
in percent ("82.9%") and a difference of two of them in percentage points ("+4.2 points"),
never as a fraction beside a percentage. Every other metric is written in its own units
with four decimals (as the pages' tables). Whether a metric is 0/1 is decided on its raw scores: with
repeated runs the per-example mean of 0/1 runs is a fraction (0.5), yet the metric is still
0/1 and its means still shares (:func:`zero_one`).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ._matrix import ScoreMatrix

__all__ = ["MISSING", "POINTS", "difference_text", "interval_text", "score_text", "zero_one"]

#: The unit of a difference of two percentages.
POINTS = "points"
#: A value that is not there (NaN, infinite).
MISSING = "—"


def zero_one(matrix: ScoreMatrix) -> bool:
    """Whether every raw score of ``matrix`` is 0 or 1: its scores read as percentages.

    ``matrix.binary`` answers a different question — whether the *cells* are 0/1, which
    picks the tests (McNemar) — and is False once several runs are averaged per example.
    Here the runs' own scores decide (``matrix.run_scores``), so a 0/1 metric run several
    times is still shown in percent. A metric declared numeric stays numeric.
    """
    if matrix.binary:
        return True
    if matrix.declared_binary is False or matrix.run_scores is None:
        return False
    values = matrix.run_scores["value"].to_numpy(dtype=float)
    values = values[~(values != values)]  # scored runs only (NaN is not a score)
    return bool(values.size) and bool(((values == 0.0) | (values == 1.0)).all())


def _finite(value: float) -> bool:
    return isinstance(value, int | float) and math.isfinite(value)


def score_text(value: float, *, percent: bool) -> str:
    """A score: "82.9%" for a 0/1 metric (``percent``), else "0.8293" (four decimals)."""
    if not _finite(value):
        return MISSING
    return f"{100 * value:.1f}%" if percent else f"{value:.4f}"


def difference_text(value: float, *, percent: bool, signed: bool = True) -> str:
    """A difference of scores: "+4.2 points" for a 0/1 metric, else "+0.0421"; ``signed``
    False for a size ("4.2 points")."""
    if not _finite(value):
        return MISSING
    sign = "+" if signed else ""
    return f"{100 * value:{sign}.1f} {POINTS}" if percent else f"{value:{sign}.4f}"


def interval_text(low: float, high: float, *, percent: bool, difference: bool = False) -> str:
    """An interval in the same units: "[76.4%, 87.9%]" (scores), "[-0.7, +15.7] points"
    (``difference`` of a 0/1 metric), else "[0.7643, 0.8792]"."""
    if not (_finite(low) and _finite(high)):
        return MISSING
    if not percent:
        spec = "+.4f" if difference else ".4f"
        return f"[{low:{spec}}, {high:{spec}}]"
    if difference:
        return f"[{100 * low:+.1f}, {100 * high:+.1f}] {POINTS}"
    return f"[{100 * low:.1f}%, {100 * high:.1f}%]"
