"""The data contract: one canonical long table, validated with messages people can act on.

Canonical columns: ``benchmark, system, example_id, metric, value`` and an optional ``run``.
Any other column is metadata (per system or per example) and is kept untouched.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

__all__ = [
    "KEY_COLUMNS",
    "REQUIRED_COLUMNS",
    "DataContractError",
    "MetricSpec",
    "MetricSpecs",
    "Problem",
    "spec_for",
    "validate_long",
]

REQUIRED_COLUMNS: tuple[str, ...] = ("benchmark", "system", "example_id", "metric", "value")
KEY_COLUMNS: tuple[str, ...] = ("benchmark", "system", "example_id", "metric")
_MAX_LISTED_ROWS = 5


@dataclass(frozen=True)
class MetricSpec:
    """What a metric means, keyed by (benchmark, metric) wherever it is stored.

    Parameters
    ----------
    higher_is_better : bool
        Direction: True when a larger score is better.
    binary : bool or None
        Modality. True: every value is exactly 0 or 1 (McNemar, Wilson intervals);
        False: numeric (t tests, t intervals) even when the values happen to be 0/1;
        None: detect from the values. A declared modality always wins over detection.
    threshold : float or None
        A score at or above which an example counts as "solved" (health report),
        for numeric metrics; binary metrics are solved at 1. None: "solved" is
        not defined for a numeric metric.

    Examples
    --------
    >>> MetricSpec(higher_is_better=False).binary is None
    True
    """

    higher_is_better: bool = True
    binary: bool | None = None
    threshold: float | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.higher_is_better, bool | np.bool_):
            raise ValueError(f"higher_is_better: must be True or False; got {self.higher_is_better!r}")
        if self.binary not in (None, True, False):
            raise ValueError(f"binary: must be True, False or None (detect); got {self.binary!r}")
        if self.threshold is not None and not np.isfinite(self.threshold):
            raise ValueError(f"threshold: must be a finite number or None; got {self.threshold!r}")


#: Metric declarations keyed by ``(benchmark, metric)``, or by metric name alone for
#: every benchmark of an upload (a ``(benchmark, metric)`` key wins).
MetricSpecs = Mapping[str | tuple[str, str], MetricSpec]


def spec_for(specs: MetricSpecs | None, benchmark: str, metric: str) -> MetricSpec | None:
    """The declaration of ``metric`` on ``benchmark`` in ``specs``, if any."""
    if not specs:
        return None
    return specs.get((benchmark, metric)) or specs.get(metric)


@dataclass(frozen=True)
class Problem:
    """One violation of the data contract.

    ``rows`` are 1-based data-row numbers (the header is not counted), so they
    match what a person sees when opening the file in a spreadsheet.
    """

    source: str
    rule: str
    fix: str
    column: str | None = None
    rows: tuple[int, ...] = ()

    def __str__(self) -> str:
        where = [self.source]
        if self.column is not None:
            where.append(f"column '{self.column}'")
        if self.rows:
            shown = ", ".join(str(r) for r in self.rows[:_MAX_LISTED_ROWS])
            more = len(self.rows) - _MAX_LISTED_ROWS
            suffix = f" and {more} more" if more > 0 else ""
            label = "row" if len(self.rows) == 1 else "rows"
            where.append(f"{label} {shown}{suffix}")
        return f"{', '.join(where)}: {self.rule}. Fix: {self.fix}"


class DataContractError(ValueError):
    """Input that breaks the data contract; ``problems`` lists every violation found."""

    def __init__(self, problems: Sequence[Problem]) -> None:
        self.problems: tuple[Problem, ...] = tuple(problems)
        super().__init__("\n".join(str(p) for p in self.problems))


def _row_numbers(mask: pd.Series | np.ndarray) -> tuple[int, ...]:
    positions = np.flatnonzero(np.asarray(mask))
    return tuple(int(p) + 1 for p in positions)


def _check_columns(df: pd.DataFrame, source: str) -> list[Problem]:
    missing = [c for c in REQUIRED_COLUMNS if c not in df.columns]
    if not missing:
        return []
    found = ", ".join(map(str, df.columns)) or "none"
    return [
        Problem(
            source,
            rule=f"required column(s) {', '.join(missing)} missing (found: {found})",
            fix="name the columns benchmark, system, example_id, metric, value "
            "(aliases: benchmark_id, model; a wide file may hold one column per metric)",
            column=missing[0],
        )
    ]


def _clean_keys(df: pd.DataFrame, source: str) -> tuple[dict[str, pd.Series], list[Problem]]:
    """Key columns as stripped strings (computed once), and a problem per column with blanks."""
    cleaned, problems = {}, []
    for col in (*KEY_COLUMNS, *(["run"] if "run" in df.columns else [])):
        text = df[col].astype("string").str.strip()
        empty = text.isna() | (text == "")
        if empty.any():
            problems.append(
                Problem(source, rule="empty value in a key column", column=col,
                        rows=_row_numbers(empty), fix=f"give every row a {col}")
            )
        cleaned[col] = text
    return cleaned, problems


def _to_numeric_values(df: pd.DataFrame, source: str) -> tuple[pd.Series, list[Problem]]:
    raw = df["value"]
    numeric = pd.to_numeric(raw, errors="coerce")
    if raw.dtype == bool:
        numeric = raw.astype(float)
    numeric = numeric.astype(float)
    problems = []
    not_number = numeric.isna() & raw.notna() & (raw.astype("string").str.strip() != "")
    if not_number.any():
        sample = str(raw[not_number].iloc[0])[:40]
        problems.append(Problem(
            source, rule=f"value is not a number (e.g. {sample!r})", column="value",
            rows=_row_numbers(not_number), fix="write scores as plain numbers such as 0, 1 or 0.75"))
    missing = numeric.isna() & ~not_number
    if missing.any():
        problems.append(Problem(
            source, rule="value is missing (empty or NaN)", column="value",
            rows=_row_numbers(missing),
            fix="drop rows that have no score; a missing example is allowed, a missing score is not"))
    infinite = np.isinf(numeric.to_numpy())
    if infinite.any():
        problems.append(Problem(
            source, rule="value is infinite", column="value", rows=_row_numbers(infinite),
            fix="replace inf/-inf with a finite score"))
    return numeric, problems


def _check_runs(df: pd.DataFrame, source: str) -> list[Problem]:
    if "run" not in df.columns:
        return []
    runs = pd.to_numeric(df["run"], errors="coerce")
    bad = runs.isna() | (runs != np.round(runs)) | (runs < 0)
    if bad.any():
        return [Problem(source, rule="run must be a non-negative whole number", column="run",
                        rows=_row_numbers(bad), fix="number repeated runs 0, 1, 2, …")]
    return []


def _check_duplicates(df: pd.DataFrame, source: str) -> list[Problem]:
    keys = [*KEY_COLUMNS, *(["run"] if "run" in df.columns else [])]
    dup = df.duplicated(subset=keys, keep=False)
    if not dup.any():
        return []
    first = df.loc[dup, keys].iloc[0]
    example = ", ".join(f"{k}={first[k]!s}" for k in keys)
    fix = ("add a 'run' column numbering the repeats, or remove the duplicate rows"
           if "run" not in df.columns else "give each repeat its own run number")
    return [Problem(source, rule=f"duplicate key ({example})", rows=_row_numbers(dup), fix=fix)]


def _check_single_system(df: pd.DataFrame, source: str) -> list[Problem]:
    counts = df.groupby(["benchmark", "metric"], observed=True)["system"].nunique()
    lone = counts[counts < 2]
    if len(lone) != len(counts):
        return []  # at least one benchmark/metric can be compared; lone ones stay browsable
    bench, metric = lone.index[0]
    in_slice = (df["benchmark"] == bench) & (df["metric"] == metric)
    system = df.loc[in_slice, "system"].iloc[0]
    return [Problem(
        source, rule=f"only one system ({system}) on benchmark {bench!r}, "
        f"metric {metric!r}: there is nothing to compare it with", column="system",
        fix="add the results of at least one more system on the same examples")]


def validate_long(
    df: pd.DataFrame, *, source: str = "<data>", require_comparison: bool = True
) -> pd.DataFrame:
    """Validate a long results table and return it in canonical form.

    Parameters
    ----------
    df : DataFrame
        One row per observation with the columns of :data:`REQUIRED_COLUMNS`,
        optionally ``run``, plus any metadata columns.
    source : str
        Name of the file (or other origin) used in error messages.
    require_comparison : bool, keyword-only
        When true (the default) a table in which no benchmark/metric has two
        systems is rejected; the store sets it to false because a single new
        system may be uploaded next to stored ones.

    Returns
    -------
    DataFrame
        Key columns as strings, ``value`` as float64, ``run`` as int64 (when
        present), metadata columns untouched, index reset.

    Raises
    ------
    DataContractError
        With every problem found, each naming the column or rows, the rule and the fix.
    """
    if len(df.columns) == 0 or len(df) == 0:
        rule = "the table is empty" if len(df.columns) == 0 else "the table has a header but no rows"
        raise DataContractError([Problem(source, rule=rule,
                                         fix="add one row per (system, example, metric) score")])
    problems = _check_columns(df, source)
    if problems:
        raise DataContractError(problems)
    df = df.reset_index(drop=True)
    keys, problems = _clean_keys(df, source)
    values, value_problems = _to_numeric_values(df, source)
    problems += value_problems + _check_runs(df, source)
    if problems:
        raise DataContractError(problems)
    out = df.copy()
    for col in KEY_COLUMNS:
        out[col] = keys[col].astype(object)
    out["value"] = values
    if "run" in out.columns:
        out["run"] = pd.to_numeric(out["run"]).astype("int64")
    problems = _check_duplicates(out, source)
    if require_comparison and not problems:
        problems = _check_single_system(out, source)
    if problems:
        raise DataContractError(problems)
    return out
