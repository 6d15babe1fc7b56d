"""Engine speed and memory: leaderboard + all pairs on eval-arena and on synthetic matrices.

Run: ``.venv/bin/python benchmarks/bench_engine.py [--quick]``

Prints, in one run:
1. each of the 7 eval-arena benchmarks read from the raw files
   (read + validate + matrix + leaderboard with all pairs), and the total
   (target ≤ 2.5 s; eval-arena's own analysis takes about 250 s on the same data);
2. a per-pair baseline measured in the same run — scipy's ``binomtest`` /
   ``ttest_rel`` called once per pair, the way a loop over pairs would do it —
   and the speed-up of the vectorised engine over it;
3. bootstrap means and ranks (1,000 paired resamples) against a per-resample loop
   that indexes the examples, the usual way to write a bootstrap, in the same run;
4. synthetic binary and numeric matrices of 200 × 5,000 and 500 × 10,000
   (targets ≤ 2 s and ≤ 10 s), each in a fresh process so its peak memory
   (max RSS, target ≤ 2 GB) is its own;
5. arena sizes: binary and numeric 1,000 systems × 1,000, 10,000 and
   100,000 examples (plus 250 and 500 systems × 10,000 to fit the growth in
   systems) through ``engine.leaderboard``, each in a child process that reports
   its time and peak RSS, next to an earlier code path in the same run — the
   groups, kernels and Bradley–Terry fits of an earlier commit (3a29752 by default)
   loaded from git into temporary modules and patched in — where it finishes within
   a time limit; then the growth
   exponents b, c of time ≈ a · k^b · n^c fitted by least squares on the grid (the
   grid runs without the rating bootstrap, which only runs up to 300 systems);
6. the leaderboard with its rating bootstrap (200 resamples) at 300 × 5,000, next to
   the earlier revision's fits;
7. (``--default-cost`` alone) the default leaderboard's CPU and peak memory — sandwich
   rating intervals, no bootstrap — at 300 and 1,000 × 100,000 numeric and
   1,000 × 100,000 binary, the last against the floor of reading the .npy file plus
   one float64 X·Xᵀ.

``--cases 1000x1000`` runs only those arena cells; ``--before REV`` (default the
commit before the arena-size groups and kernels) sets the revision timed next to today's, ``none`` skips it.

``--quick`` runs small grids (sections 4 and 5) for a smoke test.
"""

from __future__ import annotations

import argparse
import importlib.util
import multiprocessing as mp
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

import numpy as np
from scipy import stats

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engine import ScoreMatrix, bootstrap_ranks, build_matrix, leaderboard  # noqa: E402
from engine.io._readers import read_results  # noqa: E402

DATA = ROOT.parent / "shared" / "data" / "eval-arena"
FILES = ["humaneval+", "humaneval", "mbpp", "mbpp+", "cruxeval_input", "cruxeval_output",
         "lcb_codegen"]


def _eval_arena() -> float:
    t0 = time.perf_counter()
    leaderboard(build_matrix(read_results(DATA / "humaneval+.jsonl.gz")))
    print(f"warm-up (first call pays scipy/pyarrow lazy initialisation): "
          f"{time.perf_counter() - t0:.3f} s, not counted below")
    print("eval-arena (read raw file + leaderboard + all pairs):")
    total = 0.0
    for name in FILES:
        t0 = time.perf_counter()
        df = read_results(DATA / f"{name}.jsonl.gz")
        m = build_matrix(df)
        lb = leaderboard(m)
        dt = time.perf_counter() - t0
        total += dt
        print(f"  {name:16s} {m.n_systems:3d} × {m.n_examples:4d}  {lb.test:9s} "
              f"{len(lb.pairwise.table):5d} pairs  {len(lb.cliques):3d} cliques  {dt:6.3f} s")
    print(f"  total {total:.3f} s (target ≤ 2.5 s)")
    return total


def _per_pair_baseline(m: ScoreMatrix) -> float:
    """What a Python loop over pairs costs: one scipy call per pair."""
    x = m.paired_values()
    t0 = time.perf_counter()
    for i in range(m.n_systems):
        for j in range(i + 1, m.n_systems):
            if m.binary:
                b = int(((x[i] == 1) & (x[j] == 0)).sum())
                c = int(((x[i] == 0) & (x[j] == 1)).sum())
                stats.binomtest(b, b + c) if b + c else None
            else:
                stats.ttest_rel(x[i], x[j])
    return time.perf_counter() - t0


