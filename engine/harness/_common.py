"""Shared steps of every harness reader: score values, parts, and assembly into the long table.

A reader turns each per-example file into one or more :class:`Part` objects (rows of one
benchmark × system × invocation, plus that system's settings). :func:`assemble` then

1. resolves the system (the log's name, the user's override, or a directory fallback);
2. splits one model run under different settings (prompt, few-shot, chat template,
   generation config) into different systems, because those are different systems;
3. numbers separate invocations of the same system on the same benchmark as runs;
4. concatenates, rejects an upload with nothing usable (saying why), and validates.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from .._contract import REQUIRED_COLUMNS, DataContractError, MetricSpec, Problem, validate_long
from ._pairing import split_conflicts
from ._report import HarnessImport, Skips, describe_skips
from ._reruns import merge_retries, settings_sentences

__all__ = ["Part", "assemble", "metadata_text", "short_hash", "to_score"]

_ROW_COLUMNS = ("example_id", "metric", "value")


def to_score(value: Any) -> tuple[float | None, str | None]:
    """A per-example value as a float, or ``(None, reason)`` when it is not a score.

    Booleans and numbers are scores (bool → 0/1); ``NaN`` and infinities, ``null``,
    strings, lists and dicts are not, and are never turned into 0.

    >>> to_score(True), to_score([1, 0]), to_score(float("nan"))
    ((1.0, None), (None, 'list'), (None, 'nan'))
    """
    if isinstance(value, bool | np.bool_):
        return float(value), None
    if isinstance(value, int | float | np.integer | np.floating):
        number = float(value)
        if math.isnan(number):
            return None, "nan"
        if math.isinf(number):
            return None, "infinite"
        return number, None
    if value is None:
        return None, "null"
    if isinstance(value, list | tuple | np.ndarray):
        return None, "list"
    if isinstance(value, dict):
        return None, "dict"
    return None, "string"


def metadata_text(value: Any) -> Any:
    """A metadata cell: scalars as they are, containers as sorted JSON text."""
    if isinstance(value, dict | list | tuple):
        return json.dumps(value, sort_keys=True, default=str)
    return value


def short_hash(text: str) -> str:
    """First 16 hex digits of SHA-256: a stable example id for content without one."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


@dataclass
class Part:
    """Rows of one benchmark × system × invocation, read from one per-example file.

    ``rows`` holds ``example_id, metric, value``, optionally ``run`` and example
    metadata columns. ``settings`` are system-defining (a change makes another system);
    ``meta`` is other system metadata. ``system`` is None when the log does not name the
    model; ``system_hint`` is then the fallback (a directory name). ``seed`` tells a retry
    (the same seed) from a re-run (:func:`engine.harness._reruns.merge_retries`).
    """

    source: str
    benchmark: str
    system: str | None
    rows: pd.DataFrame
    invocation: str = ""
    settings: dict[str, Any] = field(default_factory=dict)
    meta: dict[str, Any] = field(default_factory=dict)
    system_hint: str | None = None
    #: the invocation's seed(s) as the log records them; None = not recorded
    seed: Any = None
    #: the reader already told retries from re-runs (Inspect: :mod:`engine.harness._reruns`)
    retried: bool = False
    #: the harness's primary metric of the benchmark as the log names it (lm-eval: the task's
    #: first metric with its first filter; Inspect: the first scorer); None = not named
    primary: str | None = None


def _resolve_systems(parts: list[Part], override: str | None) -> list[str]:
    if override is not None:
        if not override.strip():
            raise ValueError(f"system: must be a non-empty name; got {override!r}")
        named = sorted({p.system for p in parts if p.system})
        if len(named) > 1:
            shown = ", ".join(named[:5]) + (" …" if len(named) > 5 else "")
            raise DataContractError([Problem(
                parts[0].source, rule=f"a system override ({override!r}) was given but the logs "
                f"name {len(named)} systems ({shown})",
                fix="upload one system's logs at a time with the override, or drop the override")])
        return [override.strip()] * len(parts)
    out = []
    for p in parts:
        name = p.system or p.system_hint
        if not name:
            raise DataContractError([Problem(
                p.source, rule="the log does not name the model, and no companion file or "
                "directory does", fix="pass the system name (read_harness(..., system='org/model'), "
                "`--system` on the command line), or upload the whole output directory")])
        out.append(name)
    return out


def _flat(settings: Mapping[str, Any]) -> dict[str, str]:
    """Settings one level flat, as text: a dict setting gives its keys (``gen_kwargs`` →
    ``temperature``), prefixed only where two would collide."""
    out: dict[str, str] = {}
    for key, value in settings.items():
        if isinstance(value, dict) and value:
            for inner, leaf in value.items():
                name = str(inner) if str(inner) not in settings and str(inner) not in out \
                    else f"{key}.{inner}"
                out[name] = json.dumps(metadata_text(leaf), default=str)
        else:
            out[key] = json.dumps(metadata_text(value), default=str)
    return out


def _split_by_settings(parts: list[Part], systems: list[str]) -> list[str]:
    """Same model, different settings on one benchmark → different systems (suffixed).

    The settings that differ on any benchmark name every part of that model, so one
    invocation (one set of settings) keeps one system name across all its benchmarks.
    """
    flat = [_flat(p.settings) for p in parts]
    groups: dict[tuple[str, str], list[int]] = {}
    for i, p in enumerate(parts):
        groups.setdefault((p.benchmark, systems[i]), []).append(i)
    differing: dict[str, set[str]] = {}
    for (_, system), idx in groups.items():
        keys = sorted({k for i in idx for k in flat[i]})
        for key in keys:
            if len({flat[i].get(key) for i in idx}) > 1:
                differing.setdefault(system, set()).add(key)
    out = list(systems)
    for i, system in enumerate(systems):
        if system in differing:
            label = ", ".join(f"{k}={_shown(flat[i].get(k))}" for k in sorted(differing[system]))
            out[i] = f"{system} [{label}]"
    return out


