"""Inspect's ``pass_k`` and ``pass_at`` epoch reducers reproduced from logs written by
inspect-ai itself.

Provenance: ``tests/data/harness-logs-real/inspect_passk/eval/`` holds two ``.eval`` logs
written offline by inspect-ai 0.3.285 from PyPI (its ``pip freeze`` in ``VERSIONS.txt``),
run by ``python3 scripts/harness_logs.py --only inspect_passk``
(``scripts/harness_runs/inspect_passk_run.py``): task ``agent_tasks``, 10 samples, scorer
``match``, ``epochs=Epochs(8, [mean_score(), pass_k(4), pass_at(4)])``, models
``sigagent/agent-a`` and ``-b`` (a deterministic local model API whose tries of one task
differ). The reference values are what Inspect computed and wrote: per sample, the reduced
score in ``reductions.json`` (inspect_ai ``scorer/_reducer/reducer.py``: ``pass_k`` is
``math.comb(correct, k) / math.comb(total, k)``, ``pass_at`` Chen et al.'s product form), and
over samples, the ``accuracy`` of each reducer's entry in ``header.json``
(``results.scores[i]``, ``reducer: "pass_k_4"``). Inspect stores the floats as computed
(JSON doubles), so the comparisons are to 1e-12.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from engine import read_harness
from engine.cli import main
from engine.io._zip import member_bytes
from engine.stats._passk import pass_at_k, pass_hat_k, pass_k_estimates, try_counts

FOLDER = Path(__file__).parents[2] / "data" / "harness-logs-real" / "inspect_passk" / "eval"
LOGS = sorted(FOLDER.glob("*.eval"))


def _member(path: Path, name: str) -> Any:
    data = path.read_bytes()
    archive = zipfile.ZipFile(path)
    return json.loads(member_bytes(data, archive, archive.getinfo(name), path.name))


def _inspect(path: Path) -> tuple[str, dict[str, float], dict[str, dict[str, float]]]:
    """(model, accuracy of each reducer over samples, each reducer's value per sample)."""
    header = _member(path, "header.json")
    means = {s["reducer"]: float(s["metrics"]["accuracy"]["value"])
             for s in header["results"]["scores"]}
    per_sample = {r["reducer"]: {str(s["sample_id"]): float(s["value"]) for s in r["samples"]}
                  for r in _member(path, "reductions.json")}
    return header["eval"]["model"], means, per_sample


def test_two_real_logs_with_the_pass_k_reducer() -> None:
    assert len(LOGS) == 2
    for path in LOGS:
        header = _member(path, "header.json")
        assert header["eval"]["config"]["epochs"] == 8
        assert header["eval"]["config"]["epochs_reducer"] == ["mean", "pass_k_4", "pass_at_4"]
        assert header["status"] == "success"


@pytest.mark.parametrize("path", LOGS, ids=lambda p: p.name[:25])
def test_epochs_are_tries_and_pass_k_equals_inspects(path: Path) -> None:
    model, means, per_sample = _inspect(path)
    frame = read_harness(path).frame
    # every epoch is a try (a run of the same example), none of the reduced scores
    assert frame["system"].unique().tolist() == [model]
    assert len(frame) == 80 and frame.groupby("example_id")["run"].nunique().eq(8).all()
    assert set(frame["value"].unique()) <= {0.0, 1.0}
    counts = try_counts(frame)
    assert counts.tries.min() == counts.tries.max() == 8
    tasks = list(counts.examples)
    n, c = counts.tries[0].astype(float), counts.successes[0].astype(float)
    # per task: sigboard's estimators = Inspect's reduced score of each sample
    want_hat = np.array([per_sample["pass_k_4"][t] for t in tasks])
    want_at = np.array([per_sample["pass_at_4"][t] for t in tasks])
    np.testing.assert_allclose(pass_hat_k(n, c, 4), want_hat, rtol=0, atol=1e-12)
    np.testing.assert_allclose(pass_at_k(n, c, 4), want_at, rtol=0, atol=1e-12)
    np.testing.assert_allclose(c / n, [per_sample["mean"][t] for t in tasks], atol=1e-12)
    # over tasks: sigboard's pass^4 and pass@4 = the accuracy Inspect reported
    est = pass_k_estimates(counts, 4)
    assert est.tasks[0] == 10 and est.excluded[0] == 0
    assert est.pass_hat_k[0] == pytest.approx(means["pass_k_4"], abs=1e-12)
    assert est.pass_at_k[0] == pytest.approx(means["pass_at_4"], abs=1e-12)
    assert est.pass_hat_k_low[0] <= est.pass_hat_k[0] <= est.pass_hat_k_high[0]


def test_the_tasks_are_flaky_as_the_log_says() -> None:
    # the logs hold tasks neither always right nor always wrong (0 < mean < 1 per sample),
    # which is what separates pass^4 from pass@4
    for path in LOGS:
        _, means, per_sample = _inspect(path)
        assert any(0 < v < 1 for v in per_sample["mean"].values())
        assert means["pass_k_4"] < means["mean"] < means["pass_at_4"]


def test_sigboard_passk_on_the_real_logs(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["passk", str(FOLDER), "--k", "4", "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    want = {m: means for m, means, _ in map(_inspect, LOGS)}
    assert {s["system"] for s in out["systems"]} == set(want)
    for row in out["systems"]:
        assert row["tasks"] == 10
        assert row["pass_hat_k"] == pytest.approx(want[row["system"]]["pass_k_4"], abs=1e-12)
        assert row["pass_at_k"] == pytest.approx(want[row["system"]]["pass_at_4"], abs=1e-12)
    [pair] = out["pairs"]
    a, b = pair["system_a"], pair["system_b"]
    assert pair["diff_pass_hat_k"] == pytest.approx(
        want[a]["pass_k_4"] - want[b]["pass_k_4"], abs=1e-12)
