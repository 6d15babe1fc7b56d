"""Calibration of the default analysis: false alarms with no true difference, and power.

For each scenario, 10 systems with no true difference are simulated ``--reps`` times
(default 500) and analysed exactly as the leaderboard does (all pairs, automatic test,
Holm–Šídák at alpha 0.05). The family-wise false-alarm rate — the share of runs in
which *any* pair is declared different — must stay at or below alpha within Monte
Carlo error (rate ± 1.96·√(rate(1−rate)/reps)). Then one system is made better and the
power is the share of its 9 pairs declared significant in the right direction.

Scenarios:

* ``binary``: 164 examples of heterogeneous difficulty (logit difficulty ~ N(0, 1.5²)),
  0/1 scores → exact McNemar.
* ``heavy-tailed``: 500 examples, example effect + Student-t(3) noise → paired t.
* ``runs``: 3 independent runs per example (binary), kept as runs → the run-aware
  paired t (per-example means plus any run variance component).
* ``partial``: as ``binary`` but each system misses 15% of the examples at random →
  each pair paired on the examples it shares. Power is compared with the old rule
  (every pair paired on the examples *all* systems share).
* ``n10``, ``n25``: as ``binary`` on 10 and 25 examples (tiny benchmarks: at n = 10 no
  pair can reach the first Holm–Šídák threshold; the analysis says so).
* ``seeds-1to5``: 1–5 runs per system (runs 1, 1, 2, 3, 5, 1, 2, 4, 5, 3), each run a seed
  shifting the whole sweep (numeric: SD 0.3 against noise SD 0.5; 0/1: SD 0.3 on the
  logit, 164 examples): the leaderboard's family-wise false alarms and the coverage of
  its mean intervals (numeric: the true mean 0).
* ``missing-failures``: as ``binary``, but s9's failures are missing with probability
  0.5 (a harness that drops errors): the family-wise false alarms, and the share of
  analyses whose output warns that s9's missing scores are not missing at random
  (engine.stats._missing; the CLI's ``warnings`` and compare's exit 2) — must be ≥ 0.95.
  ``partial`` prints the share of false warnings on data missing at random.
* ``skip-hardest``: as ``binary`` (no true difference), but s9 lacks the 20% hardest
  examples (by true difficulty): coverage of every system's population mean E σ(0.5 − d)
  by its leaderboard interval — complete systems (their own Wilson interval) and the
  skipper (the difficulty-adjusted interval) — and the share of analyses whose output warns
  that s9's missing scores are not missing at random (≥ 0.95 required
  where the skipper's coverage is below 0.93).
* ``clustered``: 20 passages × 10 questions, 0/1 scores, passage difficulty N(0, 1), a
  system × passage interaction of SD 0, 0.5 and 1.0: the leaderboard with the passage as
  cluster (CR2, Bell–McCaffrey df) — family-wise false alarms, coverage of the pairs'
  difference intervals (true difference 0) and of the mean intervals (true mean
  E σ(0.5 − N(0, 1 + SD²)) by quadrature), and the same without the cluster column.
  Also the Mechanisms page's sign test of P(A beats B) grouped by passage (CR2 t of the
  win − loss signs, Holm–Šídák over the 45 pairs) against the per-example exact sign test,
  and the coverage of the Distributions page's cluster-bootstrap mean intervals (400
  resamples of the passages).
* ``lognormal``: unpaired numeric scores, every system on its own examples, centred
  lognormal exp(σZ) − exp(σ²/2) (mean 0): equal shapes (σ = 1, 10–40 examples each) and
  unequal shapes (σ from 0.5 to 1.0, 30 each): the default analysis (bootstrap-t where
  Cochran's rule fails) against Welch's t (``test="t"``) — false alarms
  and the coverage of the difference intervals (true difference 0) — and the share of
  analyses warning that no unpaired test can be trusted (engine.stats._unpaired: a
  bootstrap-t pair with estimated skewness of the difference of means ≥ 0.25; required
  ≥ 0.95 where the false alarms exceed alpha). ``unpaired-normal`` (normal scores, 10–40
  each) gives the false-warning rate. Each alone: ``--only lognormal-equal``,
  ``lognormal-unequal``, ``unpaired-normal`` (``lognormal`` runs all three);
  ``lognormal-unequal-50`` / ``-70`` / ``-100`` (only when named) find where the warning
  stops: unequal shapes with 50, 70, 100 scores each (200 reps, the warning then without its
  size cap): 0.070 ± 0.035 / 0.040 ± 0.027 / 0.040 ± 0.027 (Welch 0.080 / 0.050 / 0.045),
  so the warning covers pairs whose smaller side has ≤ 60 scores.
* ``seed-sweep``: 3 runs per system where a run is a seed shifting the whole sweep
  (run effect ~ N(0, 0.3²) on a numeric score): the default analysis (run-aware,
  as the leaderboard runs it) against the plain paired t on per-example means.

Every scenario also prints the coverage of the pairs' difference intervals: with no true
difference, the share of intervals holding 0; with one better system, the share of its
pairs' intervals holding the true difference (binary: E[σ(1.5 − d) − σ(0.5 − d)] over
d ~ N(0, 1.5²), by quadrature).

Run: ``.venv/bin/python benchmarks/calibrate.py [--reps 500] [--only binary,partial]
[--test mcnemar-midp]`` (``--test`` is passed to every analysis: compare exact and mid-p
McNemar on the binary scenarios).

Figures of the calibration audit's run (``--reps 300``; family-wise false alarms ± 1.96 MC SE,
and coverage; "before" = the audit's figures for the engine before clusters, pooled seed
variance and the missing-score checks):

==============================  ==================================  =======================
scenario                        now                                 before the audit
==============================  ==================================  =======================
binary (164)                    0.007 ± 0.009, coverage 0.964       —
partial (15% at random)         0.020 ± 0.016, false warnings 0.055 —
n10                             0.000 (says "cannot separate" 1.000) no pair possible, silent
n25                             0.003 ± 0.007                       —
missing-failures                0.457 ± 0.056, warned 0.958         0.333, no warning
skip-hardest: complete / s9     coverage 0.947 / 0.853, warned 1.000 0.879
clustered SD 0 / 0.5 / 1.0      0.043 / 0.023 / 0.053               0.047 / 0.153 / 0.403
  difference / mean coverage    ≥ 0.946 / ≥ 0.946                   ≥ 0.81 / 0.64–0.73
  rerun (300, 2026-11-28)       0.040 / 0.013 / 0.033, coverage
                                ≥ 0.946 / ≥ 0.950 (no column:
                                0.043 / 0.117 / 0.513)
  Mechanisms sign test          0.040 / 0.013 / 0.033 (0/1: the     per-example exact sign
                                signs are the differences, so it    test 0.043 / 0.117 /
                                is the leaderboard's CR2 t)         0.513
  Distributions cluster         coverage 0.935 / 0.939 / 0.937      —
  bootstrap mean intervals      (400 resamples of 20 passages)
seeds-1to5 numeric / 0/1        0.020 / 0.023, coverage 0.956       0.273 / 0.227, 0.87–0.88
  compare 1 run vs 1 run        0.050 / 0.040                       0.283 / 0.227
lognormal equal / unequal       0.007 / 0.063 ± 0.028 (Welch        0.220 (Welch)
                                0.023 / 0.070), earlier runs of
                                unequal 0.077, 0.093 ± 0.033
  warned (no test trusted)      1.000 / 0.993; normal 10–40: 0.077  silent
  rerun (300, 2026-11-28)       0.007 / 0.080 ± 0.031 (Welch 0.023
                                / 0.090); warned 1.000 / 0.990,
                                normal 0.127 (0.027 false alarms);
                                with test t warned the same shares
  no flag under the warning     0.003 / 0.023 ± 0.017 (Welch 0.003
  (300, 2026-12-03)             / 0.023); normal 0.027
mid-p McNemar: binary, partial  0.020, 0.033, n25 0.010, missing-   —
                                failures 0.447 (power 0.635/0.584)
==============================  ==================================  =======================
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine import (  # noqa: E402
    ScoreMatrix,
    bootstrap_ranks,
    build_matrix,
    leaderboard,
    p_beats,
    pairwise_tests,
)
from engine.stats._ab import compare_ab  # noqa: E402
from engine.stats._clusters import ClusterDesign  # noqa: E402
from engine.stats._missing import missing_checks  # noqa: E402
from engine.stats._unpaired import UNRELIABLE  # noqa: E402

SYSTEMS, ALPHA = 10, 0.05
TEST = "auto"
UNSEPARABLE: list[bool] = []  # per analysis: the output said no pair can be significant
WARNED: list[bool] = []  # per analysis: some system's missing scores flagged as informative


def _true_binary_gain(shift: float = 1.0) -> float:
    """E[σ(0.5 + shift − d) − σ(0.5 − d)], d ~ N(0, 1.5²): the population difference."""
    nodes, weights = np.polynomial.hermite_e.hermegauss(80)
    d = 1.5 * nodes
    gain = 1 / (1 + np.exp(-(0.5 + shift - d))) - 1 / (1 + np.exp(-(0.5 - d)))
    return float((weights * gain).sum() / weights.sum())


def _binary(rng: np.random.Generator, n: int, shift: np.ndarray) -> np.ndarray:
    difficulty = rng.normal(0, 1.5, n)
    logits = 0.5 + shift[:, None] - difficulty[None, :]
    return (rng.random((len(shift), n)) < 1 / (1 + np.exp(-logits))).astype(float)


def _heavy(rng: np.random.Generator, n: int, shift: np.ndarray) -> np.ndarray:
    example = rng.normal(0, 1, n)
    return example[None, :] + shift[:, None] + rng.standard_t(3, (len(shift), n))


def _runs(rng: np.random.Generator, n: int, shift: np.ndarray) -> pd.DataFrame:
    """3 independent runs per example, kept as runs: the default analysis sees them."""
    frames = []
    for r in range(3):
        x = _binary_fixed(rng, n, shift)
        frames.append(pd.DataFrame({"benchmark": "b", "metric": "m", "run": r,
                                    "system": np.repeat([f"s{i}" for i in range(len(shift))], n),
                                    "example_id": np.tile([f"e{j:04d}" for j in range(n)],
                                                          len(shift)),
                                    "value": x.ravel()}))
    return pd.concat(frames, ignore_index=True)


_DIFFICULTY: dict[int, np.ndarray] = {}


def _binary_fixed(rng: np.random.Generator, n: int, shift: np.ndarray) -> np.ndarray:
    """Binary scores with the replication's difficulty shared by its runs."""
    difficulty = _DIFFICULTY[n]
    logits = 0.5 + shift[:, None] - difficulty[None, :]
    return (rng.random((len(shift), n)) < 1 / (1 + np.exp(-logits))).astype(float)


