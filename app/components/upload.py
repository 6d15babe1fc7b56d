"""Uploading: read files (results tables or evaluation-harness logs), show what was found,
the conflicts with the store and every problem before anything is stored; commit with a
conflict policy; the upload history with confirmed, undoable deletes; metric definitions
edited after upload.

Every user-provided string (file, system, benchmark and metric names, messages that
quote them) is shown as text, in tables, or through :func:`inert` in Markdown labels,
never as live Markdown/HTML. A staged file is parsed once: the result is kept in the
session by content hash, format choice and system override.
"""

from __future__ import annotations

import hashlib
import io
import json
import re
import zipfile
from dataclasses import dataclass
from datetime import datetime
from typing import cast
from zoneinfo import ZoneInfo

import pandas as pd
import streamlit as st

from app import cache, config, state
from app.widgets import MAX_SYSTEMS
from engine import (
    DataContractError,
    Leaderboard,
    MetricSpec,
    Problem,
    TestOptions,
    metric_specs_of,
    read_results_bytes,
)
from engine._limits import Limits
from engine._readers import split_metadata
from engine.harness import HARNESS_FORMATS, detect_format, read_harness
from engine.store import OnConflict

CONFLICT_CHOICES = {"reject": "Reject (keep what is stored)",
                    "replace": "Replace the stored results of the same systems",
                    "add-run": "Add as a new run of the same systems"}
MODALITIES = {"auto": "detect from values", "binary": "binary (0/1)", "numeric": "numeric"}
#: Format choices: detect, a results table, or one harness.
FORMATS = {"auto": "detect automatically", "table": "results table (long or wide)",
           **{f: f for f in HARNESS_FORMATS if f not in ("long", "wide")}}
_TABLE_NAME = re.compile(r"\.(csv|tsv|parquet)(\.gz)?$", re.I)
_PARSED_KEY = "upload_parsed"
_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]<>()#+\-.!|:~$&\"'=])")


def inert(text: object) -> str:
    """``text`` escaped for Streamlit Markdown (labels, messages): shown literally, so a
    name like ``[x](http://evil)`` is neither a link nor an image nor HTML."""
    return _MD_SPECIAL.sub(r"\\\1", str(text)).replace("\n", " ")


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
        kind = _harness_kind(name, content, choice)
        if kind is None:
            frame = read_results_bytes(content, label=name, limits=limits, isolated=True)
            if system.strip():
                frame = frame.assign(system=system.strip())
            return Parsed(name, content, frame, ())
        result = read_harness((name, content), format=kind, system=system.strip() or None)
    except (DataContractError, ValueError) as exc:
        problems = (exc.problems if isinstance(exc, DataContractError)
                    else (Problem(name, rule=str(exc), fix="check the format choice"),))
        return Parsed(name, content, None, tuple(problems))
    return Parsed(name, content, result.frame, (), format=result.format,
                  specs=tuple(result.specs.items()), skipped=result.skipped,
                  skip_report=result.report())


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
    """Per (benchmark, metric): systems, examples, rows, runs and the detected modality."""
    runs = frame["run"] if "run" in frame.columns else pd.Series(0, index=frame.index)
    out = (frame.assign(_run=runs, _bin=frame["value"].isin([0.0, 1.0]))
           .groupby(["benchmark", "metric"], sort=False)
           .agg(systems=("system", "nunique"), examples=("example_id", "nunique"),
                rows=("value", "size"), runs=("_run", "nunique"), _bin=("_bin", "all"))
           .reset_index())
    out["detected"] = out.pop("_bin").map({True: "binary (0/1)", False: "numeric"})
    return out


def missing_cells(frame: pd.DataFrame, shown: int = 5) -> pd.DataFrame:
    """Which systems lack which examples, per (benchmark, metric)."""
    keys = ["benchmark", "metric"]
    have = frame[[*keys, "system", "example_id"]].drop_duplicates()
    examples = have.groupby(keys, sort=False)["example_id"].nunique().rename("all")
    own = have.groupby([*keys, "system"], sort=False).size().rename("own").reset_index()
    own = own.join(examples, on=keys)
    short = own[own["own"] < own["all"]]
    rows = []
    for bench, metric, system, _, _ in short.itertuples(index=False):
        part = have[(have["benchmark"] == bench) & (have["metric"] == metric)]
        mine = set(part.loc[part["system"] == system, "example_id"])
        lacking = [e for e in pd.unique(part["example_id"]) if e not in mine]
        rows.append({"benchmark": bench, "metric": metric, "system": system,
                     "missing examples": len(lacking),
                     "first missing": ", ".join(map(str, lacking[:shown]))})
    return pd.DataFrame(rows, columns=[*keys, "system", "missing examples", "first missing"])


