"""Which harness wrote a file: recognised from its name and its first bytes (docs/formats.md,
"How an upload is read").

Cheap checks, in order: file names the harnesses always use (``samples_*.jsonl``,
``per_instance_stats.json``, ``details_*.parquet``, ``*.eval``), zip magic with Inspect's
members, the Parquet schema, the keys of the first JSON line or of the JSON object.
Companion files (``results_*.json``, ``run_spec.json``, …) are not logs themselves: the
readers use them for the system name, settings and directions. A ``results*.json`` that holds
a promptfoo eval (``promptfoo eval -o results.json``, its usual name) is a log.
"""

from __future__ import annotations

import json
import re
from typing import Any

from ._walk import LogFile, is_inspect_zip, open_zip

__all__ = ["COMPANION", "classify", "table_kind"]

#: Marks a file that only accompanies logs (or is not data at all).
COMPANION = "companion"

_COMPANION_NAMES = re.compile(
    r"^(results(_.*)?\.json|run_spec\.json|stats\.json|display_predictions\.json|"
    r"display_requests\.json|scenario(_state)?\.json|instances\.json|costs\.json|"
    r".*\.(md|html|txt|yaml|yml|log|py|png|svg))(\.gz)?$", re.I)
_RESULTS_NAME = re.compile(r"^results(_.*)?\.json(\.gz)?$", re.I)
_HEAD = 1 << 16


def _first_json(data: bytes) -> Any:
    """The first JSON value: the first line of JSON Lines, else the whole document."""
    text = data.lstrip(b"\xef\xbb\xbf \t\r\n")
    line = text.split(b"\n", 1)[0]
    try:
        return json.loads(line)
    except (json.JSONDecodeError, UnicodeDecodeError):
        pass
    try:
        return json.loads(text)
    except (json.JSONDecodeError, UnicodeDecodeError):
        return None


def _from_json(obj: Any) -> str | None:
    if isinstance(obj, list):
        first = obj[0] if obj else None
        if isinstance(first, dict) and "doc_id" in first:
            return "lm-eval"
        if isinstance(first, dict) and "instance_id" in first and "stats" in first:
            return "helm"
        return None
    if not isinstance(obj, dict):
        return None
    keys = obj.keys()
    from ._eee import is_aggregate, is_instance

    if is_aggregate(obj) or is_instance(obj):
        return "eee"
    if isinstance(obj.get("spec"), dict) and "completion_fns" in obj["spec"]:
        return "openai-evals"
    if "doc_id" in keys and ({"doc", "arguments", "resps", "filtered_resps"} & keys):
        return "lm-eval"
    if "evalId" in keys and isinstance(obj.get("results"), dict):
        return "promptfoo"
    if {"promptIdx", "testIdx", "provider"} <= keys:
        return "promptfoo"
    if isinstance(obj.get("eval"), dict) and "version" in keys:
        return "inspect"
    if "results" in keys and ("configs" in keys or "config_general" in keys):
        return COMPANION
    return None


def table_kind(data: bytes) -> str | None:
    """``lighteval`` for a details parquet, else None (a plain table)."""
    from ._lighteval import parquet_columns

    names = set(parquet_columns(data) or ())
    if {"doc", "metric", "model_response"} <= names or {"example", "metrics", "full_prompt"} <= names:
        return "lighteval"
    return None


def classify(f: LogFile) -> str | None:
    """A harness format, :data:`COMPANION`, or None (not a harness log: maybe a plain table)."""
    from ._lm_eval import is_samples_name

    name = f.name
    lower = name.lower()
    if name == "per_instance_stats.json":
        return "helm"
    if is_samples_name(name):
        return "lm-eval"
    if lower.endswith(".eval"):
        return "inspect"
    if re.match(r"^details_.+\.parquet$", name):
        return "lighteval"
    if _COMPANION_NAMES.match(name):
        if _RESULTS_NAME.match(name) and _from_json(_first_json(f.read())) == "promptfoo":
            return "promptfoo"
        return COMPANION
    data = f.read()
    if data[:4] == b"PK\x03\x04":
        names = open_zip(data, f.label).namelist()
        return "inspect" if is_inspect_zip(names) else None
    if data[:4] == b"PAR1":
        return table_kind(data)
    head = data[:_HEAD].lstrip(b"\xef\xbb\xbf \t\r\n")
    if head[:1] not in (b"{", b"["):
        return None
    return _from_json(_first_json(data))
