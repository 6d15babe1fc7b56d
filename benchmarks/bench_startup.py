"""Start-up against a script: each CLI command beside the minimal pandas + scipy script that
computes the same statistic, end to end in fresh processes, and the battle path in process.

Cases (every process with one BLAS/OpenMP thread, the cases interleaved within each round so
the shared machine's load touches them alike; one warm-up round, then ``--repeats`` rounds;
medians):

* ``compare``: ``sigboard compare`` of two systems on a 5-run × 10,000-example JSON Lines file
  against a script that reads it with pandas, averages each example's runs and runs the
  paired t-test (``scipy.stats.ttest_rel``) and its interval;
* ``leaderboard``: ``sigboard leaderboard data/humaneval+.jsonl.gz`` against a script that
  reads it, computes each system's mean and t interval and every pair's paired t-test with
  Holm's correction;
* ``seven leaderboards``: the same on seven of the demo files, one process each, summed.

Bytecode is written (``PYTHONDONTWRITEBYTECODE`` dropped): an installed sigboard has its
``.pyc`` files, as the libraries have theirs; the warm-up round writes them.

``ratio`` is script time / sigboard time (≥ 1: sigboard is no slower than the script).

The battle path (``--battles N``, default 1,000,000): from a DataFrame of N battles,
``read_battles`` + ``pair_counts`` + ``bradley_terry`` against evalica's integer path
(``evalica.bradley_terry`` on integer-coded pairs) when evalica is installed, else against
``np.bincount`` + a plain MM Bradley–Terry (Hunter 2004, Ann. Statist. 32:384–406, eq. 3)
written here (both when evalica is installed). Each side starts from the same DataFrame
of strings and ends with one strength per model: evalica's time includes turning the
winner words into its ``Winner`` values and the names into integer codes, as a user's
code would. Wall times of 5 interleaved rounds after a warm-up call each; ``ratio`` is
the baseline's best time / sigboard's (≥ 1: sigboard is no slower); the strength gap
is the largest difference of the sum-one strengths, a check that all compute the same fit.

Usage: ``.venv/bin/python benchmarks/bench_startup.py [--repeats 5] [--battles 1000000]
[--skip-cli] [--skip-battles] [--engine DIR] [--before DIR] [--evalica-path DIR]``.
``--evalica-path``: a folder holding evalica outside the project's requirements (``pip install
--no-deps --target DIR evalica``; it needs only numpy, pandas and scipy). Prints figures and
the load average; asserts nothing.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ONE_THREAD = {k: "1" for k in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
                               "NUMEXPR_NUM_THREADS", "NUMBA_NUM_THREADS")}
os.environ.update(ONE_THREAD)  # before numpy loads its BLAS: this process too has one thread

import numpy as np  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "data"
SEVEN = ("humaneval+", "humaneval", "mbpp+", "mbpp", "cruxeval_input", "cruxeval_output",
         "lcb_codegen")

COMPARE_SCRIPT = """
import sys
import pandas as pd
from scipy import stats
df = pd.read_json(sys.argv[1], lines=True)
df = df[df["system"].isin([sys.argv[2], sys.argv[3]])]
means = df.groupby(["system", "example_id"])["value"].mean().unstack(0).dropna()
a, b = means[sys.argv[2]].to_numpy(), means[sys.argv[3]].to_numpy()
test = stats.ttest_rel(b, a)
low, high = test.confidence_interval(0.95)
print(f"diff {(b - a).mean():.4f} [{low:.4f}, {high:.4f}] p={test.pvalue:.3g}")
sys.exit(int(test.pvalue < 0.05 and high < 0))
"""

LEADERBOARD_SCRIPT = """
import sys, itertools
import numpy as np, pandas as pd
from scipy import stats
df = pd.read_json(sys.argv[1], lines=True)
who = "system" if "system" in df else "model"  # the demo files: model, example_id, pass1
value = "value" if "value" in df else "pass1"
wide = df.groupby([who, "example_id"])[value].mean().unstack(0).dropna()
n = len(wide)
mean, se = wide.mean(), wide.std(ddof=1) / np.sqrt(n)
half = stats.t.ppf(0.975, n - 1) * se
pairs = list(itertools.combinations(wide.columns, 2))
p = np.array([stats.ttest_rel(wide[x], wide[y]).pvalue for x, y in pairs])
order = np.argsort(p)
holm = np.maximum.accumulate(np.minimum(1, p[order] * (len(p) - np.arange(len(p)))))
adj = np.empty_like(p); adj[order] = holm
for s in mean.sort_values(ascending=False).index:
    print(f"{s:40} {mean[s]:.4f} [{mean[s] - half[s]:.4f}, {mean[s] + half[s]:.4f}]")
