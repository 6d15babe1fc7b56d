"""Issue #26 item 5: say when a benchmark cannot separate anything.

Reference values: the issue's figures (n = 10, 10 systems: smallest exact McNemar p
2^-9 = 0.00195 against the first Holm–Šídák threshold 1 − 0.95^(1/45) = 0.00114); the
closed forms of each test's floor (binomial tails, scipy's binomtest for the check), and
pairwise_tests run on the extreme tables that reach the floor.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from engine._matrix import ScoreMatrix
from engine.cli import main
from engine.stats._pairwise import pairwise_tests
from engine.stats._resolution import first_threshold, smallest_pvalue


def _one_perfect(n: int, systems: int = 10) -> ScoreMatrix:
    """The issue's table: one system at n/n, the others at 0/n."""
    x = np.zeros((systems, n))
    x[0] = 1.0
    return ScoreMatrix.from_array(x)


def test_issue_example_ten_examples_cannot_separate_ten_systems() -> None:
    res = pairwise_tests(_one_perfect(10))
    r = res.resolution
    assert r is not None and not r.can_separate
    assert r.smallest_p == pytest.approx(2.0 ** -9)  # 0.00195 (issue)
    assert r.threshold == pytest.approx(1 - 0.95 ** (1 / 45))  # 0.00114 (issue)
    assert r.examples_needed == 11 and r.pairs == 45
    assert not res.table["significant"].any()
    assert res.notes[0].startswith("10 examples cannot separate 10 systems at alpha = 0.05")
    # the floor is reached: the 10/10 system against a 0/10 one has exactly that p
    assert res.table["pvalue"].min() == pytest.approx(r.smallest_p)


def test_twenty_five_examples_can() -> None:
    res = pairwise_tests(_one_perfect(25))
    assert res.resolution is not None and res.resolution.can_separate
    assert not any("cannot separate" in n for n in res.notes)
    assert res.table["significant"].sum() == 9  # the perfect system against each other


def test_thresholds_by_correction() -> None:
    assert first_threshold(0.05, 45, "holm-sidak") == pytest.approx(1 - 0.95 ** (1 / 45))
    assert first_threshold(0.05, 45, "holm") == pytest.approx(0.05 / 45)
    assert first_threshold(0.05, 45, "bonferroni") == pytest.approx(0.05 / 45)
    assert first_threshold(0.05, 45, "fdr_bh") == 0.05  # all pairs at p ≤ α: all rejected
    assert first_threshold(0.05, 45, "none") == 0.05


@given(st.integers(1, 60), st.sampled_from(["two-sided", "greater"]))
@settings(max_examples=60)
def test_mcnemar_floor_is_the_binomial_tail(n: int, alternative: str) -> None:
    # all n examples won by one side: scipy's binomtest gives the same p
    want = stats.binomtest(n, n, 0.5, alternative=alternative).pvalue
    assert smallest_pvalue("mcnemar", n, alternative) == pytest.approx(want)
    assert smallest_pvalue("mcnemar-midp", n, alternative) == pytest.approx(want / 2)
    assert smallest_pvalue("paired-t", n, alternative) == 0.0  # continuous: no floor


@pytest.mark.parametrize("n", [8, 11, 20])
def test_floor_matches_pairwise_tests_on_the_extreme_table(n: int) -> None:
    for test in ("mcnemar", "mcnemar-midp"):
        res = pairwise_tests(_one_perfect(n, systems=2), test=test)
        assert res.table["pvalue"].iloc[0] == pytest.approx(smallest_pvalue(test, n, "two-sided"))


def test_unpaired_z_floor() -> None:
    # one side all 1 of 5, the other all 0 of 5: pooled p = 1/2, z = 1/√(1/4 · 2/5) = √10
    assert smallest_pvalue("z", 5, "two-sided", n_b=5) == pytest.approx(
        2 * stats.norm.sf(math.sqrt(10)))


@pytest.mark.parametrize("command", ["pairwise", "leaderboard"])
@pytest.mark.slow
def test_cli_json_says_so(tmp_path, capsys, command: str) -> None:  # type: ignore[no-untyped-def]
    rows = [("b", f"s{s}", f"e{i}", "acc", 1.0 if s == 0 else 0.0)
            for s in range(10) for i in range(10)]
    f = tmp_path / "tiny.csv"
    pd.DataFrame(rows, columns=["benchmark", "system", "example_id", "metric", "value"]).to_csv(
        f, index=False)
    assert main([command, str(f), "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["resolution"]["can_separate"] is False
    assert out["resolution"]["examples_needed"] == 11
    assert any("cannot separate 10 systems" in n for n in out["notes"])
    assert main([command, str(f)]) == 0
    assert "cannot separate 10 systems" in capsys.readouterr().out
