"""Import throughput of engine.harness: a generated lm-eval output directory and an Inspect
log set, each 20 systems × 10 tasks × 1,000 docs (issue #14: each ≤ 10 s).

Timed per format:
  read   = read_harness(dir): parse, map, validate → the long DataFrame;
  store  = ResultsStore.import_frame(frame) into a fresh SQLite store (sqlite:///tmp/…).
Generation is not timed. Run: .venv/bin/python benchmarks/bench_import.py [--docs 1000]
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import tempfile
import time
import zipfile
from pathlib import Path

import numpy as np

from engine.harness import read_harness
from engine.store import open_store

DATE = "2025-03-14T10-22-31.482913"


def make_lm_eval(root: Path, n_sys: int, n_tasks: int, n_docs: int, rng: np.random.Generator) -> None:
    for s in range(n_sys):
        model = f"org/model-{s:02d}"
        d = root / model.replace("/", "__")
        d.mkdir(parents=True)
        tasks = [f"task_{t:02d}" for t in range(n_tasks)]
        (d / f"results_{DATE}.json").write_text(json.dumps({
            "results": {t: {"acc,none": 0.5} for t in tasks},
            "configs": {t: {"task": t, "filter_list": [{"name": "none"}]} for t in tasks},
            "higher_is_better": {t: {"acc": True, "acc_norm": True} for t in tasks},
            "n-shot": dict.fromkeys(tasks, 0), "versions": dict.fromkeys(tasks, 1.0),
            "config": {"model": "hf", "model_args": f"pretrained={model}", "limit": None},
            "model_name": model, "lm_eval_version": "0.4.8"}))
        p = 0.3 + 0.4 * s / n_sys
        for t in tasks:
            acc = rng.random((n_docs, 2)) < p
            lines = []
            for i in range(n_docs):
                doc = {"question": f"Question {i} of {t}?", "choices": ["a", "b", "c", "d"]}
                lines.append(json.dumps({
                    "doc_id": i, "doc": doc, "target": "1",
                    "arguments": {f"gen_args_{k}": {"arg_0": f"Question {i}?\nAnswer:", "arg_1": f" {c}"}
                                  for k, c in enumerate("abcd")},
                    "resps": [[["-1.5", "False"]] for _ in range(4)],
                    "filtered_resps": [["-1.5", "False"] for _ in range(4)],
                    "filter": "none", "metrics": ["acc", "acc_norm"],
                    "doc_hash": hashlib.sha256(f"{t}{i}".encode()).hexdigest(),
                    "prompt_hash": "0" * 64, "target_hash": "1" * 64,
                    "acc": float(acc[i, 0]), "acc_norm": float(acc[i, 1])}))
            (d / f"samples_{t}_{DATE}.jsonl").write_text("\n".join(lines) + "\n")


def make_inspect(root: Path, n_sys: int, n_tasks: int, n_docs: int, rng: np.random.Generator) -> None:
    root.mkdir(parents=True)
    for s in range(n_sys):
        model = f"org/model-{s:02d}"
        p = 0.3 + 0.4 * s / n_sys
        for t in range(n_tasks):
            spec = {"task": f"task_{t:02d}", "model": model, "created": f"2025-03-14T10:{s:02d}:00",
                    "config": {"epochs": 1}, "packages": {"inspect_ai": "0.3.154"}}
            correct = rng.random(n_docs) < p
            samples = [{"id": i + 1, "epoch": 1, "input": f"Question {i}?", "target": "C",
                        "scores": {"choice": {"value": "C" if correct[i] else "I", "answer": "C",
                                              "explanation": "ANSWER: C"}},
                        "metadata": {}, "total_time": 1.2} for i in range(n_docs)]
            buf = io.BytesIO()
            with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
                z.writestr("_journal/start.json", json.dumps({"version": 2, "eval": spec}))
                for smp in samples:
                    z.writestr(f"samples/{smp['id']}_epoch_1.json",
                               json.dumps({**smp, "messages": [{"role": "user", "content": "Q"}]}))
                z.writestr("summaries.json", json.dumps(samples))
                z.writestr("header.json", json.dumps({"version": 2, "status": "success", "eval": spec,
                                                      "plan": {"steps": [{"solver": "multiple_choice"}]}}))
            (root / f"2025-03-14T10-{s:02d}-00_task-{t:02d}_{s}{t}.eval").write_bytes(buf.getvalue())


def timed(label: str, root: Path, tmp: Path) -> tuple[float, float]:
    t0 = time.perf_counter()
    result = read_harness(root)
    t_read = time.perf_counter() - t0
    store = open_store(f"sqlite:///{tmp / (label + '.db')}")
    metrics = {m: spec for (_, m), spec in result.specs.items()}
    t0 = time.perf_counter()
    report = store.import_frame(result.frame, filename=root.name, metrics=metrics)
    t_store = time.perf_counter() - t0
    store.close()
    print(f"{label:8s} {len(result.frame):>9,d} rows  read+validate {t_read:6.2f} s "
          f"({len(result.frame) / t_read:,.0f} rows/s)  store import {t_store:6.2f} s  "
          f"total {t_read + t_store:6.2f} s  read {'≤' if t_read <= 10 else '>'} 10 s, "
          f"read+store {'≤' if t_read + t_store <= 10 else '>'} 10 s")
    print(f"         {result.report()}")
    print(f"         {report.message}")
    return t_read, t_store


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--systems", type=int, default=20)
    parser.add_argument("--tasks", type=int, default=10)
    parser.add_argument("--docs", type=int, default=1000)
    args = parser.parse_args()
    rng = np.random.default_rng(14)
    with tempfile.TemporaryDirectory() as tmpdir:
        tmp = Path(tmpdir)
        t0 = time.perf_counter()
        make_lm_eval(tmp / "lm_eval_out", args.systems, args.tasks, args.docs, rng)
        make_inspect(tmp / "inspect_logs", args.systems, args.tasks, args.docs, rng)
        size = sum(p.stat().st_size for p in tmp.rglob("*") if p.is_file()) / 2**20
        print(f"generated {args.systems} systems × {args.tasks} tasks × {args.docs} docs per format "
              f"({size:,.0f} MB on disk) in {time.perf_counter() - t0:.1f} s (not timed below)")
        timed("lm-eval", tmp / "lm_eval_out", tmp)
        timed("inspect", tmp / "inspect_logs", tmp)


if __name__ == "__main__":
    main()
