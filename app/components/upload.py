"""Uploading: read files (results tables or evaluation-harness logs), show what was found,
the conflicts with the store and every problem before anything is stored; commit with a
conflict policy; the upload history with confirmed, undoable deletes; metric definitions
edited after upload.

Every user-provided string (file, system, benchmark and metric names, messages that
quote them) is shown as text, in tables, or through :func:`engine.md_text` in Markdown labels,
never as live Markdown/HTML. A staged file is parsed once: the result is kept in the
session by content hash, format choice and system override.

The pieces: :mod:`app.components.upload_read` (parsing), :mod:`~app.components.upload_found`
(what was found, conflicts), :mod:`~app.components.upload_specs` (metric definitions),
:mod:`~app.components.upload_landing` (where a commit lands) and
:mod:`~app.components.upload_history` (history, deletes, restores). This module holds the
review and commit flow and re-exports the public names of the pieces.
"""

from __future__ import annotations

import hashlib
import logging
from typing import cast

import pandas as pd
import streamlit as st

from app import config, state
from app.components import arena
from app.components.upload_found import (
    conflicts,
    found,
    metadata_columns,
    missing_cells,
    problem_table,
    summary,
)
from app.components.upload_history import history, local_times
from app.components.upload_judge import human_labels
from app.components.upload_landing import (
    LANDING_BOARDS,
    LANDING_NAMES,
    LANDING_SYSTEMS,
    landing,
    landing_rows,
    significant_neighbours,
)
from app.components.upload_read import FORMATS, Parsed, bundle, parse, parse_once
from app.components.upload_specs import (
    MODALITIES,
    default_spec,
    metric_editor,
    spec_key,
    spec_widgets,
    stored_spec,
)
from app.data import store
from engine import DataContractError, MetricSpec, OnConflict, Problem
from engine.app_support import belong_together, md_text, split_metadata

__all__ = ["CONFLICT_CHOICES", "FORMATS", "LANDING_BOARDS", "LANDING_NAMES", "LANDING_SYSTEMS",
           "MODALITIES", "Parsed", "bundle", "default_spec", "history", "landing",
           "landing_rows", "local_times", "metadata_columns", "metric_editor", "missing_cells",
           "parse", "parse_once", "problem_table", "review", "significant_neighbours",
           "spec_key", "spec_widgets", "summary", "upload_files"]

CONFLICT_CHOICES = {"reject": "Reject (keep what is stored)",
                    "replace": "Replace the stored results of the same systems",
                    "add-run": "Add as a new run of the same systems"}


#: Problems written out in full (each one's rule and fix wrap, never cut at a column's width);
#: past these, the rest are in a table, downloadable.
_SHOWN_PROBLEMS = 30


def show_problems(problems: tuple[Problem, ...]) -> None:
    """Every problem in full: where it is, the rule it breaks and how to fix it."""
    table = problem_table(problems)
    lines = []
    for row in table.head(_SHOWN_PROBLEMS).to_dict("records"):
        where = " · ".join(md_text(str(v)) for v in (row["file"], row["column"] and
                           f"column {row['column']}", row["rows"] and f"rows {row['rows']}")
                           if v)
        lines.append(f"- **{where}**: {md_text(row['problem'])}. *Fix:* "
                     f"{md_text(row['how to fix'])}")
    st.markdown("\n".join(lines))
    if len(table) > _SHOWN_PROBLEMS:
        st.caption(f"… and {len(table) - _SHOWN_PROBLEMS:,} more problems: every one in the "
                   "table below.")
        st.dataframe(table, hide_index=True, width="stretch")


def _example_attributes(frame: pd.DataFrame) -> list[str]:
    """The upload's per-example columns: those "Group examples by" can use."""
    return [str(c) for c in split_metadata(frame)[2].columns
            if c not in ("benchmark", "example_id")]


def _declare_cluster(frame: pd.DataFrame, cluster: str, uploader: str) -> None:
    """The cluster column chosen on upload, stored for each benchmark of the upload."""
    for bench in dict.fromkeys(frame["benchmark"].astype(str)):
        try:
            store.writer().set_benchmark_cluster(bench, cluster, set_by=uploader)
        except ValueError as exc:  # the column is not an example attribute of this benchmark
            st.warning(f"Cluster column not stored for {md_text(bench)}: {md_text(exc)}")


def _commit(parsed: Parsed, specs: dict[str | tuple[str, str], MetricSpec], on_conflict: str,
            note: str, uploader: str, cluster: str = "") -> None:
    if parsed.frame is None:  # never: only a file without problems has a commit form
        return
    try:
        report = store.writer().import_frame(
            parsed.frame, filename=parsed.name, content=parsed.content, uploader=uploader,
            note=note, on_conflict=cast(OnConflict, on_conflict), metrics=specs)
    except (DataContractError, PermissionError) as exc:
        st.error(f"{md_text(parsed.name)}: nothing was stored.")
        if isinstance(exc, DataContractError):
            show_problems(exc.problems)
        else:
            st.text(str(exc))
        return
    except Exception as exc:  # the database refused the write: a full disk, a lost connection
        if not config.is_store_error(exc):
            raise
        logging.getLogger("sigboard").warning("commit of %s failed: %s", parsed.name,
                                              config.store_problem(exc))
        st.error(f"{md_text(parsed.name)}: nothing was stored: "
                 f"{md_text(config.store_problem(exc))}")
        return
    if report.duplicate_of is not None:
        st.info(md_text(report.message))
        return
    st.success(md_text(report.message), icon=":material/check_circle:")
    if cluster:
        _declare_cluster(parsed.frame, cluster, uploader)
    first = parsed.frame.iloc[0]
    state.link("leaderboard", f"See {md_text(first['benchmark'])} on the leaderboard",
               icon=":material/leaderboard:", benchmark=str(first["benchmark"]),
               metric=str(first["metric"]), a="", b="", fcol="", fval=(), cols=(), cluster="")
    landing(parsed.frame)