def _partial(rng: np.random.Generator, n: int, shift: np.ndarray) -> np.ndarray:
    x = _binary(rng, n, shift)
    x[rng.random(x.shape) < 0.15] = np.nan
    return x


def _missing_failures(rng: np.random.Generator, n: int, shift: np.ndarray) -> np.ndarray:
    """``binary``, with the last system's failures missing with probability 0.5."""
    x = _binary(rng, n, shift)
    x[-1][(x[-1] == 0) & (rng.random(n) < 0.5)] = np.nan
    return x


def _flags(x: np.ndarray | pd.DataFrame, best: int | None, *, common_only: bool = False,
           gain: float = float("nan")) -> tuple[bool, float, float]:
    """(any pair significant, share of the best system's pairs significant its way,
    share of the intervals holding the true difference: 0 for equal systems, ``gain``
    for the best system's pairs)."""
    if isinstance(x, pd.DataFrame):  # a long table with runs: the default analysis
        res = pairwise_tests(build_matrix(x), test=TEST)
    else:
        if common_only:  # the old rule: every pair on the examples all systems share
            x = x[:, ~np.isnan(x).any(axis=0)]
        res = pairwise_tests(ScoreMatrix.from_array(x), test=TEST)
    t = res.table
    UNSEPARABLE.append(res.resolution is not None and not res.resolution.can_separate)
    if not isinstance(x, pd.DataFrame) and np.isnan(x).any():
        matrix = ScoreMatrix.from_array(x)
        WARNED.append(any(c.informative for c in missing_checks(matrix)))
    any_sig = bool(t["significant"].any())
    if best is None:
        covered = (t["ci_low"] <= 0) & (t["ci_high"] >= 0)
        return any_sig, float("nan"), float(covered.mean())
    name = f"s{best}"
    mine = t[(t["system_a"] == name) | (t["system_b"] == name)]
    right = np.where(mine["system_a"] == name, mine["a_better"], ~mine["a_better"])
    truth = np.where(mine["system_a"] == name, gain, -gain)
    covered = (mine["ci_low"] <= truth) & (mine["ci_high"] >= truth)
    return (any_sig, float((mine["significant"].to_numpy() & right).mean()),
            float(covered.mean()) if np.isfinite(gain) else float("nan"))


