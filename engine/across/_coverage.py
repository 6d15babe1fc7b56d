"""Which systems can be ranked together across benchmarks: coverage and the default selection.

A system's overall score is comparable only with systems that ran the same benchmarks,
so the overall leaderboard ranks the systems that ran every benchmark of the selection
and lists the others by what they ran. The default selection is the set of benchmarks
whose complete block — systems × benchmarks with every cell present — is largest.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import pandas as pd

from .._contract import REQUIRED_COLUMNS

__all__ = ["SELECTION_RULE", "Selection", "coverage_groups", "default_selection",
           "systems_by_benchmark"]

#: The rule of :func:`default_selection`, as the pages and the CLI say it.
SELECTION_RULE = ("the benchmarks whose complete block (systems that ran all of them × "
                  "benchmarks) is largest; ties: more benchmarks, then data order")

_EXHAUSTIVE_UP_TO = 14  # 2^14 subsets of set operations stay well under 0.1 s


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


def _block_size(sets: Sequence[frozenset[str]]) -> int:
    return len(frozenset.intersection(*sets)) if sets else 0


def default_selection(df: pd.DataFrame) -> Selection:
    """The benchmarks that give the most comparable systems (the largest complete block).

    Parameters
    ----------
    df : DataFrame
        Canonical long table.

    Returns
    -------
    Selection
        The subset of benchmarks maximising (systems that ran all of them) × (benchmarks),
        among subsets with at least two such systems; ties go to more benchmarks, then
        to the subset that comes first in data order. Exhaustive up to 14 benchmarks,
        greedy (drop the benchmark whose removal grows the block most) beyond. With no
        subset of two comparable systems: every benchmark.

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
    sets = [frozenset(by[b]) for b in names]
    best: tuple[int, int, tuple[int, ...]] | None = None
    for subset in _candidates(sets):
        systems = _block_size([sets[i] for i in subset])
        if systems < 2:
            continue
        key = (systems * len(subset), len(subset), tuple(-i for i in subset))
        if best is None or key > best:
            best = key
    if best is None:
        chosen = tuple(names)
        return Selection(chosen, _complete(by, chosen), SELECTION_RULE)
    chosen = tuple(names[-negative] for negative in best[2])
    return Selection(chosen, _complete(by, chosen), SELECTION_RULE)


def _candidates(sets: Sequence[frozenset[str]]) -> list[tuple[int, ...]]:
    """Subsets of benchmark positions to score (ascending positions)."""
    n = len(sets)
    if n <= _EXHAUSTIVE_UP_TO:
        return [c for r in range(1, n + 1) for c in itertools.combinations(range(n), r)]
    current = list(range(n))
    out = [tuple(current)]
    while len(current) > 1:  # greedy: drop the benchmark whose removal grows the block most
        drop = max(current, key=lambda j: _block_size([sets[i] for i in current if i != j]))
        current.remove(drop)
        out.append(tuple(current))
    out += [(i,) for i in range(n)]
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
