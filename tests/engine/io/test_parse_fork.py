"""The capped child as a fork (engine/io/_fork.py): when it forks, and that a fork answers
exactly as a fresh interpreter does, under the same memory cap and time limit.

Each case runs in its own fresh interpreter (``python -c``): the test process has threads
of its own at times, and a fork of it would inherit whatever a test monkeypatched.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="fork and /proc/self/task as on Linux")


def _run(code: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=ROOT,
                          capture_output=True, text=True, timeout=300, check=False,
                          env={"PATH": "/usr/bin:/bin", "NUMBA_DISABLE_JIT": "1", **env})


@pytest.mark.slow
def test_forks_only_while_the_process_is_one_thread() -> None:
    done = _run("""
        import threading, time
        import numpy, pandas  # OpenBLAS's workers and jemalloc's purger: fork-safe
        from engine.io import _fork
        alone = _fork.can_fork()
        stop = threading.Event()
        other = threading.Thread(target=stop.wait)
        other.start()
        with_thread = _fork.can_fork()
        stop.set(); other.join()
        deadline = time.monotonic() + 5  # the OS thread leaves /proc a moment after join
        while not _fork.can_fork() and time.monotonic() < deadline:
            time.sleep(0.01)
        print(alone, with_thread, _fork.can_fork())
    """)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True", "False", "True"]
    off = _run("from engine.io import _fork; _fork.enabled = False; print(_fork.can_fork())")
    assert off.stdout.split() == ["False"], off.stderr


@pytest.mark.slow
def test_a_fork_answers_as_a_fresh_interpreter_and_the_parent_parses_nothing() -> None:
    # the parsers are poisoned in the parent after the fork path is chosen: a child that
    # is a fork may run them, the parent may not; one fork per upload, no subprocess
    done = _run("""
        import gzip, os, subprocess
        from pathlib import Path
        import pandas as pd
        import engine
        from engine.intake import _decide, ingest
        from engine.io import _fork, _worker
        from engine.io._worker import parse_isolated

        parent = os.getpid()
        forks = []
        real_fork, real_decide = _fork.run_forked, _decide.decide
        def counted(module, *args, **kwargs):
            forks.append(module)
            return real_fork(module, *args, **kwargs)
        def guarded(*args, **kwargs):
            assert os.getpid() != parent, "the parent parsed the upload"
            return real_decide(*args, **kwargs)
        def no_subprocess(*args, **kwargs):
            raise AssertionError("a fresh interpreter was started")

        inspect = sorted(Path("tests/data/harness-logs/inspect").glob("*.eval"))[0]
        uploads = [
            ("r.csv", b"benchmark,system,example_id,metric,value\\nb,A,e1,m,1\\nb,B,e1,m,0\\n"),
            ("arena.csv", b"model_a,model_b,winner\\nA,B,model_a\\nB,A,tie\\n"),
            (inspect.name, inspect.read_bytes()),
            ("h.jsonl.gz", Path("data/humaneval+.jsonl.gz").read_bytes()),
        ]
        _fork.enabled = False
        fresh = [ingest(u) for u in uploads]
        fresh_raw = parse_isolated(uploads[0][1], "r.csv")
        _fork.enabled = True
        assert _fork.can_fork()
        _fork.run_forked, _decide.decide, subprocess.Popen = counted, guarded, no_subprocess
        forked = [ingest(u) for u in uploads]
        forked_raw = parse_isolated(uploads[0][1], "r.csv")
        for a, b in zip(fresh, forked):
            pd.testing.assert_frame_equal(a.frame, b.frame, check_exact=True)
            assert a.frame.attrs == b.frame.attrs
            assert (a.kind, a.format, a.label, a.specs, a.report, a.clusters, a.files) == \\
                (b.kind, b.format, b.label, b.specs, b.report, b.clusters, b.files)
            assert (a.skipped is None) == (b.skipped is None)
            if a.skipped is not None:
                pd.testing.assert_frame_equal(a.skipped, b.skipped)
        pd.testing.assert_frame_equal(fresh_raw, forked_raw)
        try:
            ingest(("bad.csv", b"benchmark,system\\nb,A\\n"))
        except engine.DataContractError as exc:
            print("refused:", exc.problems[0].rule)
        print(forks)
    """)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("refused: ")
    assert lines[-1] == str(["engine.intake._child"] * 4 + ["engine.io._worker"]
                            + ["engine.intake._child"])


@pytest.mark.slow
def test_the_memory_cap_holds_in_a_fork() -> None:
    # 300 MiB of one JSON string, gzipped: under a 512 MiB cap the fresh child runs out
    # of memory; the fork, given the same room to parse, must too (and name the member)
    done = _run("""
        import gzip, io, os, zipfile
        import engine
        from engine.intake import ingest
        from engine.io import _fork
        data = io.BytesIO()
        with zipfile.ZipFile(data, "w", zipfile.ZIP_DEFLATED) as z:
            z.writestr("logs/big.json", b'{"a": "' + b"x" * (300 << 20) + b'"}')
        limits = engine.Limits(max_parse_memory=512 << 20)
        for fork in (False, True):
            _fork.enabled = fork
            assert _fork.can_fork() == fork
            try:
                ingest(("logs.zip", data.getvalue()), limits=limits)
                print("read")
            except engine.DataContractError as exc:
                print(exc.problems[0].rule)
    """)
    assert done.returncode == 0, done.stderr
    fresh, forked = done.stdout.splitlines()
    assert "memory limit of 512 MiB" in fresh and "memory limit of 512 MiB" in forked
    assert ("big.json" in fresh) == ("big.json" in forked)


def test_a_fork_past_its_time_limit_is_killed_and_reaped(tmp_path: Path) -> None:
    (tmp_path / "slow_child.py").write_text(
        "import time\n\ndef _main(argv):\n    time.sleep(60)\n    return 0\n")
    done = _run(f"""
        import os, subprocess, sys, time
        sys.path.insert(0, {str(tmp_path)!r})
        from engine.io import _fork
        start = time.monotonic()
        try:
            _fork.run_forked("slow_child", "{{}}", b"", 0.5)
        except subprocess.TimeoutExpired:
            print("timed out", round(time.monotonic() - start) < 10)
        try:
            os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            print("no child left")
    """)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["timed out True", "no child left"]


@pytest.mark.slow
def test_the_parents_unflushed_output_is_written_once() -> None:
    done = _run("""
        import sys
        from engine.intake import ingest
        sys.stdout.write("before ")
        got = ingest(("r.csv", b"benchmark,system,example_id,metric,value\\nb,A,e1,m,1\\n"))
        sys.stdout.write(f"{len(got.frame)} row")
    """)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "before 1 row"
