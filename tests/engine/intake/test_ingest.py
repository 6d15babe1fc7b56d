"""engine.ingest: one decision, in one memory-capped child, the same frames as the readers
give in-process; the CLI's import and DATA reading go through it and parse nothing in the
CLI's own process; io and harness do not import each other."""

from __future__ import annotations

import ast
import io
import subprocess
import zipfile
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import engine.harness
import engine.harness._walk
import engine.intake._decide
import engine.io._fork
import engine.io._formats
import engine.io._worker
import engine.io._zip
from engine import DataContractError, Limits, ingest, read_harness

ROOT = Path(__file__).resolve().parents[3]
LOGS = ROOT / "tests" / "data" / "harness-logs"
FOLDERS = ["helm", "inspect", "lighteval", "lm_eval", "openai_evals", "promptfoo"]


def _zip(folder: str) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for p in sorted((LOGS / folder).rglob("*")):
            if p.is_file() and p.name != "expected_long.csv":
                z.write(p, f"{folder}/{p.relative_to(LOGS / folder).as_posix()}")
    return buf.getvalue()


@pytest.mark.slow
@pytest.mark.parametrize("folder", FOLDERS)
def test_the_childs_frame_is_the_in_process_readers(folder: str) -> None:
    content = _zip(folder)
    got = ingest((f"{folder}.zip", content))
    want = read_harness((f"{folder}.zip", content))
    assert got.kind == "results" and got.format == want.format
    pd.testing.assert_frame_equal(got.frame, want.frame)
    assert got.specs == want.specs and got.clusters == want.clusters
    assert got.report == want.report() and got.files == want.files
    assert want.skipped is not None and got.skipped is not None
    pd.testing.assert_frame_equal(got.skipped, want.skipped)


@pytest.mark.slow
def test_tables_battles_and_the_system_override() -> None:
    table = b"benchmark,system,example_id,metric,value\nb,A,e1,m,1\nb,A,e2,m,0\n"
    got = ingest(("r.csv", table), system="named")
    assert got.format == "table" and set(got.frame["system"]) == {"named"}
    two = b"benchmark,system,example_id,metric,value\nb,A,e1,m,1\nb,B,e1,m,0\n"
    with pytest.raises(DataContractError, match="names 2 systems"):
        ingest(("r.csv", two), system="named")
    battles = ingest(("arena.jsonl", b'{"model_a": "A", "model_b": "B", "winner": "tie"}\n'))
    assert battles.kind == "battles" and battles.frame["winner"].tolist() == ["tie"]
    with pytest.raises(DataContractError, match="no value column"):
        ingest(("arena.csv", b"model_a,model_b,winner\nA,B,tie\n"), battles=False)


@pytest.mark.slow
def test_a_memory_cap_refusal_names_the_member() -> None:
    """A log that needs more than the cap is refused by the child with the member."""
    members = {"header.json": b'{"eval": {"task": "t", "model": "m"}}',
               "samples/1_epoch_1.json": b'{"x": [' + b"{}," * 4_000_000 + b"{}]}"}
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in members.items():
            z.writestr(name, data)
    with pytest.raises(DataContractError) as info:
        ingest(("big.eval", buf.getvalue()), limits=Limits(max_parse_memory=400 << 20))
    problem = info.value.problems[0]
    assert problem.source == "big.eval" and "samples/1_epoch_1.json" in problem.rule
    assert "400 MiB" in problem.rule and "SIGBOARD_MAX_PARSE_MEMORY" in problem.fix


@pytest.fixture
def children(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The module of every child started; every parser this process could run poisoned."""
    started: list[str] = []

    class Counted(subprocess.Popen):  # type: ignore[type-arg]
        def __init__(self, argv: list[str], *args: Any, **kwargs: Any) -> None:
            started.append(argv[2])
            super().__init__(argv, *args, **kwargs)

    def poisoned(*_: Any, **__: Any) -> Any:
        raise AssertionError("the CLI parsed the upload itself")

    # a fresh interpreter, as a server (many threads) starts: a fork would inherit the
    # poisoned parsers (the fork path: tests/engine/io/test_parse_fork.py)
    monkeypatch.setattr(engine.io._fork, "enabled", False)
    monkeypatch.setattr(subprocess, "Popen", Counted)
    for module, name in ((engine.harness, "read_harness"), (engine.harness._walk, "walk"),
                         (engine.intake._decide, "decide"), (engine.io._zip, "inflate"),
                         (engine.io._formats, "frame_from_bytes")):
        monkeypatch.setattr(module, name, poisoned)
    return started


@pytest.mark.slow
@pytest.mark.parametrize("folder", ["inspect", "lm_eval"])
def test_cli_import_runs_one_child_and_parses_nothing_itself(
        children: list[str], tmp_path: Path, folder: str,
        capsys: pytest.CaptureFixture[str]) -> None:
    from engine.cli import main

    path = tmp_path / f"{folder}.zip"
    path.write_bytes(_zip(folder))
    assert main(["import", str(path), "--db", f"sqlite:///{tmp_path / 's.db'}"]) == 0
    assert children == ["engine.intake._child"]
    assert f"{folder} log: " in capsys.readouterr().err or folder == "lm_eval"


@pytest.mark.slow
def test_cli_data_reading_runs_one_child(children: list[str], tmp_path: Path) -> None:
    from engine.cli._common import load_data

    path = tmp_path / "r.csv"
    path.write_text("benchmark,system,example_id,metric,value\nb,A,e1,m,1\nb,B,e1,m,0\n")
    assert len(load_data([str(path), str(LOGS / "inspect")]).frame) > 2
    assert children == ["engine.intake._child"] * 2


def _imports(package: str) -> set[str]:
    found = set()
    for path in (ROOT / "engine" / package).glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 2:
                found.add(node.module.split(".")[0])
    return found


def test_io_imports_neither_harness_nor_intake() -> None:
    assert not {"harness", "intake"} & _imports("io")
    assert "intake" not in _imports("harness")
