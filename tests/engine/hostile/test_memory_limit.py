"""Every hostile upload of issue #33 refused inside a 3 GiB memory limit (RLIMIT_AS).

The report's server ran in 3 GiB and was killed by four small uploads. Here the whole
CLI (``python -m engine leaderboard FILE``, which parses every format in the capped
child as the app does) runs with its address space limited to 3 GiB, inherited by
the child: each case must end in exit 2 and one line naming the file, never a kill by
the kernel or a traceback. Peak RSS per case: ``benchmarks/bench_hostile.py``.
"""

from __future__ import annotations

import gzip
import importlib.util
import io
import resource
import subprocess
import sys
import zipfile
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
LIMIT = 3 << 30
MiB = 1 << 20
pytestmark = pytest.mark.slow


def _load(path: Path, name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


corpus = _load(HERE / "make_corpus.py", "hostile_corpus_3g")
logs = _load(ROOT / "scripts" / "hostile_corpus.py", "hostile_logs_3g")


def _zip(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return buffer.getvalue()


CASES: dict[str, tuple[Callable[[], bytes], dict[str, str]]] = {
    "bomb_single.csv.gz": (corpus.bomb_single, {}),
    "csv_bomb_in.zip": (lambda: _zip({"r.csv": corpus.HEADER + b" " * (600 * MiB)}), {}),
    "json_bomb.json.gz": (lambda: gzip.compress(b'{"a": "' + b" " * (600 * MiB) + b'"}', 6), {}),
    "deep.eval": (lambda: _zip({"header.json": b"[" * 100_000 + b"]" * 100_000}), {}),
    "dictionary_bomb.parquet": (corpus.dictionary_bomb, {}),
    "lighteval_bomb.zip": (lambda: _zip({
        "details/m/2025-01-01T00-00-00/details_t_2025-01-01T00-00-00.parquet":
            corpus.dictionary_bomb()}), {}),
    "lm_eval_2500_systems.zip": (lambda: logs.lm_eval_systems(2500),
                                 {"SIGBOARD_MAX_SYSTEMS": "100"}),
    "many_members.zip": (lambda: _zip({f"f{i}.json": b"{}" for i in range(12_000)}), {}),
}


def _limit_address_space() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (LIMIT, LIMIT))


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_AS as on Linux")
@pytest.mark.parametrize("name", sorted(CASES))
def test_refused_within_3_gib(tmp_path: Path, name: str) -> None:
    build, env = CASES[name]
    path = tmp_path / name
    path.write_bytes(build())
    done = subprocess.run(  # noqa: S603 - our own interpreter and module
        [sys.executable, "-m", "engine", "leaderboard", str(path)], capture_output=True,
        text=True, cwd=ROOT, timeout=600, check=False, preexec_fn=_limit_address_space,
        env={"PATH": "/usr/bin:/bin", "NUMBA_DISABLE_JIT": "1", **env})
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2, (done.returncode, done.stderr[-1500:])
    assert len(lines) == 1 and lines[0].startswith(f"error: {name}"), done.stderr[-1500:]
