"""Reading one benchmark's rows from a SQLite store, alone and beside a busy Python thread.

Usage: ``.venv/bin/python benchmarks/bench_store_reads.py [--trials N] [--million-trials N]
[--cap S] [--no-million]``
(ADBC figures too: ``PYTHONPATH=/tmp/adbc .venv/bin/python benchmarks/bench_store_reads.py``
after ``.venv/bin/pip install --target /tmp/adbc adbc-driver-sqlite==1.13.0
adbc-driver-manager==1.13.0``; the driver is no dependency of sigboard).

Why: Python's ``sqlite3`` lets go of the interpreter lock at every row (``sqlite3_step``)
and waits up to the switch interval (5 ms) to get it back behind any thread that computes
in Python, as the server's threads do for other visitors. The store now reads all the rows
of a query in one statement step (:mod:`engine.store._sqlite_read`); before, it read them
through ADBC's SQLite driver, which linked a second copy of SQLite and lost the store's
POSIX locks (commit a344407).

Stores (temporary files): the bundled demo data (``ensure_demo_data``) and synthetic
stores of one benchmark with 65,000 and 1,000,000 rows (random doubles). Reads:

* ``demo overall x4``: the Overall page's four binary benchmarks (humaneval, humaneval+,
  mbpp, mbpp+: 65,432 rows), read one after the other;
* ``synth 65k``, ``synth 1M``: one benchmark + metric (100 systems).

Each read is timed at two levels — ``engine.store._io.read_results`` (the rows as integer
ids and values) and ``ResultsStore.load_frame`` (the long table with its texts) — three
ways: ``new``, what the store does now (one statement step); ``plain``, the row-by-row
``cursor.execute`` + ``fetchall`` of ``SELECT … ORDER BY upload_id, pos`` (the store's
fallback, forced by making the one-step read decline); ``adbc``, ADBC's ``fetch_arrow_table``
of the same SELECT, only when ``adbc_driver_sqlite`` can be imported, and only on a copy
of the store (another file, another inode: one file is never opened by two SQLite
libraries in one process). Each alone and ``busy``: beside one thread running
``sum(range(1000))`` in a loop.

Prints seconds (median of ``--trials`` calls, default 3; the 1M store: ``--million-trials``,
default 1, read_results only, to stay within about two minutes) and the ratios new/plain
and new/adbc, alone and busy. A plain read could take minutes beside the busy thread (5 ms
a row at worst): its fetching stops after ``--cap`` seconds (default 3) and its time for
every row is extrapolated from the rows read by then, printed with ``~`` (its load_frame:
that estimate plus load_frame's own time, new path, busy). Also the machine's load
average at the start and the end: other processes on the two cores bend the busy figures
most. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import closing, contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import quote

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine.store import _io as sio  # noqa: E402
from engine.store import _sqlite_read, open_store  # noqa: E402
from engine.store._store import ResultsStore  # noqa: E402

OVERALL = [("humaneval", "pass1"), ("humaneval+", "pass1"), ("mbpp", "pass1"),
           ("mbpp+", "pass1")]


# ---------------------------------------------------------------- the busy thread
@contextmanager
def busy(on: bool) -> Iterator[None]:
    """One thread computing in Python (holding the interpreter lock) while the block runs."""
    if not on:
        yield
        return
    stop = threading.Event()

    def spin() -> None:
        while not stop.is_set():
            sum(range(1000))

    thread = threading.Thread(target=spin, daemon=True)
    thread.start()
    time.sleep(0.02)  # running before the timed call starts
    try:
        yield
    finally:
        stop.set()
        thread.join(timeout=10)


# ---------------------------------------------------------------- the three reads
def _select(where: Sequence[tuple[str, int]]) -> tuple[str, list[str]]:
    """read_results' SELECT for a benchmark + metric filter (the columns it returns)."""
    fixed = {col for col, _ in where}
    cols = [c for c in ("benchmark_id", "metric_id", "system_id", "example_key")
            if c not in fixed] + ["run", "value"]
    clause = " AND ".join(f"{col} = {int(val)}" for col, val in where)
    return (f"SELECT {', '.join(cols)} FROM results WHERE {clause} ORDER BY upload_id, pos",
            cols)


