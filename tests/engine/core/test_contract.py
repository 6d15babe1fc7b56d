"""The data contract (SPEC, "Data contract"): validate_long returns the canonical long table
or raises DataContractError whose every Problem names the file, the column and/or rows,
the rule broken and how to fix it."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from engine._contract import (
    KEY_COLUMNS,
    REQUIRED_COLUMNS,
    DataContractError,
    Problem,
    validate_long,
)

SOURCE = "results.csv"


def _base() -> pd.DataFrame:
    """Two systems × two examples, one metric: the smallest valid comparison."""
    return pd.DataFrame({
        "benchmark": ["b"] * 4,
        "system": ["A", "A", "B", "B"],
        "example_id": ["1", "2", "1", "2"],
        "metric": ["acc"] * 4,
        "value": [1, 0, 1, 1],
    })


def _problems(df: pd.DataFrame, **kwargs: object) -> tuple[Problem, ...]:
    with pytest.raises(DataContractError) as info:
        validate_long(df, source=SOURCE, **kwargs)
    err = info.value
    assert isinstance(err, ValueError)  # the CLI maps ValueError to exit code 2
    assert err.problems, "a DataContractError must list at least one problem"
    # The exception text is the problems, one per line, each naming the source.
    assert str(err).splitlines() == [str(p) for p in err.problems]
    for p in err.problems:
        assert str(p).startswith(SOURCE)
        assert "Fix: " in str(p) and p.fix and p.rule
    return err.problems


# ---------------------------------------------------------------- valid input


def test_valid_table_is_canonical() -> None:
    df = _base()
    df["example_id"] = [1, 2, 1, 2]  # ints become strings
    df["system"] = [" A", "A ", "B", "B"]  # surrounding spaces are stripped
    df["family"] = ["x", "x", "y", "y"]  # metadata is kept untouched
    out = validate_long(df, source=SOURCE)
    for col in KEY_COLUMNS:
        assert all(isinstance(v, str) for v in out[col]), col
    assert out["value"].dtype == np.float64
    assert list(out["system"]) == ["A", "A", "B", "B"]
    assert list(out["example_id"]) == ["1", "2", "1", "2"]
    assert list(out["family"]) == ["x", "x", "y", "y"]
    assert list(out.index) == [0, 1, 2, 3]
    assert set(REQUIRED_COLUMNS) <= set(out.columns)


def test_input_frame_is_not_modified() -> None:
    df = _base()
    df["example_id"] = [1, 2, 1, 2]
    before = df.copy()
    validate_long(df)
    pd.testing.assert_frame_equal(df, before)


def test_runs_are_integers_and_repeats_are_allowed() -> None:
    df = pd.concat([_base(), _base()], ignore_index=True)
    df["run"] = [0] * 4 + [1] * 4
    out = validate_long(df, source=SOURCE)
    assert out["run"].dtype == np.int64
    assert len(out) == 8


def test_bool_values_become_floats() -> None:
    df = _base()
    df["value"] = [True, False, True, True]
    out = validate_long(df)
    assert out["value"].tolist() == [1.0, 0.0, 1.0, 1.0]


def test_numeric_strings_are_accepted() -> None:
    df = _base()
    df["value"] = ["1", "0.5", " 0 ", "1e-1"]
    out = validate_long(df)
    assert out["value"].tolist() == [1.0, 0.5, 0.0, 0.1]


def test_single_system_allowed_when_comparison_not_required() -> None:
    # The store validates uploads of one new system with require_comparison=False.
    df = _base()[lambda d: d["system"] == "A"]
    out = validate_long(df, source=SOURCE, require_comparison=False)
    assert set(out["system"]) == {"A"}


def test_lone_slice_is_fine_when_another_slice_can_be_compared() -> None:
    # "at least one benchmark/metric can be compared; lone ones stay browsable"
    lone = pd.DataFrame({"benchmark": ["other"], "system": ["A"], "example_id": ["1"],
                         "metric": ["acc"], "value": [1.0]})
    out = validate_long(pd.concat([_base(), lone], ignore_index=True))
    assert len(out) == 5


# ---------------------------------------------------------------- specific messages


def test_duplicate_keys_without_run() -> None:
    df = _base()
    df.loc[3, "example_id"] = "1"  # rows 3 and 4 (1-based data rows) are both (B, 1)
    (p,) = _problems(df)
    assert p.rows == (3, 4)
    assert "rows 3, 4" in str(p)
    assert "duplicate key" in p.rule
    assert "system=B" in p.rule and "example_id=1" in p.rule  # names the key columns
    assert "'run' column" in p.fix  # the fix: number the repeats


def test_duplicate_keys_with_run() -> None:
    df = _base()
    df["run"] = 0
    df.loc[3, "example_id"] = "1"
    (p,) = _problems(df)
    assert p.rows == (3, 4)
    assert "run=0" in p.rule
    assert "run number" in p.fix


def test_duplicates_after_stripping_spaces() -> None:
    df = _base()
    df.loc[3, ["example_id", "system"]] = [" 1", "B "]
    (p,) = _problems(df)
    assert p.rows == (3, 4)


def test_non_numeric_value() -> None:
    df = _base()
    df["value"] = df["value"].astype(object)
    df.loc[2, "value"] = "abc"
    (p,) = _problems(df)
    assert p.column == "value"
    assert p.rows == (3,)
    assert "column 'value', row 3" in str(p)
    assert "not a number" in p.rule and "'abc'" in p.rule  # quotes an offending value
    assert "plain numbers" in p.fix


def test_nan_value() -> None:
    df = _base()
    df["value"] = df["value"].astype(float)
    df.loc[1, "value"] = np.nan
    (p,) = _problems(df)
    assert p.column == "value"
    assert p.rows == (2,)
    assert "missing" in p.rule
    assert "drop rows" in p.fix


def test_empty_string_value_is_missing_not_non_numeric() -> None:
    df = _base()
    df["value"] = ["1", "", "0", "1"]
    (p,) = _problems(df)
    assert p.rows == (2,)
    assert "missing" in p.rule


def test_infinite_values() -> None:
    df = _base()
    df["value"] = df["value"].astype(float)
    df.loc[1, "value"] = np.inf
    df.loc[2, "value"] = -np.inf
    (p,) = _problems(df)
    assert p.column == "value"
    assert p.rows == (2, 3)
    assert "column 'value', rows 2, 3" in str(p)
    assert "infinite" in p.rule
    assert "finite" in p.fix


def test_every_value_problem_is_reported_at_once() -> None:
    df = _base()
    df["value"] = ["x", "", "inf", "1"]
    problems = _problems(df)
    rules = " | ".join(p.rule for p in problems)
    assert "not a number" in rules and "missing" in rules and "infinite" in rules
    assert [p.rows for p in problems] == [(1,), (2,), (3,)]


def test_empty_table() -> None:
    (p,) = _problems(pd.DataFrame())
    assert p.rule == "the table is empty"
    assert "add one row" in p.fix


def test_header_only() -> None:
    (p,) = _problems(_base().iloc[0:0])
    assert p.rule == "the table has a header but no rows"
    assert "add one row" in p.fix


def test_single_system() -> None:
    (p,) = _problems(_base()[lambda d: d["system"] == "A"])
    assert p.column == "system"
    assert "only one system (A)" in p.rule
    assert "'b'" in p.rule and "'acc'" in p.rule  # names the benchmark and metric
    assert "at least one more system" in p.fix


def test_missing_columns() -> None:
    (p,) = _problems(_base().drop(columns=["metric", "value"]))
    assert p.column == "metric"
    assert "metric, value missing" in p.rule
    assert "found: benchmark, system, example_id" in p.rule
    assert "benchmark_id" in p.fix and "model" in p.fix  # mentions the aliases


def test_empty_key() -> None:
    df = _base()
    df.loc[2, "system"] = "  "
    df.loc[0, "example_id"] = None
    problems = _problems(df)
    by_col = {p.column: p for p in problems}
    assert by_col["system"].rows == (3,)
    assert by_col["example_id"].rows == (1,)
    assert all("empty value" in p.rule for p in problems)
    assert "give every row a system" in by_col["system"].fix


def test_bad_run() -> None:
    df = _base()
    df["run"] = [0, 1.5, 0, -1]
    (p,) = _problems(df)
    assert p.column == "run"
    assert p.rows == (2, 4)
    assert "non-negative whole number" in p.rule


def test_many_rows_are_abbreviated() -> None:
    df = pd.concat([_base()] * 5, ignore_index=True)
    df["example_id"] = [str(i // 2) for i in range(20)]
    df["system"] = ["A", "B"] * 10
    df["value"] = ["x"] * 20
    (p,) = _problems(df)
    assert len(p.rows) == 20
    assert "rows 1, 2, 3, 4, 5 and 15 more" in str(p)


def test_problem_str_format() -> None:
    p = Problem("f.csv", rule="r", fix="do x", column="value", rows=(7,))
    assert str(p) == "f.csv, column 'value', row 7: r. Fix: do x"
    assert str(Problem("f.csv", rule="r", fix="do x")) == "f.csv: r. Fix: do x"


def test_single_system_message_names_the_system_of_that_benchmark() -> None:
    # Two benchmarks with one system each, listed so that the first row belongs to the other
    # benchmark: the message must name b1's own system (s1), not the first row's (s2).
    df = pd.DataFrame({"benchmark": ["b2", "b1"], "system": ["s2", "s1"], "example_id": ["e", "e"],
                       "metric": ["m", "m"], "value": [0.0, 1.0]})
    with pytest.raises(DataContractError) as err:
        validate_long(df)
    assert "only one system (s1) on benchmark 'b1'" in str(err.value)
