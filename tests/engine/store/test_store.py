"""Results store semantics, on SQLite and on PostgreSQL (``store_url`` runs both).

Reference values are built in the tests (small frames whose stored content is known
by construction) or come from data/README.md (humaneval + humaneval_hf =
one 78-system benchmark of 164 examples).
"""

from __future__ import annotations

import hashlib
import io
import json
import sqlite3
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import inspect, text
from store_support import canon, grid

from engine._contract import DataContractError, MetricSpec, validate_long
from engine.cli import main
from engine.store import _connect
from engine.store import _schema as S
from engine.store._store import ConflictError, frame_hash, open_store

ROOT = Path(__file__).resolve().parents[3]


@pytest.mark.slow
def test_import_and_load_roundtrip(store_url: str) -> None:
    store = open_store(store_url)
    v0 = store.data_version()
    df = grid(["A", "B", "C"], 20, binary=False)
    report = store.import_frame(df, filename="x.csv", uploader="ann", note="first")
    assert report.upload_id == 1 and report.rows == 60 and report.duplicate_of is None
    assert store.data_version() != v0
    back = store.load_frame("b", "acc")
    assert list(back.columns) == ["benchmark", "system", "example_id", "metric", "value", "run"]
    pd.testing.assert_frame_equal(canon(back), canon(df), check_dtype=False)
    assert back["system"].drop_duplicates().tolist() == ["A", "B", "C"]  # upload order kept
    ups = store.uploads()
    assert ups.loc[0, ["filename", "rows", "rows_stored", "uploader", "note"]].tolist() == \
        ["x.csv", 60, 60, "ann", "first"]
    assert len(store.load_frame("nope")) == 0 and len(store.load_frame("b", "nope")) == 0


@pytest.mark.slow
def test_identical_content_is_stored_once(store_url: str, tmp_path: Path) -> None:
    store = open_store(store_url)
    path = tmp_path / "r.csv"
    grid(["A", "B"], 5).to_csv(path, index=False)
    first = store.import_file(path)
    before, version = store.dump(), store.data_version()
    again = store.import_file(io.BytesIO(path.read_bytes()), name="copy.csv")
    assert again.upload_id is None and again.duplicate_of == first.upload_id
    assert "already stored as upload 1" in again.message
    assert store.dump() == before and store.data_version() == version
    # a frame without bytes: the hash ignores row order
    df = grid(["C"], 5)
    store.import_frame(df, filename="c")
    dup = store.import_frame(df.sample(frac=1, random_state=1), filename="c-shuffled")
    assert dup.duplicate_of is not None


@pytest.mark.slow
def test_collision_rejected_with_list_and_store_unchanged(store_url: str) -> None:
    store = open_store(store_url)
    store.import_frame(grid(["A", "B"], 10), filename="one.csv")
    before, version = store.dump(), store.data_version()
    clash = grid(["B", "C"], 12, seed=5)
    with pytest.raises(ConflictError) as info:
        store.import_frame(clash, filename="two.csv")
    message = str(info.value)
    assert message.startswith("two.csv, column 'system': 10 row(s) collide with stored results")
    assert "benchmark=b, system=B, metric=acc, example_id=ex0, run=0" in message
    assert "and 5 more" in message and "Fix:" in message and "add-run" in message
    assert len(info.value.collisions) == 10
    assert set(info.value.collisions["system"]) == {"B"}
    assert store.dump() == before and store.data_version() == version


@pytest.mark.slow
def test_replace_drops_old_rows_of_colliding_systems(store_url: str) -> None:
    store = open_store(store_url)
    store.import_frame(grid(["A", "B"], 10), filename="one.csv")
    new = grid(["B"], 4, seed=9, binary=False)
    report = store.import_frame(new, filename="b-again.csv", on_conflict="replace")
    assert report.replaced == 10 and report.rows == 4
    back = store.load_frame("b", "acc")
    assert len(back) == 14
    pd.testing.assert_frame_equal(canon(back[back["system"] == "B"]), canon(new),
                                  check_dtype=False)
    assert store.uploads().set_index("upload_id")["rows_stored"].to_dict() == {2: 4, 1: 10}