def _seed_sweep_frame(rng: np.random.Generator, n: int, shift: np.ndarray) -> pd.DataFrame:
    example = rng.normal(0, 1, n)
    rows = []
    for s, d in enumerate(shift):
        for r in range(3):
            seed_effect = rng.normal(0, 0.3)  # a seed shifts the whole sweep
            v = example + d + seed_effect + rng.normal(0, 0.5, n)
            rows.append(pd.DataFrame({"benchmark": "b", "system": f"s{s}", "metric": "m",
                                      "example_id": [f"e{j:04d}" for j in range(n)],
                                      "run": r, "value": v}))
    return pd.concat(rows, ignore_index=True)


SEED_RUNS = (1, 1, 2, 3, 5, 1, 2, 4, 5, 3)


def _seeds_frame(rng: np.random.Generator, n: int, binary: bool) -> pd.DataFrame:
    """Systems with 1–5 runs, every run a seed that shifts its whole sweep; no true difference."""
    example = rng.normal(0, 1.5 if binary else 1.0, n)
    frames = []
    for s, runs in enumerate(SEED_RUNS):
        for r in range(runs):
            shift = rng.normal(0, 0.3)
            if binary:
                p = 1 / (1 + np.exp(-(0.5 + shift - example)))
                v = (rng.random(n) < p).astype(float)
            else:
                v = example + shift + rng.normal(0, 0.5, n)
            frames.append(pd.DataFrame({"benchmark": "b", "system": f"s{s}", "metric": "m",
                                        "example_id": [f"e{j:04d}" for j in range(n)],
                                        "run": r, "value": v}))
    return pd.concat(frames, ignore_index=True)


