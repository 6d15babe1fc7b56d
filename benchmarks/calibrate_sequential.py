"""Calibration of watch mode under peeking: false alarms, power and stopping time.

Two systems are compared as results arrive in batches of 10 examples, up to 2,000, and
the comparison is looked at after every batch (200 looks). Per scenario, ``--reps``
replications (default 1000) are simulated at once (numpy arrays replications × examples):

* **sequential** — the always-valid test the ``watch`` command runs
  (:mod:`engine.stats._confseq`: the hedged betting confidence sequence of Waudby-Smith
  & Ramdas 2024 on the paired difference mapped to [0, 1]; "declared" = the always-valid
  p-value reached alpha = 0.05 at some look);
* **mixture** — the self-normalised normal mixture of Howard et al.
  (2021), what ``watch --bounds none`` runs for unbounded scores (ρ from a burn-in of
  the first 10 observations);
* **fixed-n, peeking** — the paired t-test at alpha 0.05 recomputed at every look,
  "declared" the first time p < 0.05: what re-running ``compare`` after every upload does.

Scenarios (each with and without clusters): ``binary`` — 0/1 scores, example difficulty
on the logit scale ~ N(0, 1.5²); ``numeric`` — scores in [0, 1], example mean ~ Beta(2, 2)
plus N(0, 0.15²) noise, clipped. With clusters, examples come in clusters of 5 (a batch
is 2 whole clusters) and in each cluster one system, chosen by a fair coin, gets a boost
|N(0, 0.5²)| (logit; numeric: |N(0, 0.1²)|): the systems are exchangeable, so equal, but
differences are correlated within clusters; the sequential test and the fixed-n test use
cluster means (the unit), and the naive example-level t-test is shown too.

Under the null the rate of *ever* declaring a difference must be ≤ 0.05 within Monte
Carlo error (rate ± 1.96·√(rate(1−rate)/reps)). Then the candidate is made 5 points
better (probability + 0.05, or score + 0.05 before clipping) and the power within 2,000
examples and the stopping time (examples seen at the look that declared) are printed,
beside the one-look fixed-n t-test at n = 2,000.

Run: ``.venv/bin/python benchmarks/calibrate_sequential.py [--reps 1000] [--seed 0]``
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np
from scipy import special, stats

from engine.stats._confseq import _best_rho, null_log_wealth

N_MAX, BATCH, CLUSTER, ALPHA = 2000, 10, 5, 0.05


def _scores(rng: np.random.Generator, reps: int, kind: str, clusters: bool,
            shift: float) -> tuple[np.ndarray, np.ndarray]:
    """Baseline and candidate scores (reps × N_MAX)."""
    size = (reps, N_MAX)
    boost_a = np.zeros(size)
    boost_b = np.zeros(size)
    if clusters:
        scale = 0.5 if kind == "binary" else 0.1
        per = np.abs(rng.normal(0, scale, (reps, N_MAX // CLUSTER)))
        coin = rng.random((reps, N_MAX // CLUSTER)) < 0.5
        boost_a = np.repeat(np.where(coin, per, 0.0), CLUSTER, axis=1)
        boost_b = np.repeat(np.where(coin, 0.0, per), CLUSTER, axis=1)
    if kind == "binary":
        z = rng.normal(0, 1.5, size)
        p_a = special.expit(0.5 - z + boost_a)
        p_b = np.clip(special.expit(0.5 - z + boost_b) + shift, 0, 1)
        return (rng.random(size) < p_a).astype(float), (rng.random(size) < p_b).astype(float)
    mu = rng.beta(2, 2, size)
    a = np.clip(mu + boost_a + rng.normal(0, 0.15, size), 0, 1)
    b = np.clip(mu + boost_b + shift + rng.normal(0, 0.15, size), 0, 1)
    return a, b


def _units(d: np.ndarray, clusters: bool) -> tuple[np.ndarray, int]:
    """The sequence's observations (cluster means with clusters) and units per look."""
    if not clusters:
        return d, BATCH
    return d.reshape(d.shape[0], -1, CLUSTER).mean(axis=2), BATCH // CLUSTER


def _first_look(hit: np.ndarray, per_look: int) -> np.ndarray:
    """Per replication: index of the first look at which ``hit`` (reps × looks) holds, else -1."""
    first = np.argmax(hit, axis=1)
    return np.where(hit.any(axis=1), first, -1)


