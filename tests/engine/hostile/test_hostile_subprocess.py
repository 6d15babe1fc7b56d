"""Hostile uploads through the subprocess paths: the CLI and parse_isolated (issue #17).

Every hostile case of the corpus, at the default limits (the 512 MiB gzip bombs
included), makes ``python -m engine leaderboard FILE`` exit 2 with one line on stderr
(never 1 with a traceback, never 139 from a segfault), and makes
:func:`engine.io._worker.parse_isolated` raise the same DataContractError as the
in-process reader. Each case starts a Python process (one to a few seconds), hence slow.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pandas as pd
import pytest

from engine._contract import DataContractError
from engine.io._formats import frame_from_bytes
from engine.io._limits import Limits
from engine.io._worker import parse_isolated

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
CASES: dict[str, dict[str, object]] = json.loads((HERE / "cases.json").read_text())
REJECTED = sorted(n for n, c in CASES.items() if "expect" in c)
ACCEPTED = sorted(n for n, c in CASES.items() if "expect" not in c)

pytestmark = pytest.mark.slow


def _corpus() -> ModuleType:
    spec = importlib.util.spec_from_file_location("hostile_corpus_sub", HERE / "make_corpus.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


corpus = _corpus()


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Every case as a file: the committed ones in place, the generated ones in tmp."""
    tmp = tmp_path_factory.mktemp("hostile")
    out = {}
    for name, case in CASES.items():
        if case.get("generated"):
            out[name] = tmp / name
            out[name].write_bytes(corpus.build(name))
        else:
            out[name] = HERE / name
    return out


@pytest.mark.parametrize("name", REJECTED)
def test_cli_exits_2_with_one_line(files: dict[str, Path], name: str) -> None:
    done = subprocess.run([sys.executable, "-m", "engine", "leaderboard", str(files[name])],
                          capture_output=True, text=True, cwd=ROOT, timeout=300, check=False)
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2, done.stderr[-2000:]
    assert len(lines) == 1 and lines[0].startswith(f"error: {name}"), done.stderr[-2000:]
    assert str(CASES[name]["expect"]) in lines[0]


@pytest.mark.parametrize("name", REJECTED)
def test_parse_isolated_rejects(files: dict[str, Path], name: str) -> None:
    with pytest.raises(DataContractError) as info:
        parse_isolated(files[name].read_bytes(), name)
    message = str(info.value)
    assert message.startswith(name) and str(CASES[name]["expect"]) in message, message
    if "column" in CASES[name]:
        assert info.value.problems[0].column == CASES[name]["column"]


@pytest.mark.parametrize("name", ACCEPTED)
def test_parse_isolated_returns_the_same_frame(files: dict[str, Path], name: str) -> None:
    data = files[name].read_bytes()
    pd.testing.assert_frame_equal(parse_isolated(data, name), frame_from_bytes(data, name))


def test_parse_isolated_memory_cap() -> None:
    # 600 MiB inflated under a 1 GiB size limit cannot fit a 700 MiB address space:
    # the child fails (MemoryError or a signal), the parent gets a DataContractError
    limits = Limits(max_bytes=1 << 30, max_parse_memory=700 << 20)
    with pytest.raises(DataContractError, match="memory") as info:
        parse_isolated(corpus.build("bomb_single.csv.gz"), "bomb.csv.gz", limits=limits)
    assert "SIGBOARD_MAX_PARSE_MEMORY" in str(info.value)
