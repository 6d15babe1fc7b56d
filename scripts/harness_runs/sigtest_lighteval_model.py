"""A deterministic lighteval custom model for scripts/harness_runs/lighteval_run.py.

lighteval loads this file by path (`lighteval custom MODEL_NAME THIS_FILE TASKS`) and uses its
one `LightevalModel` subclass. Answers are a hash of (model name, query): no weights, no
tokenizer download.
"""

from __future__ import annotations

import hashlib

from lighteval.models.abstract_model import LightevalModel
from lighteval.models.model_output import ModelResponse
from lighteval.tasks.requests import Doc
from lighteval.utils.cache_management import SampleCache


def _digest(*parts: object) -> int:
    return int(hashlib.sha256("|".join(map(str, parts)).encode()).hexdigest(), 16)


class SigtestModel(LightevalModel):
    def __init__(self, config) -> None:  # type: ignore[no-untyped-def]
        self.config = config
        self.name = config.model_name
        self._cache = SampleCache(config)  # the pipeline registers its tasks with it

    @property
    def tokenizer(self):  # type: ignore[no-untyped-def]
        return None

    @property
    def add_special_tokens(self) -> bool:
        return False

    @property
    def max_length(self) -> int:
        return 2048

    def greedy_until(self, docs: list[Doc]) -> list[ModelResponse]:
        out = []
        for doc in docs:
            gold = doc.choices[doc.gold_index if isinstance(doc.gold_index, int) else doc.gold_index[0]]
            right = _digest(self.name, doc.query) % 10 < (8 if self.name.endswith("a") else 5)
            out.append(ModelResponse(input=doc.query, text=[gold if right else f"{gold}?"]))
        return out

    def loglikelihood(self, docs: list[Doc]) -> list[ModelResponse]:
        out = []
        for doc in docs:
            logprobs = [-(_digest(self.name, doc.query, c) % 500) / 100.0 for c in doc.choices]
            out.append(ModelResponse(input=doc.query, logprobs=logprobs,
                                     argmax_logits_eq_gold=[False for _ in doc.choices]))
        return out

    def loglikelihood_rolling(self, docs: list[Doc]) -> list[ModelResponse]:
        return [ModelResponse(logprobs=[-(_digest(self.name, d.query) % 500) / 10.0]) for d in docs]