def _seeds(rng: np.random.Generator, reps: int) -> None:
    for binary in (False, True):
        flags, cover, gate = [], [], []
        for _ in range(reps):
            frame = _seeds_frame(rng, 164 if binary else 200, binary)
            lb = leaderboard(build_matrix(frame), bt_resamples=0)
            flags.append(bool(lb.pairwise.table["significant"].any()))
            # compare s0 vs s1, both single-run: the seed variance pooled from the others
            gate.append(compare_ab(frame, baseline="s0", candidate="s1").test.pvalue < ALPHA)
            if not binary:  # the true mean of every system is 0 (example and seed means 0)
                t = lb.table
                cover.append(float(((t["ci_low"] <= 0) & (t["ci_high"] >= 0)).mean()))
        _report(f"seeds-1to5 {'0/1' if binary else 'numeric'}", flags, [],
                f"(pairs and means pay the pooled seed variance; compare 1 run vs 1 run: false "
                f"alarms {np.mean(gate):.3f} ± {1.96 * np.sqrt(np.var(gate) / reps):.3f})",
                [float(np.mean(cover))] if cover else None)


def _skip_hardest(rng: np.random.Generator, reps: int) -> None:
    nodes, weights = np.polynomial.hermite_e.hermegauss(80)
    truth = float((weights / (1 + np.exp(-(0.5 - 1.5 * nodes)))).sum() / weights.sum())
    skipper, complete, warned = [], [], []
    for _ in range(reps):
        difficulty = rng.normal(0, 1.5, 164)
        p = 1 / (1 + np.exp(-(0.5 - difficulty)))
        x = (rng.random((SYSTEMS, 164)) < p[None, :]).astype(float)
        x[-1, np.argsort(difficulty)[-int(0.2 * 164):]] = np.nan
        m = ScoreMatrix.from_array(x)
        t = leaderboard(m, bt_resamples=0).table.set_index("system")
        held = (t["ci_low"] <= truth) & (t["ci_high"] >= truth)
        skipper.append(bool(held[f"s{SYSTEMS - 1}"]))
        complete.append(float(held.drop(f"s{SYSTEMS - 1}").mean()))
        warned.append(any(c.informative for c in missing_checks(m)))
    print(f"{'skip-hardest (s9 lacks 20%)':<28} mean-interval coverage: complete systems "
          f"{np.mean(complete):.3f}, the skipper {np.mean(skipper):.3f}; warned of informative "
          f"missingness in {np.mean(warned):.3f} of analyses")


