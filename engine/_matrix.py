"""The systems × examples matrix of one (benchmark, metric): the unit all statistics work on."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Literal

import numpy as np
import pandas as pd

from ._contract import DataContractError, MetricSpec, Problem
from ._moments import row_moments

__all__ = ["Pairing", "ScoreMatrix", "build_matrix", "orient", "pick_slice"]

Pairing = Literal["full", "partial", "none"]


@dataclass(frozen=True)
class ScoreMatrix:
    """Scores of one benchmark and metric as a systems × examples array.

    Attributes
    ----------
    values : ndarray, shape (n_systems, n_examples)
        Per-example mean over runs; NaN where a system has no score for an example.
    runs : ndarray of int, same shape
        Number of runs behind each cell (0 where missing).
    systems, examples : tuple of str
        Row and column labels. Systems keep the order of first appearance in the
        data (the "pre-registered" order that first-vs-rest and successive
        comparisons rely on); examples are sorted.
    higher_is_better : bool
        Metric direction.
    binary : bool
        Modality: as declared in the metric's :class:`MetricSpec`, else True when
        every cell is 0 or 1 (after averaging runs).
    pairing : {"full", "partial", "none"}
        ``full``: every system scored every example; ``partial``: some overlap;
        ``none``: no example is shared by all systems.
    """

    benchmark: str
    metric: str
    systems: tuple[str, ...]
    examples: tuple[str, ...]
    values: np.ndarray
    runs: np.ndarray
    higher_is_better: bool = True
    binary: bool = False
    pairing: Pairing = "full"
    common: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool))
    declared_binary: bool | None = None
    """The modality as declared (None: detected); a subset detects again only then."""
    run_scores: pd.DataFrame | None = field(default=None, repr=False, compare=False)
    """Run-level rows (system, example_id, run, value) when some cell has several runs:
    the tests then account for run-to-run variance (:mod:`engine.stats._runs`)."""

    @cached_property
    def moments(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per system: scored examples, mean and variance (ddof 1), read-only. Computed
        once per matrix: the leaderboard's intervals, the pair tests' means and their
        difference intervals all read them (one pass over the values instead of four)."""
        moments = row_moments(self.values)
        for part in moments:
            part.setflags(write=False)
        return moments

    @property
    def has_runs(self) -> bool:
        """True when some system was scored in several runs on an example."""
        return self.run_scores is not None

    @property
    def n_systems(self) -> int:
        return len(self.systems)

    @property
    def n_examples(self) -> int:
        return len(self.examples)

    @property
    def n_common(self) -> int:
        """Number of examples scored by every system."""
        return int(self.common.sum())

    @property
    def can_pair(self) -> bool:
        """Paired statistics need at least 2 examples scored by every system."""
        return self.n_common >= 2

    def use_paired(self, paired: bool | None, *, what: str) -> bool:
        """The pairing to use: ``paired`` as asked, or paired whenever possible (None).

        ``what`` names the paired procedure in the error raised when pairing is
        asked for but impossible ("test", "bootstrap").
        """
        if paired is None:
            return self.can_pair
        if paired and not self.can_pair:
            raise ValueError(f"paired: fewer than 2 examples are shared by all systems, so a "
                             f"paired {what} is impossible; use paired=False")
        return paired

    def paired_values(self) -> np.ndarray:
        """The columns every system has (no NaN): the input of paired tests."""
        return self.values[:, self.common]

    def oriented(self, *, paired: bool) -> np.ndarray:
        """Scores turned so that larger is better (see :func:`orient`)."""
        x = self.paired_values() if paired else self.values
        return orient(x, higher_is_better=self.higher_is_better, binary=self.binary)

    def subset(self, systems: list[str] | tuple[str, ...]) -> ScoreMatrix:
        """The same matrix restricted to ``systems`` (in the given order)."""
        index = {s: i for i, s in enumerate(self.systems)}
        repeated = sorted({s for s in systems if list(systems).count(s) > 1})
        if repeated:
            raise ValueError(f"systems: each system may appear once; repeated: {repeated!r}")
        unknown = [s for s in systems if s not in index]
        if unknown:
            raise ValueError(f"systems: unknown system(s) {unknown!r}; known: {list(self.systems)!r}")
        rows = [index[s] for s in systems]
        runs = None if self.run_scores is None else \
            self.run_scores[self.run_scores["system"].isin(set(systems))]
        return _make(self.benchmark, self.metric, tuple(systems), self.examples,
                     self.values[rows], self.runs[rows], self.spec, runs)

    def to_frame(self) -> pd.DataFrame:
        """The matrix as a DataFrame (systems as index, examples as columns)."""
        return pd.DataFrame(self.values, index=list(self.systems), columns=list(self.examples))

    @property
    def spec(self) -> MetricSpec:
        """The metric's definition this matrix was built with (modality as declared)."""
        return MetricSpec(higher_is_better=self.higher_is_better, binary=self.declared_binary)

    @classmethod
    def from_array(
        cls,
        values: np.ndarray | Sequence[Sequence[float]] | Mapping[str, Sequence[float]],
        *,
        systems: list[str] | tuple[str, ...] | None = None,
        examples: list[str] | tuple[str, ...] | None = None,
        benchmark: str = "benchmark",
        metric: str = "metric",
        spec: MetricSpec | None = None,
        runs: np.ndarray | None = None,
    ) -> ScoreMatrix:
        """A matrix straight from a systems × examples array (NaN = not scored).

        ``values`` may also map each system to its scores (shorter lists are padded
        with NaN: those systems lack the last examples). Systems default to
        ``s0, s1, …`` (or the mapping's keys) and examples to ``e0000, e0001, …``;
        the metric's ``spec`` (direction, declared modality) applies as in
        :func:`build_matrix`.

        Examples
        --------
        >>> m = ScoreMatrix.from_array([[1, 0, 1], [0, 0, 1]], systems=["A", "B"])
        >>> m.binary, m.pairing, m.n_examples
        (True, 'full', 3)
        """
        if isinstance(values, Mapping):
            systems = list(values) if systems is None else systems
            rows = [np.asarray(v, dtype=float) for v in values.values()]
            width = max((len(r) for r in rows), default=0)
            values = np.array([np.pad(r, (0, width - len(r)), constant_values=np.nan)
                               for r in rows]).reshape(len(rows), width)
        x = np.asarray(values, dtype=float)
        if x.ndim != 2:
            raise ValueError(f"values: must be a 2-D systems × examples array; got shape {x.shape}")
        names = tuple(systems) if systems is not None else tuple(f"s{i}" for i in range(len(x)))
        ids = (tuple(examples) if examples is not None
               else tuple(f"e{j:04d}" for j in range(x.shape[1])))
        if len(names) != x.shape[0] or len(ids) != x.shape[1]:
            raise ValueError(f"systems/examples: need {x.shape[0]} system and {x.shape[1]} example "
                             f"labels; got {len(names)} and {len(ids)}")
        scanned = _scan(x)  # one pass: NaN (the examples every system has) and 0/1 values
        if runs is not None:
            counts = np.asarray(runs, np.int64)
        elif not scanned[0].all():
            counts = (~np.isnan(x)).astype(np.int64)
        else:  # one run everywhere: a read-only view of a single 1, not S × E int64 cells
            counts = np.broadcast_to(np.int64(1), x.shape)
        return _make(benchmark, metric, names, ids, x, counts, spec or MetricSpec(),
                     scanned=scanned)


