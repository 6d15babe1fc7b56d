"""promptfoo and openai/evals logs written by the real tools (tests/data/harness-logs-real/, README there).

Reference values: the per-result fields promptfoo 0.123.1 itself wrote in results.json
(``success``, ``score``, ``namedScores``, ``prompt.raw``, ``response.output``, the
assertions' ``value``), and the ``match``/``sampling`` events evals 3.0.1's ``oaieval``
wrote in its record JSONL; each test reads them straight from the file with ``json``.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from engine.harness import detect_format, read_harness

REAL = Path(__file__).resolve().parents[2] / "data" / "harness-logs-real"
PROMPTFOO = REAL / "promptfoo"
OAIEVAL = REAL / "openai_evals" / "logs"
KEYS = ["benchmark", "system", "example_id", "metric", "run"]


def promptfoo_results(path: Path) -> list[dict[str, Any]]:
    return json.loads(path.read_text())["results"]["results"]


def example_of(result: dict[str, Any]) -> str:
    """promptfoo's example id as docs/formats.md maps it: the test's description, else the
    first 16 hex digits of SHA-256 of its vars as sorted JSON."""
    test = result["testCase"]
    return test.get("description") or hashlib.sha256(
        json.dumps(result["vars"], sort_keys=True).encode()).hexdigest()[:16]


def promptfoo_expected(path: Path, several_prompts: bool) -> pd.DataFrame:
    """Every (system, example, metric) value promptfoo wrote, runs numbered per occurrence."""
    rows, seen = [], {}
    for r in promptfoo_results(path):
        system = r["provider"]["label"] + (f" [{r['prompt']['label']}]" if several_prompts else "")
        example = example_of(r)
        run = seen.get((system, example), 0)
        seen[(system, example)] = run + 1
        for metric, value in [("pass", r["success"]), ("score", r["score"]),
                              *r["namedScores"].items()]:
            rows.append((system, example, metric, run, float(value)))
    return pd.DataFrame(rows, columns=["system", "example_id", "metric", "run", "value"])


def compare(got: pd.DataFrame, want: pd.DataFrame) -> pd.DataFrame:
    got = got.assign(run=got.get("run", 0))
    merged = want.merge(got, on=["system", "example_id", "metric", "run"], validate="1:1")
    assert len(merged) == len(want) == len(got)
    assert (merged["value_x"] == merged["value_y"]).all()
    return merged


# ---------------------------------------------------------------- promptfoo


@pytest.mark.parametrize("fmt", ["promptfoo", None])
def test_promptfoo_results_json_imports_every_result(fmt: str | None) -> None:
    # results.json is promptfoo's usual output name: a log, not a companion file
    out = read_harness(PROMPTFOO / "results.json", format=fmt)
    assert out.format == "promptfoo"
    want = promptfoo_expected(PROMPTFOO / "results.json", several_prompts=True)
    assert len(want) == 72  # 2 prompts x 2 providers x 6 tests x (pass, score, accuracy)
    compare(out.frame, want)
    assert set(out.frame["benchmark"]) == {"sig_arith"}  # config.description
    assert sorted(out.frame["system"].unique()) == [
        "sigtest/model-a [sentence]", "sigtest/model-a [terse]",
        "sigtest/model-b [sentence]", "sigtest/model-b [terse]"]
    assert detect_format(PROMPTFOO / "results.json") == "promptfoo"


def test_promptfoo_jsonl_names_systems_as_the_json_does(tmp_path: Path) -> None:
    # alone: no results.json beside it
    shutil.copyfile(PROMPTFOO / "results.jsonl", tmp_path / "results.jsonl")
    got = read_harness(tmp_path / "results.jsonl").frame
    want = read_harness(PROMPTFOO / "results.json").frame
    assert sorted(got["system"].unique()) == sorted(want["system"].unique())
    assert "run" not in got or (got["run"] == 0).all()  # the second prompt is no run 1
    # JSON Lines carry no config.description: the benchmark is the file's name
    assert set(got["benchmark"]) == {"results"} and set(want["benchmark"]) == {"sig_arith"}
    columns = [*KEYS[1:4], "value", "prompt", "reference", "output"]
    pd.testing.assert_frame_equal(
        got[columns].sort_values(columns[:3]).reset_index(drop=True),
        want[columns].sort_values(columns[:3]).reset_index(drop=True))


def test_promptfoo_json_and_jsonl_of_one_eval_are_read_once(tmp_path: Path) -> None:
    # `promptfoo eval -o results.json -o results.jsonl` writes the same results (same ids) twice
    want = promptfoo_expected(PROMPTFOO / "results.json", several_prompts=True)
    for name in ("results.json", "results.jsonl"):
        shutil.copyfile(PROMPTFOO / name, tmp_path / name)
    compare(read_harness(tmp_path).frame, want)  # the folder
    compare(read_harness(PROMPTFOO / "results.jsonl").frame, want)  # results.json is its sibling


def test_promptfoo_texts_and_pairing_across_prompts() -> None:
    df = read_harness(PROMPTFOO / "results.json").frame
    results = promptfoo_results(PROMPTFOO / "results.json")
    by_key = {(r["provider"]["label"] + f" [{r['prompt']['label']}]", example_of(r)): r for r in results}
    for row in df.drop_duplicates(["system", "example_id"]).itertuples():
        r = by_key[(row.system, row.example_id)]
        assert row.output == r["response"]["output"]
        assert row.reference == r["testCase"]["assert"][0]["value"]
        # two prompt templates: the example's prompt is its vars, the same for every system
        assert row.prompt == "\n".join(f"{k}: {v}" for k, v in r["vars"].items())
    # the four systems saw the same six examples: all paired, none kept apart
    assert df.groupby("example_id")["system"].nunique().eq(4).all()
    assert df["example_id"].nunique() == 6 and not df["example_id"].str.contains("#").any()


def test_promptfoo_repeat_is_runs_and_one_prompt_keeps_its_text() -> None:
    path = PROMPTFOO / "repeat" / "results.json"
    out = read_harness(path)
    want = promptfoo_expected(path, several_prompts=False)
    merged = compare(out.frame, want)
    assert len(merged) == 36 and sorted(out.frame["run"].unique()) == [0, 1]
    assert set(out.frame["system"]) == {"sigtest/model-a"}
    raw = {example_of(r): r["prompt"]["raw"] for r in promptfoo_results(path)}
    assert (out.frame["prompt"] == out.frame["example_id"].map(raw)).all()  # the rendered prompt
    assert out.frame["output"].notna().all() and out.frame["reference"].notna().all()


# ---------------------------------------------------------------- openai/evals


def oaieval_events(path: Path, kind: str) -> dict[str, dict[str, Any]]:
    lines = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return {e["sample_id"]: e["data"] for e in lines if e.get("type") == kind}


def test_openai_evals_scores_and_texts() -> None:
    df = read_harness(OAIEVAL).frame
    assert len(df) == 12 and set(df["metric"]) == {"correct"}
    for path in sorted(OAIEVAL.glob("*.jsonl")):
        system = json.loads(path.read_text().splitlines()[0])["spec"]["completion_fns"][0]
        mine = df[df["system"] == system].set_index("example_id")
        matches, samplings = oaieval_events(path, "match"), oaieval_events(path, "sampling")
        assert sorted(mine.index) == sorted(matches)
        for sid, match in matches.items():
            assert mine.loc[sid, "value"] == float(match["correct"])
            assert mine.loc[sid, "output"] == match["sampled"]
            expected = match["expected"]
            assert mine.loc[sid, "reference"] == (expected if isinstance(expected, str)
                                                  else "\n".join(expected))
            messages = samplings[sid]["prompt"]
            assert mine.loc[sid, "prompt"] == "\n".join(f"{m['role']}: {m['content']}" for m in messages)
    # the list ideal of question 4, as oaieval wrote it
    assert set(df.loc[df["example_id"] == "sig-arith.dev.3", "reference"]) == {"17\nseventeen"}
