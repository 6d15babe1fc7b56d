"""Metric definitions in the upload flow: the choices offered before a commit, and the
editor of stored definitions after upload (each change recorded with who and when).
"""

from __future__ import annotations

import json

import pandas as pd
import streamlit as st

from app.components.upload_history import local_times
from app.data import store
from engine import DataContractError, MetricSpec
from engine.app_support import md_text, metric_specs_of

__all__ = ["MODALITIES", "default_spec", "metric_editor", "spec_key", "spec_widgets",
           "stored_spec"]

MODALITIES = {"auto": "detect from values", "binary": "binary (0/1)", "numeric": "numeric"}


def default_spec(frame: pd.DataFrame, benchmark: str, metric: str,
                 stored: MetricSpec | None, declared: MetricSpec | None = None) -> MetricSpec:
    """The definition to offer for (benchmark, metric): the store's, else the file's (a
    harness log's or a reader's declaration), else higher is better, modality detected."""
    return stored or declared or metric_specs_of(frame).get(metric) or MetricSpec()


def spec_key(digest: str, kind: str, benchmark: str, metric: str) -> str:
    """A widget key unique per upload, setting and (benchmark, metric): two benchmarks of one
    file may share a metric name (bt-eval: ROUGE_1 in five datasets)."""
    return f"{digest}-{kind}-{json.dumps([benchmark, metric])}"


def spec_widgets(digest: str, benchmark: str, metric: str, default: MetricSpec) -> MetricSpec:
    """Direction and modality choices of one (benchmark, metric)."""
    left, right = st.columns(2)
    name = f"{md_text(benchmark)} · {md_text(metric)}"
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


def stored_spec(token: str, benchmark: str, metric: str) -> MetricSpec | None:
    cat = store.catalog(token)
    if ((cat["benchmark"] == benchmark) & (cat["metric"] == metric)).any():
        return store.current().metric_spec(benchmark, metric)
    return None


def _scale_label(scale: float | None) -> str:
    return "as stored" if scale is None else f"× {scale:g}"


def metric_editor(who: str) -> None:
    """Edit a stored metric's definition (direction, modality, threshold, display scale);
    each change is recorded with who and when."""
    st.subheader("Metric definitions")
    defs = store.current().metric_definitions()
    if defs.empty:
        st.caption("No metric stored yet.")
        return
    pairs = list(defs[["benchmark", "metric"]].itertuples(index=False, name=None))
    chosen = st.selectbox("Metric", range(len(pairs)), key="edit-metric",
                          format_func=lambda i: f"{pairs[i][0]} · {pairs[i][1]}")
    row = defs.iloc[int(chosen)]
    bench, metric = str(row["benchmark"]), str(row["metric"])
    key = json.dumps([bench, metric])
    with st.form(f"edit-metric-{key}"):
        higher = st.radio("Better is", ["higher", "lower"], horizontal=True,
                          index=0 if bool(row["higher_is_better"]) else 1)
        current = {None: "auto", True: "binary", False: "numeric"}[
            None if pd.isna(row["binary"]) else bool(row["binary"])]
        modality = st.selectbox("Values are", list(MODALITIES), format_func=MODALITIES.__getitem__,
                                index=list(MODALITIES).index(current))
        threshold = st.number_input("Solved at or above (empty: not defined)", value=None
                                    if pd.isna(row["threshold"]) else float(row["threshold"]))
        scales: list[float | None] = [None, 100.0]
        scale = st.selectbox("Display scale", scales, format_func=_scale_label,
                             index=0 if pd.isna(row["display_scale"]) else 1)
        if st.form_submit_button("Save the definition", icon=":material/save:"):
            spec = MetricSpec(higher_is_better=higher == "higher",
                              binary={"auto": None, "binary": True, "numeric": False}[modality],
                              threshold=threshold)
            try:
                store.writer().update_metric(bench, metric, spec, display_scale=scale,
                                              changed_by=who or "anonymous")
            except (DataContractError, ValueError, PermissionError) as exc:
                st.error("Not saved.")
                st.text(str(exc))
            else:
                st.success("Saved; every page uses the new definition.")
    changes = store.current().metric_history(bench, metric)
    if not changes.empty:
        changes["changed_at"] = local_times(changes["changed_at"])
        st.dataframe(changes.drop(columns=["benchmark", "metric"]), hide_index=True,
                     width="stretch")
