"""HELM's and lm-eval's usage read from logs the real tools wrote (tests/data/harness-logs-real/:
crfm-helm 0.5.16, lm-eval 0.4.13; see the VERSIONS.txt beside each).

HELM's per_instance_stats.json holds each instance's efficiency stats
(helm/benchmark/metrics/efficiency_metrics.py): the reference values are the stats' sums, read
in the test from the raw JSON HELM wrote, and one instance's written out by hand. lm-eval
0.4.13 records no per-example usage (only a run's total_evaluation_time_seconds in its
results file): its import with usage is its import without.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from engine.harness import read_harness

REAL = Path(__file__).resolve().parents[2] / "data" / "harness-logs-real"
HELM = REAL / "helm" / "v1"
USAGE = {"num_prompt_tokens": "tokens_in", "num_completion_tokens": "tokens_out",
         "inference_runtime": "latency_s"}
KEY = ["benchmark", "system", "example_id", "run", "metric"]


def _raw_usage() -> dict[tuple[str, str, str, int, str], float]:
    """(model, benchmark, instance, trial, metric) -> the stat's sum, from the raw files."""
    out = {}
    for stats in sorted(HELM.glob("*/per_instance_stats.json")):
        model = json.loads((stats.parent / "run_spec.json").read_text())["adapter_spec"]["model"]
        for entry in json.loads(stats.read_text()):
            for stat in entry["stats"]:
                name = stat["name"]["name"]
                if name in USAGE and stat["count"]:
                    out[(model, stats.parent.name.split(":")[0].split(",")[0], entry["instance_id"],
                         entry["train_trial_index"], USAGE[name])] = float(stat["sum"])
    return out


def test_helm_usage_exact_against_the_raw_stats() -> None:
    got = read_harness(HELM, usage=True)
    usage = got.frame[got.frame["metric"].isin(USAGE.values())]
    found = {(s, b.split(":")[0], e, int(r), m): float(v) for b, s, e, r, m, v in
             usage[[*KEY, "value"]].itertuples(index=False)}
    assert found == {(m, b, i, t, k): v for (m, b, i, t, k), v in _raw_usage().items()}
    assert len(found) == 4 * 6 * 3  # 4 runs x 6 instances x 3 usage metrics
    # by hand from simple_mcqa:model=sigtest_model-b/per_instance_stats.json, instance id60
    one = usage[(usage["benchmark"] == "simple_mcqa") & (usage["system"] == "sigtest/model-b")
                & (usage["example_id"] == "id60")].set_index("metric")["value"]
    assert one["tokens_in"] == 385.0 and one["tokens_out"] == 1.0
    assert one["latency_s"] == 6.198883056640625e-05
    for (bench, metric), spec in got.specs.items():
        assert metric in USAGE.values() and spec.higher_is_better is False, (bench, metric)


def test_helm_scores_unchanged_and_first() -> None:
    plain = read_harness(HELM).frame
    got = read_harness(HELM, usage=True).frame
    scores = got[~got["metric"].isin(USAGE.values())].reset_index(drop=True)
    pd.testing.assert_frame_equal(scores[[*KEY, "value"]], plain[[*KEY, "value"]])
    assert got["metric"].iloc[0] == plain["metric"].iloc[0]  # a score leads, never a usage metric
    assert not set(plain["metric"]) & set(USAGE.values())


def test_lm_eval_records_no_usage() -> None:
    folder = REAL / "lm_eval" / "out"
    plain, got = read_harness(folder).frame, read_harness(folder, usage=True).frame
    pd.testing.assert_frame_equal(got, plain)


def test_usage_rows_after_every_score_row() -> None:
    """Inspect appends a sample's usage beside its first scorer: the import puts every usage
    row after the scores, so an upload's first (benchmark, metric) is a score."""
    from engine._contract import USAGE_METRICS

    for folder in (REAL / "inspect" / "eval", REAL / "promptfoo", HELM):
        frame = read_harness(folder, usage=True).frame
        usage = frame["metric"].isin(USAGE_METRICS).to_numpy()
        assert usage.any() and not usage[: int(usage.argmax())].any()
        assert usage[int(usage.argmax()):].all(), folder
        assert frame.index.is_unique
