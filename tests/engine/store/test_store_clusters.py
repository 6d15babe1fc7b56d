"""A benchmark's declared cluster column (issue #26 item 1): stored per benchmark, set by
``import --cluster COL``, checked against the benchmark's example attributes."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from sqlalchemy import inspect

from engine.cli import main
from engine.store import open_store


def _rows() -> pd.DataFrame:
    """2 systems × 6 examples in 3 passages (example metadata ``passage``)."""
    return pd.DataFrame([("qa", s, f"q{i}", "acc", float((i + k) % 2), f"p{i // 2}")
                         for k, s in enumerate(("a", "b")) for i in range(6)],
                        columns=["benchmark", "system", "example_id", "metric", "value",
                                 "passage"])


def test_declared_cluster_is_stored_per_benchmark_and_checked(sqlite_url: str) -> None:
    store = open_store(sqlite_url)
    store.import_frame(_rows(), filename="qa.csv")
    with store.engine.connect() as conn:
        assert not inspect(conn).has_table("benchmark_clusters"), "created on first use"
    version = store.schema_version
    assert store.benchmark_cluster("qa") is None
    store.set_benchmark_cluster("qa", "passage", set_by="me")
    assert store.benchmark_cluster("qa") == "passage"
    assert store.benchmark_cluster("other") is None
    with pytest.raises(ValueError, match="'nope' is not an example attribute.*'passage'"):
        store.set_benchmark_cluster("qa", "nope")
    assert store.benchmark_cluster("qa") == "passage", "nothing stored on failure"
    store.set_benchmark_cluster("qa", "")
    assert store.benchmark_cluster("qa") is None
    assert open_store(sqlite_url).schema_version == version, "no schema version change"


@pytest.mark.slow
def test_cli_import_cluster_declares_it(sqlite_url: str, tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "qa.csv"
    _rows().to_csv(path, index=False)
    assert main(["import", str(path), "--db", sqlite_url, "--cluster", "passage",
                 "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["cluster"] == {"qa": "passage"}
    assert open_store(sqlite_url).benchmark_cluster("qa") == "passage"


@pytest.mark.slow
def test_cli_import_cluster_absent_column_is_named(sqlite_url: str, tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "qa.csv"
    _rows().to_csv(path, index=False)
    assert main(["import", str(path), "--db", sqlite_url, "--cluster", "family"]) == 0
    err = capsys.readouterr().err
    assert "'family' is not an example attribute of benchmark 'qa'" in err
    assert open_store(sqlite_url).benchmark_cluster("qa") is None
