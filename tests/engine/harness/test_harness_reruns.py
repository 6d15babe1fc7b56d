"""Re-runs vs retries for every harness (#28 item 4), on copies of the real-tool logs
(tests/data/harness-logs-real/): a log is a retry only when model, task, settings, seed and
data agree (then the newest log counts for each example and run, the older samples are
counted as superseded and the report names both logs); another seed, an unrecorded seed
or other data make another run; other settings another system. Nothing is dropped without
a sentence in the report.

Reference values: the per-example values in the logs themselves (the newer invocation's
for a retry), read from the files here.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest

from engine.harness import read_harness

REAL = Path(__file__).resolve().parents[2] / "data" / "harness-logs-real"
LM = REAL / "lm_eval"
FIRST, SECOND = "2026-11-25T21-37-53.007577", "2026-11-25T21-42-11.571046"  # model-a, defaults


def _lm_eval_pair(tmp_path: Path, *, seed: int | None = None) -> Path:
    """model-a with default settings twice (``out/`` and ``json/``, both with lm-eval's default
    seeds), in one folder; ``seed``: the second invocation's --seed changed to it."""
    folder = tmp_path / "sigtest__model-a"
    folder.mkdir()
    for task in ("sig_arith", "sig_choice"):
        shutil.copy(LM / "out" / "sigtest__model-a" / f"samples_{task}_{FIRST}.jsonl", folder)
        shutil.copy(LM / "json" / f"samples_{task}_{SECOND}.jsonl", folder)
    shutil.copy(LM / "out" / "sigtest__model-a" / f"results_{FIRST}.json", folder)
    results = json.loads((LM / "json" / f"sig_{SECOND}.json").read_text())
    if seed is not None:
        results["config"]["random_seed"] = seed
    (folder / f"sig_{SECOND}.json").write_text(json.dumps(results))
    return tmp_path


def _values(path: Path) -> dict[tuple[str, str], float]:
    """(doc_id, metric) → value of an lm-eval samples file, filter 'none' only."""
    out = {}
    for line in map(json.loads, path.read_text().splitlines()):
        for metric in line["metrics"]:
            name = metric if line["filter"] == "none" else f"{metric},{line['filter']}"
            out[(str(line["doc_id"]), name)] = float(line[metric])
    return out


def test_lm_eval_same_settings_seed_and_data_is_a_retry_newest_wins(tmp_path: Path) -> None:
    result = read_harness(_lm_eval_pair(tmp_path))
    df = result.frame
    assert set(df["system"]) == {"sigtest/model-a"} and "run" not in df.columns
    newer = _values(LM / "json" / f"samples_sig_arith_{SECOND}.jsonl")
    got = df[df["benchmark"] == "sig_arith"].set_index(["example_id", "metric"])["value"].to_dict()
    assert got == newer
    superseded = result.skipped[result.skipped["reason"] == "superseded"]
    assert superseded.groupby("benchmark")["count"].sum().to_dict() == {"sig_arith": 6,
                                                                          "sig_choice": 5}
    report = result.report()
    assert (f"sig_arith, sigtest/model-a: {tmp_path.name}/sigtest__model-a/samples_sig_arith_"
            f"{SECOND}.jsonl is a retry of ") in report
    assert "11 samples superseded by a newer log" in report


def test_lm_eval_another_seed_is_another_run(tmp_path: Path) -> None:
    result = read_harness(_lm_eval_pair(tmp_path, seed=7))
    df = result.frame
    assert set(df["system"]) == {"sigtest/model-a"} and sorted(df["run"].unique()) == [0, 1]
    assert (df["run"] == 0).sum() == (df["run"] == 1).sum()  # both invocations kept whole
    assert "superseded" not in set(result.skipped["reason"])
    assert "sig_arith, sigtest/model-a: 2 invocations with the same settings are 2 runs (" \
        in result.report()
    assert "seed 7,1234,1234,1234)" in result.report()


def test_lm_eval_other_data_is_another_run_and_other_settings_another_system(
        tmp_path: Path) -> None:
    # model-b on the first data (out/) and on data whose doc 2 differs (doc_hash/), same seeds
    folder = tmp_path / "sigtest__model-b"
    shutil.copytree(LM / "out" / "sigtest__model-b", folder)
    for path in (LM / "doc_hash" / "sigtest__model-b").iterdir():
        shutil.copy(path, folder)
    result = read_harness(tmp_path)
    arith = result.frame[result.frame["benchmark"] == "sig_arith"]
    assert sorted(arith["run"].unique()) == [0, 1]
    assert "samples_sig_arith_2026-11-25T21-44-21.807159.jsonl: other data)" in result.report()
    # other settings: model-a with --gen_kwargs temperature=0.7 is another system, and said
    result = read_harness(LM / "out")
    assert ("sigtest/model-a: invocations with other settings are 2 systems, named after the "
            "settings that tell them apart (sigtest/model-a, sigtest/model-a [temperature=0.7])"
            ) in result.report()


