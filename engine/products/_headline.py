"""One plain sentence on top of each page, computed from the result objects its tables show.

Pure functions: the same :class:`~engine.Overall`, :class:`~engine.Leaderboard`, pairwise
row or :class:`~engine.ABComparison` that fill a page's table give its headline, so the
sentence and the table cannot disagree. Test names stay out of the first words; the level
and the correction close the sentence in brackets.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import pandas as pd

from .._text import isolate
from .._units import score_text, zero_one
from ..ranking._rank_sets import RankSets, best_set_sentence

if TYPE_CHECKING:
    from ..stats._ab import ABComparison
    from ._leaderboard import Leaderboard
    from ._overall import Overall

__all__ = ["compare_headline", "error_rate_words", "leaderboard_headline",
           "overall_headline", "pair_headline", "points"]


def error_rate_words(alpha: float, correction: str) -> str:
    """The error rate a multiplicity correction controls, in plain words (the
    correction's name goes in tooltips and Methods). Every page's sentence uses it."""
    if correction == "none":
        return f"each pair at a {alpha:.0%} error rate (not corrected for testing many pairs)"
    if correction.startswith("fdr"):  # false discovery rate: a share of the findings
        return f"with on average at most {alpha:.0%} of the differences found false"
    return f"with at most a {alpha:.0%} chance that any difference found is false"  # FWER


def _level(alpha: float, correction: str | None = None) -> str:
    """In brackets after a verdict: the error rate in words, or the level of a lone test."""
    if not correction:
        return f"α = {alpha:g}"
    return error_rate_words(alpha, correction).removeprefix("with ")


def _list(names: Sequence[str]) -> str:
    names = list(names)
    if len(names) <= 2:
        return " and ".join(names)
    return ", ".join(names[:-1]) + f" and {names[-1]}"


def points(value: float, *, binary: bool, digits: int = 1) -> str:
    """A difference in its units: points (percentage points) for 0/1 scores.

    Examples
    --------
    >>> points(0.0612, binary=True), points(-0.25, binary=False, digits=2)
    ('6.1 points', '-0.25')
    """
    if binary:
        return f"{value * 100:.{digits}f} points"
    return f"{value:.{digits}f}" if abs(value) >= 1 else f"{value:.{max(digits, 2)}g}"


def _others(pairs: pd.DataFrame, system: str) -> tuple[int, int]:
    """(systems not told apart from ``system``, systems compared with it)."""
    mine = pairs[(pairs["system_a"] == system) | (pairs["system_b"] == system)]
    return int((~mine["significant"].astype(bool)).sum()), len(mine)


#: Bidirectional embeddings, overrides and isolates (Unicode UAX #9).
_BIDI = re.compile("[\u202a-\u202e\u2066-\u2069]")


def _named(name: object) -> str:
    """A name inside a sentence: between Unicode isolates when it holds a bidirectional control,
    so a right-to-left override inside it cannot reorder the sentence (plain names unchanged)."""
    text = str(name)
    return isolate(text) if _BIDI.search(text) else text


def _first(table: pd.DataFrame) -> list[str]:
    return [str(s) for s in table.loc[table["rank"] == table["rank"].min(), "system"]]


def overall_headline(result: Overall) -> str:
    """E.g. "claude-3-opus-20240229 ranks first of 37 systems on humaneval, humaneval+, mbpp
    and mbpp+ (score 79.0%), but 4 systems cannot be told apart from it (at most a 5% chance
    that any difference found is false)." Counts come from ``result.pairs``, the score from
    ``result.table``."""
    table = result.table
    benches = _list(result.benchmarks)
    tail = _unranked_tail(result)
    if len(table) == 0:
        return f"No system ran all of {benches}: nothing is ranked.{tail}"
    top = _first(table)
    row = table[table["system"] == top[0]].iloc[0]
    score = (f"{row['score']:.1f}%" if result.scale.units == "percent"
             else f"{result.scale.label} {row['score']:+.2f}")
    level = _level(result.options.alpha, result.options.correction)
    lead = (f"{_named(top[0])} ranks first of {len(table)} systems on {benches} ({score})"
            if len(top) == 1 else f"{_list([_named(t) for t in top])} tie for first of "
            f"{len(table)} systems on {benches} ({score})")
    if len(table) == 1:
        return f"{lead}; no other system ran all of them.{tail}"
    tied, compared = _others(result.pairs, top[0])
    best = _best_set(result.rank_sets)
    if tied == 0:
        return f"{lead} and is better than every other ranked system ({level}).{best}{tail}"
    what = "system cannot" if tied == 1 else "systems cannot"
    return f"{lead}, but {tied} {what} be told apart from it ({level}).{best}{tail}"


def _best_set(sets: RankSets | None) -> str:
    """" The best system is one of {A, B, C} (95%).", or nothing without sets."""
    if sets is None or not sets.best_set:
        return ""
    named = replace(sets, table=sets.table.assign(system=sets.table["system"].map(_named)))
    return " " + best_set_sentence(named, cite=False)


def _unranked_tail(result: Overall) -> str:
    n = len(result.unranked)
    if n == 0:
        return ""
    return (f" {n} system{'s' if n > 1 else ''} that did not run all {len(result.benchmarks)} "
            "benchmarks " + ("is" if n == 1 else "are") + " listed below, unranked.")


def leaderboard_headline(board: Leaderboard) -> str:
    """E.g. "claude-3-opus-20240229 ranks first on humaneval (82.9%), but 21 systems cannot be
    told apart from it (at most a 5% chance that any difference found is false)." From
    ``board.table`` and its pairs."""
    table = board.table
    if len(table) == 0:
        return f"No system on {board.benchmark}."
    top = _first(table)
    row = table[table["system"] == top[0]].iloc[0]
    percent = _is_fraction(board)
    value = score_text(row["mean"], percent=percent) if percent else \
        f"mean {score_text(row['mean'], percent=False)}"
    level = _level(board.pairwise.alpha, board.pairwise.correction)
    lead = (f"{_named(top[0])} ranks first on {_named(board.benchmark)} ({value})"
            if len(top) == 1 else
            f"{_list([_named(t) for t in top])} tie for first on {_named(board.benchmark)} ({value})")
    if len(table) == 1:
        return f"{lead}; it is the only system."
    tied, _ = _others(board.pairwise.table, top[0])
    best = _best_set(board.rank_sets)
    if tied == 0:
        return f"{lead} and is better than every other system ({level}).{best}"
    what = "system cannot" if tied == 1 else "systems cannot"
    return f"{lead}, but {tied} {what} be told apart from it ({level}).{best}"


def _is_fraction(board: Leaderboard) -> bool:
    """A 0/1 metric, shown in percent as on every page: decided on the ranked matrix's raw
    scores (:func:`engine._units.zero_one`); a numeric metric whose means happen to lie in
    [0, 1] keeps its own units. Without the matrix, a binary test's name says it."""
    if board.source is not None:
        return zero_one(board.source)
    return str(board.test).startswith(("mcnemar", "z"))


def pair_headline(row: Mapping[str, Any] | pd.Series, *, binary: bool, alpha: float,
                  correction: str | None = None) -> str:
    """One pairwise row (system_a, system_b, difference, ci_low, ci_high, significant) as a
    sentence, better system first: "gpt-4o is better than gemini-1.5-flash by 6.1 points
    (95% interval 2.0 to 10.2); this is significant."

    Examples
    --------
    >>> pair_headline({"system_a": "B", "system_b": "A", "difference": -0.061, "ci_low": -0.102,
    ...                "ci_high": -0.02, "significant": True}, binary=True, alpha=0.05)
    'A is better than B by 6.1 points (95% interval 2.0 to 10.2); this is significant (α = 0.05).'
    """
    d, lo, hi = float(row["difference"]), float(row["ci_low"]), float(row["ci_high"])
    a, b = _named(row["system_a"]), _named(row["system_b"])
    if d < 0:
        a, b, d, lo, hi = b, a, -d, -hi, -lo
    scale = 100.0 if binary else 1.0
    unit = " points" if binary else ""
    interval = f"{1 - alpha:.0%} interval {lo * scale:.1f} to {hi * scale:.1f}" if binary else \
        f"{1 - alpha:.0%} interval {lo:.3g} to {hi:.3g}"
    size = f"{d * scale:.1f}{unit}" if binary else f"{d:.3g}"
    level = _level(alpha, correction)
    if bool(row["significant"]):
        return f"{a} is better than {b} by {size} ({interval}); this is significant ({level})."
    return (f"{a} and {b} cannot be told apart: {a} is ahead by {size} ({interval}), "
            f"which is not significant ({level}).")


def compare_headline(res: ABComparison, *, binary: bool = False) -> str:
    """The A/B verdict as a sentence from :class:`~engine.ABComparison` (the numbers of its
    table): candidate vs baseline, the difference and its interval in the metric's units
    (points for 0/1 scores)."""
    t = res.test
    alpha = res.options.alpha
    d, lo, hi = float(t.estimate), float(t.ci_low), float(t.ci_high)
    if d < 0:  # "worse by 11.0 points (95% interval 2.3 to 19.7)"
        lo, hi = -hi, -lo
    scale, unit = (100.0, " points") if binary else (1.0, "")
    interval = (f"{1 - alpha:.0%} interval {lo * scale:.1f} to {hi * scale:.1f}{unit}" if binary
                else f"{1 - alpha:.0%} interval {lo:.3g} to {hi:.3g}")
    size = f"{abs(d) * scale:.1f}{unit}" if binary else f"{abs(d):.3g}"
    word = "better" if d > 0 else "worse"
    if t.pvalue < alpha:
        return (f"{_named(res.candidate)} is {word} than {_named(res.baseline)} by {size} ({interval}); "
                f"this is significant (α = {alpha:g}).")
    return (f"{_named(res.candidate)} and {_named(res.baseline)} cannot be told apart: the difference is "
            f"{'+' if d >= 0 else '-'}{size} ({interval}), not significant (α = {alpha:g}).")
