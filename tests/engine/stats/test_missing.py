"""Issue #26 item 3: missing scores that are not harmless (engine.stats._missing) and what the
command line does with them (warnings in JSON, compare exits 2 unless --allow-missing).

Reference values: scipy's Mann–Whitney U on the difficulty computed by a plain loop over
systems; the sensitivity bound by hand (0/1 scores: missing as failures / as successes).
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
from engine.cli._json import ab_json
from engine.stats._missing import _difficulty_by_others, missing_checks


def _scores(seed: int, *, skip_failures: bool, n: int = 164) -> np.ndarray:
    """10 equal systems on 0/1 examples of varied difficulty (logit SD 1.5); the last one
    drops each failure with probability 0.5 (skip) or misses 15% at random (not skip)."""
    rng = np.random.default_rng(seed)
    difficulty = rng.normal(0, 1.5, n)
    x = (rng.random((10, n)) < 1 / (1 + np.exp(-(0.5 - difficulty)))).astype(float)
    lost = (x[-1] == 0) & (rng.random(n) < 0.5) if skip_failures else rng.random(n) < 0.15
    x[-1][lost] = np.nan
    return x


def test_difficulty_by_others_matches_a_loop() -> None:
    x = _scores(1, skip_failures=False)
    x[0, :5] = np.nan
    got = _difficulty_by_others(x)
    for s in range(len(x)):
        want = np.nanmean(np.delete(x, s, axis=0), axis=0)
        np.testing.assert_allclose(got[s], want, rtol=1e-12)


def test_skipped_failures_are_flagged_with_a_bound() -> None:
    x = _scores(2, skip_failures=True)
    (check,) = missing_checks(ScoreMatrix.from_array(x))
    assert check.system == "s9" and check.informative and check.shift < 0
    miss = np.isnan(x[-1])
    others = np.nanmean(x[:-1], axis=0)
    assert check.pvalue == pytest.approx(stats.mannwhitneyu(others[miss], others[~miss]).pvalue)
    own = x[-1][~miss]
    assert check.mean_low == pytest.approx(own.sum() / len(x[-1]))  # missing as failures
    assert check.mean_high == pytest.approx((own.sum() + miss.sum()) / len(x[-1]))  # successes
    assert "not missing at random" in check.warning() and "harder" in check.warning()


def test_missing_at_random_is_not_flagged() -> None:
    checks = missing_checks(ScoreMatrix.from_array(_scores(3, skip_failures=False)))
    assert len(checks) == 1 and not checks[0].informative


def test_complete_matrix_has_nothing_to_check() -> None:
    assert missing_checks(ScoreMatrix.from_array(np.eye(3))) == ()
    with pytest.raises(ValueError, match="alpha"):
        missing_checks(ScoreMatrix.from_array(np.eye(3)), alpha=1.5)


def _csv(tmp_path: Path, x: np.ndarray) -> Path:
    rows = [("b", f"s{s}", f"e{i:03d}", "acc", x[s, i]) for s in range(len(x))
            for i in range(x.shape[1]) if not np.isnan(x[s, i])]
    f = tmp_path / "scores.csv"
    pd.DataFrame(rows, columns=["benchmark", "system", "example_id", "metric", "value"]).to_csv(
        f, index=False)
    return f


@pytest.mark.slow
def test_compare_exits_2_naming_the_missingness(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    # acceptance (issue #26): the candidate's failures are missing → exit 2, one-line reason
    f = _csv(tmp_path, _scores(2, skip_failures=True))
    assert main(["compare", str(f), "--baseline", "s0", "--candidate", "s9"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("cannot decide: s9's")
    assert "not missing at random" in err[0] and "--allow-missing" in err[0]
    assert main(["compare", str(f), "--baseline", "s0", "--candidate", "s9", "--format", "json"]) == 2
    out = json.loads(capsys.readouterr().out)
    assert out["exit_code"] == 2 and len(out["warnings"]) == 1
    code = main(["compare", str(f), "--baseline", "s0", "--candidate", "s9", "--allow-missing"])
    assert code in (0, 1)
    # the two systems only: a clean pair on the same file decides as before
    assert main(["compare", str(f), "--baseline", "s0", "--candidate", "s1"]) in (0, 1)


@pytest.mark.slow
def test_leaderboard_json_warns(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    f = _csv(tmp_path, _scores(2, skip_failures=True))
    assert main(["leaderboard", str(f), "--format", "json", "--bt-resamples", "0"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert len(out["warnings"]) == 1 and out["warnings"][0].startswith("s9's")
    f = _csv(tmp_path, _scores(3, skip_failures=False))
    assert main(["leaderboard", str(f), "--format", "json", "--bt-resamples", "0"]) == 0
    assert json.loads(capsys.readouterr().out)["warnings"] == []


def test_every_output_gives_the_same_missingness_sentence(tmp_path: Path) -> None:
    # one check behind the A/B compare page (ABComparison.missing), the Leaderboard page's notes
    # and the CLI: the same sentence for the same system
    from engine import build_matrix, compare_ab, leaderboard

    x = _scores(2, skip_failures=True)
    frame = pd.read_csv(_csv(tmp_path, x))
    (check,) = missing_checks(ScoreMatrix.from_array(x))
    ab = compare_ab(frame, baseline="s0", candidate="s9")
    assert ab.missing == (check.warning(),) and ab_json(ab)["warnings"] == [check.warning()]
    assert compare_ab(frame, baseline="s0", candidate="s1").missing == ()
    assert check.warning() in leaderboard(build_matrix(frame), bt_resamples=0).notes


def test_the_api_result_cannot_decide_where_the_command_line_exits_2() -> None:
    """With many systems and one system's failures dropped, ``compare_ab``'s result says it
    cannot decide (``decided``) where ``compare`` exits 2, whatever its ``verdict``; missing
    at random it decides."""
    from engine import compare_ab

    def frame(x: np.ndarray) -> pd.DataFrame:
        rows = [("b", f"s{s}", f"e{i:03d}", "acc", x[s, i]) for s in range(len(x))
                for i in range(x.shape[1]) if not np.isnan(x[s, i])]
        return pd.DataFrame(rows, columns=["benchmark", "system", "example_id", "metric",
                                           "value"])

    skipped = compare_ab(frame(_scores(2, skip_failures=True)), baseline="s0", candidate="s9")
    assert skipped.missing and not skipped.decided
    at_random = compare_ab(frame(_scores(3, skip_failures=False)), baseline="s0", candidate="s9")
    assert at_random.decided
