"""Groups of systems that cannot be told apart: compact letters, cliques, rank ranges.

Three results from one table of pairwise tests, each with its own cost:

* rank ranges count significant wins and losses per system: O(pairs);
* compact letters cover every non-significant pair with as few cliques as a
  greedy sweep over systems ordered by estimate finds: polynomial, and equal to
  the maximal cliques whenever the non-significance relation is an interval
  structure (the usual case: systems close in mean are the ones not told apart),
  where they are read off as runs without growing any clique;
* maximal cliques are listed, best first, only up to a bound (their number can
  grow exponentially with the number of systems; Moon & Moser 1965), and only
  when first asked for (``Groups.cliques``): a table with letters never lists them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ._cliques import _maximal_cliques_in_order
from ._letters import (
    _best_first,
    _column_order,
    _cover,
    _drop_redundant,
    _interval_cover,
    _interval_reach,
    _letter_strings,
    letter_tokens,
)

if TYPE_CHECKING:
    import networkx as nx

__all__ = ["MAX_CLIQUES", "Groups", "find_groups", "letter_tokens"]

MAX_CLIQUES = 1_000  # listed at most; letters and rank ranges never depend on it


@dataclass(frozen=True)
class _Listing:
    """What listing the cliques needs: systems best first, their scores, the adjacency in
    that order, and the letters' cover when it is already the list of maximal cliques."""

    names: tuple[str, ...]
    score: np.ndarray
    adj: np.ndarray
    cover: list[np.ndarray] | None


@dataclass(frozen=True)
class Groups:
    """Groups derived from pairwise significance.

    Letters and rank ranges are computed at once (polynomial); the maximal cliques
    are listed on first access to ``cliques`` (or ``complete``, ``n_cliques``,
    ``cliques_truncated``, ``notes``), since listing them can cost seconds at
    1,000 systems and most views never show them.

    Attributes
    ----------
    letters : dict
        Compact letter display per system ("a", "ab", …): two systems share a
        letter exactly when they are not significantly different, and every
        letter is needed. Always given, whatever the number of cliques.
    rank_low, rank_high : dict
        Best and worst plausible rank per system.
    min_size : int
        Smallest clique kept in ``cliques``.
    max_cliques : int
        Most maximal cliques listed.
    systems : tuple of str
    calm_pairs : DataFrame
        Non-significant pairs: system_a, system_b, pvalue_adj.
    cliques : tuple of tuple of str
        Maximal cliques of the non-significance graph with at least ``min_size``
        members, best first; members best first. At most ``max_cliques`` are
        enumerated (see ``cliques_truncated``).
    complete : bool
        True when every maximal clique was enumerated (``not cliques_truncated``).
    n_cliques : int
        Number of maximal cliques: exact when complete or when the structure is
        an interval one (counted without enumeration); otherwise a lower bound,
        ``max_cliques + 1``.
    cliques_truncated : bool
        The graph has more than ``max_cliques`` maximal cliques; ``cliques`` lists
        those of the best-ranked systems.
    notes : tuple of str
        Plain-language remarks (e.g. the truncation).
    graph : networkx.Graph
        Systems as vertices, an edge per non-significant compared pair with
        attribute ``pvalue_adj``; built on first access.
    """

    letters: dict[str, str]
    rank_low: dict[str, int]
    rank_high: dict[str, int]
    min_size: int
    max_cliques: int
    systems: tuple[str, ...] = field(repr=False)
    calm_pairs: pd.DataFrame = field(repr=False, compare=False)
    _source: _Listing = field(repr=False, compare=False)

    @cached_property
    def _listed(self) -> tuple[tuple[tuple[str, ...], ...], bool, int]:
        """(cliques of at least min_size, truncated, count), listed once."""
        src = self._source
        if src.cover is not None:  # interval structure: the cover is the list of cliques
            found = src.cover[:self.max_cliques]
            truncated, count = len(src.cover) > self.max_cliques, len(src.cover)
        else:  # at least max_cliques + 1 when truncated
            found, truncated = _maximal_cliques_in_order(src.adj, self.max_cliques)
            count = len(found) + int(truncated)
        cliques = tuple(c for c in _best_first(found, list(src.names), src.score)
                        if len(c) >= self.min_size)
        return cliques, truncated, count

    @property
    def cliques(self) -> tuple[tuple[str, ...], ...]:
        return self._listed[0]

    @property
    def cliques_truncated(self) -> bool:
        return self._listed[1]

    @property
    def complete(self) -> bool:
        return not self._listed[1]

    @property
    def n_cliques(self) -> int:
        return self._listed[2]

    @property
    def notes(self) -> tuple[str, ...]:
        if not self.cliques_truncated:
            return ()
        return (f"More than {self.max_cliques} groups (maximal cliques) of systems that cannot "
                f"be told apart: the {self.max_cliques} of the best-ranked systems are listed. "
                "Letters and rank ranges are complete.",)

    @cached_property
    def graph(self) -> nx.Graph:
        """The non-significance graph (built lazily: 500,000 edges take about a second)."""
        import networkx as nx  # 0.3 s to import: only the callers of .graph pay it

        g = nx.Graph()
        g.add_nodes_from(self.systems)
        g.add_edges_from(
            (a, b, {"pvalue_adj": float(p)})
            for a, b, p in self.calm_pairs[["system_a", "system_b", "pvalue_adj"]].itertuples(
                index=False))
        return g