print(f"{(adj < 0.05).sum()} of {len(p)} pairs significant")
"""


def load() -> str:
    """The 1-, 5- and 15-minute load averages."""
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f}, {five:.2f}, {fifteen:.2f}"


def runs_file(folder: Path, *, runs: int = 5, examples: int = 10_000, seed: int = 0) -> Path:
    """Two systems × ``examples`` × ``runs`` binary scores as JSON Lines."""
    rng = np.random.default_rng(seed)
    path = folder / "runs.jsonl"
    with path.open("w") as out:
        for system, p in (("base", 0.60), ("cand", 0.61)):
            skill = rng.beta(2, 2, examples) * 0.4 + p - 0.2
            for run in range(runs):
                hits = rng.random(examples) < skill
                for i in range(examples):
                    out.write(json.dumps({"benchmark": "b", "system": system,
                                          "example_id": f"e{i}", "metric": "pass",
                                          "run": run, "value": int(hits[i])}) + "\n")
    return path


def unzipped(folder: Path, name: str) -> Path:
    """A demo file un-gzipped (the scripts' pandas.read_json reads it like sigboard)."""
    path = folder / f"{name}.jsonl"
    path.write_bytes(gzip.decompress((DATA / f"{name}.jsonl.gz").read_bytes()))
    return path


def cases(folder: Path) -> dict[str, list[list[str]]]:
    """Each case: the argv lists of the processes it runs (timed together)."""
    runs = str(runs_file(folder))
    compare = folder / "compare.py"
    compare.write_text(COMPARE_SCRIPT)
    board = folder / "leaderboard.py"
    board.write_text(LEADERBOARD_SCRIPT)
    seven = [str(DATA / f"{name}.jsonl.gz") for name in SEVEN]
    py = sys.executable
    return {
        "sigboard compare": [[py, "-m", "engine", "compare", runs, "--baseline", "base",
                              "--candidate", "cand"]],
        "script compare": [[py, str(compare), runs, "base", "cand"]],
        "sigboard leaderboard": [[py, "-m", "engine", "leaderboard", seven[0]]],
        "script leaderboard": [[py, str(board), seven[0]]],
        "sigboard seven leaderboards": [[py, "-m", "engine", "leaderboard", f] for f in seven],
        "script seven leaderboards": [[py, str(board), f] for f in seven],
    }


def run_case(argvs: list[list[str]], env: dict[str, str], cwd: Path) -> float:
    """Wall seconds of the case's processes, one after the other (a script must exit 0;
    sigboard 0, or 1 for a verdict)."""
    start = time.perf_counter()
    for argv in argvs:
        done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, check=False)
        if done.returncode not in ((0, 1) if "engine" in argv[:3] else (0,)):
            raise SystemExit(f"{' '.join(argv)} failed ({done.returncode}): "
                             f"{done.stderr.decode()[-800:]}")
    return time.perf_counter() - start


