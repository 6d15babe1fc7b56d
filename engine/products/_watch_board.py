"""The watch view's answer: the champion against every challenger, as results arrive.

Each challenger is a watched comparison in the store (:meth:`ResultsStore.watch`,
baseline = the champion, so a positive difference = the challenger is better), kept up
to date per upload. The current e-values of "no difference" (the hedged capital at 0,
an e-value at any time the page is looked at) are combined by e-BH (Wang & Ramdas
2022, :mod:`engine.stats._ebh`): the challengers it marks are discoveries with the
false-discovery rate at most alpha, whatever the dependence between the comparisons
(they share the champion's scores). A read-only store is watched without storing
(the same sequences, computed from its uploads).

Those e-values are e-values only for a champion fixed before the results were seen. The
default champion, the best mean on the same results, is chosen by them: the challengers
then look worse than it by selection alone, and e-BH on their raw e-values marks a null
challenger more often than a fixed champion does (0.027 ± 0.009 against 0.003 ± 0.003 of
300 simulated null streams of 20 equal systems at alpha = 0.05, MC standard errors; the
calibration script below). A named champion is taken
as fixed in advance (e-values as they are); a champion the board chooses is accounted for
by dividing every e-value by the number of systems it could have chosen (with every other
system a challenger): Σ over the true nulls of E[e_{c,b̂}] ≤ Σ_b Σ_{c true null for b}
E[e_{c,b}] ≤ K(K − 1) whatever the choice b̂, so the e-values over K are compound e-values
for the K − 1 challengers, and e-BH on compound e-values keeps the false-discovery rate at
most alpha (Ignatiadis, Wang & Ramdas 2024, "Compound e-values and empirical Bayes": a
rejection of c needs e_c/K ≥ m/(α R), so FDP ≤ α/(K m) Σ_{true nulls} e_c, whose
expectation is ≤ α with m = K − 1).
``benchmarks/calibrate_watch_champion.py`` checks both rules by simulation.
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
    from ..stats._missing_bounds import MissingBounds
    from ..store import ResultsStore

__all__ = ["CHAMPION_CHOSEN", "CHAMPION_NAMED", "WATCH_BOARD_COLUMNS", "WatchBoard",
           "best_mean", "champion_marks", "champion_sentence", "selection_factor", "watch_board"]

#: ``WatchBoard.champion_rule`` of a champion the caller named (taken as fixed in advance).
CHAMPION_NAMED = "named"
#: ``WatchBoard.champion_rule`` of the default champion: the best mean on the same results.
CHAMPION_CHOSEN = "chosen from the data"

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
    champion, positive = challenger better), best lower bound first; its ``e_value`` is
    each sequence's own. ``champion_rule`` says how the champion came
    (:data:`CHAMPION_NAMED` or :data:`CHAMPION_CHOSEN`), ``selection_factor`` what every
    e-value was divided by before e-BH for that (1 for a named champion; ``ebh.e_values``
    holds the divided ones) and ``champion_note`` says both in one sentence.
    """

    benchmark: str
    metric: str
    champion: str
    alpha: float
    reports: tuple[WatchReport, ...]
    ebh: EBHResult
    table: pd.DataFrame
    stored: bool
    champion_rule: str = CHAMPION_NAMED
    selection_factor: float = 1.0
    caveat: str = EBH_CAVEAT
    missing: tuple[MissingBounds | None, ...] = ()

    @property
    def undecided(self) -> tuple[MissingBounds, ...]:
        """The challengers whose verdict does not hold with the examples one side lacks at
        the worst and the best score (``watch`` exits 2 on each): their row is not a
        decision, whatever its interval and e-BH mark say."""
        return tuple(b for b in self.missing if b is not None and not b.decided)

    @property
    def champion_note(self) -> str:
        """How the champion came and what e-BH did for it, in one sentence."""
        return champion_sentence(self.champion_rule, self.selection_factor)


def best_mean(frame: pd.DataFrame, *, higher_is_better: bool = True) -> str:
    """The system with the best mean ``value`` (direction applied) in ``frame``; ties go to
    the first system in sorted order."""
    means = frame.groupby("system")["value"].mean()
    return str(means.idxmax() if higher_is_better else means.idxmin())


def selection_factor(systems: list[str], challengers: list[str] | None, champion: str) -> float:
    """What each e-value is divided by when ``champion`` was chosen from ``systems`` on the
    data: Σ_b |C(b)| / |C(champion)|, C(b) the challengers of a champion b (the given
    list without b, or every other system). With every other system a challenger it is the
    number of systems K. The product factor × |C(champion)| must not depend on the choice,
    and it does not: it is the number of (champion, challenger) pairs that could be shown.
    """
    def count(b: str) -> int:
        return len([c for c in (systems if challengers is None else challengers) if c != b])

    shown = count(champion)
    return float(sum(count(b) for b in systems)) / shown if shown else 1.0


