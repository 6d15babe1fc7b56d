"""One meaning per metric (issue #11): a declared direction and modality win over detection
in the CLI, the store and the app's engine path; health asks the store for the direction.

Reference values: exact McNemar vs paired t on the same 0/1 data, computed with scipy
(``binomtest`` on the discordant pairs; ``ttest_rel``).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from engine import MetricSpec, ScoreMatrix, build_matrix, open_store, pairwise_tests
from engine._contract import DataContractError
from engine.cli import main

# A: 1 on the first 30 of 40 examples; B: 1 on the first 20 → 10 discordant pairs, all A.
A = [1.0] * 30 + [0.0] * 10
B = [1.0] * 20 + [0.0] * 20


def _csv(path: Path, metric: str = "score") -> Path:
    rows = [("b", s, f"e{i:02d}", metric, v) for s, vals in (("A", A), ("B", B))
            for i, v in enumerate(vals)]
    pd.DataFrame(rows, columns=["benchmark", "system", "example_id", "metric", "value"]).to_csv(
        path, index=False)
    return path


@pytest.mark.slow
def test_declared_numeric_wins_over_zero_one_values(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """`engine import --numeric score` then `pairwise <store>`: paired t, not McNemar."""
    url = f"sqlite:///{tmp_path / 's.db'}"
    assert main(["import", str(_csv(tmp_path / "r.csv")), "--db", url, "--numeric", "score"]) == 0
    capsys.readouterr()
    assert main(["pairwise", url, "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["test"] == "paired-t"
    pair = out["pairs"][0]
    assert pair["pvalue"] == pytest.approx(stats.ttest_rel(A, B).pvalue, rel=1e-12)
    # undeclared, the same values run exact McNemar (scipy: binomtest(10, 10))
    assert main(["pairwise", str(tmp_path / "r.csv"), "--format", "json"]) == 0
    undeclared = json.loads(capsys.readouterr().out)
    assert undeclared["test"] == "mcnemar"
    assert undeclared["pairs"][0]["pvalue"] == pytest.approx(stats.binomtest(10, 10).pvalue)


def test_build_matrix_applies_the_spec() -> None:
    df = pd.DataFrame({"benchmark": "b", "metric": "m", "system": ["A"] * 40 + ["B"] * 40,
                       "example_id": [f"e{i:02d}" for i in range(40)] * 2, "value": A + B})
    assert build_matrix(df).binary
    numeric = build_matrix(df, spec=MetricSpec(binary=False))
    assert not numeric.binary and pairwise_tests(numeric).test == "paired-t"
    assert not numeric.subset(["B", "A"]).binary  # the declaration survives a subset
    lower = build_matrix(df, spec=MetricSpec(higher_is_better=False))
    assert not lower.higher_is_better
    with pytest.raises(DataContractError, match="declared binary"):
        ScoreMatrix.from_array([[0.5, 1.0], [0.0, 1.0]], spec=MetricSpec(binary=True))


def test_declared_binary_with_runs_is_a_proportion() -> None:
    """The per-example mean of several 0/1 runs is a proportion (numeric), not an error."""
    m = ScoreMatrix.from_array([[0.5, 1.0], [0.0, 1.0]], spec=MetricSpec(binary=True),
                               runs=np.array([[2, 2], [2, 2]]))
    assert not m.binary


@pytest.mark.slow
def test_health_uses_the_stored_direction(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    """An error metric (lower is better): the system that erred on every example is not solving.

    ``A`` errs (1) on 30 examples, ``B`` on 20, and a third system ``C`` errs on all 40, so C
    solves nothing: with the stored direction no example is solved by C alone.
    """
    rows = [("b", s, f"e{i:02d}", "err", v) for s, vals in
            (("A", A), ("B", B), ("C", [1.0] * 40)) for i, v in enumerate(vals)]
    path = tmp_path / "err.csv"
    pd.DataFrame(rows, columns=["benchmark", "system", "example_id", "metric", "value"]).to_csv(
        path, index=False)
    url = f"sqlite:///{tmp_path / 's.db'}"
    assert main(["import", str(path), "--db", url, "--lower-is-better", "err"]) == 0
    capsys.readouterr()
    assert main(["health", url, "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    # solved = error 0: examples 30..39 are solved by A and B (not C) → none by C alone;
    # examples 20..29 are solved by B only (A and C err) → 10 solved by one, all by B.
    assert {r["system"] for r in report["solved_by_one"]} == {"B"}
    assert len(report["solved_by_one"]) == 10
    assert len(report["no_solve"]) == 20  # examples 0..19: every system errs
    assert open_store(url).metric_spec("b", "err").higher_is_better is False


@pytest.mark.slow
def test_health_uses_the_declared_threshold_for_numeric_metrics(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A numeric metric has no 'solved' unless a threshold is declared (issue #12, item 9)."""
    rng = np.random.default_rng(9)
    rows = [("b", s, f"e{i:02d}", "chrf", float(v)) for s in ("A", "B", "C")
            for i, v in enumerate(rng.uniform(20, 80, 30))]
    path = tmp_path / "chrf.csv"
    pd.DataFrame(rows, columns=["benchmark", "system", "example_id", "metric", "value"]).to_csv(
        path, index=False)
    url = f"sqlite:///{tmp_path / 's.db'}"
    assert main(["import", str(path), "--db", url]) == 0
    capsys.readouterr()
    assert main(["health", url, "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["no_solve"] is None and report["suspects"] is None  # not defined
    open_store(url).update_metric("b", "chrf", MetricSpec(threshold=50.0))
    assert main(["health", url, "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    solved = pd.DataFrame(rows, columns=["b", "system", "e", "m", "v"]).pivot(
        index="system", columns="e", values="v") >= 50.0
    assert len(report["no_solve"]) == int((~solved.any(axis=0)).sum())
