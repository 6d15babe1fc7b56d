"""System names for one model's lm-eval invocations under other settings.

The same model run with another chat template, system instruction, few-shot count,
``--gen_kwargs`` or model argument is another system (docs/formats.md, "lm-evaluation-harness":
"the same model with a different prompt or few-shot setting is a different system"). Its
name says what differs between that model's invocations, shortly:

* only settings that differ between the model's invocations on some benchmark, and of those
  only the ones needed to tell the invocations apart (``fewshot_as_multiturn``, which
  ``--apply_chat_template`` switches on with the template, is left out when the template
  already tells them apart);
* a setting the invocation did not set (lm-eval's default) is left out, not written
  ``=default``: the invocation with every default keeps the bare model name;
* hashes (``chat_template_sha``, ``system_instruction_sha``: 64 hex digits) shortened to
  their first 8 digits, as git shortens commit ids.

The full settings stay in the system's settings columns (``chat_template_sha``,
``model_args``, ``gen_kwargs``, …), one click away.
"""

from __future__ import annotations

import json
import re
from dataclasses import replace
from typing import Any

from ._common import Part, _flat
from ._report import Skips

__all__ = ["name_variants"]

#: which differing setting names a variant first (a chat template changes every prompt)
_ORDER = ("chat_template_sha", "system_instruction_sha", "num_fewshot")
_LAST = ("fewshot_as_multiturn",)  # follows from --apply_chat_template unless set alone
_HEX = re.compile(r"^[0-9a-f]{16,}$")
SHORT_HASH = 8


def _rank(key: str) -> tuple[int, str]:
    if key in _ORDER:
        return _ORDER.index(key), key
    return (len(_ORDER) + (1 if key in _LAST else 0)), key


def _shown(text: str | None) -> str | None:
    """A setting's value as a name shows it; None when the invocation did not set it."""
    if text is None:
        return None
    value: Any = json.loads(text)
    if value is None:
        return None
    if isinstance(value, str):
        return value[:SHORT_HASH] if _HEX.match(value) else value
    return text


def _needed(idx: list[int], benchmark: list[str], flat: list[dict[str, str]]) -> list[str]:
    """The differing settings, in :func:`_rank` order, that tell invocations apart on some
    benchmark the ones kept before them do not (greedy: a key is kept when it splits two
    invocations of one benchmark that agree on every key kept so far)."""
    keys = sorted({k for i in idx for k in flat[i]}, key=_rank)
    kept: list[str] = []
    for key in keys:
        seen: dict[tuple[str, tuple[str | None, ...]], str | None] = {}
        for i in idx:
            sig = (benchmark[i], tuple(flat[i].get(k) for k in kept))
            value = flat[i].get(key)
            if sig in seen and seen[sig] != value:
                kept.append(key)
                break
            seen.setdefault(sig, value)
    return kept


def name_variants(parts: list[Part], skips: Skips) -> list[Part]:
    """``parts`` with each named model's invocations under other settings named apart
    (``model [chat_template_sha=89bea9b5]``), and one sentence per such model in
    ``skips.decisions``. Parts without a model name (the user names them) are left to
    :func:`engine.harness._common.assemble`."""
    flat = [_flat(p.settings) for p in parts]
    benchmark = [p.benchmark for p in parts]
    by_model: dict[str, list[int]] = {}
    for i, p in enumerate(parts):
        if p.system:
            by_model.setdefault(p.system, []).append(i)
    out = list(parts)
    for model, idx in by_model.items():
        keys = _needed(idx, benchmark, flat)
        if not keys:
            continue
        names: dict[int, str] = {}
        for i in idx:
            shown = [(k, _shown(flat[i].get(k))) for k in sorted(keys)]
            label = ", ".join(f"{k}={v}" for k, v in shown if v is not None)
            names[i] = f"{model} [{label}]" if label else model
            out[i] = replace(parts[i], system=names[i])
        variants = sorted(set(names.values()))
        columns = sorted({k for i in idx for k in parts[i].settings})
        skips.decisions.append(
            f"{model}: invocations with other settings are {len(variants)} systems, named after "
            f"the settings that tell them apart ({', '.join(variants)}); settings left unset "
            f"are not named, hashes show {SHORT_HASH} digits, and the full settings are in the "
            f"columns {', '.join(columns)}")
    return out