def champion_marks(e_values: list[float] | np.ndarray, *, factor: float,
                   alpha: float) -> EBHResult:
    """e-BH at ``alpha`` on the challengers' e-values each divided by ``factor``
    (:func:`selection_factor`; 1 for a champion fixed in advance)."""
    if not (isinstance(factor, int | float) and factor >= 1):
        raise ValueError(f"factor: must be a number ≥ 1 (the systems the champion could have "
                         f"been chosen from); got {factor!r}")
    return e_bh(np.asarray(e_values, dtype=np.float64) / factor, alpha=alpha)


def champion_sentence(rule: str, factor: float) -> str:
    """The one sentence the Watch page shows about how the champion came (no system name in
    it: the page names the champion, isolated, beside it)."""
    if rule == CHAMPION_NAMED:
        return ("The champion was named, so it is taken as fixed before these results were "
                "seen and e-BH uses each challenger's e-value as it is (valid only if it was "
                "not picked by looking at them; leave it unset and the board accounts for "
                "its choice).")
    return (f"The champion is the best mean on these same results, so e-BH divides each "
            f"challenger's e-value by {factor:g} (the systems it could have chosen) to keep "
            "the false-discovery rate at alpha despite that choice.")


def watch_board(store: ResultsStore, benchmark: str, metric: str, *,
                champion: str | None = None, challengers: list[str] | None = None,
                options: TestOptions | None = None, cluster: str | None = None,
                keep: bool = True, allow_missing: int = 0) -> WatchBoard:
    """Watch ``champion`` (default: the best mean) against every other system (or
    ``challengers``) on one benchmark and metric; e-BH across the challengers.

    A named ``champion`` is taken as fixed before the results were seen; the default one is
    chosen on them, and e-BH accounts for that choice (the module's docstring): the board's
    ``champion_rule``, ``selection_factor`` and ``champion_note`` say which.

    ``keep``: keep each watch in the store (updated per upload); False computes the same
    sequences from the uploads without writing (a page view, a read-only store). ``options``:
    its ``alpha`` is the level of the confidence sequences and of e-BH (default
    ``TestOptions()``).

    Each challenger's verdict is bounded over the examples it or the champion lacks, as
    ``watch`` bounds it (the board's ``missing``, aligned with ``reports``; ``undecided``:
    the rows that cannot decide); ``allow_missing``: lacking examples per side declared."""
    opts = resolve(options, {})
    alpha = opts.alpha
    frame = store.load_frame(benchmark, metric)
    if frame.empty:
        raise ValueError(f"benchmark, metric: {benchmark!r} / {metric!r} has no results")
    systems = [str(s) for s in frame["system"].unique()]
    rule = CHAMPION_NAMED if champion else CHAMPION_CHOSEN
    champ = champion or best_mean(
        frame, higher_is_better=store.metric_spec(benchmark, metric).higher_is_better)
    factor = 1.0 if champion else selection_factor(systems, challengers, champ)
    if challengers is None:
        challengers = [s for s in systems if s != champ]
    stored = keep and not store.read_only
    reports = tuple(store.watch(benchmark, metric, baseline=champ, candidate=c, cluster=cluster,
                                options=opts) for c in challengers) if stored else \
        tuple(store.watch_previews(benchmark, metric, baseline=champ, candidates=challengers,
                                   cluster=cluster, options=opts))
    ebh = champion_marks([r.e_value for r in reports], factor=factor, alpha=alpha)
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
    missing = _missing(store, benchmark, metric, reports, cluster, allow_missing)
    return WatchBoard(benchmark, metric, champ, float(alpha),
                      tuple(reports[i] for i in order), ebh, table, stored, rule, factor,
                      missing=tuple(missing[i] for i in order))


def _missing(store: ResultsStore, benchmark: str, metric: str,
             reports: tuple[WatchReport, ...], cluster: str | None,
             allow_missing: int) -> list[MissingBounds | None]:
    """Each challenger's verdict bounded over the examples it or the champion lacks (the
    ``watch`` command's bound, :func:`engine.stats._watch_missing.watch_bounds`); None for a
    challenger with every example the champion has and none it lacks, or lacking (each
    side) at most the tolerance undeclared — reported there, never enforced, so the page
    does not run two more sequences per such challenger (77 on humaneval)."""
    from ..stats._missing_bounds import TOLERANCE
    from ..stats._watch_missing import watch_bounds

    if not reports:
        return []
    champ = reports[0].baseline
    rows = store.watch_rows(benchmark, metric, [champ, *(r.candidate for r in reports)],
                            cluster=cluster)
    spec = store.metric_spec(benchmark, metric)
    has = {str(k): frozenset(v.astype(str))
           for k, v in rows.groupby("system")["example_id"]}
    by = rows.groupby("system", sort=False).indices
    out: list[MissingBounds | None] = []
    for r in reports:
        mine, theirs = has[r.candidate], has[champ]
        gap = max(len(theirs - mine), len(mine - theirs))
        if gap == 0 or gap <= TOLERANCE * len(mine | theirs):
            out.append(None)
            continue
        pair = rows.iloc[np.sort(np.concatenate([by[champ], by[r.candidate]]))]
        out.append(watch_bounds(pair, r, higher_is_better=spec.higher_is_better,
                                binary=spec.binary, declared=allow_missing))
    return out
