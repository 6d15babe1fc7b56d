"""Writes small lm-evaluation-harness logs offline (run by scripts/harness_logs.py with lm-eval's venv).

Usage: python lm_eval_run.py OUT_DIR

Two tasks on local JSONL data (the `json` dataset builder, HF_DATASETS_OFFLINE=1):
`sig_arith` (generate_until, 6 docs, two filters: strict-match and flexible-extract) and
`sig_choice` (multiple_choice, 5 docs, acc and acc_norm). A model class registered with
`@register_model("sigtest")` answers deterministically from (model_args, prompt). Runs, each
a real `lm_eval run` command line:

- out/: model_args pretrained=sigtest/model-a and pretrained=sigtest/model-b, both tasks,
  `--output_path out --log_samples` (the usual folder layout);
- out/: pretrained=sigtest/model-a again with `--gen_kwargs temperature=0.7` (other settings);
- json/: `--output_path json/sig.json` (results go to `sig_<date>.json` beside the samples);
- noname/: model_args without a name-like key (`flavour=b`), so lm-eval names the model at
  random;
- doc_hash/: pretrained=sigtest/model-b on sig_arith whose doc 2 has other text (same task
  name, other data: a different `doc_hash` for doc_id 2).
"""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path
from typing import Any

from sigtest_data import ARITH, CHOICE, OFFLINE, write_jsonl

for _key, _value in OFFLINE.items():  # before lm_eval imports the Hugging Face libraries
    os.environ.setdefault(_key, _value)

from lm_eval.__main__ import cli_evaluate  # noqa: E402
from lm_eval.api.model import LM  # noqa: E402
from lm_eval.api.registry import register_model  # noqa: E402

ARITH_YAML = """task: sig_arith
dataset_path: json
dataset_kwargs:
  data_files:
    test: {data}
test_split: test
output_type: generate_until
doc_to_text: "Question: {{{{question}}}}\\nAnswer:"
doc_to_target: "{{{{answer}}}}"
generation_kwargs:
  until: ["Question:"]
  do_sample: false
  temperature: 0.0
metric_list:
  - metric: exact_match
    aggregation: mean
    higher_is_better: true
filter_list:
  - name: "strict-match"
    filter:
      - function: "regex"
        regex_pattern: "#### (\\\\-?[0-9]+)"
      - function: "take_first"
  - name: "flexible-extract"
    filter:
      - function: "regex"
        group_select: -1
        regex_pattern: "(-?[0-9]+)"
      - function: "take_first"
metadata:
  version: 1.0
"""
CHOICE_YAML = """task: sig_choice
dataset_path: json
dataset_kwargs:
  data_files:
    test: {data}
test_split: test
output_type: multiple_choice
doc_to_text: "Question: {{{{question}}}}\\nAnswer:"
doc_to_choice: "{{{{choices}}}}"
doc_to_target: label
metric_list:
  - metric: acc
    aggregation: mean
    higher_is_better: true
  - metric: acc_norm
    aggregation: mean
    higher_is_better: true
metadata:
  version: 1.0
"""


def _digest(*parts: object) -> int:
    return int(hashlib.sha256("|".join(map(str, parts)).encode()).hexdigest(), 16)


@register_model("sigtest")
class SigtestLM(LM):
    """Deterministic: every answer is a function of (model_args, prompt)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__()
        self.name = "|".join(f"{k}={v}" for k, v in sorted(kwargs.items()))

    @classmethod
    def create_from_arg_obj(cls, arg_dict: dict[str, Any], additional_config: Any = None) -> SigtestLM:
        return cls(**arg_dict)

    @classmethod
    def create_from_arg_string(cls, arg_string: str, additional_config: Any = None) -> SigtestLM:
        pairs = [kv.split("=", 1) for kv in arg_string.split(",") if kv]
        return cls(**dict(pairs))

    def loglikelihood(self, requests: list[Any], disable_tqdm: bool = False) -> list[tuple[float, bool]]:
        out = []
        for req in requests:
            context, continuation = req.args
            score = -(_digest(self.name, context, continuation) % 1000) / 100.0
            out.append((score, score > -3.0))
        return out

    def loglikelihood_rolling(self, requests: list[Any], disable_tqdm: bool = False) -> list[float]:
        return [-(_digest(self.name, req.args[0]) % 1000) / 10.0 for req in requests]

    def generate_until(self, requests: list[Any], disable_tqdm: bool = False) -> list[str]:
        out = []
        for req in requests:
            context, gen_kwargs = req.args
            question = context.rsplit("Question: ", 1)[-1].split("\n", 1)[0]
            right = next((r["answer"] for r in ARITH if r["question"] == question), "0")
            d = _digest(self.name, context, gen_kwargs.get("temperature")) % 10
            if d < 4:
                out.append(f" The sum works out.\n#### {right}")
            elif d < 7:
                out.append(f" It is {right}.")
            else:
                out.append(f" It is {int(right) + 1}.")
        return out


def _tasks(root: Path, arith: list[dict[str, str]]) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    write_jsonl(root / "arith.jsonl", arith)
    write_jsonl(root / "choice.jsonl", CHOICE)
    (root / "sig_arith.yaml").write_text(ARITH_YAML.format(data=root / "arith.jsonl"))
    (root / "sig_choice.yaml").write_text(CHOICE_YAML.format(data=root / "choice.jsonl"))
    return root


def _run(tasks: Path, *args: str) -> None:
    sys.argv = ["lm_eval", "run", "--include_path", str(tasks), "--log_samples", *args]
    cli_evaluate()


def main(out: Path) -> None:
    tasks = _tasks(out / "_tasks", ARITH)
    other = [dict(r) for r in ARITH]
    other[2] = {"question": "What is 10 - 5?", "answer": "5"}
    tasks_v2 = _tasks(out / "_tasks_v2", other)
    both = "sig_arith,sig_choice"
    for name in ("model-a", "model-b"):
        _run(tasks, "--model", "sigtest", "--model_args", f"pretrained=sigtest/{name}",
             "--tasks", both, "--output_path", str(out / "out"))
    _run(tasks, "--model", "sigtest", "--model_args", "pretrained=sigtest/model-a",
         "--gen_kwargs", "temperature=0.7", "--tasks", both, "--output_path", str(out / "out"))
    _run(tasks, "--model", "sigtest", "--model_args", "pretrained=sigtest/model-a",
         "--tasks", both, "--output_path", str(out / "json" / "sig.json"))
    _run(tasks, "--model", "sigtest", "--model_args", "flavour=b",
         "--tasks", both, "--output_path", str(out / "noname"))
    _run(tasks, "--model", "sigtest", "--model_args", "pretrained=sigtest/model-a",
         "--tasks", "sig_arith", "--output_path", str(out / "doc_hash"))
    _run(tasks_v2, "--model", "sigtest", "--model_args", "pretrained=sigtest/model-b",
         "--tasks", "sig_arith", "--output_path", str(out / "doc_hash"))


if __name__ == "__main__":
    main(Path(sys.argv[1]).resolve())
