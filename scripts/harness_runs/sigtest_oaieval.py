"""A deterministic openai/evals completion fn (``oaieval sigtest/model-a …``): no network.

Registered in the driver's registry (``completion_fns/sigtest.yaml``) as
``sigtest_oaieval:SigtestCompletionFn``. It answers a ``sigtest_data.ARITH`` question with
its answer unless a hash of (model, prompt) makes it miss (the answer plus one), and records
the sampling event as the built-in OpenAI completion fns do (``evals.record.record_sampling``).
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from evals.record import record_sampling
from sigtest_data import ARITH

ANSWERS = {row["question"]: row["answer"] for row in ARITH}


class SigtestResult:
    def __init__(self, text: str) -> None:
        self.text = text

    def get_completions(self) -> list[str]:
        return [self.text]


class SigtestCompletionFn:
    def __init__(self, model: str = "model", **kwargs: Any) -> None:
        self.model = model

    def __call__(self, prompt: Any, **kwargs: Any) -> SigtestResult:
        text = json.dumps(prompt, sort_keys=True)
        question = prompt[-1]["content"] if isinstance(prompt, list) else str(prompt)
        right = ANSWERS.get(question.strip(), "0")
        miss = hashlib.sha256(f"{self.model}\n{text}".encode()).digest()[0] % 3 == 0
        answer = str(int(right) + 1) if miss else right
        record_sampling(prompt=prompt, sampled=[answer], model=f"sigtest-{self.model}")
        return SigtestResult(answer)
