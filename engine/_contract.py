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
    "USAGE_METRICS",
    "Problem",
    "spec_for",
    "validate_long",
]

REQUIRED_COLUMNS: tuple[str, ...] = ("benchmark", "system", "example_id", "metric", "value")
KEY_COLUMNS: tuple[str, ...] = ("benchmark", "system", "example_id", "metric")
_MAX_LISTED_ROWS = 5
#: What a harness records of each example's usage, imported as lower-is-better metrics beside
#: the scores (engine.harness._usage): listed after the scores, never a benchmark's default.
USAGE_METRICS: frozenset[str] = frozenset(
    {"tokens_in", "tokens_out", "latency_s", "working_s", "latency_ms", "cost"})


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


def exact_factorize(column: pd.Series) -> tuple[np.ndarray, pd.Series] | None:
    """Integer codes (-1 = missing) and the distinct values of ``column``, grouped exactly.

    Exactly: two rows share a code only when their values are identical, so any
    elementwise conversion (to text, to a hash) can be applied once per distinct value and
    gathered back by code. That holds for strings, integers, booleans and floats taken
    by bit pattern (``-0.0`` is not ``0.0`` as text), also as objects of one such type;
    None for anything else, e.g. an object column mixing ``1``, ``1.0`` and ``True``,
    which pandas counts as equal.

    >>> codes, uniques = exact_factorize(pd.Series([0.0, -0.0, 0.0]))
    >>> codes.tolist(), uniques.astype(str).tolist()
    ([0, 1, 0], ['0.0', '-0.0'])
    >>> exact_factorize(pd.Series([1, 1.0, True], dtype=object)) is None
    True
    """
    dtype = column.dtype
    if isinstance(dtype, pd.StringDtype):
        text_codes, texts = pd.factorize(column)
        return np.asarray(text_codes, dtype=np.intp), pd.Series(texts, dtype=dtype)
    if not isinstance(dtype, np.dtype) or dtype.kind not in "iubfO":
        return None
    values = column.to_numpy()
    if dtype.kind == "O":
        kind = pd.api.types.infer_dtype(values, skipna=False)
        if kind in ("integer", "floating", "boolean"):
            types = set(map(type, values))  # np.float32(0.1) == 0.1 as values, not as text
            if types == {float}:
                values = values.astype(np.float64)
            elif types not in ({int}, {bool}):
                return None
        elif kind != "string":
            return None
    if values.dtype.kind == "f":
        bits = np.ascontiguousarray(values).view(f"i{values.dtype.itemsize}")
        bit_codes, unique_bits = pd.factorize(bits)
        floats = pd.Series(np.asarray(unique_bits).view(values.dtype))
        return np.asarray(bit_codes, dtype=np.intp), floats.astype(dtype)
    codes, uniques = pd.factorize(values)
    return np.asarray(codes, dtype=np.intp), pd.Series(uniques, dtype=dtype)


def _stripped_text(column: pd.Series) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``column`` as stripped text (object array, None where missing), whether each row is
    empty, codes that are equal exactly when the texts are, and the text of each code.

    The conversion runs once per distinct value when :func:`exact_factorize` can group
    the values; otherwise once per row.
    """
    grouped = exact_factorize(column)
    if grouped is None:
        codes, uniques = np.arange(len(column), dtype=np.intp), column.reset_index(drop=True)
    else:
        codes, uniques = grouped
    text = uniques.astype("string").str.strip()
    blank = (text.isna() | (text == "")).to_numpy(dtype=bool, na_value=True)
    # code -1 (missing) indexes the appended last slot
    words = np.empty(len(text) + 1, dtype=object)
    words[:-1] = text.astype(object).to_numpy()
    text_codes, distinct = pd.factorize(text)
    same = np.append(np.asarray(text_codes, dtype=np.int64), -1)
    return (words[codes], np.append(blank, True)[codes], same[codes],
            np.asarray(distinct.astype(object), dtype=object))


#: Per key column: row codes (int64) and the text of each code (object array).
KeyCodes = dict[str, tuple[np.ndarray, np.ndarray]]


def _clean_keys(df: pd.DataFrame, source: str
                ) -> tuple[dict[str, np.ndarray], KeyCodes, list[Problem]]:
    """Key columns as stripped text and as codes (computed once), and a problem per column
    with blanks."""
    cleaned, codes, problems = {}, {}, []
    for col in (*KEY_COLUMNS, *(["run"] if "run" in df.columns else [])):
        text, empty, same, distinct = _stripped_text(df[col])
        if empty.any():
            problems.append(
                Problem(source, rule="empty value in a key column", column=col,
                        rows=_row_numbers(empty), fix=f"give every row a {col}")
            )
        cleaned[col], codes[col] = text, (same, distinct)
    return cleaned, codes, problems


def _to_numeric_values(df: pd.DataFrame, source: str) -> tuple[pd.Series, list[Problem]]:
    raw = df["value"]
    numeric = pd.to_numeric(raw, errors="coerce")
    if raw.dtype == bool:
        numeric = raw.astype(float)
    numeric = numeric.astype(float)
    problems = []
    # only rows that failed the conversion but hold something can be "not a number":
    # converting every value to text would cost a string per row
    failed = (numeric.isna() & raw.notna()).to_numpy(dtype=bool, copy=True)
    if failed.any():
        text = raw[failed].astype("string").str.strip()
        failed[failed] = (text != "").to_numpy(dtype=bool, na_value=False)
    not_number = pd.Series(failed, index=raw.index)
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


def _combined_codes(codes: list[np.ndarray]) -> np.ndarray:
    """One int64 code per distinct combination of the columns' codes (all ≥ 0)."""
    n = len(codes[0]) if codes else 0
    key = np.zeros(n, dtype=np.int64)
    size = 1
    for part in codes:
        width = int(part.max()) + 1 if n else 1
        if size * width >= 2**62:  # re-number before the mixed-radix key could overflow
            renumbered, distinct = pd.factorize(key)
            key, size = np.asarray(renumbered, dtype=np.int64), len(distinct)
        key = key * width + part
        size *= width
    return key


