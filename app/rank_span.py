"""One rank uncertainty on every page: each system's rank confidence set.

The Leaderboard, Overall, Distributions and Mechanisms pages, the rank/CI plot and the
Markdown-free tables all show the same span per system: the engine's simultaneous 95%
rank confidence set (Mogstad, Romano, Shaikh & Wilhelm 2024; JSON ``rank_set_low``,
``rank_set_high``), and shade the systems in the confidence set for the best
(``in_best_set``, τ = 1). Where the engine has no rank sets (one system, fewer than two
scored examples) the pairwise tests' rank range stands in. Pure functions: no Streamlit.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import pandas as pd

from engine.results import RankSets

#: Header of the span in tables and charts, and what it means (tooltips).
LABEL = "rank range"
HELP = ("the ranks this system could hold: its confidence set for its rank at level 1 − alpha, "
        "all systems' sets holding their true ranks together (simultaneous; Mogstad et al. "
        "2024, from the paired covariance of the means)")


def rank_span(table: pd.DataFrame, sets: RankSets | None) -> pd.DataFrame:
    """Per row of ``table`` (columns system, rank_low, rank_high), in its order: ``low``,
    ``high`` (the rank set, else the rank range) and ``best`` (may be the best: in the set
    for the best, else rank_low 1)."""
    systems = table["system"].astype(str).reset_index(drop=True)
    if sets is None:
        low = table["rank_low"].astype(int).to_numpy()
        high = table["rank_high"].astype(int).to_numpy()
        return pd.DataFrame({"system": systems, "low": low, "high": high, "best": low == 1})
    by = sets.table.assign(system=sets.table["system"].astype(str)).set_index("system")
    return pd.DataFrame({
        "system": systems,
        "low": by["rank_set_low"].reindex(systems).astype(int).to_numpy(),
        "high": by["rank_set_high"].reindex(systems).astype(int).to_numpy(),
        "best": by["in_best_set"].reindex(systems).astype(bool).to_numpy(),
    })


def span_text(low: int, high: int) -> str:
    """"1–3", or "2" when the set is one rank."""
    return f"{int(low)}–{int(high)}" if low != high else f"{int(low)}"


def span_texts(span: pd.DataFrame) -> list[str]:
    """:func:`span_text` of every row of :func:`rank_span`."""
    return [span_text(lo, hi) for lo, hi in zip(span["low"], span["high"], strict=True)]


def tie_counts(systems: Iterable[str], calm_pairs: pd.DataFrame) -> np.ndarray:
    """How many other systems each of ``systems`` cannot be told apart from (its pairs in
    ``calm_pairs``: system_a, system_b): the count a long group reads as."""
    names = [str(s) for s in systems]
    ends = pd.concat([calm_pairs["system_a"], calm_pairs["system_b"]]).astype(str)
    counts = ends.value_counts()
    return np.asarray(counts.reindex(names, fill_value=0).to_numpy(int))


def tie_count_text(count: int) -> str:
    """A long group in words: "ties with 21" (the other systems it cannot be told apart from)."""
    return f"ties with {int(count)}"
