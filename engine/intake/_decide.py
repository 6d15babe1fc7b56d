"""The decision about one upload, made once, in the memory-capped child.

:func:`decide` is the whole tree (the Upload page and the CLI used to repeat it, each
parsing some of it in their own process):

1. a folder, a zip (not one holding a single table) or an Inspect ``.eval`` → harness logs
   (:func:`engine.read_harness`, the format detected or forced);
2. a zip holding one file named like a table (CSV, TSV, Parquet, JSON Lines, JSON) → that
   member, parsed once as a table: a battle list, or a results table when the member is
   named CSV/TSV/Parquet or ``format="table"`` (else on to the logs);
3. a forced harness format → those logs;
4. a file named CSV/TSV/Parquet (``.gz`` too), or ``format`` ``"table"``/``"long"``/
   ``"wide"`` → a table (a battle list when it has model_a, model_b and winner);
5. otherwise (JSON, JSON Lines, unknown names): the files are sniffed
   (:func:`engine.harness._detect.classify`, which also refuses JSON nested past the
   limit before any parser runs); a harness log is read as one, anything else as a table.

Harness logs are then held to the limits of a table (:func:`engine.io._limits.check_produced`:
rows, systems, metrics, benchmarks, characters of text), once.
"""

from __future__ import annotations

import dataclasses
import hashlib
import io
import re
import zipfile
from collections.abc import Mapping
from pathlib import Path

import pandas as pd

from .._contract import DataContractError, MetricSpec, Problem
from ..io._limits import Limits, check_produced, limit_error, limits_in_force
from . import Ingested

__all__ = ["decide"]

#: names read as a table without sniffing (the Upload page's rule)
TABLE_NAME = re.compile(r"\.(csv|tsv|parquet)(\.gz)?$", re.I)
#: a zip's one member that may hold a table (a battle list, say) rather than a harness log
TABLE_MEMBER = re.compile(r"\.(csv|tsv|parquet|jsonl|json)(\.gz)?$", re.I)
#: read as harness logs whatever they hold (a folder too)
HARNESS_NAME = re.compile(r"\.(zip|eval)$", re.I)
_ZIP = (b"PK\x03\x04", b"PK\x05\x06")
_TABLE_FORMATS = ("table", "long", "wide")


def decide(source: str | tuple[str, bytes], *, fmt: str | None = None,
           system: str | None = None, limits: Limits | None = None,
           metrics: Mapping[str, MetricSpec] | None = None, battles: bool = True,
           siblings: bool = False, usage: bool = False) -> Ingested:
    """What ``source`` (a path, or a name and bytes) holds, read within ``limits``; see the
    module docstring for the order, and :func:`engine.ingest` for the parameters.

    Raises
    ------
    DataContractError
        Every problem of the upload; an unknown ``format`` or an empty ``system`` too.
    """
    limits = limits or Limits()
    with limits_in_force(limits):  # SIGBOARD_MAX_MEMBERS, … in every reader below
        try:
            return _decide(source, fmt, system, limits, metrics, battles, siblings, usage)
        except DataContractError:
            raise
        except ValueError as exc:  # a format or a system override that is not one
            label = source[0] if isinstance(source, tuple) else Path(source).name
            raise DataContractError([Problem(label, rule=str(exc),
                                             fix="check the format choice")]) from None


def _decide(source: str | tuple[str, bytes], fmt: str | None, system: str | None,
            limits: Limits, metrics: Mapping[str, MetricSpec] | None, battles: bool,
            siblings: bool, usage: bool = False) -> Ingested:
    if fmt is not None and fmt not in _TABLE_FORMATS:
        from ..harness import _check_format

        fmt = _check_format(fmt)
    if isinstance(source, str) and Path(source).is_dir():
        return _harness(source, Path(source).name, None if fmt == "table" else fmt, system,
                        limits, usage)
    label, data = source if isinstance(source, tuple) else (Path(source).name, _read(source,
                                                                                       limits))
    # the store's duplicate key, of the very bytes parsed here (the caller holds none of them)
    digest = hashlib.sha256(data).hexdigest()
    got = _decide_file(source, label, data, fmt, system, limits, metrics, battles, siblings,
                       usage)
    if usage and got.kind == "results" and got.format == "table":
        # a table's cost / latency_ms / tokens_* columns: usage metrics, lower is better
        from ..harness._usage import usage_columns

        frame, specs = usage_columns(got.frame, label)
        got = dataclasses.replace(got, frame=frame, specs={**got.specs, **specs})
    return dataclasses.replace(got, content_hash=digest)


