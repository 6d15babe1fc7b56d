"""The Overall page's "model all systems" view: every system ranked by the joint model.

The headline, how many cells were missing and which systems rest on few benchmarks, the
chart and the table — both from the one :class:`engine.results.JointFit` — and the fit per
benchmark; or, when the model cannot place the systems on one scale, the engine's reason.
"""

from __future__ import annotations

import json

import pandas as pd
import streamlit as st

from app.charts.joint import ability_chart
from app.data.overall import JointAnswer
from app.downloads import safe_csv
from engine.app_support import (
    JOINT_SCALE_TEXT,
    joint_document,
    joint_headline,
    joint_notes,
    md_isolated,
    md_text,
)

__all__ = ["joint_frame", "joint_section"]


def joint_frame(answer: JointAnswer) -> pd.DataFrame:
    """The table's rows, best first: rank, rank set, ability and interval in percent, the
    benchmarks each system ran."""
    fit = answer.fit
    if fit is None:
        raise ValueError(f"answer: the joint model gave no fit ({answer.reason}); show the "
                         "reason instead of the table")
    t = fit.table
    return pd.DataFrame({
        "rank": t["rank"].astype(int),
        "system": t["system"].astype(str),
        "rank set": [f"{lo}–{hi}" if lo != hi else f"{lo}"
                     for lo, hi in zip(t["rank_set_low"], t["rank_set_high"], strict=True)],
        "ability %": t["ability"].round(1),
        "interval": [f"{lo:.1f}–{hi:.1f}" for lo, hi in zip(t["ability_low"], t["ability_high"],
                                                           strict=True)],
        "benchmarks run": [f"{n} of {len(fit.benchmarks)}" for n in t["benchmarks_run"]],
        "ran": [", ".join(fit.coverage(s)) for s in t["system"].astype(str)],
    })


def joint_section(answer: JointAnswer, headline: st.delta_generator.DeltaGenerator) -> None:
    """Draw the answer (see the module's notes); ``headline`` is the page's first line."""
    if answer.fit is None:
        headline.markdown("**The joint model cannot rank these systems together.**")
        st.error(f"Why: {md_text(answer.reason)}.", icon=":material/block:")
        return
    fit = answer.fit
    headline.markdown(f"**{md_text(joint_headline(fit))}**")
    few = len(fit.few_benchmarks)
    st.caption(f"{len(fit.table)} systems ranked · {len(fit.benchmarks)} benchmarks · "
               f"{fit.cells_missing:,} of {fit.cells_total:,} cells missing "
               f"({fit.cells_missing / fit.cells_total:.0%}) · {few} system(s) rest on fewer "
               f"than half the benchmarks" + ("" if not answer.left_out else
                                              f" · left out: {md_text(', '.join(answer.left_out))}"))
    for line in joint_notes(fit, answer.left_out)[1:]:  # the first: the caption's count
        st.caption(f":material/info: {md_isolated(line)}")
    st.altair_chart(ability_chart(fit.table), width="stretch")
    st.caption(md_text(JOINT_SCALE_TEXT) + f" *Rank set*: the ranks each system could hold "
               f"({1 - fit.alpha:.0%}, all sets together); a system resting on few benchmarks "
               "has a wider interval and rank set.")
    st.dataframe(joint_frame(answer), hide_index=True, width="stretch",
                 column_config={"ran": st.column_config.TextColumn("benchmarks it ran"),
                                "ability %": st.column_config.NumberColumn(format="%.1f")})
    with st.expander("Fit per benchmark"):
        bf = fit.benchmark_fit
        st.caption("Residuals: each system's observed mean minus the model's prediction, root "
                   "mean square, in percentage points and in the cells' own standard errors. "
                   "A benchmark that fits badly orders the systems unlike the others.")
        st.dataframe(pd.DataFrame({
            "benchmark": bf["benchmark"].astype(str), "systems": bf["systems"],
            "difficulty": bf["difficulty"].round(2),
            "discrimination": bf["discrimination"].round(2),
            "residual (points)": bf["rmse_points"].round(1), "residual (SE)": bf["rms_z"].round(1),
            "fits badly": bf["fits_badly"].map({True: "yes", False: "no"})}),
            hide_index=True, width="stretch")
    doc = joint_document(fit, left_out=answer.left_out)
    cols = st.columns(2)
    cols[0].download_button("Download table CSV", lambda: safe_csv(fit.table),
                            icon=":material/download:", file_name="overall_joint.csv",
                            mime="text/csv", on_click="ignore")
    cols[1].download_button("Download JSON", lambda: json.dumps(doc, indent=1),
                            icon=":material/data_object:", file_name="overall_joint.json",
                            mime="application/json", on_click="ignore")
