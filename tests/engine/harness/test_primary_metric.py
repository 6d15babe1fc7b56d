"""A harness's primary metric is the default metric when --metric is omitted, and is stated.

Reference values: the logs are the real ones of tests/data/harness-logs-real (lm-eval
0.4 and inspect-ai, see its VERSIONS.txt). lm-eval's sig_choice config lists
``metric_list: [acc, acc_norm]`` with no filter (its results_*.json ``configs``), so its
primary metric is ``acc``; sig_arith lists ``exact_match`` with the filters
``strict-match, flexible-extract``, so ``exact_match,strict-match``. The Inspect arith logs'
``results.scores`` are ``[match, includes]``, so ``match``. The system names are the ones
``python -m engine leaderboard DIR --benchmark B --metric M`` lists.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from engine.cli import main
from engine.harness import read_harness

REAL = Path(__file__).resolve().parents[2] / "data" / "harness-logs-real"
LM_EVAL = REAL / "lm_eval" / "out"
INSPECT = REAL / "inspect" / "eval"


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_readers_record_the_primary_metric() -> None:
    lm = read_harness(str(LM_EVAL)).frame.attrs["primary_metrics"]
    assert lm == {"sig_choice": ("acc", "lm-eval"),
                  "sig_arith": ("exact_match,strict-match", "lm-eval")}
    assert read_harness(str(INSPECT)).frame.attrs["primary_metrics"] == {
        "arith": ("match", "inspect")}


@pytest.mark.slow
def test_readme_ci_recipe_on_real_lm_eval_logs(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["compare", str(LM_EVAL), "--baseline", "sigtest/model-a",
            "--candidate", "sigtest/model-b", "--benchmark", "sig_choice", "--margin", "0.02"]
    code, out, err = _run(argv, capsys)
    assert code in (0, 1), err  # a verdict, not "several metrics present (acc, acc_norm)"
    assert "sig_choice/acc" in out
    assert ("note: metric acc: lm-eval's primary metric of sig_choice (others: acc_norm; "
            "choose with --metric)") in err
    assert err.count("primary metric") == 1  # stated once, though the slice is picked twice
    # the same verdict as with the metric named, which states nothing
    named, out_named, err_named = _run([*argv, "--metric", "acc"], capsys)
    assert (named, out_named) == (code, out)
    assert "primary metric" not in err_named


@pytest.mark.slow
def test_json_stays_strict_and_the_filter_is_the_first(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(["compare", str(LM_EVAL), "--baseline", "sigtest/model-a",
                           "--candidate", "sigtest/model-b", "--benchmark", "sig_arith",
                           "--format", "json"], capsys)
    assert code in (0, 1), err
    assert json.loads(out)["metric"] == "exact_match,strict-match"
    assert "lm-eval's primary metric of sig_arith (others: exact_match,flexible-extract" in err


@pytest.mark.slow
def test_inspect_defaults_to_the_first_scorer(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(["compare", str(INSPECT), "--baseline", "sigtest/model-a [temperature=0.0]",
                           "--candidate", "sigtest/model-b"], capsys)
    assert code in (0, 1), err
    assert "arith/match" in out
    assert ("note: metric match: Inspect's primary metric of arith (others: includes; "
            "choose with --metric)") in err


@pytest.mark.slow
def test_plain_table_with_two_metrics_still_refused(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    rows = [("b", s, str(i), m, float((i + len(s) + len(m)) % 2))
            for s in ("A", "B") for i in range(12) for m in ("acc", "acc_norm")]
    path = tmp_path / "two_metrics.csv"
    pd.DataFrame(rows, columns=["benchmark", "system", "example_id", "metric", "value"]).to_csv(
        path, index=False)
    code, out, err = _run(["compare", str(path), "--baseline", "A", "--candidate", "B"], capsys)
    assert code == 2
    assert "several metrics present (acc, acc_norm)" in err
    assert "primary metric" not in err


def test_logs_naming_two_primaries_have_no_default() -> None:
    # two DATA arguments that disagree on sig_choice's primary metric: no default, the old error
    import engine.cli._common as common

    merged = common._primaries([{"sig_choice": ("acc", "lm-eval")},
                                {"sig_choice": ("acc_norm", "lm-eval")},
                                {"arith": ("match", "inspect")}])
    assert merged == {"arith": ("match", "inspect")}
