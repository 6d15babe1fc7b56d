"""Compact letter display: cliques covering every non-significant pair, and their letters.

A greedy sweep over systems ordered by estimate grows one maximal clique per pair no
letter covers yet (:func:`_cover`), then drops letters whose every pair another letter
holds (:func:`_drop_redundant`, Piepho 2004). When the non-significance relation is an
interval structure (systems close in mean are the ones not told apart) the letters are
read off as runs without growing (:func:`_interval_reach`, :func:`_interval_cover`).
Used by :func:`engine.ranking._groups.find_groups`.
"""

from __future__ import annotations

import string

import numpy as np

_GONE = -(1 << 40)  # gain of a candidate that left the clique (stays < 0 over 1,000 steps)


def letter_tokens(n: int) -> list[str]:
    """n distinct group labels: a–z, then A–Z, then a1, b1, …"""
    base = string.ascii_lowercase + string.ascii_uppercase
    return [base[i % len(base)] + ("" if i < len(base) else str(i // len(base))) for i in range(n)]


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