# ------------------------------------------------------------------ steps


def _pair_index(systems: Sequence[str], pairs: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """Positions of system_a / system_b in ``systems`` (-1 for a system not listed).

    Factorises each column once and maps its few distinct names with a dict:
    ``Index.get_indexer`` on 500,000 Arrow-backed strings takes 0.2 s a call.
    """
    where = {s: i for i, s in enumerate(systems)}
    out = []
    for column in ("system_a", "system_b"):
        codes, uniques = pd.factorize(pairs[column])
        pos = np.array([where.get(u, -1) for u in uniques] + [-1], dtype=np.int64)
        out.append(pos[codes])  # code -1 (missing name) maps to the trailing -1
    return out[0], out[1]


def _rank_range(n: int, ia: np.ndarray, ja: np.ndarray, significant: np.ndarray,
                a_better: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """best = 1 + #significantly better, worst = n - #significantly worse (bincounts)."""
    winners = np.where(a_better, ia, ja)[significant]
    losers = np.where(a_better, ja, ia)[significant]
    return 1 + np.bincount(losers, minlength=n), n - np.bincount(winners, minlength=n)


def _calm_adjacency(n: int, ia: np.ndarray, ja: np.ndarray, significant: np.ndarray) -> np.ndarray:
    """Boolean n × n adjacency of the non-significance graph (no self-loops).

    Pairs that were not compared (``compare="first"``) get no edge.
    """
    adj = np.zeros((n, n), dtype=bool)
    calm = ~significant
    adj[ia[calm], ja[calm]] = True
    adj[ja[calm], ia[calm]] = True
    np.fill_diagonal(adj, False)
    return adj


def find_groups(
    systems: Sequence[str],
    quality: Sequence[float],
    pairs: pd.DataFrame,
    *,
    min_size: int = 2,
    max_cliques: int = MAX_CLIQUES,
) -> Groups:
    """Compact letters, cliques and rank ranges from a pairwise table.

    Parameters
    ----------
    systems : sequence of str
        All systems (vertices), including any not compared.
    quality : sequence of float
        Per system, larger = better (the oriented mean); orders letters and cliques.
    pairs : DataFrame
        ``PairwiseTests.table`` (needs system_a, system_b, pvalue_adj,
        significant, a_better).
    min_size : int, keyword-only
        Smallest clique reported in ``cliques`` (letters cover every system).
    max_cliques : int, keyword-only
        Enumerate at most this many maximal cliques (``cliques_truncated``
        beyond); letters and rank ranges do not depend on it.

    Returns
    -------
    Groups

    Notes
    -----
    Rank range (Ackerman et al. 2025, arXiv:2501.18243, §5; SPEC): best = 1 +
    #systems significantly better, worst = #systems not significantly worse. Letters: systems ordered by
    quality (ties by name); for each system, every non-significant pair with a
    later system not yet sharing a letter seeds a new letter, grown greedily
    into a maximal clique; then letters whose pairs all share another letter are
    dropped (the "sweeping" of Piepho 2004). Two systems share a letter iff they
    are not significantly different, and no letter can be removed. When the
    non-significance graph is an interval graph in this order (each system's
    non-significant partners are consecutive), the letters are exactly its
    maximal cliques, as Piepho's insert-and-absorb would give. Cost O(L · k · m)
    for L letters of at most m members among k systems, against an exponential
    number of maximal cliques in the worst case.

    References
    ----------
    Piepho (2004), "An algorithm for a letter-based representation of
    all-pairwise comparisons", J. Comput. Graph. Stat. 13:456–466;
    Eppstein, Löffler & Strash (2010), "Listing all maximal cliques in sparse
    graphs in near-optimal time", ISAAC.

    Examples
    --------
    >>> pairs = pd.DataFrame({"system_a": ["A", "A", "B"], "system_b": ["B", "C", "C"],
    ...                       "pvalue_adj": [0.5, 0.01, 0.3], "significant": [False, True, False],
    ...                       "a_better": [True, True, True]})
    >>> g = find_groups(["A", "B", "C"], [0.9, 0.8, 0.7], pairs)
    >>> g.letters
    {'A': 'a', 'B': 'ab', 'C': 'b'}
    >>> g.cliques, g.rank_low, g.rank_high
    ((('A', 'B'), ('B', 'C')), {'A': 1, 'B': 1, 'C': 2}, {'A': 2, 'B': 3, 'C': 3})
    """
    if min_size < 1:
        raise ValueError(f"min_size: must be at least 1; got {min_size}")
    if max_cliques < 0:
        raise ValueError(f"max_cliques: must be at least 0; got {max_cliques}")
    score_of = {s: float(q) for s, q in zip(systems, quality, strict=True)}
    score_of = {s: q if q == q else -np.inf for s, q in score_of.items()}  # NaN ranks last
    # Best-first order (ties by name): the sweep's order and every listing's.
    names = sorted(score_of, key=lambda s: (-score_of[s], s))
    score = np.array([score_of[s] for s in names], dtype=float)
    ia, ja = _pair_index(names, pairs)
    known = (ia >= 0) & (ja >= 0)  # pairs naming systems not listed are ignored
    ia, ja, pairs = ia[known], ja[known], pairs[known]
    significant = pairs["significant"].to_numpy(bool)
    best, worst = _rank_range(len(names), ia, ja, significant, pairs["a_better"].to_numpy(bool))
    systems = list(dict.fromkeys(systems))
    position = {s: i for i, s in enumerate(names)}
    low = {s: int(best[position[s]]) for s in systems}
    high = {s: int(worst[position[s]]) for s in systems}
    adj = _calm_adjacency(len(names), ia, ja, significant)
    reach = _interval_reach(adj)
    if reach is not None:  # interval structure: the runs, none of them redundant
        cover = _interval_cover(reach)
        columns = cover
    else:
        columns = _drop_redundant(_cover(adj), len(names))
    text = _letter_strings(columns, _column_order(columns, names, score), len(names))
    letters = {s: text[position[s]] for s in systems}
    calm = pairs.loc[~significant, ["system_a", "system_b", "pvalue_adj"]]
    listing = _Listing(tuple(names), score, adj, cover if reach is not None else None)
    return Groups(letters, low, high, min_size, max_cliques,
                  tuple(systems), calm.reset_index(drop=True), listing)
