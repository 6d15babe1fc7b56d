"""Reading an upload: :func:`engine.ingest`, once, in the memory-capped child, whatever it
holds (a results table, a battle list, harness logs).

:func:`parse` collects problems instead of raising; :func:`parse_once` keeps the
result in the session by content hash, format choice and system override, so a
staged file is parsed once, not on every interaction; :func:`bundle` zips files
uploaded together (one harness output split across files) reproducibly.
"""

from __future__ import annotations

import hashlib
import io
import json
import zipfile
from dataclasses import dataclass

import pandas as pd
import streamlit as st

from app import config
from engine import HARNESS_FORMATS, DataContractError, Limits, MetricSpec, Problem, ingest

__all__ = ["FORMATS", "Parsed", "bundle", "parse", "parse_once"]

#: Format choices: detect, a results table, or one harness.
FORMATS = {"auto": "detect automatically", "table": "results table (long or wide)",
           **{f: f for f in HARNESS_FORMATS if f not in ("long", "wide")}}
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


def parse(name: str, content: bytes, *, choice: str = "auto", system: str = "",
          limits: Limits | None = None) -> Parsed:
    """Read ``content`` with :func:`engine.ingest`: one memory-capped child makes the whole
    decision (a results table, a battle list, harness logs; the limits, the skipped values,
    the cluster column) and parses the upload once; this process parses none of it.
    Problems are collected instead of raised."""
    limits = limits or Limits()
    try:
        if len(content) > limits.max_bytes:
            raise DataContractError([Problem(
                name, rule=f"the file has {len(content):,} bytes, more than the "
                f"{limits.max_bytes:,} this server accepts",
                fix="split it into several uploads")])
        # harness logs with their usage (tokens, times, cost): stored beside the scores as
        # lower-is-better metrics, listed after them (never a benchmark's default metric)
        got = ingest((name, content), format=None if choice == "auto" else choice,
                     system=system.strip() or None, limits=limits, usage=True)
    except DataContractError as exc:
        return Parsed(name, content, None, tuple(exc.problems))
    if got.kind == "battles":  # model_a, model_b, winner: in any table format, zipped too
        return Parsed(name, content, got.frame, (), format="battles")
    return Parsed(name, content, got.frame, (), format=got.format,
                  specs=tuple(got.specs.items()), skipped=got.skipped,
                  skip_report=got.report, clusters=tuple(got.clusters.items()))


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
