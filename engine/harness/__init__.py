"""Importers for the per-example logs that LLM evaluation harnesses write.

:func:`read_harness` takes a file, a directory, a zip of a directory, or bytes with a
name, recognises the harness (:func:`detect_format`) or takes it forced, and returns a
:class:`HarnessImport`: the canonical long table (``benchmark, system, example_id, metric,
value[, run]`` plus system and example metadata columns), the directions the log states,
and a count of every value it did not import, with the reason.

Formats (docs/formats.md describes each: the files read, the mapping, what is skipped):
``lm-eval`` (``--log_samples``), ``inspect`` (``.eval``/``.json``), ``helm``
(``per_instance_stats.json``), ``lighteval`` (``--save-details``), ``openai-evals``
(record JSONL), ``promptfoo`` (``-o output.json``), ``eee`` (Every Eval Ever aggregate and
instance-level records), and sigboard's own ``long``/``wide``
tables (read by :func:`engine.io._readers.read_results`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from functools import partial

import pandas as pd

from .._contract import USAGE_METRICS, DataContractError, MetricSpec, Problem, validate_long
from ..io._readers import metric_specs_of, read_results_bytes
from ._common import Part, assemble
from ._detect import COMPANION, classify
from ._eee import read_eee
from ._helm import read_helm
from ._inspect import read_inspect
from ._lighteval import read_lighteval
from ._lm_eval import read_lm_eval
from ._openai_evals import read_openai_evals
from ._promptfoo import read_promptfoo
from ._report import SKIP_COLUMNS, HarnessImport, Skips
from ._walk import LogFile, Source, certainly_shallow, walk

__all__ = ["HARNESS_FORMATS", "SKIP_COLUMNS", "HarnessImport", "detect_format", "read_harness"]

#: Every format :func:`read_harness` reads, as ``format=`` accepts it.
HARNESS_FORMATS: tuple[str, ...] = ("lm-eval", "inspect", "helm", "lighteval", "openai-evals",
                                    "promptfoo", "eee", "long", "wide")

_Reader = Callable[[list[LogFile], list[LogFile], Skips],
                   tuple[list[Part], dict[tuple[str, str], MetricSpec]]]
_READERS: dict[str, _Reader] = {
    "lm-eval": read_lm_eval, "inspect": read_inspect, "helm": read_helm,
    "lighteval": read_lighteval, "openai-evals": read_openai_evals, "promptfoo": read_promptfoo,
    "eee": read_eee,
}
#: the readers that also give each example's usage (tokens, times, cost) as metrics
_WITH_USAGE: dict[str, _Reader] = {"inspect": partial(read_inspect, usage=True),
                                   "promptfoo": partial(read_promptfoo, usage=True),
                                   "helm": partial(read_helm, usage=True),
                                   "eee": partial(read_eee, usage=True)}


def _check_format(fmt: str | None) -> str | None:
    if fmt is None:
        return None
    norm = str(fmt).strip().lower().replace("_", "-")
    norm = {"lm-evaluation-harness": "lm-eval", "lmeval": "lm-eval", "openai": "openai-evals",
            "oaieval": "openai-evals", "inspect-ai": "inspect",
            "every-eval-ever": "eee"}.get(norm, norm)
    if norm not in HARNESS_FORMATS:
        raise ValueError(f"format: must be one of {'|'.join(HARNESS_FORMATS)} or None (detect); "
                         f"got {fmt!r}")
    return norm


def _classified(files: list[LogFile]) -> dict[str, list[LogFile]]:
    groups: dict[str, list[LogFile]] = {}
    for f in files:
        kind = classify(f)
        groups.setdefault(kind or "table", []).append(f)
    return groups


def _choose(label: str, groups: dict[str, list[LogFile]]) -> str:
    found = sorted(k for k in groups if k in _READERS)
    if len(found) > 1:
        shown = "; ".join(f"{k}: {groups[k][0].label}" for k in found)
        raise DataContractError([Problem(
            label, rule=f"logs of several harnesses in one upload ({shown})",
            fix="upload each harness's output separately, or force one with format=/--format")])
    if found:
        return found[0]
    if groups.get("table"):
        return "table"
    raise DataContractError([Problem(
        label, rule="no harness log or results table found"
        + (f" (only companion files such as {groups[COMPANION][0].label})" if groups.get(COMPANION) else ""),
        fix="upload the per-example files: lm-eval samples_*.jsonl, Inspect .eval/.json, HELM "
        "per_instance_stats.json with run_spec.json, lighteval details_*.parquet, openai/evals "
        "record .jsonl, promptfoo output.json, Every Eval Ever {uuid}.json with "
        "{uuid}_samples.jsonl, or a long/wide CSV")])


def detect_format(source: Source, *, name: str | None = None) -> str:
    """The format of a file, directory or zip, recognised from content and file names.

    Parameters
    ----------
    source : path, bytes, (name, bytes) or binary file object
        As for :func:`read_harness`.
    name : str, optional
        File name of bytes or a buffer (for messages and name-based detection).

    Returns
    -------
    str
        One of :data:`HARNESS_FORMATS`.

    Raises
    ------
    DataContractError
        When nothing is recognised, or several harnesses' logs are mixed.

    Examples
    --------
    >>> detect_format(("samples_gsm8k_2025-03-14T10-22-31.5.jsonl", b'{"doc_id": 0, "doc": {}}'))
    'lm-eval'
    """
    label, files = walk(source, name=name)
    _check_depth(files)
    kind = _choose(label, _classified(files))
    return kind if kind != "table" else _table_format(files[0] if len(files) == 1 else
                                                      _classified(files)["table"][0])


def _check_depth(files: list[LogFile]) -> None:
    """Refuse JSON nested deeper than the limit before any parser sees it: Python's json
    raises RecursionError and pyarrow's reader crashes the process on such input."""
    from ..io._limits import active_limits, limit_error, nesting_depth

    limits = active_limits()
    for f in files:
        if not f.name.lower().endswith((".json", ".jsonl", ".json.gz", ".jsonl.gz", ".eval")) \
                and "." in f.name.rsplit("/", 1)[-1]:
            continue
        if f.name.lower().endswith(".eval"):
            continue  # a zip: its members are checked as they are read
        data = f.read()
        if certainly_shallow(data, limits.max_depth):  # the common case, ~10x faster
            continue
        if nesting_depth(data, stop_above=limits.max_depth) > limits.max_depth:
            raise limit_error(f.label, "max_depth", limits, "a JSON record nests brackets "
                              f"more than {limits.max_depth} levels deep")


