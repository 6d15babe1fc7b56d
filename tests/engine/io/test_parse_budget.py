"""The resident-memory budget of a fresh parsing child (engine/io/_drain.py): the caller and
its child together within ``Limits.max_parse_memory``, whatever the child's address space.

The child here is a stand-in that fills memory without any cap of its own, so only the
caller's watch can stop it; each case runs in a fresh interpreter (``python -c``) holding
a known amount of memory itself.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from engine.io import _drain

ROOT = Path(__file__).resolve().parents[3]
MiB = 1 << 20
pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc as on Linux")

#: fills memory 16 MiB at a time (touched, so resident), saying how much it holds
HOG = """\
import sys, time

def _main(argv):
    held = []
    for step in range(1, 4096 // 16 + 1):
        held.append(bytearray(b"\\x01") * (16 << 20))  # written, so resident
        sys.stderr.write(f"holding {step * 16} MiB\\n")
        sys.stderr.flush()
        time.sleep(0.002)
    print("filled 4 GiB")
    return 0

if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
"""


def test_the_budget_is_the_cap_less_the_caller_with_a_floor() -> None:
    cap = 1 << 30
    assert _drain.rss_budget(cap, 400 * MiB) == cap - 400 * MiB - _drain.BETWEEN_LOOKS
    floor = _drain.FRESH_RSS + _drain.MIN_ROOM
    assert _drain.rss_budget(cap, 900 * MiB) == floor  # a caller past the cap still parses
    assert _drain.rss_budget(cap, 0) == cap - _drain.BETWEEN_LOOKS
    assert _drain.rss_of() > 0 and _drain.rss_of(2**22 + 7) == 0  # no such process: 0


def test_a_fresh_child_is_stopped_at_the_budget_beside_a_big_caller(tmp_path: Path) -> None:
    (tmp_path / "hog_child.py").write_text(HOG)
    done = subprocess.run([sys.executable, "-c", textwrap.dedent("""
        import time
        import engine
        from engine.io import _drain, _fork, _worker
        _fork.enabled = False  # a fresh interpreter, as beside a server
        ballast = bytearray(b"\x01") * (300 << 20)  # the caller holds 300 MiB more
        caller = _drain.rss_of()
        limits = engine.Limits(max_parse_memory=900 << 20)
        budget = _drain.rss_budget(limits.max_parse_memory, caller)
        start = time.monotonic()
        try:
            _worker.run_capped("hog_child", {}, b"", "hog.json", limits)
            print("not stopped")
        except engine.DataContractError as exc:
            print(exc.problems[0].rule)
        print(caller, budget, round(time.monotonic() - start))
    """)], cwd=ROOT, capture_output=True, text=True, timeout=300, check=False,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": f"{tmp_path}:{ROOT}",
             "NUMBA_DISABLE_JIT": "1"})
    assert done.returncode == 0, done.stderr
    rule, figures = done.stdout.splitlines()
    caller, budget, seconds = map(int, figures.split())
    assert caller >= 300 * MiB and budget == 900 * MiB - caller - _drain.BETWEEN_LOOKS
    assert "ran out of memory on this file within the memory limit of 900 MiB" in rule
    assert f"the {caller >> 20:,} MiB this process already holds" in rule
    assert seconds < 60  # stopped long before the stand-in filled its 4 GiB
