"""Writes small lighteval logs offline (run by scripts/harness_logs.py with lighteval's venv).

Usage: python lighteval_run.py OUT_DIR

`lighteval custom` with the model file `sigtest_lighteval_model.py` (deterministic, no
weights) and the tasks file `sigtest_lighteval_tasks.py` (local JSONL: `sig_arith`, 6 docs,
exact match; `sig_choice`, 5 docs, loglikelihood accuracy), `--save-details`. Models
sigtest/model-a and sigtest/model-b, then model-a a second time (a second date_id: a run).

Offline, lighteval 0.13.0 cannot start as shipped: its task registry imports every built-in
task module, and some reach the network when imported: `tiny_benchmarks.py` downloads a
pickle from GitHub, `mt_bench/main.py` and `mix_eval/main.py` build judge metrics that query
the Hub (`HfApi.list_models`, which huggingface_hub 2.x no longer accepts with `model_name`).
Each `lighteval custom` therefore runs in a child (`python lighteval_run.py --cli ARGS…`) that
first registers empty stand-ins (TASKS_TABLE = []) for the modules in NETWORK_AT_IMPORT; the
rest is lighteval's own command line.
"""

from __future__ import annotations

import os
import subprocess
import sys
import types
from pathlib import Path

from sigtest_data import ARITH, CHOICE, OFFLINE, write_jsonl

HERE = Path(__file__).resolve().parent


def main(out: Path) -> None:
    data = out / "_data"
    for name, rows in (("arith", ARITH), ("choice", CHOICE)):
        (data / name).mkdir(parents=True, exist_ok=True)
        write_jsonl(data / name / "test.jsonl", rows)
    env = dict(os.environ, SIGTEST_LIGHTEVAL_DATA=str(data), **OFFLINE)
    for model in ("sigtest/model-a", "sigtest/model-b", "sigtest/model-a"):
        subprocess.run(
            [sys.executable, __file__, "--cli", "custom", model, str(HERE / "sigtest_lighteval_model.py"),
             "sig_arith|0,sig_choice|0", "--custom-tasks", str(HERE / "sigtest_lighteval_tasks.py"),
             "--save-details", "--output-dir", str(out / "out")],
            cwd=out, env=env, check=True,
        )


NETWORK_AT_IMPORT = ("tiny_benchmarks", "mt_bench.main", "mix_eval.main")


def cli(args: list[str]) -> None:
    for name in NETWORK_AT_IMPORT:
        stub = types.ModuleType(f"lighteval.tasks.tasks.{name}")
        stub.TASKS_TABLE = []  # type: ignore[attr-defined]
        sys.modules[stub.__name__] = stub
    from lighteval.__main__ import app

    sys.argv = ["lighteval", *args]
    app()


if __name__ == "__main__":
    if sys.argv[1] == "--cli":
        cli(sys.argv[2:])
    else:
        main(Path(sys.argv[1]).resolve())
