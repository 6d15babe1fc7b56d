"""Read-only analytics sources (engine.sources): a real DuckDB and a real ClickHouse engine
(chDB, in-process) read like an upload of the same rows, within the upload limits.

The rows are a real extract: bt-eval's TAC2008 scores of two metrics (tests/data/bt-eval,
Apache-2.0; Peyrard et al. 2021), 58 systems × 48 examples, written here as CSV and
Parquet with pyarrow (and into a chDB data path, with the source's own column names).
The reference of every frame is :func:`engine.ingest` on the same rows as a file upload.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine._contract import DataContractError
from engine.intake import ingest
from engine.io._limits import Limits
from engine.sources import (
    parse_columns,
    parse_source,
    quote_clickhouse,
    quote_duckdb,
    read_source,
)

ROOT = Path(__file__).resolve().parents[3]
BT_EVAL = ROOT / "tests" / "data" / "bt-eval" / "bt_eval_scores_long.csv.gz"
#: the chDB table's own names for the canonical columns (none of them an upload alias)
CHDB_COLUMNS = {"benchmark": "suite", "metric": "measure", "example_id": "item",
                "system": "model_id", "value": "passed"}


def write_extract(folder: Path) -> dict[str, Path]:
    """The extract as CSV, Parquet, a Parquet folder (one file per metric) and a DuckDB
    database file; returns their paths."""
    import duckdb
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.csv as pcsv
    import pyarrow.parquet as pq

    table = pcsv.read_csv(BT_EVAL)
    keep = pc.and_(pc.equal(table["dataset"], "TAC2008"),
                   pc.is_in(table["metric"], value_set=pa.array(["S3_pyr", "ROUGE_L"])))
    table = table.filter(keep)
    paths = {"csv": folder / "tac2008.csv", "parquet": folder / "tac2008.parquet",
             "lake": folder / "lake", "duckdb": folder / "tac2008.duckdb"}
    pcsv.write_csv(table, paths["csv"])
    pq.write_table(table, paths["parquet"])
    paths["lake"].mkdir()
    for metric in ("S3_pyr", "ROUGE_L"):
        part = paths["lake"] / f"metric={metric}"
        part.mkdir()
        pq.write_table(table.filter(pc.equal(table["metric"], metric)).drop_columns(["metric"]),
                       part / "part-0.parquet")
    with duckdb.connect(str(paths["duckdb"]), config={"threads": 1}) as con:
        con.execute("CREATE TABLE scores AS SELECT * FROM read_parquet(?)",
                    [str(paths["parquet"])])
    return paths


def write_chdb(path: Path, parquet: Path) -> None:
    """A chDB data path holding the extract as ``evals.scores`` under the source's own
    column names, written by a separate process (chDB allows one data path per process)."""
    names = ", ".join(f"{raw} AS {source}" for raw, source in
                      {"dataset": "suite", "metric": "measure", "instance": "item",
                       "system": "model_id", "score": "passed"}.items())
    code = ("import sys\nfrom chdb import session\n"
            "s = session.Session(sys.argv[1])\n"
            "s.query('CREATE DATABASE evals')\n"
            "s.query(\"CREATE VIEW evals.big AS SELECT 'b' AS benchmark, concat('S', "
            "toString(number % 3)) AS system, number AS example_id, 'm' AS metric, 1.0 AS "
            "value, concat(repeat('x', 200), toString(number)) AS prompt FROM "
            "numbers(4000000)\")\n"
            f"s.query(\"CREATE TABLE evals.scores ENGINE = MergeTree ORDER BY tuple() AS "
            f"SELECT {names} FROM file('\" + sys.argv[2] + \"', Parquet)\")\n"
            "s.close()\n")
    subprocess.run([sys.executable, "-c", code, str(path), str(parquet)], check=True,
                   timeout=120)


def writer_env() -> dict[str, str]:
    """The environment of the fixtures' writer, run as a script: without PYTHONPATH, whose
    tests/ folder (.ci/run puts it there) holds a tests/engine package that would shadow
    the project's engine when this file is run from its own folder."""
    return {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}


