"""Calibration of the Watch board's e-BH marks when the champion is chosen from the data.

The board (:func:`engine.products._watch_board.watch_board`) compares a champion with every
other system by confidence sequences and marks challengers by e-BH on their e-values. Per
replication, ``--systems`` systems (default 20) score 0/1 on ``--uploads`` uploads (default
4) of ``--per-upload`` examples (default 100); example difficulty on the logit scale is
N(0, 1.5²), shared by every system (as in ``calibrate_sequential.py``), and the system's
rate is expit(0.5 − z + shift) (``--scores normal``: the score is −z + shift + N(0, 1),
unbounded, the normal-mixture sequence). The sequences are the engine's own
(:func:`engine.stats._watch_many.watch_frames`, the Watch page's path) and the marks are
read once, after the last upload (e-BH holds at one stopping time, not across looks).

Rows printed, each over ``--reps`` replications (default 300):

* **chosen from the data, e-values as they are** — the best mean on the same results as
  champion and e-BH on the raw e-values: the rule the board had, kept for reference;
* **chosen from the data, board's rule** — the same champion, every e-value divided by the
  number of systems it could have been chosen from (:func:`selection_factor`);
* **fixed in advance** — the first system named as champion, raw e-values (its rule);
* **mixed** — half the systems (rounded down) better by ``--shift`` on the logit scale
  (default 0.5), the champion chosen from the data with the board's rule (and, for
  reference, without it); a false mark is a marked challenger whose true rate equals the
  champion's. Printed with the false-discovery rate and the power (share of the truly
  different challengers marked).

Every system being equal, any mark is false; "false-mark rate" is the share of
replications with at least one false mark, printed as rate ± its Monte Carlo standard error
(√(rate(1 − rate)/reps)). The rules in use must be ≤ alpha = 0.05 within 1.96 standard
errors; each row says ``ok`` or ``TOO HIGH``.

Run: ``.venv/bin/python benchmarks/calibrate_watch_champion.py [--reps 300] [--seed 0]``
"""

from __future__ import annotations

import argparse
import math
import time
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import special

from engine.products._watch_board import best_mean, champion_marks, selection_factor
from engine.stats._watch_many import watch_frames

ALPHA = 0.05


@dataclass(frozen=True)
class Design:
    """One simulated benchmark: systems, uploads and the better systems' logit shift."""

    systems: int = 20
    uploads: int = 4
    per_upload: int = 100
    shift: float = 0.0  # logit shift of the better half; 0 = every system equal
    scores: str = "binary"  # or "normal": unbounded scores, the normal-mixture sequence


def stream(rng: np.random.Generator, design: Design) -> tuple[pd.DataFrame, dict[str, float]]:
    """One replication's uploads (columns ``system, example_id, value, batch``) and each
    system's logit shift (the truth: equal shifts = equal systems)."""
    n = design.uploads * design.per_upload
    names = [f"s{i}" for i in range(design.systems)]
    better = design.systems // 2 if design.shift else 0
    shifts = {s: (design.shift if i < better else 0.0) for i, s in enumerate(names)}
    z = rng.normal(0.0, 1.5, n)
    batch = np.repeat(np.arange(1, design.uploads + 1), design.per_upload)
    examples = np.array([f"e{i}" for i in range(n)])

    def score(s: str) -> np.ndarray:
        if design.scores == "normal":  # difficulty plus the shift plus N(0, 1) noise
            return np.asarray(-z + shifts[s] + rng.normal(0.0, 1.0, n), dtype=np.float64)
        p = np.asarray(special.expit(0.5 - z + shifts[s]), dtype=np.float64)
        return (rng.random(n) < p).astype(np.float64)

    frames = [pd.DataFrame({"system": s, "example_id": examples, "batch": batch,
                            "value": score(s)}) for s in names]
    # rows in upload order (an upload holds every system's scores of its examples)
    frame = pd.concat(frames, ignore_index=True).sort_values("batch", kind="stable")
    return frame.reset_index(drop=True), shifts


def marks(frame: pd.DataFrame, champion: str, *, factor: float) -> tuple[list[str], np.ndarray]:
    """The challengers of ``champion`` and which of them e-BH marks, each e-value divided by
    ``factor``."""
    challengers = [s for s in frame["system"].unique() if s != champion]
    reports = watch_frames(frame, baseline=champion, candidates=challengers, benchmark="b",
                           metric="m", binary=None)
    return challengers, champion_marks([r.e_value for r in reports], factor=factor,
                                       alpha=ALPHA).rejected


