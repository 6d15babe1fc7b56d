"""Peak memory of ``sigboard import`` refusing small hostile logs, for the whole process tree.

Three hostile files of the acceptance and a fourth, each a few hundred KB at most (built by
tests/engine/hostile/make_corpus.py, as the tests build them), and one normal log (the
baseline):

* ``zstd_bomb.eval``: an Inspect ``.eval`` whose ``samples/1_epoch_1.json`` is Zstandard
  (zip method 93) and inflates to 480 MiB of tiny JSON objects (within the size limit:
  only its parse is too large);
* ``tiny_objects.json.gz``: 128 MB of tiny JSON objects, gzipped (a JSON log candidate);
* ``parquet_bomb.zip``: a zip holding one Parquet file whose dictionary decodes to 3 GiB
  of text (tests/engine/hostile/make_corpus.py's ``dictionary_bomb``);
* ``bomb_single.csv.gz``: 600 MiB of spaces gzipped (not JSON: it is read up to the size
  limit, 512 MiB, and refused by it; the child's early refusal of JSON must not take that
  message from it);
* ``normal.eval``: a real Inspect log from tests/data/harness-logs/inspect.

Each runs as ``python -m engine import FILE --db sqlite:///…`` with a clean environment
(the default limits: the memory cap of the parsing child is 1 GiB). The tree is sampled
every 5 ms from /proc (``benchmarks/_rss.py``: the CLI and every descendant): the peak of
the sum of their RSS, and the sum of each process's own peak (VmHWM; an upper bound, since the peaks need not
coincide). ``/usr/bin/time -v``'s "Maximum resident set size" is the largest single
process, not the tree, so it is not used.

``--browser``: the server instead (the acceptance's "server's RSS sampled during a
browser upload"): ``sigboard serve`` on a spare port over a new store, each file uploaded
through the Upload page in headless chromium (``/usr/bin/chromium``), the server's
process tree (the server and its parsing child) sampled every 50 ms until the page
shows its answer.

Usage: ``.venv/bin/python benchmarks/bench_ingest_memory.py [--keep DIR] [--browser]``.
Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from _rss import TreeSampler, tree_rss_kb

ROOT = Path(__file__).resolve().parent.parent


def _corpus():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location(
        "hostile_corpus_ingest", ROOT / "tests" / "engine" / "hostile" / "make_corpus.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def hostile_files(folder: Path) -> dict[str, Path]:
    """The hostile files and the baseline, written into ``folder``."""
    corpus = _corpus()
    made = {"zstd_bomb.eval": corpus.zstd_bomb_eval(),
            "tiny_objects.json.gz": corpus.tiny_objects_json_gz(),
            "parquet_bomb.zip": corpus.parquet_bomb_zip(),
            "bomb_single.csv.gz": corpus.bomb_single()}
    paths = {}
    for name, data in made.items():
        paths[name] = folder / name
        paths[name].write_bytes(data)
    normal = sorted((ROOT / "tests" / "data" / "harness-logs" / "inspect").glob("*.eval"))[0]
    paths["normal.eval (baseline)"] = normal
    return paths


# --------------------------------------------------------------------------- measuring


def measure(argv: list[str], env: dict[str, str]) -> tuple[int, str, float, float, int]:
    """(exit code, last stderr line, peak tree RSS in MiB, sum of per-process peaks in MiB,
    processes seen) of one command, its tree sampled every 5 ms."""
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT,
                            env=env)
    with TreeSampler(proc.pid, interval=0.005) as sampler:
        _, err = proc.communicate()
    lines = [line for line in err.decode("utf-8", "replace").splitlines() if line.strip()]
    return (proc.returncode, lines[-1] if lines else "", sampler.peak_kb / 1024,
            sampler.hwm_kb / 1024, sampler.processes)


# --------------------------------------------------------------------------- browser


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _healthy(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/_stcore/health", timeout=5) as response:
            return bool(response.read().strip() == b"ok")
    except OSError:
        return False


#: what the Upload page shows when it refuses each file (its problem table)
REFUSALS = {"zstd_bomb.eval": "memory limit", "tiny_objects.json.gz": "memory limit",
            "parquet_bomb.zip": "too large to decode", "bomb_single.csv.gz": "size limit",
            "normal.eval (baseline)": "Commit to the store"}


def browser(folder: Path, env: dict[str, str]) -> None:
    """``sigboard serve`` on a spare port over a new store; each file uploaded through the
    Upload page in headless chromium; the server's tree sampled every 50 ms from before
    the upload to the page's answer."""
    from playwright.sync_api import sync_playwright

    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    # this checkout's engine (and so its app) whatever an editable install points at
    served = {**env, "PYTHONPATH": str(ROOT), "SIGBOARD_DB_PATH": str(folder / "served.db"),
              "STREAMLIT_BROWSER_GATHER_USAGE_STATS": "false"}
    proc = subprocess.Popen([sys.executable, "-m", "engine", "serve", "--server.port", str(port),
                             "--server.address", "127.0.0.1", "--server.headless", "true"],
                            cwd=folder, env=served, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 180
        while not _healthy(url):
            if proc.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"sigboard serve did not start (exit {proc.poll()})")
            time.sleep(0.3)
        print(f"\nThe server (sigboard serve, pid {proc.pid}) during a browser upload "
              f"(headless chromium), its process tree sampled every 50 ms ({_load()}):")
        print("(server, child: each one's own largest RSS sampled; at peak: the server's "
              "share of the tree peak)")
        print(f"{'file':26} {'idle':>8} {'tree peak':>10} {'server':>7} {'child':>7} "
              f"{'at peak':>8} {'procs':>5} {'s':>5}  answer")
        with sync_playwright() as p:
            chromium = p.chromium.launch(executable_path="/usr/bin/chromium",
                                         args=["--no-sandbox", "--disable-gpu"])
            for label, path in hostile_files(folder).items():
                context = chromium.new_context(viewport={"width": 1400, "height": 1000})
                page = context.new_page()
                page.goto(f"{url}/upload")
                page.get_by_role("heading", level=1).filter(
                    has_text="Upload results").wait_for(timeout=180_000)
                idle = tree_rss_kb(proc.pid)
                start = time.perf_counter()
                with TreeSampler(proc.pid, interval=0.05) as sampler:
                    page.locator("input[type=file]").set_input_files(str(path))
                    answer = REFUSALS[label]
                    try:
                        page.get_by_text(answer).first.wait_for(state="attached",
                                                                timeout=300_000)
                    except Exception as exc:  # noqa: BLE001 - reported as the answer
                        answer = f"no answer: {str(exc).splitlines()[0][:80]}"
                    time.sleep(0.5)  # the child's exit and the page's last run
                seconds = time.perf_counter() - start
                print(f"{label:26} {idle / 1024:>5.0f}MiB {sampler.peak_kb / 1024:>7.0f}MiB "
                      f"{sampler.root_peak_kb / 1024:>4.0f}MiB "
                      f"{sampler.below_peak_kb / 1024:>4.0f}MiB "
                      f"{sampler.root_at_peak_kb / 1024:>5.0f}MiB {sampler.processes:>5} "
                      f"{seconds:>5.1f}  {answer}")
                sys.stdout.flush()
                context.close()
            chromium.close()
        print(f"server up at the end: {proc.poll() is None}")
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def _load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f}, {five:.2f}, {fifteen:.2f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", type=Path, help="write the files here and keep them")
    parser.add_argument("--browser", action="store_true",
                        help="only the server's tree during browser uploads")
    args = parser.parse_args()
    folder = args.keep or Path(tempfile.mkdtemp(prefix="sigboard-ingest-"))
    folder.mkdir(parents=True, exist_ok=True)
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(folder)}
    if args.browser:
        browser(folder, env)
        return
    print(f"sigboard import, {_load()}")
    print(f"{'file':26} {'size':>9} {'exit':>4} {'tree peak':>10} {'sum of peaks':>12} "
          f"{'procs':>5}  message")
    for label, path in hostile_files(folder).items():
        db = folder / "store.db"
        for suffix in ("", "-wal", "-shm"):
            Path(f"{db}{suffix}").unlink(missing_ok=True)
        code, line, peak, peaks, procs = measure(
            [sys.executable, "-m", "engine", "import", str(path), "--db", f"sqlite:///{db}"], env)
        size = path.stat().st_size
        print(f"{label:26} {size / 1000:>7.0f}KB {code:>4} {peak:>7.0f}MiB {peaks:>9.0f}MiB "
              f"{procs:>5}  {line[:300]}")
        sys.stdout.flush()
    print("\nThe Upload page's read (app.components.upload_read.parse, as the server runs it on "
          "an uploaded file's bytes), in a fresh process:")
    for label, path in hostile_files(folder).items():
        code, line, peak, peaks, procs = measure([sys.executable, "-c", _PAGE, str(path)], env)
        print(f"{label:26} {'':>9} {code:>4} {peak:>7.0f}MiB {peaks:>9.0f}MiB {procs:>5}  "
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
