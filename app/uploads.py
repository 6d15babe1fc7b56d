"""Reading an upload for review: parse with the engine's reader, list every problem, preview."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import pandas as pd
import streamlit as st

from engine import DataContractError, MetricSpec, Problem, metric_specs_of, read_results_bytes

CONFLICT_CHOICES = {"reject": "Reject (keep what is stored)",
                    "replace": "Replace the stored results of the same systems",
                    "add-run": "Add as a new run of the same systems"}
MODALITIES = {"auto": "detect from values", "binary": "binary (0/1)", "numeric": "numeric"}


@dataclass(frozen=True)
class Parsed:
    """An uploaded file read by the engine: the table, or every problem found."""

    name: str
    content: bytes
    frame: pd.DataFrame | None
    problems: tuple[Problem, ...]

    @property
    def digest(self) -> str:
        return hashlib.sha256(self.content).hexdigest()[:16]


def parse(name: str, content: bytes) -> Parsed:
    """Read ``content`` with the engine's reader; collect problems instead of raising."""
    try:
        frame = read_results_bytes(content, label=name)
    except DataContractError as exc:
        return Parsed(name, content, None, exc.problems)
    return Parsed(name, content, frame, ())


def problem_table(problems: tuple[Problem, ...]) -> pd.DataFrame:
    """Every problem as a row: where (file, column, rows), what rule, how to fix."""
    def rows(p: Problem) -> str:
        shown = ", ".join(map(str, p.rows[:20]))
        return shown + (f" … (+{len(p.rows) - 20})" if len(p.rows) > 20 else "")
    return pd.DataFrame({
        "file": [p.source for p in problems],
        "column": [p.column or "" for p in problems],
        "rows": [rows(p) for p in problems],
        "problem": [p.rule for p in problems],
        "how to fix": [p.fix for p in problems],
    })


def summary(frame: pd.DataFrame) -> pd.DataFrame:
    """Per (benchmark, metric): systems, examples and rows in the upload."""
    return (frame.groupby(["benchmark", "metric"], sort=False)
            .agg(systems=("system", "nunique"), examples=("example_id", "nunique"),
                 rows=("value", "size")).reset_index())


def default_spec(frame: pd.DataFrame, metric: str, stored: MetricSpec | None) -> MetricSpec:
    """The direction/modality to offer: the store's, else the reader's, else higher & detect."""
    return stored or metric_specs_of(frame).get(metric) or MetricSpec()


def spec_widgets(key: str, metric: str, default: MetricSpec) -> MetricSpec:
    """Direction and modality choices of one metric."""
    left, right = st.columns(2)
    higher = left.radio(f"`{metric}`: better is", ["higher", "lower"], horizontal=True,
                        index=0 if default.higher_is_better else 1, key=f"{key}-dir-{metric}")
    modality = {None: "auto", True: "binary", False: "numeric"}[default.binary]
    chosen = right.selectbox(f"`{metric}` values are", list(MODALITIES),
                             index=list(MODALITIES).index(modality),
                             format_func=MODALITIES.__getitem__, key=f"{key}-mod-{metric}")
    binary = {"auto": None, "binary": True, "numeric": False}[chosen]
    return MetricSpec(higher_is_better=higher == "higher", binary=binary)