def metadata_columns(frame: pd.DataFrame) -> pd.DataFrame:
    """Which extra columns became per-system, per-example or per-row data."""
    _, sys_meta, ex_meta = split_metadata(frame)
    canon = {"benchmark", "system", "example_id", "metric", "value", "run"}
    per_sys = [c for c in sys_meta.columns if c not in canon]
    per_ex = [c for c in ex_meta.columns if c not in canon]
    rows = [c for c in frame.columns if c not in canon and c not in per_sys and c not in per_ex]
    return pd.DataFrame({"column": [*per_sys, *per_ex, *rows],
                         "kept as": ["per-system metadata"] * len(per_sys)
                         + ["per-example metadata"] * len(per_ex)
                         + ["per-row (not stored)"] * len(rows)})


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
    name = f"{inert(benchmark)} · {inert(metric)}"
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
    except (DataContractError, PermissionError) as exc:
        st.error(f"{inert(parsed.name)}: nothing was stored.")
        if isinstance(exc, DataContractError):
            st.dataframe(problem_table(exc.problems), hide_index=True, width="stretch")
        else:
            st.text(str(exc))
        return
    if report.duplicate_of is not None:
        st.info(inert(report.message))
        return
    st.success(inert(report.message), icon=":material/check_circle:")
    first = parsed.frame.iloc[0]
    state.link("leaderboard", f"See {inert(first['benchmark'])} on the leaderboard",
               icon=":material/leaderboard:", benchmark=str(first["benchmark"]),
               metric=str(first["metric"]), a="", b="", fcol="", fval=(), cols=())
    landing(parsed.frame)


#: After a commit, the leaderboards shown for the (benchmark, metric) pairs the upload
#: touched, the uploaded systems shown on each, and the names listed per direction.
LANDING_BOARDS = 6
LANDING_SYSTEMS = 10
LANDING_NAMES = 8


def _names_list(names: list[str]) -> str:
    shown = ", ".join(inert(n) for n in names[:LANDING_NAMES])
    return shown + (f" and {len(names) - LANDING_NAMES} more" if len(names) > LANDING_NAMES
                    else "")


def significant_neighbours(board: Leaderboard, system: str) -> tuple[list[str], list[str]]:
    """The systems significantly better and significantly worse than ``system`` on ``board``
    (its pairwise tests; ``difference`` is system_a − system_b, positive = system_a better),
    each in leaderboard order."""
    t = board.pairwise.table
    sig = t["significant"].astype(bool)
    as_a, as_b = sig & (t["system_a"] == system), sig & (t["system_b"] == system)
    better = set(t.loc[as_a & (t["difference"] < 0), "system_b"]) | \
        set(t.loc[as_b & (t["difference"] > 0), "system_a"])
    worse = set(t.loc[as_a & (t["difference"] > 0), "system_b"]) | \
        set(t.loc[as_b & (t["difference"] < 0), "system_a"])
    order = [str(s) for s in board.table["system"]]
    return [s for s in order if s in better], [s for s in order if s in worse]


def landing_rows(board: Leaderboard, systems: list[str]) -> pd.DataFrame:
    """The leaderboard rows of ``systems``: rank, rank range, group, mean with its interval,
    and how many systems are significantly better or worse."""
    table = board.table[board.table["system"].isin(systems)]
    counts = [significant_neighbours(board, str(s)) for s in table["system"]]
    return pd.DataFrame({
        "system": table["system"].astype(str), "rank": table["rank"],
        "rank range": [f"{int(lo)}–{int(hi)}" if lo != hi else f"{int(lo)}"
                       for lo, hi in zip(table["rank_low"], table["rank_high"], strict=True)],
        "group": table["group"], "mean": table["mean"], "ci_low": table["ci_low"],
        "ci_high": table["ci_high"], "better than it (sig.)": [len(b) for b, _ in counts],
        "worse than it (sig.)": [len(w) for _, w in counts]})


