"""Churn: the examples a candidate fixes and breaks (engine/stats/_churn.py)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from statsmodels.stats.proportion import proportion_confint

from engine import ScoreMatrix, build_matrix
from engine.cli import main
from engine.cli._json import ab_json
from engine.stats._ab import compare_ab
from engine.stats._churn import churn


@pytest.mark.slow
@settings(max_examples=60)
@given(st.lists(st.tuples(st.sampled_from([0.0, 1.0, np.nan]), st.sampled_from([0.0, 1.0, np.nan])),
                min_size=1, max_size=60))
def test_counts_are_the_off_diagonal_cells_of_the_2x2_table(cells: list[tuple[float, float]]) -> None:
    a = np.array([c[0] for c in cells])
    b = np.array([c[1] for c in cells])
    shared = ~(np.isnan(a) | np.isnan(b))
    assume(shared.any() and np.isin(a[~np.isnan(a)], [0, 1]).all())
    m = ScoreMatrix.from_array(np.vstack([a, b]), systems=["base", "cand"])
    res = churn(m, "base", "cand")
    # pandas' 2 × 2 table of the shared examples, with the cells no example reaches as 0
    table = pd.crosstab(a[shared], b[shared]).reindex(index=[0.0, 1.0], columns=[0.0, 1.0],
                                                      fill_value=0)

    def cell(row: float, col: float) -> int:
        return int(table.to_numpy()[int(row), int(col)])

    assert len(res.fixed) == cell(0.0, 1.0)
    assert len(res.broken) == cell(1.0, 0.0)
    assert res.n == int(shared.sum())
    assert int(res.table.loc["wrong", "right"]) == len(res.fixed)
    assert int(res.table.loc["right", "wrong"]) == len(res.broken)
    assert res.fixed_ci == pytest.approx(proportion_confint(len(res.fixed), res.n, method="wilson"))


def test_lists_name_the_examples_and_direction_is_respected() -> None:
    m = ScoreMatrix.from_array([[1, 1, 0, 0, 1], [1, 0, 1, 1, 1]], systems=["old", "new"],
                               examples=["a", "b", "c", "d", "e"])
    res = churn(m, "old", "new")
    assert res.fixed == ("c", "d") and res.broken == ("b",) and res.net == 1


def test_numeric_scores_use_the_threshold() -> None:
    m = ScoreMatrix.from_array([[0.5, 0.5, 0.5], [0.9, 0.52, 0.1]], systems=["old", "new"])
    assert len(churn(m, "old", "new").fixed) == 2
    res = churn(m, "old", "new", threshold=0.05)
    assert (len(res.fixed), len(res.broken)) == (1, 1)


def test_bad_systems_are_named() -> None:
    m = ScoreMatrix.from_array([[1, 0], [0, 1]], systems=["a", "b"])
    with pytest.raises(ValueError, match="candidate: unknown system 'z'"):
        churn(m, "a", "z")
    with pytest.raises(ValueError, match="candidate: must differ from the baseline"):
        churn(m, "a", "a")


HUMANEVAL = Path(__file__).resolve().parents[3] / "data" / "humaneval.jsonl.gz"


@pytest.mark.slow
def test_compare_json_fixed_and_broken_match_the_table(capsys: pytest.CaptureFixture[str]) -> None:
    from engine import read_results

    df = read_results(str(HUMANEVAL))
    base, cand = "gpt-3.5-turbo", "claude-3-haiku-20240307"
    res = compare_ab(df, baseline=base, candidate=cand)
    m = build_matrix(df).subset([base, cand])
    x = m.values
    shared = ~np.isnan(x).any(axis=0)
    table = pd.crosstab(x[0, shared], x[1, shared])
    out = ab_json(res)
    assert out["fixed"]["count"] == int(table.loc[0.0, 1.0])
    assert out["broken"]["count"] == int(table.loc[1.0, 0.0])
    assert out["fixed"]["count"] - out["broken"]["count"] == round(res.test.estimate * res.test.n)
    assert main(["compare", str(HUMANEVAL), "--baseline", base, "--candidate", cand,
                 "--format", "json"]) == 0
    cli = json.loads(capsys.readouterr().out)
    assert cli["fixed"] == out["fixed"] and cli["broken"] == out["broken"]