def review(parsed: Parsed, token: str, uploader: str) -> None:
    """Everything about one upload: its problems, or what was found, its conflicts and the
    commit form."""
    st.markdown(f"#### {md_text(parsed.name)}")
    if parsed.frame is None:
        st.error(f"{len(parsed.problems)} problem(s) found; nothing from this file will be "
                 "stored until they are fixed.", icon=":material/error:")
        show_problems(parsed.problems)
        return
    frame = parsed.frame
    st.success(f"{len(frame)} rows read without problems.", icon=":material/task_alt:")
    pairs = summary(frame)
    found(parsed, frame, pairs)
    human_labels(frame, token)  # judge metrics' labels per system, PPI refused or not
    hits = conflicts(frame)
    declared = dict(parsed.specs)
    with st.form(key=f"commit-{parsed.digest}"):
        st.caption("What each metric means, per benchmark: the store keeps one definition "
                   "per (benchmark, metric).")
        specs: dict[str | tuple[str, str], MetricSpec] = {}
        for bench, metric in pairs[["benchmark", "metric"]].itertuples(index=False):
            key = (str(bench), str(metric))
            default = default_spec(frame, *key, stored_spec(token, *key), declared.get(key))
            specs[key] = spec_widgets(parsed.digest, *key, default)
        on_conflict = st.radio("If these systems already have results for these examples"
                               + (f" ({len(hits)} rows do)" if len(hits) else ""),
                               list(CONFLICT_CHOICES), format_func=CONFLICT_CHOICES.__getitem__,
                               key=f"conflict-{parsed.digest}")
        attributes = _example_attributes(frame)
        from_log = next((c for _, c in parsed.clusters if c in attributes), "")
        cluster = st.selectbox(
            "Group examples by (cluster column)", ["", *attributes],
            index=[*attributes].index(from_log) + 1 if from_log else 0,
            format_func=lambda c: c or "(none: examples are independent)",
            key=f"cluster-{parsed.digest}", disabled=not attributes,
            help="An example attribute whose examples may fail together (passage, task "
                 "family): Leaderboard, Pairwise and A/B compare group by it by default. "
                 "An Inspect log whose stderr is clustered (stderr(cluster=...)) chooses its field.")
        note = st.text_input("Note (optional)", max_chars=200)
        if st.form_submit_button("Commit to the store", type="primary",
                                 icon=":material/cloud_upload:"):
            _commit(parsed, specs, str(on_conflict), note, uploader, str(cluster or ""))


def upload_files(token: str, uploader: str) -> None:
    """The file picker, format choice and system override, and each upload's review
    (nothing is stored before a commit)."""
    st.caption("Results tables (CSV, TSV, JSON Lines, JSON or Parquet, optionally gzipped, "
               "long or wide) or evaluation-harness logs (lm-evaluation-harness, Inspect, "
               "HELM, lighteval, OpenAI evals, promptfoo, Every Eval Ever records; a harness "
               "output folder as a zip, "
               "or its files together). Each upload is checked first; nothing is stored "
               "until you commit it.")
    files = st.file_uploader("Result files or harness logs", accept_multiple_files=True,
                             key="upload_files",
                             type=["csv", "tsv", "jsonl", "json", "parquet", "gz", "zip", "eval"])
    left, right = st.columns(2)
    choice = str(left.selectbox("Format", list(FORMATS), format_func=FORMATS.__getitem__,
                                key="upload_format"))
    system = str(right.text_input("System name (override)", key="upload_system",
                                  help="For logs that do not name the model; names every row"))
    # the parts of one harness output (samples beside their results file, …) are grouped by
    # default: read one by one, each lacks what the other holds
    names = sorted(f.name for f in files or [])
    together = len(names) > 1 and st.checkbox(
        "Read these files together as one upload (one harness output split across files)",
        value=belong_together(names),  # keyed by the files: another choice, another default
        key="upload_together_" + hashlib.sha256("\0".join(names).encode()).hexdigest()[:12],
        help="Ticked when the files look like the parts of one harness output (lm-eval "
             "samples and results, lighteval details and results, a HELM run's files).")
    staged = [(f.name, f.getvalue()) for f in files or []]
    if together:
        staged = [bundle(staged)]
    for name, content in staged:
        with st.container(border=True):
            parsed = parse_once(name, content, choice=choice, system=system)
            if parsed.format == "battles" and parsed.frame is not None:  # model_a, model_b, winner
                arena.review(name, content, parsed.frame, uploader)
                continue
            review(parsed, token, uploader)
