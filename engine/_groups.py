"""Groups of systems that cannot be told apart: cliques, compact letters, rank ranges."""

from __future__ import annotations

import string
from collections.abc import Sequence
from dataclasses import dataclass

import networkx as nx
import numpy as np
import pandas as pd

__all__ = ["Groups", "TooManyCliquesError", "find_groups", "letter_tokens"]

MAX_CLIQUES = 5_000


class TooManyCliquesError(RuntimeError):
    """The non-significance graph has more maximal cliques than can be shown."""


@dataclass(frozen=True)
class Groups:
    """Groups derived from pairwise significance.

    Attributes
    ----------
    cliques : tuple of tuple of str
        Maximal cliques of the non-significance graph with at least
        ``min_size`` members, best first; members best first.
    letters : dict
        Compact letter display per system ("a", "ab", …): systems that share a
        letter are not significantly different. Built from *all* maximal
        cliques (isolated systems get a letter of their own).
    rank_low, rank_high : dict
        Best and worst plausible rank per system.
    graph : networkx.Graph
        Systems as vertices, an edge per non-significant compared pair with
        attribute ``pvalue_adj``.
    """

    cliques: tuple[tuple[str, ...], ...]
    letters: dict[str, str]
    rank_low: dict[str, int]
    rank_high: dict[str, int]
    graph: nx.Graph
    min_size: int
    complete: bool


def letter_tokens(n: int) -> list[str]:
    """n distinct group labels: a–z, then A–Z, then a1, b1, …"""
    base = string.ascii_lowercase + string.ascii_uppercase
    return [base[i % len(base)] + ("" if i < len(base) else str(i // len(base))) for i in range(n)]


def _graph(systems: Sequence[str], pairs: pd.DataFrame) -> nx.Graph:
    g = nx.Graph()
    g.add_nodes_from(systems)
    calm = pairs[~pairs["significant"]]
    g.add_edges_from(
        (a, b, {"pvalue_adj": float(p)})
        for a, b, p in calm[["system_a", "system_b", "pvalue_adj"]].itertuples(index=False)
    )
    return g


def _maximal_cliques(g: nx.Graph, limit: int) -> list[list[str]]:
    found: list[list[str]] = []
    for clique in nx.find_cliques(g):
        found.append(clique)
        if len(found) > limit:
            raise TooManyCliquesError(
                f"the non-significance graph has more than {limit} maximal cliques, too many to "
                "show as groups; raise alpha or use an effect-size criterion to get fewer ties")
    return found


def _rank_range(systems: Sequence[str], pairs: pd.DataFrame) -> tuple[dict[str, int], dict[str, int]]:
    sig = pairs[pairs["significant"]]
    winners = np.where(sig["a_better"], sig["system_a"], sig["system_b"])
    losers = np.where(sig["a_better"], sig["system_b"], sig["system_a"])
    beaten_by = pd.Series(losers).value_counts()
    beats = pd.Series(winners).value_counts()
    n = len(systems)
    low = {s: 1 + int(beaten_by.get(s, 0)) for s in systems}
    high = {s: n - int(beats.get(s, 0)) for s in systems}
    return low, high


def find_groups(
    systems: Sequence[str],
    quality: Sequence[float],
    pairs: pd.DataFrame,
    *,
    min_size: int = 2,
    max_cliques: int = MAX_CLIQUES,
) -> Groups:
    """Cliques, compact letters and rank ranges from a pairwise table.

    Parameters
    ----------
    systems : sequence of str
        All systems (vertices), including any not compared.
    quality : sequence of float
        Per system, larger = better (the oriented mean); orders cliques and letters.
    pairs : DataFrame
        ``PairwiseResult.table`` (needs system_a, system_b, pvalue_adj,
        significant, a_better).
    min_size : int, keyword-only
        Smallest clique reported in ``cliques`` (letters always use all).
    max_cliques : int, keyword-only
        Above this many maximal cliques, cliques and letters are left empty
        (``complete=False``) instead of enumerating an exponential number.

    Returns
    -------
    Groups

    Notes
    -----
    Rank range (seed paper §5; SPEC): best = 1 + #systems significantly better,
    worst = #systems not significantly worse. Letters follow the insert-and-absorb
    result of Piepho (2004), which equals the maximal cliques of the graph of
    non-significant pairs: each clique gets one letter, ordered by its best member.
    """
    if min_size < 1:
        raise ValueError(f"min_size: must be at least 1; got {min_size}")
    score = dict(zip(systems, quality, strict=True))
    g = _graph(systems, pairs)
    low, high = _rank_range(systems, pairs)
    try:
        raw = _maximal_cliques(g, max_cliques)
    except TooManyCliquesError:
        return Groups((), {s: "" for s in systems}, low, high, g, min_size, complete=False)
    ordered = sorted(
        (tuple(sorted(c, key=lambda s: (-score[s], s))) for c in raw),
        key=lambda c: (-score[c[0]], -float(np.mean([score[s] for s in c])), c),
    )
    tokens = letter_tokens(len(ordered))
    letters: dict[str, list[str]] = {s: [] for s in systems}
    for token, clique in zip(tokens, ordered, strict=True):
        for s in clique:
            letters[s].append(token)
    sep = "" if len(ordered) <= 52 else " "
    cliques = tuple(c for c in ordered if len(c) >= min_size)
    return Groups(cliques, {s: sep.join(v) for s, v in letters.items()}, low, high, g,
                  min_size, complete=True)
