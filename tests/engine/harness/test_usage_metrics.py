"""Usage (tokens, times, cost) read as lower-is-better metrics from logs the real tools wrote.

Every reference value is read in the test from the raw JSON the tool wrote, in
tests/data/harness-logs-real/ (inspect_ai 0.3.285 with its mockllm model, promptfoo 0.123.1
with its echo-style provider: see the VERSIONS.txt beside each).
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd

from engine.harness import read_harness
from engine.harness._usage import read_with_usage
from engine.io._zip import member_bytes

REAL = Path(__file__).resolve().parents[2] / "data" / "harness-logs-real"


def _eval_samples(path: Path) -> list[dict]:
    data = path.read_bytes()
    archive = zipfile.ZipFile(path)
    return [json.loads(member_bytes(data, archive, i, path.name)) for i in archive.infolist()
            if i.filename.startswith("samples/") and i.filename.endswith(".json")]


def _values(frame: pd.DataFrame, metric: str) -> list[float]:
    return sorted(frame.loc[frame["metric"] == metric, "value"].astype(float))


def test_inspect_eval_times_per_sample_exact_and_scores_unchanged() -> None:
    folder = REAL / "inspect" / "eval"
    got = read_with_usage(folder)
    raw = [s for p in sorted(folder.glob("*.eval")) for s in _eval_samples(p) if s.get("scores")]
    assert len(raw) == 48  # 96 score rows / 2 scorers (test_harness_real_logs)
    assert _values(got.frame, "latency_s") == sorted(float(s["total_time"]) for s in raw)
    assert _values(got.frame, "working_s") == sorted(float(s["working_time"]) for s in raw)
    # mockllm records no token counts (model_usage is {}): no token metric, never 0
    assert not set(got.frame["metric"]) & {"tokens_in", "tokens_out", "cost"}
    scores = got.frame[~got.frame["metric"].isin(["latency_s", "working_s"])]
    plain = read_harness(folder).frame
    key = ["system", "example_id", "run", "metric"]
    pd.testing.assert_frame_equal(scores.sort_values(key).reset_index(drop=True)[[*key, "value"]],
                                  plain.sort_values(key).reset_index(drop=True)[[*key, "value"]])
    assert got.specs[("arith", "latency_s")].higher_is_better is False
    assert ("arith", "match") not in got.specs or got.specs[("arith", "match")].higher_is_better


def test_inspect_json_latency_by_sample_and_epoch() -> None:
    folder = REAL / "inspect" / "json"
    got = read_with_usage(folder).frame
    lat = got[got["metric"] == "latency_s"]
    for path in sorted(folder.glob("*.json")):
        log = json.loads(path.read_text())
        model = log["eval"]["model"]
        for s in log["samples"]:
            cell = lat[(lat["system"].str.startswith(model)) & (lat["example_id"] == s["id"])
                       & (lat["run"] == s["epoch"])]["value"]
            assert float(s["total_time"]) in set(cell.astype(float)), (path.name, s["id"])


def test_inspect_model_usage_summed_over_models(tmp_path: Path) -> None:
    # the real capitals log, its first sample given the model_usage Inspect writes for a
    # model that reports usage (ModelUsage fields, inspect_ai/model/_model_output.py)
    src = sorted((REAL / "inspect" / "json").glob("*.json"))[0]
    log = json.loads(src.read_text())
    log["samples"][0]["model_usage"] = {
        "a/m1": {"input_tokens": 120, "output_tokens": 7, "total_tokens": 127, "total_cost": 0.25},
        "a/grader": {"input_tokens": 30, "output_tokens": 3, "total_tokens": 33, "total_cost": 0.5}}
    (tmp_path / src.name).write_text(json.dumps(log))
    frame = read_with_usage(tmp_path / src.name).frame
    first = frame[(frame["example_id"] == log["samples"][0]["id"])
                  & (frame["run"] == log["samples"][0]["epoch"])]
    got = dict(zip(first["metric"], first["value"].astype(float), strict=False))
    assert got["tokens_in"] == 150.0 and got["tokens_out"] == 10.0 and got["cost"] == 0.75
    other = frame[frame["example_id"] != log["samples"][0]["id"]]
    assert "tokens_in" not in set(other["metric"])  # the other samples record no usage


def test_promptfoo_cost_latency_tokens_exact() -> None:
    path = REAL / "promptfoo" / "results.json"
    got = read_with_usage(path)
    raw = [r for r in json.loads(path.read_text())["results"]["results"] if r.get("failureReason") != 2]
    assert _values(got.frame, "cost") == sorted(float(r["cost"]) for r in raw)
    assert _values(got.frame, "latency_ms") == sorted(float(r["latencyMs"]) for r in raw)
    assert _values(got.frame, "tokens_in") == sorted(
        float(r["response"]["tokenUsage"]["prompt"]) for r in raw)
    assert _values(got.frame, "tokens_out") == sorted(
        float(r["response"]["tokenUsage"]["completion"]) for r in raw)
    bench = next(iter(got.frame["benchmark"].unique()))
    for metric in ("cost", "latency_ms", "tokens_in", "tokens_out"):
        assert got.specs[(bench, metric)].higher_is_better is False
    n_plain = len(read_harness(path).frame)
    assert len(got.frame) == n_plain + 4 * len(raw)


def test_promptfoo_jsonl_same_usage_as_json() -> None:
    a = read_with_usage(REAL / "promptfoo" / "results.json").frame
    b = read_with_usage(REAL / "promptfoo" / "results.jsonl").frame
    for metric in ("latency_ms", "cost"):
        np.testing.assert_array_equal(_values(a, metric), _values(b, metric))


def test_default_import_has_no_usage_metrics() -> None:
    for path in (REAL / "promptfoo" / "results.json", REAL / "inspect" / "json"):
        metrics = set(read_harness(path).frame["metric"])
        assert not metrics & {"cost", "latency_ms", "latency_s", "working_s", "tokens_in"}
