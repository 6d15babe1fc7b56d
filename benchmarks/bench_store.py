"""Import throughput of the results store, and the time to read one benchmark + metric back.

Usage: ``python benchmarks/bench_store.py [--rows N] [--postgres URL | --no-postgres]``

Writes a synthetic long CSV (default 1,000,000 rows: 4 benchmarks x 50 systems x
5,000 examples, metric ``acc`` in {0, 1}), then times ``ResultsStore.import_file``
(read + validate + store, one transaction) into a fresh SQLite file and into a fresh
PostgreSQL database, and ``load_frame(benchmark, metric)`` + ``build_matrix``.
Prints figures only; nothing is asserted (targets: SQLite <= 15 s, PostgreSQL <= 20 s).
"""

from __future__ import annotations

import argparse
import secrets
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine._matrix import build_matrix  # noqa: E402
from engine.store import open_store  # noqa: E402

PG_ADMIN = "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"


def make_csv(path: Path, rows: int) -> None:
    benchmarks, systems = 4, 50
    examples = max(1, rows // (benchmarks * systems))
    rng = np.random.default_rng(0)
    b, s, e = np.meshgrid(np.arange(benchmarks), np.arange(systems), np.arange(examples),
                          indexing="ij")
    n = b.size
    df = pd.DataFrame({
        "benchmark": np.char.add("bench", b.ravel().astype(str)),
        "system": np.char.add("system-", s.ravel().astype(str)),
        "example_id": np.char.add("ex/", e.ravel().astype(str)),
        "metric": "acc",
        "value": (rng.random(n) < 0.6).astype(int),
    })
    df.to_csv(path, index=False)


def run(url: str, path: Path, label: str) -> None:
    store = open_store(url)
    t0 = time.perf_counter()
    report = store.import_file(path)
    t1 = time.perf_counter()
    frame = store.load_frame("bench0", "acc")
    t_load = time.perf_counter()
    matrix = build_matrix(frame, benchmark="bench0", metric="acc")
    t2 = time.perf_counter()
    store.catalog()
    t3 = time.perf_counter()
    for _ in range(100):
        store.data_version()
    t4 = time.perf_counter()
    print(f"{label:10s} import {report.rows:>9,d} rows: {t1 - t0:6.2f} s "
          f"({report.rows / (t1 - t0):,.0f} rows/s); load bench0/acc "
          f"{len(frame):,d} rows as {matrix.n_systems}x{matrix.n_examples} matrix: "
          f"{t2 - t1:5.2f} s (load_frame {t_load - t1:4.2f} s); catalog {t3 - t2:4.2f} s; data_version "
          f"{(t4 - t3) * 10:4.2f} ms")
    store.close()


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--postgres", default=PG_ADMIN, help="admin URL of the server")
    parser.add_argument("--no-postgres", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "results.csv"
        t = time.perf_counter()
        make_csv(path, args.rows)
        print(f"wrote {path.stat().st_size / 1e6:.0f} MB CSV in {time.perf_counter() - t:.1f} s")
        run(f"sqlite:///{tmp}/bench.db", path, "SQLite")
        if args.no_postgres:
            return 0
        from sqlalchemy import create_engine, text

        name = f"sigboard_bench_{secrets.token_hex(4)}"
        admin = create_engine(args.postgres, isolation_level="AUTOCOMMIT")
        try:
            with admin.connect() as conn:
                conn.execute(text(f'CREATE DATABASE "{name}"'))
        except Exception as exc:  # noqa: BLE001
            print(f"PostgreSQL skipped: {exc}")
            return 0
        try:
            run(args.postgres.rsplit("/", 1)[0] + f"/{name}", path, "PostgreSQL")
        finally:
            with admin.connect() as conn:
                conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
            admin.dispose()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
