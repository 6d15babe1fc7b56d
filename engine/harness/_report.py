"""What an import produced: the result dataclass and the skipped-values report.

Values that are not scores (lists of corpus-metric inputs, free strings, ``null``,
``NaN``, errored samples) are never turned into 0 and never dropped silently: every
reader counts them in a :class:`Skips` collector, and :meth:`HarnessImport.report`
turns the counts into one sentence a person can act on.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import pandas as pd

from .._contract import USAGE_METRICS, MetricSpec

__all__ = ["SKIP_COLUMNS", "SKIP_REASONS", "HarnessImport", "Skips"]

#: Columns of :attr:`HarnessImport.skipped`.
SKIP_COLUMNS: tuple[str, ...] = ("reason", "benchmark", "metric", "count")

#: reason → (singular, plural) used in the sentence. Samples, not values, for the last three.
SKIP_REASONS: dict[str, tuple[str, str]] = {
    "list": ("list", "lists"),
    "dict": ("dict", "dicts"),
    "string": ("non-numeric string", "non-numeric strings"),
    "null": ("null", "null"),
    "nan": ("NaN", "NaN"),
    "infinite": ("infinite value", "infinite values"),
    "empty stat": ("empty stat (count 0)", "empty stats (count 0)"),
    "not a score": ("bookkeeping stat", "bookkeeping stats"),
    "errored sample": ("errored sample", "errored samples"),
    "unscored sample": ("sample without scores", "samples without scores"),
    "superseded": ("sample superseded by a newer log", "samples superseded by a newer log"),
}
_SAMPLE_REASONS = frozenset({"errored sample", "unscored sample", "superseded"})
_BY_DESIGN = frozenset({"not a score"})
_MAX_PHRASES = 6


@dataclass
class Skips:
    """Counts of skipped values by (reason, benchmark, metric); readers add to it."""

    counts: Counter[tuple[str, str, str]] = field(default_factory=Counter)
    notes: dict[tuple[str, str], str] = field(default_factory=dict)
    #: (file, why) of each log of a several-log upload that could not be read (skipped)
    unreadable: list[tuple[str, str]] = field(default_factory=list)
    #: sentences saying how logs were combined (retries, re-runs, settings, pairing)
    decisions: list[str] = field(default_factory=list)
    #: benchmark -> the example attribute the log clusters its standard errors by
    clusters: dict[str, str] = field(default_factory=dict)

    def add(self, reason: str, benchmark: str, metric: str, count: int = 1,
            note: str | None = None) -> None:
        if reason not in SKIP_REASONS:
            raise ValueError(f"reason: must be one of {', '.join(SKIP_REASONS)}; got {reason!r}")
        if count > 0:
            self.counts[(reason, benchmark, metric)] += int(count)
            if note:
                self.notes[(reason, metric)] = note

    def frame(self) -> pd.DataFrame:
        rows = [(r, b, m, n) for (r, b, m), n in sorted(self.counts.items())]
        return pd.DataFrame(rows, columns=list(SKIP_COLUMNS)).astype({"count": "int64"})


def _phrase(reason: str, metric: str, n: int, note: str | None) -> str:
    singular, plural = SKIP_REASONS[reason]
    where = f" in metric {metric}" if metric else ""
    tail = f" ({note})" if note else ""
    return f"{n} {singular if n == 1 else plural}{where}{tail}"


def describe_skips(skipped: pd.DataFrame, notes: dict[tuple[str, str], str]) -> str:
    """One sentence: '312 values skipped: 300 lists in metric f1 (corpus-level inputs), 12 null'."""
    if skipped.empty:
        return "no values skipped"
    by = skipped.groupby(["reason", "metric"], sort=False)["count"].sum().sort_values(ascending=False)
    pairs = [(str(r), str(m)) for r, m in by.index.to_list()]
    parts = []
    for kind, reasons in (("values", None), ("samples", _SAMPLE_REASONS), ("by design", _BY_DESIGN)):
        if reasons is None:
            mask = [r not in _SAMPLE_REASONS | _BY_DESIGN for r, _ in pairs]
        else:
            mask = [r in reasons for r, _ in pairs]
        sel = by[mask]
        if sel.empty:
            continue
        phrases = [_phrase(r, m, int(n), notes.get((r, m)))
                   for (r, m), n in zip([p for p, k in zip(pairs, mask, strict=True) if k],
                                        sel.to_list(), strict=True)]
        if len(phrases) > _MAX_PHRASES:
            rest = int(sel.iloc[_MAX_PHRASES:].sum())
            phrases = [*phrases[:_MAX_PHRASES], f"{rest} more"]
        total = int(sel.sum())
        if kind == "values":
            head = f"{total} value{'s' if total != 1 else ''} skipped"
        elif kind == "samples":
            head = f"{total} sample{'s' if total != 1 else ''} without usable scores"
        else:
            parts.append(f"{total} bookkeeping stat value{'s' if total != 1 else ''} left out "
                         "(efficiency and counts such as num_*, finish_reason_*: not scores)")
            continue
        parts.append(f"{head}: {', '.join(phrases)}")
    return "; ".join(parts)


@dataclass(frozen=True)
class HarnessImport:
    """The result of :func:`engine.harness.read_harness`.

    Attributes
    ----------
    frame : DataFrame
        The canonical long table (``benchmark, system, example_id, metric, value``,
        ``run`` when the log has repeats or several invocations, then metadata columns),
        as :func:`engine._contract.validate_long` returns it.
    format : str
        The harness format read (one of :data:`engine.harness.HARNESS_FORMATS`).
    specs : dict
        ``(benchmark, metric) → MetricSpec`` for directions the log states.
    skipped : DataFrame
        Columns ``reason, benchmark, metric, count``: every value not imported, and why.
    files : tuple of str
        The files that contributed rows, as named in messages.
    notes : dict
        ``(reason, metric) → explanation`` shown in :meth:`report`.
    unreadable : tuple of (str, str)
        Logs of the upload that could not be read and were skipped: (file, why).
    decisions : tuple of str
        How logs were combined: retries merged, re-runs numbered, settings made systems,
        example ids not paired because their content differs.
    clusters : dict
        ``benchmark → example attribute`` the log clusters its standard errors by (Inspect's
        ``stderr(cluster="FIELD")``): the import declares it the benchmark's cluster column.
    """

    frame: pd.DataFrame
    format: str
    specs: dict[tuple[str, str], MetricSpec]
    skipped: pd.DataFrame
    files: tuple[str, ...] = ()
    notes: dict[tuple[str, str], str] = field(default_factory=dict)
    unreadable: tuple[tuple[str, str], ...] = ()
    decisions: tuple[str, ...] = ()
    clusters: dict[str, str] = field(default_factory=dict)

    def report(self) -> str:
        """The human sentence: what was imported and what was skipped, with reasons."""
        usage = self.frame["metric"].isin(USAGE_METRICS)
        df = self.frame[~usage]  # the scores; the usage values are counted after them
        n_sys = df["system"].nunique()
        n_bench = df["benchmark"].nunique()
        runs = f", {df['run'].nunique()} runs" if "run" in df.columns and df["run"].nunique() > 1 else ""
        head = (f"{len(df)} scores imported from {len(self.files)} {self.format} "
                f"file{'s' if len(self.files) != 1 else ''}: {n_sys} system{'s' if n_sys != 1 else ''}, "
                f"{n_bench} benchmark{'s' if n_bench != 1 else ''}, "
                f"{df['metric'].nunique()} metric{'s' if df['metric'].nunique() != 1 else ''}{runs}"
                + (f", and {int(usage.sum())} usage values (tokens, times, cost)"
                   if usage.any() else ""))
        tail = "".join(f" Not read: {label} ({why})." for label, why in self.unreadable)
        tail += "".join(f" {line}." for line in self.decisions)
        tail += "".join(f" {bench}: clustered by {col}, as the log's stderr(cluster=...) says."
                        for bench, col in self.clusters.items())
        return f"{head}; {describe_skips(self.skipped, self.notes)}.{tail}"
