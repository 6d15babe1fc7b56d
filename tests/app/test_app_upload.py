"""AppTest tests of the Upload page with files that hold several benchmarks and metrics.

bt-eval's long CSV (tests/data/bt-eval, Apache-2.0) has 5 datasets that share metric
names (ROUGE_1, BLEU, …): 68 (benchmark, metric) pairs, each with its own settings.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from apptest_support import app, no_exception, table

from engine.store import open_store


def _upload(bt_eval: Path):  # noqa: ANN202
    at = app("views/upload.py")
    at.file_uploader(key="upload_files").upload(bt_eval.name, bt_eval.read_bytes(),
                                                "application/gzip").run()
    return at


@pytest.mark.slow
def test_two_benchmarks_sharing_a_metric_name_get_their_own_settings(db: Path,
                                                                    bt_eval: Path) -> None:
    # Regression: settings were keyed by metric name only, so the second dataset's
    # ROUGE_1 radio had the same key as the first's (StreamlitDuplicateElementKey).
    at = _upload(bt_eval)
    no_exception(at)
    summary = table(at, 0)
    assert len(summary) == 68 and summary["benchmark"].nunique() == 5
    directions = [r for r in at.radio if r.label.endswith("better is")]
    assert len(directions) == 68, "one direction choice per (benchmark, metric)"
    assert len({r.key for r in directions}) == 68


@pytest.mark.slow
def test_settings_reach_the_store_per_benchmark_and_metric(db: Path, bt_eval: Path) -> None:
    at = _upload(bt_eval)
    [r for r in at.radio if r.label.endswith("better is") and "TAC2008" in r.label
     and r.label.startswith("TAC2008 · BLEU:")][0].set_value("lower")
    [b for b in at.get("form_submit_button") if "Commit" in b.proto.label][0].click().run()
    no_exception(at)
    assert any("stored as upload" in s.value for s in at.success)
    store = open_store(f"sqlite:///{db}")
    assert store.metric_spec("TAC2008", "BLEU").higher_is_better is False
    assert store.metric_spec("TAC2009", "BLEU").higher_is_better is True
    assert store.metric_spec("TAC2008", "ROUGE_1").higher_is_better is True
