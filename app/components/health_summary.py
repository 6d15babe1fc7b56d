"""The overview table: the store's catalog with each benchmark's health summary."""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from app import cache

HEALTH_CONFIG = {
    "benchmark": st.column_config.TextColumn("benchmark", pinned=True),
    "last_upload": st.column_config.DatetimeColumn("last upload", format="YYYY-MM-DD HH:mm"),
    "p5_min": st.column_config.NumberColumn(
        "p5_min", format="percent", help="smallest gap between two systems that is significant"),
    "p5_max": st.column_config.NumberColumn(
        "p5_max", format="percent", help="largest gap between two systems that is not significant"),
    "suspects": st.column_config.NumberColumn(
        "suspects", help="examples solved more by worse systems (Kendall tau < 0)"),
    "health": st.column_config.TextColumn("note"),
}


def _health_row(token: str, benchmark: str, metric: str, alpha: float) -> dict[str, object]:
    try:
        report = cache.health(token, benchmark, metric, alpha)
    except ValueError as exc:
        return {"p5_min": np.nan, "p5_max": np.nan, "suspects": np.nan, "health": str(exc)}
    return {"p5_min": report.p5_min, "p5_max": report.p5_max, "suspects": report.tau_neg,
            "health": ""}


def health_summary(token: str, catalog: pd.DataFrame, alpha: float) -> pd.DataFrame:
    """One row per (benchmark, metric) with its size and health; progress shown while computing."""
    bar = st.progress(0.0, text="Checking benchmark health…")
    rows = []
    for i, row in enumerate(catalog.itertuples(index=False)):
        rows.append(_health_row(token, str(row.benchmark), str(row.metric), alpha))
        bar.progress((i + 1) / len(catalog), text=f"Checked {row.benchmark} · {row.metric}")
    bar.empty()
    health = pd.DataFrame(rows, index=catalog.index).astype({"suspects": "Int64"})
    base = catalog[["benchmark", "metric", "systems", "examples", "rows", "last_upload"]].copy()
    base["last_upload"] = pd.to_datetime(base["last_upload"], utc=True, errors="coerce")
    return pd.concat([base, health], axis=1)
