"""Upload: validate → preview → declare metrics → choose what to do on conflict → commit; history."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from app import auth, data, state
from app.uploads import (
    CONFLICT_CHOICES,
    Parsed,
    default_spec,
    parse,
    problem_table,
    spec_widgets,
    summary,
)
from engine import DataContractError, MetricSpec

st.title("Upload results")
policy = auth.Policy.from_env()
allowed, uploader = auth.may_upload(policy)
token = data.token()


def _stored_spec(benchmark: str, metric: str) -> MetricSpec | None:
    cat = data.catalog(token)
    if ((cat["benchmark"] == benchmark) & (cat["metric"] == metric)).any():
        return data.store().metric_spec(benchmark, metric)
    return None


def _commit(parsed: Parsed, specs: dict[str, MetricSpec], on_conflict: str, note: str) -> None:
    try:
        report = data.store().import_frame(
            parsed.frame, filename=parsed.name, content=parsed.content, uploader=uploader,
            note=note, on_conflict=on_conflict, metrics=specs)
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


def review(parsed: Parsed) -> None:
    """Everything about one file: its problems, or its preview and the commit form."""
    st.markdown(f"#### {parsed.name}")
    if parsed.problems:
        st.error(f"{len(parsed.problems)} problem(s) found; nothing from this file will be "
                 "stored until they are fixed.", icon=":material/error:")
        st.dataframe(problem_table(parsed.problems), hide_index=True, width="stretch")
        return
    frame = parsed.frame
    st.success(f"{len(frame)} rows read without problems.", icon=":material/task_alt:")
    st.dataframe(summary(frame), hide_index=True, width="stretch")
    with st.expander("Preview (first 50 rows)"):
        st.dataframe(frame.head(50), hide_index=True, width="stretch")
    with st.form(key=f"commit-{parsed.digest}"):
        specs = {}
        for bench, metric in summary(frame)[["benchmark", "metric"]].itertuples(index=False):
            default = default_spec(frame, metric, _stored_spec(str(bench), str(metric)))
            specs[str(metric)] = spec_widgets(parsed.digest, str(metric), default)
        on_conflict = st.radio("If these systems already have results for these examples",
                               list(CONFLICT_CHOICES), format_func=CONFLICT_CHOICES.__getitem__)
        note = st.text_input("Note (optional)", max_chars=200)
        if st.form_submit_button("Commit to the store", type="primary",
                                 icon=":material/cloud_upload:"):
            _commit(parsed, specs, on_conflict, note)


if not allowed:
    auth.sign_in_panel(policy)
else:
    st.caption("CSV, TSV, JSON Lines, JSON or Parquet (optionally gzipped), long or wide. "
               "Each file is checked first; nothing is stored until you commit it.")
    files = st.file_uploader("Result files", accept_multiple_files=True, key="upload_files",
                             type=["csv", "tsv", "jsonl", "json", "parquet", "gz"])
    for file in files or []:
        with st.container(border=True):
            review(parse(file.name, file.getvalue()))

st.subheader("Upload history")
history = data.uploads(token)
shown = history.drop(columns=["content_hash"]).assign(
    created_at=pd.to_datetime(history["created_at"], utc=True, errors="coerce"))
st.dataframe(shown, hide_index=True, width="stretch",
             column_config={"created_at": st.column_config.DatetimeColumn(
                 "uploaded", format="YYYY-MM-DD HH:mm")})
if allowed and not history.empty:
    with st.form("delete-upload"):
        upload_id = st.selectbox("Delete an upload (its rows leave the store)",
                                 history["upload_id"].tolist(),
                                 format_func=lambda i: f"#{i} · "
                                 f"{history.set_index('upload_id').at[i, 'filename']}")
        sure = st.checkbox("Yes, delete it")
        if st.form_submit_button("Delete", icon=":material/delete:") and sure:
            removed = data.store().delete_upload(int(upload_id))
            st.toast(f"Upload #{upload_id} deleted ({removed} rows removed).")
            st.rerun()