def cli(repeats: int, engine: Path, before: Path | None) -> None:
    # bytecode written as pip writes it at install (PYTHONDONTWRITEBYTECODE would make every
    # sigboard process compile its ~230 modules again, the libraries' bytecode being there)
    base = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    roots = {"sigboard": engine, **({"before": before} if before else {})}
    with tempfile.TemporaryDirectory(prefix="sigboard-startup-") as tmp:
        todo: dict[str, tuple[list[list[str]], Path]] = {}
        for name, argvs in cases(Path(tmp)).items():
            if name.startswith("sigboard"):
                for who, root in roots.items():
                    todo[name.replace("sigboard", who, 1)] = (argvs, root)
            else:
                todo[name] = (argvs, engine)
        times: dict[str, list[float]] = {name: [] for name in todo}
        for round_ in range(repeats + 1):
            for name, (argvs, root) in todo.items():
                env = {**base, **ONE_THREAD, "PYTHONPATH": str(root)}
                elapsed = run_case(argvs, env, root)
                if round_:
                    times[name].append(elapsed)
    median = {name: statistics.median(t) for name, t in times.items()}
    print(f"sigboard from {engine}" + (f", before: {before}" if before else ""))
    print(f"CLI against a script, medians of {repeats} interleaved rounds, one BLAS thread "
          f"({load()} at the end)")
    print(f"{'command':22} {'sigboard s':>10} {'script s':>9} {'ratio':>6}"
          + (f" {'before s':>9} {'ratio':>6}" if before else ""))
    for what in ("compare", "leaderboard", "seven leaderboards"):
        ours, theirs = median[f"sigboard {what}"], median[f"script {what}"]
        row = f"{what:22} {ours:>10.3f} {theirs:>9.3f} {theirs / ours:>6.2f}"
        if before:
            old = median[f"before {what}"]
            row += f" {old:>9.3f} {theirs / old:>6.2f}"
        print(row)


# --------------------------------------------------------------------------- battles


def battle_frame(n: int, systems: int = 100, seed: int = 1):  # type: ignore[no-untyped-def]
    """``n`` battles among ``systems`` models with arena-like skill and 10% ties."""
    import pandas as pd

    rng = np.random.default_rng(seed)
    skill = rng.normal(0, 1, systems)
    a = rng.integers(0, systems, n)
    b = (a + rng.integers(1, systems, n)) % systems
    p = 1 / (1 + np.exp(skill[b] - skill[a]))
    u = rng.random(n)
    winner = np.where(u < 0.1, "tie", np.where(u < 0.1 + 0.9 * p, "model_a", "model_b"))
    names = np.array([f"model-{i:03d}" for i in range(systems)], dtype=object)
    return pd.DataFrame({"model_a": names[a], "model_b": names[b], "winner": winner})


def sigboard_battles(frame: Any) -> tuple[tuple[str, ...], np.ndarray]:
    from engine.io._battles import read_battles
    from engine.ranking._arena import pair_counts
    from engine.ranking._bradley_terry import bradley_terry

    counts = pair_counts(read_battles(frame))
    return counts.systems, bradley_terry(counts.wins, None, tie_counts=counts.ties).strength


def plain_mm(frame: Any, tol: float = 1e-10, max_iter: int = 100_000,
             ) -> tuple[tuple[str, ...], np.ndarray]:
    """np.bincount of the factorised pairs + Zermelo/Hunter's MM, ties half a win each."""
    import pandas as pd

    codes, names = pd.factorize(pd.concat([frame["model_a"], frame["model_b"]],
                                          ignore_index=True))
    n, s = len(frame), len(names)
    a, b = codes[:n], codes[n:]
    score = frame["winner"].map({"model_a": 1.0, "model_b": 0.0, "tie": 0.5}).to_numpy()
    credit = (np.bincount(a * s + b, score, s * s)
              + np.bincount(b * s + a, 1 - score, s * s)).reshape(s, s)
    games = credit + credit.T
    p = np.full(s, 1.0 / s)
    for _ in range(max_iter):
        new = credit.sum(1) / (games / (p[:, None] + p[None, :])).sum(1)
        new /= new.sum()
        if np.abs(new - p).max() < tol:
            return tuple(names), new
        p = new
    return tuple(names), p


