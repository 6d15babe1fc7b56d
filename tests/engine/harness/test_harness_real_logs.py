"""Logs written by the real harnesses (tests/data/harness-logs-real/, README there).

Reference values: for Inspect, expected.csv beside the logs, written by inspect-ai 0.3.285's
own reader (read_eval_log + value_to_float); for lm-eval and lighteval, the aggregates the
harness itself wrote in its results json (the mean of the per-example values sigboard
imports must equal them); for HELM, per_instance_stats.json as HELM wrote it (sum / count).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from engine._contract import DataContractError
from engine.harness import read_harness

REAL = Path(__file__).resolve().parents[2] / "data" / "harness-logs-real"
KEYS = ["benchmark", "system", "example_id", "metric", "run"]


def inspect_expected() -> pd.DataFrame:
    return pd.read_csv(REAL / "inspect" / "expected.csv", dtype={"id": str},
                       keep_default_na=False)


# ---------------------------------------------------------------- Inspect


def test_inspect_every_sample_with_its_exact_value_epochs_as_runs() -> None:
    want = inspect_expected()
    want = want[want["file"].str.startswith("eval/")].astype({"seed": int, "epoch": int})
    got = read_harness(REAL / "inspect" / "eval").frame
    assert len(got) == len(want) == 96
    # model-b's two logs differ only in the seed: runs 1-2 and 3-4 of one system
    b = got[got["system"] == "sigtest/model-b"]
    assert sorted(b["run"].unique()) == [1, 2, 3, 4]
    by_seed = {1: 0, 2: 2}  # the seed-2 log was written after the seed-1 log
    want = want.assign(run=want["epoch"] + np.where(want["model"] == "sigtest/model-b",
                                                    want["seed"].map(by_seed), 0))
    want["system"] = [m if m == "sigtest/model-b" else f"{m} [temperature={t}]"
                      for m, t in zip(want["model"], want["temperature"], strict=True)]
    merged = want.merge(got, left_on=["system", "id", "run", "scorer"],
                        right_on=["system", "example_id", "run", "metric"], validate="1:1")
    assert len(merged) == 96
    np.testing.assert_array_equal(merged["value_x"].to_numpy(float), merged["value_y"].to_numpy(float))
    assert (merged["input"] == merged["prompt"]).all()
    assert (merged["target"] == merged["reference"]).all()
    assert (merged["completion"] == merged["output"]).all()


def test_inspect_settings_kept_and_other_settings_are_another_system() -> None:
    result = read_harness(REAL / "inspect" / "eval")
    df = result.frame
    assert set(df["system"]) == {"sigtest/model-a [temperature=0.0]",
                                 "sigtest/model-a [temperature=0.9]", "sigtest/model-b"}
    assert set(df["temperature"].astype(float)) == {0.0, 0.9}
    assert set(df["harness_version"]) == {"inspect_ai 0.3.285"}
    report = result.report()
    assert "2 logs with 2 different settings are 2 systems" in report
    assert "2 logs with the same settings (seeds 1, 2) are 2 runs of one system" in report


def test_inspect_retry_newest_log_wins_and_says_so() -> None:
    want = inspect_expected()
    newest = sorted(f for f in want["file"].unique() if f.startswith("retry/"))[-1]
    want = want[want["file"] == newest]
    result = read_harness(REAL / "inspect" / "retry")
    got = result.frame
    assert len(got) == len(want) == 12  # 6 samples x 2 scorers, all from the retry
    merged = want.merge(got, left_on=["id", "scorer"], right_on=["example_id", "metric"])
    np.testing.assert_array_equal(merged["value_x"].to_numpy(float), merged["value_y"].to_numpy(float))
    report = result.report()
    assert "is a retry of" in report and "3 samples superseded by a newer log" in report


def test_inspect_folder_mixing_eval_and_json(tmp_path: Path) -> None:
    for sub in ("eval", "json"):
        shutil.copytree(REAL / "inspect" / sub, tmp_path / sub)
    df = read_harness(tmp_path).frame
    assert set(df["benchmark"]) == {"arith", "capitals"}
    caps = df[df["benchmark"] == "capitals"]
    assert len(caps) == 8 and set(caps["example_id"]) == {"cap-fr", "cap-jp", "cap-pe", "cap-ke"}
    # one set of settings keeps one name across benchmarks (temperature 0.0 on both)
    assert set(caps["system"]) == {"sigtest/model-a [temperature=0.0]", "sigtest/model-b"}


@pytest.mark.slow
def test_inspect_export_has_texts_and_import_round_trips_them(tmp_path: Path) -> None:
    from engine.cli import main

    db = f"sqlite:///{tmp_path / 'a.db'}"
    assert main(["import", str(REAL / "inspect" / "eval"), "--db", db]) == 0
    first = tmp_path / "a.csv"
    import contextlib
    import io

    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        assert main(["export", db]) == 0
    first.write_text(buf.getvalue())
    exported = pd.read_csv(first, dtype=str, keep_default_na=False)
    assert {"prompt", "reference", "output"} <= set(exported.columns)
    assert (exported["output"] != "").all()
    db2 = f"sqlite:///{tmp_path / 'b.db'}"
    assert main(["import", str(first), "--db", db2]) == 0
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        assert main(["export", db2]) == 0
    assert buf.getvalue() == first.read_text()  # byte for byte


# ---------------------------------------------------------------- lm-eval


def _lm_eval_means(folder: Path) -> dict[tuple[str, str, str], float]:
    """(results file, task, metric) → the mean lm-eval itself wrote."""
    out = {}
    for path in folder.rglob("*.json"):
        res = json.loads(path.read_text())
        for task, values in res["results"].items():
            for key, value in values.items():
                if "," in key and "_stderr" not in key:
                    metric, filt = key.split(",", 1)
                    out[(path.name, task, metric if filt == "none" else key)] = float(value)
    return out


def test_lm_eval_values_match_its_own_aggregates_and_gen_kwargs_make_one_system() -> None:
    result = read_harness(REAL / "lm_eval" / "out")
    df = result.frame
    # the temperature=0.7 invocation is one system on both tasks
    assert set(df["system"]) == {"sigtest/model-a [temperature=0.7]",
                                 "sigtest/model-a", "sigtest/model-b"}  # unset: not named
    per_system_tasks = df.groupby("system")["benchmark"].nunique()
    assert (per_system_tasks == 2).all()
    assert len(df) == 3 * (6 * 2 + 5 * 2)  # invocations x (arith docs x 2 filters + choice x 2)
    means = df.groupby(["system", "benchmark", "metric"])["value"].mean()
    files = {"sigtest/model-b": "sigtest__model-b", "sigtest/model-a [temperature=0.7]": "0.7",
             "sigtest/model-a": "default"}
    want = _lm_eval_means(REAL / "lm_eval" / "out")
    for system, task, metric, mean in means.reset_index().itertuples(index=False):
        candidates = [v for (f, t, m), v in want.items() if t == task and m == metric
                      and _results_of(f, files[system])]
        assert candidates and np.isclose(mean, candidates[0], rtol=0, atol=1e-12), (system, task)
    assert (df["model_args"] == '{"pretrained": "sigtest/model-a"}').sum() > 0  # dict model_args


def _results_of(name: str, which: str) -> bool:
    folder = REAL / "lm_eval" / "out"
    path = next(folder.rglob(name))
    res = json.loads(path.read_text())
    if which.startswith("sigtest__"):
        return path.parent.name == which
    temperature = (res["config"].get("gen_kwargs") or {}).get("temperature")
    return path.parent.name == "sigtest__model-a" and (
        (which == "0.7" and temperature == 0.7) or (which == "default" and temperature is None))


def test_lm_eval_output_path_json_finds_its_results_file() -> None:
    df = read_harness(REAL / "lm_eval" / "json").frame
    assert set(df["system"]) == {"sigtest/model-a"}
    assert set(df["model_args"]) == {'{"pretrained": "sigtest/model-a"}'}
    assert set(df["harness_version"]) == {"lm-eval 0.4.13"}
    assert set(df["benchmark"]) == {"sig_arith", "sig_choice"}


def test_lm_eval_output_path_json_alone_finds_its_sibling_results_file() -> None:
    samples = next((REAL / "lm_eval" / "json").glob("samples_sig_arith_*.jsonl"))
    df = read_harness(samples).frame  # one file given: its sibling x_<date>.json names the model
    assert set(df["system"]) == {"sigtest/model-a"} and len(df) == 12


def test_lm_eval_random_model_name_asks_for_the_system_and_keeps_the_settings() -> None:
    with pytest.raises(DataContractError, match="does not name the model"):
        read_harness(REAL / "lm_eval" / "noname")
    df = read_harness(REAL / "lm_eval" / "noname", system="my/model").frame
    assert set(df["system"]) == {"my/model"}
    assert set(df["model_args"]) == {'{"flavour": "b"}'}


def test_lm_eval_doc_hash_mismatch_is_not_paired() -> None:
    result = read_harness(REAL / "lm_eval" / "doc_hash")
    df = result.frame
    lines = [json.loads(x) for p in (REAL / "lm_eval" / "doc_hash").rglob("samples_*.jsonl")
             for x in p.read_text().splitlines()]
    hashes = {}
    for line in lines:
        hashes.setdefault(line["doc_id"], set()).add(line["doc_hash"])
    differing = [str(d) for d, h in hashes.items() if len(h) > 1]
    assert differing == ["2"]  # the premise: the data of doc 2 differ
    b = df[df["system"] == "sigtest/model-b"]
    assert "2" not in set(b["example_id"]) and any(e.startswith("2#") for e in b["example_id"])
    assert "2" in set(df.loc[df["system"] == "sigtest/model-a", "example_id"])
    assert "1 example id holds other content (doc_hash) for some systems" in result.report()


def test_lm_eval_texts_multiple_choice_reference_and_output_are_choices() -> None:
    df = read_harness(REAL / "lm_eval" / "out").frame
    choice = df[(df["benchmark"] == "sig_choice") & (df["example_id"] == "0")]
    assert set(choice["prompt"]) == {"Question: Which is a fruit?\nAnswer:"}
    assert set(choice["reference"]) == {"apple"}
    assert set(choice["output"]) <= {"carrot", "apple", "potato"}


# ---------------------------------------------------------------- HELM


def test_helm_model_after_the_colon_and_arguments_before_it_share_a_benchmark() -> None:
    result = read_harness(REAL / "helm" / "v1")
    df = result.frame
    assert set(df["benchmark"]) == {"simple_mcqa", "simple_classification:stop=hash"}
    assert (df.groupby("benchmark")["system"].nunique() == 2).all()
    for run_dir in (REAL / "helm" / "v1").iterdir():
        stats = json.loads((run_dir / "per_instance_stats.json").read_text())
        model = json.loads((run_dir / "run_spec.json").read_text())["adapter_spec"]["model"]
        for entry in stats:
            for stat in entry["stats"]:
                if stat["name"]["name"] == "exact_match" and stat.get("count"):
                    row = df[(df["system"] == model) & (df["example_id"] == entry["instance_id"])
                             & (df["metric"] == "exact_match")
                             & (df["benchmark"] == ("simple_mcqa" if "mcqa" in run_dir.name
                                                    else "simple_classification:stop=hash"))]
                    assert row["value"].tolist() == [stat["sum"] / stat["count"]]
    mcqa = df[df["benchmark"] == "simple_mcqa"].iloc[0]
    assert mcqa["prompt"].startswith("Is ") and mcqa["reference"] in ("Even", "Odd")
    assert mcqa["output"] in (" A → Even", " B → Odd")  # predicted_text as HELM wrote it


def test_helm_train_trials_are_runs() -> None:
    df = read_harness(REAL / "helm" / "trials").frame
    assert set(df["benchmark"]) == {"simple_mcqa"}
    assert sorted(df["run"].unique()) == [0, 1]
    assert df.groupby("system")["example_id"].nunique().tolist() == [3, 3]


# ---------------------------------------------------------------- lighteval


def test_lighteval_values_match_its_aggregates_runs_and_unknown_version() -> None:
    result = read_harness(REAL / "lighteval" / "out")
    df = result.frame
    assert set(df["system"]) == {"sigtest/model-a", "sigtest/model-b"}
    assert set(df["benchmark"]) == {"sig_arith|0", "sig_choice|0"}
    assert sorted(df.loc[df["system"] == "sigtest/model-a", "run"].unique()) == [0, 1]
    assert set(df["harness_version"]) == {"lighteval unknown"}  # lighteval_sha "?"
    for path in (REAL / "lighteval" / "out" / "results").rglob("results_*.json"):
        res = json.loads(path.read_text())
        model = res["config_general"]["model_name"]
        date = path.stem.removeprefix("results_")
        runs = sorted(p.name for p in (REAL / "lighteval" / "out" / "details" / model).iterdir())
        run = runs.index(date)
        for task, values in res["results"].items():
            if task == "all":
                continue
            bench = task.replace(":", "|")
            for metric, value in values.items():
                if metric.endswith("_stderr"):
                    continue
                got = df[(df["system"] == model) & (df["benchmark"] == bench)
                         & (df["metric"] == metric) & (df["run"] == run)]["value"]
                assert len(got) and np.isclose(got.mean(), value, rtol=0, atol=1e-12)
    arith = df[(df["benchmark"] == "sig_arith|0") & (df["example_id"] == "0")].iloc[0]
    assert arith["prompt"] == "Question: What is 2 + 3?\nAnswer:" and arith["reference"] == "5"