def landing(frame: pd.DataFrame) -> None:
    """Where the new run lands: on each leaderboard the upload touched, the uploaded systems'
    rows (rank range, group) and the systems significantly better or worse than them, with a
    link to the full view."""
    pairs = frame[["benchmark", "metric"]].drop_duplicates().astype(str)
    token = cache.token()  # the store's new version: the boards include this upload
    st.markdown("##### Where the new results land")
    for bench, metric in pairs.head(LANDING_BOARDS).itertuples(index=False):
        systems = list(dict.fromkeys(frame.loc[(frame["benchmark"] == bench)
                                               & (frame["metric"] == metric), "system"]
                                     .astype(str)))
        with st.container(border=True):
            st.markdown(f"**{inert(bench)} · {inert(metric)}**")
            try:
                board = cache.board(token, bench, metric, TestOptions())
            except ValueError as exc:
                st.caption(f"No leaderboard here: {inert(exc)}")
                continue
            if len(board.table) > MAX_SYSTEMS:
                st.caption(f"{len(board.table):,} systems: open the leaderboard to see them.")
            else:
                rows = landing_rows(board, systems[:LANDING_SYSTEMS])
                st.dataframe(rows, hide_index=True, width="stretch", column_config={
                    c: st.column_config.NumberColumn(format="%.4g")
                    for c in ("mean", "ci_low", "ci_high")})
                for system in rows["system"]:
                    better, worse = significant_neighbours(board, system)
                    st.caption(f"{inert(system)} — significantly worse than: "
                               f"{_names_list(better) or 'none'}; significantly better than: "
                               f"{_names_list(worse) or 'none'}; not told apart from "
                               f"{len(board.table) - 1 - len(better) - len(worse)} system(s).")
                if len(systems) > LANDING_SYSTEMS:
                    st.caption(f"…and {len(systems) - LANDING_SYSTEMS} more uploaded systems.")
            state.link("leaderboard", f"Full leaderboard of {inert(bench)} · {inert(metric)}",
                       icon=":material/leaderboard:", benchmark=bench, metric=metric, a="", b="",
                       q="", fcol="", fval=(), cols=(), focus=())
    if len(pairs) > LANDING_BOARDS:
        st.caption(f"This upload touched {len(pairs)} benchmark/metric pairs; the first "
                   f"{LANDING_BOARDS} are shown. The Overview lists them all.")


def _found(parsed: Parsed, frame: pd.DataFrame, pairs: pd.DataFrame) -> None:
    """What the reader found: counts, per (benchmark, metric), metadata, missing cells."""
    runs = int(frame["run"].nunique()) if "run" in frame.columns else 1
    st.text(f"Format: {parsed.format} · {frame['system'].nunique()} systems · "
            f"{frame['benchmark'].nunique()} benchmarks · {frame['metric'].nunique()} metrics"
            f" · {runs} run(s) · {len(frame)} rows")
    st.dataframe(pairs, hide_index=True, width="stretch")
    with st.expander(f"Systems ({frame['system'].nunique()})"):
        st.dataframe(frame.groupby("system", sort=False)
                     .agg(benchmarks=("benchmark", "nunique"), rows=("value", "size"))
                     .reset_index(), hide_index=True, width="stretch")
    extra = metadata_columns(frame)
    if not extra.empty:
        st.caption("Extra columns")
        st.dataframe(extra, hide_index=True, width="stretch")
    gaps = missing_cells(frame)
    if gaps.empty:
        st.caption("No missing cells: every system has every example of each metric.")
    else:
        st.caption(f"Missing cells: {len(gaps)} (system, metric) pairs lack examples")
        st.dataframe(gaps, hide_index=True, width="stretch")
    if parsed.skip_report:
        st.text(parsed.skip_report)
        if parsed.skipped is not None and not parsed.skipped.empty:
            st.dataframe(parsed.skipped, hide_index=True, width="stretch")
    with st.expander("Preview (first 50 rows)"):
        preview = frame.head(50).copy()
        preview.attrs = {}  # the reader's metric specs are not JSON: Streamlit warned on each preview
        st.dataframe(preview, hide_index=True, width="stretch")


