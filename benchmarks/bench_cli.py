"""Start-up and run time of ``python -m engine`` commands.

Each command runs in a fresh subprocess (what a user or CI pays), ``--repeats`` times (≥ 5);
the median wall time is reported next to

* the floor: ``python -c "import pandas, scipy.stats"`` (what any command that reads a
  table and runs a test must import), and
* the engine before this work: commit 3a29752's ``engine/`` (``git archive 3a29752 engine``
  unpacked in a temporary directory and run from there).

Commands: ``--help``; ``compare``, ``leaderboard`` and ``pairwise`` on
``data/humaneval+.jsonl.gz`` (49 systems × 164 examples). Target: ``compare`` ≤ 1.3 × the floor.
``--importtime`` also lists the slowest imports of ``compare`` (``python -X importtime``),
by package, to show what it loads.

Run: .venv/bin/python benchmarks/bench_cli.py [--repeats 5] [--importtime]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

from _table import Table

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "data" / "humaneval+.jsonl.gz"
OLD_COMMIT = "3a29752"
COMMANDS: dict[str, list[str]] = {
    "--help": ["--help"],
    "compare": ["compare", str(DATA), "--baseline", "gpt-3.5-turbo",
                "--candidate", "claude-3-haiku-20240307"],
    "leaderboard": ["leaderboard", str(DATA)],
    "pairwise": ["pairwise", str(DATA)],
}
FLOOR = ["-c", "import pandas, scipy.stats"]


def _env(pythonpath: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(pythonpath)}


def run_once(argv: list[str], cwd: Path) -> float:
    """Wall seconds of ``python argv`` in a fresh process."""
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, *argv], cwd=cwd, env=_env(cwd), capture_output=True,
                          text=True, check=False)
    elapsed = time.perf_counter() - start
    if proc.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(argv)} failed ({proc.returncode}): {proc.stderr[-500:]}")
    return elapsed


def timed(cases: dict[str, tuple[list[str], Path]], repeats: int) -> dict[str, float]:
    """Median wall time of each case. The cases take turns within each repeat, so a change
    in the machine's load (it is shared) touches all of them alike; one warm-up round first."""
    times: dict[str, list[float]] = {name: [] for name in cases}
    for round_ in range(repeats + 1):
        for name, (argv, cwd) in cases.items():
            elapsed = run_once(argv, cwd)
            if round_:
                times[name].append(elapsed)
    return {name: statistics.median(t) for name, t in times.items()}


def old_engine(tmp: Path) -> Path:
    """``engine/`` as of :data:`OLD_COMMIT`, unpacked under ``tmp``."""
    archive = subprocess.run(["git", "archive", OLD_COMMIT, "engine"], cwd=ROOT,
                             capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(tmp)], input=archive, check=True)
    return tmp


def import_profile(argv: list[str], top: int = 12) -> list[tuple[str, float]]:
    """Milliseconds of self import time per top-level package (``python -X importtime``)."""
    proc = subprocess.run([sys.executable, "-X", "importtime", *argv], cwd=ROOT, env=_env(ROOT),
                          capture_output=True, text=True, check=False)
    per: dict[str, float] = defaultdict(float)
    for line in proc.stderr.splitlines():
        if not line.startswith("import time:") or "self [us]" in line:
            continue
        _, self_us, _, name = (part.strip() for part in line.split("|", 1)[0].split(":", 1)
                               + line.split("|")[1:])
        package = name.strip().split(".")[0]
        per[package if package != "engine" else name.strip()] += float(self_us) / 1000
    return sorted(per.items(), key=lambda kv: -kv[1])[:top]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--importtime", action="store_true")
    args = parser.parse_args()
    if args.repeats < 5:
        parser.error("--repeats: at least 5 (the median of fewer is too noisy on a shared machine)")
    with tempfile.TemporaryDirectory() as tmp:
        old = old_engine(Path(tmp))
        cases: dict[str, tuple[list[str], Path]] = {"floor": (FLOOR, ROOT)}
        for name, argv in COMMANDS.items():
            cases[f"now {name}"] = (["-m", "engine", *argv], ROOT)
            cases[f"before {name}"] = (["-m", "engine", *argv], old)
        median = timed(cases, args.repeats)
    floor = median["floor"]
    print(f"floor (import pandas, scipy.stats): {floor:.3f} s  (medians of {args.repeats} runs, "
          "cases interleaved)")
    table = Table([("command", "<12"), ("now s", ">7.3f"), ("before s", ">9.3f"),
                   ("now/floor", ">10.2f"), ("now/before", ">11.2f")])
    table.header()
    for name in COMMANDS:
        now, before = median[f"now {name}"], median[f"before {name}"]
        table.row(name, now, before, now / floor, now / before)
    if args.importtime:
        print("\nslowest imports of `compare` (self time, ms, by package):")
        for package, ms in import_profile(["-m", "engine", *COMMANDS["compare"]]):
            print(f"  {package:<40} {ms:8.1f}")


if __name__ == "__main__":
    main()