def _baseline() -> None:
    print("per-pair scipy loop vs vectorised engine (tests only, same run):")
    for name in ("humaneval+", "cruxeval_input"):
        m = build_matrix(read_results(DATA / f"{name}.jsonl.gz"))
        loop = _per_pair_baseline(m)
        t0 = time.perf_counter()
        leaderboard(m)
        fast = time.perf_counter() - t0
        print(f"  {name:16s} loop {loop:6.3f} s   engine leaderboard {fast:6.3f} s   "
              f"ratio {loop / fast:5.1f}×")


def _bootstrap_loop(x: np.ndarray, n_resamples: int, rng: np.random.Generator) -> np.ndarray:
    """Baseline: one index draw and one mean per resample, ranks by scipy per resample."""
    ranks = np.empty((n_resamples, len(x)), dtype=np.int64)
    for b in range(n_resamples):
        idx = rng.integers(0, x.shape[1], x.shape[1])
        ranks[b] = stats.rankdata(-x[:, idx].mean(axis=1), method="min")
    return ranks


def _best_of(repeats: int, run: Callable[[], object]) -> float:
    """Fastest of ``repeats`` timed calls (the first one also pays page faults and caches)."""
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        run()
        times.append(time.perf_counter() - t0)
    return min(times)


def _bootstrap() -> None:
    print("bootstrap means + ranks, 1,000 paired resamples, best of 3 "
          "(loop baseline in the same run):")
    for name in ("humaneval", "cruxeval_input", "lcb_codegen"):
        m = build_matrix(read_results(DATA / f"{name}.jsonl.gz"))
        loop = _best_of(3, partial(_bootstrap_loop, m.paired_values(), 1000,
                                   np.random.default_rng(0)))
        fast = _best_of(3, partial(bootstrap_ranks, m, n_resamples=1000, rng=0))
        print(f"  {name:16s} {m.n_systems:3d} × {m.n_examples:4d}  loop {loop:6.3f} s   "
              f"engine {fast:6.3f} s   speed-up {loop / fast:5.1f}×")


def _synthetic_case(args: tuple[int, int, bool, mp.Queue]) -> None:  # type: ignore[type-arg]
    s, e, binary, queue = args
    rng = np.random.default_rng(0)
    skill = rng.normal(0, 0.5, size=(s, 1))
    difficulty = rng.normal(0, 1, size=(1, e))
    logits = skill - difficulty + rng.normal(0, 1, size=(s, e))
    values = (logits > 0).astype(float) if binary else 1 / (1 + np.exp(-logits))
    systems = tuple(f"system-{i:03d}" for i in range(s))
    examples = tuple(f"ex-{j:05d}" for j in range(e))
    m = ScoreMatrix("synthetic", "score", systems, examples, values,
                    np.ones((s, e), dtype=int), True, binary, "full", np.ones(e, dtype=bool))
    t0 = time.perf_counter()
    lb = leaderboard(m)
    dt = time.perf_counter() - t0
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    queue.put((dt, peak_mb, len(lb.pairwise.table), lb.groups.complete))


def _synthetic(quick: bool) -> None:
    print("synthetic leaderboard + all pairs (fresh process each; peak = max RSS):")
    sizes = [(200, 5_000, 2.0)] + ([] if quick else [(500, 10_000, 10.0)])
    ctx = mp.get_context("spawn")
    for s, e, target in sizes:
        for binary in (True, False):
            queue = ctx.Queue()
            proc = ctx.Process(target=_synthetic_case, args=((s, e, binary, queue),))
            proc.start()
            dt, peak, pairs, complete = queue.get()
            proc.join()
            kind = "binary " if binary else "numeric"
            groups = "groups" if complete else "groups capped"
            print(f"  {s:3d} × {e:5d} {kind} {pairs:6d} pairs  {dt:6.2f} s (target ≤ {target:g} s)"
                  f"  peak {peak:7.0f} MB (target ≤ 2048)  {groups}")


# ------------------------------------------------------------------ arena sizes

BEFORE = "3a29752"  # the commit before the arena-size groups and kernels


def _load_before(name: str, folder: Path, rev: str = BEFORE) -> object:
    """engine/<name>.py as it was at ``rev``, imported as a stand-alone module."""
    source = subprocess.run(["git", "show", f"{rev}:engine/{name}.py"], cwd=ROOT, check=True,
                            capture_output=True, text=True).stdout
    path = folder / f"before{name}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(f"before{name}", path)
    assert spec is not None and spec.loader is not None  # a file we just wrote
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while decorating
    spec.loader.exec_module(module)
    return module


