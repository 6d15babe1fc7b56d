"""Malformed harness logs: each rejected with its own DataContractError naming file, rule and fix.

Fixtures: tests/data/harness-logs/malformed/ (harness_fixture_writer.py says how each was made).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from engine import DataContractError
from engine.harness import read_harness

BAD = Path(__file__).resolve().parents[2] / "data" / "harness-logs" / "malformed"

#: fixture, forced format, the file the problem must name, a fragment of its rule
CASES = [
    ("truncated.eval", None, "truncated.eval", "zip archive is truncated or corrupt"),
    ("no_header.eval", None, "no_header.eval", "neither header.json nor _journal/start.json"),
    ("bad_member.eval", None, "bad_member.eval", "samples/1_epoch_1.json is not valid JSON"),
    ("inspect_no_model.json", None, "inspect_no_model.json", "the log has no eval.model"),
    ("lm_eval_bad_line", None, "samples_arc_easy_", "line 2 is not valid JSON"),
    ("lm_eval_mismatched_results", None, "results_2025-04-01", "no entry for task 'gsm8k'"),
    ("lm_eval_all_lists", None, "lm_eval_all_lists", "nothing usable to import (6 values skipped: "
     "3 lists in metric f1 (corpus-level inputs, not scores)"),
    ("lm_eval_legacy_no_results", None, "samples_gsm8k_", "doc_id 0 appears 2 times"),
    ("not_lm_eval.jsonl", "lm-eval", "not_lm_eval.jsonl", "line 1 has no doc_id"),
    ("lighteval_missing_columns", None, "details_gsm8k|5_", "without column(s) metric"),
    ("lighteval_not_parquet", None, "details_gsm8k|5_", "not a readable Parquet file"),
    ("helm_no_run_spec", None, "per_instance_stats.json", "run_spec.json is missing"),
    ("helm_bad_entry", None, "per_instance_stats.json", "entry 1 has no instance_id or stats"),
    ("openai_evals_no_spec.jsonl", "openai-evals", "openai_evals_no_spec.jsonl",
     'the first line is not a {"spec": …}'),
    ("promptfoo_no_provider.json", None, "promptfoo_no_provider.json", "result 1 has no provider"),
    ("mixed_harnesses", None, "mixed_harnesses", "logs of several harnesses in one upload"),
    ("companions_only", None, "companions_only", "no harness log or results table found"),
]


@pytest.mark.parametrize(("fixture", "fmt", "file", "rule"), CASES, ids=[c[0] for c in CASES])
def test_harness_malformed_log_is_rejected_with_its_message(fixture: str, fmt: str | None,
                                                            file: str, rule: str) -> None:
    with pytest.raises(DataContractError) as info:
        read_harness(BAD / fixture, format=fmt)
    (problem,) = info.value.problems
    assert file in problem.source
    assert rule in problem.rule
    assert problem.fix and problem.fix[0].islower()  # a fix a person can follow


def test_harness_malformed_messages_are_distinct() -> None:
    rules = []
    for fixture, fmt, _, _ in CASES:
        with pytest.raises(DataContractError) as info:
            read_harness(BAD / fixture, format=fmt)
        rules.append(info.value.problems[0].rule.split("(")[0])
    assert len(set(rules)) == len(rules)


def test_harness_truncated_eval_bytes_without_a_name() -> None:
    data = (BAD / "truncated.eval").read_bytes()
    with pytest.raises(DataContractError, match="truncated or corrupt"):
        read_harness(data)


def test_harness_missing_path() -> None:
    with pytest.raises(DataContractError, match="no such file or directory"):
        read_harness(BAD / "does-not-exist")
