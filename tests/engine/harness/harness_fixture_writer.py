"""Writes tests/data/harness-logs/{edge_cases,malformed}/.

Run: .venv/bin/python tests/engine/harness/harness_fixture_writer.py

Small, deterministic fixtures for the edge cases FORMATS.md describes and for malformed logs.
Some are derived from the copied harness fixtures (e.g. the legacy lm-eval file is the v0.4.8
gsm8k file with its ``filter``/``metrics`` keys removed, so both must import to the same rows).
Tests only read what this script wrote; they never run it.
"""

from __future__ import annotations

import io
import json
import shutil
import zipfile
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

DATA = Path(__file__).resolve().parents[2] / "data" / "harness-logs"
EDGE = DATA / "edge_cases"
BAD = DATA / "malformed"
DATE = "2025-04-01T09-00-00.000001"
LLAMA = "meta-llama__Llama-3.1-8B-Instruct"


def _write(path: Path, content: str | bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")


def _jsonl(rows: list[dict]) -> str:
    return "".join(json.dumps(r) + "\n" for r in rows)


def _results(model: str, task: str, filters: list[str], *, hib: dict, date: str = DATE,
             repeats: int = 1, fewshot: int = 0) -> str:
    return json.dumps({
        "results": {task: {"alias": task}}, "configs": {task: {
            "task": task, "repeats": repeats, "num_fewshot": fewshot,
            "filter_list": [{"name": f, "filter": []} for f in filters]}},
        "versions": {task: 1.0}, "n-shot": {task: fewshot}, "higher_is_better": {task: hib},
        "config": {"model": "hf", "model_args": f"pretrained={model}", "limit": 4.0},
        "model_name": model, "model_name_sanitized": model.replace("/", "__"),
        "chat_template_sha": None, "lm_eval_version": "0.4.8", "date": 0.0}, indent=2)


def _line(doc_id: int, **metrics: object) -> dict:
    return {"doc_id": doc_id, "doc": {"q": f"question {doc_id}"}, "target": "1",
            "arguments": {"gen_args_0": {"arg_0": "Q:", "arg_1": {"until": ["\n"]}}},
            "resps": [["x"]], "filtered_resps": ["x"], "doc_hash": f"h{doc_id}",
            "prompt_hash": "p", "target_hash": "t", **metrics}


def lm_eval_edges() -> None:
    # 1. v0.4.3–0.4.6 lines without filter/metrics: the real v0.4.8 fixture, keys removed
    src = DATA / "lm_eval" / LLAMA
    out = EDGE / "lm_eval_legacy_no_filter" / LLAMA
    for f in src.glob("*gsm8k*"):
        _write(out / f.name, _jsonl([{k: v for k, v in json.loads(line).items()
                                       if k not in ("filter", "metrics")}
                                      for line in f.read_text().splitlines()]))
    shutil.copy(next(src.glob("results_*.json")), out)
    # 2. v0.4.0–0.4.2: a pretty-printed JSON array named after model_args, beside results.json
    out = EDGE / "lm_eval_json_array"
    lines = [_line(i, acc=float(i % 2), acc_norm=float(i % 3 == 0)) for i in range(4)]
    _write(out / "pretrained__EleutherAI__pythia-160m_arc_easy.jsonl", json.dumps(lines, indent=2))
    res = json.loads(_results("x", "arc_easy", ["none"], hib={"acc": True, "acc_norm": True}))
    res.pop("model_name")  # v0.4.0 has no model_name: the system comes from model_args
    res["config"]["model_args"] = "pretrained=EleutherAI/pythia-160m"
    _write(out / "results.json", json.dumps(res, indent=2))
    # 3. repeats collapsed by filters: maj@k are metrics, not runs
    out = EDGE / "lm_eval_repeats" / LLAMA
    task, filters = "gsm8k_cot_self_consistency", ["score-first", "maj@64", "maj@8"]
    rows = []
    for f_i, filt in enumerate(filters):
        for d in range(3):
            line = _line(d, exact_match=float((d + f_i) % 2))
            line.update(filter=filt, metrics=["exact_match"], resps=[[str(k) for k in range(64)]])
            rows.append(line)
    _write(out / f"samples_{task}_{DATE}.jsonl", _jsonl(rows))
    _write(out / f"results_{DATE}.json", _results("meta-llama/Llama-3.1-8B-Instruct", task, filters,
                                                  hib={"exact_match": True}, repeats=64))
    # 4. bool and list metrics (ifeval), no results json: system from the directory name
    out = EDGE / "lm_eval_ifeval_no_results" / "Qwen__Qwen2.5-7B-Instruct"
    rows = [dict(_line(d, prompt_level_strict_acc=d != 1,
                       inst_level_strict_acc=[True, d == 0]), filter="none",
                 metrics=["prompt_level_strict_acc", "inst_level_strict_acc"]) for d in range(3)]
    rows[2]["prompt_level_strict_acc"] = None  # --predict_only style null
    _write(out / f"samples_ifeval_{DATE}.jsonl", _jsonl(rows))


def _sample(sid: object, epoch: int, scores: dict, **extra: object) -> dict:
    return {"id": sid, "epoch": epoch, "input": f"input {sid}", "target": "A",
            "scores": {k: {"value": v} for k, v in scores.items()}, **extra}


def _eval_zip(members: dict[str, object]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for name, obj in members.items():
            z.writestr(name, obj if isinstance(obj, str | bytes) else json.dumps(obj))
    return buf.getvalue()


def _spec(task: str, model: str, created: str = "2025-04-01T09:00:00+00:00") -> dict:
    return {"task": task, "model": model, "created": created, "config": {"epochs": 2},
            "packages": {"inspect_ai": "0.3.154"}, "model_generate_config": {}}


def inspect_edges() -> None:
    out = EDGE / "inspect_epochs_dict"
    for model, bias in (("openai/gpt-4o-mini", 0), ("anthropic/claude-3-5-haiku", 1)):
        samples = [_sample(f"q{i}", e, {"rubric": {"correctness": (i + e + bias) % 2, "style": 0.5},
                                        "match": "C" if (i + bias) % 2 else "I"})
                   for i in range(3) for e in (1, 2)]
        samples[0]["scores"]["rubric"]["value"]["style"] = None  # an older log's null leaf
        log = {"version": 2, "status": "success", "eval": _spec("qa", model),
               "plan": {"steps": [{"solver": "generate"}]}, "samples": samples}
        _write(out / f"{model.split('/')[1]}.json", json.dumps(log, indent=1))
    # an unfinished .eval (journal only, no summaries): samples read one by one,
    # a list-valued scorer, an unscorable string, and a sample re-logged (the last one wins)
    members: dict[str, object] = {"_journal/start.json": {"version": 2, "eval": _spec("qa", "google/gemini")}}
    for i in range(3):
        for e in (1, 2):
            members[f"samples/q{i}_epoch_{e}.json"] = _sample(
                f"q{i}", e, {"rubric": {"correctness": 1, "style": 1.0}, "match": "P",
                             "multi": [1, 0], "judge": "unclear"})
    data = _eval_zip(members)
    buf = io.BytesIO(data)
    with zipfile.ZipFile(buf, "a") as z:  # re-logged sample: same member name, newer content
        with_warn = _sample("q0", 1, {"rubric": {"correctness": 0, "style": 0.0}, "match": "I",
                                      "multi": [0, 0], "judge": "unclear"})
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            z.writestr("samples/q0_epoch_1.json", json.dumps(with_warn))
    _write(out / "gemini-unfinished.eval", buf.getvalue())


def helm_edges() -> None:
    base = EDGE / "helm_trials_perturbations" / "benchmark_output" / "runs" / "v1"
    name = "mmlu:subject=anatomy,method=multiple_choice_joint,data_augmentation=robustness"
    for model, bias in (("openai/gpt-4o-mini", 0), ("meta/llama-3.1-8b", 1)):
        run = base / f"{name},model={model.replace('/', '_')}"
        _write(run / "run_spec.json", json.dumps({
            "name": f"{name},model={model.replace('/', '_')}",
            "adapter_spec": {"model": model, "num_train_trials": 3, "method": "multiple_choice_joint"},
            "metric_specs": [{"class_name": "x", "args": {"names": ["exact_match"]}}]}))
        entries = []
        for trial in range(3):
            for i in range(2):
                for pert in (None, {"name": "mild_mix", "robustness": True, "computed_on": "perturbed"}):
                    v = float((i + trial + bias + (pert is not None)) % 2)
                    stats = [{"name": {"name": "exact_match", "split": "test"}, "count": 1, "sum": v,
                              "mean": v},
                             {"name": {"name": "num_prompt_tokens", "split": "test"}, "count": 1,
                              "sum": 400, "mean": 400},
                             {"name": {"name": "f1_score", "split": "valid"}, "count": 0, "sum": 0}]
                    entry = {"instance_id": f"id{i}", "train_trial_index": trial, "stats": stats}
                    if pert:
                        entry["perturbation"] = pert
                        for s in stats:
                            s["name"]["perturbation"] = pert
                    entries.append(entry)
        _write(run / "per_instance_stats.json", json.dumps(entries, indent=2))


def lighteval_edges() -> None:
    # ≤ v0.10 flat columns: no id; metrics in a struct column; bleu holds corpus inputs (lists)
    for model, bias in (("org/model-a", 0), ("org/model-b", 1)):
        out = EDGE / "lighteval_legacy_flat" / "details" / model / DATE
        queries = [f"Question: q{i}\nAnswer:" for i in range(3)]
        table = pa.table({
            "example": queries, "instruction": [""] * 3, "full_prompt": queries,
            "num_effective_few_shots": [5] * 3, "num_asked_few_shots": [5] * 3,
            "predictions": [["x"]] * 3, "gold": [["y"]] * 3,
            "metrics": [{"qem": float((i + bias) % 2), "bleu": ["y", "x"]} for i in range(3)],
            "specifics": [{"k": "v"}] * 3})
        out.mkdir(parents=True, exist_ok=True)
        pq.write_table(table, out / f"details_lighteval|gsm8k|5_{DATE}.parquet")


def malformed() -> None:
    shutil.rmtree(BAD, ignore_errors=True)
    good = next((DATA / "inspect").glob("*.eval")).read_bytes()
    _write(BAD / "truncated.eval", good[: len(good) * 3 // 5])
    _write(BAD / "no_header.eval", _eval_zip({"samples/1_epoch_1.json": _sample(1, 1, {"m": 1})}))
    _write(BAD / "bad_member.eval", _eval_zip({"header.json": {"version": 2, "status": "started",
                                                               "eval": _spec("t", "m")},
                                               "samples/1_epoch_1.json": "{not json"}))
    _write(BAD / "inspect_no_model.json", json.dumps({"version": 2, "status": "success",
                                                      "eval": {"task": "t"}, "samples": []}))
    line = json.dumps(dict(_line(0, acc=1.0), filter="none", metrics=["acc"]))
    _write(BAD / "lm_eval_bad_line" / "m" / f"samples_arc_easy_{DATE}.jsonl",
           line + '\n{"doc_id": 1, "do\n')  # cut off mid-line
    d = BAD / "lm_eval_mismatched_results" / "m"
    _write(d / f"samples_gsm8k_{DATE}.jsonl", line + "\n")
    _write(d / f"results_{DATE}.json", _results("org/m", "arc_easy", ["none"], hib={"acc": True}))
    d = BAD / "lm_eval_all_lists" / "m"
    _write(d / f"samples_mmlu_{DATE}.jsonl", _jsonl([dict(_line(i, f1=[1, 0], mcc=[0, 1]), filter="none",
                                                           metrics=["f1", "mcc"]) for i in range(3)]))
    _write(d / f"results_{DATE}.json", _results("org/m", "mmlu", ["none"], hib={"f1": True}))
    _write(BAD / "lm_eval_legacy_no_results" / "m" / f"samples_gsm8k_{DATE}.jsonl",
           _jsonl([_line(i, exact_match=1.0) for i in (0, 1, 0, 1)]))
    _write(BAD / "not_lm_eval.jsonl", _jsonl([{"question": "q", "answer": "a"}]))
    d = BAD / "lighteval_missing_columns" / "details" / "org" / "m" / DATE
    d.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.table({"doc": [{"id": "0", "query": "q"}], "model_response": [{"text": ["a"]}]}),
                   d / f"details_gsm8k|5_{DATE}.parquet")
    _write(BAD / "lighteval_not_parquet" / "details" / "org" / "m" / DATE / f"details_gsm8k|5_{DATE}.parquet",
           b"PAR1 this is not really parquet")
    _write(BAD / "helm_no_run_spec" / "runs" / "v1" / "mmlu,model=m" / "per_instance_stats.json",
           json.dumps([{"instance_id": "id0", "train_trial_index": 0, "stats": []}]))
    d = BAD / "helm_bad_entry" / "runs" / "v1" / "mmlu,model=m"
    _write(d / "per_instance_stats.json", json.dumps([{"train_trial_index": 0, "stats": []}]))
    _write(d / "run_spec.json", json.dumps({"name": "mmlu,model=m", "adapter_spec": {"model": "o/m"}}))
    _write(BAD / "openai_evals_no_spec.jsonl", _jsonl([{"run_id": "r", "event_id": 0, "sample_id": "s.0",
                                                       "type": "match", "data": {"correct": True}}]))
    _write(BAD / "promptfoo_no_provider.json", json.dumps({"evalId": "e", "results": {
        "version": 3, "results": [{"testCase": {"description": "t1"}, "success": True, "score": 1}]}}))
    mixed = BAD / "mixed_harnesses"
    _write(mixed / "m" / f"samples_arc_easy_{DATE}.jsonl", line + "\n")
    shutil.copy(DATA / "promptfoo" / "output.json", mixed / "output.json")
    _write(BAD / "companions_only" / "m" / f"results_{DATE}.json",
           _results("org/m", "arc_easy", ["none"], hib={"acc": True}))


def write_fixtures() -> None:
    shutil.rmtree(EDGE, ignore_errors=True)
    lm_eval_edges()
    inspect_edges()
    helm_edges()
    lighteval_edges()
    malformed()


if __name__ == "__main__":
    write_fixtures()
    print(f"wrote {EDGE} and {BAD}")