@contextmanager
def forced_plain() -> Iterator[None]:
    """The one-step read declines (as on a SQLite without math functions): read_results
    falls back to its row-by-row ``fetchall``."""
    saved = _sqlite_read.result_rows
    _sqlite_read.result_rows = lambda raw, where: None  # type: ignore[assignment]
    try:
        yield
    finally:
        _sqlite_read.result_rows = saved


def plain_capped(conn: Any, where: Sequence[tuple[str, int]], cap: float) -> tuple[float, int, int]:
    """The plain row-by-row read (``fetchmany`` blocks: the same steps as ``fetchall``),
    its fetching stopped after ``cap`` seconds: (seconds for every row, extrapolated when
    stopped; rows read; rows in all). The first step (the sort) is timed whole."""
    sql, _ = _select(where)
    clause = " AND ".join(f"{col} = {int(val)}" for col, val in where)
    raw = conn.connection.driver_connection
    total = int(raw.execute(f"SELECT count(*) FROM results WHERE {clause}").fetchone()[0])
    cur = raw.cursor()
    read = 0
    try:
        start = time.perf_counter()
        cur.execute(sql)
        fetch = time.perf_counter()
        while read == 0 or time.perf_counter() - fetch < cap:
            block = cur.fetchmany(500)
            if not block:
                break
            read += len(block)
        end = time.perf_counter()
    finally:
        cur.close()
    return (fetch - start) + (end - fetch) * total / max(read, 1), read, total


def adbc_reader(copy: Path) -> Callable[..., pd.DataFrame]:
    """read_results through ADBC's SQLite driver on ``copy`` (a copy of the store: the
    same ids), one connection per read as the old store did."""
    import adbc_driver_sqlite.dbapi as adbc  # type: ignore[import-not-found]

    def read(conn: Any, where: Sequence[tuple[str, int]], *, systems: Any = None,
             uploads: bool = False) -> pd.DataFrame:
        assert systems is None and not uploads
        sql, cols = _select(where)
        with closing(adbc.connect(f"file:{quote(str(copy))}?mode=ro")) as raw, \
                closing(raw.cursor()) as cur:
            cur.execute(sql)
            table = cur.fetch_arrow_table()
        return pd.DataFrame({c: table.column(i).to_numpy().astype(
            np.float64 if c == "value" else np.int64, copy=False) for i, c in enumerate(cols)})

    return read


@contextmanager
def patched_read_results(read: Callable[..., pd.DataFrame]) -> Iterator[None]:
    saved = sio.read_results
    sio.read_results = read  # type: ignore[assignment]
    try:
        yield
    finally:
        sio.read_results = saved


# ---------------------------------------------------------------- stores
def synthetic(path: Path, rows: int, systems: int = 100) -> None:
    examples = rows // systems
    s, e = np.meshgrid(np.arange(systems), np.arange(examples), indexing="ij")
    frame = pd.DataFrame({"benchmark": "synth", "system": np.char.add("sys-", s.ravel().astype(str)),
                          "example_id": np.char.add("ex/", e.ravel().astype(str)),
                          "metric": "score",
                          "value": np.random.default_rng(rows).random(s.size)})
    store = open_store(f"sqlite:///{path}")
    store.import_frame(frame, filename=f"synth-{rows}.csv")


def copy_of(path: Path, copy: Path) -> None:
    """A consistent copy of the store (sqlite3's backup API, WAL included) in rollback
    journal mode, so that a read-only reader needs no -wal/-shm of its own."""
    with closing(sqlite3.connect(path)) as src, closing(sqlite3.connect(copy)) as dst:
        src.backup(dst)
        dst.execute("PRAGMA journal_mode = DELETE")


