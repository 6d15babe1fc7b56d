"""Issue #26 item 7: the paired 0/1 difference interval agrees with the McNemar test beside it
("interval excludes 0" ⇔ "raw p < alpha", two-sided), and the mid-p McNemar test.

Reference values: Fagerland, Lydersen & Laake (2013), "The McNemar test for binary
matched-pairs data: mid-p and asymptotic are better than exact conditional", BMC Medical
Research Methodology 13:91, worked example (b = 1, c = 7): exact conditional p = 0.070, mid-p
p = 0.039. The bundled eval-arena files (data/humaneval+.jsonl.gz, data/mbpp+.jsonl.gz; MIT,
see data/README.md) through the command line, as a user runs it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from scipy import stats

from engine._matrix import ScoreMatrix
from engine.stats._intervals import agree_with_test, paired_binary_ci
from engine.stats._kernels import exact_sign_pvalues, midp_sign_pvalues
from engine.stats._pairwise import pairwise_tests

ROOT = Path(__file__).resolve().parents[3]


def _pair(b: int, c: int, ties: int) -> ScoreMatrix:
    """Two systems: b examples only A solves, c only B, ``ties`` both fail."""
    a = [1] * b + [0] * c + [0] * ties
    bb = [0] * b + [1] * c + [0] * ties
    return ScoreMatrix.from_array([a, bb], systems=["A", "B"])


def test_midp_reproduces_fagerland_2013_example() -> None:
    # Fagerland et al. (2013), BMC Med Res Methodol 13:91: b = 1, c = 7 → exact 0.070, mid-p 0.039
    assert exact_sign_pvalues(np.array([1.0]), np.array([7.0]), "two-sided")[0] == \
        pytest.approx(0.0703125)
    assert midp_sign_pvalues(np.array([1.0]), np.array([7.0]), "two-sided")[0] == \
        pytest.approx(0.0390625)  # 2 · (P(X=0) + P(X=1)/2), X ~ Bin(8, 1/2) = 10/256


@pytest.mark.slow
@given(st.integers(0, 60), st.integers(0, 60))
@settings(max_examples=200)
def test_midp_is_exact_minus_half_the_observed_probability(b: int, c: int) -> None:
    # mid-p = exact p − P(X = k) (the observed count's probability, counted twice in the
    # doubled exact tail); b = c gives 1 by symmetry. X ~ Bin(b + c, 1/2), scipy's pmf.
    wa, wb = np.array([float(b)]), np.array([float(c)])
    m, k = b + c, min(b, c)
    want = 1.0 if b == c else 2 * stats.binom.cdf(k, m, 0.5) - stats.binom.pmf(k, m, 0.5)
    assert midp_sign_pvalues(wa, wb, "two-sided")[0] == pytest.approx(want, abs=1e-12)
    for alt in ("greater", "less"):
        assert midp_sign_pvalues(wa, wb, alt)[0] <= exact_sign_pvalues(wa, wb, alt)[0] + 1e-15


def test_issue_example_interval_now_holds_zero() -> None:
    # the issue's pair: b = 1, c = 7 plus 40 ties; Tango's interval [-0.256, -0.012] excluded 0
    row = pairwise_tests(_pair(1, 7, 40)).table.iloc[0]
    assert row["pvalue"] == pytest.approx(0.0703125)
    tango = paired_binary_ci([1], [7], [48])
    assert tango[1][0] < 0  # the asymptotic interval alone excludes 0
    assert row["ci_low"] == pytest.approx(tango[0][0]) and row["ci_high"] == 0.0


def test_midp_interval_excludes_zero_where_midp_rejects() -> None:
    row = pairwise_tests(_pair(1, 7, 40), test="mcnemar-midp").table.iloc[0]
    assert row["test"] == "mcnemar-midp" and row["pvalue"] == pytest.approx(0.0390625)
    assert row["ci_high"] < 0


@pytest.mark.slow
@given(st.integers(0, 40), st.integers(0, 40), st.integers(0, 40),
       st.sampled_from([0.1, 0.05, 0.01, 0.001]), st.sampled_from(["mcnemar", "mcnemar-midp"]))
@settings(max_examples=300)
def test_interval_excludes_zero_iff_p_below_alpha(b: int, c: int, ties: int, alpha: float,
                                                  test: str) -> None:
    assume(b + c + ties >= 2)
    row = pairwise_tests(_pair(b, c, ties), test=test, alpha=alpha).table.iloc[0]
    excludes = row["ci_low"] > 0 or row["ci_high"] < 0
    assert excludes == (row["pvalue"] < alpha)
    assert row["ci_low"] <= row["difference"] <= row["ci_high"]


def test_agree_with_test_only_widens_when_not_significant() -> None:
    low, high = np.array([0.01, -0.3, -0.2]), np.array([0.2, -0.05, 0.1])
    lo, hi = agree_with_test(low, high, np.array([0.2, 0.01, 0.5]))
    assert lo.tolist() == [0.0, -0.3, -0.2] and hi.tolist() == [0.2, -0.05, 0.1]
    lo, hi = agree_with_test([-0.01], [0.3], [0.001])  # significant, holding 0: just past 0
    assert 0 < lo[0] < 1e-300 and hi[0] == 0.3
    with pytest.raises(ValueError, match="alpha"):
        agree_with_test([0.0], [1.0], [0.5], alpha=0.0)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["humaneval+", "mbpp+"])
@pytest.mark.parametrize("test", ["auto", "mcnemar-midp"])
def test_cli_pairwise_json_has_no_disagreement(name: str, test: str) -> None:
    # acceptance (issue #26): HumanEval+ had 24 of 1,176 disagreeing pairs, MBPP+ 14 of 1,711
    out = subprocess.run([sys.executable, "-m", "engine", "pairwise", f"data/{name}.jsonl.gz",
                          "--format", "json", "--test", test], cwd=ROOT, capture_output=True,
                         text=True, timeout=300, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert out.returncode == 0, out.stderr
    pairs = json.loads(out.stdout)["pairs"]
    assert len(pairs) == {"humaneval+": 1176, "mbpp+": 1711}[name]
    bad = [p for p in pairs if ((p["ci_low"] > 0) or (p["ci_high"] < 0)) != (p["pvalue"] < 0.05)]
    assert bad == []