def test_helm_a_second_suite_of_the_same_run_spec_is_a_retry_per_trial() -> None:
    # suites v1 (trial 0) and trials (trials 0 and 1) of simple_mcqa with the same adapter
    # settings: HELM draws trial i with seed i, so trial 0 is run twice (a retry: the suite
    # later in name order, v1, counts) and trial 1 once (run 1)
    result = read_harness(REAL / "helm")
    df = result.frame
    mcqa = df[(df["benchmark"] == "simple_mcqa") & (df["system"] == "sigtest/model-a")]
    assert sorted(mcqa["run"].unique()) == [0, 1]
    stats = json.loads((REAL / "helm" / "v1" / "simple_mcqa:model=sigtest_model-a" /
                        "per_instance_stats.json").read_text())
    want = {e["instance_id"]: next(s["sum"] / s["count"] for s in e["stats"]
                                   if s["name"]["name"] == "exact_match"
                                   and s["name"].get("split") == "test")
            for e in stats if not e.get("perturbation")}
    got = mcqa[(mcqa["run"] == 0) & (mcqa["metric"] == "exact_match")]
    assert got.set_index("example_id")["value"].to_dict() == want
    older = json.loads((REAL / "helm" / "trials" / "simple_mcqa:model=sigtest_model-a" /
                        "per_instance_stats.json").read_text())
    replaced = sum(e.get("train_trial_index", 0) == 0 for e in older)  # 3 instances, trial 0
    # for each of the two models
    assert result.skipped.loc[result.skipped["reason"] == "superseded", "count"].sum() == 2 * replaced
    assert ("simple_mcqa, sigtest/model-a: helm/v1/simple_mcqa:model=sigtest_model-a/"
            "per_instance_stats.json is a retry of helm/trials/") in result.report()


def _lighteval_copy(tmp_path: Path, seed: int | None) -> Path:
    out = tmp_path / "out"
    shutil.copytree(REAL / "lighteval" / "out", out)
    for path in (out / "results").rglob("results_*.json"):
        res = json.loads(path.read_text())
        res["config_general"]["model_config"]["generation_parameters"]["seed"] = seed
        path.write_text(json.dumps(res))
    return out


@pytest.mark.parametrize("seed", [None, 3])
def test_lighteval_runs_without_a_seed_retries_with_the_same_seed(tmp_path: Path,
                                                                   seed: int | None) -> None:
    result = read_harness(_lighteval_copy(tmp_path, seed))
    a = result.frame[result.frame["system"] == "sigtest/model-a"]
    report = result.report()
    if seed is None:  # lighteval 0.13.0 records no seed by default: two runs, and why
        assert sorted(a["run"].unique()) == [0, 1]
        assert "2 invocations with the same settings are 2 runs (" in report
        assert "no seed recorded); a log that records its seed is a retry" in report
    else:  # the same recorded seed, settings and data: the second is a retry
        assert "run" not in a.columns or a["run"].nunique() == 1
        assert "is a retry of" in report and "superseded by a newer log" in report
    assert set(result.frame["system"]) == {"sigtest/model-a", "sigtest/model-b"}  # seed: no system


def test_openai_evals_two_record_files_with_the_same_seed_are_a_retry(tmp_path: Path) -> None:
    source = next((REAL.parent / "harness-logs" / "openai_evals").glob("*gpt-4o-mini*.jsonl"))
    lines = source.read_text().splitlines()
    spec = json.loads(lines[0])
    spec["spec"]["created_at"] = "2025-03-15 09:00:00"  # a later invocation
    (tmp_path / "a.jsonl").write_text("\n".join(lines) + "\n")
    (tmp_path / "b.jsonl").write_text("\n".join([json.dumps(spec), *lines[1:]]) + "\n")
    result = read_harness(tmp_path)
    assert "run" not in result.frame.columns or result.frame["run"].nunique() == 1
    assert f"{tmp_path.name}/b.jsonl is a retry of {tmp_path.name}/a.jsonl" in result.report()
    spec["spec"]["run_config"]["seed"] = 1
    (tmp_path / "b.jsonl").write_text("\n".join([json.dumps(spec), *lines[1:]]) + "\n")
    again = read_harness(tmp_path)
    assert again.frame["run"].nunique() == 2 and "b.jsonl: seed 1)" in again.report()
    assert len(again.frame) == 2 * len(pd.DataFrame(result.frame))
