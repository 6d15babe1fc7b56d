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
- inspect/variants/: task `hinted` (the first 3 arith samples) run with its task argument
  `hint` false and true (`-T hint=true`): the hint is a system message the task puts into
  each sample's input, so the two logs hold other inputs for the same dataset samples.
- inspect/interrupted/: arith, 2 epochs, with sigtest/interrupt, which raises
  KeyboardInterrupt on the first sample of epoch 2 (a `cancelled` log holding epoch 1); and
  arith with sigtest/slow in a child process SIGKILLed once the log holds a sample (a
  `.eval` without header.json: only `_journal/start.json` and the samples written).

`python inspect_run.py OUT_DIR PART...` writes only the named parts: `base` (eval/, json/,
retry/), `variants`, `interrupted`. Without parts it writes `base`, then the other two in a
fresh process: the sigtest model counts the visits of each prompt within a process (model
instances are cached across `eval()` calls), so what ran before changes the answers.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import os
import signal
import subprocess
import sys
import time
import zipfile
from collections import Counter
from pathlib import Path
from typing import Any

from inspect_ai import Task, eval, eval_retry, task
from inspect_ai.dataset import MemoryDataset, Sample, json_dataset
from inspect_ai.log import read_eval_log
from inspect_ai.model import (
    ChatMessage,
    ChatMessageSystem,
    ChatMessageUser,
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
        if self.model_name == "interrupt" and visit == 1:  # epoch 2: Ctrl-C, as a user would
            os.kill(os.getpid(), signal.SIGINT)
            await asyncio.sleep(30)  # cancelled meanwhile
        if self.model_name == "slow":  # time for the parent to kill the run mid-way
            await asyncio.sleep(0.5)
        system = " ".join(m.text for m in input if m.role == "system")
        key = f"{self.model_name}|{prompt}|{config.temperature}|{config.seed}|{visit}"
        key += f"|{system}" if system else ""  # a hint changes the answers (variants only)
        digest = int(hashlib.sha256(key.encode()).hexdigest(), 16)
        right = ANSWERS.get(prompt, "?")
        threshold = {"model-a": 8, "model-b": 5, "flaky": 7}.get(self.model_name, 5)
        threshold += 3 if system else 0  # the hint helps
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


HINT = "Hint: work the sum out step by step before you answer."


@task
def hinted(hint: bool = False) -> Task:
    """The first 3 arith samples; ``hint`` adds a system message to each sample's input."""
    system = [ChatMessageSystem(content=HINT)] if hint else []
    samples = [Sample(id=r["id"], input=[*system, ChatMessageUser(content=r["input"])],
                      target=r["target"]) for r in ARITH[:3]]
    return Task(dataset=MemoryDataset(samples, name="arith3"), solver=generate(), scorer=match())


COMMON: dict[str, Any] = {"display": "none", "max_samples": 1, "max_tasks": 1}


def variants(out: Path) -> None:
    for hint in (False, True):
        eval(hinted(hint=hint), model="sigtest/model-a", temperature=0.0, seed=1,
             log_dir=str(out / "variants"), **COMMON)


def interrupted(out: Path) -> None:
    dest = out / "interrupted"
    with contextlib.suppress(KeyboardInterrupt):  # it returns no log: read the one it wrote
        eval(arith(), model="sigtest/interrupt", epochs=2, temperature=0.0, seed=1,
             log_dir=str(dest), **COMMON)
    [cancelled] = dest.glob("*.eval")
    status = read_eval_log(str(cancelled), header_only=True).status
    if status != "cancelled":
        raise SystemExit(f"expected the interrupted run to be cancelled, got {status}")
    killed = dest / "_killed"
    child = subprocess.Popen([sys.executable, __file__, str(out), "_slow"])
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and child.poll() is None:
        logs = list(killed.glob("*.eval"))
        if logs and _has_sample(logs[0]):
            break
        time.sleep(0.05)
    os.kill(child.pid, signal.SIGKILL)
    child.wait()
    [log_path] = killed.glob("*.eval")
    if "header.json" in zipfile.ZipFile(log_path).namelist():
        raise SystemExit(f"{log_path} has header.json: the run finished before it was killed")
    log_path.rename(dest / log_path.name)
    killed.rmdir()


def _has_sample(path: Path) -> bool:
    try:
        return any(n.startswith("samples/") for n in zipfile.ZipFile(path).namelist())
    except (zipfile.BadZipFile, OSError):  # being written
        return False


def _slow(out: Path) -> None:
    eval(arith(), model="sigtest/slow", temperature=0.0, seed=1, log_buffer=1,
         log_dir=str(out / "interrupted" / "_killed"), **COMMON)


def main(out: Path, parts: list[str]) -> None:
    common = COMMON
    if parts == ["_slow"]:
        return _slow(out)
    if "variants" in parts:
        variants(out)
    if "interrupted" in parts:
        interrupted(out)
    if "base" not in parts:
        return
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
    main(Path(sys.argv[1]).resolve(), sys.argv[2:] or ["base"])
    if not sys.argv[2:]:  # a fresh process: the model's visit counts start at 0
        subprocess.run([sys.executable, __file__, sys.argv[1], "variants", "interrupted"], check=True)
