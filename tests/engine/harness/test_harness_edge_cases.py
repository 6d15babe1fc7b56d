"""Edge cases of FORMATS.md, each on a small fixture (tests/data/harness-logs/edge_cases/,
written by harness_fixture_writer.py), plus runs, settings and overrides built in tmp_path.

Expected values are read off the fixture writer's formulas (stated per test).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import DataContractError
from engine.harness import read_harness
from engine.harness._common import to_score
from engine.harness._inspect import score_value

DATA = Path(__file__).resolve().parents[2] / "data" / "harness-logs"
EDGE = DATA / "edge_cases"
LLAMA = "meta-llama__Llama-3.1-8B-Instruct"
KEYS = ["benchmark", "system", "example_id", "metric"]


def canon(df: pd.DataFrame) -> pd.DataFrame:
    cols = KEYS + ["value"] + (["run"] if "run" in df.columns else [])
    return df[cols].sort_values(cols).reset_index(drop=True)


def test_harness_lm_eval_legacy_lines_without_filter_match_v048() -> None:
    # the legacy file is the v0.4.8 llama gsm8k file minus filter/metrics keys
    legacy = read_harness(EDGE / "lm_eval_legacy_no_filter").frame
    current = read_harness(DATA / "lm_eval").frame
    current = current[(current["benchmark"] == "gsm8k")
                      & (current["system"] == "meta-llama/Llama-3.1-8B-Instruct")]
    pd.testing.assert_frame_equal(canon(legacy), canon(current))


def test_harness_lm_eval_json_array_v040() -> None:
    result = read_harness(EDGE / "lm_eval_json_array")
    df = result.frame
    # system from results.json config.model_args (no model_name in v0.4.0); task from configs
    assert set(df["system"]) == {"EleutherAI/pythia-160m"} and set(df["benchmark"]) == {"arc_easy"}
    acc = df[df["metric"] == "acc"].set_index("example_id")["value"]
    assert acc.to_dict() == {"0": 0.0, "1": 1.0, "2": 0.0, "3": 1.0}  # acc = i % 2
    assert "run" not in df.columns


def test_harness_lm_eval_repeats_are_filters_not_runs() -> None:
    result = read_harness(EDGE / "lm_eval_repeats")
    df = result.frame
    assert "run" not in df.columns
    assert sorted(df["metric"].unique()) == ["exact_match,maj@64", "exact_match,maj@8",
                                             "exact_match,score-first"]
    # exact_match = (doc + filter index) % 2, filters in order score-first, maj@64, maj@8
    maj64 = df[df["metric"] == "exact_match,maj@64"].set_index("example_id")["value"]
    assert maj64.to_dict() == {"0": 1.0, "1": 0.0, "2": 1.0}


def test_harness_lm_eval_bool_and_list_metrics_without_results_json() -> None:
    result = read_harness(EDGE / "lm_eval_ifeval_no_results")
    df = result.frame
    # no results json: the system comes from the directory name, '__' read as '/'
    assert set(df["system"]) == {"Qwen/Qwen2.5-7B-Instruct"}
    # prompt_level_strict_acc = doc != 1 (bools → 0/1); doc 2 is null → skipped, not 0
    assert df.set_index("example_id")["value"].to_dict() == {"0": 1.0, "1": 0.0}
    skipped = result.skipped.set_index(["reason", "metric"])["count"].to_dict()
    assert skipped == {("list", "inst_level_strict_acc"): 3, ("null", "prompt_level_strict_acc"): 1}
    assert result.report().endswith(
        "4 values skipped: 3 lists in metric inst_level_strict_acc (corpus-level inputs, not "
        "scores), 1 null in metric prompt_level_strict_acc.")


def test_harness_system_override_for_a_bare_samples_file() -> None:
    path = next((EDGE / "lm_eval_ifeval_no_results").rglob("*.jsonl"))
    with pytest.raises(DataContractError, match="does not name the model"):
        read_harness((path.name, path.read_bytes()))
    df = read_harness((path.name, path.read_bytes()), system="my/model").frame
    assert set(df["system"]) == {"my/model"}
    assert set(read_harness(path.parent, system="other").frame["system"]) == {"other"}


def test_harness_system_override_refuses_to_merge_systems() -> None:
    with pytest.raises(DataContractError, match="name 3 systems"):
        read_harness(DATA / "lm_eval", system="one")


def test_harness_inspect_epochs_dict_scores_and_unfinished_log() -> None:
    result = read_harness(EDGE / "inspect_epochs_dict")
    df = result.frame
    assert sorted(df["run"].unique()) == [1, 2]  # epochs, 1-based as Inspect numbers them
    gpt = df[df["system"] == "openai/gpt-4o-mini"]
    # rubric/correctness = (i + epoch) % 2 for q<i>; match = "C" when i is odd
    corr = gpt[gpt["metric"] == "rubric/correctness"].set_index(["example_id", "run"])["value"]
    assert corr[("q1", 2)] == 1.0 and corr[("q1", 1)] == 0.0
    assert gpt[gpt["metric"] == "match"].groupby("example_id")["value"].first().to_dict() == \
        {"q0": 0.0, "q1": 1.0, "q2": 0.0}
    gem = df[df["system"] == "google/gemini"].set_index(["example_id", "run", "metric"])["value"]
    assert gem[("q0", 1, "rubric/correctness")] == 0.0  # the re-logged member wins
    assert gem[("q0", 2, "rubric/correctness")] == 1.0
    assert gem[("q1", 1, "match")] == 0.5  # "P"
    assert gem[("q1", 1, "multi/0")] == 1.0 and gem[("q1", 1, "multi/1")] == 0.0  # list score
    skipped = result.skipped.set_index(["reason", "metric"])["count"].to_dict()
    assert skipped == {("string", "judge"): 6, ("null", "rubric/style"): 2}  # never 0


def test_harness_helm_trials_are_runs_and_perturbations_benchmarks() -> None:
    result = read_harness(EDGE / "helm_trials_perturbations")
    df = result.frame
    base = "mmlu:subject=anatomy,method=multiple_choice_joint,data_augmentation=robustness"
    assert set(df["benchmark"]) == {base, base + ",perturbation=mild_mix"}
    assert sorted(df["run"].unique()) == [0, 1, 2]
    assert set(df["metric"]) == {"exact_match"}
    assert df.loc[df["benchmark"] != base, "perturbation"].eq("mild_mix").all()
    # exact_match = (i + trial + bias + perturbed) % 2; gpt bias 0, llama bias 1
    v = df.set_index(["benchmark", "system", "example_id", "run"])["value"]
    assert v[(base, "openai/gpt-4o-mini", "id1", 2)] == 1.0
    assert v[(base + ",perturbation=mild_mix", "meta/llama-3.1-8b", "id1", 2)] == 1.0
    assert len(df) == 2 * 3 * 2 * 2
    skipped = result.skipped.groupby("reason")["count"].sum().to_dict()
    assert skipped == {"empty stat": 24, "not a score": 24}  # f1_score count 0; num_prompt_tokens


def test_harness_lighteval_legacy_flat_columns() -> None:
    result = read_harness(EDGE / "lighteval_legacy_flat")
    df = result.frame
    assert set(df["benchmark"]) == {"lighteval|gsm8k|5"}
    assert set(df["system"]) == {"org/model-a", "org/model-b"}  # from the details/ path
    # no id in ≤ v0.10: a hash of the query text, identical across systems → pairs
    assert df.groupby("example_id")["system"].nunique().eq(2).all()
    assert df.groupby("system")["value"].sum().to_dict() == {"org/model-a": 1.0, "org/model-b": 2.0}
    assert result.skipped.set_index(["reason", "metric"])["count"].to_dict() == {("list", "bleu"): 6}


def _lm_eval_dir(root: Path, model_dir: str, date: str, *, fewshot: int, values: list[float]) -> None:
    d = root / model_dir
    d.mkdir(parents=True, exist_ok=True)
    lines = [{"doc_id": i, "doc": {}, "filter": "none", "metrics": ["acc"], "acc": v}
             for i, v in enumerate(values)]
    (d / f"samples_arc_{date}.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    (d / f"results_{date}.json").write_text(json.dumps({
        "model_name": "org/m", "n-shot": {"arc": fewshot}, "configs": {"arc": {}},
        "results": {"arc": {}}, "config": {"model_args": "pretrained=org/m"},
        "higher_is_better": {"arc": {"acc": True}}}))


def test_harness_separate_invocations_become_runs(tmp_path: Path) -> None:
    _lm_eval_dir(tmp_path, "org__m", "2025-01-02T00-00-00.1", fewshot=0, values=[1, 0])
    _lm_eval_dir(tmp_path, "org__m", "2025-01-01T00-00-00.1", fewshot=0, values=[0, 0])
    df = read_harness(tmp_path).frame
    assert set(df["system"]) == {"org/m"}
    # ordered by date_id: the 01-01 invocation is run 0
    assert df.set_index(["example_id", "run"])["value"].to_dict() == \
        {("0", 0): 0.0, ("1", 0): 0.0, ("0", 1): 1.0, ("1", 1): 0.0}


def test_harness_same_model_other_fewshot_is_another_system(tmp_path: Path) -> None:
    _lm_eval_dir(tmp_path, "org__m", "2025-01-01T00-00-00.1", fewshot=0, values=[1, 0])
    _lm_eval_dir(tmp_path, "org__m", "2025-01-02T00-00-00.1", fewshot=5, values=[1, 1])
    df = read_harness(tmp_path).frame
    assert sorted(df["system"].unique()) == ["org/m [num_fewshot=0]", "org/m [num_fewshot=5]"]
    assert "run" not in df.columns


def test_harness_unknown_format_is_a_value_error() -> None:
    with pytest.raises(ValueError, match=r"format: must be one of lm-eval\|inspect.*got 'csv'"):
        read_harness(DATA / "lm_eval", format="csv")


def test_harness_long_table_passes_through(tmp_path: Path) -> None:
    pd.DataFrame({"benchmark": "b", "system": ["x", "y"], "example_id": "1", "metric": "acc",
                  "value": [1.0, 0.0]}).to_csv(tmp_path / "t.csv", index=False)
    result = read_harness(tmp_path / "t.csv")
    assert result.format == "long" and len(result.frame) == 2
    pd.DataFrame({"system": ["x", "y"], "example_id": "1", "acc": [1.0, 0.0]}).to_csv(
        tmp_path / "w.csv", index=False)
    assert read_harness(tmp_path / "w.csv").format == "wide"


@pytest.mark.parametrize(("raw", "want"), [
    (True, (1.0, None)), (0, (0.0, None)), (2.5, (2.5, None)), (None, (None, "null")),
    (float("nan"), (None, "nan")), (float("inf"), (None, "infinite")), ([1], (None, "list")),
    ({"a": 1}, (None, "dict")), ("1", (None, "string")),
])
def test_harness_to_score(raw: object, want: tuple) -> None:
    assert to_score(raw) == want


@pytest.mark.parametrize(("raw", "want"), [
    ("C", 1.0), ("P", 0.5), ("I", 0.0), ("N", 0.0), ("yes", 1.0), ("False", 0.0), (" 0.25 ", 0.25),
])
def test_harness_inspect_letters_as_value_to_float(raw: str, want: float) -> None:
    # inspect_ai/scorer/_metric.py value_to_float: C→1, P→0.5, I/N→0, yes/true→1, no/false→0
    assert score_value(raw) == (want, None)


@pytest.mark.slow
@settings(max_examples=25)
@given(st.permutations(list(range(40))), st.permutations(["x", "y", "z"]))
def test_harness_line_order_and_system_labels_do_not_matter(order: list[int], names: list[str]) -> None:
    src = next((DATA / "lm_eval" / LLAMA).glob("samples_gsm8k_*.jsonl"))
    lines = src.read_text().splitlines()
    base = canon(read_harness((src.name, src.read_bytes()), system="x").frame)
    shuffled = "\n".join(lines[i] for i in order).encode()
    got = canon(read_harness((src.name, shuffled), system=names[0]).frame)
    pd.testing.assert_frame_equal(got.drop(columns="system"), base.drop(columns="system"))
    assert set(got["system"]) == {names[0]}


def test_harness_single_file_path_finds_its_results_json(tmp_path: Path) -> None:
    src = DATA / "lm_eval" / LLAMA
    shutil.copytree(src, tmp_path / LLAMA)
    path = next((tmp_path / LLAMA).glob("samples_arc_easy_*.jsonl"))
    result = read_harness(path)
    assert set(result.frame["system"]) == {"meta-llama/Llama-3.1-8B-Instruct"}  # model_name
    assert ("arc_easy", "acc") in result.specs
