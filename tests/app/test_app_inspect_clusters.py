"""Upload of an Inspect log whose scorer has ``stderr(cluster="category")`` (issue #26 item 1):
"Group examples by" defaults to the log's field, the review says so, and the commit declares
it (the log: the real capitals log edited as tests/engine/harness/test_inspect_clusters.py says)."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from apptest_support import app, no_exception
from pages_data_support import store_env

from engine.store import open_store


def _clustered_log_bytes() -> tuple[str, bytes]:
    """The real log, params {} -> {"cluster": "category"}, a category per sample (as in
    tests/engine/harness/test_inspect_clusters.py)."""
    real = (Path(__file__).parents[1] / "data" / "harness-logs-real" / "inspect" / "json"
            / "2026-11-25T21-47-36-00-00_capitals_Z9ybTZj8bjJanqztqi83xM.json")
    log = json.loads(real.read_text())
    for score in log["results"]["scores"]:
        score["metrics"]["stderr"]["params"] = {"cluster": "category"}
    for k, sample in enumerate(log["samples"]):
        sample["metadata"] = {"category": f"c{k % 2}"}
    return real.name, json.dumps(log).encode()


@pytest.mark.slow
def test_upload_of_a_clustered_inspect_log_declares_its_field(tmp_path: Path) -> None:
    other = pd.DataFrame({"benchmark": ["other"] * 2, "system": ["a", "b"],
                          "example_id": ["x", "x"], "metric": ["acc"] * 2, "value": [1.0, 0.0]})
    with store_env(tmp_path / "sigboard.db", other) as path:
        at = app("views/upload.py")
        name, content = _clustered_log_bytes()
        at.file_uploader(key="upload_files").upload(name, content, "application/octet-stream")
        at.run()
        no_exception(at)
        shown = " ".join(t.value for t in at.text)
        assert "capitals: clustered by category, as the log's stderr(cluster=...) says" in shown
        picker = next(s for s in at.selectbox if s.label.startswith("Group examples by"))
        assert picker.value == "category"
        next(b for b in at.get("form_submit_button") if "Commit" in b.proto.label).click()
        at = at.run()
        no_exception(at)
        assert open_store(f"sqlite:///{path}").benchmark_cluster("capitals") == "category"
