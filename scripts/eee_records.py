#!/usr/bin/env python3
"""Writes tests/data/eee/: Every Eval Ever records made by the package's own converters.

    python3 scripts/eee_records.py [--venv /tmp/eee-venv] [--python PYTHON3.12] [--no-copy]

every-eval-ever 0.3.0 needs Python >= 3.12 and sigboard runs on 3.11, so the package never
enters sigboard's environment: this script makes a separate virtual environment (``--venv``,
outside the repository) with the interpreter ``--python`` (default: the first that runs of
``/root/.pyenv/versions/3.12.*/bin/python`` and ``python3.12`` on PATH), installs PINS, and
re-runs itself there with ``--inside``, which calls the package's ``convert`` command
(``every_eval_ever.cli.main``) on logs the real harnesses wrote, committed in
tests/data/harness-logs-real/ (no network once the environment exists):

- ``lm_eval/``: ``convert lm_eval --include_samples`` of ``lm_eval/doc_hash/sigtest__model-a``
  and ``…-b`` (lm-eval 0.4.13, task ``sig_arith``, 6 samples, filters strict-match and
  flexible-extract);
- ``inspect/``: ``convert inspect`` of the two ``inspect/json/*.json`` logs (inspect-ai
  0.3.285, task ``capitals``, 4 samples, 1 epoch, scorer ``match``) and of the four
  ``inspect/eval/*.eval`` logs (task ``arith``, 6 samples, 2 epochs, scorers ``match`` and
  ``includes``).

HELM is not converted: the package's HELM converter requires ``scenario_state.json`` and
``scenario.json`` beside ``per_instance_stats.json``, which the committed HELM logs do not
keep.

The test models run under the custom Inspect model API ``sigtest`` (``sigtest/model-a``). The
Inspect converter maps a model path to its developer through
``every_eval_ever.converters.inspect.utils.MODEL_HANDLER_MAP``, keyed by the provider prefix
(the package documents it as the place to add a provider); ``sigtest`` is added there as a
closed-API provider (developer ``sigtest``, id = the model path), nothing else is changed.

Each record carries the time of conversion (``retrieved_timestamp``) and a random UUID in its
file name, so a regeneration replaces the files rather than reproducing them byte for byte;
the scores and sample texts are the same every time.
"""

from __future__ import annotations

import argparse
import glob
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LOGS = ROOT / "tests" / "data" / "harness-logs-real"
DEST = ROOT / "tests" / "data" / "eee"
PINS = ["every-eval-ever==0.3.0", "inspect-ai==0.3.285"]
COMMON = ["--source_organization_name", "sigboard-tests", "--evaluator_relationship", "third_party"]


def find_python() -> str:
    """A Python >= 3.12 interpreter, or exit with what to install."""
    candidates = [*sorted(glob.glob("/root/.pyenv/versions/3.12.*/bin/python"), reverse=True),
                  *filter(None, [shutil.which("python3.12")])]  # a pyenv shim may not run
    found = next((p for p in candidates if subprocess.run(
        [p, "-c", "import sys; assert sys.version_info >= (3, 12)"], capture_output=True
    ).returncode == 0), None)
    if found is None:
        sys.exit("eee_records: no Python 3.12 found; pass --python /path/to/python3.12 "
                 "(every-eval-ever 0.3.0 requires Python >= 3.12)")
    return found


def make_venv(home: Path, python: str, pins: list[str]) -> Path:
    """``home``'s interpreter, creating the environment and installing ``pins`` when missing."""
    interpreter = home / "bin" / "python"
    if not interpreter.exists():
        subprocess.run([python, "-m", "venv", str(home)], check=True)
    subprocess.run([str(interpreter), "-m", "pip", "install", "-q", *pins], check=True)
    return interpreter


def convert(work: Path) -> None:
    """Inside the environment: the package's converters on the committed logs."""
    from every_eval_ever import cli  # type: ignore[import-not-found]  # the separate env's
    from every_eval_ever.converters.inspect import utils  # type: ignore[import-not-found]

    utils.MODEL_HANDLER_MAP["sigtest"] = utils.ClosedApiHandler  # the tests' model API
    jobs: list[tuple[str, list[str]]] = []
    for model in ("sigtest__model-a", "sigtest__model-b"):
        jobs.append(("lm_eval", ["lm_eval", "--log_path", str(LOGS / "lm_eval" / "doc_hash" / model),
                                 "--include_samples"]))
    for log in sorted((LOGS / "inspect" / "json").glob("*.json")) + \
            sorted((LOGS / "inspect" / "eval").glob("*.eval")):
        jobs.append(("inspect", ["inspect", "--log_path", str(log)]))
    for harness, args in jobs:
        out = work / harness / "data"
        code = cli.main(["convert", *args, "--output_dir", str(out), *COMMON])
        if code:
            sys.exit(f"eee_records: convert {' '.join(args)} exited {code}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--venv", type=Path, default=Path("/tmp/eee-venv"))
    ap.add_argument("--python", default=None, help="a Python >= 3.12 (default: found)")
    ap.add_argument("--work", type=Path, default=Path("/tmp/eee-work"))
    ap.add_argument("--no-copy", action="store_true", help="convert into --work only")
    ap.add_argument("--inside", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.inside:
        convert(args.work)
        return
    interpreter = make_venv(args.venv, args.python or find_python(), PINS)
    shutil.rmtree(args.work, ignore_errors=True)
    subprocess.run([str(interpreter), __file__, "--inside", "--work", str(args.work)], check=True)
    freeze = subprocess.run([str(interpreter), "-m", "pip", "freeze"], check=True,
                            capture_output=True, text=True).stdout
    if args.no_copy:
        print(f"records in {args.work}")
        return
    for harness in ("lm_eval", "inspect"):
        shutil.rmtree(DEST / harness, ignore_errors=True)
        shutil.copytree(args.work / harness, DEST / harness)
    (DEST / "VERSIONS.txt").write_text(freeze)
    print(f"records in {DEST}")


if __name__ == "__main__":
    main()