def _clustered(rng: np.random.Generator, reps: int) -> None:
    passages, per = 20, 10
    codes = np.repeat(np.arange(passages), per)
    design = ClusterDesign.from_codes(codes, "passage")
    nodes, weights = np.polynomial.hermite_e.hermegauss(80)
    for sd in (0.0, 0.5, 1.0):
        truth = float((weights / (1 + np.exp(-(0.5 - np.sqrt(1 + sd**2) * nodes)))).sum()
                      / weights.sum())
        flags, naive, pair_cover, mean_cover = [], [], [], []
        # Mechanisms and Distributions, grouped by passage
        signs: list[bool] = []
        signs_naive: list[bool] = []
        boot_cover: list[float] = []
        for _ in range(reps):
            passage = rng.normal(0, 1, passages)
            inter = rng.normal(0, sd, (SYSTEMS, passages))
            logit = 0.5 - passage[codes][None, :] + inter[:, codes]
            x = (rng.random((SYSTEMS, len(codes))) < 1 / (1 + np.exp(-logit))).astype(float)
            m = ScoreMatrix.from_array(x)
            lb = leaderboard(m, cluster=design, bt_resamples=0)
            t, rows = lb.pairwise.table, lb.table
            flags.append(bool(t["significant"].any()))
            pair_cover.append(float(((t["ci_low"] <= 0) & (t["ci_high"] >= 0)).mean()))
            mean_cover.append(float(((rows["ci_low"] <= truth) & (rows["ci_high"] >= truth)).mean()))
            naive.append(bool(pairwise_tests(m).table["significant"].any()))
            signs.append(bool(p_beats(m, cluster=design).table["significant"].any()))
            signs_naive.append(bool(p_beats(m).table["significant"].any()))
            boot = bootstrap_ranks(m, n_resamples=400, seed=int(rng.integers(2**31)),
                                   cluster=design).summary
            boot_cover.append(float(((boot["ci_low"] <= truth)
                                     & (boot["ci_high"] >= truth)).mean()))
        _report(f"clustered SD {sd:.1f}", flags, [],
                f"(without the cluster column: {np.mean(naive):.3f})",
                [float(np.mean(pair_cover)), float(np.mean(mean_cover))])
        _report(f"  Mechanisms sign test, SD {sd:.1f}", signs, [],
                f"(per-example exact sign test: {np.mean(signs_naive):.3f}; coverage: the "
                "Distributions page's cluster-bootstrap mean intervals)",
                [float(np.mean(boot_cover))])


LOGNORMAL = {"lognormal-equal": ("equal shapes", np.full(SYSTEMS, 1.0), (10, 41)),
             "lognormal-unequal": ("unequal shapes", np.linspace(0.5, 1.0, SYSTEMS), (30, 31)),
             "unpaired-normal": ("normal", None, (10, 41))}
#: Run only when named: where the warning stops (engine.stats._unpaired.SKEW_MAX_N).
LOGNORMAL_REACH = {f"lognormal-unequal-{n}": (f"unequal shapes, {n} each",
                                              np.linspace(0.5, 1.0, SYSTEMS), (n, n + 1))
                   for n in (50, 70, 100)}


def _lognormal(rng: np.random.Generator, reps: int, wanted: set[str]) -> None:
    """Unpaired scores, each system on its own examples; also the share of analyses warning
    that no unpaired test can be trusted (engine.stats._unpaired.skew_warning)."""
    for key, (label, sigmas, sizes) in {**LOGNORMAL, **LOGNORMAL_REACH}.items():
        if key not in wanted and ("lognormal" not in wanted or key in LOGNORMAL_REACH):
            continue
        flags, welch, cover, welch_cover, warned = [], [], [], [], []
        warned_t: list[bool] = []  # the same warning when Welch's t is forced
        for _ in range(reps):
            n = rng.integers(*sizes, SYSTEMS)
            x = np.full((SYSTEMS, int(n.sum())), np.nan)
            start = 0
            for s, k in enumerate(n):
                if sigmas is None:
                    x[s, start:start + k] = rng.normal(size=k)
                else:
                    sig = sigmas[s]
                    x[s, start:start + k] = np.exp(sig * rng.normal(size=k)) - np.exp(sig**2 / 2)
                start += k
            m = ScoreMatrix.from_array(x)
            for test, f, c in (("auto", flags, cover), ("t", welch, welch_cover)):
                res = pairwise_tests(m, test=test)
                t = res.table
                f.append(bool(t["significant"].any()))
                c.append(float(((t["ci_low"] <= 0) & (t["ci_high"] >= 0)).mean()))
                (warned if test == "auto" else warned_t).append(
                    any(note.startswith(UNRELIABLE) for note in res.notes))
        _report(f"unpaired, {label}", flags, [],
                f"(Welch's t: false alarms {np.mean(welch):.3f}, coverage "
                f"{np.mean(welch_cover):.3f}; warned 'no unpaired test can be trusted' in "
                f"{np.mean(warned):.3f} of analyses, {np.mean(warned_t):.3f} with test t)",
                [float(np.mean(cover))])


