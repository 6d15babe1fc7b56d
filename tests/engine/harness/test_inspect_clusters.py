"""Clusters read from Inspect logs (issue #26 item 1): a scorer's ``stderr(cluster="FIELD")``
is written as ``results.scores[i].metrics.stderr.params == {"cluster": "FIELD"}`` (inspect_ai
``scorer/_metrics/std.py``; docs/formats.md), FIELD a key of each sample's ``metadata``. The
import keeps FIELD as an example attribute and declares it the benchmark's cluster column."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from engine import read_harness
from engine.cli import main
from engine.store import open_store

_REAL = (Path(__file__).parents[2] / "data" / "harness-logs-real" / "inspect" / "json"
         / "2026-11-25T21-47-36-00-00_capitals_Z9ybTZj8bjJanqztqi83xM.json")
#: the category added to each of the real log's four samples (cap-fr, cap-jp, cap-ke, cap-pe)
_CATEGORY = {"cap-fr": "europe", "cap-jp": "asia", "cap-ke": "africa", "cap-pe": "americas"}


def _clustered_log(tmp_path: Path) -> Path:
    """The real inspect-ai JSON log (task capitals, 4 samples, written by inspect eval) edited
    as ``stderr(cluster="category")`` would write it: the scorer's ``metrics.stderr.params``
    set from ``{}`` to ``{"cluster": "category"}`` and a ``category`` metadata field added to
    each sample (its ``metadata`` was ``{}``); nothing else changed."""
    log: dict[str, Any] = json.loads(_REAL.read_text())
    for score in log["results"]["scores"]:
        score["metrics"]["stderr"]["params"] = {"cluster": "category"}
    for sample in log["samples"]:
        sample["metadata"] = {"category": _CATEGORY[sample["id"]]}
    path = tmp_path / _REAL.name
    path.write_text(json.dumps(log))
    return path


def test_reader_keeps_the_field_and_names_the_cluster(tmp_path: Path) -> None:
    res = read_harness(_clustered_log(tmp_path))
    assert res.clusters == {"capitals": "category"}
    got = dict(zip(res.frame["example_id"], res.frame["category"], strict=True))
    assert got == _CATEGORY
    assert "capitals: clustered by category, as the log's stderr(cluster=...) says" in res.report()


def test_unclustered_log_declares_nothing() -> None:
    res = read_harness(_REAL)
    assert res.clusters == {}
    assert "category" not in res.frame.columns
    assert "clustered by" not in res.report()


@pytest.mark.slow  # 2.9 s: the CLI reads the log in the memory-capped child first
def test_cli_import_declares_the_logs_cluster(sqlite_url: str, tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["import", str(_clustered_log(tmp_path)), "--db", sqlite_url]) == 0
    assert "capitals: clustered by category, as the log's stderr(cluster=...) says" in \
        capsys.readouterr().err
    store = open_store(sqlite_url)
    assert store.benchmark_cluster("capitals") == "category"
    assert "category" in store.example_metadata("capitals").columns
