"""Writes small Inspect logs offline (run by scripts/harness_logs.py with inspect-ai's own venv).

Usage: python inspect_run.py OUT_DIR

Two tasks on local JSONL data: `arith` (6 samples, int ids, two scorers) and `capitals`
(4 samples, string ids). A model API registered with `@modelapi` answers deterministically
from (model name, prompt, temperature, how often it saw the prompt), so nothing is downloaded
and every run writes the same scores. Logs:

- inspect/eval/: arith, models sigtest/model-a and sigtest/model-b, 2 epochs, temperature 0,
  in the default `.eval` format (Zstandard members in current releases); a re-run of
  model-a with temperature 0.9 (other settings); a re-run of model-b with the same settings
  and another seed (a new run).
- inspect/json/: capitals, both models, one epoch, `log_format="json"`.
- inspect/retry/: arith with sigtest/flaky, which fails on one sample the first time (an
  `error` log holding the samples done), then `eval_retry` of that log (a `success` log).
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from inspect_ai import Task, eval, eval_retry, task
from inspect_ai.dataset import json_dataset
from inspect_ai.model import (
    ChatMessage,
    GenerateConfig,
    ModelAPI,
    ModelOutput,
    modelapi,
)
from inspect_ai.scorer import includes, match
from inspect_ai.solver import generate
from inspect_ai.tool import ToolChoice, ToolInfo

ARITH = [
    {"id": 1, "input": "What is 2 + 3? Answer with the number only.", "target": "5"},
    {"id": 2, "input": "What is 7 * 6? Answer with the number only.", "target": "42"},
    {"id": 3, "input": "What is 10 - 4? Answer with the number only.", "target": "6"},
    {"id": 4, "input": "What is 9 + 8? Answer with the number only.", "target": "17"},
    {"id": 5, "input": "What is 12 / 3? Answer with the number only.", "target": "4"},
    {"id": 6, "input": "What is 5 * 5? Answer with the number only.", "target": "25"},
]
CAPITALS = [
    {"id": "cap-fr", "input": "Capital of France?", "target": "Paris"},
    {"id": "cap-jp", "input": "Capital of Japan?", "target": "Tokyo"},
    {"id": "cap-pe", "input": "Capital of Peru?", "target": "Lima"},
    {"id": "cap-ke", "input": "Capital of Kenya?", "target": "Nairobi"},
]
#: `passages` (inspect_clustered_run.py): 4 passages × 4 questions, the passage in metadata
PASSAGES = [
    {"id": f"p{p}-q{q}", "input": f"Passage {p}: what is {p * 10 + q} + {q}? Answer with the "
     "number only.", "target": str(p * 10 + 2 * q), "metadata": {"passage": f"passage-{p}"}}
    for p in range(1, 5) for q in range(1, 5)
]
ANSWERS = {row["input"]: row["target"] for row in ARITH + CAPITALS + PASSAGES}
FAILED: set[str] = set()  # across model instances: eval_retry makes a new one
DATA = Path(sys.argv[1] if len(sys.argv) > 1 else ".").resolve() / "_data"


@modelapi(name="sigtest")
class SigtestAPI(ModelAPI):
    """Answers right unless a hash of (model, prompt, temperature, visit) says otherwise."""

    def __init__(
        self,
        model_name: str,
        base_url: str | None = None,
        api_key: str | None = None,
        config: GenerateConfig = GenerateConfig(),  # noqa: B008 - Inspect's ModelAPI signature
        **model_args: Any,
    ) -> None:
        super().__init__(model_name, base_url, api_key, [], config)
        self.seen: Counter[str] = Counter()

    async def generate(
        self,
        input: list[ChatMessage],
        tools: list[ToolInfo],
        tool_choice: ToolChoice,
        config: GenerateConfig,
    ) -> ModelOutput:
        prompt = input[-1].text
        visit = self.seen[prompt]
        self.seen[prompt] += 1
        if self.model_name == "flaky" and "7 * 6" in prompt and prompt not in FAILED:
            FAILED.add(prompt)
            raise RuntimeError("sigtest/flaky: simulated outage on this sample")
        key = f"{self.model_name}|{prompt}|{config.temperature}|{config.seed}|{visit}"
        digest = int(hashlib.sha256(key.encode()).hexdigest(), 16)
        right = ANSWERS.get(prompt, "?")
        threshold = {"model-a": 8, "model-b": 5, "flaky": 7}.get(self.model_name, 5)
        if prompt.startswith("Passage "):  # questions of one passage fail together
            passage = prompt.split(":", 1)[0]
            hard = int(hashlib.sha256(f"{self.model_name}|{passage}".encode()).hexdigest(), 16)
            threshold = 2 if hard % 3 == 0 else 9
        roll = digest % 10
        if roll < threshold:
            answer = right
        elif roll < threshold + 1:  # `includes` finds the target in it, `match` does not
            answer = f"{right}0"
        else:
            answer = str(int(right) + 1) if right.isdigit() else "Unknown"
        return ModelOutput.from_content(model=self.model_name, content=answer)


def _write(name: str, rows: list[dict[str, Any]]) -> str:
    DATA.mkdir(parents=True, exist_ok=True)
    path = DATA / f"{name}.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return str(path)


@task
def arith() -> Task:
    return Task(
        dataset=json_dataset(_write("arith", ARITH)),
        solver=generate(),
        scorer=[match(), includes()],
    )


@task
def capitals() -> Task:
    return Task(dataset=json_dataset(_write("capitals", CAPITALS)), solver=generate(), scorer=match())


def main(out: Path) -> None:
    common: dict[str, Any] = {"display": "none", "max_samples": 1, "max_tasks": 1}
    ev = str(out / "eval")
    for model in ("sigtest/model-a", "sigtest/model-b"):
        eval(arith(), model=model, epochs=2, temperature=0.0, seed=1, log_dir=ev, **common)
    eval(arith(), model="sigtest/model-a", epochs=2, temperature=0.9, seed=1, log_dir=ev, **common)
    eval(arith(), model="sigtest/model-b", epochs=2, temperature=0.0, seed=2, log_dir=ev, **common)
    js = str(out / "json")
    for model in ("sigtest/model-a", "sigtest/model-b"):
        eval(capitals(), model=model, temperature=0.0, log_dir=js, log_format="json", **common)
    rt = str(out / "retry")
    [first] = eval(arith(), model="sigtest/flaky", temperature=0.0, seed=1, log_dir=rt, **common)
    if first.status != "error":
        raise SystemExit(f"expected the flaky run to fail, got {first.status}")
    eval_retry(first, log_dir=rt, display="none", max_samples=1)


if __name__ == "__main__":
    main(Path(sys.argv[1]).resolve())