def _shown(text: str | None) -> str:
    if text is None or text == "null":
        return "default"
    value = json.loads(text)
    return value if isinstance(value, str) else text


def _run_offsets(parts: list[Part], systems: list[str]) -> tuple[list[int], bool]:
    """Run offset per part: separate invocations of one system on one benchmark are runs."""
    groups: dict[tuple[str, str], list[int]] = {}
    for i, p in enumerate(parts):
        groups.setdefault((p.benchmark, systems[i]), []).append(i)
    offsets = [0] * len(parts)
    several = False
    for idx in groups.values():
        if len(idx) < 2:
            continue
        several = True
        nxt = None
        for i in sorted(idx, key=lambda j: (parts[j].invocation, parts[j].source)):
            runs = parts[i].rows["run"] if "run" in parts[i].rows.columns else pd.Series([0])
            lo, hi = int(runs.min()), int(runs.max())
            offsets[i] = 0 if nxt is None else nxt - lo
            nxt = hi + offsets[i] + 1
    return offsets, several


def _check_part(p: Part) -> None:
    keys = ["example_id", "metric", *(["run"] if "run" in p.rows.columns else [])]
    dup = p.rows.duplicated(subset=keys, keep=False)
    if dup.any():
        first = p.rows.loc[dup].iloc[0]
        raise DataContractError([Problem(
            p.source, rule=f"example {first['example_id']} has two scores for metric "
            f"{first['metric']} in one run", fix="upload each run's log once (duplicated lines?)")])


def assemble(parts: list[Part], *, fmt: str, skips: Skips, label: str,
             specs: Mapping[tuple[str, str], MetricSpec] | None = None,
             system: str | None = None, files: Iterable[str] = ()) -> HarnessImport:
    """Parts → the validated :class:`HarnessImport` (see the module docstring)."""
    usable = [p for p in parts if len(p.rows)]
    if not usable:
        why = describe_skips(skips.frame(), skips.notes) if skips.counts else "no per-example rows"
        raise DataContractError([Problem(
            label, rule=f"nothing usable to import ({why})",
            fix="upload per-example logs with numeric or boolean scores (lm-eval --log_samples, "
            "Inspect .eval, HELM per_instance_stats.json, lighteval --save-details, …)")])
    models = _resolve_systems(usable, system)
    systems = _split_by_settings(usable, models)
    skips.decisions += settings_sentences(usable, models, systems)
    usable, systems = merge_retries(usable, systems, skips)
    offsets, several = _run_offsets(usable, systems)
    with_run = several or any("run" in p.rows.columns for p in usable)
    frames = []
    for p, off in zip(usable, offsets, strict=True):
        rows = p.rows
        if with_run:
            run = rows["run"].to_numpy(np.int64) if "run" in rows.columns else np.zeros(len(rows), np.int64)
            rows = rows.assign(run=run + off)
        frames.append(rows)
    df = pd.concat(frames, ignore_index=True)
    # per-part constants gathered by part index: one column build each, not one per part
    where = np.repeat(np.arange(len(usable)), [len(p.rows) for p in usable])
    consts: dict[str, list[Any]] = {"benchmark": [p.benchmark for p in usable], "system": systems}
    names = list(dict.fromkeys(k for p in usable for k in (*p.settings, *p.meta)))
    for key in names:
        consts[key] = [metadata_text({**p.settings, **p.meta}.get(key)) for p in usable]
    for key, per_part in consts.items():
        column = np.empty(len(per_part), dtype=object)
        column[:] = per_part
        df[key] = pd.Series(column[where], dtype=object, index=df.index)  # no str inference
    canon = [*REQUIRED_COLUMNS, *(["run"] if with_run else [])]
    df = df[canon + [c for c in df.columns if c not in canon]]
    df, said = split_conflicts(df)
    try:
        df = validate_long(df, source=label, require_comparison=False)
    except DataContractError as exc:
        if any(p.rule.startswith("duplicate key") for p in exc.problems):
            for p in usable:  # name the file that holds the duplicate
                _check_part(p)
        raise
    kept = {(b, m) for b, m in df[["benchmark", "metric"]].drop_duplicates().itertuples(index=False)}
    df.attrs["primary_metrics"] = _primaries(usable, kept, fmt)
    named = tuple(dict.fromkeys(files or (p.source for p in usable)))
    return HarnessImport(frame=df, format=fmt,
                         specs={k: v for k, v in (specs or {}).items() if k in kept},
                         skipped=skips.frame(), files=named, notes=dict(skips.notes),
                         unreadable=tuple(skips.unreadable),
                         decisions=tuple([*skips.decisions, *said]),
                         clusters={b: c for b, c in skips.clusters.items()
                                   if b in set(df["benchmark"]) and c in df.columns})


def _primaries(parts: list[Part], kept: set[tuple[str, str]],
               fmt: str) -> dict[str, tuple[str, str]]:
    """``benchmark → (metric, harness)`` for the benchmarks whose logs agree on one primary
    metric that was imported (a benchmark whose logs name two is left out: no default)."""
    named: dict[str, set[str | None]] = {}
    for p in parts:
        named.setdefault(p.benchmark, set()).add(p.primary)
    return {b: (m, fmt) for b, ms in named.items() if len(ms) == 1
            for m in ms if m is not None and (b, m) in kept}