def _sequential_looks(u: np.ndarray, per_look: int) -> np.ndarray:
    """Per look: whether the always-valid p-value has reached alpha (betting CS at 0)."""
    log_k = null_log_wealth((u + 1) / 2, 0.5, alpha=ALPHA)
    running = np.maximum.accumulate(log_k, axis=1)
    return running[:, per_look - 1::per_look] >= math.log(1 / ALPHA)


def _mixture_looks(u: np.ndarray, per_look: int) -> np.ndarray:
    """Self-normalised normal mixture (unbounded method): burn-in of 10, ρ at 100 obs."""
    burn = 10
    scale = np.mean(u[:, :burn] ** 2, axis=1)
    rho = np.array([_best_rho(max(s, 1e-12) * 100, ALPHA) for s in scale])[:, None]
    s = np.cumsum(u[:, burn:], axis=1)
    q = np.cumsum(u[:, burn:] ** 2, axis=1)
    log_e = 0.5 * np.log(rho / (q + rho)) + s**2 / (2 * (q + rho))
    log_e = np.concatenate([np.zeros((u.shape[0], burn)), log_e], axis=1)
    running = np.maximum.accumulate(log_e, axis=1)
    return running[:, per_look - 1::per_look] >= math.log(1 / ALPHA)


def _t_looks(u: np.ndarray, per_look: int) -> np.ndarray:
    """Per look: the paired t-test's p < alpha on the units seen so far."""
    n = np.arange(1, u.shape[1] + 1)[per_look - 1::per_look]
    s = np.cumsum(u, axis=1)[:, per_look - 1::per_look]
    q = np.cumsum(u**2, axis=1)[:, per_look - 1::per_look]
    var = (q - s**2 / n) / np.maximum(n - 1, 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = (s / n) / np.sqrt(var / n)
    p = 2 * stats.t.sf(np.abs(t), np.maximum(n - 1, 1))
    return np.nan_to_num(p, nan=1.0) < ALPHA


def _rate(hit: np.ndarray) -> str:
    r = float(hit.mean())
    half = 1.96 * math.sqrt(max(r * (1 - r), 1e-12) / len(hit))
    return f"{r:.3f} ± {half:.3f}"


def _stopping(first: np.ndarray) -> str:
    stopped = first >= 0
    if not stopped.any():
        return "never stops"
    n = (first[stopped] + 1) * BATCH
    capped = np.where(stopped, (first + 1) * BATCH, N_MAX)
    return (f"mean {n.mean():.0f}, median {np.median(n):.0f} examples when stopped; "
            f"mean {capped.mean():.0f} with no-stop counted as {N_MAX}")


def _scenario(rng: np.random.Generator, reps: int, kind: str, clusters: bool) -> None:
    label = f"{kind}{' + clusters' if clusters else ''}"
    for shift, what in ((0.0, "null (equal systems)"), (0.05, "candidate 5 points better")):
        a, b = _scores(rng, reps, kind, clusters, shift)
        d = b - a
        u, per_look = _units(d, clusters)
        methods = {"sequential (betting)": _sequential_looks(u, per_look)}
        methods["sequential (mixture)"] = _mixture_looks(u, per_look)
        methods["fixed-n t, peeking"] = _t_looks(u, per_look)
        if clusters:
            methods["fixed-n t on examples, peeking"] = _t_looks(d, BATCH)
        print(f"\n{label} — {what} (true mean difference {d.mean():+.4f})")
        for name, looks in methods.items():
            ever = looks.any(axis=1)
            line = f"  {name:32s} ever declared {_rate(ever)}"
            if shift > 0:
                line += f"; {_stopping(_first_look(looks, per_look))}"
            print(line)
        if shift > 0:
            once = _t_looks(u, u.shape[1])[:, -1]
            print(f"  {'fixed-n t, one look at 2,000':32s} declared {_rate(once)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--reps", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    start = time.perf_counter()
    print(f"{args.reps} replications; looks after every {BATCH} examples up to {N_MAX}; "
          f"alpha {ALPHA}; MC error = 1.96 standard errors")
    for kind in ("binary", "numeric"):
        for clusters in (False, True):
            _scenario(rng, args.reps, kind, clusters)
    print(f"\n{time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    main()