@pytest.mark.slow
def test_add_run_stores_new_runs(store_url: str) -> None:
    store = open_store(store_url)
    store.import_frame(grid(["A", "B"], 6), filename="r0.csv")
    store.import_frame(grid(["B"], 6, seed=1), filename="r1.csv", on_conflict="add-run")
    store.import_frame(grid(["B", "C"], 6, seed=2), filename="r2.csv", on_conflict="add-run")
    back = store.load_frame("b", "acc")
    runs = back.groupby("system")["run"].apply(lambda r: sorted(set(r))).to_dict()
    assert runs == {"A": [0], "B": [0, 1, 2], "C": [0]}  # C did not collide: stays run 0
    cat = store.catalog()
    assert cat.loc[0, ["systems", "examples", "rows", "runs"]].tolist() == [3, 6, 30, 3]


@pytest.mark.slow
def test_delete_upload_and_data_version(store_url: str) -> None:
    store = open_store(store_url)
    store.import_frame(grid(["A", "B"], 5), filename="one.csv")
    store.import_frame(grid(["C"], 5, metric="f1", binary=False), filename="two.csv",
                       metrics={"f1": MetricSpec(higher_is_better=False)})
    versions = {store.data_version()}
    assert store.delete_upload(2) == 5
    versions.add(store.data_version())
    assert len(versions) == 2
    assert set(store.catalog()["metric"]) == {"acc"}
    assert store.metric_spec("b", "f1") == MetricSpec(True, False)  # definition went too
    with pytest.raises(ValueError, match="no such upload"):
        store.delete_upload(2)
    assert store.delete_upload(1) == 10 and store.load_frame().empty
    assert store.catalog().empty and store.uploads().empty


@pytest.mark.slow
def test_catalog_metric_specs_and_stored_binary(store_url: str) -> None:
    store = open_store(store_url)
    store.import_frame(grid(["A", "B"], 5), filename="acc.csv",
                       metrics={"acc": MetricSpec(binary=True)})
    store.import_frame(grid(["A", "B"], 5, metric="ms", binary=False), filename="ms.csv",
                       metrics={"ms": MetricSpec(higher_is_better=False)})
    cat = store.catalog().set_index("metric")
    assert cat.loc["acc", ["systems", "examples", "rows"]].tolist() == [2, 5, 10]
    assert bool(cat.loc["acc", "binary"]) and not bool(cat.loc["ms", "binary"])
    assert not bool(cat.loc["ms", "higher_is_better"])
    assert store.metric_spec("b", "ms") == MetricSpec(False, False)
    assert store.load_frame("b").attrs["metric_specs"]["acc"] == MetricSpec(True, True)
    before = store.dump()
    frac = grid(["C"], 5, binary=False)
    with pytest.raises(DataContractError, match="declared binary in the store"):
        store.import_frame(frac, filename="frac.csv")
    assert store.dump() == before


@pytest.mark.slow
def test_metadata_newest_upload_wins(store_url: str) -> None:
    store = open_store(store_url)
    df = grid(["A", "B"], 3).assign(size=lambda d: d["system"].map({"A": "7b", "B": "70b"}),
                                    topic=lambda d: d["example_id"].str.upper())
    store.import_frame(df, filename="one.csv")
    df2 = grid(["A"], 3, metric="f1").assign(size="8b")
    store.import_frame(df2, filename="two.csv")
    assert store.system_metadata("b").set_index("system")["size"].to_dict() == \
        {"A": "8b", "B": "70b"}
    assert store.example_metadata("b").set_index("example_id")["topic"].to_dict() == \
        {"ex0": "EX0", "ex1": "EX1", "ex2": "EX2"}
    store.delete_upload(2)
    assert store.system_metadata("b").set_index("system")["size"].to_dict() == \
        {"A": "7b", "B": "70b"}


@pytest.mark.slow
def test_html_and_formula_names_stored_verbatim(store_url: str) -> None:
    store = open_store(store_url)
    names = ['<img src=x onerror="alert(1)">', "=cmd|' /C calc'!A0", "+SUM(1)", "@x", "a\"b,c'd",
             "naïve 模型 🚀", "tab\there"]
    df = pd.DataFrame({"benchmark": "<b>bench</b>", "system": names, "example_id": "=1+1",
                       "metric": "-m", "value": 1.0})
    store.import_frame(df, filename="<evil>.csv")
    back = store.load_frame("<b>bench</b>", "-m")
    assert back["system"].tolist() == names and set(back["example_id"]) == {"=1+1"}
    assert store.uploads()["filename"].tolist() == ["<evil>.csv"]


