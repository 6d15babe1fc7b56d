"""Peak memory of ``sigboard import`` refusing small hostile logs, for the whole process tree.

Three hostile files, each a few hundred KB at most (built by
tests/engine/hostile/make_corpus.py, as the tests build them), and one normal log (the
baseline):

* ``zstd_bomb.eval``: an Inspect ``.eval`` whose ``samples/1_epoch_1.json`` is Zstandard
  (zip method 93) and inflates to 480 MiB of tiny JSON objects (within the size limit:
  only its parse is too large);
* ``tiny_objects.json.gz``: 128 MB of tiny JSON objects, gzipped (a JSON log candidate);
* ``parquet_bomb.zip``: a zip holding one Parquet file whose dictionary decodes to 3 GiB
  of text (tests/engine/hostile/make_corpus.py's ``dictionary_bomb``);
* ``normal.eval``: a real Inspect log from tests/data/harness-logs/inspect.

Each runs as ``python -m engine import FILE --db sqlite:///…`` with a clean environment
(the default limits: the memory cap of the parsing child is 1 GiB). The tree is sampled
every 5 ms from /proc (the CLI and every descendant): the peak of the sum of their RSS,
and the sum of each process's own peak (VmHWM; an upper bound, since the peaks need not
coincide). ``/usr/bin/time -v``'s "Maximum resident set size" is the largest single
process, not the tree, so it is not used.

Usage: ``.venv/bin/python benchmarks/bench_ingest_memory.py [--keep DIR]``. Prints
figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _corpus():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location(
        "hostile_corpus_ingest", ROOT / "tests" / "engine" / "hostile" / "make_corpus.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def hostile_files(folder: Path) -> dict[str, Path]:
    """The three hostile files and the baseline, written into ``folder``."""
    corpus = _corpus()
    made = {"zstd_bomb.eval": corpus.zstd_bomb_eval(),
            "tiny_objects.json.gz": corpus.tiny_objects_json_gz(),
            "parquet_bomb.zip": corpus.parquet_bomb_zip()}
    paths = {}
    for name, data in made.items():
        paths[name] = folder / name
        paths[name].write_bytes(data)
    normal = sorted((ROOT / "tests" / "data" / "harness-logs" / "inspect").glob("*.eval"))[0]
    paths["normal.eval (baseline)"] = normal
    return paths


# --------------------------------------------------------------------------- measuring


def _children(pid: int) -> list[int]:
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as handle:
            return [int(p) for p in handle.read().split()]
    except OSError:
        return []


def _tree(pid: int) -> list[int]:
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo.extend(_children(p))
    return out


def _status_kb(pid: int, key: str) -> int:
    try:
        with open(f"/proc/{pid}/status") as handle:
            for line in handle:
                if line.startswith(key):
                    return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return 0


def measure(argv: list[str], env: dict[str, str]) -> tuple[int, str, float, float, int]:
    """(exit code, last stderr line, peak tree RSS in MB, sum of per-process peaks in MB,
    processes seen) of one command."""
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT,
                            env=env)
    peak_sum, hwm, seen = 0, {}, set()
    while proc.poll() is None:
        pids = _tree(proc.pid)
        total = 0
        for p in pids:
            seen.add(p)
            total += _status_kb(p, "VmRSS")
            hwm[p] = max(hwm.get(p, 0), _status_kb(p, "VmHWM"))
        peak_sum = max(peak_sum, total)
        time.sleep(0.005)
    _, err = proc.communicate()
    lines = [line for line in err.decode("utf-8", "replace").splitlines() if line.strip()]
    return (proc.returncode, lines[-1] if lines else "", peak_sum / 1000,
            sum(hwm.values()) / 1000, len(seen))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", type=Path, help="write the files here and keep them")
    args = parser.parse_args()
    folder = args.keep or Path(tempfile.mkdtemp(prefix="sigboard-ingest-"))
    folder.mkdir(parents=True, exist_ok=True)
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(folder)}
    print(f"{'file':26} {'size':>9} {'exit':>4} {'tree peak':>10} {'sum of peaks':>12} "
          f"{'procs':>5}  message")
    for label, path in hostile_files(folder).items():
        db = folder / "store.db"
        for suffix in ("", "-wal", "-shm"):
            Path(f"{db}{suffix}").unlink(missing_ok=True)
        code, line, peak, peaks, procs = measure(
            [sys.executable, "-m", "engine", "import", str(path), "--db", f"sqlite:///{db}"], env)
        size = path.stat().st_size
        print(f"{label:26} {size / 1000:>7.0f}KB {code:>4} {peak:>8.0f}MB {peaks:>10.0f}MB "
              f"{procs:>5}  {line[:300]}")
        sys.stdout.flush()
    print("\nThe Upload page's read (app.components.upload_read.parse, as the server runs it on "
          "an uploaded file's bytes), in a fresh process:")
    for label, path in hostile_files(folder).items():
        code, line, peak, peaks, procs = measure([sys.executable, "-c", _PAGE, str(path)], env)
        print(f"{label:26} {'':>9} {code:>4} {peak:>8.0f}MB {peaks:>10.0f}MB {procs:>5}  "
              f"{line[:300]}")
        sys.stdout.flush()


_PAGE = """
import sys
from pathlib import Path
from app.components.upload_read import parse
path = Path(sys.argv[1])
got = parse(path.name, path.read_bytes())
print(f"{len(got.frame)} rows" if got.frame is not None else
      f"refused: {got.problems[0].rule}", file=sys.stderr)
"""


if __name__ == "__main__":
    main()
