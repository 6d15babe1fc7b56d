"""Frames for the results-store tests (a helper module, not a test module).

Shared by ``tests/engine/store/test_store.py`` and ``tests/engine/store/test_store_history.py``:
small long tables whose stored content is known by construction, and the order-free
form in which a stored table is compared with what was imported.
"""

from __future__ import annotations

import numpy as np
import pandas as pd


def grid(systems: list[str], examples: int, *, bench: str = "b", metric: str = "acc",
         seed: int = 0, binary: bool = True) -> pd.DataFrame:
    """Every system scored on ``examples`` examples ``ex0``, ``ex1``, …: 0/1 scores (a fair
    coin) when ``binary``, else uniform on [0, 1), drawn from ``seed``."""
    rng = np.random.default_rng(seed)
    rows = [(bench, s, f"ex{e}", metric) for s in systems for e in range(examples)]
    df = pd.DataFrame(rows, columns=["benchmark", "system", "example_id", "metric"])
    df["value"] = (rng.random(len(df)) < 0.5).astype(float) if binary else rng.random(len(df))
    return df


def canon(df: pd.DataFrame) -> pd.DataFrame:
    """The key columns as text, ``run`` (0 when absent) and ``value``, sorted by the key."""
    cols = ["benchmark", "system", "example_id", "metric", "run", "value"]
    out = df.assign(run=df["run"] if "run" in df.columns else 0)[cols]
    return out.astype({c: str for c in cols[:4]}).sort_values(cols[:5]).reset_index(drop=True)
