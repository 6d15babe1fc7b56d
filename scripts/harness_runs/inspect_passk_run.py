"""Writes a small Inspect log of repeated tries with the ``pass_k`` reducer, offline (run by
scripts/harness_logs.py with inspect-ai's own venv, harness ``inspect_passk``).

Usage: python inspect_passk_run.py OUT_DIR

Task `agent_tasks`: 10 arithmetic tasks, scorer `match`, run for 8 epochs with the epoch
reducers ``[mean_score(), pass_k(4), pass_at(4)]`` (``Epochs(8, [...])``; Inspect's ``pass_k`` is
C(c, k)/C(n, k) per sample, Yao et al. 2024, and ``pass_at`` Chen et al. 2021's estimator),
so Inspect itself writes the mean over samples of each reduced score into the log's results
(one ``results.scores`` entry per reducer, ``reducer: "pass_k_4"`` etc.). The model API
`sigagent` answers each task right with a per-task probability (a hash of (model, task)
picks it from 0, 0.3, 0.6, 0.9 or 1) and draws each try from a hash of (model, task,
visit): the tries of one task differ (flaky tasks), the same every run. Models
sigagent/agent-a and sigagent/agent-b, temperature 0.7, in the default `.eval` format.
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from inspect_ai import Epochs, Task, eval, task
from inspect_ai.dataset import json_dataset
from inspect_ai.model import ChatMessage, GenerateConfig, ModelAPI, ModelOutput, modelapi
from inspect_ai.scorer import match, mean_score, pass_at, pass_k
from inspect_ai.solver import generate
from inspect_ai.tool import ToolChoice, ToolInfo

TASKS = [{"id": f"task-{i:02d}", "input": f"Task {i}: what is {i} * {i + 3}? Answer with the "
          "number only.", "target": str(i * (i + 3))} for i in range(1, 11)]
ANSWERS = {row["input"]: row["target"] for row in TASKS}
#: the success probability of a task for a model, in tenths, picked by a hash
LEVELS = (0, 3, 6, 9, 10)


@modelapi(name="sigagent")
class SigagentAPI(ModelAPI):
    """Right with a per-(model, task) probability; each try a hash of (model, task, visit)."""

    def __init__(self, model_name: str, base_url: str | None = None, api_key: str | None = None,
                 config: GenerateConfig = GenerateConfig(),  # noqa: B008 - ModelAPI's signature
                 **model_args: Any) -> None:
        super().__init__(model_name, base_url, api_key, [], config)
        self.seen: Counter[str] = Counter()

    async def generate(self, input: list[ChatMessage], tools: list[ToolInfo],
                       tool_choice: ToolChoice, config: GenerateConfig) -> ModelOutput:
        prompt = input[-1].text
        visit = self.seen[prompt]
        self.seen[prompt] += 1
        level = LEVELS[int(hashlib.sha256(f"{self.model_name}|{prompt}".encode()).hexdigest(),
                           16) % len(LEVELS)]
        roll = int(hashlib.sha256(f"{self.model_name}|{prompt}|{visit}".encode()).hexdigest(),
                   16) % 10
        right = ANSWERS.get(prompt, "?")
        answer = right if roll < level else str(int(right) + 1)
        return ModelOutput.from_content(model=self.model_name, content=answer)


def _write(out: Path) -> str:
    path = out / "_data" / "agent_tasks.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(row) + "\n" for row in TASKS))
    return str(path)


def main(out: Path) -> None:
    data = _write(out)

    @task
    def agent_tasks() -> Task:
        return Task(dataset=json_dataset(data), solver=generate(), scorer=match(),
                    epochs=Epochs(8, [mean_score(), pass_k(4), pass_at(4)]))

    common: dict[str, Any] = {"display": "none", "max_samples": 1, "max_tasks": 1}
    for model in ("sigagent/agent-a", "sigagent/agent-b"):
        eval(agent_tasks(), model=model, temperature=0.7, log_dir=str(out / "eval"), **common)


if __name__ == "__main__":
    main(Path(sys.argv[1]).resolve())
