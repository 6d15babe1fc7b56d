"""Analytics sources as DATA on the command line: ``duckdb:…`` and ``chdb:…`` give the
byte-identical output of the same rows given as a file, for every reading command, and
``import`` stores a source like an upload of those rows.

The rows: bt-eval's TAC2008 scores of two metrics (tests/data/bt-eval, Apache-2.0; Peyrard
et al. 2021), written as CSV, Parquet, a DuckDB file and a chDB data path by
tests/engine/sources/test_sources_engine.py run as a script.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine.cli import main

ROOT = Path(__file__).resolve().parents[2]
WRITER = ROOT / "tests" / "engine" / "sources" / "test_sources_engine.py"
#: the chDB table's names for the canonical columns (written by WRITER)
CHDB_COLUMNS = "benchmark=suite,metric=measure,example_id=item,system=model_id,value=passed"

pytestmark = pytest.mark.slow  # each command reads its DATA in a capped child


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    folder = tmp_path_factory.mktemp("cli-sources")
    subprocess.run([sys.executable, str(WRITER), str(folder)], check=True, timeout=180,
                   cwd=ROOT,
                   # without PYTHONPATH: its tests/ folder (.ci/run's) holds a tests/engine
                   # package that would shadow the project's engine in the script
                   env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"})
    return {"csv": str(folder / "tac2008.csv"), "parquet": str(folder / "tac2008.parquet"),
            "duckdb": f"duckdb:{folder / 'tac2008.parquet'}",
            "duckdb_table": f"duckdb:{folder / 'tac2008.duckdb'}?table=scores",
            "chdb": f"chdb:{folder / 'chdb'}?table=evals.scores", "folder": str(folder)}


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def _same_as_the_file(capsys: pytest.CaptureFixture[str], data: dict[str, str],
                      *command: str) -> str:
    """``command`` on the CSV file, then on each source: the same bytes on stdout."""
    code, want, _ = _run(capsys, command[0], data["csv"], *command[1:])
    assert code == 0 and want.strip()
    for source, extra in [(data["duckdb"], []), (data["duckdb_table"], []),
                          (data["chdb"], ["--columns", CHDB_COLUMNS])]:
        code, got, err = _run(capsys, command[0], source, *command[1:], *extra)
        assert (code, err) == (0, ""), err
        assert got == want, f"{source}: differs from the file's output"
    return want


def test_leaderboard_of_a_source_is_the_leaderboard_of_the_file(
        capsys: pytest.CaptureFixture[str], data: dict[str, str]) -> None:
    table = _same_as_the_file(capsys, data, "leaderboard", "--metric", "S3_pyr")
    assert table.splitlines()[0].split()[:3] == ["system", "rank", "rank_low"]
    rows = json.loads(_same_as_the_file(capsys, data, "leaderboard", "--metric", "ROUGE_L",
                                        "--format", "json"))
    assert rows["metric"] == "ROUGE_L" and len(rows["systems"]) == 58


def test_pairwise_compare_and_overall_read_sources(capsys: pytest.CaptureFixture[str],
                                                   data: dict[str, str]) -> None:
    _same_as_the_file(capsys, data, "pairwise", "--metric", "S3_pyr", "--format", "json")
    _same_as_the_file(capsys, data, "compare", "--metric", "S3_pyr", "--baseline", "M0",
                      "--candidate", "M6", "--format", "json")
    _same_as_the_file(capsys, data, "overall", "--format", "json")


def test_import_stores_a_source_like_an_upload(capsys: pytest.CaptureFixture[str],
                                               data: dict[str, str], tmp_path: Path) -> None:
    by_file, by_source = f"sqlite:///{tmp_path / 'file.db'}", f"sqlite:///{tmp_path / 'src.db'}"
    assert _run(capsys, "import", data["parquet"], "--db", by_file)[0] == 0
    code, out, err = _run(capsys, "import", data["chdb"], "--columns", CHDB_COLUMNS,
                          "--db", by_source, "--format", "json")
    assert code == 0, err
    upload = json.loads(out)["uploads"][0]
    assert upload["rows"] == 5568 and upload["upload_id"] is not None
    again = json.loads(_run(capsys, "import", data["chdb"], "--columns", CHDB_COLUMNS,
                            "--db", by_source, "--format", "json")[1])["uploads"][0]
    assert again["duplicate_of"] == upload["upload_id"]  # the same rows: stored once
    listing = json.loads(_run(capsys, "uploads", by_source, "--format", "json")[1])
    assert data["chdb"].split("?")[0] in json.dumps(listing)
    boards = [_run(capsys, "leaderboard", url, "--metric", "S3_pyr")[1]
              for url in (by_file, by_source)]
    assert boards[0] == boards[1] and boards[0].strip()


def test_bad_mappings_and_misplaced_columns_are_refused(capsys: pytest.CaptureFixture[str],
                                                        data: dict[str, str],
                                                        tmp_path: Path) -> None:
    code, out, err = _run(capsys, "leaderboard", data["chdb"], "--columns",
                          CHDB_COLUMNS.replace("model_id", "model"))
    assert code == 2 and out == ""
    assert "no column 'model'" in err and "map system to one of its columns" in err
    code, _, err = _run(capsys, "leaderboard", data["csv"], "--columns", "system=model")
    assert code == 2 and "--columns: maps the columns of a duckdb:" in err
    code, _, err = _run(capsys, "import", data["csv"], "--columns", "system=model",
                        "--db", f"sqlite:///{tmp_path / 'x.db'}")
    assert code == 2 and "not of a file" in err
    code, _, err = _run(capsys, "import", data["duckdb"], "--system", "M0",
                        "--db", f"sqlite:///{tmp_path / 'x.db'}")
    assert code == 2 and "--columns system=COLUMN" in err
    with pytest.raises(SystemExit):
        main(["leaderboard", data["duckdb"], "--columns", "sistem=model"])
    assert "not a column sigboard reads" in capsys.readouterr().err
    code, _, err = _run(capsys, "leaderboard",
                        f"{data['duckdb_table'].split('?')[0]}?table=scores;drop")
    assert code == 2 and "is not a table name" in err
    code, _, err = _run(capsys, "leaderboard", "clickhouse://u:hunter2@127.0.0.1:1/db?table=t")
    assert code == 2 and "hunter2" not in err and "server is running" in err


# ------------------------------------------------------------------ ClickHouse over HTTP


@pytest.fixture(scope="module")
def clickhouse_http(data: dict[str, str]) -> Iterator[str]:
    """The chDB data path behind ClickHouse's HTTP interface on a loopback port
    (tests/cli/clickhouse_http.py; it stops by itself after 300 s), as a
    ``clickhouse://`` source spelling with its table."""
    port = _free_port()
    server = subprocess.Popen(
        [sys.executable, str(Path(__file__).with_name("clickhouse_http.py")),
         str(Path(data["folder"]) / "chdb"), str(port), "300"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        assert server.stdout is not None and server.stdout.readline().strip() == "ready"
        yield f"clickhouse://reader:s3cret@127.0.0.1:{port}/evals?table=scores"
    finally:
        server.terminate()
        server.wait(timeout=30)
        if server.stdout is not None:
            server.stdout.close()


def test_clickhouse_connect_reads_a_clickhouse_engine_over_http(
        capsys: pytest.CaptureFixture[str], data: dict[str, str], clickhouse_http: str,
        tmp_path: Path) -> None:
    """clickhouse-connect's path (connect, then query_arrow with the child's settings) against
    ClickHouse 26.9 (chDB behind the HTTP interface): the leaderboard of the file, and an
    import like the file's upload; the password appears nowhere."""
    _, want, _ = _run(capsys, "leaderboard", data["csv"], "--metric", "S3_pyr")
    code, got, err = _run(capsys, "leaderboard", clickhouse_http, "--columns", CHDB_COLUMNS,
                          "--metric", "S3_pyr")
    assert (code, err) == (0, "") and got == want
    url = f"sqlite:///{tmp_path / 'ch.db'}"
    code, out, err = _run(capsys, "import", clickhouse_http, "--columns", CHDB_COLUMNS,
                          "--db", url, "--format", "json")
    assert code == 0, err
    listing = _run(capsys, "uploads", url, "--format", "json")[1]
    assert "clickhouse://127.0.0.1" in listing and "s3cret" not in listing + out + err
    code, _, err = _run(capsys, "leaderboard", clickhouse_http.replace("scores", "nope"),
                        "--columns", CHDB_COLUMNS)
    assert code == 2 and "could not read the source" in err and "s3cret" not in err


# ------------------------------------------------------------------ a ClickHouse server


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def clickhouse_server(tmp_path: Path) -> Iterator[int]:
    """A ``clickhouse-server`` on loopback when one is installed and clickhouse-connect can
    talk to it; skipped otherwise (Debian bookworm's package is ClickHouse 18.16, older than
    any the pinned clickhouse-connect supports: docs/sources.md)."""
    binary = shutil.which("clickhouse-server")
    if binary is None:
        pytest.skip("no clickhouse-server installed")
    http, tcp = _free_port(), _free_port()
    config = Path("/etc/clickhouse-server/config.xml")
    server = subprocess.Popen(
        [binary, f"--config-file={config}", "--", f"--path={tmp_path}/data/",
         f"--http_port={http}", f"--tcp_port={tcp}", "--listen_host=127.0.0.1",
         f"--tmp_path={tmp_path}/tmp/", f"--user_files_path={tmp_path}/files/",
         f"--format_schema_path={tmp_path}/schemas/", f"--logger.log={tmp_path}/log",
         f"--logger.errorlog={tmp_path}/err"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        import clickhouse_connect

        deadline, reason = time.monotonic() + 30, "did not start"
        while time.monotonic() < deadline:
            try:
                clickhouse_connect.get_client(host="127.0.0.1", port=http).close()
                break
            except Exception as exc:  # noqa: BLE001 - not up yet, or a version it refuses
                reason = " ".join(str(exc).split())[:200]
                if "Unknown identifier" in reason or "Code:" in reason:
                    pytest.skip(f"clickhouse-connect cannot use this clickhouse-server: {reason}")
                time.sleep(0.5)
        else:
            pytest.skip(f"clickhouse-server {reason}")
        yield http
    finally:
        server.terminate()
        server.wait(timeout=30)


def test_a_clickhouse_server_source(capsys: pytest.CaptureFixture[str], data: dict[str, str],
                                    clickhouse_server: int) -> None:
    import clickhouse_connect
    import pyarrow.parquet as pq

    client = clickhouse_connect.get_client(host="127.0.0.1", port=clickhouse_server)
    client.command("CREATE DATABASE IF NOT EXISTS evals")
    client.command("CREATE TABLE evals.scores (dataset String, metric String, instance Int64, "
                   "system String, score Float64) ENGINE = MergeTree ORDER BY tuple()")
    client.insert_arrow("evals.scores", pq.read_table(data["parquet"]))
    _, want, _ = _run(capsys, "leaderboard", data["csv"], "--metric", "S3_pyr")
    code, got, err = _run(capsys, "leaderboard",
                          f"clickhouse://127.0.0.1:{clickhouse_server}/evals?table=scores",
                          "--metric", "S3_pyr")
    assert (code, err) == (0, "") and got == want
