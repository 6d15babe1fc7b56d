"""The Upload page reads an upload once, in one memory-capped child (engine.ingest): a
harness log used to be parsed in the child, the result thrown away, and parsed again in
the server, uncapped (a 127 KB log cost 3.4 GB there). Counted here: the children started
and every parser the server could run in its own process (each made to fail if called)."""

from __future__ import annotations

import gzip
import subprocess
from pathlib import Path
from typing import Any

import pytest

import engine.harness
import engine.harness._walk
import engine.intake._decide
import engine.io._fork
import engine.io._formats
import engine.io._worker
import engine.io._zip
from app.components.upload_read import parse
from engine._contract import USAGE_METRICS

# every test here takes seconds: ./scripts/test.sh --fast leaves them out
pytestmark = pytest.mark.slow

LOGS = Path(__file__).resolve().parents[1] / "data" / "harness-logs"
INSPECT = sorted((LOGS / "inspect").glob("*.eval"))[0]
OPENAI = sorted((LOGS / "openai_evals").glob("*.jsonl"))[0]


@pytest.fixture
def children(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The module of every child process started; every in-process parser poisoned."""
    started: list[str] = []

    class Counted(subprocess.Popen):  # type: ignore[type-arg]
        def __init__(self, argv: list[str], *args: Any, **kwargs: Any) -> None:
            started.append(argv[2])
            super().__init__(argv, *args, **kwargs)

    def poisoned(*_: Any, **__: Any) -> Any:
        raise AssertionError("the server parsed the upload itself")

    # a fresh interpreter, as a server (many threads) starts: a fork would inherit the
    # poisoned parsers (the fork path: tests/engine/io/test_parse_fork.py)
    monkeypatch.setattr(engine.io._fork, "enabled", False)
    monkeypatch.setattr(subprocess, "Popen", Counted)
    for module, name in ((engine.harness, "read_harness"), (engine.harness, "detect_format"),
                         (engine.harness._walk, "walk"), (engine.intake._decide, "decide"),
                         (engine.io._formats, "frame_from_bytes"), (engine.io._zip, "inflate"),
                         (engine.io._zip, "only_member")):
        monkeypatch.setattr(module, name, poisoned)
    return started


@pytest.mark.parametrize(("name", "content", "fmt"), [
    (INSPECT.name, INSPECT.read_bytes(), "inspect"),
    (OPENAI.name + ".gz", gzip.compress(OPENAI.read_bytes(), mtime=0), "openai-evals"),
], ids=["inspect.eval", "openai.jsonl.gz"])
def test_a_harness_upload_runs_one_child_and_no_parse_in_the_server(
        children: list[str], name: str, content: bytes, fmt: str) -> None:
    parsed = parse(name, content)
    assert parsed.problems == () and parsed.frame is not None and len(parsed.frame) > 0
    scores = int((~parsed.frame["metric"].isin(USAGE_METRICS)).sum())  # usage counted apart
    assert parsed.format == fmt and parsed.skip_report.startswith(f"{scores} scores")
    assert children == ["engine.intake._child"]


def test_a_table_and_a_refusal_run_one_child_too(children: list[str]) -> None:
    table = b"benchmark,system,example_id,metric,value\nb,A,e1,m,1\nb,B,e1,m,0\n"
    assert parse("r.csv", table).frame is not None
    bad = parse("bad.jsonl", b'{"doc_id": 0, "doc": {}, "acc": 1.0}\n' + b"{not json\n")
    assert bad.frame is None and bad.problems
    assert children == ["engine.intake._child"] * 2