def _check_duplicates(df: pd.DataFrame, codes: KeyCodes, source: str) -> list[Problem]:
    keys = [*KEY_COLUMNS, *(["run"] if "run" in df.columns else [])]
    dup = pd.Series(_combined_codes([codes[k][0] for k in keys])).duplicated(keep=False).to_numpy()
    if not dup.any():
        return []
    first = df.loc[dup, keys].iloc[0]
    example = ", ".join(f"{k}={first[k]!s}" for k in keys)
    fix = ("add a 'run' column numbering the repeats, or remove the duplicate rows"
           if "run" not in df.columns else "give each repeat its own run number")
    return [Problem(source, rule=f"duplicate key ({example})", rows=_row_numbers(dup), fix=fix)]


def _check_single_system(df: pd.DataFrame, codes: KeyCodes, source: str) -> list[Problem]:
    systems = pd.Series(codes["system"][0]).groupby(
        _combined_codes([codes["benchmark"][0], codes["metric"][0]]))
    if (systems.max() > systems.min()).any():
        return []  # at least one benchmark/metric can be compared; lone ones stay browsable
    counts = df.groupby(["benchmark", "metric"], observed=True)["system"].nunique()
    lone = counts[counts < 2]
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
    return validate_long_codes(df, source=source, require_comparison=require_comparison)[0]


def validate_long_codes(df: pd.DataFrame, *, source: str = "<data>",
                        require_comparison: bool = True) -> tuple[pd.DataFrame, KeyCodes]:
    """:func:`validate_long`, and the codes of its key columns (for the results store).

    ``codes[col] = (row_codes, texts)``: ``texts[row_codes]`` is the column as returned,
    each distinct text once, so callers group or hash it without factorizing it again.

    >>> df = pd.DataFrame({"benchmark": "b", "system": [" s", "t"], "example_id": [1, 1],
    ...                    "metric": "acc", "value": [1, 0]})
    >>> out, codes = validate_long_codes(df)
    >>> row_codes, texts = codes["system"]
    >>> texts[row_codes].tolist()
    ['s', 't']
    """
    if len(df.columns) == 0 or len(df) == 0:
        rule = "the table is empty" if len(df.columns) == 0 else "the table has a header but no rows"
        raise DataContractError([Problem(source, rule=rule,
                                         fix="add one row per (system, example, metric) score")])
    problems = _check_columns(df, source)
    if problems:
        raise DataContractError(problems)
    df = df.reset_index(drop=True)
    keys, codes, problems = _clean_keys(df, source)
    values, value_problems = _to_numeric_values(df, source)
    problems += value_problems + _check_runs(df, source)
    if problems:
        raise DataContractError(problems)
    out = df.copy(deep=False)  # copy-on-write: the caller's frame is never changed
    for col in KEY_COLUMNS:
        out[col] = pd.Series(keys[col], index=out.index, dtype=object)
    out["value"] = values
    if "run" in out.columns:
        out["run"] = pd.to_numeric(out["run"]).astype("int64")
        run_codes, runs = pd.factorize(out["run"].to_numpy())
        codes["run"] = (np.asarray(run_codes, dtype=np.int64), np.asarray(runs))
    problems = _check_duplicates(out, codes, source)
    if require_comparison and not problems:
        problems = _check_single_system(out, codes, source)
    if problems:
        raise DataContractError(problems)
    return out, {col: codes[col] for col in KEY_COLUMNS}