def _use_before(rev: str = BEFORE) -> None:
    """Patch today's leaderboard with the groups, kernels and Bradley–Terry fits of ``rev``."""
    import pandas as pd

    from engine.products import _leaderboard
    from engine.ranking import _groups
    from engine.stats import _kernels
    folder = Path(tempfile.mkdtemp())
    old_kernels = _load_before("_kernels", folder, rev)
    old_groups = _load_before("_groups", folder, rev)
    old_ranking = _load_before("_ranking", folder, rev)
    for name in ("bradley_terry", "bt_bootstrap"):
        if hasattr(old_ranking, name):  # 3a29752 had no bootstrap
            setattr(_leaderboard, name, getattr(old_ranking, name))
    for name in ("paired_t", "welch_t", "two_proportion_z", "win_matrix"):
        setattr(_kernels, name, getattr(old_kernels, name))
    old_find_groups = old_groups.find_groups  # type: ignore[attr-defined]

    def find_groups(systems: list[str], quality: list[float], pairs: object,
                    **options: object) -> object:
        # BEFORE's Groups lacks fields today's leaderboard reads (notes, n_cliques, …)
        g = old_find_groups(systems, quality, pairs, **options)
        listing = _groups._Listing(tuple(systems), np.zeros(len(systems)),
                                   np.zeros((0, 0), dtype=bool), None)
        today = _groups.Groups(g.letters, g.rank_low, g.rank_high, g.min_size,
                               _groups.MAX_CLIQUES, tuple(systems), pd.DataFrame(), listing)
        today.__dict__["_listed"] = (g.cliques, not g.complete, len(g.cliques))  # listed already
        return today

    _leaderboard.find_groups = find_groups  # type: ignore[attr-defined,assignment]


def _synthetic_matrix(s: int, e: int, binary: bool) -> ScoreMatrix:
    """Skill − difficulty + noise, generated a block of systems at a time (no full temporaries)."""
    rng = np.random.default_rng(0)
    skill = rng.normal(0, 0.5, size=s)
    difficulty = rng.normal(0, 1, size=e)
    values = np.empty((s, e))
    for start in range(0, s, 50):
        rows = slice(start, min(start + 50, s))
        logits = skill[rows, None] - difficulty[None, :] + rng.normal(0, 1, size=(rows.stop - start, e))
        values[rows] = (logits > 0) if binary else 1 / (1 + np.exp(-logits))
    systems = tuple(f"system-{i:04d}" for i in range(s))
    examples = tuple(f"ex-{j:06d}" for j in range(e))
    return ScoreMatrix("synthetic", "score", systems, examples, values,
                       np.ones((s, e), dtype=np.uint8), True, binary, "full",
                       np.ones(e, dtype=bool))


def _arena_case(args: tuple[int, int, bool, str | None, int, mp.Queue]  # type: ignore[type-arg]
                ) -> None:
    s, e, binary, before, resamples, queue = args
    if before:
        _use_before(before)
    m = _synthetic_matrix(s, e, binary)
    t0, c0 = time.perf_counter(), time.process_time()
    lb = leaderboard(m, bt_resamples=resamples)
    dt, cpu = time.perf_counter() - t0, time.process_time() - c0
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    groups = lb.groups
    queue.put((dt, peak_mb, getattr(groups, "n_cliques", len(groups.cliques)), groups.complete,
               cpu))


def _run_child(s: int, e: int, binary: bool, before: str | None, limit: float,
               resamples: int = 0) -> tuple[float, float, int, bool, float] | None:
    """Time and peak RSS of one leaderboard in a fresh process; None past ``limit`` seconds.

    ``resamples``: the rating bootstrap's (0 in the grid: it only runs up to 300 systems,
    so it would bend the growth in systems; timed on its own by :func:`_rating_bootstrap`).
    """
    ctx = mp.get_context("spawn")
    queue = ctx.Queue()
    proc = ctx.Process(target=_arena_case, args=((s, e, binary, before, resamples, queue),))
    proc.start()
    deadline = time.perf_counter() + limit
    while True:  # a child that dies is reported at once, not after the whole limit
        try:
            result: tuple[float, float, int, bool, float] = queue.get(timeout=1.0)
            break
        except Exception:  # queue.Empty
            if not proc.is_alive():  # it may have answered just before exiting
                try:
                    result = queue.get(timeout=2.0)
                    break
                except Exception:
                    pass
            if not proc.is_alive() or time.perf_counter() > deadline:
                proc.kill()
                proc.join()
                if proc.exitcode not in (0, -9):
                    print(f"  (child for {s} × {e} exited with code {proc.exitcode})")
                return None
    proc.join()
    return result


