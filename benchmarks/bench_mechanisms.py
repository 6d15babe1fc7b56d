"""Speed of the aggregation-mechanisms comparison on humaneval's 78 systems (issue #18).

Run: ``.venv/bin/python benchmarks/bench_mechanisms.py [--permutations 100] [--repeat 1]``

Loads ``data/humaneval.jsonl.gz`` + ``data/humaneval_hf.jsonl.gz`` (same benchmark
id: 78 systems × 164 examples), builds every decisive example-level battle
(~167,000) and prints the time of

* sequential Elo (K = 4) replayed in ``--permutations`` random orders at once
  (target: ≤ 10 s for 100 orders),
* the same for TrueSkill,
* a plain Python loop over one order (the per-battle baseline, × orders),
* the whole :func:`engine._mechanisms.mechanisms` computation at its defaults,
* simultaneous rank intervals (:func:`engine._rank_intervals.rank_intervals_of`).

The step loop is bound by per-call overhead, so a busy machine (load above the
core count) slows it down roughly in proportion; the load average is printed.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engine._elo import battles_from_scores, sequential_elo, sequential_trueskill  # noqa: E402
from engine._matrix import build_matrix  # noqa: E402
from engine._mechanisms import mechanisms  # noqa: E402
from engine._rank_intervals import rank_intervals_of  # noqa: E402
from engine._readers import read_results  # noqa: E402


def _best(fn, repeat: int) -> tuple[float, object]:  # type: ignore[no-untyped-def]
    best, out = float("inf"), None
    for _ in range(repeat):
        start = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - start)
    return best, out


def _loop_one_order(a: np.ndarray, b: np.ndarray, score: np.ndarray, n: int) -> np.ndarray:
    r = [1000.0] * n
    for i, j, s in zip(a.tolist(), b.tolist(), score.tolist(), strict=True):
        d = 4.0 * (s - 1.0 / (1.0 + 10 ** ((r[j] - r[i]) / 400.0)))
        r[i] += d
        r[j] -= d
    return np.array(r)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--permutations", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    df = pd.concat([read_results(ROOT / "data" / "humaneval.jsonl.gz"),
                    read_results(ROOT / "data" / "humaneval_hf.jsonl.gz")], ignore_index=True)
    m = build_matrix(df)
    battles = battles_from_scores(m.oriented(paired=True))
    print(f"humaneval: {m.n_systems} systems × {m.n_common} examples, "
          f"{battles.n_battles:,} decisive battles; load average {os.getloadavg()[0]:.2f} "
          f"on {os.cpu_count()} cores")
    p = args.permutations
    t, elo = _best(lambda: sequential_elo(battles, n_permutations=p, rng=0), args.repeat)
    flag = "ok" if t <= 10 else "OVER the 10 s target"
    print(f"sequential Elo, {p} orders at once:      {t:7.2f} s  ({flag})")
    order = np.random.default_rng(0).permutation(battles.n_battles)
    t_loop, _ = _best(lambda: _loop_one_order(battles.a[order], battles.b[order],
                                              battles.score[order], battles.n_systems), 1)
    print(f"plain Python loop, 1 order:              {t_loop:7.2f} s  (× {p} = {t_loop * p:.1f} s)")
    t_ts, _ = _best(lambda: sequential_trueskill(battles, n_permutations=p, rng=0), args.repeat)
    print(f"sequential TrueSkill, {p} orders at once: {t_ts:7.2f} s")
    t_all, res = _best(lambda: mechanisms(m), args.repeat)
    print(f"mechanisms() at its defaults:            {t_all:7.2f} s")
    t_ri, _ = _best(lambda: rank_intervals_of(m), args.repeat)
    print(f"rank_intervals_of():                     {t_ri:7.2f} s")
    d = res.to_dict()  # type: ignore[attr-defined]
    sd = elo.by_permutation.std(axis=0)  # type: ignore[attr-defined]
    print(f"Elo SD over orders: median {np.median(sd):.1f} points; winner_differs="
          f"{d['winner_differs']}, top3_differs={d['top3_differs']}, "
          f"tau(mean, elo)={d['kendall_tau']['mean|elo']:.3f}, "
          f"tau(mean, median)={d['kendall_tau']['mean|median']:.3f}")


if __name__ == "__main__":
    main()
