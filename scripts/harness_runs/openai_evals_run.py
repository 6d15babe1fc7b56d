"""Writes small openai/evals record logs offline (run by scripts/harness_logs.py with evals' venv).

Usage: python openai_evals_run.py OUT_DIR

A registry of its own under OUT_DIR/_registry (not copied): the eval ``sig-arith``
(``sig-arith.dev.v0``, class ``evals.elsuite.basic.match:Match``) on the 6 questions of
``sigtest_data.ARITH`` as chat prompts (a system message and the question), ``ideal`` the
answer (for question 4 a list, ``["17", "seventeen"]``: either is a match); completion fns
``sigtest/model-a`` and ``sigtest/model-b`` (``sigtest_oaieval:SigtestCompletionFn``,
deterministic). One real ``oaieval`` command line per model, ``--record_path
logs/<model>_sig-arith.jsonl --no-cache``: the record JSONL (``{"spec"}``, then
``{"final_report"}``, then the ``sampling`` and ``match`` events).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from sigtest_data import ARITH, write_jsonl

HERE = Path(__file__).resolve().parent
OAIEVAL = Path(sys.prefix) / "bin" / "oaieval"
SYSTEM = "Answer with the number only."

EVAL_YAML = """sig-arith:
  id: sig-arith.dev.v0
  metrics: [accuracy]
sig-arith.dev.v0:
  class: evals.elsuite.basic.match:Match
  args:
    samples_jsonl: sig_arith/samples.jsonl
"""
FNS_YAML = "".join(f"sigtest/model-{m}:\n  class: sigtest_oaieval:SigtestCompletionFn\n"
                   f"  args:\n    model: {m}\n" for m in ("a", "b"))


def main() -> None:
    out = Path(sys.argv[1]).resolve()
    registry = out / "_registry"
    for sub in ("evals", "completion_fns", "data/sig_arith"):
        (registry / sub).mkdir(parents=True, exist_ok=True)
    (registry / "evals" / "sig-arith.yaml").write_text(EVAL_YAML)
    (registry / "completion_fns" / "sigtest.yaml").write_text(FNS_YAML)
    write_jsonl(registry / "data" / "sig_arith" / "samples.jsonl",
                [{"input": [{"role": "system", "content": SYSTEM},
                            {"role": "user", "content": row["question"]}],
                  "ideal": [row["answer"], "seventeen"] if row["answer"] == "17" else row["answer"]}
                 for row in ARITH])
    env = dict(os.environ, PYTHONPATH=str(HERE), OPENAI_API_KEY="sk-offline-unused",
               EVALS_THREADS="1", EVALS_SEQUENTIAL="1")
    (out / "logs").mkdir(exist_ok=True)
    for m in ("a", "b"):
        subprocess.run([str(OAIEVAL), f"sigtest/model-{m}", "sig-arith", "--registry_path",
                        str(registry), "--record_path", str(out / "logs" / f"model-{m}_sig-arith.jsonl"),
                        "--no-cache"], cwd=out, env=env, check=True)
    print(json.dumps(sorted(p.name for p in (out / "logs").iterdir())))


if __name__ == "__main__":
    main()
