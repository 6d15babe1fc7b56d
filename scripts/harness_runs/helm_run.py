"""Writes small HELM logs offline (run by scripts/harness_logs.py with crfm-helm's venv).

Usage: python helm_run.py OUT_DIR [SUITE ...]   (default: every suite below)

HELM's own local scenarios `simple_mcqa` and `simple_classification` (generated in code, no
download), two model deployments `sigtest/model-a` and `sigtest/model-b` served by
`sigtest_helm.SigtestClient` (declared in a local `prod_env/`), `--max-eval-instances 6`
(3 for the trials suite).
Each run is a real `helm-run` command line:

- suite v1: `simple_mcqa:model=…` (HELM writes `model=` right after the colon) and
  `simple_classification:stop=hash,model=…` (the stop expander puts its argument before the
  colon: `simple_classification,stop=hash:model=…`);
- suite trials: `simple_mcqa:model=…` with `--num-train-trials 2` (train_trial_index 0 and 1),
  3 instances;
- suite perturbed: `simple_mcqa:data_augmentation=typo_easy,model=…`, 4 instances: HELM's
  data augmenter adds a `typos` (prob 0.1) copy of every eval instance beside the original,
  under the original's id with a `perturbation` object (TyposPerturbation needs no download,
  unlike the misspelling and `robustness` specs). This driver runs `helm-summarize` for it
  itself (scripts/harness_logs.py summarizes v1 and trials).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEPLOYMENTS = """model_deployments:
{items}"""
DEPLOYMENT = """  - name: sigtest/{name}
    model_name: sigtest/{name}
    tokenizer_name: simple/tokenizer1
    max_sequence_length: 2048
    client_spec:
      class_name: "sigtest_helm.SigtestClient"
"""
METADATA = """models:
{items}"""
MODEL = """  - name: sigtest/{name}
    display_name: Sigtest {name}
    description: A deterministic test model (sigboard).
    creator_organization_name: sigboard
    access: open
    release_date: 2026-01-01
    tags: [TEXT_MODEL_TAG, FULL_FUNCTIONALITY_TEXT_MODEL_TAG]
"""
MODELS = ("model-a", "model-b")


def _helm_run(work: Path, suite: str, entries: list[str], *extra: str, instances: int = 6) -> None:
    helm_run = Path(sys.executable).parent / "helm-run"
    env = dict(os.environ, PYTHONPATH=str(HERE), HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1")
    subprocess.run(
        [str(helm_run), "--run-entries", *entries, "--suite", suite, "--max-eval-instances", str(instances),
         "--local-path", "prod_env", "--output-path", "benchmark_output", "--disable-cache",
         "--exit-on-error", "-n", "1", *extra],
        cwd=work, env=env, check=True,
    )


def _summarize(work: Path, suite: str) -> None:
    env = dict(os.environ, PYTHONPATH=str(HERE), HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1")
    subprocess.run([str(Path(sys.executable).parent / "helm-summarize"), "--suite", suite,
                    "-o", "benchmark_output"], cwd=work, env=env, check=True)


SUITES = ("v1", "trials", "perturbed")


def main(work: Path, suites: tuple[str, ...] = SUITES) -> None:
    env_dir = work / "prod_env"
    env_dir.mkdir(parents=True, exist_ok=True)
    (env_dir / "model_deployments.yaml").write_text(
        DEPLOYMENTS.format(items="".join(DEPLOYMENT.format(name=m) for m in MODELS)))
    (env_dir / "model_metadata.yaml").write_text(
        METADATA.format(items="".join(MODEL.format(name=m) for m in MODELS)))
    if "v1" in suites:
        _helm_run(work, "v1", [f"simple_mcqa:model=sigtest/{m}" for m in MODELS]
                  + [f"simple_classification:stop=hash,model=sigtest/{m}" for m in MODELS])
    if "trials" in suites:
        _helm_run(work, "trials", [f"simple_mcqa:model=sigtest/{m}" for m in MODELS],
                  "--num-train-trials", "2", instances=3)
    if "perturbed" in suites:
        _helm_run(work, "perturbed",
                  [f"simple_mcqa:data_augmentation=typo_easy,model=sigtest/{m}" for m in MODELS],
                  instances=4)
        _summarize(work, "perturbed")


if __name__ == "__main__":
    main(Path(sys.argv[1]).resolve(), tuple(sys.argv[2:]) or SUITES)
