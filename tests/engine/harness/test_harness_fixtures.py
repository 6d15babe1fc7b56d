"""Every harness fixture folder imports to exactly its expected_long.csv.

Reference values: tests/data/harness-logs/<folder>/expected_long.csv, produced by the
research report's reference mapping (FORMATS.md), not by sigboard's code.
"""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from engine.harness import HARNESS_FORMATS, HarnessImport, detect_format, read_harness

DATA = Path(__file__).resolve().parents[2] / "data" / "harness-logs"
FOLDERS = {"lm_eval": "lm-eval", "inspect": "inspect", "helm": "helm", "lighteval": "lighteval",
           "openai_evals": "openai-evals", "promptfoo": "promptfoo", "eee": "eee"}
KEYS = ["benchmark", "system", "example_id", "metric"]


def expected(folder: str) -> pd.DataFrame:
    df = pd.read_csv(DATA / folder / "expected_long.csv", dtype=str, keep_default_na=False)
    df["value"] = df["value"].astype(float)
    return df


def assert_matches(result: HarnessImport, want: pd.DataFrame) -> None:
    got = result.frame
    has_run = (want["run"] != "").any()
    assert ("run" in got.columns) == has_run, "runs must be present exactly when the log has them"
    keys = KEYS + (["run"] if has_run else [])
    if has_run:
        want = want.assign(run=want["run"].astype("int64"))
    assert not got.duplicated(keys).any()
    merged = want[keys + ["value"]].merge(got[keys + ["value"]], on=keys, how="outer",
                                          suffixes=("_want", "_got"), indicator=True)
    assert (merged["_merge"] == "both").all(), merged[merged["_merge"] != "both"].head()
    np.testing.assert_allclose(merged["value_got"], merged["value_want"], rtol=0, atol=1e-12)
    assert len(got) == len(want)


@pytest.mark.parametrize("folder", sorted(FOLDERS))
def test_harness_fixture_folder_imports_to_expected_long(folder: str) -> None:
    result = read_harness(DATA / folder)
    assert result.format == FOLDERS[folder]
    assert_matches(result, expected(folder))


@pytest.mark.parametrize("folder", sorted(FOLDERS))
def test_harness_zip_of_folder_imports_the_same_as_the_folder(folder: str) -> None:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for p in sorted((DATA / folder).rglob("*")):
            if p.is_file():
                z.write(p, f"{folder}/{p.relative_to(DATA / folder).as_posix()}")
    result = read_harness((f"{folder}.zip", buf.getvalue()))
    assert_matches(result, expected(folder))
    assert detect_format((f"{folder}.zip", buf.getvalue())) == FOLDERS[folder]


@pytest.mark.parametrize("folder", sorted(FOLDERS))
def test_harness_forced_format_reads_the_same(folder: str) -> None:
    assert_matches(read_harness(DATA / folder, format=FOLDERS[folder]), expected(folder))


def test_harness_detects_each_folder_and_lists_the_formats() -> None:
    assert {detect_format(DATA / f) for f in FOLDERS} == set(FOLDERS.values())
    assert set(FOLDERS.values()) | {"long", "wide"} == set(HARNESS_FORMATS)


def test_harness_inspect_summaries_and_samples_agree() -> None:
    # the fast path (summaries.json) must give what the samples/*.json members give
    from engine.harness._inspect import _eval_log
    from engine.harness._walk import walk

    _, files = walk(DATA / "inspect")
    for f in files:
        if f.name.endswith(".eval"):
            _, fast = _eval_log(f, fast=True)
            _, slow = _eval_log(f, fast=False)
            key = lambda s: (str(s["id"]), s["epoch"])  # noqa: E731
            assert sorted((key(s), s["scores"]["choice"]["value"]) for s in fast) == \
                sorted((key(s), s["scores"]["choice"]["value"]) for s in slow)


def test_harness_lm_eval_keeps_settings_and_directions() -> None:
    result = read_harness(DATA / "lm_eval")
    meta = result.frame.drop_duplicates("system").set_index("system")
    assert meta.loc["meta-llama/Llama-3.1-8B-Instruct", "model_args"] == \
        "pretrained=meta-llama/Llama-3.1-8B-Instruct,dtype=bfloat16"  # results json config
    assert meta.loc["meta-llama/Llama-3.1-8B-Instruct", "harness_version"] == "lm-eval 0.4.8"
    assert result.specs[("gsm8k", "exact_match,strict-match")].higher_is_better is True
    assert result.frame["doc_hash"].notna().all()


def test_harness_lighteval_directions_from_results_json() -> None:
    result = read_harness(DATA / "lighteval")
    assert set(result.specs) == {("gsm8k|5", "extractive_match"), ("arc:easy|0", "acc")}
    assert (result.frame["num_fewshot"].astype(int) == result.frame["benchmark"].str[-1].astype(int)).all()


def test_harness_inspect_reports_errored_sample_and_nan_leaf() -> None:
    result = read_harness(DATA / "inspect")
    skipped = result.skipped.set_index(["reason", "metric"])["count"]
    assert skipped[("errored sample", "")] == 1  # gemini's faq-007 (RateLimitError)
    assert skipped[("nan", "rubric/conciseness")] == 1  # claude's NaN dict leaf
    assert "1 NaN in metric rubric/conciseness" in result.report()
    assert "1 errored sample" in result.report()
