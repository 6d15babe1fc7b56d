"""What an upload holds, shown before anything is stored: problems, contents, conflicts.

Pure tables (:func:`problem_table`, :func:`summary`, :func:`missing_cells`,
:func:`metadata_columns`) and the two blocks of the review that show them
(:func:`found`, :func:`conflicts`). User-provided names are shown in tables or as
plain text, never as live Markdown.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from app.components.upload_read import Parsed
from app.data import store
from engine import REQUIRED_COLUMNS, Problem
from engine.app_support import USAGE_METRICS, is_text, md_text, split_metadata, usage_table

__all__ = ["conflicts", "found", "metadata_columns", "missing_cells", "problem_table", "summary",
           "usage"]

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
    # tokens, times, money: counts and amounts, even when a log's are all 0 or 1
    out.loc[out["metric"].isin(USAGE_METRICS), "detected"] = "numeric (cost or speed)"
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
    """Which extra columns became per-system, per-example or per-row data (per-row text,
    such as each system's output, is stored; per-row numbers are not).

    Examples
    --------
    >>> df = pd.DataFrame({"benchmark": "b", "system": ["A", "A", "B", "B"],
    ...                    "example_id": ["1", "2"] * 2, "metric": "m", "value": 1.0,
    ...                    "output": ["a", "b", "c", "d"], "tokens": [1, 2, 3, 4]})
    >>> metadata_columns(df)["kept as"].tolist()
    ["per-row text (each system's output: shown on Examples)", 'per-row number (not stored)']
    """
    _, sys_meta, ex_meta = split_metadata(frame)
    canon = {*REQUIRED_COLUMNS, "run"}
    per_sys = [c for c in sys_meta.columns if c not in canon]
    per_ex = [c for c in ex_meta.columns if c not in canon]
    rows = [c for c in frame.columns if c not in canon and c not in per_sys and c not in per_ex]
    texts = [c for c in rows if is_text(frame[c])]  # the store's own rule for outputs
    numbers = [c for c in rows if c not in texts]
    return pd.DataFrame({"column": [*per_sys, *per_ex, *texts, *numbers],
                         "kept as": ["per-system metadata"] * len(per_sys)
                         + ["per-example metadata"] * len(per_ex)
                         + ["per-row text (each system's output: shown on Examples)"]
                         * len(texts)
                         + ["per-row number (not stored)"] * len(numbers)})


def found(parsed: Parsed, frame: pd.DataFrame, pairs: pd.DataFrame) -> None:
    """What the reader found: counts, per (benchmark, metric), metadata, missing cells."""
    runs = int(frame["run"].nunique()) if "run" in frame.columns else 1
    st.text(f"Format: {parsed.format} · {frame['system'].nunique()} systems · "
            f"{frame['benchmark'].nunique()} benchmarks · {frame['metric'].nunique()} metrics"
            f" · {runs} run(s) · {len(frame)} rows")
    st.dataframe(pairs, hide_index=True, width="stretch")
    usage(frame)
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


def usage(frame: pd.DataFrame) -> None:
    """The tokens, times and cost the log recorded: stored as metrics where lower is better,
    listed after the scores (never a benchmark's default); the Pareto page weighs them."""
    table = usage_table(frame)
    if table.empty:
        return
    st.caption("Cost and speed the log recorded, stored beside the scores as metrics where "
               "lower is better (the Trade-offs page sets them against a score):")
    shown = table.rename(columns={"mean": "mean per example"})
    st.dataframe(shown, hide_index=True, width="stretch", column_config={
        "mean per example": st.column_config.NumberColumn(format="%.4g")})


def conflicts(frame: pd.DataFrame) -> pd.DataFrame:
    """Collisions with the store, per (benchmark, system, metric) and stored upload."""
    pairing = store.current().check_pairing(frame)  # content hashes against the store
    for sentence in pairing.sentences:
        st.warning(md_text(f"{sentence}."), icon=":material/link_off:")
    hits = store.current().check_conflicts(frame)
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