def test_sqlite_wal_and_busy_timeout(sqlite_url: str) -> None:
    store = open_store(sqlite_url)
    for _ in range(2):  # every pooled connection
        with store.engine.connect() as conn:
            assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
            assert conn.exec_driver_sql("PRAGMA busy_timeout").scalar() == _connect.BUSY_TIMEOUT_MS


def test_cli_store_url_from_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The CLI's entry point reads the environment (the engine itself reads none)."""
    from engine.cli._common import store_url

    monkeypatch.delenv("SIGBOARD_DB_URL", raising=False)
    monkeypatch.setenv("SIGBOARD_DB_PATH", str(tmp_path / "x" / "s.db"))
    assert store_url() == f"sqlite:///{tmp_path / 'x' / 's.db'}"
    monkeypatch.setenv("SIGBOARD_DB_URL", "postgresql+psycopg://u@h/db")
    assert store_url() == "postgresql+psycopg://u@h/db"
    assert store_url("sqlite:///given.db") == "sqlite:///given.db"  # --db wins
    monkeypatch.delenv("SIGBOARD_DB_URL")
    monkeypatch.delenv("SIGBOARD_DB_PATH")
    monkeypatch.chdir(tmp_path)
    assert store_url() == f"sqlite:///{tmp_path / 'var' / 'sigboard.db'}"


def test_open_store_needs_an_explicit_url() -> None:
    with pytest.raises(ValueError, match="url: a results-store URL"):
        open_store("")


def test_postgres_url_without_driver_uses_psycopg() -> None:
    engine = _connect.make_engine("postgresql://u@127.0.0.1:1/db")
    assert engine.url.drivername == "postgresql+psycopg"
    engine.dispose()


@pytest.mark.slow
def test_loaded_frame_is_canonical(store_url: str) -> None:
    store = open_store(store_url)
    store.import_frame(grid(["A", "B"], 4).assign(run=[0, 1] * 4), filename="r.csv")
    back = store.load_frame()
    again = validate_long(back)
    pd.testing.assert_frame_equal(back, again)
    assert back["run"].tolist() == [0, 1] * 4 and back["value"].dtype == np.float64