@pytest.fixture(scope="module")
def extract(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The files, written by a separate process: Arrow's writers leave a thread pool
    running, and a process with other threads does not fork the capped child
    (engine.io._fork), so each read in this one would start an interpreter instead."""
    folder = tmp_path_factory.mktemp("sources")
    subprocess.run([sys.executable, __file__, str(folder)], check=True, timeout=120,
                   cwd=ROOT, env=writer_env())
    paths = {"csv": folder / "tac2008.csv", "parquet": folder / "tac2008.parquet",
             "lake": folder / "lake", "duckdb": folder / "tac2008.duckdb"}
    paths["chdb"] = folder / "chdb"
    return paths


def _sorted(frame: pd.DataFrame) -> pd.DataFrame:
    keys = ["benchmark", "metric", "system", "example_id"]
    return frame.sort_values(keys, kind="stable").reset_index(drop=True)


def _tree(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


# ------------------------------------------------------------------ the frames an upload gives


@pytest.mark.slow
def test_duckdb_over_parquet_reads_the_frame_of_the_uploaded_file(extract: dict[str, Path]
                                                                   ) -> None:
    got = read_source(f"duckdb:{extract['parquet']}")
    upload = ingest(str(extract["parquet"]), battles=False)
    assert (got.kind, got.format, got.label) == ("results", "table",
                                                 f"duckdb:{extract['parquet']}")
    pd.testing.assert_frame_equal(got.frame, upload.frame)  # same rows, order, dtypes
    assert got.frame.attrs["metric_specs"] == upload.frame.attrs["metric_specs"]
    csv = ingest(str(extract["csv"]), battles=False).frame
    pd.testing.assert_frame_equal(got.frame, csv)
    assert got.content_hash == read_source(f"duckdb:{extract['parquet']}").content_hash


@pytest.mark.slow
def test_a_parquet_folder_and_a_duckdb_table_hold_the_same_rows(extract: dict[str, Path]
                                                                ) -> None:
    """A folder: every *.parquet below it, hive partitions (metric=…) as columns, files
    unioned by name; a DuckDB database file: its table, opened read-only (unchanged)."""
    upload = _sorted(ingest(str(extract["parquet"]), battles=False).frame)
    lake = read_source(f"duckdb:{extract['lake']}").frame
    pd.testing.assert_frame_equal(_sorted(lake)[upload.columns], upload)
    before = _tree(extract["duckdb"].parent)
    table = read_source(f"duckdb:{extract['duckdb']}?table=scores").frame
    pd.testing.assert_frame_equal(_sorted(table), upload)
    assert _tree(extract["duckdb"].parent) == before


@pytest.mark.slow
def test_chdb_reads_the_frame_of_the_uploaded_file_and_writes_nothing(
        extract: dict[str, Path]) -> None:
    before = _tree(extract["chdb"])
    got = read_source(f"chdb:{extract['chdb']}?table=evals.scores", columns=CHDB_COLUMNS)
    upload = ingest(str(extract["parquet"]), battles=False).frame
    pd.testing.assert_frame_equal(_sorted(got.frame), _sorted(upload))
    assert _tree(extract["chdb"]) == before  # every file of the data path unchanged


# ------------------------------------------------------------------ limits and bad mappings


@pytest.mark.slow
def test_the_upload_limits_hold_for_a_source(extract: dict[str, Path]) -> None:
    source = f"duckdb:{extract['parquet']}"
    with pytest.raises(DataContractError, match=r"more than 1,000 rows.*SIGBOARD_MAX_ROWS"):
        read_source(source, limits=Limits(max_rows=1000))
    with pytest.raises(DataContractError, match=r"58 systems.*SIGBOARD_MAX_SYSTEMS") as caught:
        read_source(source, limits=Limits(max_systems=10))
    assert caught.value.problems[0].column == "system"
    with pytest.raises(DataContractError, match="SIGBOARD_MAX_BYTES"):
        read_source(source, limits=Limits(max_bytes=10_000))
    with pytest.raises(DataContractError, match=r"model_id \(mapped to system\)"):
        read_source(f"chdb:{extract['chdb']}?table=evals.scores", columns=CHDB_COLUMNS,
                    limits=Limits(max_systems=10))


@pytest.mark.slow
def test_the_engine_holds_to_the_memory_limit(tmp_path: Path, extract: dict[str, Path]
                                              ) -> None:
    """A view of 4 million rows of ~200 characters each: DuckDB refuses it within half the
    child's room (128 MiB of 256), before the child's address-space cap is reached."""
    import duckdb

    path = tmp_path / "big.duckdb"
    with duckdb.connect(str(path), config={"threads": 1}) as con:
        con.execute("CREATE VIEW big AS SELECT 'b' AS benchmark, 'S' || (range % 3) AS system, "
                    "range AS example_id, 'm' AS metric, 1.0 AS value, "
                    "repeat('x', 200) || range::VARCHAR AS prompt FROM range(4000000)")
    limits = Limits(max_parse_memory=256 << 20)
    refused = r"memory limit of 256 MiB per upload.*SIGBOARD_MAX_PARSE_MEMORY"
    with pytest.raises(DataContractError, match=refused):
        read_source(f"duckdb:{path}?table=big", limits=limits)
    # ClickHouse: the same view; its answer's Arrow buffers are refused by the child's cap
    with pytest.raises(DataContractError, match=refused):
        read_source(f"chdb:{extract['chdb']}?table=evals.big", limits=limits)


@pytest.mark.slow
def test_bad_mappings_name_the_source_the_column_and_the_fix(extract: dict[str, Path]) -> None:
    chdb = f"chdb:{extract['chdb']}?table=evals.scores"
    with pytest.raises(DataContractError) as caught:
        read_source(chdb, columns={**CHDB_COLUMNS, "system": "model"})
    problem = caught.value.problems[0]
    assert problem.source == f"chdb:{extract['chdb']}" and problem.column == "model"
    assert "no column 'model'" in problem.rule and "'model_id'" in problem.fix
    with pytest.raises(DataContractError) as caught:
        read_source(chdb)  # the source's own names: none is sigboard's or an alias of one
    assert [p.column for p in caught.value.problems] == ["benchmark", "system", "example_id"]
    assert "--columns benchmark=COLUMN" in caught.value.problems[0].fix
    with pytest.raises(DataContractError, match="a column 'system' besides 'dataset'"):
        read_source(f"duckdb:{extract['parquet']}", columns={"system": "dataset"})
    with pytest.raises(DataContractError, match="no such chDB data path"):
        read_source(f"chdb:{extract['chdb']}-missing?table=evals.scores")
    assert not Path(f"{extract['chdb']}-missing").exists()  # chDB did not create it
    with pytest.raises(DataContractError, match=r"duckdb could not read.*No files found"):
        read_source(f"duckdb:{extract['lake']}/nothing-*.parquet")
    with pytest.raises(DataContractError, match="could not read the source"):
        read_source(f"chdb:{extract['chdb']}?table=evals.nope")


@pytest.mark.slow
def test_a_column_named_like_sql_is_only_a_name(tmp_path: Path) -> None:
    """Mapped names are quoted identifiers: a column ``x" FROM t; --`` is read as a column."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    odd = 'x" FROM t; --'
    pq.write_table(pa.table({"benchmark": ["b"] * 2, "system": ["A", "B"],
                             "example_id": ["e", "e"], "metric": ["m", "m"],
                             odd: [1.0, 0.0]}), tmp_path / "odd.parquet")
    got = read_source(f"duckdb:{tmp_path / 'odd.parquet'}", columns={"value": odd})
    assert got.frame["value"].tolist() == [1.0, 0.0]


def test_an_unreachable_server_is_refused_with_the_fix() -> None:
    import socket

    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(DataContractError, match="server is running") as caught:
        read_source(f"clickhouse://me:s3cret@127.0.0.1:{port}/evals?table=scores")
    assert "s3cret" not in str(caught.value)
    assert caught.value.problems[0].source == f"clickhouse://127.0.0.1:{port}/evals?table=scores"


# ------------------------------------------------------------------ the spellings


def test_source_spellings() -> None:
    spec = parse_source("duckdb:runs/*.parquet")
    assert spec.kind == "duckdb" and spec.location == str(Path("runs/*.parquet").resolve())
    assert spec.table == () and spec.label == "duckdb:runs/*.parquet"
    assert parse_source("duckdb:s3://bucket/runs/*.parquet").location == "s3://bucket/runs/*.parquet"
    assert parse_source("duckdb:x.duckdb?table=main.scores").table == ("main", "scores")
    server = parse_source("clickhouse://u:p%40ss@ch.local:9123/evals?table=scores&secure=1")
    assert (server.location, server.database, server.user, server.password, server.secure) == (
        "ch.local:9123", "evals", "u", "p@ss", True)
    assert "p@ss" not in server.label and "p@ss" not in repr(server)
    assert parse_source("clickhouse://ch.local/evals?table=t").location == "ch.local:8123"


@pytest.mark.parametrize("data, message", [
    ("duckdb:x.duckdb?table=scores;DROP TABLE scores", "is not a table name"),
    ("duckdb:x.duckdb?table=a.b.c.d", "is not a table name"),
    ("duckdb:x.duckdb?table=", "is not a table name"),
    ("duckdb:x.parquet?tabel=t", "unknown option"),
    ("duckdb:x.duckdb?table=a&table=b", "given 2 times"),
    ("duckdb:", "no path"),
    ("chdb:/data/ch", "needs a table"),
    ("clickhouse://ch.local/evals", "no table"),
    ("clickhouse:///evals?table=t", "no host"),
    ("clickhouse://ch.local/ev-als?table=t", "not a database name"),
])
def test_bad_spellings_are_refused(data: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_source(data)


def test_column_mappings() -> None:
    assert parse_columns("benchmark=task, value=passed") == {"benchmark": "task",
                                                             "value": "passed"}
    for text, message in [("system", "not NAME=COLUMN"), ("model=m", "not a column sigboard"),
                          ("system=a,system=b", "mapped twice"),
                          ("system=a,metric=a", "source column 'a' is mapped twice"),
                          ("", "empty")]:
        with pytest.raises(ValueError, match=message):
            parse_columns(text)


#: column names as a Parquet file can hold them: printable UTF-8 (no lone surrogates)
_NAMES = st.text(st.characters(min_codepoint=32, exclude_categories=("Cs",),
                               exclude_characters="\x7f"), min_size=1, max_size=20)


@contextlib.contextmanager
def duck() -> Iterator[Any]:
    """A DuckDB connection for one example: an open connection keeps DuckDB's threads, and
    a process with other threads reads every source in a fresh interpreter, not a fork."""
    import duckdb

    with duckdb.connect(":memory:", config={"threads": 1}) as con:
        yield con


@given(name=_NAMES)
@settings(max_examples=30, suppress_health_check=[HealthCheck.too_slow])
def test_duckdb_quoting_round_trips_any_name(name: str) -> None:
    """Property: any printable name, quoted, is one identifier to DuckDB (the engine says so)."""
    with duck() as con:
        assert con.sql(f"SELECT 1 AS {quote_duckdb(name)}").columns == [name]


@pytest.mark.slow
def test_clickhouse_quoting_round_trips_names() -> None:
    """ClickHouse (chDB, in a separate process: one data path per process) reads each quoted
    name back as that one identifier."""
    names = ["plain", "a b", "we`ird", "back\\slash", 'x" FROM t; --', "`; DROP TABLE t; --",
             "ünï cödé", "1starts_with_digit"]
    select = ", ".join(f"{i} AS {quote_clickhouse(n)}" for i, n in enumerate(names))
    code = ("import chdb, sys, json\n"
            "t = chdb.query(sys.argv[1], 'ArrowTable')\n"
            "print(json.dumps(t.schema.names))\n")
    done = subprocess.run([sys.executable, "-c", code, f"SELECT {select}"], check=True,
                          capture_output=True, text=True, timeout=120)
    import json

    assert json.loads(done.stdout) == names


def _outcome(read: Any) -> tuple[str, Any]:
    """A read's frame, or the rules, columns and rows of its refusal (not its source name)."""
    try:
        return "read", read().frame
    except DataContractError as exc:
        return "refused", [(p.rule, p.column, p.rows) for p in exc.problems]


_TABLES = st.lists(st.tuples(st.sampled_from(["b1", "b2"]), st.sampled_from(["A", "B", "C"]),
                             st.sampled_from(["e1", "e2", "e3", "4"]),
                             st.sampled_from(["acc", "f1"]),
                             st.one_of(st.sampled_from([0.0, 1.0, float("nan")]),
                                       st.floats(-5, 5)),
                             st.sampled_from(["", "x", None])),
                   min_size=1, max_size=12)


@pytest.mark.slow
@given(rows=_TABLES)
@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
def test_a_source_is_read_or_refused_as_its_upload_is(tmp_path: Path,
                                                      rows: list[tuple[Any, ...]]) -> None:
    """Property: on random long tables (duplicates, NaN scores, missing texts, numeric-looking
    ids included), DuckDB over a Parquet file gives the frame the upload of that file gives,
    or the same refusal (rule, column, rows)."""
    path = tmp_path / f"t{abs(hash(tuple(rows)))}.parquet"
    # written by DuckDB from SQL values (pandas → Arrow would start Arrow's thread pool in
    # this process, which then reads every source in a fresh interpreter, not a fork)
    with duck() as con:
        con.execute("CREATE TABLE rows_t (benchmark VARCHAR, system VARCHAR, example_id "
                    "VARCHAR, metric VARCHAR, value DOUBLE, note VARCHAR)")
        con.executemany("INSERT INTO rows_t VALUES (?, ?, ?, ?, ?, ?)", rows)
        con.execute(f"COPY rows_t TO '{path}' (FORMAT parquet)")
    source = _outcome(lambda: read_source(f"duckdb:{path}"))
    upload = _outcome(lambda: ingest(str(path), battles=False))
    assert source[0] == upload[0], (source, upload)
    if source[0] == "read":
        pd.testing.assert_frame_equal(source[1], upload[1])
    else:
        assert source[1] == upload[1]


def test_control_characters_are_refused() -> None:
    for quote in (quote_duckdb, quote_clickhouse):
        with pytest.raises(ValueError, match="control characters"):
            quote("a\nb")


if __name__ == "__main__":  # the writer of the fixtures (here and in tests/cli)
    write_extract(Path(sys.argv[1]))
    write_chdb(Path(sys.argv[1]) / "chdb", Path(sys.argv[1]) / "tac2008.parquet")
