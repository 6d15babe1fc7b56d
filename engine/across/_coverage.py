"""Which systems can be ranked together across benchmarks: coverage and the default selection.

A system's overall score is comparable only with systems that ran the same benchmarks,
so the overall leaderboard ranks the systems that ran every benchmark of the selection
and lists the others by what they ran. The default selection is the set of benchmarks
whose complete block — systems × benchmarks with every cell present — is largest, found
by an exact search (see :func:`default_selection`), so adding a benchmark never shrinks it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import pandas as pd

from .._contract import REQUIRED_COLUMNS

__all__ = ["SELECTION_RULE", "Selection", "coverage_groups", "default_selection",
           "systems_by_benchmark"]

#: The rule of :func:`default_selection`, as the pages and the CLI say it.
SELECTION_RULE = ("the benchmarks whose complete block (systems that ran all of them × "
                  "benchmarks) is largest; ties: more benchmarks, then data order")

#: Said after :data:`SELECTION_RULE` when the exact search gave way to the greedy one.
GREEDY_NOTE = (" (searched greedily: the benchmarks' coverage patterns were too many to "
               "search them all)")

_MAX_CLOSED = 2**16  # closed subsets scored exactly; each is a few integer operations


@dataclass(frozen=True)
class Selection:
    """A choice of benchmarks and the systems that ran all of them.

    Attributes
    ----------
    benchmarks : tuple of str
        In data order.
    complete : tuple of str
        Systems that ran every benchmark of ``benchmarks`` (data order).
    rule : str
        How the choice was made.
    """

    benchmarks: tuple[str, ...]
    complete: tuple[str, ...]
    rule: str


def systems_by_benchmark(df: pd.DataFrame) -> dict[str, list[str]]:
    """Each benchmark's systems (both in data order).

    Examples
    --------
    >>> df = pd.DataFrame({"benchmark": ["b", "b", "c"], "system": ["x", "y", "x"],
    ...                    "example_id": ["e"] * 3, "metric": ["m"] * 3, "value": [1.0] * 3})
    >>> systems_by_benchmark(df)
    {'b': ['x', 'y'], 'c': ['x']}
    """
    missing = [c for c in REQUIRED_COLUMNS if c not in df.columns]
    if missing:
        raise ValueError(f"df: must be a long table with columns {list(REQUIRED_COLUMNS)}; "
                         f"missing {missing}")
    pairs = df[["benchmark", "system"]].drop_duplicates()
    out: dict[str, list[str]] = {}
    for b, s in zip(pairs["benchmark"].astype(str), pairs["system"].astype(str), strict=True):
        out.setdefault(b, []).append(s)
    return out


def _support(chosen: int, masks: Sequence[int]) -> int:
    """How many systems ran every benchmark of the bit set ``chosen``."""
    return sum(1 for m in masks if m & chosen == chosen)


def default_selection(df: pd.DataFrame) -> Selection:
    """The benchmarks that give the most complete cells (the largest complete block).

    Parameters
    ----------
    df : DataFrame
        Canonical long table.

    Returns
    -------
    Selection
        The subset of benchmarks maximising (systems that ran all of them) × (benchmarks),
        among subsets with at least two such systems; ties go to more benchmarks, then to
        the subset whose positions in data order come first (compared position by
        position). With no subset of two comparable systems: every benchmark.

    Notes
    -----
    The search is exact. A best subset is *closed*: it holds every benchmark that all its
    systems ran (adding one they all ran adds cells), so it is the intersection of the
    benchmark sets of its systems — a concept of the systems × benchmarks relation
    (Ganter & Wille 1999, formal concept analysis; the maximum-edge biclique of
    Peeters 2003). Those intersections are enumerated (at most 2^min(benchmarks, systems)
    of them; a handful in practice, as systems run the benchmarks in a few patterns) and
    each is scored. Being exact, the choice is stable: a benchmark that no system of the
    best block ran leaves that block available with the same cells, and a benchmark every
    system ran enlarges it, so neither shrinks it. Only when the intersections exceed
    2^16 (never with 16 benchmarks or fewer, nor 16 systems or fewer) does the search fall
    back to a greedy one (from every benchmark, drop the one whose removal leaves the most
    cells) among those found so far, and the selection's
    ``rule`` says so.

    Examples
    --------
    >>> rows = [(b, s) for b, ss in {"b1": "xyz", "b2": "xyz", "b3": "xw"}.items() for s in ss]
    >>> df = pd.DataFrame([(b, s, "e", "m", 1.0) for b, s in rows],
    ...                   columns=["benchmark", "system", "example_id", "metric", "value"])
    >>> default_selection(df).benchmarks
    ('b1', 'b2')
    """
    by = systems_by_benchmark(df)
    names = list(by)
    masks = _system_masks(by, names)
    closed, exhausted = _closed_sets(masks)
    candidates = set(closed)
    rule = SELECTION_RULE
    if not exhausted:
        candidates.update(_greedy(masks, len(names)))
        rule = SELECTION_RULE + GREEDY_NOTE
    best: tuple[int, int, tuple[int, ...]] | None = None
    for chosen in candidates:
        systems = _support(chosen, masks)
        if systems < 2:
            continue
        positions = [i for i in range(len(names)) if chosen >> i & 1]
        key = (systems * len(positions), len(positions), tuple(-i for i in positions))
        if best is None or key > best:
            best = key
    if best is None:
        picked = tuple(names)
        return Selection(picked, _complete(by, picked), rule)
    picked = tuple(names[-negative] for negative in best[2])
    return Selection(picked, _complete(by, picked), rule)


def _system_masks(by: Mapping[str, Sequence[str]], names: Sequence[str]) -> list[int]:
    """Each system's benchmarks as a bit set (bit i: ``names[i]``), systems in data order."""
    masks: dict[str, int] = {}
    for i, b in enumerate(names):
        for s in by[b]:
            masks[s] = masks.get(s, 0) | 1 << i
    return list(masks.values())


