"""Miller (2024), "Adding Error Bars to Evals: A Statistical Approach to Language Model
Evaluations", arXiv:2411.00640: its opening example, two fictional models on three evals.

Provenance, honestly: the paper's own text could not be read from this machine (the stored
copy of arxiv.org/html/2411.00640v1 is searchable only at its start). The table below is the
paper's example table as quoted by a secondary page, "Adding Error Bars to Evals", Chapter 0
(engineermaxxing.com/veanors/papers/error-bars-evals.html), which also states the reading
this test reproduces: "A 3.1% difference on 164 binary questions has a standard error of
roughly 3%. That difference is indistinguishable from noise. Meanwhile the MATH result
(5,000 questions, 2.5% gap) is rock-solid."

============  ===========  ========  ===========
eval          # questions  Galleon   Dreadnought
============  ===========  ========  ===========
MATH          5,000        65.5%     63.0%
HumanEval     164          83.6%     86.7%
MGSM          2,500        75.3%     78.0%
============  ===========  ========  ===========

The scores are rounded: 83.6% and 86.7% of 164 are not whole numbers of questions (137/164
= 83.54%, 142/164 = 86.59%), nor is 75.3% of 2,500 (1,882.5); the test uses those nearest
counts. Reference values: the CLT standard error of a 0/1 mean, √(p(1 − p)/n) (Miller's
§2, eq. 1 for a Bernoulli score), written out here; the two-proportion z test from the
counts by hand (pooled p̂, scipy's normal tail). Design effect: these are independent
questions, so each question is its own cluster and Miller's clustered standard error (§2.2)
equals the CLT one — design effect 1.00 on all six scores.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from engine import ScoreMatrix
from engine.stats._clusters import clustered_se
from engine.stats._pairwise import pairwise_tests

#: eval → (questions, Galleon right, Dreadnought right): the quoted table's nearest counts
TABLE = {"MATH": (5000, 3275, 3150), "HumanEval": (164, 137, 142), "MGSM": (2500, 1883, 1950)}


def _scores(n: int, right: int) -> np.ndarray:
    return np.r_[np.ones(right), np.zeros(n - right)]


@pytest.mark.slow
@pytest.mark.parametrize("name", list(TABLE))
def test_standard_errors_and_which_difference_is_noise(name: str) -> None:
    n, a, b = TABLE[name]
    for right in (a, b):
        p = right / n
        # each question its own cluster: Miller's clustered SE is the CLT one (design effect 1)
        got = clustered_se(_scores(n, right), np.arange(n), convention="miller")
        assert got == pytest.approx(np.sqrt(p * (1 - p) / n), rel=1e-12)
    # the two systems as the paper's example has them: each on its own run of the eval
    x = np.full((2, 2 * n), np.nan)
    x[0, :n], x[1, n:] = _scores(n, a), _scores(n, b)
    res = pairwise_tests(ScoreMatrix.from_array(x, systems=["Galleon", "Dreadnought"]))
    row = res.table.iloc[0]
    pooled = (a + b) / (2 * n)
    z = (a - b) / n / np.sqrt(pooled * (1 - pooled) * 2 / n)
    assert res.test == "z"
    assert row["pvalue"] == pytest.approx(2 * stats.norm.sf(abs(z)), rel=1e-9)
    # the page's reading: MATH (and MGSM) differ at 0.05, HumanEval is within the noise
    assert (row["pvalue"] < 0.05) == (name != "HumanEval")


def test_humaneval_standard_error_is_roughly_three_points() -> None:
    n, a, b = TABLE["HumanEval"]
    se = [clustered_se(_scores(n, k), np.arange(n), convention="miller") for k in (a, b)]
    assert [round(100 * s, 1) for s in se] == [2.9, 2.7]  # "roughly 3%"
    # and the gap (−3.05 points) is well inside two standard errors of the difference
    assert abs(a - b) / n < 2 * np.hypot(*se)
