"""The results matrix a joint model reads: each (system, benchmark) cell's example scores.

Chain: validate → one metric per benchmark → scores in [0, 1] (a 0/1 or fraction metric as
it is; any other scale mapped by the benchmark's observed range, oriented so higher is
better) → repeated runs averaged per (system, example) → one systems × examples array per
benchmark, NaN where not scored → which systems and benchmarks can be placed on one scale
(:func:`identifiability`).

The joint model's abilities are comparable only within one connected part of the bipartite
graph systems — benchmarks (an edge: the system ran the benchmark), and a benchmark's
difficulty and discrimination need at least :data:`MIN_SYSTEMS` systems, or its two
parameters fit its cells exactly and say nothing about the systems' abilities.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import networkx as nx
import numpy as np
import pandas as pd

from .._contract import REQUIRED_COLUMNS, USAGE_METRICS, MetricSpec
from ._aggregate import spec_of

__all__ = ["MIN_SYSTEMS", "Cells", "cells_from_arrays", "connected_selection", "identifiability",
           "joint_cells"]

#: Fewest systems a benchmark needs: with two, its difficulty and discrimination fit both
#: cells exactly (two parameters, two numbers), so it links nobody.
MIN_SYSTEMS = 3


@dataclass(frozen=True)
class Cells:
    """Example scores per benchmark, all systems on every row.

    Attributes
    ----------
    systems, benchmarks : tuple of str
    scores : tuple of ndarray, shape (systems, examples_b)
        Scores in [0, 1], higher better; NaN = not scored.
    example_ids : tuple of ndarray of str
        Each benchmark's example ids (the randomisation unit: an id shared by two
        benchmarks is one example of both).
    rescaled : tuple of str
        Benchmarks whose metric was mapped onto [0, 1] by its observed range.
    """

    systems: tuple[str, ...]
    benchmarks: tuple[str, ...]
    scores: tuple[np.ndarray, ...]
    example_ids: tuple[np.ndarray, ...]
    rescaled: tuple[str, ...] = ()

    @property
    def ran(self) -> np.ndarray:
        """Boolean (systems, benchmarks): the system has a score on the benchmark."""
        return np.stack([~np.isnan(x).all(axis=1) for x in self.scores], axis=1)


def cells_from_arrays(scores: Sequence[np.ndarray],
                      example_ids: Sequence[Sequence[str] | np.ndarray] | None = None,
                      systems: Sequence[str] | None = None,
                      benchmarks: Sequence[str] | None = None) -> Cells:
    """:class:`Cells` from arrays (simulations, tests): one (systems × examples) array per
    benchmark, scores in [0, 1] with NaN for not scored; ids default to distinct per benchmark."""
    xs = tuple(np.asarray(x, dtype=float) for x in scores)
    if not xs or any(x.ndim != 2 or x.shape[0] != xs[0].shape[0] for x in xs):
        raise ValueError("scores: need one 2-D array per benchmark, all with one row per system")
    for j, x in enumerate(xs):
        v = x[~np.isnan(x)]
        if ((v < 0) | (v > 1)).any():
            raise ValueError(f"scores[{j}]: must lie in [0, 1]; got {v.min()}..{v.max()}")
    s = tuple(systems) if systems is not None else tuple(f"s{i}" for i in range(xs[0].shape[0]))
    b = tuple(benchmarks) if benchmarks is not None else tuple(f"b{j}" for j in range(len(xs)))
    ids = (tuple(np.asarray(i, dtype=str) for i in example_ids) if example_ids is not None
           else tuple(np.array([f"{bj}:{k}" for k in range(x.shape[1])]) for bj, x in zip(b, xs,
                                                                                          strict=True)))
    return Cells(s, b, xs, ids)


def _unit_scores(values: np.ndarray, higher_is_better: bool) -> tuple[np.ndarray, bool]:
    """Scores on [0, 1], higher better: as they are when already there, else by the observed
    range (lowest 0, highest 1); returns whether they were rescaled."""
    v = values.astype(float)
    finite = v[np.isfinite(v)]
    rescale = bool(finite.size and (finite.min() < 0 or finite.max() > 1))
    if rescale:
        lo, hi = float(finite.min()), float(finite.max())
        v = (v - lo) / (hi - lo)
    return (v if higher_is_better else 1.0 - v), rescale


def joint_cells(df: pd.DataFrame, *, benchmarks: Sequence[str] | None = None,
                metrics: Sequence[str] | None = None,
                specs: Mapping[tuple[str, str], MetricSpec] | None = None) -> Cells:
    """The example scores of every (system, benchmark) cell of a long table.

    Parameters
    ----------
    df : DataFrame
        Canonical long table (:func:`engine.validate_long`).
    benchmarks : sequence of str, optional
        Benchmarks to model (default all, data order).
    metrics : sequence of str, optional
        The metric to use on each benchmark: the first of these measured there (default:
        each benchmark's primary metric, its first score in data order that is not a usage
        metric such as a cost or a time, as the Overall page's).
    specs : mapping (benchmark, metric) → MetricSpec, optional
        Directions (default: the recorded spec, else higher is better).

    Returns
    -------
    Cells
        Systems in data order; repeated runs averaged per (system, example).
    """
    missing = [c for c in REQUIRED_COLUMNS if c not in df.columns]
    if missing:
        raise ValueError(f"df: must be a long table with columns {list(REQUIRED_COLUMNS)}; "
                         f"missing {missing}")
    present = [str(b) for b in pd.unique(df["benchmark"])]
    chosen = present if benchmarks is None else [str(b) for b in benchmarks]
    unknown = [b for b in chosen if b not in present]
    if unknown or not chosen or len(set(chosen)) != len(chosen):
        raise ValueError(f"benchmarks: need distinct benchmarks of the table {present!r}; "
                         f"got {chosen!r}")
    part = df[df["benchmark"].astype(str).isin(chosen)]
    systems = tuple(str(s) for s in pd.unique(part["system"]))
    where = {s: i for i, s in enumerate(systems)}
    scores, ids, rescaled = [], [], []
    for b in chosen:
        rows = part[part["benchmark"].astype(str) == b]
        on_b = [str(m) for m in pd.unique(rows["metric"])]
        primary = [m for m in on_b if m not in USAGE_METRICS] or on_b  # never a cost or time
        picked = primary[:1] if metrics is None else [m for m in metrics if m in on_b][:1]
        if not picked:
            raise ValueError(f"metrics: none of {list(metrics or [])!r} is measured on {b!r} "
                             f"(it measures {on_b!r}); choose one of those or leave it out")
        rows = rows[rows["metric"].astype(str) == picked[0]]
        cell = rows.groupby([rows["system"].astype(str), rows["example_id"].astype(str)],
                            sort=False, observed=True)["value"].mean()
        values, was = _unit_scores(cell.to_numpy(float),
                                   spec_of(df, b, picked[0], specs).higher_is_better)
        s_code = np.array([where[s] for s in cell.index.get_level_values(0)], dtype=np.int64)
        e_code, e_ids = pd.factorize(cell.index.get_level_values(1))
        x = np.full((len(systems), len(e_ids)), np.nan)
        x[s_code, e_code] = values
        scores.append(x)
        ids.append(np.asarray(e_ids, dtype=str))
        if was:
            rescaled.append(b)
    return Cells(systems, tuple(chosen), tuple(scores), tuple(ids), tuple(rescaled))


def _parts(ran: np.ndarray) -> list[tuple[list[int], list[int]]]:
    """Connected parts of the systems — benchmarks graph as (system rows, benchmark columns),
    largest first (most systems, then most benchmarks, then first in data order)."""
    graph = nx.Graph()
    graph.add_nodes_from(("s", i) for i in range(ran.shape[0]))
    graph.add_nodes_from(("b", j) for j in range(ran.shape[1]))
    rows, cols = np.nonzero(ran)
    graph.add_edges_from((("s", int(i)), ("b", int(j))) for i, j in zip(rows, cols, strict=True))
    out = []
    for comp in nx.connected_components(graph):
        s = sorted(i for kind, i in comp if kind == "s")
        b = sorted(j for kind, j in comp if kind == "b")
        out.append((s, b))
    return sorted(out, key=lambda p: (-len(p[0]), -len(p[1]), min(p[0] + [10**9])))


def identifiability(cells: Cells) -> list[str]:
    """Why the model cannot place every system on one scale: one sentence per reason, each
    naming the systems or benchmarks (empty: every system is identified)."""
    ran = cells.ran
    reasons = []
    counts = ran.sum(axis=0)
    for j in np.flatnonzero(counts < MIN_SYSTEMS):
        names = [cells.systems[i] for i in np.flatnonzero(ran[:, j])]
        reasons.append(f"benchmark {cells.benchmarks[j]!r} was run by {int(counts[j])} system(s) "
                       f"({', '.join(names) or 'none'}); its difficulty and discrimination need "
                       f"at least {MIN_SYSTEMS}: leave it out of the selection")
    usable = ran & (counts >= MIN_SYSTEMS)[None, :]
    for i in np.flatnonzero(~usable.any(axis=1)):
        reasons.append(f"system {cells.systems[i]!r} ran no benchmark that {MIN_SYSTEMS} or more "
                       "systems ran: nothing places it on the common scale")
    parts = [p for p in _parts(usable) if p[1]]
    for s, b in parts[1:]:
        names = [cells.systems[i] for i in s]
        shown = ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
        reasons.append(f"system(s) {shown} share no benchmark with the others: they ran only "
                       f"{', '.join(cells.benchmarks[j] for j in b)}, which none of the other "
                       "systems ran, so no common scale links them; choose benchmarks that "
                       "connect them or leave those out")
    return reasons


def connected_selection(df: pd.DataFrame, benchmarks: Sequence[str] | None = None
                        ) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The benchmarks of the largest part of the matrix a joint model can place on one scale.

    Returns ``(kept, left_out)``, both in data order: benchmarks run by at least
    :data:`MIN_SYSTEMS` systems, in the connected part of the systems — benchmarks graph
    with the most systems. Reads only who ran what.

    Examples
    --------
    >>> rows = [(b, s) for b, ss in {"b1": "xyz", "b2": "xyw", "b3": "uvt"}.items() for s in ss]
    >>> df = pd.DataFrame([(b, s, "e", "m", 1.0) for b, s in rows],
    ...                   columns=["benchmark", "system", "example_id", "metric", "value"])
    >>> connected_selection(df)
    (('b1', 'b2'), ('b3',))
    """
    missing = [c for c in ("benchmark", "system") if c not in df.columns]
    if missing:
        raise ValueError(f"df: needs columns benchmark and system; missing {missing}")
    pairs = df[["benchmark", "system"]].astype(str).drop_duplicates()
    names = ([str(b) for b in pd.unique(pairs["benchmark"])] if benchmarks is None
             else [str(b) for b in benchmarks])
    pairs = pairs[pairs["benchmark"].isin(names)]
    systems = list(pd.unique(pairs["system"]))
    s_at = {s: i for i, s in enumerate(systems)}
    b_at = {b: j for j, b in enumerate(names)}
    ran = np.zeros((len(systems), len(names)), dtype=bool)
    ran[[s_at[s] for s in pairs["system"]], [b_at[b] for b in pairs["benchmark"]]] = True
    usable = ran & (ran.sum(axis=0) >= MIN_SYSTEMS)[None, :]
    parts = [p for p in _parts(usable) if p[1]]
    keep = set(parts[0][1]) if parts else set()
    return (tuple(b for j, b in enumerate(names) if j in keep),
            tuple(b for j, b in enumerate(names) if j not in keep))
