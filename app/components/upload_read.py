"""Reading an upload: a results table in an isolated child process, or a harness log.

:func:`parse` collects problems instead of raising; :func:`parse_once` keeps the
result in the session by content hash, format choice and system override, so a
staged file is parsed once, not on every interaction; :func:`bundle` zips files
uploaded together (one harness output split across files) reproducibly.
"""

from __future__ import annotations

import hashlib
import io
import json
import re
import zipfile
from dataclasses import dataclass, replace

import pandas as pd
import streamlit as st

from app import config
from engine import (
    HARNESS_FORMATS,
    DataContractError,
    Limits,
    MetricSpec,
    Problem,
    check_harness_isolated,
    check_produced,
    detect_format,
    is_battle_table,
    limits_in_force,
    parse_isolated,
    read_harness,
    read_table_upload,
    table_upload_of,
)

__all__ = ["FORMATS", "Parsed", "bundle", "parse", "parse_once"]

#: Format choices: detect, a results table, or one harness.
FORMATS = {"auto": "detect automatically", "table": "results table (long or wide)",
           **{f: f for f in HARNESS_FORMATS if f not in ("long", "wide")}}
_TABLE_NAME = re.compile(r"\.(csv|tsv|parquet)(\.gz)?$", re.I)
#: A zip member that may hold a table (a battle list, say) rather than a harness log.
_TABLE_MEMBER = re.compile(r"\.(csv|tsv|parquet|jsonl|json)(\.gz)?$", re.I)
_PARSED_KEY = "upload_parsed"


@dataclass(frozen=True)
class Parsed:
    """An upload read by the engine: the table, or every problem found."""

    name: str
    content: bytes
    frame: pd.DataFrame | None
    problems: tuple[Problem, ...]
    format: str = "table"
    specs: tuple[tuple[tuple[str, str], MetricSpec], ...] = ()
    skipped: pd.DataFrame | None = None
    skip_report: str = ""
    #: benchmark -> cluster column the log names (Inspect's stderr(cluster=...))
    clusters: tuple[tuple[str, str], ...] = ()

    @property
    def digest(self) -> str:
        return hashlib.sha256(self.content).hexdigest()[:16]


def _harness_kind(name: str, content: bytes, choice: str) -> str | None:
    """The harness format to read with, or None for a results table."""
    if choice == "table":
        return None
    if choice != "auto":
        return choice
    if _TABLE_NAME.search(name):
        return None  # a table: parsed in the isolated child, never here
    found = detect_format((name, content))
    return None if found in ("long", "wide") else found


def _one_table_member(content: bytes) -> str | None:
    """The one file of a zip (folders and ``__MACOSX/`` aside) when it is named like a table,
    else None; only the zip's directory is read here (the member is inflated in the capped
    child)."""
    if content[:4] != b"PK\x03\x04":
        return None
    try:
        with zipfile.ZipFile(io.BytesIO(content)) as archive:
            files = [i.filename for i in archive.infolist()
                     if not i.is_dir() and not i.filename.startswith("__MACOSX/")]
    except (zipfile.BadZipFile, ValueError):
        return None
    return files[0] if len(files) == 1 and _TABLE_MEMBER.search(files[0]) else None


def _battles(name: str, content: bytes, choice: str, limits: Limits,
             member: str | None = None) -> Parsed | None:
    """The upload read in the capped child as a table, a zip holding one opened there, when
    it is a battle list (model_a, model_b, winner), or when it is a zip's one ``member``
    named like a results table (CSV, TSV, Parquet) or read as a table by choice: that one
    parse is shaped as the results (:func:`engine.table_upload_of`), never parsed again.
    Else None, and the readers below say what it is (a results table, a harness log, or
    what is wrong)."""
    if choice not in ("auto", "table"):
        return None
    try:
        frame = parse_isolated(content, name, limits=limits, unzip=True)
    except DataContractError:
        return None
    battles = is_battle_table(frame)
    results = member is not None and (choice == "table" or bool(_TABLE_NAME.search(member)))
    if not battles and not results:
        return None
    shape = "battles" if battles else "table"  # table_upload_of's kind, by the same test
    try:
        table = table_upload_of(frame, label=name)
    except DataContractError as exc:  # a battle list with problems: those, not a log's
        return Parsed(name, content, None, tuple(exc.problems), format=shape)
    return Parsed(name, content, table.frame, (), format=shape)


