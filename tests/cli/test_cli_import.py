"""``sigboard import``: ``--log-format`` apart from the output's ``--format``, and the upload's
hash taken by the capped child (this process reads none of the file)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from engine.cli import main
from engine.intake import ingest

FIX = Path(__file__).resolve().parent / "fixtures"
RUNS = FIX / "runs.csv"


@pytest.mark.slow
def test_the_child_returns_the_sha256_of_the_bytes_it_read(tmp_path: Path) -> None:
    want = hashlib.sha256(RUNS.read_bytes()).hexdigest()  # reference: hashlib on the file
    assert ingest(str(RUNS)).content_hash == want
    assert ingest(("runs.csv", RUNS.read_bytes())).content_hash == want
    folder = tmp_path / "logs"
    folder.mkdir()
    (folder / "runs.csv").write_bytes(RUNS.read_bytes())
    assert ingest(str(folder), format="long").content_hash is None  # a folder: no one file


@pytest.mark.slow
def test_import_holds_no_byte_of_the_upload(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """The CLI's own process never reads the file (the child does, in another process)."""
    import engine.io._bytes

    def refused(*_a: object, **_k: object) -> bytes:
        raise AssertionError("the CLI read the upload's bytes itself")

    monkeypatch.setattr(engine.io._bytes, "read_bytes", refused)
    monkeypatch.setattr(Path, "read_bytes", refused)
    url = f"sqlite:///{tmp_path / 's.db'}"
    assert main(["import", str(RUNS), "--db", url, "--format", "json"]) == 0
    first = json.loads(capsys.readouterr().out)["uploads"][0]
    assert first["upload_id"] == 1 and first["rows"] == 240
    assert main(["import", str(RUNS), "--db", url, "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["uploads"][0]["duplicate_of"] == 1
    monkeypatch.undo()
    from engine.store import open_store

    stored = open_store(url).uploads()["content_hash"].tolist()
    assert stored == [hashlib.sha256(RUNS.read_bytes()).hexdigest()]


@pytest.mark.slow
def test_log_format_and_output_format_are_two_options(tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    url = f"sqlite:///{tmp_path / 'f.db'}"
    assert main(["import", str(RUNS), "--db", url, "--log-format", "long",
                 "--format", "json"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["uploads"][0]["rows"] == 240
    assert "deprecated" not in captured.err
    # a table forced as another harness's log is refused with that reader's message
    assert main(["import", str(RUNS), "--db", url, "--log-format", "promptfoo"]) == 2
    assert "promptfoo" in capsys.readouterr().err
    assert main(["import", str(RUNS), "--db", url, "--format", "table",
                 "--format", "json"]) == 2
    assert "--format: at most one output format" in capsys.readouterr().err


@pytest.mark.slow
def test_the_old_spelling_still_works_with_a_deprecation_note(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    url = f"sqlite:///{tmp_path / 'old.db'}"
    assert main(["import", str(RUNS), "--db", url, "--format", "long", "--format", "json"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["uploads"][0]["rows"] == 240  # stdout: only the JSON
    assert "--format long is deprecated" in captured.err and "--log-format long" in captured.err
    assert main(["import", str(RUNS), "--db", url, "--format", "long",
                 "--log-format", "wide"]) == 2
    assert "--log-format: one log format" in capsys.readouterr().err


def test_help_documents_both_options(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["import", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "--log-format F the logs' format" in text
    assert "deprecated spelling of --log-format" in text
