"""The command line on harness names: list options with commas inside names, import's report.

Reference values: the names are lm-eval's (``exact_match,strict-match``, metric plus filter)
and HELM's (``mmlu:subject=anatomy,method=multiple_choice_joint``) as those harnesses write
them (docs/formats.md); the reports are the sentences HarnessImport.report() builds.
"""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from engine.cli import main
from engine.cli._lists import floats, names

REAL = Path(__file__).resolve().parents[2] / "data" / "harness-logs-real"
HELM_A = "mmlu:subject=anatomy,method=multiple_choice_joint"
HELM_B = "mmlu:subject=virology,method=multiple_choice_joint"


def _long(tmp_path: Path) -> Path:
    rng = np.random.default_rng(7)
    rows = []
    for bench in (HELM_A, HELM_B):
        for metric in ("exact_match,strict-match", "acc"):
            for system in ("A", "B", "C"):
                for i in range(30):
                    rows.append((bench, system, str(i), metric, float(rng.random() < 0.5)))
    path = tmp_path / "long.csv"
    pd.DataFrame(rows, columns=["benchmark", "system", "example_id", "metric", "value"]).to_csv(
        path, index=False)
    return path


def _run(*argv: str) -> dict:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(list(argv)) == 0
    return json.loads(out.getvalue())


@pytest.mark.parametrize(("given", "want"), [
    (["a,b"], ["a", "b"]),
    (["exact_match,strict-match", "acc"], ["exact_match,strict-match", "acc"]),
    (['"exact_match,strict-match",acc'], ["exact_match,strict-match", "acc"]),
    ([f'"{HELM_A}", "{HELM_B}"'], [HELM_A, HELM_B]),
])
def test_list_options_take_names_with_commas(given: list[str], want: list[str]) -> None:
    assert names(given, "--metrics") == want


def test_weights_repeat_or_split() -> None:
    assert floats(["1,2"], "--weights") == floats(["1", "2"], "--weights") == [1.0, 2.0]
    with pytest.raises(ValueError, match="--weights: must be numbers"):
        floats(["x"], "--weights")


@pytest.mark.slow
def test_overall_and_across_select_helm_benchmarks_and_lm_eval_metrics(tmp_path: Path) -> None:
    data = str(_long(tmp_path))
    res = _run("overall", data, "--benchmarks", HELM_A, "--benchmarks", HELM_B, "--metrics",
               "exact_match,strict-match", "--metrics", "acc", "--format", "json")
    assert res["benchmarks"] == [HELM_A, HELM_B]
    res = _run("pairwise", data, "--across", "metrics", "--benchmark", HELM_A, "--metrics",
               '"exact_match,strict-match",acc', "--format", "json")
    assert res["metrics"] == ["exact_match,strict-match", "acc"]
    assert res["benchmarks"] == [HELM_A]


@pytest.mark.slow
def test_import_prints_what_it_read_and_skipped(tmp_path: Path) -> None:
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        assert main(["import", str(REAL / "inspect" / "retry"), "--db",
                     f"sqlite:///{tmp_path / 's.db'}"]) == 0
    text = err.getvalue()
    assert "inspect log: 12 scores imported from 2 inspect files" in text
    assert "2 errored samples" in text or "superseded" in text
    assert "is a retry of" in text
