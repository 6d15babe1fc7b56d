"""Inspect's ``stderr(cluster=...)`` reproduced from logs written by inspect-ai itself (issue
#26 acceptance).

Provenance: ``tests/data/harness-logs-real/inspect_clustered/eval/`` holds two ``.eval`` logs
written offline by inspect-ai 0.3.285 from PyPI (its ``pip freeze`` in ``VERSIONS.txt``),
run by ``python3 scripts/harness_logs.py --only inspect_clustered``
(``scripts/harness_runs/inspect_clustered_run.py``): task ``passages``, 16 samples in 4
passages of 4 (``metadata.passage``), scorer ``match`` with the task's metrics
``[accuracy(), stderr(cluster="passage")]``, models ``sigtest/model-a`` and ``-b`` (a
deterministic local model API whose answers to one passage fail together). The reference
values are the ``accuracy`` and ``stderr`` Inspect computed and wrote into each log's
``header.json`` (``results.scores[0].metrics``): for stderr, inspect_ai
``scorer/_metrics/std.py::_clustered_stderr``, ``√(C/(C−1) · Σ_c S_c²) / n`` with S_c the
cluster sum of deviations from the mean (Miller 2024, arXiv:2411.00640, Appendix A, with a
finite-cluster correction). Inspect stores the float as computed (JSON double), so the
comparison is to 1e-12 relative.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest

from engine import read_harness
from engine.io._zip import member_bytes
from engine.stats._clusters import ClusterDesign, clustered_mean_se, clustered_se
from engine.store import open_store

LOGS = sorted((Path(__file__).parents[2] / "data" / "harness-logs-real" / "inspect_clustered"
               / "eval").glob("*.eval"))


def _results(path: Path) -> dict[str, object]:
    """The scorer's metrics as Inspect wrote them in the log's header.json."""
    data = path.read_bytes()
    archive = zipfile.ZipFile(path)
    header = json.loads(member_bytes(data, archive, archive.getinfo("header.json"), path.name))
    [score] = header["results"]["scores"]
    return {"model": header["eval"]["model"], **score["metrics"]}


def test_two_real_logs_with_a_clustered_stderr() -> None:
    assert len(LOGS) == 2
    for path in LOGS:
        metrics = _results(path)
        assert metrics["stderr"]["params"] == {"cluster": "passage"}  # type: ignore[index]


@pytest.mark.parametrize("path", LOGS, ids=lambda p: p.name[:25])
def test_clustered_se_of_each_system_equals_inspects_stderr(path: Path) -> None:
    res = read_harness(path)
    assert res.clusters == {"passages": "passage"}  # the importer declares it from the log
    metrics = _results(path)
    frame = res.frame
    assert frame["system"].nunique() == 1 and len(frame) == 16
    values = frame["value"].to_numpy(float)
    codes = frame["passage"].to_numpy()
    assert len(set(codes)) == 4
    assert values.mean() == pytest.approx(metrics["accuracy"]["value"], rel=1e-12)  # type: ignore[index]
    inspect_se = float(metrics["stderr"]["value"])  # type: ignore[index]
    assert clustered_se(values, codes, convention="inspect") == pytest.approx(inspect_se,
                                                                              rel=1e-12)
    # the engine's own (CR2) error of the same mean, the one its intervals use: with 4
    # equal clusters CR2's weights 1/(1 − 1/4) equal Inspect's C/(C − 1) = 4/3 exactly
    design = ClusterDesign.from_codes(codes, "passage")
    assert clustered_mean_se(values[None, :], design)[0] == pytest.approx(inspect_se, rel=1e-12)


def test_the_two_models_differ_in_their_design_effect() -> None:
    # why the example clusters: the passages fail together, so Inspect's clustered error
    # exceeds the independent one s/√n = 0.1281 (both models 9/16 right): model-a, right on
    # 1/3/4/1 of each passage's 4, stderr 0.1875, design effect 2.14; model-b, 4/1/0/4,
    # stderr 0.2577, design effect 4.05
    deffs = []
    for path in LOGS:
        values = read_harness(path).frame["value"].to_numpy(float)
        inspect_se = float(_results(path)["stderr"]["value"])  # type: ignore[index]
        deffs.append(inspect_se**2 / (values.var(ddof=1) / len(values)))
    assert max(deffs) > 2.0, deffs


def test_import_into_a_store_declares_passage(sqlite_url: str) -> None:
    store = open_store(sqlite_url)
    for path in LOGS:
        res = read_harness(path)
        store.import_frame(res.frame, filename=path.name)
        said = store.declare_log_clusters(res.clusters)
        assert said == ["passages: clustered by passage, as the log's stderr(cluster=...) says"]
    assert store.benchmark_cluster("passages") == "passage"