# ---------------------------------------------------------------- timing
def median_time(fn: Callable[[], object], trials: int) -> float:
    times = []
    for _ in range(trials):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def ids_of(store: ResultsStore, reads: list[tuple[str, str]]) -> list[list[tuple[str, int]]]:
    with store._read() as conn:
        found = sio.lookup(conn, [t for pair in reads for t in pair])
    return [[("benchmark_id", found[b]), ("metric_id", found[m])] for b, m in reads]


def measure(label: str, store: ResultsStore, reads: list[tuple[str, str]], copy: Path | None,
            trials: int, cap: float, levels: tuple[str, ...]) -> dict[Any, Any]:
    """Seconds of every (level, way, alone/busy) for one store's reads (levels "rr":
    read_results, "lf": load_frame); ``~`` marks an extrapolated figure."""
    wheres = ids_of(store, reads)
    out: dict[Any, Any] = {"label": label, "trials": trials, "levels": levels}

    def rr_new() -> None:
        with store._read() as conn:
            for w in wheres:
                sio.read_results(conn, w)

    def rr_plain() -> None:
        with forced_plain(), store._read() as conn:
            for w in wheres:
                sio.read_results(conn, w)

    def lf() -> None:
        for b, m in reads:
            store.load_frame(b, m)

    def lf_plain() -> None:
        with forced_plain():
            lf()

    rows = 0
    with store._read() as conn:
        rows = sum(len(sio.read_results(conn, w)) for w in wheres)  # also warms the cache
    out["rows"] = rows
    for on in (False, True):
        key = "busy" if on else "alone"
        with busy(on):
            out[("rr", "new", key)] = median_time(rr_new, trials)
            if "lf" in levels:
                out[("lf", "new", key)] = median_time(lf, trials)
            if copy is not None:
                adbc = adbc_reader(copy)
                with store._read() as conn:
                    first = adbc(conn, wheres[0])
                    assert len(first) == len(sio.read_results(conn, wheres[0]))

                def rr_adbc(adbc: Callable[..., pd.DataFrame] = adbc) -> None:
                    with store._read() as conn:
                        for w in wheres:
                            adbc(conn, w)

                def lf_adbc(adbc: Callable[..., pd.DataFrame] = adbc) -> None:
                    with patched_read_results(adbc):
                        lf()

                out[("rr", "adbc", key)] = median_time(rr_adbc, trials)
                if "lf" in levels:
                    out[("lf", "adbc", key)] = median_time(lf_adbc, trials)
            # the plain read: whole when it fits in the cap, else extrapolated
            est, done, total = 0.0, 0, 0
            with store._read() as conn:
                for w in wheres:
                    secs, got, n = plain_capped(conn, w, cap)
                    est, done, total = est + secs, done + got, total + n
            if done == total:
                out[("rr", "plain", key)] = median_time(rr_plain, trials)
                if "lf" in levels:
                    out[("lf", "plain", key)] = median_time(lf_plain, trials)
            else:
                out[("rr", "plain", key)] = ("~", est)
                if "lf" in levels:
                    out[("lf", "plain", key)] = (
                        "~", est + max(out[("lf", "new", key)] - out[("rr", "new", key)], 0.0))
                out[("note", key)] = f"plain {key}: extrapolated from {done:,d} of {total:,d} rows"
    return out


def _secs(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, tuple):
        return f"~{value[1]:.3g}"
    return f"{value:.3f}" if value < 100 else f"{value:.0f}"