def _conflicts(frame: pd.DataFrame) -> pd.DataFrame:
    """Collisions with the store, per (benchmark, system, metric) and stored upload."""
    hits = cache.store().check_conflicts(frame)
    if hits.empty:
        st.info("No conflicts: none of these rows is stored already.",
                icon=":material/check:")
        return hits
    grouped = (hits.groupby(["benchmark", "system", "metric", "upload_id"], sort=False)
               .size().rename("rows").reset_index()
               .rename(columns={"upload_id": "stored in upload"}))
    st.warning(f"{len(hits)} rows collide with stored results. Choose below what to do: "
               "reject, replace the stored results of these systems, or add as a new run.",
               icon=":material/warning:")
    st.dataframe(grouped, hide_index=True, width="stretch")
    return hits


def review(parsed: Parsed, token: str, uploader: str) -> None:
    """Everything about one upload: its problems, or what was found, its conflicts and the
    commit form."""
    st.markdown(f"#### {inert(parsed.name)}")
    if parsed.frame is None:
        st.error(f"{len(parsed.problems)} problem(s) found; nothing from this file will be "
                 "stored until they are fixed.", icon=":material/error:")
        st.dataframe(problem_table(parsed.problems), hide_index=True, width="stretch")
        return
    frame = parsed.frame
    st.success(f"{len(frame)} rows read without problems.", icon=":material/task_alt:")
    pairs = summary(frame)
    _found(parsed, frame, pairs)
    hits = _conflicts(frame)
    declared = dict(parsed.specs)
    with st.form(key=f"commit-{parsed.digest}"):
        st.caption("What each metric means, per benchmark: the store keeps one definition "
                   "per (benchmark, metric).")
        specs: dict[str | tuple[str, str], MetricSpec] = {}
        for bench, metric in pairs[["benchmark", "metric"]].itertuples(index=False):
            key = (str(bench), str(metric))
            default = default_spec(frame, *key, _stored_spec(token, *key), declared.get(key))
            specs[key] = spec_widgets(parsed.digest, *key, default)
        on_conflict = st.radio("If these systems already have results for these examples"
                               + (f" ({len(hits)} rows do)" if len(hits) else ""),
                               list(CONFLICT_CHOICES), format_func=CONFLICT_CHOICES.__getitem__,
                               key=f"conflict-{parsed.digest}")
        note = st.text_input("Note (optional)", max_chars=200)
        if st.form_submit_button("Commit to the store", type="primary",
                                 icon=":material/cloud_upload:"):
            _commit(parsed, specs, str(on_conflict), note, uploader)


