"""Listing maximal cliques of the non-significance graph, best-placed member first.

Their number can grow exponentially with the number of systems (Moon & Moser 1965), so
:func:`engine.ranking._groups.find_groups` lists them only when first asked for, up to a
bound.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np


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