def _fit_exponents(rows: list[tuple[int, int, float]]) -> tuple[float, float]:
    """b, c of log t = log a + b log k + c log n (least squares)."""
    design = np.array([[1.0, np.log(k), np.log(n)] for k, n, _ in rows])
    coef, *_ = np.linalg.lstsq(design, np.log([t for *_, t in rows]), rcond=None)
    return float(coef[1]), float(coef[2])


def _arena(quick: bool, cases: list[tuple[int, int]] | None = None,
           kinds: tuple[bool, ...] = (True, False), before: str | None = BEFORE) -> None:
    if quick:
        grid = [(100, 1_000), (200, 1_000), (200, 4_000)]
        before_up_to, limit = 4_000, 60.0
    else:
        grid = [(1_000, 1_000), (1_000, 10_000), (1_000, 100_000), (250, 10_000), (500, 10_000)]
        before_up_to, limit = 10_000, 150.0
    grid = cases or grid
    if before is None:
        before_up_to = -1
    targets = {(1_000, 1_000): 2.0, (1_000, 10_000): 5.0, (1_000, 100_000): 20.0}
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores (times are wall "
          "clock; CPU = process time of the call, all threads)")
    then = ("no earlier revision timed" if before is None else
            f"before = {before}'s groups + kernels + Bradley–Terry, stopped after {limit:g} s, "
            f"run up to {before_up_to:,} examples")
    print(f"arena sizes through engine.leaderboard (child process each; peak = max RSS; "
          f"{then}):")
    for binary in kinds:
        kind = "binary " if binary else "numeric"
        timed: list[tuple[int, int, float]] = []
        timed_cpu: list[tuple[int, int, float]] = []
        for s, e in grid:
            now = _run_child(s, e, binary, None, 3 * limit)
            if now is None:
                print(f"  {kind} {s:5d} × {e:7,d}  did not finish in {3 * limit:g} s")
                continue
            dt, peak, n_cliques, complete, cpu = now
            timed.append((s, e, dt))
            timed_cpu.append((s, e, cpu))
            target = targets.get((s, e), 60.0 if (s, e) == (1_000, 100_000) else None)
            if not binary and (s, e) == (1_000, 100_000):
                target = 60.0
            aim = f"(target ≤ {target:g} s)" if target else ""
            line = (f"  {kind} {s:5d} × {e:7,d}  {dt:7.2f} s {aim:16s} (CPU {cpu:6.2f} s)  "
                    f"peak {peak:6.0f} MB "
                    f"(≤ 2048)  {n_cliques} cliques{'' if complete else ' (listing capped)'}")
            if e <= before_up_to:
                old = _run_child(s, e, binary, before, limit)
                line += (f"   before: did not finish in {limit:g} s" if old is None else
                         f"   before: {old[0]:7.2f} s (CPU {old[4]:6.2f} s), peak {old[1]:6.0f} MB"
                         f" ({old[4] / cpu:5.1f}× the CPU time)")
            elif before is not None:
                line += "   before: not run (> 3.5 GB at 500 × 100,000)"
            print(line, flush=True)
        if len(timed) >= 3:
            b, c = _fit_exponents(timed)
            bc, cc = _fit_exponents(timed_cpu)
            print(f"  {kind} growth: time ∝ k^{b:.2f} · n^{c:.2f} (CPU: k^{bc:.2f} · n^{cc:.2f}; "
                  f"fit on {len(timed)} cases)")


def _rating_bootstrap(before: str | None) -> None:
    """The leaderboard with its default rating bootstrap (200 resamples) at 300 × 5,000, the
    app's scale benchmark, next to ``before``'s fits in the same run."""
    print("leaderboard with the rating bootstrap (bt_resamples=200), 300 systems × 5,000 "
          "examples (child process each):")
    for binary in (True, False):
        kind = "binary " if binary else "numeric"
        now = _run_child(300, 5_000, binary, None, 600.0, resamples=200)
        if now is None:
            print(f"  {kind} did not finish in 600 s")
            continue
        line = f"  {kind} {now[0]:7.2f} s (CPU {now[4]:6.2f} s)  peak {now[1]:6.0f} MB"
        if before is not None:
            old = _run_child(300, 5_000, binary, before, 600.0, resamples=200)
            line += ("   before: did not finish in 600 s" if old is None else
                     f"   before: {old[0]:7.2f} s (CPU {old[4]:6.2f} s), peak {old[1]:6.0f} MB "
                     f"({old[4] / now[4]:5.1f}× the CPU time)")
        print(line, flush=True)


