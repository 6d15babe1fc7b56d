"""The bulk import path gives what the per-row reference gave: ``validate_long`` (text
once per distinct value, duplicates by integer codes) and ``frame_hash`` (text and hash
once per distinct value) against the straightforward implementations they replaced,
on random tables mixing the value types users send (strings with blanks and padding,
integers, floats including -0.0 and NaN, booleans, None, mixed object columns).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine._contract import DataContractError, validate_long, validate_long_codes
from engine.store import frame_hash, open_store

KEYS = ("benchmark", "system", "example_id", "metric")


# ----------------------------------------------------------------- references
# The implementations before the bulk rewrite (git 9400e38), kept as the specification.
def reference_frame_hash(df: pd.DataFrame) -> str:
    cols = sorted(map(str, df.columns))
    rows = pd.util.hash_pandas_object(df[cols].astype(str), index=False).to_numpy(np.uint64)
    mixed = (rows * np.uint64(0x9E3779B97F4A7C15)) ^ (rows >> np.uint64(29))
    with np.errstate(over="ignore"):
        parts = [len(rows), int(rows.sum(dtype=np.uint64)), int(np.bitwise_xor.reduce(rows))
                 if len(rows) else 0, int(mixed.sum(dtype=np.uint64))]
    return hashlib.sha256(json.dumps([cols, parts]).encode()).hexdigest()


def reference_keys(df: pd.DataFrame) -> tuple[dict[str, pd.Series], dict[str, np.ndarray]]:
    """Stripped key text and the empty mask of each key column, row by row."""
    text, empty = {}, {}
    for col in (*KEYS, *(["run"] if "run" in df.columns else [])):
        t = df[col].reset_index(drop=True).astype("string").str.strip()
        text[col], empty[col] = t, (t.isna() | (t == "")).to_numpy(dtype=bool)
    return text, empty


def reference_not_number(raw: pd.Series) -> np.ndarray:
    numeric = pd.to_numeric(raw, errors="coerce")
    if raw.dtype == bool:
        numeric = raw.astype(float)
    numeric = numeric.astype(float)
    out = numeric.isna() & raw.notna() & (raw.astype("string").str.strip() != "")
    return out.to_numpy(dtype=bool, na_value=False)


# ----------------------------------------------------------------- random tables
_TEXT = st.sampled_from(["a", "b", " a", "a ", "", "  ", "1", "1.0", "True", "é", "x y"])
_CELL = st.one_of(_TEXT, st.integers(-2, 2), st.sampled_from([1.0, -0.0, 0.0, 2.5, np.nan]),
                  st.booleans(), st.none())


@st.composite
def columns(draw: st.DrawFn, n: int) -> pd.Series:
    kind = draw(st.sampled_from(["text", "str", "int", "float", "bool", "mixed", "objects"]))
    if kind == "objects":  # one Python type in an object column (lm-eval's versions, n-shot)
        cells = draw(st.sampled_from([st.integers(-2, 2), st.booleans(), st.sampled_from(
            [1.0, -0.0, 0.0, 2.5, 0.1 + 0.2, np.nan, np.float32(0.1), np.float64(-0.0)])]))
        return pd.Series(draw(st.lists(cells, min_size=n, max_size=n)), dtype=object)
    if kind == "text":
        return pd.Series(draw(st.lists(_TEXT, min_size=n, max_size=n)), dtype=object)
    if kind == "str":
        return pd.Series(draw(st.lists(st.one_of(_TEXT, st.none()), min_size=n, max_size=n)),
                         dtype="str")
    if kind == "int":
        return pd.Series(draw(st.lists(st.integers(-2, 2), min_size=n, max_size=n)),
                         dtype=np.int64)
    if kind == "float":
        return pd.Series(draw(st.lists(st.sampled_from([1.0, -0.0, 0.0, 2.5, np.nan]),
                                       min_size=n, max_size=n)), dtype=np.float64)
    if kind == "bool":
        return pd.Series(draw(st.lists(st.booleans(), min_size=n, max_size=n)), dtype=bool)
    return pd.Series(draw(st.lists(_CELL, min_size=n, max_size=n)), dtype=object)


@st.composite
def tables(draw: st.DrawFn) -> pd.DataFrame:
    n = draw(st.integers(1, 12))
    df = pd.DataFrame({c: draw(columns(n)) for c in KEYS})
    df["value"] = draw(st.one_of(columns(n), st.just(pd.Series(np.arange(n) / 4))))
    if draw(st.booleans()):
        df["run"] = draw(st.one_of(st.just(pd.Series(np.arange(n) % 2)), columns(n)))
    if draw(st.booleans()):
        df["meta"] = draw(columns(n))
    return df


def _outcome(df: pd.DataFrame, **kwargs: bool) -> pd.DataFrame | str:
    try:
        return validate_long(df, **kwargs)
    except DataContractError as exc:
        return str(exc)


# ----------------------------------------------------------------- validate_long
@pytest.mark.slow
@settings(max_examples=40)
@given(tables())
def test_keys_are_cleaned_as_the_row_by_row_reference(df: pd.DataFrame) -> None:
    text, empty = reference_keys(df)
    out = _outcome(df, require_comparison=False)
    for col, mask in empty.items():
        if mask.any():  # every blank key column is named, with its rows
            assert isinstance(out, str) and f"column '{col}'" in out
    if isinstance(out, pd.DataFrame):
        for col in KEYS:
            assert out[col].dtype == object
            assert out[col].tolist() == text[col].astype(object).tolist()


@pytest.mark.slow
@settings(max_examples=40)
@given(tables())
def test_value_and_duplicate_checks_match_the_reference(df: pd.DataFrame) -> None:
    out = _outcome(df, require_comparison=False)
    bad_value = reference_not_number(df["value"]).any()
    assert bad_value == (isinstance(out, str) and "value is not a number" in out)
    if isinstance(out, pd.DataFrame):
        keys = [*KEYS, *(["run"] if "run" in out.columns else [])]
        expected = out.duplicated(subset=keys, keep=False)
        assert not expected.any()  # a table with duplicate keys never validates
    else:
        text, empty = reference_keys(df)
        if not any(m.any() for m in empty.values()) and "value" not in out and "run" not in out:
            keyed = pd.DataFrame({k: v.astype(object) for k, v in text.items()})
            if "run" in keyed.columns:
                keyed["run"] = pd.to_numeric(df["run"]).astype("int64").to_numpy()
            assert keyed.duplicated(keep=False).any() == ("duplicate key" in out)


def test_duplicate_rows_are_found_through_codes_of_the_stripped_text() -> None:
    df = pd.DataFrame({"benchmark": ["b", "b ", "b"], "system": ["s", "s", "t"],
                       "example_id": [1, "1", 1], "metric": ["m", "m", "m"],
                       "value": [1.0, 0.0, 1.0]})
    with pytest.raises(DataContractError, match=r"rows 1, 2: duplicate key"):
        validate_long(df)


@pytest.mark.parametrize("systems, ok", [(["s", "s"], False), (["s", "t"], True)])
def test_single_system_check_through_codes(systems: list[str], ok: bool) -> None:
    df = pd.DataFrame({"benchmark": "b", "system": systems, "example_id": ["1", "2"],
                       "metric": "m", "value": [1.0, 0.0]})
    assert isinstance(_outcome(df), pd.DataFrame) == ok


def test_the_callers_frame_is_not_changed() -> None:
    df = pd.DataFrame({"benchmark": [" b", "b"], "system": ["s", "t"], "example_id": ["1", "1"],
                       "metric": ["m", "m"], "value": ["1", "0"], "note": ["x", "y"]})
    before = df.copy()
    out = validate_long(df)
    out.loc[0, "note"] = "changed"
    pd.testing.assert_frame_equal(df, before)


# ----------------------------------------------------------------- frame_hash
@pytest.mark.slow
@settings(max_examples=40)
@given(tables())
def test_frame_hash_is_the_reference_hash(df: pd.DataFrame) -> None:
    assert frame_hash(df) == reference_frame_hash(df)


def test_frame_hash_of_a_validated_harness_sized_table() -> None:
    rng = np.random.default_rng(3)
    n = 5000
    df = validate_long(pd.DataFrame({
        "benchmark": rng.choice(["arc", "mmlu"], n), "system": rng.choice(["s1", "s2"], n),
        "example_id": np.arange(n).astype(str), "metric": "acc",
        "value": rng.integers(0, 2, n).astype(float), "doc_hash": [f"h{i}" for i in range(n)],
        "limit": None, "num_fewshot": 0}).astype({"example_id": object}))
    assert frame_hash(df) == reference_frame_hash(df)
    assert frame_hash(df.sample(frac=1, random_state=1)) == frame_hash(df)


@pytest.mark.slow
@settings(max_examples=30)
@given(tables())
def test_validation_codes_spell_the_key_columns(df: pd.DataFrame) -> None:
    try:
        out, codes = validate_long_codes(df, require_comparison=False)
    except DataContractError:
        return
    for col in KEYS:
        row_codes, texts = codes[col]
        assert texts[row_codes].tolist() == out[col].tolist()
        assert len(set(texts.tolist())) == len(texts)  # each text once
        # frame_hash given the codes is the hash it computes itself
    assert frame_hash(out, known=codes) == frame_hash(out) == reference_frame_hash(out)


def test_metadata_rows_are_stored_as_before(tmp_path: Path) -> None:
    """System and example metadata go in through the raw cursor on SQLite: same rows."""
    df = pd.DataFrame({"benchmark": "b", "system": ["s", "s", "t", "t"],
                       "example_id": ["1", "2", "1", "2"], "metric": "acc",
                       "value": [1.0, 0.0, 1.0, 1.0], "params": [7, 7, None, None],
                       "difficulty": ["easy", "hard", "easy", "hard"]})
    store = open_store(f"sqlite:///{tmp_path / 'meta.db'}")
    store.import_frame(df, filename="meta.csv")
    systems = store.system_metadata("b")
    assert systems["system"].tolist() == ["s"] and systems["params"].tolist() == [7]
    examples = store.example_metadata("b")
    assert examples.set_index("example_id")["difficulty"].to_dict() == {"1": "easy", "2": "hard"}
    store.close()
