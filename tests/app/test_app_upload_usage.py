"""The Upload page reads a harness log's usage (tokens, times, cost), shows it in the preview
and stores it as lower-is-better metrics, after the scores (logs the real tools wrote:
tests/data/harness-logs-real/promptfoo, promptfoo 0.123.1; helm/v1, crfm-helm 0.5.16).

Reference values: the raw results.json (``latencyMs`` of each result) and the store's
catalog after the commit.
"""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import pandas as pd
import pytest
from apptest_support import app, no_exception
from streamlit.testing.v1 import AppTest

from engine.store import open_store

REAL = Path(__file__).resolve().parents[2] / "tests" / "data" / "harness-logs-real"

pytestmark = pytest.mark.slow


def _usage_table(at: AppTest) -> pd.DataFrame:
    found = [d.value for d in at.dataframe if "measures" in d.value.columns]
    assert len(found) == 1, "one usage table in the preview"
    return found[0]


def test_promptfoo_usage_previewed_and_stored_lower_is_better(db: Path) -> None:
    content = (REAL / "promptfoo" / "results.json").read_bytes()
    at = app("views/upload.py")
    at.file_uploader(key="upload_files").upload("results.json", content, "application/json")
    at.run()
    no_exception(at)
    assert any("Cost and speed the log recorded" in c.value for c in at.caption)
    usage = _usage_table(at).set_index("metric")
    assert list(usage.index) == ["cost", "latency_ms", "tokens_in", "tokens_out"]
    raw = json.loads(content)["results"]["results"]
    latencies = [r["latencyMs"] for r in raw]
    assert usage.loc["latency_ms", "mean per example"] == pytest.approx(
        sum(latencies) / len(latencies), abs=1e-12)
    assert usage.loc["latency_ms", "unit"] == "milliseconds"
    # the direction offered for each usage metric is "lower"
    dirs = {r.label: r.value for r in at.radio if r.label.endswith("better is")}
    assert dirs["sig\\_arith · latency\\_ms: better is"] == "lower"
    [b for b in at.get("form_submit_button") if "Commit" in b.proto.label][0].click()
    at.run()
    no_exception(at)
    catalog = open_store(f"sqlite:///{db}").catalog()
    mine = catalog[catalog["benchmark"] == "sig_arith"]
    assert list(mine["metric"]) == ["accuracy", "pass", "score", "cost", "latency_ms",
                                    "tokens_in", "tokens_out"]  # scores first
    assert not mine.set_index("metric").loc[["cost", "latency_ms", "tokens_in"],
                                            "higher_is_better"].any()


def test_helm_run_zip_usage_previewed(db: Path) -> None:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for p in sorted((REAL / "helm" / "v1").rglob("*")):
            if p.is_file():
                z.write(p, p.relative_to(REAL / "helm").as_posix())
    at = app("views/upload.py")
    at.file_uploader(key="upload_files").upload("helm.zip", buf.getvalue(), "application/zip")
    at.run()
    no_exception(at)
    usage = _usage_table(at)
    assert set(usage["metric"]) == {"tokens_in", "tokens_out", "latency_s"}
    assert set(usage["unit"]) == {"tokens", "seconds"}


def test_summary_calls_usage_numeric_even_when_all_zero() -> None:
    """promptfoo's echo provider records cost 0 and no tokens as 0 (results.json): a cost of
    0 is an amount, not a pass/fail."""
    from app.components.upload_found import summary

    frame = pd.DataFrame({"benchmark": "b", "system": "m", "example_id": ["e1", "e2"] * 2,
                          "metric": ["pass", "pass", "cost", "cost"], "value": 0.0})
    assert summary(frame)["detected"].tolist() == ["binary (0/1)", "numeric (cost or speed)"]