def _table_format(f: LogFile) -> str:
    from ..io._formats import canonical_names, frame_from_bytes

    columns = canonical_names([str(c) for c in frame_from_bytes(f.read(), f.label).columns])
    return "long" if {"metric", "value"} <= set(columns) or "value" in columns else "wide"


def _read_tables(files: list[LogFile], fmt: str, system: str | None, label: str) -> HarnessImport:
    frames, specs = [], {}
    for f in files:
        df = read_results_bytes(f.read(), label=f.label)
        for metric, spec in metric_specs_of(df).items():
            for bench in df.loc[df["metric"] == metric, "benchmark"].unique():
                specs[(str(bench), metric)] = spec
        frames.append(df)
    df = pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]
    if system is not None:
        named = sorted(df["system"].unique())
        if len(named) > 1:
            raise DataContractError([Problem(
                label, rule=f"a system override ({system!r}) was given but the table names "
                f"{len(named)} systems", fix="drop the override")])
        df = df.assign(system=system.strip())
    df = validate_long(df, source=label, require_comparison=False)
    return HarnessImport(frame=df, format=fmt, specs=specs,
                         skipped=Skips().frame(), files=tuple(f.label for f in files))


def read_harness(source: Source, *, format: str | None = None,  # noqa: A002 - the CLI's name
                 system: str | None = None, name: str | None = None,
                 usage: bool = False) -> HarnessImport:
    """Read evaluation-harness logs into sigboard's canonical long table.

    Parameters
    ----------
    source : path, bytes, (name, bytes) or binary file object
        A log file, a harness output directory, or a zip of one (several systems and
        tasks at once). A Streamlit ``UploadedFile`` works as is.
    format : str, optional
        Force a format (one of :data:`HARNESS_FORMATS`); detected from content when None.
    system : str, optional
        The system name, for logs that do not name the model (an lm-eval samples file
        without its ``results_*.json``). When given it names every row, so the upload must
        hold one system's logs.
    name : str, optional
        File name of bytes or a buffer (messages, name-based detection).
    usage : bool
        Also each example's usage as lower-is-better metrics where the log records it
        (Inspect, promptfoo, HELM: :mod:`engine.harness._usage`); scores only by default.

    Returns
    -------
    HarnessImport
        ``frame`` (validated with ``require_comparison=False``), ``format``, ``specs``
        ``{(benchmark, metric): MetricSpec}`` for directions the log states, ``skipped``
        (columns ``reason, benchmark, metric, count``) and ``report()``.

    Raises
    ------
    DataContractError
        A malformed log (each problem names the file, the rule and the fix), or an upload
        with nothing usable (saying what was skipped and why).
    ValueError
        An unknown ``format`` or an empty ``system``.

    Notes
    -----
    Non-numeric values (lists of corpus-metric inputs, free strings, null, NaN) and
    errored samples are skipped and counted, never turned into 0. Settings that make a
    run another system (model args, few-shot, chat template hash, generation config,
    solver) become system metadata columns; the same model under two settings in one
    upload becomes two systems, ``name [setting=value]``. Separate invocations of the same
    system on a benchmark (lm-eval/lighteval date_ids, HELM suites) become runs.

    Examples
    --------
    >>> line = b'{"doc_id": 0, "doc": {}, "filter": "none", "metrics": ["acc"], "acc": 1.0}'
    >>> out = read_harness(("m/samples_arc_2025-01-01T00-00-00.1.jsonl", line), system="m")
    >>> out.frame[["benchmark", "system", "example_id", "metric", "value"]].values.tolist()
    [['arc', 'm', '0', 'acc', 1.0]]
    """
    fmt = _check_format(format)
    label, files = walk(source, name=name)
    _check_depth(files)
    groups = _classified(files)
    if fmt is None:
        kind = _choose(label, groups)
        fmt = kind if kind in _READERS else None
        if fmt is None:
            return _read_tables(groups["table"], _table_format(groups["table"][0]), system, label)
    if fmt in ("long", "wide"):
        tables = groups.get("table") or [f for f in files if classify(f) != COMPANION] or files
        return _read_tables(tables, fmt, system, label)
    logs = groups.get(fmt) or [f for k, fs in groups.items() if k != COMPANION for f in fs]
    if not logs:
        raise DataContractError([Problem(label, rule=f"no {fmt} log found in the upload",
                                         fix="check the upload, or let the format be detected")])
    skips = Skips()
    reader = _WITH_USAGE.get(fmt, _READERS[fmt]) if usage else _READERS[fmt]
    parts, specs = reader(sorted(logs, key=lambda f: f.path), files, skips)
    got = assemble(parts, fmt=fmt, skips=skips, label=label, specs=specs, system=system,
                   files=[f.label for f in logs])
    return _usage_last(got) if usage else got


def _usage_last(got: HarnessImport) -> HarnessImport:
    """The usage rows after every score row (stable): a reader's first (benchmark, metric)
    is the one an upload links to and lands on first, and it is a score, never a cost."""
    frame = got.frame
    usage = frame["metric"].isin(USAGE_METRICS).to_numpy()
    if not usage.any() or not usage[:1].any() and usage[int(usage.argmax()):].all():
        return got
    ordered = pd.concat([frame[~usage], frame[usage]], ignore_index=True)
    ordered.attrs = frame.attrs
    return replace(got, frame=ordered)