def orient(x: np.ndarray, *, higher_is_better: bool, binary: bool) -> np.ndarray:
    """Turn scores so that larger is better: ``x``, ``-x``, or ``1 - x`` for binary scores."""
    if higher_is_better:
        return x
    return 1.0 - x if binary else -x


_ROWS_CELLS = 4_000_000  # cells per block of rows scanned by _make (no full-size temporary)


def _row_slices(values: np.ndarray) -> list[slice]:
    step = max(1, _ROWS_CELLS // max(values.shape[1], 1))
    return [slice(i, min(i + step, len(values))) for i in range(0, len(values), step)]


def _scan(values: np.ndarray) -> tuple[np.ndarray, bool, float | None]:
    """Examples every system has, whether some cell is scored and every scored cell is
    0 or 1, and a scored value that is not — block by block of rows, so that a
    1,000 × 100,000 matrix needs no 800 MB copy of its scored cells."""
    common = np.ones(values.shape[1], dtype=bool)
    any_scored, all_01, bad = False, True, None
    for rows in _row_slices(values):
        block = values[rows]
        if block.size and np.isfinite(block.sum(axis=1)).all():
            any_scored = True  # finite row sums: no NaN here, one pass without a mask
            if all_01 and not ((block == 0.0) | (block == 1.0)).all():
                all_01, bad = False, float(block[(block != 0.0) & (block != 1.0)][0])
            continue
        has = ~np.isnan(block)
        common &= has.all(axis=0)
        any_scored = any_scored or bool(has.any())
        if not all_01:  # a value other than 0/1 was seen: only the NaN scan goes on
            continue
        other = has & (block != 0.0) & (block != 1.0)
        if other.any():
            all_01, bad = False, float(block[other][0])
    return common, any_scored and all_01, bad


def _make(benchmark: str, metric: str, systems: tuple[str, ...], examples: tuple[str, ...],
          values: np.ndarray, runs: np.ndarray, spec: MetricSpec,
          run_scores: pd.DataFrame | None = None, *,
          scanned: tuple[np.ndarray, bool, float | None] | None = None) -> ScoreMatrix:
    common, all_01, bad = _scan(values) if scanned is None else scanned
    pairing: Pairing = "full" if common.all() else ("partial" if common.any() else "none")
    averaged = bool(runs.max(initial=0) > 1)  # a reduction: no S × E temporary
    if spec.binary and not all_01 and not averaged:
        raise DataContractError([Problem(
            "<data>", rule=f"metric {metric!r} on benchmark {benchmark!r} is declared binary "
            f"but has other values (e.g. {bad!r})", column="value",
            fix="declare it numeric, or score every example 0 or 1")])
    # A declared modality always wins over what the values look like, except that the
    # per-example mean of several 0/1 runs is a proportion, which is numeric.
    binary = all_01 if spec.binary is None else (spec.binary and all_01 if averaged else spec.binary)
    return ScoreMatrix(benchmark, metric, systems, examples, values, runs,
                       spec.higher_is_better, binary, pairing, common, spec.binary, run_scores)


def listed(names: Sequence[object], limit: int = 10) -> str:
    """Names joined by commas, the first ``limit`` of them and how many more.

    >>> listed(["a", "b", "c"], 2)
    'a, b … and 1 more'
    """
    shown = ", ".join(map(str, names[:limit]))
    return shown + (f" … and {len(names) - limit:,} more" if len(names) > limit else "")


def close_names(wanted: str, names: Sequence[object]) -> list[str]:
    """Up to three of ``names`` close to ``wanted`` (by :mod:`difflib`, case-insensitive)."""
    import difflib

    by_folded = {str(n).casefold(): str(n) for n in names}
    near = difflib.get_close_matches(wanted.casefold(), list(by_folded), n=3, cutoff=0.6)
    return [by_folded[n] for n in near]


def _pick(df: pd.DataFrame, column: str, wanted: str | None) -> str:
    present = list(pd.unique(df[column]))
    if wanted is None:
        if len(present) == 1:
            return str(present[0])
        if column == "metric" and (chosen := _primary(df, present)) is not None:
            return chosen
        raise DataContractError([Problem(
            "<data>", rule=f"several {column}s present ({listed(present)})",
            column=column, fix=f"choose one with --{column} (or the {column} argument)")])
    if wanted not in present:
        near = close_names(wanted, present)
        raise DataContractError([Problem(
            "<data>", rule=f"{column} {wanted!r} not found (present: {listed(present)})",
            column=column, fix=(f"did you mean {' or '.join(map(repr, near))}?" if near else
                                f"pick one of the {column}s present"))])
    return wanted


#: harness name → how a message names it
_HARNESS_NAMES = {"lm-eval": "lm-eval", "inspect": "Inspect", "helm": "HELM"}


def _primary(df: pd.DataFrame, present: Sequence[object]) -> str | None:
    """The metric of one benchmark's rows the harness logs name as its primary metric
    (``df.attrs["primary_metrics"]``, set by the lm-eval and Inspect readers), else None.

    A harness log says which of its metrics the task reports first (lm-eval's first
    ``metric_list`` entry, Inspect's first scorer): with several metrics present and none
    asked for, that one is the default, as the harness's own summary table leads with it.
    ``df.attrs["say_metric_default"]`` (the command line's) is told of the choice, so the
    default is stated, never silent. A plain table records no primary metric: several
    metrics without one asked for stay an error.
    """
    benches = pd.unique(df["benchmark"])
    if len(benches) != 1:
        return None
    found = (df.attrs.get("primary_metrics") or {}).get(str(benches[0]))
    if not found or found[0] not in present:
        return None
    metric, harness = str(found[0]), str(found[1])
    say = df.attrs.get("say_metric_default")
    if callable(say):
        others = [str(m) for m in present if m != metric]
        say(f"metric {metric}: {_HARNESS_NAMES.get(harness, harness)}'s primary metric of "
            f"{benches[0]} (others: {listed(others)}; choose with --metric)")
    return metric


def pick_slice(df: pd.DataFrame, benchmark: str | None, metric: str | None) -> tuple[str, str]:
    """The (benchmark, metric) a table holds: as asked (and checked), or the only one, or
    the harness's primary metric of the benchmark when its logs name one (:func:`_primary`)."""
    bench = _pick(df, "benchmark", benchmark)
    met = _pick(df[df["benchmark"] == bench], "metric", metric)
    return bench, met


def build_matrix(
    df: pd.DataFrame,
    *,
    benchmark: str | None = None,
    metric: str | None = None,
    spec: MetricSpec | None = None,
) -> ScoreMatrix:
    """Pivot a validated long table into the :class:`ScoreMatrix` of one benchmark and metric.

    Parameters
    ----------
    df : DataFrame
        Output of :func:`validate_long` (or of the readers / the store).
    benchmark, metric : str, optional
        Which slice to take; may be omitted when the table holds only one.
    spec : MetricSpec, optional
        What the metric means: direction and declared modality (a declared modality
        always wins over detection). Default: the spec the table's reader or store
        recorded for this metric (``df.attrs["metric_specs"]``), else higher is
        better with the modality detected from the values.

    Returns
    -------
    ScoreMatrix
        Cells are per-example means over runs; ``runs`` holds their counts.

    Notes
    -----
    The pivot is one ``groupby`` + integer-coded scatter, O(rows), with no
    Python loop over systems or examples.
    """
    bench = _pick(df, "benchmark", benchmark)
    part = df[df["benchmark"] == bench]
    met = _pick(part, "metric", metric)
    part = part[part["metric"] == met]
    sys_codes, systems = pd.factorize(part["system"], sort=False)
    ex_codes, examples = pd.factorize(part["example_id"], sort=True)
    shape = (len(systems), len(examples))
    flat = sys_codes * shape[1] + ex_codes
    totals = np.bincount(flat, weights=part["value"].to_numpy(float), minlength=shape[0] * shape[1])
    counts = np.bincount(flat, minlength=shape[0] * shape[1])
    with np.errstate(invalid="ignore", divide="ignore"):
        values = np.where(counts > 0, totals / np.maximum(counts, 1), np.nan)
    values = values.reshape(shape)  # never rounded: binary means exactly 0 or 1 (or declared)
    if spec is None:
        spec = df.attrs.get("metric_specs", {}).get(met, MetricSpec())
    run_scores = None
    if "run" in part.columns and counts.max(initial=0) > 1:  # keep what the run-aware tests need
        run_scores = part[["system", "example_id", "run", "value"]].reset_index(drop=True)
    return _make(bench, met, tuple(map(str, systems)), tuple(map(str, examples)),
                 values, counts.reshape(shape), spec, run_scores)