def evalica_path(frame: Any) -> tuple[tuple[str, ...], np.ndarray]:
    import evalica  # type: ignore[import-not-found, unused-ignore]
    import pandas as pd

    codes, names = pd.factorize(pd.concat([frame["model_a"], frame["model_b"]],
                                          ignore_index=True))
    n = len(frame)
    winners = frame["winner"].map({"model_a": evalica.Winner.X, "model_b": evalica.Winner.Y,
                                   "tie": evalica.Winner.Draw}).tolist()
    # evalica's index is a pandas Index (a range is refused); its scores come sorted by
    # value, so back to code order
    got = evalica.bradley_terry(codes[:n], codes[n:], winners, index=pd.RangeIndex(len(names)))
    return tuple(names), got.scores.sort_index().to_numpy()


def interleaved(fns: dict[str, Callable[[], object]], rounds: int = 5
                ) -> dict[str, list[float]]:
    """Wall seconds of each call, the calls alternating within each round (the shared
    machine's load touches them alike), after one untimed warm-up call each."""
    for fn in fns.values():
        fn()
    times: dict[str, list[float]] = {label: [] for label in fns}
    for _ in range(rounds):
        for label, fn in fns.items():
            start = time.perf_counter()
            fn()
            times[label].append(time.perf_counter() - start)
    return times


def battles(n: int, rounds: int = 5) -> None:
    import functools
    import importlib.util

    frame = battle_frame(n)
    others: dict[str, Callable[[Any], tuple[tuple[str, ...], np.ndarray]]] = {
        "np.bincount + MM": plain_mm}
    if importlib.util.find_spec("evalica") is not None:
        others = {"evalica integer path": evalica_path, **others}
    names, ours = sigboard_battles(frame)
    gaps = {}
    for label, fn in others.items():
        theirs = dict(zip(*fn(frame), strict=True))
        total = sum(theirs.values())
        gaps[label] = max(abs(theirs[m] / total - v) for m, v in zip(names, ours, strict=True))
    ours_label = "read_battles + pair_counts + bradley_terry"
    times = interleaved({ours_label: lambda: sigboard_battles(frame),
                         **{label: functools.partial(fn, frame) for label, fn in others.items()}},
                        rounds)
    best = {label: min(t) for label, t in times.items()}
    middle = {label: statistics.median(t) for label, t in times.items()}
    print(f"\nbattle path on {n:,} battles among {len(names)} models, {rounds} interleaved "
          f"rounds after a warm-up ({load()} at the end)")
    print(f"{'':44} {'best ms':>8} {'median ms':>10} {'ratio':>6}")
    print(f"{ours_label:44} {best[ours_label] * 1000:>8.0f} {middle[ours_label] * 1000:>10.0f}")
    for label in others:
        print(f"{label:44} {best[label] * 1000:>8.0f} {middle[label] * 1000:>10.0f} "
              f"{best[label] / best[ours_label]:>6.2f}   max |strength gap| {gaps[label]:.1e}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--battles", type=int, default=1_000_000)
    parser.add_argument("--skip-cli", action="store_true")
    parser.add_argument("--skip-battles", action="store_true")
    parser.add_argument("--before", type=Path, default=None,
                        help="also run the engine/ in this folder, interleaved (e.g. `git "
                        "archive OLD engine | tar -x -C DIR`)")
    parser.add_argument("--engine", type=Path, default=ROOT,
                        help="the folder holding the engine/ to run (e.g. `git archive` of "
                        "an older commit unpacked; default: this checkout)")
    parser.add_argument("--evalica-path", type=Path, default=None,
                        help="a folder holding evalica (e.g. `pip install --no-deps --target "
                        "DIR evalica`), searched first for the battle path's comparison")
    args = parser.parse_args()
    if args.evalica_path is not None:
        sys.path.insert(0, str(args.evalica_path.resolve()))
    if not args.skip_cli:
        cli(args.repeats, args.engine.resolve(), args.before.resolve() if args.before else None)
    if not args.skip_battles:
        # the engine of --engine in this process too (not whatever an editable install
        # of sigboard points at)
        sys.path.insert(0, str(args.engine.resolve()))
        battles(args.battles)


if __name__ == "__main__":
    main()