@dataclass
class Tally:
    """Per replication: any false mark; false and total marks; true differences marked."""

    false_any: list[bool]
    fdp: list[float]
    power: list[float]

    def add(self, challengers: list[str], marked: np.ndarray, shifts: dict[str, float],
            champion: str) -> None:
        null = np.array([shifts[c] == shifts[champion] for c in challengers])
        false = int((marked & null).sum())
        self.false_any.append(false > 0)
        self.fdp.append(false / max(int(marked.sum()), 1))
        if (~null).any():
            self.power.append(float(marked[~null].mean()))


def simulate(reps: int, seed: int, design: Design, rules: tuple[str, ...]) -> dict[str, Tally]:
    """Tallies per rule over ``reps`` replications: ``"chosen raw"`` (best mean, raw
    e-values), ``"chosen"`` (best mean, the board's division), ``"fixed"`` (the first
    system named, raw e-values)."""
    rng = np.random.default_rng(seed)
    out = {r: Tally([], [], []) for r in rules}
    for _ in range(reps):
        frame, shifts = stream(rng, design)
        systems = [str(s) for s in frame["system"].unique()]
        if {"chosen", "chosen raw"} & set(rules):
            champ = best_mean(frame)
            challengers = [s for s in systems if s != champ]
            reports = watch_frames(frame, baseline=champ, candidates=challengers,
                                   benchmark="b", metric="m", binary=None)
            e = [r.e_value for r in reports]
            factor = selection_factor(systems, None, champ)
            for rule, f in (("chosen raw", 1.0), ("chosen", factor)):
                if rule in rules:
                    got = champion_marks(e, factor=f, alpha=ALPHA).rejected
                    out[rule].add(challengers, got, shifts, champ)
        if "fixed" in rules:
            challengers, got = marks(frame, systems[0], factor=1.0)
            out["fixed"].add(challengers, got, shifts, systems[0])
    return out


def rate(hits: list[bool]) -> tuple[float, float]:
    """The share of replications and its Monte Carlo standard error."""
    r = float(np.mean(hits))
    return r, math.sqrt(r * (1 - r) / len(hits))


def _row(label: str, tally: Tally, *, judged: bool) -> str:
    r, se = rate(tally.false_any)
    verdict = ("ok" if r <= ALPHA + 1.96 * se else "TOO HIGH") if judged else "reference"
    text = f"  {label:<52} false-mark rate {r:.3f} ± {se:.3f} (MC SE)  {verdict}"
    if tally.power:
        text += f"; FDR {float(np.mean(tally.fdp)):.3f}, power {float(np.mean(tally.power)):.3f}"
    return text


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=300)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--systems", type=int, default=20)
    parser.add_argument("--uploads", type=int, default=4)
    parser.add_argument("--per-upload", type=int, default=100)
    parser.add_argument("--shift", type=float, default=0.5)
    parser.add_argument("--scores", choices=["binary", "normal"], default="binary")
    args = parser.parse_args()
    null = Design(args.systems, args.uploads, args.per_upload, 0.0, args.scores)
    mixed = Design(args.systems, args.uploads, args.per_upload, args.shift, args.scores)
    start = time.perf_counter()
    print(f"{args.reps} replications, {args.systems} systems, {args.uploads} uploads × "
          f"{args.per_upload} examples ({args.scores} scores), alpha = {ALPHA}; marks read "
          "after the last upload")
    print("null (every system equal):")
    got = simulate(args.reps, args.seed, null, ("chosen raw", "chosen", "fixed"))
    print(_row("champion chosen from the data, e-values as they are", got["chosen raw"],
               judged=False))
    print(_row("champion chosen from the data, board's rule (÷ K)", got["chosen"], judged=True))
    print(_row("champion fixed in advance (named)", got["fixed"], judged=True))
    print(f"mixed ({args.systems // 2} of {args.systems} systems better by {args.shift:g} "
          "logit):")
    got = simulate(args.reps, args.seed + 1, mixed, ("chosen raw", "chosen", "fixed"))
    print(_row("champion chosen from the data, e-values as they are", got["chosen raw"],
               judged=False))
    print(_row("champion chosen from the data, board's rule (÷ K)", got["chosen"], judged=True))
    print(_row("champion fixed in advance (named, a better system)", got["fixed"],
               judged=True))
    print(f"({time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main()
