"""Issue #26 item 6, where no unpaired test keeps alpha: skewed scores of few examples on
different examples per system get a warning (pairwise notes, leaderboard JSON
``warnings``), and ``compare`` refuses (exit 2) since it only decides paired data.

Reference values: the third cumulant k3 from scipy's unbiased k-statistic
(``scipy.stats.kstat(v, 3)`` equals G1·s³ with G1 scipy's bias-corrected skewness); the
skewness of the difference of means is (k3_a/n_a² − k3_b/n_b²)/se³ (Hall 1992, *The
Bootstrap and Edgeworth Expansion*, §2.6); the 0.25 limit from calibrate.py's pilot.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from engine._matrix import ScoreMatrix
from engine.cli import main
from engine.stats._pairwise import pairwise_tests
from engine.stats._unpaired import SKEW_LIMIT, SKEW_MAX_N, UNRELIABLE, difference_skewness


def _own_examples(samples: list[np.ndarray]) -> np.ndarray:
    x = np.full((len(samples), sum(len(s) for s in samples)), np.nan)
    start = 0
    for i, s in enumerate(samples):
        x[i, start:start + len(s)] = s
        start += len(s)
    return x


def _skewed(seed: int, n: int = 30) -> np.ndarray:
    """4 systems, ``n`` scores each on their own examples: centred lognormals of unequal
    shapes (σ 0.5, 0.8, 1.1, 1.4; the calibration's failing design, stretched)."""
    rng = np.random.default_rng(seed)
    return _own_examples([np.exp(s * rng.normal(size=n)) - np.exp(s * s / 2)
                          for s in (0.5, 0.8, 1.1, 1.4)])


def _symmetric(seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return _own_examples([rng.normal(size=30) for _ in range(4)])


def test_difference_skewness_matches_scipy_k_statistics() -> None:
    rng = np.random.default_rng(7)
    samples = [np.exp(rng.normal(size=n)) for n in (12, 25, 40)]
    ia, ja = np.triu_indices(3, 1)
    got = difference_skewness(_own_examples(samples), ia, ja)
    for g, i, j in zip(got, ia, ja, strict=True):
        a, b = samples[i], samples[j]
        se = np.sqrt(a.var(ddof=1) / len(a) + b.var(ddof=1) / len(b))
        want = abs(stats.kstat(a, 3) / len(a) ** 2 - stats.kstat(b, 3) / len(b) ** 2) / se**3
        assert np.isclose(g, want, rtol=1e-10)


def test_skewed_unpaired_scores_warn() -> None:
    res = pairwise_tests(ScoreMatrix.from_array(_skewed(3)))
    warning = [n for n in res.notes if n.startswith(UNRELIABLE)]
    assert len(warning) == 1 and f"≥ {SKEW_LIMIT}" in warning[0]
    assert "same examples" in warning[0]
    # the same sentence as a warning with its kind (what the CLI acts on)
    assert [(w.kind, w.text) for w in res.warnings] == [("unpaired-unreliable", warning[0])]


def test_under_the_warning_no_skewed_pair_is_marked_significant() -> None:
    """No true difference (centred lognormals): the bootstrap-t's adjusted p-value of one pair
    is below 0.05 on this seed, but under the warning such a pair is not marked significant
    (calibrate.py "lognormal, unequal shapes": family-wise false alarms 0.080 ± 0.031 when
    only the flagged pairs were withheld, 0.023 ± 0.017 now; 300 replications)."""
    res = pairwise_tests(ScoreMatrix.from_array(_skewed(18)))
    t = res.table
    low_p = t["pvalue_adj"] < 0.05
    assert low_p.any() and (t.loc[low_p, "test"] == "boot-t").all()
    assert not t.loc[low_p, "significant"].any()
    assert any(n.startswith(UNRELIABLE) and "is marked significant" in n for n in res.notes)


def test_many_skewed_scores_do_not_warn() -> None:
    # past SKEW_MAX_N a side the bootstrap-t held alpha (calibrate.py lognormal-unequal-70)
    x = _skewed(3, n=SKEW_MAX_N + 20)
    ia, ja = np.triu_indices(4, 1)
    assert (difference_skewness(x, ia, ja) >= SKEW_LIMIT).any()  # skewed all the same
    res = pairwise_tests(ScoreMatrix.from_array(x))
    assert not any(n.startswith(UNRELIABLE) for n in res.notes)


def test_symmetric_unpaired_scores_do_not_warn() -> None:
    res = pairwise_tests(ScoreMatrix.from_array(_symmetric(3)))
    assert not any(n.startswith(UNRELIABLE) for n in res.notes)
    assert res.warnings == ()


def _csv(tmp_path: Path, x: np.ndarray) -> Path:
    rows = [("b", f"s{s}", f"e{i:03d}", "score", x[s, i]) for s in range(len(x))
            for i in range(x.shape[1]) if not np.isnan(x[s, i])]
    f = tmp_path / "scores.csv"
    pd.DataFrame(rows, columns=["benchmark", "system", "example_id", "metric", "value"]).to_csv(
        f, index=False)
    return f


@pytest.mark.slow
def test_cli_warns_and_compare_refuses(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    f = _csv(tmp_path, _skewed(3))
    assert main(["leaderboard", str(f), "--format", "json", "--bt-resamples", "0"]) == 0
    warnings = json.loads(capsys.readouterr().out)["warnings"]
    assert any(w.startswith(UNRELIABLE) for w in warnings)
    assert main(["leaderboard", str(f), "--bt-resamples", "0"]) == 0
    assert UNRELIABLE in capsys.readouterr().out
    # the gate decides paired data only: systems on different examples cannot be decided
    assert main(["compare", str(f), "--baseline", "s0", "--candidate", "s3"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "paired" in err[0]


@pytest.mark.slow
def test_cli_symmetric_scores_no_warning(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    f = _csv(tmp_path, _symmetric(3))
    assert main(["leaderboard", str(f), "--format", "json", "--bt-resamples", "0"]) == 0
    warnings = json.loads(capsys.readouterr().out)["warnings"]
    assert not any(w.startswith(UNRELIABLE) for w in warnings)


def test_forced_welch_on_skewed_scores_warns_too() -> None:
    # test="t" keeps Welch's t (asked for) on the same skewed data as the automatic choice's
    # warning above: the same UNRELIABLE sentence, plus a note naming the forced test
    x = _skewed(3)
    auto = [n for n in pairwise_tests(ScoreMatrix.from_array(x)).notes if n.startswith(UNRELIABLE)]
    forced = pairwise_tests(ScoreMatrix.from_array(x), test="t")
    assert set(forced.table["test"]) == {"t"}  # nothing switched to the bootstrap-t
    assert [n for n in forced.notes if n.startswith(UNRELIABLE)] == auto
    assert [w.text for w in forced.warnings] == auto
    assert {w.kind for w in forced.warnings} == {"unpaired-unreliable"}
    assert any("Welch's t as asked (test t)" in n for n in forced.notes)
    symmetric = pairwise_tests(ScoreMatrix.from_array(_symmetric(3)), test="t")
    assert not any(n.startswith(UNRELIABLE) for n in symmetric.notes)


@pytest.mark.slow
def test_cli_forced_welch_warns(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    f = _csv(tmp_path, _skewed(3))
    assert main(["leaderboard", str(f), "--format", "json", "--bt-resamples", "0",
                 "--test", "t"]) == 0
    warnings = json.loads(capsys.readouterr().out)["warnings"]
    assert any(w.startswith(UNRELIABLE) for w in warnings)