def test_schema_version_and_upgrade_path(sqlite_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    store = open_store(sqlite_url)
    current = S.SCHEMA_VERSION
    assert store.schema_version == current == 5
    store.import_frame(grid(["A", "B"], 3), filename="one.csv")
    version = store.data_version()

    def next_step(conn) -> None:  # type: ignore[no-untyped-def]
        conn.execute(text("CREATE INDEX ix_test_upgrade ON uploads (created_at)"))

    monkeypatch.setattr(S, "SCHEMA_VERSION", current + 1)
    monkeypatch.setitem(S.MIGRATIONS, current, next_step)
    upgraded = open_store(sqlite_url)
    assert upgraded.schema_version == current + 1 and upgraded.data_version() != version
    assert "ix_test_upgrade" in {i["name"] for i in inspect(upgraded.engine).get_indexes("uploads")}
    assert len(upgraded.load_frame()) == 6  # data kept
    monkeypatch.setattr(S, "SCHEMA_VERSION", current)
    with pytest.raises(ValueError, match="newer than this sigboard"):
        open_store(sqlite_url)


def test_version_1_store_gains_metric_thresholds(tmp_path: Path) -> None:
    """A store written by schema version 1 (no ``metrics.threshold``) upgrades in place."""
    path = tmp_path / "v1.db"
    store = open_store(f"sqlite:///{path}")
    store.import_frame(grid(["A", "B"], 3), filename="one.csv",
                       metrics={"acc": MetricSpec(higher_is_better=False)})
    store.engine.dispose()
    with sqlite3.connect(path) as conn:  # turn it back into a version-1 store
        conn.execute("ALTER TABLE metrics DROP COLUMN threshold")
        conn.execute("UPDATE sigboard_meta SET value = 1 WHERE key = 'schema_version'")
    from engine.store._store import _ENGINES

    _ENGINES.clear()
    upgraded = open_store(f"sqlite:///{path}")
    assert upgraded.schema_version == S.SCHEMA_VERSION
    assert upgraded.metric_spec("b", "acc") == MetricSpec(False, True, None)  # kept, no threshold
    upgraded.import_frame(grid(["C", "D"], 3, metric="err", binary=False), filename="two.csv",
                          metrics={"err": MetricSpec(threshold=0.5)})
    assert upgraded.metric_spec("b", "err").threshold == 0.5


@pytest.mark.slow
def test_catalog_and_thresholds_give_every_metric_spec(store_url: str) -> None:
    """The app builds every metric's spec from the catalog and one threshold query
    (``app.data.store.metric_specs``): the same specs as one ``metric_spec`` call each."""
    store = open_store(store_url)
    store.import_frame(grid(["A", "B"], 4), filename="acc.csv",  # 0/1, undeclared: detected
                       metrics={"acc": MetricSpec(higher_is_better=False)})
    store.import_frame(grid(["A", "B"], 4, metric="err", binary=False), filename="err.csv",
                       metrics={"err": MetricSpec(threshold=0.5)})
    store.import_frame(grid(["A", "B"], 4, metric="num", seed=1), filename="num.csv",
                       metrics={"num": MetricSpec(binary=False)})  # 0/1 values, declared numeric
    store.import_frame(grid(["A", "B"], 4, bench="c", metric="raw", binary=False),
                       filename="raw.csv")  # nothing declared
    thresholds = store.metric_thresholds()
    assert thresholds == {("b", "err"): 0.5}
    cat = store.catalog()
    for b, m, h, binary in zip(cat["benchmark"], cat["metric"], cat["higher_is_better"],
                               cat["binary"], strict=True):
        built = MetricSpec(bool(h), binary=bool(binary), threshold=thresholds.get((b, m)))
        assert built == store.metric_spec(b, m), (b, m)


@pytest.mark.slow
def test_demo_data_loaded_once(store_url: str, tmp_path: Path) -> None:
    """Several app replicas starting at once load the demo exactly once.

    SQLite loads the whole bundled demo; PostgreSQL the two humaneval files (same
    reference figures, a tenth of the rows) to keep the test quick.
    """
    folder = ROOT / "data"
    if store_url.startswith("postgresql"):
        folder = tmp_path / "demo"
        folder.mkdir()
        for name in ("humaneval.jsonl.gz", "humaneval_hf.jsonl.gz"):
            (folder / name).write_bytes((ROOT / "data" / name).read_bytes())
    files = len(list(folder.glob("*.jsonl.gz")))
    with ThreadPoolExecutor(3) as pool:
        runs = list(pool.map(lambda _: open_store(store_url).ensure_demo_data(folder), range(3)))
    stored = [r for reports in runs for r in reports if r.upload_id is not None]
    assert len(stored) == files  # one upload per bundled file, whoever stored it
    store = open_store(store_url)
    assert len(store.uploads()) == files
    cat = store.catalog().set_index("benchmark")
    assert cat.loc["humaneval", ["systems", "examples"]].tolist() == [78, 164]  # README
    assert bool(cat.loc["humaneval", "binary"])
    if files == 8:
        assert not bool(cat.loc["lcb_codegen", "binary"])  # fractions of samples
    version = store.data_version()
    assert store.ensure_demo_data(ROOT / "data") == [] and store.data_version() == version
    store.delete_upload(1)
    assert store.ensure_demo_data(ROOT / "data") == []  # only on first start, not after deletions


# SHA-256 of the eval-arena files as published by Eval-Arena (data/README.md)
# (sha256sum of the files as downloaded from Eval-Arena, 2026-11-23): the demo is an unchanged copy.
EVAL_ARENA_SHA256 = {
    "cruxeval_input.jsonl.gz": "22fe20748545a690db5404256ed73ed6114b6e14e7e8a5ec386a24f3aa62e90d",
    "cruxeval_output.jsonl.gz": "5c18b0f394ca4120fc27281bcb636e85b7af57c867c740906f9621095ea83f6b",
    "humaneval+.jsonl.gz": "fe33e52c6d7239a8d14f94a21dfdbc6a2eb0a459fdcc82f2c83a915baf59c054",
    "humaneval.jsonl.gz": "f22f0f35758b1b219a21d38066404df3f702b2b433f9e6c07a65fe7c56e8282b",
    "humaneval_hf.jsonl.gz": "816f6d40343a7fa1f10237e46fe1fd25aec3ab14dcd42ddcd7c2c401b394f099",
    "lcb_codegen.jsonl.gz": "1ca6900a224d7fb6e18a4595584bd506168c636bb81ff01e87870443ccc7efa4",
    "mbpp+.jsonl.gz": "b144242469642f59dd1bf0bb5f9d95d6176667a67c74117499ba87157db6d6cd",
    "mbpp.jsonl.gz": "18cdf9f934cb655b88551f070d11570eb99fd26a38da647e120dc6fcaf360e1f",
}


def test_demo_files_are_unchanged_copies(demo_data: Path) -> None:
    bundled = {p.name: hashlib.sha256(p.read_bytes()).hexdigest()
               for p in demo_data.glob("*.jsonl.gz")}
    assert bundled == EVAL_ARENA_SHA256


@pytest.mark.slow
def test_cli_import_list_delete(sqlite_url: str, tmp_path: Path,
                                capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "r.csv"
    grid(["A", "B"], 4).to_csv(path, index=False)
    assert main(["import", str(path), "--db", sqlite_url, "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["uploads"][0]["rows"] == 8 and out["uploads"][0]["upload_id"] == 1
    assert main(["import", str(path), "--db", sqlite_url, "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["uploads"][0]["duplicate_of"] == 1
    clash = tmp_path / "clash.csv"
    grid(["B"], 4, seed=3).to_csv(clash, index=False)
    assert main(["import", str(clash), "--db", sqlite_url]) == 2
    assert "collide with stored results" in capsys.readouterr().err
    assert main(["import", str(clash), "--db", sqlite_url, "--on-conflict", "add-run"]) == 0
    capsys.readouterr()
    assert main(["uploads", sqlite_url, "--format", "json"]) == 0
    listed = json.loads(capsys.readouterr().out)["uploads"]
    assert [u["upload_id"] for u in listed] == [2, 1]
    assert main(["delete", "2", "--db", sqlite_url, "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["rows_removed"] == 4
    assert main(["delete", "2", sqlite_url]) == 2
    assert "no such upload" in capsys.readouterr().err
    assert main(["import", str(path), "--db", "not-a-url"]) == 2


@pytest.mark.slow
def test_cli_declares_metrics(sqlite_url: str, tmp_path: Path) -> None:
    path = tmp_path / "r.csv"
    grid(["A", "B"], 4, binary=False).to_csv(path, index=False)
    assert main(["import", str(path), "--db", sqlite_url, "--lower-is-better", "acc"]) == 0
    assert open_store(sqlite_url).metric_spec("b", "acc") == MetricSpec(False, False)
    other = tmp_path / "r2.csv"
    grid(["A", "B"], 4, binary=False, seed=7).to_csv(other, index=False)
    assert main(["import", str(other), "--db", sqlite_url, "--binary", "acc",
                 "--on-conflict", "replace"]) == 2  # 0.x values declared binary


@pytest.mark.slow
@settings(max_examples=5,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(st.permutations(list(range(24))), st.sampled_from(["reject", "add-run"]))
def test_row_order_does_not_change_what_is_stored(tmp_path_factory: pytest.TempPathFactory,
                                                  order: list[int], mode: str) -> None:
    df = grid(["A", "B", "C"], 8, binary=False, seed=4)  # 24 rows, keys unique by construction
    store = open_store(f"sqlite:///{tmp_path_factory.mktemp('perm') / 's.db'}")
    store.import_frame(df.iloc[order], filename="x.csv", on_conflict=mode)  # type: ignore[arg-type]
    pd.testing.assert_frame_equal(canon(store.load_frame()), canon(df), check_dtype=False)
    store.close()
    assert frame_hash(df) == frame_hash(df.iloc[order])


def test_sqlite_dump_unchanged_by_rejections(sqlite_url: str) -> None:
    store = open_store(sqlite_url)
    store.import_frame(grid(["A", "B"], 4), filename="one.csv")
    path = sqlite_url.removeprefix("sqlite:///")

    def dump() -> list[str]:
        with sqlite3.connect(path) as conn:
            return list(conn.iterdump())

    before = dump()
    for bad in (grid(["A"], 2), grid(["A"], 2).assign(value=np.nan)):
        with pytest.raises(DataContractError):
            store.import_frame(bad, filename="bad.csv")
    assert dump() == before