def _system_set(parsed: Parsed, system: str) -> Parsed:
    """A results table with every row's system set to ``system`` (the page's override; a
    battle list names its systems itself)."""
    if parsed.format != "table" or parsed.frame is None or not system.strip():
        return parsed
    return replace(parsed, frame=parsed.frame.assign(system=system.strip()))


def parse(name: str, content: bytes, *, choice: str = "auto", system: str = "",
          limits: Limits | None = None) -> Parsed:
    """Read ``content``: results tables in a child process with the server's limits
    (``isolated=True``), harness logs with :func:`engine.read_harness`; collect problems
    instead of raising."""
    limits = limits or Limits()
    try:
        if len(content) > limits.max_bytes:
            raise DataContractError([Problem(
                name, rule=f"the file has {len(content):,} bytes, more than the "
                f"{limits.max_bytes:,} this server accepts",
                fix="split it into several uploads")])
        member = _one_table_member(content)
        zipped = _battles(name, content, choice, limits, member) if member else None
        if zipped is not None:  # a zip holding one battle list or one results table
            return _system_set(zipped, system)
        if choice != "table" and not _TABLE_NAME.search(name):
            # archives, .eval and JSON logs are read first in the memory-capped child: a bomb
            # or a log over the limits fails there, never in the server
            try:
                check_harness_isolated(content, name, fmt=None if choice == "auto" else choice,
                                       system=system.strip() or None, limits=limits)
            except DataContractError:
                # JSON (Lines) battles; a zip's one member was read as a table above already
                battles = None if member else _battles(name, content, choice, limits)
                if battles is None:
                    raise
                return battles
        kind = _harness_kind(name, content, choice)
        if kind is None:
            table = read_table_upload(content, label=name, limits=limits)
            if table.kind == "battles":  # model_a, model_b, winner: in any table format
                return Parsed(name, content, table.frame, (), format="battles")
            return _system_set(Parsed(name, content, table.frame, ()), system)
        with limits_in_force(limits):  # the server's SIGBOARD_MAX_MEMBERS, … in every reader
            result = read_harness((name, content), format=kind, system=system.strip() or None)
        check_produced(result.frame, name, limits)  # the limits of a table, as in the CLI
    except (DataContractError, ValueError) as exc:
        problems = (exc.problems if isinstance(exc, DataContractError)
                    else (Problem(name, rule=str(exc), fix="check the format choice"),))
        return Parsed(name, content, None, tuple(problems))
    except (RecursionError, MemoryError) as exc:  # a log nested or sized past what parses
        what = "nests too deeply" if isinstance(exc, RecursionError) else "needs too much memory"
        return Parsed(name, content, None, (Problem(
            name, rule=f"the file {what} to read",
            fix="upload the log as the harness wrote it (flat records)"),))
    return Parsed(name, content, result.frame, (), format=result.format,
                  specs=tuple(result.specs.items()), skipped=result.skipped,
                  skip_report=result.report(), clusters=tuple(result.clusters.items()))


def parse_once(name: str, content: bytes, *, choice: str, system: str) -> Parsed:
    """:func:`parse`, cached in this session by content hash, format choice and system
    override: a staged file is parsed once, not on every interaction."""
    key = json.dumps([hashlib.sha256(content).hexdigest(), name, choice, system.strip()])
    kept: dict[str, Parsed] = st.session_state.setdefault(_PARSED_KEY, {})
    if key not in kept:
        kept[key] = parse(name, content, choice=choice, system=system,
                          limits=config.current().limits)
    return kept[key]


def bundle(files: list[tuple[str, bytes]]) -> tuple[str, bytes]:
    """Several files as one zip (a harness output uploaded file by file), reproducibly:
    the same files give the same bytes, so a repeat is recognised as identical."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in sorted(files):
            z.writestr(zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0)), data)
    shown = ", ".join(sorted(n for n, _ in files))
    return f"{len(files)} files ({shown[:120]}).zip", buf.getvalue()
