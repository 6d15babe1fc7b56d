"""The watch view's answer: the champion against every challenger, as results arrive.

Each challenger is a watched comparison in the store (:meth:`ResultsStore.watch`,
baseline = the champion, so a positive difference = the challenger is better), kept up
to date per upload. The current e-values of "no difference" (the hedged capital at 0,
an e-value at any time the page is looked at) are combined by e-BH (Wang & Ramdas
2022, :mod:`engine.stats._ebh`): the challengers it marks are discoveries with the
false-discovery rate at most alpha, whatever the dependence between the comparisons
(they share the champion's scores). A read-only store is watched without storing
(the same sequences, computed from its uploads).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from .._options import TestOptions, resolve
from ..stats._ebh import EBHResult, e_bh

if TYPE_CHECKING:
    from ..stats._arrivals import WatchReport
    from ..store import ResultsStore

__all__ = ["WATCH_BOARD_COLUMNS", "WatchBoard", "watch_board"]

WATCH_BOARD_COLUMNS = ["challenger", "n_seen", "cs_low", "cs_high", "p_always_valid", "e_value",
                       "excludes_0", "ebh_discovery", "first_excluded_n", "first_excluded_upload"]

EBH_CAVEAT = (
    "e-BH (Wang & Ramdas 2022) controls the false-discovery rate among the challengers it "
    "marks at alpha under any dependence, using each sequence's current e-value. It holds "
    "for the marks shown at the moment you stop looking (any stopping time, the same for "
    "all challengers), not for the union of everything ever marked across looks; it is more "
    "conservative than BH (a mark needs e ≥ K/(alpha·k)); and an e-value can fall back after "
    "a high point, so a challenger whose own sequence excluded 0 (it keeps that verdict, the "
    "interval only shrinks) may not be marked, and each sequence alone is not corrected for "
    "the other challengers."
)


@dataclass(frozen=True)
class WatchBoard:
    """The champion's watches: one :class:`WatchReport` per challenger and e-BH across them.

    ``table`` has the columns :data:`WATCH_BOARD_COLUMNS` (differences challenger −
    champion, positive = challenger better), best lower bound first.
    """

    benchmark: str
    metric: str
    champion: str
    alpha: float
    reports: tuple[WatchReport, ...]
    ebh: EBHResult
    table: pd.DataFrame
    stored: bool
    caveat: str = EBH_CAVEAT


def _champion(store: ResultsStore, benchmark: str, metric: str) -> str:
    """The system with the best mean (direction applied) on the benchmark's metric."""
    frame = store.load_frame(benchmark, metric)
    if frame.empty:
        raise ValueError(f"benchmark, metric: {benchmark!r} / {metric!r} has no results")
    means = frame.groupby("system")["value"].mean()
    best = means.idxmax() if store.metric_spec(benchmark, metric).higher_is_better \
        else means.idxmin()
    return str(best)


def watch_board(store: ResultsStore, benchmark: str, metric: str, *,
                champion: str | None = None, challengers: list[str] | None = None,
                options: TestOptions | None = None, cluster: str | None = None,
                keep: bool = True) -> WatchBoard:
    """Watch ``champion`` (default: the best mean) against every other system (or
    ``challengers``) on one benchmark and metric; e-BH across the challengers.

    ``keep``: keep each watch in the store (updated per upload); False computes the same
    sequences from the uploads without writing (a page view, a read-only store). ``options``:
    its ``alpha`` is the level of the confidence sequences and of e-BH (default
    ``TestOptions()``)."""
    opts = resolve(options, {})
    alpha = opts.alpha
    champ = champion or _champion(store, benchmark, metric)
    if challengers is None:
        systems = store.load_frame(benchmark, metric)["system"].unique()
        challengers = [str(s) for s in systems if str(s) != champ]
    stored = keep and not store.read_only
    reports = tuple(store.watch(benchmark, metric, baseline=champ, candidate=c, cluster=cluster,
                                options=opts) for c in challengers) if stored else \
        tuple(store.watch_previews(benchmark, metric, baseline=champ, candidates=challengers,
                                   cluster=cluster, options=opts))
    ebh = e_bh([r.e_value for r in reports], alpha=alpha)
    table = pd.DataFrame({
        "challenger": [r.candidate for r in reports],
        "n_seen": [r.n_seen for r in reports],
        "cs_low": [r.cs_low for r in reports], "cs_high": [r.cs_high for r in reports],
        "p_always_valid": [r.p_always_valid for r in reports],
        "e_value": [r.e_value for r in reports],
        "excludes_0": [r.first_excluded_n is not None for r in reports],
        "ebh_discovery": ebh.rejected.astype(bool),
        "first_excluded_n": pd.array([r.first_excluded_n for r in reports], dtype="Int64"),
        "first_excluded_upload": pd.array([r.first_excluded_upload for r in reports],
                                          dtype="Int64"),
    }, columns=WATCH_BOARD_COLUMNS)
    order = np.argsort(-table["cs_low"].to_numpy(np.float64), kind="stable")
    table = table.iloc[order].reset_index(drop=True)
    return WatchBoard(benchmark, metric, champ, float(alpha),
                      tuple(reports[i] for i in order), ebh, table, stored)
