"""Harness logs with their usage: tokens, times and cost beside the scores.

:func:`read_harness` imports scores only, so an upload's metrics (and every board computed
from them) do not change. :func:`read_with_usage` reads the same logs with each example's
usage as further metrics, declared lower-is-better (:class:`~engine._contract.MetricSpec`):

- Inspect: ``tokens_in``, ``tokens_out`` (``model_usage``), ``cost`` (``model_usage``'s
  ``total_cost``, when recorded), ``latency_s`` (``total_time``), ``working_s``
  (``working_time``), per sample and epoch (:func:`engine.harness._inspect.usage_values`);
- promptfoo: ``cost``, ``latency_ms`` (``latencyMs``), ``tokens_in``, ``tokens_out``
  (``response.tokenUsage``), per result (:func:`engine.harness._promptfoo.usage_values`);
- HELM: ``tokens_in`` (``num_prompt_tokens``), ``tokens_out`` (``num_completion_tokens``),
  ``latency_s`` (``inference_runtime``), per instance and trial
  (:data:`engine.harness._helm.USAGE_STATS`).

lm-eval (0.4) records no usage per example (only a run's ``total_evaluation_time_seconds``),
so its import is the same with usage or without; lighteval and OpenAI evals likewise. Other
formats are read as :func:`read_harness` reads them. A plain table's ``cost`` or
``latency_ms`` column of a long table is a metric like any other: its direction is declared
as for any metric (a ``higher_is_better`` column, or the upload's metric settings).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ._report import HarnessImport
    from ._walk import Source

__all__ = ["read_with_usage"]


def read_with_usage(source: Source, *, format: str | None = None,  # noqa: A002 - the CLI's name
                    system: str | None = None, name: str | None = None) -> HarnessImport:
    """:func:`engine.harness.read_harness` with ``usage=True``: the usage metrics of Inspect,
    promptfoo and HELM beside the scores.

    >>> import json
    >>> line = json.dumps({"provider": {"id": "m"}, "testCase": {"description": "t1"},
    ...                    "success": True, "score": 1, "cost": 0.5, "latencyMs": 20})
    >>> out = read_with_usage(("r.jsonl", line.encode()), format="promptfoo")
    >>> out.frame[["metric", "value"]].values.tolist()
    [['pass', 1.0], ['score', 1.0], ['cost', 0.5], ['latency_ms', 20.0]]
    >>> out.specs[("r", "cost")].higher_is_better
    False
    """
    from . import read_harness

    return read_harness(source, format=format, system=system, name=name, usage=True)
