"""lm-eval 0.4.13 logs (tests/data/harness-logs-real/lm_eval/, README there; written by
scripts/harness_runs/lm_eval_run.py, groups perplexity, mutual_info and naming).

Reference values: what lm-eval itself wrote, in the same folders: the aggregates of its
``results_*.json`` (perplexity, word_perplexity, chat_template_sha, …) and the per-sample
``resps`` and ``acc_mutual_info`` of its ``samples_*.jsonl``.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from engine import build_matrix
from engine.harness import read_harness
from engine.products._leaderboard import leaderboard

LM = Path(__file__).resolve().parents[2] / "data" / "harness-logs-real" / "lm_eval"
HEX64 = re.compile(r"[0-9a-f]{64}")


def _results(folder: Path) -> dict[str, dict[str, Any]]:
    """model_name → the results json lm-eval wrote for it (one invocation per model)."""
    out = {}
    for path in sorted(folder.glob("*/results_*.json")):
        res = json.loads(path.read_text())
        out[res["model_name"]] = res
    return out


def _samples(folder: Path, task: str) -> dict[str, list[dict[str, Any]]]:
    out = {}
    for path in sorted(folder.glob(f"*/samples_{task}_*.jsonl")):
        model = path.parent.name.replace("__", "/")
        out[model] = [json.loads(line) for line in path.read_text().splitlines()]
    return out


# ---------------------------------------------------------------- perplexity


@pytest.mark.parametrize(("task", "aggregate"), [("sig_lambada", "perplexity,none"),
                                                 ("sig_wiki", "word_perplexity,none")])
def test_the_model_lm_eval_reports_at_lower_perplexity_ranks_first(task: str, aggregate: str) -> None:
    result = read_harness(LM / "perplexity")
    assert result.specs[(task, "loglikelihood")].higher_is_better is True
    df = result.frame
    assert not df["metric"].str.contains("perplexity").any()
    reported = {m: r["results"][task][aggregate] for m, r in _results(LM / "perplexity").items()}
    assert len(set(reported.values())) == 2  # the premise: the two models differ
    matrix = build_matrix(df, benchmark=task, metric="loglikelihood",
                          spec=result.specs[(task, "loglikelihood")])
    table = leaderboard(matrix, bt_resamples=0).table.sort_values("rank")
    assert list(table["system"]) == sorted(reported, key=reported.__getitem__)


def test_loglikelihood_task_values_are_lm_evals_and_give_back_its_perplexity() -> None:
    df = read_harness(LM / "perplexity").frame
    got = df[(df["benchmark"] == "sig_lambada") & (df["metric"] == "loglikelihood")]
    for model, res in _results(LM / "perplexity").items():
        mine = got[got["system"] == model].set_index("example_id")["value"]
        lines = _samples(LM / "perplexity", "sig_lambada")[model]
        # per sample lm-eval writes perplexity = the target's log-likelihood, resps[0][0][0]
        assert {str(r["doc_id"]): r["perplexity"] for r in lines} == mine.to_dict()
        assert all(float(r["resps"][0][0][0]) == r["perplexity"] for r in lines)
        # lm-eval's aggregate perplexity is exp(-mean log-likelihood)
        assert math.isclose(math.exp(-mine.mean()), res["results"]["sig_lambada"]["perplexity,none"],
                            rel_tol=1e-12)


def test_rolling_task_gives_one_loglikelihood_per_doc_and_lm_evals_word_perplexity() -> None:
    result = read_harness(LM / "perplexity")
    df = result.frame
    got = df[df["benchmark"] == "sig_wiki"]
    assert set(got["metric"]) == {"loglikelihood"}
    assert result.skipped.empty  # the [ll, n] lists are read, not skipped as corpus inputs
    for model, res in _results(LM / "perplexity").items():
        lines = _samples(LM / "perplexity", "sig_wiki")[model]
        mine = got[got["system"] == model].set_index("example_id")["value"]
        assert mine.to_dict() == {str(r["doc_id"]): r["word_perplexity"][0] for r in lines}
        words = sum(r["word_perplexity"][1] for r in lines)
        # lm-eval's weighted_perplexity: exp(-sum ll / sum words)
        assert math.isclose(math.exp(-mine.sum() / words),
                            res["results"]["sig_wiki"]["word_perplexity,none"], rel_tol=1e-12)
    assert any(d.startswith("sig_wiki: lm-eval's per-example [loglikelihood, count]")
               for d in result.decisions)


# ---------------------------------------------------------------- acc_mutual_info


def test_mutual_info_output_is_the_choice_lm_eval_picked() -> None:
    df = read_harness(LM / "mutual_info").frame
    assert len(df) == 16
    # lm-eval scores acc_mutual_info 1 exactly when its pick is the gold choice
    assert ((df["output"] == df["reference"]) == (df["value"] == 1.0)).all()
    for model, lines in _samples(LM / "mutual_info", "sig_mutual").items():
        mine = df[df["system"] == model].set_index("example_id")["output"]
        for r in lines:
            n = len(r["doc"]["choices"])
            assert len(r["resps"]) == 2 * n  # n conditional, then n unconditional ("", choice)
            ll = [float(x[0][0]) for x in r["resps"]]
            pick = int(np.argmax([c - u for c, u in zip(ll[:n], ll[n:], strict=True)]))
            assert mine[str(r["doc_id"])] == r["doc"]["choices"][pick]


def test_plain_multiple_choice_output_is_still_the_conditional_argmax() -> None:
    df = read_harness(LM / "naming" / "sigtest__model-b").frame
    acc = df[df["metric"] == "acc"]
    assert ((acc["output"] == acc["reference"]) == (acc["value"] == 1.0)).all()


# ---------------------------------------------------------------- system names


def test_variants_are_named_by_what_differs_with_short_hashes() -> None:
    result = read_harness(LM / "naming")
    df = result.frame
    by_sha: dict[tuple[str | None, str | None], str] = {}
    for path in sorted((LM / "naming").glob("*/results_*.json")):
        res = json.loads(path.read_text())
        by_sha[(res["chat_template_sha"], res["system_instruction_sha"])] = res["model_name"]
    chat = next(c for c, _ in by_sha if c)
    system = next(s for _, s in by_sha if s)
    assert HEX64.fullmatch(chat) and HEX64.fullmatch(system)
    assert set(df["system"]) == {
        "sigtest/model-a", "sigtest/model-b",
        f"sigtest/model-a [chat_template_sha={chat[:8]}]",
        f"sigtest/model-a [chat_template_sha={chat[:8]}, system_instruction_sha={system[:8]}]"}
    # the full settings one click away: the system's columns
    full = df.drop_duplicates("system").set_index("system")
    assert full.loc[f"sigtest/model-a [chat_template_sha={chat[:8]}]", "chat_template_sha"] == chat
    named = f"sigtest/model-a [chat_template_sha={chat[:8]}, system_instruction_sha={system[:8]}]"
    assert full.loc[named, "system_instruction_sha"] == system
    assert full.loc[named, "fewshot_as_multiturn"] == True  # noqa: E712 - the column holds True
    assert "sigtest/model-a: invocations with other settings are 3 systems" in result.report()


def test_a_setting_left_unset_is_not_named_default() -> None:
    df = read_harness(LM / "out").frame
    assert set(df["system"]) == {"sigtest/model-a", "sigtest/model-a [temperature=0.7]",
                                 "sigtest/model-b"}
    assert not df["system"].str.contains("default").any()