def _closed_sets(masks: Sequence[int]) -> tuple[set[int], bool]:
    """The non-empty intersections of the benchmark sets of two or more systems (the closed
    subsets with at least two systems), and whether all were found within the cap.

    The family is closed under intersection, so it is grown one system at a time: each new
    system's set meets every set found so far (Ganter & Wille 1999, §2.1)."""
    counts = Counter(masks)
    distinct = list(counts)
    found = {m for m in distinct if counts[m] > 1}  # two systems, one pattern
    seen: list[int] = []
    for m in distinct:
        grown = {m & x for x in seen} | {m & x for x in found}
        grown.discard(0)
        found |= grown
        seen.append(m)
        if len(found) > _MAX_CLOSED:
            return found, False
    return found, True


def _greedy(masks: Sequence[int], n: int) -> list[int]:
    """From every benchmark, drop the one whose removal leaves the most complete cells."""
    current = (1 << n) - 1
    out = [current]
    while current & (current - 1):  # two or more benchmarks left
        options = [current & ~(1 << j) for j in range(n) if current >> j & 1]
        current = max(options, key=lambda c: _support(c, masks) * c.bit_count())
        out.append(current)
    return out


def _complete(by: Mapping[str, Sequence[str]], chosen: Sequence[str]) -> tuple[str, ...]:
    sets = [set(by[b]) for b in chosen]
    seen = list(dict.fromkeys(s for b in chosen for s in by[b]))
    return tuple(s for s in seen if all(s in x for x in sets))


def coverage_groups(coverage: Mapping[str, Sequence[str]], benchmarks: Sequence[str]
                    ) -> list[tuple[tuple[str, ...], list[str]]]:
    """Systems grouped by the benchmarks they ran, most benchmarks first.

    Examples
    --------
    >>> coverage_groups({"x": ["b1", "b2"], "y": ["b1"], "z": ["b1", "b2"]}, ["b1", "b2"])
    [(('b1', 'b2'), ['x', 'z']), (('b1',), ['y'])]
    """
    where = {b: i for i, b in enumerate(benchmarks)}
    groups: dict[tuple[str, ...], list[str]] = {}
    for system, ran in coverage.items():
        key = tuple(sorted(ran, key=where.__getitem__))
        groups.setdefault(key, []).append(system)
    return sorted(groups.items(), key=lambda kv: (-len(kv[0]), [where[b] for b in kv[0]]))
