"""Small synthetic stores for the Overall, Mechanisms and Compare AppTests (a helper module).

Synthetic data keep those tests fast (the demo store's 190 systems make the
overall leaderboard and the battle replays take seconds); the values are drawn
from a seeded generator, so every run sees the same store.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from engine.store import open_store

XSS = "<img src=x onerror=alert(1)>"


def overall_frame() -> pd.DataFrame:
    """Three benchmarks: b1 and b2 binary (sys-f missing on b2), b3 with two numeric metrics."""
    g = np.random.default_rng(7)
    rows = []
    quality = {"sys-a": 0.85, "sys-b": 0.7, "sys-c": 0.55, "sys-d": 0.4, XSS: 0.5, "sys-f": 0.3}
    for bench, n in (("b1", 60), ("b2", 50), ("b3", 40)):
        for system, q in quality.items():
            if bench == "b2" and system == "sys-f":
                continue
            for i in range(n):
                if bench == "b3":
                    rows.append((bench, system, f"e{i}", "m1", float(g.normal(q, 0.2))))
                    rows.append((bench, system, f"e{i}", "m2", float(g.normal(q, 0.3))))
                else:
                    rows.append((bench, system, f"e{i}", "pass1", float(g.random() < q)))
    return pd.DataFrame(rows, columns=["benchmark", "system", "example_id", "metric", "value"])


def mechanisms_frame() -> pd.DataFrame:
    """One binary benchmark, 7 systems × 60 examples: enough battles, a few seconds at most."""
    g = np.random.default_rng(11)
    difficulty = g.random(60)
    rows = [("mech", f"m{k}", f"e{i}", "pass1", float(g.random() < q * (1.2 - difficulty[i])))
            for k, q in enumerate([0.9, 0.8, 0.75, 0.6, 0.5, 0.45, 0.3]) for i in range(60)]
    return pd.DataFrame(rows, columns=["benchmark", "system", "example_id", "metric", "value"])


def compare_frame() -> pd.DataFrame:
    """One numeric benchmark, 3 systems × 48 examples × 3 runs, examples in 6 families."""
    g = np.random.default_rng(3)
    level = g.normal(0.5, 0.15, 48)
    rows = []
    for system, shift in (("base-model", 0.0), ("cand-model", 0.08), ("other-model", -0.05)):
        for run in range(3):
            sweep = g.normal(0, 0.01)
            for i in range(48):
                rows.append(("ab", system, f"x{i}", "score",
                             float(level[i] + shift + sweep + g.normal(0, 0.1)), run,
                             f"family-{i % 6}"))
    return pd.DataFrame(rows, columns=["benchmark", "system", "example_id", "metric", "value",
                                       "run", "family"])


@contextmanager
def store_env(path: Path, frame: pd.DataFrame) -> Iterator[Path]:
    """A store at ``path`` holding only ``frame`` (no demo data), named by the app's env."""
    store = open_store(f"sqlite:///{path}")
    store.import_frame(frame, filename="synthetic.csv")
    store.close()
    with pytest.MonkeyPatch.context() as mp:
        for name in ("SIGBOARD_DB_URL", "SIGBOARD_UPLOAD_TOKEN", "SIGBOARD_UPLOAD_ALLOW"):
            mp.delenv(name, raising=False)
        mp.setenv("SIGBOARD_DB_PATH", str(path))
        yield path


def judged_wide(seed: int = 0) -> pd.DataFrame:
    """4 systems x 400 examples: a judge score beside human labels on 15% of the examples
    (the Judge pages' AppTests)."""
    rng = np.random.default_rng(seed)
    s, e = 4, 400
    h = np.linspace(60, 70, s)[:, None] + rng.normal(0, 20, (s, e))
    j = h + np.array([5.0, 0.0, -3.0, 2.0])[:, None] + rng.normal(0, 8, (s, e))
    lab = np.broadcast_to(rng.random(e) < 0.15, (s, e))
    return pd.DataFrame({"benchmark": "judged", "system": np.repeat([f"s{i}" for i in range(s)], e),
                         "example_id": np.tile([f"e{k}" for k in range(e)], s),
                         "judge_score": j.ravel(), "human_score": np.where(lab, h, np.nan).ravel()})