def upload_files(token: str, uploader: str) -> None:
    """The file picker, format choice and system override, and each upload's review
    (nothing is stored before a commit)."""
    st.caption("Results tables (CSV, TSV, JSON Lines, JSON or Parquet, optionally gzipped, "
               "long or wide) or evaluation-harness logs (lm-evaluation-harness, Inspect, "
               "HELM, lighteval, OpenAI evals, promptfoo; a harness output folder as a zip, "
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
    together = len(files or []) > 1 and st.checkbox(
        "Read these files together as one upload (one harness output split across files)",
        key="upload_together")
    staged = [(f.name, f.getvalue()) for f in files or []]
    if together:
        staged = [bundle(staged)]
    for name, content in staged:
        with st.container(border=True):
            review(parse_once(name, content, choice=choice, system=system), token, uploader)


def local_times(values: pd.Series) -> pd.Series:
    """Stored UTC ISO times as readable local times ("2025-03-14 11:22 CET")."""
    zone_name = getattr(st.context, "timezone", None) or "UTC"
    try:
        zone = ZoneInfo(str(zone_name))
    except Exception:  # an unknown zone from the browser
        zone = ZoneInfo("UTC")

    def one(value: object) -> str:
        if not isinstance(value, str) or not value:
            return ""
        try:
            moment = datetime.fromisoformat(value).astimezone(zone)
        except ValueError:
            return value
        return moment.strftime("%Y-%m-%d %H:%M %Z")
    return values.map(one)


def _history_table(uploads: pd.DataFrame) -> pd.DataFrame:
    shown = uploads.drop(columns=["content_hash"]).rename(columns={"created_at": "uploaded"})
    shown["uploaded"] = local_times(shown["uploaded"])
    if shown["deleted_at"].notna().any():
        shown["deleted_at"] = local_times(shown["deleted_at"])
        return shown.rename(columns={"deleted_at": "deleted"})
    return shown.drop(columns=["deleted_at"])


def _do_delete(upload_id: int, who: str) -> None:
    """Button callback: delete once the typed id matches; a fresh box for the next one."""
    box = f"confirm-delete-{upload_id}"
    typed = str(st.session_state.get(box, "")).strip().lstrip("#")
    if typed != str(upload_id):
        st.session_state["upload_flash"] = ("warning", f"Type {upload_id} in the box to "
                                            f"confirm; nothing was deleted.")
        return
    st.session_state[box] = ""
    try:
        removed = cache.store().delete_upload(upload_id, deleted_by=who)
    except (ValueError, PermissionError) as exc:
        st.session_state["upload_flash"] = ("error", str(exc))
        return
    st.session_state["upload_flash"] = ("success", f"Upload #{upload_id} deleted ({removed} rows "
                                        "left the store; rows it had replaced are back). It "
                                        "can be restored below.")


def _do_restore(upload_id: int, who: str) -> None:
    try:
        back = cache.store().restore_upload(upload_id, restored_by=who)
    except (ValueError, PermissionError) as exc:
        st.session_state["upload_flash"] = ("error", str(exc))
        return
    st.session_state["upload_flash"] = ("success",
                                        f"Upload #{upload_id} restored ({back} rows back).")


def _flash() -> None:
    kind, message = st.session_state.pop("upload_flash", (None, ""))
    if kind is not None:
        {"warning": st.warning, "error": st.error, "success": st.success}[kind](inert(message))


def _delete_form(uploads: pd.DataFrame, who: str) -> None:
    names = uploads.set_index("upload_id")["filename"]
    upload_id = int(st.selectbox("Delete an upload", uploads["upload_id"].tolist(),
                                 format_func=lambda i: f"#{i} · {names.at[i]}",
                                 key="delete-which"))
    contents = cache.store().upload_contents(upload_id)
    st.text(f"Deleting upload #{upload_id} ({names.at[upload_id]}) removes "
            f"{int(contents['rows'].sum())} rows from every page:")
    st.dataframe(contents, hide_index=True, width="stretch")
    st.caption("Rows it replaced come back. The delete can be undone (restore) until the "
               "deleted upload is purged.")
    st.text_input(f"Type {upload_id} to confirm", key=f"confirm-delete-{upload_id}")
    st.button(f"Delete upload #{upload_id}", icon=":material/delete:", key="delete-button",
              on_click=_do_delete, args=(upload_id, who))


def history(token: str, *, may_delete: bool, who: str = "") -> None:
    """Every upload, newest first (times local); with ``may_delete``, a confirmed delete and
    the deleted uploads with a restore button."""
    st.subheader("Upload history")
    _flash()
    uploads = cache.uploads(token)
    st.dataframe(_history_table(uploads), hide_index=True, width="stretch")
    if not may_delete:
        return
    if not uploads.empty:
        _delete_form(uploads, who)
    deleted = cache.store().uploads(deleted=True)
    if deleted.empty:
        return
    with st.expander(f"Deleted uploads ({len(deleted)})"):
        st.dataframe(_history_table(deleted), hide_index=True, width="stretch")
        names = deleted.set_index("upload_id")["filename"]
        which = int(st.selectbox("Restore an upload", deleted["upload_id"].tolist(),
                                 format_func=lambda i: f"#{i} · {names.at[i]}",
                                 key="restore-which"))
        st.button(f"Restore upload #{which}", icon=":material/restore:", key="restore-button",
                  on_click=_do_restore, args=(which, who))


def _scale_label(scale: float | None) -> str:
    return "as stored" if scale is None else f"× {scale:g}"


def metric_editor(who: str) -> None:
    """Edit a stored metric's definition (direction, modality, threshold, display scale);
    each change is recorded with who and when."""
    st.subheader("Metric definitions")
    defs = cache.store().metric_definitions()
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
                cache.store().update_metric(bench, metric, spec, display_scale=scale,
                                            changed_by=who or "anonymous")
            except (DataContractError, ValueError, PermissionError) as exc:
                st.error("Not saved.")
                st.text(str(exc))
            else:
                st.success("Saved; every page uses the new definition.")
    changes = cache.store().metric_history(bench, metric)
    if not changes.empty:
        changes["changed_at"] = local_times(changes["changed_at"])
        st.dataframe(changes.drop(columns=["benchmark", "metric"]), hide_index=True,
                     width="stretch")