def _default_cost_case(args: tuple[int, int, bool, str, mp.Queue]) -> None:  # type: ignore[type-arg]
    """One default leaderboard from a .npy file (sandwich rating intervals where ≤ 300
    systems), or the floor: the same read plus one float64 X·Xᵀ; BLAS on one thread."""
    s, e, binary, what, queue = args
    from threadpoolctl import threadpool_limits  # type: ignore[import-untyped]

    path = Path(tempfile.gettempdir()) / f"sigboard_bench_{s}x{e}_{int(binary)}.npy"
    with threadpool_limits(limits=1, user_api="blas"):
        c0 = time.process_time()
        x = np.load(path)
        if what == "floor":
            x @ x.T
        else:
            leaderboard(ScoreMatrix.from_array(x))
        cpu = time.process_time() - c0
    queue.put((cpu, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024))


def _default_cost() -> None:
    """The default leaderboard's cost (rating intervals sandwich, no bootstrap),
    each case in a child process reading a .npy of the matrix; binary against the floor."""
    print("default leaderboard (sandwich rating intervals up to 300 systems; CPU, one BLAS "
          "thread, from a .npy file; child process each):")
    ctx = mp.get_context("spawn")
    for s, e, binary, target in ((300, 100_000, False, "≤ 10 s"), (1_000, 100_000, False, "≤ 8 s"),
                                 (1_000, 100_000, True, "≤ 2.5× floor, peak ≤ 1.5 GB")):
        path = Path(tempfile.gettempdir()) / f"sigboard_bench_{s}x{e}_{int(binary)}.npy"
        np.save(path, _synthetic_matrix(s, e, binary).values)
        runs = {}
        for what in ("leaderboard", "floor") if binary else ("leaderboard",):
            queue = ctx.Queue()
            proc = ctx.Process(target=_default_cost_case, args=((s, e, binary, what, queue),))
            proc.start()
            runs[what] = queue.get()
            proc.join()
        path.unlink()
        cpu, peak = runs["leaderboard"]
        line = (f"  {'binary ' if binary else 'numeric'} {s:5d} × {e:7,d}  CPU {cpu:6.2f} s  "
                f"peak {peak:6.0f} MB  (target {target})")
        if binary:
            floor, floor_peak = runs["floor"]
            line += f"  floor (read + X·Xᵀ) {floor:5.2f} s, peak {floor_peak:5.0f} MB: " \
                    f"{cpu / floor:4.2f}×"
        print(line, flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true",
                        help="small grids only (skips the 500 × 10,000 and arena-size cases)")
    parser.add_argument("--arena-only", action="store_true",
                        help="run only section 5 (arena sizes)")
    parser.add_argument("--cases", type=_cases, default=None, metavar="KxN[,KxN…]",
                        help="arena cells to run, e.g. 1000x1000 (implies --arena-only)")
    parser.add_argument("--kind", choices=("binary", "numeric", "both"), default="both",
                        help="arena scores to run (default both)")
    parser.add_argument("--before", default=BEFORE, metavar="REV",
                        help=f"revision whose groups, kernels and Bradley–Terry fits are timed "
                             f"next to today's (default {BEFORE}; 'none' skips them)")
    parser.add_argument("--default-cost", action="store_true",
                        help="run only the default leaderboard's cost")
    args = parser.parse_args()
    if args.default_cost:
        _default_cost()
        return
    if not (args.arena_only or args.cases):
        _eval_arena()
        _baseline()
        _bootstrap()
        _synthetic(args.quick)
    kinds = {"binary": (True,), "numeric": (False,), "both": (True, False)}[args.kind]
    before = None if args.before == "none" else args.before
    _arena(args.quick, args.cases, kinds, before)
    if not (args.quick or args.cases):
        _rating_bootstrap(before)


def _cases(text: str) -> list[tuple[int, int]]:
    """"1000x1000,1000x10000" → [(1000, 1000), (1000, 10000)]."""
    try:
        return [(int(k), int(n)) for k, n in (part.lower().split("x") for part in text.split(","))]
    except ValueError:
        raise argparse.ArgumentTypeError(f"--cases: systems x examples, comma-separated, e.g. "
                                         f"1000x1000,1000x10000; got {text!r}") from None


if __name__ == "__main__":
    main()
