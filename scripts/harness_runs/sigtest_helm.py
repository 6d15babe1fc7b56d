"""A deterministic HELM client for scripts/harness_runs/helm_run.py (imported by HELM by class name).

`SigtestClient` answers HELM's built-in simple scenarios (parity of two-digit numbers, as a
multiple-choice letter or as a class name) from a hash of (model engine, prompt): model-a is
right more often than model-b. No network, no weights.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

from helm.clients.client import CachingClient
from helm.common.cache import CacheConfig
from helm.common.request import GeneratedOutput, Request, RequestResult, Token, wrap_request_time


def _answer(engine: str, prompt: str) -> str:
    numbers = re.findall(r"\b(\d\d)\b", prompt)
    parity = int(numbers[-1]) % 2 if numbers else 0
    digest = int(hashlib.sha256(f"{engine}|{prompt}".encode()).hexdigest(), 16) % 10
    right = digest < (8 if engine.endswith("a") else 5)
    even = (parity == 0) == right
    if "single letter" in prompt:
        return " A" if even else " B"
    return " Even" if even else " Odd"


class SigtestClient(CachingClient):
    def __init__(self, cache_config: CacheConfig):
        super().__init__(cache_config=cache_config)

    def make_request(self, request: Request) -> RequestResult:
        raw: dict[str, Any] = {"engine": request.model_engine, "prompt": request.prompt}

        def do_it() -> dict[str, Any]:
            return {"completions": [_answer(request.model_engine, request.prompt)]}

        response, cached = self.cache.get(
            CachingClient.make_cache_key(raw, request), wrap_request_time(do_it)
        )
        completions = [
            GeneratedOutput(text=text, logprob=0.0, tokens=[Token(text=text, logprob=0.0)])
            for text in response["completions"]
        ]
        return RequestResult(
            success=True,
            cached=cached,
            request_time=response["request_time"],
            request_datetime=response.get("request_datetime"),
            completions=completions,
            embedding=[],
        )
