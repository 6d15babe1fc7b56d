#!/usr/bin/env python3
"""Writes tests/data/harness-logs-real/: small logs produced offline by the real harnesses.

    python3 scripts/harness_logs.py [--venvs /tmp/harness-venv] [--work /tmp/harness-work]
                                    [--only inspect,inspect_clustered,lm_eval,helm,lighteval]
                                    [--no-copy]

For each harness this creates a virtual environment outside the repository (one per harness:
crfm-helm and inspect-ai pin conflicting dependencies, so they cannot share one), installs the
harness at the exact version in PINS, runs the driver in scripts/harness_runs/ (tiny local
tasks, deterministic custom models, no downloads), and copies the small files the importers
read into tests/data/harness-logs-real/<harness>/, with the `pip freeze` of the environment
that wrote them (VERSIONS.txt). The project's own .venv is never touched. torch is installed
first, at the version that lies on this machine's disk (a plain `torch` dependency would pull
a multi-gigabyte CUDA build).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RUNS = ROOT / "scripts" / "harness_runs"
DEST = ROOT / "tests" / "data" / "harness-logs-real"
TORCH = "torch==2.13.0"
PINS: dict[str, list[str]] = {
    "inspect": ["inspect-ai==0.3.285"],
    "inspect_clustered": ["inspect-ai==0.3.285"],  # stderr(cluster=...): its own folder
    "lm_eval": [TORCH, "lm-eval==0.4.13"],
    "helm": [TORCH, "crfm-helm==0.5.16"],
    # lighteval 0.13.0 hashes str with xxhash, which xxhash 4 refuses ("Strings must be encoded")
    "lighteval": [TORCH, "lighteval==0.13.0", "xxhash==3.6.0"],
}
OFFLINE = {"HF_DATASETS_OFFLINE": "1", "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
           "INSPECT_DISPLAY": "none", "NO_COLOR": "1"}


#: harnesses that run in another one's environment (same pins)
SHARED_VENV = {"inspect_clustered": "inspect"}


def venv(root: Path, harness: str) -> Path:
    home = root / SHARED_VENV.get(harness, harness)
    python = home / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(home)], check=True)
    pins = PINS[harness]
    if TORCH in pins:  # first, alone: the local CPU wheel
        subprocess.run([str(python), "-m", "pip", "install", "-q", TORCH], check=True)
    subprocess.run([str(python), "-m", "pip", "install", "-q", *pins], check=True)
    return python


def run(python: Path, harness: str, work: Path) -> None:
    out = work / harness
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    env = dict(os.environ, **OFFLINE)
    with open(work / f"{harness}.log", "w") as log:
        subprocess.run([str(python), str(RUNS / f"{harness}_run.py"), str(out)], cwd=out, env=env,
                       stdout=log, stderr=subprocess.STDOUT, check=True)
    if harness == "helm":  # display_predictions.json / instances.json, which hold the texts
        for suite in ("v1", "trials"):
            with open(work / "helm.log", "a") as log:
                subprocess.run([str(python.parent / "helm-summarize"), "--suite", suite,
                                "-o", "benchmark_output"], cwd=out, env=env, stdout=log,
                               stderr=subprocess.STDOUT, check=True)


HELM_FILES = ("run_spec.json", "per_instance_stats.json", "instances.json", "display_predictions.json")


def copy(harness: str, work: Path, python: Path) -> None:
    src, dst = work / harness, DEST / harness
    if dst.exists():
        shutil.rmtree(dst)
    dst.mkdir(parents=True)
    for path in sorted(src.rglob("*")):
        rel = path.relative_to(src)
        if not path.is_file() or rel.parts[0].startswith("_") or "eval_cache" in rel.parts:
            continue
        if harness == "helm":
            in_run = rel.parts[:2] == ("benchmark_output", "runs") and len(rel.parts) == 5
            if not in_run or path.name not in HELM_FILES:
                continue
            rel = Path(*rel.parts[2:])
        if harness.startswith("inspect") and path.name == "logs.json":
            continue
        (dst / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, dst / rel)
    freeze = subprocess.run([str(python), "-m", "pip", "freeze"], capture_output=True, text=True, check=True)
    (dst / "VERSIONS.txt").write_text(freeze.stdout)
    if harness.startswith("inspect"):  # the scores as inspect-ai's own reader sees them (tests compare)
        subprocess.run([str(python), str(RUNS / "inspect_expected.py"), str(dst)], check=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--venvs", type=Path, default=Path("/tmp/harness-venv"))
    ap.add_argument("--work", type=Path, default=Path("/tmp/harness-work"))
    ap.add_argument("--only", default=",".join(PINS))
    ap.add_argument("--no-copy", action="store_true", help="leave the logs in --work only")
    args = ap.parse_args()
    for harness in args.only.split(","):
        print(f"==> {harness}: {' '.join(PINS[harness])}", flush=True)
        python = venv(args.venvs, harness)
        run(python, harness, args.work)
        if not args.no_copy:
            copy(harness, args.work, python)
            print(f"    wrote {DEST / harness}", flush=True)


if __name__ == "__main__":
    main()