def _ratio(a: Any, b: Any) -> str:
    if a is None or b is None:
        return "-"
    va = a[1] if isinstance(a, tuple) else a
    vb = b[1] if isinstance(b, tuple) else b
    approx = "~" if isinstance(a, tuple) or isinstance(b, tuple) else ""
    return f"{approx}{va / vb:.3g}"


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--trials", type=int, default=3,
                        help="calls per figure (median) on the demo and 65k stores")
    parser.add_argument("--million-trials", type=int, default=1,
                        help="calls per figure on the 1M store (read_results only)")
    parser.add_argument("--cap", type=float, default=3.0,
                        help="seconds of fetching after which a plain read is extrapolated")
    parser.add_argument("--no-million", action="store_true", help="leave out the 1M store")
    args = parser.parse_args()
    try:
        import adbc_driver_sqlite  # type: ignore[import-not-found]  # noqa: F401

        has_adbc = True
    except ImportError:
        has_adbc = False
    print(f"SQLite {sqlite3.sqlite_version} (Python's sqlite3), Python "
          f"{sys.version.split()[0]}, switch interval {sys.getswitchinterval() * 1000:.0f} ms, "
          f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}; ADBC: "
          + ("adbc_driver_sqlite, on a copy of each store" if has_adbc
             else "not importable (skipped)"))
    wall = time.perf_counter()
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        t = time.perf_counter()
        demo = Path(tmp) / "demo.db"
        open_store(f"sqlite:///{demo}").ensure_demo_data(ROOT / "data")
        sizes = [65_000] + ([] if args.no_million else [1_000_000])
        for n in sizes:
            synthetic(Path(tmp) / f"synth{n}.db", n)
        print(f"stores built in {time.perf_counter() - t:.1f} s")
        cases: list[tuple[str, Path, list[tuple[str, str]], int, tuple[str, ...]]] = [
            ("demo overall x4", demo, OVERALL, args.trials, ("rr", "lf"))]
        cases += [(f"synth {n // 1000}k" if n < 10**6 else f"synth {n // 10**6}M",
                   Path(tmp) / f"synth{n}.db", [("synth", "score")],
                   args.trials if n < 10**6 else args.million_trials,
                   ("rr", "lf") if n < 10**6 else ("rr",)) for n in sizes]
        for label, path, reads, trials, levels in cases:
            copy = None
            if has_adbc:
                copy = path.with_name(path.stem + "-copy.db")
                copy_of(path, copy)
            store = open_store(f"sqlite:///{path}")
            results.append(measure(label, store, reads, copy, trials, args.cap, levels))
            store.close()
            print(f"  measured {label} ({time.perf_counter() - wall:.0f} s so far)", flush=True)
    print()
    print("seconds (median of `trials` calls); ~ = extrapolated (see the notes below)")
    head = f"{'read':<16} {'rows':>9} {'trials':>6} {'level':<12}"
    cells = [f"{w} {k}" for k in ("alone", "busy") for w in ("new", "plain", "adbc")]
    print(head + "".join(f" {c:>11}" for c in cells)
          + "".join(f" {c:>10}" for c in ("new/plain", "new/adbc", "new/plain", "new/adbc")))
    print(" " * (len(head) + 12 * len(cells)) + "".join(
        f" {c:>10}" for c in ("(alone)", "(alone)", "(busy)", "(busy)")))
    for res in results:
        for level, name in (("rr", "read_results"), ("lf", "load_frame")):
            if level not in res["levels"]:
                continue
            values = [res.get((level, w, k)) for k in ("alone", "busy")
                      for w in ("new", "plain", "adbc")]
            ratios = [_ratio(res.get((level, "new", k)), res.get((level, w, k)))
                      for k in ("alone", "busy") for w in ("plain", "adbc")]
            print(f"{res['label']:<16} {res['rows']:>9,d} {res['trials']:>6d} {name:<12}"
                  + "".join(f" {_secs(v):>11}" for v in values)
                  + "".join(f" {r:>10}" for r in ratios))
    for res in results:
        for k in ("alone", "busy"):
            if ("note", k) in res:
                print(f"  {res['label']}: {res[('note', k)]}")
    print(f"wall time {time.perf_counter() - wall:.0f} s; load average {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
