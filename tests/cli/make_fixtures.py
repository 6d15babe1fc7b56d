"""Write the small inputs of the golden CLI tests into ``tests/cli/fixtures/``.

Run once from the repository root (``python tests/cli/make_fixtures.py``); the files are
committed, so the golden outputs never depend on a random generator's version.

- ``demo6.csv``: six systems of the bundled demo data (``data/humaneval.jsonl.gz`` and
  ``data/humaneval+.jsonl.gz``, Eval-Arena, MIT), all 164 examples of each benchmark.
- ``demo6_a.csv`` / ``demo6_b.csv``: ``humaneval`` of ``demo6.csv`` split by example (first
  half, second half), two batches for ``watch``.
- ``metrics.csv``: 4 systems, 2 benchmarks × 2 metrics (binary ``acc``, numeric ``score``),
  60 examples with a ``topic`` column (the ``results_csv`` fixture of test_cli_commands).
- ``runs.csv``: baseline and candidate, 3 runs of 40 examples (``runs_csv`` there).
- ``judge.csv``: a judge metric with human labels on 15% of the examples
  (``judge_frame`` of tests/engine/products/test_judge.py, seed 0, 4 systems × 200 examples).
- ``battles.csv``: 1000 judged battles with human verdicts on some
  (``_frame`` of tests/engine/stats/test_ppi_logistic.py, n=600).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[2]
OUT = Path(__file__).resolve().parent / "fixtures"
SYSTEMS = 6


def demo() -> pd.DataFrame:
    parts = [pd.read_json(ROOT / "data" / name, lines=True)
             for name in ("humaneval.jsonl.gz", "humaneval+.jsonl.gz")]
    frame = pd.concat(parts, ignore_index=True).rename(columns={
        "benchmark_id": "benchmark", "model": "system", "pass1": "value"})
    keep = sorted(set(parts[0]["model"]) & set(parts[1]["model"]))[:: 8][:SYSTEMS]
    frame = frame[frame["system"].isin(keep)].assign(metric="pass1")
    return frame[["benchmark", "system", "example_id", "metric", "value"]]


def metrics() -> pd.DataFrame:
    rng = np.random.default_rng(7)
    skill = {"alpha": 0.8, "beta": 0.6, "gamma": 0.45, "delta": 0.2}
    rows = []
    for bench in ("b1", "b2"):
        for s, p in skill.items():
            for i in range(60):
                acc = float(rng.random() < p)
                rows.append((bench, s, f"e{i:02d}", "acc", acc, f"t{i % 3}"))
                rows.append((bench, s, f"e{i:02d}", "score", p + rng.normal(0, 0.2), f"t{i % 3}"))
    return pd.DataFrame(rows, columns=["benchmark", "system", "example_id", "metric", "value",
                                       "topic"])


def runs() -> pd.DataFrame:
    rng = np.random.default_rng(3)
    mu = rng.normal(0.5, 0.15, 40)
    rows = [("b", s, f"e{i:02d}", "score", mu[i] + shift + rng.normal(0, 0.05), r)
            for s, shift in (("base", 0.0), ("cand", 0.03)) for r in range(3) for i in range(40)]
    return pd.DataFrame(rows, columns=["benchmark", "system", "example_id", "metric", "value",
                                       "run"])


def main() -> None:
    sys.path[:0] = [str(ROOT / "tests" / "engine" / "products"), str(ROOT / "tests" / "engine" / "stats")]
    from test_judge import judge_frame, long_of
    from test_ppi_logistic import _frame  # type: ignore[import-not-found]

    OUT.mkdir(exist_ok=True)
    d = demo()
    d.to_csv(OUT / "demo6.csv", index=False)
    he = d[d["benchmark"] == "humaneval"]
    ids = sorted(he["example_id"].unique())
    he[he["example_id"].isin(ids[: len(ids) // 2])].to_csv(OUT / "demo6_a.csv", index=False)
    he[he["example_id"].isin(ids[len(ids) // 2:])].to_csv(OUT / "demo6_b.csv", index=False)
    metrics().to_csv(OUT / "metrics.csv", index=False)
    runs().to_csv(OUT / "runs.csv", index=False)
    long_of(judge_frame(0, examples=200)).to_csv(OUT / "judge.csv", index=False)
    _frame(0, n=1000).to_csv(OUT / "battles.csv", index=False)


if __name__ == "__main__":
    main()
