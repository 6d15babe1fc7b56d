"""Import throughput of engine.harness: a generated lm-eval output directory and an Inspect
log set, each 20 systems × 10 tasks × 1,000 docs (target: each ≤ 10 s into SQLite).

Timed per format, each measurement in a fresh process (so one does not warm the other):
  read   = read_harness(dir): parse, map, validate → the long DataFrame;
  store  = ResultsStore.import_frame(frame) into a fresh SQLite store (sqlite:///tmp/…).
Wall time and CPU time (of the process, all threads) are printed: on a shared machine
wall time is CPU time stretched by the load, which is printed too.

``--baseline REV`` also times the engine of git revision REV (exported with ``git archive``
into a temporary folder) on the same files, alternating baseline and current runs,
so that before/after figures come from the same run under the same load; ``--current REV``
times a revision instead of the working tree.
Generation is not timed. Run: .venv/bin/python benchmarks/bench_import.py [--docs 1000]
[--repeat 3] [--baseline 9400e38]
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parent.parent
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


_MEASURE = """
import json, sys, time
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from engine.harness import read_harness
from engine.store import open_store
root, db = Path(sys.argv[2]), sys.argv[3]
w0, c0 = time.perf_counter(), time.process_time()
result = read_harness(root)
w1, c1 = time.perf_counter(), time.process_time()
store = open_store(f"sqlite:///{db}")
metrics = {m: spec for (_, m), spec in result.specs.items()}
w2, c2 = time.perf_counter(), time.process_time()
report = store.import_frame(result.frame, filename=root.name, metrics=metrics)
w3, c3 = time.perf_counter(), time.process_time()
store.close()
print(json.dumps({"rows": len(result.frame), "read": w1 - w0, "read_cpu": c1 - c0,
                  "store": w3 - w2, "store_cpu": c3 - c2, "report": result.report(),
                  "message": report.message}))
"""


def measure(engine_root: Path, data: Path, tmp: Path) -> dict[str, Any]:
    """One read + store of ``data`` with the engine under ``engine_root``, in a new process."""
    db = tmp / f"store-{time.monotonic_ns()}.db"
    out = subprocess.run([sys.executable, "-c", _MEASURE, str(engine_root), str(data), str(db)],
                         check=True, capture_output=True, text=True).stdout
    for path in tmp.glob(db.name + "*"):
        path.unlink()
    figures: dict[str, Any] = json.loads(out.strip().splitlines()[-1])
    return figures


def export_engine(rev: str, into: Path) -> Path:
    """The ``engine`` package of git revision ``rev`` under ``into`` (for a baseline)."""
    into.mkdir(parents=True)
    archive = subprocess.run(["git", "-C", str(REPO), "archive", rev, "engine"], check=True,
                             capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return into


def summary(label: str, runs: list[dict[str, Any]]) -> str:
    def med(key: str) -> float:
        return float(statistics.median(r[key] for r in runs))

    total = med("read") + med("store")
    return (f"  {label:9s} read+validate {med('read'):6.2f} s (cpu {med('read_cpu'):5.2f})  "
            f"store import {med('store'):6.2f} s (cpu {med('store_cpu'):5.2f})  "
            f"total {total:6.2f} s (cpu {med('read_cpu') + med('store_cpu'):5.2f})  "
            f"{'≤' if total <= 10 else '>'} 10 s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--systems", type=int, default=20)
    parser.add_argument("--tasks", type=int, default=10)
    parser.add_argument("--docs", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=1, help="runs per variant (median shown)")
    parser.add_argument("--baseline", metavar="REV", help="also time the engine of this git revision")
    parser.add_argument("--current", metavar="REV", help="time this git revision instead of the "
                        "working tree (other people's unfinished edits left out)")
    parser.add_argument("--data", type=Path, help="keep the generated logs in this folder and reuse "
                        "them on the next run (default: a temporary folder)")
    args = parser.parse_args()
    rng = np.random.default_rng(14)
    with tempfile.TemporaryDirectory() as tmpdir:
        tmp = Path(tmpdir)
        data = args.data or tmp
        t0 = time.perf_counter()
        if not (data / "lm_eval_out").exists():
            make_lm_eval(data / "lm_eval_out", args.systems, args.tasks, args.docs, rng)
        if not (data / "inspect_logs").exists():
            make_inspect(data / "inspect_logs", args.systems, args.tasks, args.docs, rng)
        size = sum(p.stat().st_size for p in data.rglob("*") if p.is_file()) / 2**20
        print(f"{args.systems} systems × {args.tasks} tasks × {args.docs} docs per format "
              f"({size:,.0f} MB on disk) ready in {time.perf_counter() - t0:.1f} s (not timed below)")
        variants = {"current": export_engine(args.current, tmp / "current") if args.current
                    else REPO}
        if args.baseline:
            variants = {"baseline": export_engine(args.baseline, tmp / "baseline"), **variants}
        for label, folder in (("lm-eval", "lm_eval_out"), ("inspect", "inspect_logs")):
            runs: dict[str, list[dict[str, Any]]] = {v: [] for v in variants}
            loads = []
            for _ in range(args.repeat):
                for variant, root in variants.items():  # alternating: both see the same load
                    loads.append(os.getloadavg()[0])
                    runs[variant].append(measure(root, data / folder, tmp))
            first = runs["current"][0]
            print(f"{label}: {first['rows']:,d} rows; load average {min(loads):.1f}–{max(loads):.1f} "
                  f"on {os.cpu_count()} cores; median of {args.repeat}")
            for variant in variants:
                rev = {"baseline": args.baseline, "current": args.current}[variant]
                print(summary(variant + (f" {rev}" if rev else ""), runs[variant]))
            print(f"            {first['report']}")
            print(f"            {first['message']}")


if __name__ == "__main__":
    main()
