"""Writes small lm-evaluation-harness logs offline (run by scripts/harness_logs.py with lm-eval's venv).

Usage: python lm_eval_run.py OUT_DIR [GROUP,...]   (groups: main, perplexity, mutual_info, naming;
default all; each group writes its own folders, so one can be regenerated alone)

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

Group `perplexity` (folder perplexity/): `sig_lambada` (output_type loglikelihood, 6 docs,
metrics `perplexity` and `acc`) and `sig_wiki` (loglikelihood_rolling, 4 docs,
`word_perplexity`, `byte_perplexity`, `bits_per_byte`), models model-a and model-b.
Group `mutual_info` (folder mutual_info/): `sig_mutual` (multiple_choice, 8 docs,
`acc_mutual_info` only: lm-eval adds one unconditional ("", choice) request per choice), both
models. Group `naming` (folder naming/): `sig_choice` with model-a three ways (as is;
`--apply_chat_template`; `--apply_chat_template --system_instruction ...`, so the results
carry 64-hex `chat_template_sha` and `system_instruction_sha`) and model-b as is.
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


LAMBADA = [
    {"context": "The cat sat on the", "word": "mat"},
    {"context": "She poured the tea into a", "word": "cup"},
    {"context": "He opened the door with a", "word": "key"},
    {"context": "The sun rises in the", "word": "east"},
    {"context": "Birds build their", "word": "nests"},
    {"context": "Water boils at one hundred", "word": "degrees"},
]
WIKI = [
    {"text": "The river flows north through the valley and meets the sea at the old port."},
    {"text": "A small village lies at the foot of the hill, known for its stone bridge."},
    {"text": "The library was founded in the last century and holds many rare maps."},
    {"text": "Farmers in the region grow wheat, barley and a kind of sweet pear."},
]
MUTUAL = [
    {"question": "Which is a fruit?", "choices": ["carrot", "apple", "potato"], "label": 1},
    {"question": "Which is a colour?", "choices": ["blue", "chair", "river"], "label": 0},
    {"question": "Which is a planet?", "choices": ["Moon", "Sun", "Mars"], "label": 2},
    {"question": "Which is a metal?", "choices": ["iron", "wood", "glass"], "label": 0},
    {"question": "Which is a bird?", "choices": ["salmon", "sparrow", "frog"], "label": 1},
    {"question": "Which is a tree?", "choices": ["oak", "rose", "moss"], "label": 0},
    {"question": "Which is a number?", "choices": ["seven", "green", "table"], "label": 0},
    {"question": "Which is an ocean?", "choices": ["Sahara", "Pacific", "Alps"], "label": 1},
]
LAMBADA_YAML = """task: sig_lambada
dataset_path: json
dataset_kwargs:
  data_files:
    test: {data}
test_split: test
output_type: loglikelihood
doc_to_text: "{{{{context}}}}"
doc_to_target: " {{{{word}}}}"
metric_list:
  - metric: perplexity
    aggregation: perplexity
    higher_is_better: false
  - metric: acc
    aggregation: mean
    higher_is_better: true
metadata:
  version: 1.0
"""
WIKI_YAML = """task: sig_wiki
dataset_path: json
dataset_kwargs:
  data_files:
    test: {data}
test_split: test
output_type: loglikelihood_rolling
doc_to_text: ""
doc_to_target: "{{{{text}}}}"
metric_list:
  - metric: word_perplexity
  - metric: byte_perplexity
  - metric: bits_per_byte
metadata:
  version: 1.0
"""
MUTUAL_YAML = """task: sig_mutual
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
  - metric: acc_mutual_info
    aggregation: mean
    higher_is_better: true
metadata:
  version: 1.0
"""
CHAT_TEMPLATE = "{% for m in messages %}<|{{ m.role }}|>{{ m.content }}\n{% endfor %}<|assistant|>"


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

    @property
    def tokenizer_name(self) -> str:
        return "sigtest"

    def chat_template(self, chat_template: bool | str = False) -> str | None:
        return CHAT_TEMPLATE if chat_template else None

    def apply_chat_template(self, chat_history: list[dict[str, str]],
                            add_generation_prompt: bool = True) -> str:
        text = "".join(f"<|{m['role']}|>{m['content']}\n" for m in chat_history)
        return text + ("<|assistant|>" if add_generation_prompt else "")

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
    tasks: list[tuple[str, str, list[dict[str, Any]]]] = [
        ("arith", ARITH_YAML, arith), ("choice", CHOICE_YAML, CHOICE),
        ("lambada", LAMBADA_YAML, LAMBADA), ("wiki", WIKI_YAML, WIKI),
        ("mutual", MUTUAL_YAML, MUTUAL)]
    for name, yaml, rows in tasks:
        write_jsonl(root / f"{name}.jsonl", rows)
        (root / f"sig_{name}.yaml").write_text(yaml.format(data=root / f"{name}.jsonl"))
    return root


def _run(tasks: Path, *args: str) -> None:
    sys.argv = ["lm_eval", "run", "--include_path", str(tasks), "--log_samples", *args]
    cli_evaluate()


GROUPS = ("main", "perplexity", "mutual_info", "naming")


def main(out: Path, groups: tuple[str, ...] = GROUPS) -> None:
    tasks = _tasks(out / "_tasks", ARITH)
    models = ("model-a", "model-b")
    if "perplexity" in groups:
        for name in models:
            _run(tasks, "--model", "sigtest", "--model_args", f"pretrained=sigtest/{name}",
                 "--tasks", "sig_lambada,sig_wiki", "--output_path", str(out / "perplexity"))
    if "mutual_info" in groups:
        for name in models:
            _run(tasks, "--model", "sigtest", "--model_args", f"pretrained=sigtest/{name}",
                 "--tasks", "sig_mutual", "--output_path", str(out / "mutual_info"))
    if "naming" in groups:
        a = ("--model", "sigtest", "--model_args", "pretrained=sigtest/model-a", "--tasks",
             "sig_choice", "--output_path", str(out / "naming"))
        _run(tasks, *a)
        _run(tasks, *a, "--apply_chat_template")
        _run(tasks, *a, "--apply_chat_template", "--system_instruction", "Answer with one word.")
        _run(tasks, "--model", "sigtest", "--model_args", "pretrained=sigtest/model-b",
             "--tasks", "sig_choice", "--output_path", str(out / "naming"))
    if "main" in groups:
        _main_group(out, tasks)


def _main_group(out: Path, tasks: Path) -> None:
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
    main(Path(sys.argv[1]).resolve(), tuple(sys.argv[2].split(",")) if len(sys.argv) > 2 else GROUPS)