def _decide_file(source: str | tuple[str, bytes], label: str, data: bytes, fmt: str | None,
                 system: str | None, limits: Limits, metrics: Mapping[str, MetricSpec] | None,
                 battles: bool, siblings: bool, usage: bool = False) -> Ingested:
    if len(data) > limits.max_bytes:
        raise limit_error(label, "max_bytes", limits, f"the file has {len(data):,} bytes")
    harness_like = data[:4] in _ZIP or bool(HARNESS_NAME.search(label))
    logs: str | tuple[str, bytes] = (source if siblings and isinstance(source, str)
                                     else (label, data))
    if fmt in (None, "table") and data[:4] in _ZIP:
        member = _one_table_member(data)
        if member is not None:
            got = _zipped_table(label, data, member, fmt, system, metrics, limits, battles)
            if got is not None:
                return got
    if fmt not in (None, *_TABLE_FORMATS) or (harness_like and fmt != "table"):
        return _harness(logs, label, fmt, system, limits, usage)
    if fmt in _TABLE_FORMATS or TABLE_NAME.search(label):
        return _table(data, label, label, system, metrics, limits,
                      battles and fmt in (None, "table"))
    kind = _sniffed_harness(label, data)
    if kind is not None:  # read as the sniff found it: the files are not classified twice
        return _harness(logs, label, kind, system, limits, usage)
    return _table(data, label, label, system, metrics, limits, battles)


def _read(path: str, limits: Limits) -> bytes:
    """A file's bytes, refused from its size on disk before a byte is read."""
    from ..io._formats import read_bytes

    file = Path(path)
    if file.is_file() and file.stat().st_size > limits.max_bytes:
        raise limit_error(file.name, "max_bytes", limits,
                          f"the file has {file.stat().st_size:,} bytes")
    return read_bytes(path)


def _one_table_member(data: bytes) -> str | None:
    """The one file of a zip (folders and ``__MACOSX/`` aside) when it is named like a
    table, else None (only the zip's directory is read)."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            files = [i.filename for i in archive.infolist()
                     if not i.is_dir() and not i.filename.startswith("__MACOSX/")]
    except (zipfile.BadZipFile, ValueError, EOFError):
        return None
    return files[0] if len(files) == 1 and TABLE_MEMBER.search(files[0]) else None


def _zipped_table(label: str, data: bytes, member: str, fmt: str | None, system: str | None,
                  metrics: Mapping[str, MetricSpec] | None, limits: Limits,
                  battles: bool) -> Ingested | None:
    """A zip's one table, parsed once: a battle list, or a results table when the member is
    named like one (CSV, TSV, Parquet) or the format is ``table``; else None (logs)."""
    from ..io._battles import is_battle_table
    from ..io._formats import frame_from_bytes
    from ..io._zip import only_member

    try:
        name, body = only_member(data, label, limits)
        frame = frame_from_bytes(body, f"{label}:{name}", None, limits=limits)
    except DataContractError:
        if fmt == "table" or TABLE_NAME.search(member):
            raise
        return None  # a JSON member that is no table: the harness readers say what it is
    del body
    if not (battles and is_battle_table(frame)) and not (fmt == "table"
                                                         or TABLE_NAME.search(member)):
        return None
    return _shaped(frame, label, system, metrics, battles)


def _sniffed_harness(label: str, data: bytes) -> str | None:
    """The harness a single file is a log of, from its name and content, else None."""
    from ..harness import _check_depth, _choose, _classified
    from ..harness._walk import walk

    _, files = walk((label, data))
    try:
        _check_depth(files)  # past the depth limit: the table reader says how, precisely
        kind = _choose(label, _classified(files))
    except DataContractError:
        return None
    return None if kind == "table" else kind


def _table(data: bytes, label: str, shown: str, system: str | None,
           metrics: Mapping[str, MetricSpec] | None, limits: Limits,
           battles: bool) -> Ingested:
    from ..io._formats import frame_from_bytes

    frame = frame_from_bytes(data, shown, None, limits=limits)
    del data
    return _shaped(frame, label, system, metrics, battles)


def _shaped(frame: pd.DataFrame, label: str, system: str | None,
            metrics: Mapping[str, MetricSpec] | None, battles: bool) -> Ingested:
    """A parsed table as a battle list (model_a, model_b, winner, no value) or the
    canonical long table, the system override applied."""
    from ..io._battles import is_battle_table, validate_battles
    from ..io._readers import _shaped as shaped

    if battles and is_battle_table(frame):
        checked = validate_battles(frame, label=label)
        # columns the check does not know stay beside it (verdicts under other names, which
        # ``leaderboard --judge COL --human COL`` reads); the store keeps the checked ones
        rest = [c for c in frame.columns if str(c).strip().lower() not in checked.columns]
        if rest:
            checked = pd.concat([checked, frame[rest].reset_index(drop=True)], axis=1)
        return Ingested("battles", checked, "battles", label)
    out = shaped(frame, label, metrics)
    if system is not None and system.strip():
        named = out["system"].unique()
        if len(named) > 1:
            raise DataContractError([Problem(
                label, rule=f"a system override ({system.strip()!r}) was given but the table "
                f"names {len(named)} systems", fix="drop the override")])
        specs = out.attrs.get("metric_specs", {})
        out = out.assign(system=system.strip())
        out.attrs["metric_specs"] = specs
    return Ingested("results", out, "table", label)


def _harness(source: str | tuple[str, bytes], label: str, fmt: str | None,
             system: str | None, limits: Limits, usage: bool = False) -> Ingested:
    from ..harness import read_harness

    result = read_harness(source, format=fmt, system=system, usage=usage)
    check_produced(result.frame, label, limits)
    return Ingested("results", result.frame, result.format, label, specs=dict(result.specs),
                    skipped=result.skipped, report=result.report(),
                    clusters=dict(result.clusters), files=tuple(result.files))
