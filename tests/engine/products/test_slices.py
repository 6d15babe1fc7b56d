"""Slices of a benchmark by a per-example metadata column (engine/products/_slices.py)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine._matrix import build_matrix
from engine.io._readers import read_results
from engine.products._leaderboard import leaderboard
from engine.products._slices import restrict_to_slice, slice_labels, slice_table
from engine.stats._multitest import adjust_pvalues

# AlpacaEval 2.0 (tests/data/README.md): `subset` is per-example metadata (5 source
# datasets of the 805 instructions), `len_output_1` per-example numeric, `generator_2`
# per-system metadata.
ALPACA = Path(__file__).resolve().parents[2] / "data" / "alpaca-eval" / \
    "alpaca_eval2_weighted_gpt4_turbo_long.jsonl.gz"


@pytest.fixture(scope="module")
def alpaca() -> pd.DataFrame:
    df = read_results(ALPACA)
    keep = sorted(df["system"].unique())[:6]  # 15 pairs × 5 slices keep the test quick
    out = df[df["system"].isin(keep)].reset_index(drop=True)
    out.attrs = df.attrs
    return out


@pytest.mark.slow
def test_alpaca_subsets_match_the_leaderboard_of_each_slice(alpaca: pd.DataFrame) -> None:
    res = slice_table(alpaca, column="subset")
    assert res.slices == ("helpful_base", "koala", "oasst", "selfinstruct", "vicuna")
    assert not res.binned
    # reference 1: the plain per-(slice, system) mean with pandas
    means = alpaca.groupby(["subset", "system"])["value"].mean()
    got = res.estimates.set_index(["slice", "system"])["mean"]
    np.testing.assert_allclose(got.sort_index(), means.sort_index().to_numpy(), rtol=1e-12)
    # reference 2: the leaderboard on the rows restricted to the slice
    part = restrict_to_slice(alpaca, column="subset", value="koala")
    assert part["example_id"].nunique() == 156  # AlpacaEval: 156 koala instructions
    lb = leaderboard(build_matrix(part), bt_resamples=0).table.set_index("system")
    mine = res.estimates[res.estimates["slice"] == "koala"].set_index("system")
    for col in ("mean", "ci_low", "ci_high", "n", "rank"):
        np.testing.assert_allclose(mine[col].sort_index(), lb[col].sort_index(), rtol=1e-12)
    # every slice's raw p-values adjusted together (Holm–Šidák over 5 × 15 tests)
    assert len(res.pairs) == 5 * 15
    np.testing.assert_allclose(res.pairs["pvalue_adj"],
                               adjust_pvalues(res.pairs["pvalue"], method="holm-sidak"))
    assert (res.pairs["pvalue_adj"] >= res.pairs["pvalue"]).all()
    assert (res.pairs["significant"] == (res.pairs["pvalue_adj"] < 0.05)).all()


def test_changes_are_pairs_with_different_verdicts(alpaca: pd.DataFrame) -> None:
    res = slice_table(alpaca, column="subset", correction="none")
    verdicts = res.pairs.groupby(["system_a", "system_b"])["verdict"].nunique()
    assert set(map(tuple, res.changes[["system_a", "system_b"]].to_numpy())) == \
        set(verdicts.index[verdicts > 1])
    for row in res.changes.itertuples():
        assert sorted(row.a_better_in + row.b_better_in + row.not_different_in) == list(res.slices)
        assert row.a_better_in or row.b_better_in
        assert row.reversal == bool(row.a_better_in and row.b_better_in)


def test_numeric_column_is_cut_into_quantile_bins(alpaca: pd.DataFrame) -> None:
    res = slice_table(alpaca, column="len_output_1", bins=4)
    assert res.binned and len(res.slices) == 4 and res.slices[0].startswith("q1 [")
    assert any("quantile bins" in n for n in res.notes)
    labels = slice_labels(alpaca, benchmark=res.benchmark, column="len_output_1", bins=4)
    ex = alpaca.drop_duplicates("example_id").set_index("example_id")["len_output_1"]
    ref = pd.qcut(ex.astype(float), 4, labels=False)  # pandas' own quartiles
    assert (labels.loc[ex.index].str[1].astype(int) - 1 == ref).all()
    sizes = labels.value_counts()
    assert sizes.max() - sizes.min() <= 0.05 * len(labels)  # quartiles: about equal counts
    first = restrict_to_slice(alpaca, column="len_output_1", value=res.slices[0])
    assert first["example_id"].nunique() == sizes[res.slices[0]]


def test_bad_columns_name_the_argument(alpaca: pd.DataFrame) -> None:
    with pytest.raises(ValueError, match="column: 'generator_2' must take one value per "
                                         "example.*system metadata"):
        slice_table(alpaca, column="generator_2")
    with pytest.raises(ValueError, match="column: no column 'nope'"):
        slice_table(alpaca, column="nope")
    with pytest.raises(ValueError, match="value: no example has subset = 'nope'"):
        restrict_to_slice(alpaca, column="subset", value="nope")


def _planted(seed: int, n: int = 120) -> pd.DataFrame:
    """A beats B on hard examples only; C is like B; level alternates easy/hard."""
    rng = np.random.default_rng(seed)
    level = np.tile(["easy", "hard"], n // 2)
    hard = level == "hard"
    p = {"A": np.where(hard, 0.85, 0.5), "B": np.where(hard, 0.2, 0.5), "C": np.full(n, 0.5)}
    rows = [pd.DataFrame({"benchmark": "b", "metric": "m", "system": s,
                          "example_id": [f"e{i:03d}" for i in range(n)],
                          "value": (rng.random(n) < p[s]) * 1.0, "level": level}) for s in p]
    return pd.concat(rows, ignore_index=True)


def test_a_planted_change_is_found() -> None:
    res = slice_table(_planted(1), column="level")
    row = res.changes[(res.changes["system_a"] == "A") & (res.changes["system_b"] == "B")]
    assert len(row) == 1
    assert row.iloc[0]["a_better_in"] == ["hard"] and row.iloc[0]["not_different_in"] == ["easy"]
    assert not row.iloc[0]["reversal"]


def _key(pairs: pd.DataFrame, rename: dict[str, str] | None = None) -> pd.DataFrame:
    pairs = pairs.copy()
    if rename:
        pairs["slice"] = pairs["slice"].map(rename)
    return pairs.sort_values(["slice", "system_a", "system_b"]).reset_index(drop=True)


@pytest.mark.slow
@settings(max_examples=5)
@given(st.integers(0, 2**31 - 1))
def test_row_order_and_slice_labels_do_not_matter(seed: int) -> None:
    df = _planted(seed % 1000, n=40)
    base = slice_table(df, column="level")
    shuffled = df.sample(frac=1.0, random_state=seed % 2**32).reset_index(drop=True)
    pd.testing.assert_frame_equal(_key(slice_table(shuffled, column="level").pairs), _key(base.pairs),
                                  check_exact=False, rtol=1e-9)
    names = {"easy": "zz-one", "hard": "aa-two"}  # new labels, and their sorted order flips
    relabelled = slice_table(df.assign(level=df["level"].map(names)), column="level")
    pd.testing.assert_frame_equal(_key(relabelled.pairs), _key(base.pairs, names), check_exact=False,
                                  rtol=1e-9)


@pytest.mark.slow
@settings(max_examples=5)
@given(st.integers(0, 2**31 - 1))
def test_relabelling_systems_relabels_the_table(seed: int) -> None:
    df = _planted(seed % 1000, n=40)
    names = {"A": "Zed", "B": "Alf", "C": "Mid"}
    base = slice_table(df, column="level")
    moved = slice_table(df.assign(system=df["system"].map(names)), column="level")
    expected = base.pairs.copy()
    a, b = expected["system_a"].map(names), expected["system_b"].map(names)
    swap = a > b
    expected["system_a"], expected["system_b"] = np.where(swap, b, a), np.where(swap, a, b)
    expected["difference"] = np.where(swap, -expected["difference"], expected["difference"])
    lo, hi = expected["ci_low"].copy(), expected["ci_high"].copy()
    expected["ci_low"], expected["ci_high"] = np.where(swap, -hi, lo), np.where(swap, -lo, hi)
    flip = {"system_a better": "system_b better", "system_b better": "system_a better"}
    expected["verdict"] = np.where(swap, expected["verdict"].replace(flip), expected["verdict"])
    pd.testing.assert_frame_equal(_key(moved.pairs), _key(expected), check_exact=False, rtol=1e-9)


def test_a_planted_reversal_is_flagged() -> None:
    df = _planted(2, n=200)
    easy = (df["level"] == "easy") & (df["system"] == "A")
    df.loc[easy, "value"] = 0.0  # A now fails every easy example: B better there
    res = slice_table(df, column="level")
    row = res.changes[(res.changes["system_a"] == "A") & (res.changes["system_b"] == "B")].iloc[0]
    assert row["a_better_in"] == ["hard"] and row["b_better_in"] == ["easy"] and row["reversal"]


def _changes_by_loop(pairs: pd.DataFrame) -> pd.DataFrame:
    """The per-pair loop _changes replaced (engine/_slices.py at 255bb2d), as the reference."""
    cols = ["system_a", "system_b", "a_better_in", "b_better_in", "not_different_in", "reversal"]
    varied = pairs.groupby(["system_a", "system_b"], sort=True)["verdict"].nunique()
    rows = []
    for a, b in varied.index[varied > 1]:
        part = pairs[(pairs["system_a"] == a) & (pairs["system_b"] == b)]
        row = {"system_a": a, "system_b": b, **{
            col: sorted(part.loc[part["verdict"] == v, "slice"].tolist())
            for col, v in zip(cols[2:5], ("system_a better", "system_b better",
                                          "not shown to differ"), strict=True)}}
        row["reversal"] = bool(row["a_better_in"]) and bool(row["b_better_in"])
        rows.append(row)
    return pd.DataFrame(rows, columns=cols)


@pytest.mark.slow
@settings(max_examples=60)
@given(st.lists(st.tuples(st.sampled_from("ABCD"), st.sampled_from("ABCD"),
                          st.sampled_from(["s1", "s2", "s3", "s4"]),
                          st.sampled_from(["system_a better", "system_b better",
                                           "not shown to differ"])),
                min_size=0, max_size=40))
def test_changes_equal_the_per_pair_loop(rows: list[tuple[str, str, str, str]]) -> None:
    from engine.products._slices import _changes, _verdict

    assert _verdict(np.array([False]), np.array([1.0]))[0] == "not shown to differ"
    pairs = pd.DataFrame(rows, columns=["system_a", "system_b", "slice", "verdict"])
    pairs = pairs.drop_duplicates(["system_a", "system_b", "slice"]).reset_index(drop=True)
    got, want = _changes(pairs), _changes_by_loop(pairs)
    assert got.columns.tolist() == want.columns.tolist()
    assert got.to_dict("records") == want.to_dict("records")
