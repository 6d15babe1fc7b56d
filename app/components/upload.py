"""Uploading: read a file with the engine's reader, list every problem or preview it, declare
each (benchmark, metric), commit with a conflict policy; the upload history and deletes.

Metric declarations are keyed by (benchmark, metric) in the widgets and in what is
passed to the store, as the store keys them: two benchmarks of one file may share a
metric name.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import cast

import pandas as pd
import streamlit as st

from app import cache, state
from engine import DataContractError, MetricSpec, Problem, metric_specs_of, read_results_bytes
from engine.store import OnConflict

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


def default_spec(frame: pd.DataFrame, benchmark: str, metric: str,
                 stored: MetricSpec | None) -> MetricSpec:
    """The definition to offer for (benchmark, metric): the store's, else the reader's (a
    file's declaration names the metric), else higher is better, modality detected."""
    return stored or metric_specs_of(frame).get(metric) or MetricSpec()


def spec_key(digest: str, kind: str, benchmark: str, metric: str) -> str:
    """A widget key unique per upload, setting and (benchmark, metric): two benchmarks of one
    file may share a metric name (bt-eval: ROUGE_1 in five datasets)."""
    return f"{digest}-{kind}-{json.dumps([benchmark, metric])}"


def spec_widgets(digest: str, benchmark: str, metric: str, default: MetricSpec) -> MetricSpec:
    """Direction and modality choices of one (benchmark, metric)."""
    left, right = st.columns(2)
    name = f"`{benchmark}` · `{metric}`"
    higher = left.radio(f"{name}: better is", ["higher", "lower"], horizontal=True,
                        index=0 if default.higher_is_better else 1,
                        key=spec_key(digest, "dir", benchmark, metric))
    modality = {None: "auto", True: "binary", False: "numeric"}[default.binary]
    chosen = right.selectbox(f"{name}: values are", list(MODALITIES),
                             index=list(MODALITIES).index(modality),
                             format_func=MODALITIES.__getitem__,
                             key=spec_key(digest, "mod", benchmark, metric))
    binary = {"auto": None, "binary": True, "numeric": False}[chosen]
    return MetricSpec(higher_is_better=higher == "higher", binary=binary,
                      threshold=default.threshold)


def _stored_spec(token: str, benchmark: str, metric: str) -> MetricSpec | None:
    cat = cache.catalog(token)
    if ((cat["benchmark"] == benchmark) & (cat["metric"] == metric)).any():
        return cache.store().metric_spec(benchmark, metric)
    return None


def _commit(parsed: Parsed, specs: dict[str | tuple[str, str], MetricSpec], on_conflict: str,
            note: str, uploader: str) -> None:
    if parsed.frame is None:  # never: only a file without problems has a commit form
        return
    try:
        report = cache.store().import_frame(
            parsed.frame, filename=parsed.name, content=parsed.content, uploader=uploader,
            note=note, on_conflict=cast(OnConflict, on_conflict), metrics=specs)
    except DataContractError as exc:
        st.error(f"{parsed.name}: nothing was stored.")
        st.dataframe(problem_table(exc.problems), hide_index=True, width="stretch")
        return
    if report.duplicate_of is not None:
        st.info(report.message)
        return
    st.success(report.message, icon=":material/check_circle:")
    first = parsed.frame.iloc[0]
    state.link("leaderboard", f"See {first['benchmark']} on the leaderboard",
               icon=":material/leaderboard:", benchmark=str(first["benchmark"]),
               metric=str(first["metric"]), a="", b="", fcol="", fval=(), cols=())


def review(parsed: Parsed, token: str, uploader: str) -> None:
    """Everything about one file: its problems, or its preview and the commit form."""
    st.markdown(f"#### {parsed.name}")
    if parsed.frame is None:
        st.error(f"{len(parsed.problems)} problem(s) found; nothing from this file will be "
                 "stored until they are fixed.", icon=":material/error:")
        st.dataframe(problem_table(parsed.problems), hide_index=True, width="stretch")
        return
    frame = parsed.frame
    st.success(f"{len(frame)} rows read without problems.", icon=":material/task_alt:")
    pairs = summary(frame)
    st.dataframe(pairs, hide_index=True, width="stretch")
    with st.expander("Preview (first 50 rows)"):
        st.dataframe(frame.head(50), hide_index=True, width="stretch")
    with st.form(key=f"commit-{parsed.digest}"):
        st.caption("What each metric means, per benchmark: the store keeps one definition "
                   "per (benchmark, metric).")
        specs: dict[str | tuple[str, str], MetricSpec] = {}
        for bench, metric in pairs[["benchmark", "metric"]].itertuples(index=False):
            key = (str(bench), str(metric))
            default = default_spec(frame, *key, _stored_spec(token, *key))
            specs[key] = spec_widgets(parsed.digest, *key, default)
        on_conflict = st.radio("If these systems already have results for these examples",
                               list(CONFLICT_CHOICES), format_func=CONFLICT_CHOICES.__getitem__)
        note = st.text_input("Note (optional)", max_chars=200)
        if st.form_submit_button("Commit to the store", type="primary",
                                 icon=":material/cloud_upload:"):
            _commit(parsed, specs, str(on_conflict), note, uploader)


def upload_files(token: str, uploader: str) -> None:
    """The file picker and, for each file, its review (nothing is stored before a commit)."""
    st.caption("CSV, TSV, JSON Lines, JSON or Parquet (optionally gzipped), long or wide. "
               "Each file is checked first; nothing is stored until you commit it.")
    files = st.file_uploader("Result files", accept_multiple_files=True, key="upload_files",
                             type=["csv", "tsv", "jsonl", "json", "parquet", "gz"])
    for file in files or []:
        with st.container(border=True):
            review(parse(file.name, file.getvalue()), token, uploader)


def history(token: str, *, may_delete: bool) -> None:
    """Every upload, newest first; with ``may_delete``, a form that deletes one."""
    st.subheader("Upload history")
    uploads = cache.uploads(token)
    shown = uploads.drop(columns=["content_hash"]).assign(
        created_at=pd.to_datetime(uploads["created_at"], utc=True, errors="coerce"))
    st.dataframe(shown, hide_index=True, width="stretch",
                 column_config={"created_at": st.column_config.DatetimeColumn(
                     "uploaded", format="YYYY-MM-DD HH:mm")})
    if not may_delete or uploads.empty:
        return
    names = uploads.set_index("upload_id")["filename"]
    with st.form("delete-upload"):
        upload_id = st.selectbox("Delete an upload (its rows leave the store)",
                                 uploads["upload_id"].tolist(),
                                 format_func=lambda i: f"#{i} · {names.at[i]}")
        sure = st.checkbox("Yes, delete it")
        if st.form_submit_button("Delete", icon=":material/delete:") and sure:
            removed = cache.store().delete_upload(int(upload_id))
            st.toast(f"Upload #{upload_id} deleted ({removed} rows removed).")
            st.rerun()
