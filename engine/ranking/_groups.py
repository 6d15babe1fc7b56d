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

import string
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from functools import cached_property

import networkx as nx
import numpy as np
import pandas as pd

__all__ = ["MAX_CLIQUES", "Groups", "find_groups", "letter_tokens"]

MAX_CLIQUES = 1_000  # listed at most; letters and rank ranges never depend on it
_GONE = -(1 << 40)  # gain of a candidate that left the clique (stays < 0 over 1,000 steps)


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
        g = nx.Graph()
        g.add_nodes_from(self.systems)
        g.add_edges_from(
            (a, b, {"pvalue_adj": float(p)})
            for a, b, p in self.calm_pairs[["system_a", "system_b", "pvalue_adj"]].itertuples(
                index=False))
        return g


def letter_tokens(n: int) -> list[str]:
    """n distinct group labels: a–z, then A–Z, then a1, b1, …"""
    base = string.ascii_lowercase + string.ascii_uppercase
    return [base[i % len(base)] + ("" if i < len(base) else str(i // len(base))) for i in range(n)]


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


def _block(mat: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """``mat[np.ix_(idx, idx)]`` for ascending ``idx``: a view when ``idx`` is a run of
    consecutive positions, else rows then columns taken from the span ``idx`` covers
    (``np.ix_`` indexing is about 5× slower)."""
    if not idx.size:
        return mat[:0, :0]
    lo, hi = int(idx[0]), int(idx[-1]) + 1
    if hi - lo == idx.size:
        return mat[lo:hi, lo:hi]
    return mat[idx, lo:hi][:, idx - lo]


def _clear(mat: np.ndarray, idx: np.ndarray) -> None:
    """``mat[np.ix_(idx, idx)] = False`` for ascending ``idx``, as one masked ``&=`` over
    the span ``idx`` covers (about 20× faster than the fancy assignment)."""
    if not idx.size:
        return
    lo, hi = int(idx[0]), int(idx[-1]) + 1
    inside = np.zeros(hi - lo, dtype=bool)
    inside[idx - lo] = True
    mat[lo:hi, lo:hi] &= ~np.logical_and.outer(inside, inside)


def _grow(adj: np.ndarray, uncovered: np.ndarray, i: int, j: int) -> np.ndarray:
    """A maximal clique containing the edge (i, j).

    Adds, one at a time, the common neighbour that joins the most members through
    pairs no letter covers yet (the best-placed one among equals), so that later
    letters are not needed for those pairs. As soon as the candidates still joined
    to every member form a clique (at once, in an interval structure) they are all
    added together: the one-at-a-time steps would add each of them anyway.
    """
    cands = np.flatnonzero(adj[i] & adj[j])
    sub = _block(adj, cands)
    # clash[c]: live candidates not joined to c; the live set is a clique when none clash
    clash = (cands.size - 1) - np.count_nonzero(sub, axis=1)
    if not clash.any():
        return np.sort(np.concatenate([[i, j], cands]))
    # gain of each candidate; a candidate no longer joined to every member drops to _GONE
    # and stays below 0 (a step is one argmax and one row added)
    gain = uncovered[i, cands].astype(np.int64) + uncovered[j, cands]
    live = np.ones(cands.size, dtype=bool)
    members = [i, j]
    clashes = int(clash.sum())
    while clashes:
        pick = int(gain.argmax())
        members.append(int(cands[pick]))
        gain += np.where(sub[pick], uncovered[cands[pick], cands], _GONE)
        live[pick] = False
        if clash[pick]:  # the candidates the pick is not joined to leave with it
            gone = np.append(np.flatnonzero(~sub[pick] & live), pick)
            apart = ~sub[np.ix_(gone, gone)]
            np.fill_diagonal(apart, False)
            clashes -= 2 * int(clash[gone].sum()) - int(apart.sum())
            live[gone] = False
            away = ~sub[gone]
            away[np.arange(gone.size), gone] = False  # a system is not apart from itself
            clash -= away.sum(axis=0)
    return np.sort(np.concatenate([members, cands[live]]).astype(np.intp))


def _cover(adj: np.ndarray) -> list[np.ndarray]:
    """Cliques covering every edge (and every isolated vertex), sweeping vertices in order.

    For vertex i, while some edge (i, j > i) is uncovered, grow a maximal clique
    from the first such edge (see :func:`_grow`). Edges to earlier vertices were covered on their turn.
    When each vertex's closed neighbourhood is a run of consecutive positions (an
    interval structure), this yields exactly the maximal cliques [i, r_i].
    """
    n = len(adj)
    uncovered = adj.copy()
    columns: list[np.ndarray] = []
    for i in range(n):
        if not adj[i].any():
            columns.append(np.array([i]))
            continue
        while True:
            todo = uncovered[i, i + 1:]
            if not todo.any():
                break
            clique = _grow(adj, uncovered, i, i + 1 + int(np.argmax(todo)))
            _clear(uncovered, clique)
            columns.append(clique)
    return columns


def _drop_redundant(columns: list[np.ndarray], n: int) -> list[np.ndarray]:
    """Remove letters whose every pair (and member) is covered by other letters.

    Piepho's (2004) "sweeping" step. ``shared[a, b]`` counts letters holding both
    a and b (the diagonal counts a's letters), so a letter is redundant when all
    its entries are ≥ 2. Earlier columns go first: a later column was grown for
    a pair no earlier column covers, so only earlier ones can be redundant.
    """
    if not columns:
        return columns
    incidence = np.zeros((len(columns), n), dtype=np.float32)
    for row, members in enumerate(columns):
        incidence[row, members] = 1.0
    shared = np.rint(incidence.T @ incidence).astype(np.int32)
    kept = []
    for members in columns:
        if _block(shared, members).min() >= 2:
            lo, hi = int(members[0]), int(members[-1]) + 1
            inside = np.zeros(hi - lo, dtype=np.int32)
            inside[members - lo] = 1
            shared[lo:hi, lo:hi] -= np.multiply.outer(inside, inside)
        else:
            kept.append(members)
    return kept


def _interval_reach(adj: np.ndarray) -> np.ndarray | None:
    """Last neighbour's position r_i of each system (itself when none is later), when
    every system's closed neighbourhood is a run of consecutive positions; else None.

    Then the graph is a proper interval graph in this order (i < j < l and i ~ l
    imply i ~ j and j ~ l), and its maximal cliques are the runs [i, r_i] with
    r_i > r_{i-1} (and isolated systems alone): exactly the letters :func:`_cover`
    grows.
    """
    n = len(adj)
    if n == 0:
        return np.zeros(0, dtype=np.intp)
    closed = adj | np.eye(n, dtype=bool)
    first = np.argmax(closed, axis=1)
    last = n - 1 - np.argmax(closed[:, ::-1], axis=1)
    if not (np.count_nonzero(closed, axis=1) == last - first + 1).all():
        return None
    return np.asarray(last, dtype=np.intp)


def _interval_cover(reach: np.ndarray) -> list[np.ndarray]:
    """:func:`_cover` of an interval structure without growing: the runs [i, r_i] with
    r_i > i and r_i > r_{i-1}, and each isolated system alone, in sweep order.

    Each run has a pair no other run holds ((i, r_i): a run [a, r_a] with a < i has
    r_a ≤ r_{i-1} < r_i), so none is redundant.
    """
    n = len(reach)
    before = np.concatenate([[-1], np.maximum.accumulate(reach)[:-1]]) if n else reach
    isolated = (reach == np.arange(n)) & (before < np.arange(n))
    starts = np.flatnonzero(isolated | ((reach > np.arange(n)) & (reach > before)))
    return [np.arange(i, reach[i] + 1) for i in starts]


def _maximal_cliques_in_order(adj: np.ndarray, limit: int) -> tuple[list[np.ndarray], bool]:
    """Up to ``limit`` maximal cliques, grouped by their best-placed member.

    Bron–Kerbosch with pivoting, run once per vertex v on its later neighbours
    with its earlier neighbours excluded (Eppstein, Löffler & Strash 2010), on
    neighbourhoods stored as Python integers used as bit sets (an intersection
    is one ``&``), with a shortcut when the candidates already form a clique (one
    answer, no branching). The pivot's counts |P ∩ N(u)| for every u in P ∪ X are
    popcounts of the packed adjacency rows, all at once (``np.bitwise_count``).
    Returns the cliques and whether more than ``limit`` exist.
    """
    n = len(adj)
    width = -(-max(n, 1) // 64) * 8  # bytes per row, whole 64-bit words
    packed = np.zeros((n, width), dtype=np.uint8)
    packed[:, : -(-n // 8)] = np.packbits(adj, axis=1, bitorder="little")
    sets = _BitSets(packed.view("<u8"), width)
    nbr = [int.from_bytes(row.tobytes(), "little") for row in packed]
    found: list[np.ndarray] = []
    for v in range(n):
        later = nbr[v] >> (v + 1) << (v + 1)
        earlier = nbr[v] & ((1 << v) - 1)
        for clique in _bron_kerbosch(nbr, sets, 1 << v, later, earlier):
            found.append(clique)
            if len(found) > limit:
                return found[:limit], True
    return found, False


@dataclass(frozen=True)
class _BitSets:
    """Adjacency rows as 64-bit words, to convert and count Python-integer bit sets fast."""

    rows: np.ndarray  # n × words, uint64
    width: int  # bytes per row

    def members(self, mask: int) -> np.ndarray:
        """Positions of the set bits, ascending."""
        if not mask:
            return np.zeros(0, dtype=np.intp)
        raw = np.frombuffer(mask.to_bytes(self.width, "little"), dtype=np.uint8)
        return np.flatnonzero(np.unpackbits(raw, bitorder="little"))

    def pivot_counts(self, p: int, x: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Members of P, members of X, and |N(u) ∩ P| for u in P then u in X."""
        raw = np.frombuffer(p.to_bytes(self.width, "little"), dtype=np.uint8)
        in_p = np.flatnonzero(np.unpackbits(raw, bitorder="little"))
        in_x = self.members(x)
        both = np.concatenate([in_p, in_x]) if in_x.size else in_p
        counts: np.ndarray = np.bitwise_count(self.rows[both] & raw.view("<u8")).sum(axis=1)
        return in_p, both, counts


def _bron_kerbosch(nbr: list[int], sets: _BitSets, r: int, p: int, x: int
                   ) -> Iterator[np.ndarray]:
    """Maximal cliques R ∪ S, S ⊆ P, not extendable by X (explicit stack of bit sets)."""
    stack: list[list[int]] = []

    def expand(r: int, p: int, x: int) -> int | None:
        """The clique to report at this node, if any; pushes a branching frame otherwise."""
        if p == 0:
            return r if x == 0 else None
        in_p, both, counts = sets.pivot_counts(p, x)
        size = len(in_p)
        if counts[:size].min() == size - 1:  # candidates form a clique: one answer
            return None if (counts[size:] == size).any() else r | p
        pivot = int(both[int(np.argmax(counts))])
        stack.append([r, p, x, p & ~nbr[pivot]])
        return None

    first = expand(r, p, x)
    if first is not None:
        yield sets.members(first)
    while stack:
        frame = stack[-1]
        r, p, x, branch = frame
        if branch == 0:
            stack.pop()
            continue
        w = branch & -branch
        index = w.bit_length() - 1
        frame[3] ^= w
        frame[1], frame[2] = p ^ w, x | w
        clique = expand(r | w, p & nbr[index], x & nbr[index])
        if clique is not None:
            yield sets.members(clique)


class _Names:
    """A column's member names, built only when two columns tie on score and mean."""

    __slots__ = ("members", "names")

    def __init__(self, members: np.ndarray, names: list[str]) -> None:
        self.members, self.names = members, names

    def tuple(self) -> tuple[str, ...]:
        return tuple(self.names[i] for i in self.members)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Names) and self.tuple() == other.tuple()

    def __lt__(self, other: _Names) -> bool:
        return self.tuple() < other.tuple()

    __hash__ = None  # type: ignore[assignment]


def _column_order(columns: list[np.ndarray], names: list[str], score: np.ndarray) -> list[int]:
    """Columns best first: by best member, then mean, then member names."""
    keys = [(-score[members[0]], -float(np.mean(score[members])), _Names(members, names))
            for members in columns]  # members are positions in the best-first order already
    return sorted(range(len(columns)), key=keys.__getitem__)


def _best_first(columns: list[np.ndarray], names: list[str], score: np.ndarray
                ) -> list[tuple[str, ...]]:
    """Cliques as name tuples, members best first, cliques by best member then mean."""
    return [tuple(names[i] for i in columns[c]) for c in _column_order(columns, names, score)]


def _letter_strings(columns: list[np.ndarray], order: list[int], n: int) -> list[str]:
    """Each position's letters: column ``order[k]`` gets the k-th token."""
    if not columns:
        return [""] * n
    tokens = np.array(letter_tokens(len(columns)), dtype=object)
    ranked = [columns[c] for c in order]
    members = np.concatenate(ranked)
    owner = np.repeat(np.arange(len(ranked)), [len(m) for m in ranked])
    by_member = np.argsort(members, kind="stable")  # each position's tokens in column order
    bounds = np.cumsum(np.bincount(members, minlength=n))[:-1]
    sep = "" if len(columns) <= 52 else " "
    return [sep.join(part) for part in np.split(tokens[owner[by_member]], bounds)]


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
        ``PairwiseResult.table`` (needs system_a, system_b, pvalue_adj,
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
