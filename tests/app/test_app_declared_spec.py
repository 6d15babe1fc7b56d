"""A metric's declared definition wins over detection on the pages (issue #11, defect 1).

0/1 values declared numeric at upload are tested as numbers (paired t), not as
binary outcomes (McNemar); undeclared, the same values are detected as binary.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from apptest_support import app, no_exception

from engine import MetricSpec
from engine.store import open_store

# every test here takes seconds: ./scripts/test.sh --fast leaves them out
pytestmark = pytest.mark.slow


def _zero_one(benchmark: str) -> pd.DataFrame:
    rows = [{"benchmark": benchmark, "system": f"s{k}", "example_id": f"e{j}", "metric": "acc",
             "value": float((j * (k + 2)) % 3 == 0)} for k in range(4) for j in range(40)]
    return pd.DataFrame(rows)


def _store(db: Path, benchmark: str, spec: MetricSpec | None) -> None:
    store = open_store(f"sqlite:///{db}")
    metrics = {(benchmark, "acc"): spec} if spec is not None else None
    store.import_frame(_zero_one(benchmark), filename=f"{benchmark}.csv", metrics=metrics)
    store.close()


@pytest.mark.parametrize(("spec", "shown", "absent"), [
    (MetricSpec(binary=False), "**paired t** (paired)", "McNemar"),
    (None, "**exact McNemar** (paired)", "paired t"),
])
def test_declared_modality_picks_the_test(db: Path, spec: MetricSpec | None, shown: str,
                                          absent: str) -> None:
    _store(db, "zero-one", spec)
    pairwise = app("views/pairwise.py", benchmark="zero-one")
    no_exception(pairwise)
    # the test's name is in the plain sentence's tooltip (#27: test names one hover away)
    described = next(m.proto.help for m in pairwise.markdown if "cannot be told apart" in m.value)
    assert shown in described and absent not in described
    assert described.count("McNemar") <= 1, "the test is named once"
    board = app("views/leaderboard.py", benchmark="zero-one")
    no_exception(board)
    assert any(shown in c.proto.help for c in board.caption)
