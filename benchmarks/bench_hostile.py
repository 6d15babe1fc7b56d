"""Peak memory of a process rejecting each hostile upload of issue #17 (target: <= 1 GB each).

For every bomb, two fresh child processes are measured with ``os.wait4`` (peak RSS):

* ``read_results`` in-process, as the CLI and the store run it;
* ``python -m engine.io._worker``, the child that ``parse_isolated`` starts (the
  app's Upload page), with its default memory cap.

Usage: ``.venv/bin/python benchmarks/bench_hostile.py`` (about a minute; writes the
bombs to a temporary directory, a few MB each).
"""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import time
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine.io._limits import Limits  # noqa: E402

_spec = importlib.util.spec_from_file_location(
    "hostile_corpus", ROOT / "tests" / "engine" / "hostile" / "make_corpus.py")
assert _spec is not None and _spec.loader is not None
corpus = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(corpus)
MiB = 1 << 20

IN_PROCESS = """
import sys
from engine._contract import DataContractError
from engine.io._readers import read_results
try:
    read_results(sys.argv[1])
    print("accepted")
except DataContractError as exc:
    print(str(exc).splitlines()[0])
"""


def bombs() -> dict[str, bytes]:
    """The issue's inputs, at their reported sizes."""
    rows = b"b,A,e1,m,1\n"
    per_block = MiB // len(rows)
    return {
        "deep_20000.jsonl (120 KB, 20,000 levels)": corpus.deep_20000(),
        "bomb_single.csv.gz (5 GiB of spaces, 1 member)":
            corpus.gzip_repeat(b" " * MiB, 5 * 1024, head=corpus.HEADER),
        "bomb_multi.csv.gz (small member + 40 x 64 MiB)":
            zlib.compress(corpus.HEADER + b"b,A,e1,m,1\n", wbits=31)
            + corpus.gzip_repeat(b" " * MiB, 64) * 40,
        "rows_1.9GB.csv.gz (1.9 GB of short rows)":
            corpus.gzip_repeat(rows * per_block, 1900, head=corpus.HEADER),
        "systems_1m.csv (1,000,000 systems)": corpus.systems_1m(),
        "metrics_10k_wide.csv (10,000 metric columns)": corpus.metrics_10k_wide(),
        "metrics_10k_long.csv (10,000 metrics)": corpus.metrics_10k_long(),
    }


def peak_of(cmd: list[str], stdin_path: Path | None) -> tuple[float, float, int, str]:
    """(seconds, peak RSS in MB, exit code, last stdout line) of one child process."""
    start = time.perf_counter()
    with open(stdin_path or os.devnull, "rb") as stdin:
        proc = subprocess.Popen(cmd, stdin=stdin, stdout=subprocess.PIPE,  # noqa: S603
                                stderr=subprocess.DEVNULL, cwd=ROOT)
        out = proc.stdout.read() if proc.stdout else b""
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
    seconds = time.perf_counter() - start
    text = out.decode("utf-8", "replace").strip().splitlines()
    return seconds, usage.ru_maxrss / 1024, proc.returncode, (text[-1] if text else "")


def main() -> None:
    header = json.dumps({"name": "upload", "fmt": None,
                         "limits": dataclasses.asdict(Limits())})
    print(f"{'case':48} {'file MB':>8} | {'read_results':>21} | {'parse worker':>21}")
    print(f"{'':48} {'':>8} | {'s':>7} {'peak MB':>8} {'exit':>4} | "
          f"{'s':>7} {'peak MB':>8} {'exit':>4}")
    worst = 0.0
    messages = {}
    with tempfile.TemporaryDirectory() as tmp:
        for label, data in bombs().items():
            path = Path(tmp) / label.split(" ")[0]
            path.write_bytes(data)
            s1, rss1, code1, msg = peak_of([sys.executable, "-c", IN_PROCESS, str(path)], None)
            s2, rss2, code2, _ = peak_of([sys.executable, "-m", "engine.io._worker",
                                          header.replace('"upload"', json.dumps(path.name))],
                                         path)
            worst = max(worst, rss1, rss2)
            messages[label] = msg
            print(f"{label:48} {len(data) / 1e6:8.2f} | {s1:7.1f} {rss1:8.0f} {code1:4d} | "
                  f"{s2:7.1f} {rss2:8.0f} {code2:4d}")
    print(f"\nworst peak RSS: {worst:.0f} MB (target <= 1000 MB); worker exit 3 = rejected")
    for label, msg in messages.items():
        print(f"- {label.split(' ')[0]}: {msg[:160]}")


if __name__ == "__main__":
    main()