def _report(name: str, flags: list[bool], powers: list[float], extra: str = "",
            coverage: list[float] | None = None) -> None:
    reps = len(flags)
    rate = float(np.mean(flags))
    err = 1.96 * np.sqrt(max(rate * (1 - rate), 1e-12) / reps)
    ok = "ok" if rate - err <= ALPHA else "TOO HIGH"
    power = float(np.nanmean(powers)) if powers else float("nan")
    cover = ""
    if coverage:
        low = float(np.nanmin(coverage)) if len(coverage) == 2 else float(np.nanmean(coverage))
        cover = f"   coverage {' / '.join(f'{c:.3f}' for c in coverage)}" + \
            ("" if low >= 0.93 else " (LOW)")
    print(f"{name:<28} false alarms {rate:.3f} ± {err:.3f} ({ok})   power {power:.3f}{cover} "
          f"{extra}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=500)
    parser.add_argument("--only", default="binary,heavy-tailed,runs,partial,n10,n25,seeds-1to5,"
                                          "missing-failures,skip-hardest,clustered,lognormal,seed-sweep")
    parser.add_argument("--test", default="auto", help="the test option of every analysis")
    args = parser.parse_args()
    global TEST
    TEST = args.test
    rng = np.random.default_rng(20261123)
    null = np.zeros(SYSTEMS)
    better = np.r_[np.zeros(SYSTEMS - 1), 1.0]  # s9 better by 1 logit (binary) or 1 unit
    wanted = set(args.only.split(","))
    start = time.perf_counter()
    print(f"{SYSTEMS} systems, alpha {ALPHA}, {args.reps} replications per scenario; "
          "power = share of the better system's 9 pairs found (right direction)")
    gain = _true_binary_gain()
    for name, make, n in (("binary", _binary, 164), ("heavy-tailed", _heavy, 500),
                          ("runs", _runs, 164), ("partial", _partial, 164),
                          ("n10", _binary, 10), ("n25", _binary, 25),
                          ("missing-failures", _missing_failures, 164)):
        if name not in wanted:
            continue
        flags, powers, old_powers, null_cover, best_cover = [], [], [], [], []
        UNSEPARABLE.clear()
        WARNED.clear()
        truth = 1.0 if name == "heavy-tailed" else gain
        for _ in range(args.reps):
            _DIFFICULTY[n] = rng.normal(0, 1.5, n)
            any_sig, _, cover = _flags(make(rng, n, null), None)
            flags.append(any_sig)
            null_cover.append(cover)
            _DIFFICULTY[n] = rng.normal(0, 1.5, n)
            x = make(rng, n, better)
            _, power, cover = _flags(x, SYSTEMS - 1, gain=truth)
            powers.append(power)
            best_cover.append(cover)
            if name == "partial":
                old_powers.append(_flags(x, SYSTEMS - 1, common_only=True)[1])
        extra = (f"(old rule, pairs on the examples all systems share: {np.mean(old_powers):.3f})"
                 if old_powers else "")
        if WARNED:
            extra += f"(warned of informative missingness in {np.mean(WARNED):.3f} of analyses)"
        if any(UNSEPARABLE):
            extra += f"(said 'cannot separate' in {np.mean(UNSEPARABLE):.3f} of analyses)"
        _report(name, flags, powers, extra, [float(np.mean(null_cover)), float(np.mean(best_cover))])
    if wanted & {"lognormal", *LOGNORMAL, *LOGNORMAL_REACH}:
        _lognormal(rng, args.reps, wanted)
    if "skip-hardest" in wanted:
        _skip_hardest(rng, args.reps)
    if "clustered" in wanted:
        _clustered(rng, args.reps)
    if "seeds-1to5" in wanted:
        _seeds(rng, args.reps)
    if "seed-sweep" in wanted:
        aware, naive = [], []
        for _ in range(args.reps):
            df = _seed_sweep_frame(rng, 200, null)
            aware.append(bool(pairwise_tests(build_matrix(df)).table["significant"].any()))
            means = df.groupby(["system", "example_id"])["value"].mean().unstack()
            naive.append(_flags(means.to_numpy(), None)[0])
        _report("seed-sweep, default analysis", aware, [])
        _report("seed-sweep, per-example means", naive, [], "(runs ignored: the defect)")
    print(f"total {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
