"""AppTests of "where does my new run land?" (issue #16): after a commit the Upload page shows
the new system's row on each leaderboard it touched (rank range, group), the systems
significantly better and worse than it, and a link to the full leaderboard.

Synthetic store (6 systems, 3 benchmarks, pages_data_support.overall_frame) so the boards
are quick; the expected rows come from the engine's leaderboard of the same stored data.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from apptest_support import app, no_exception
from pages_data_support import overall_frame, store_env
from streamlit.testing.v1 import AppTest

from app.components.upload import significant_neighbours
from engine import build_matrix, leaderboard
from engine.app_support import md_text
from engine.store import open_store

NEW = "new-model"
HOSTILE = "<b>new</b> [x](http://e.test) | `m`"  # not in overall_frame: no conflict


@pytest.fixture
def store(tmp_path: Path) -> Path:  # a fresh store per test: each one commits
    with store_env(tmp_path / "sigboard.db", overall_frame()) as path:
        yield path


def new_run(system: str) -> bytes:
    """The new system on b1 (binary, strong) and b3/m1 (numeric, middling)."""
    rng = np.random.default_rng(5)
    rows = [("b1", system, f"e{i}", "pass1", float(rng.random() < 0.97)) for i in range(60)]
    rows += [("b3", system, f"e{i}", "m1", float(rng.normal(0.6, 0.2))) for i in range(40)]
    frame = pd.DataFrame(rows, columns=["benchmark", "system", "example_id", "metric", "value"])
    return frame.to_csv(index=False).encode()


def commit(system: str) -> AppTest:
    at = app("views/upload.py")
    at.file_uploader(key="upload_files").upload("new.csv", new_run(system),
                                                "application/octet-stream")
    at.run()
    [b for b in at.get("form_submit_button") if "Commit" in b.proto.label][0].click()
    return at.run()


@pytest.mark.slow
def test_new_system_rows_on_each_touched_leaderboard(store: Path) -> None:
    at = commit(NEW)
    no_exception(at)
    assert any("stored as upload" in s.value for s in at.success)
    assert any("Where the new results land" in m.value for m in at.markdown)
    stored = open_store(f"sqlite:///{store}").load_frame()
    shown = [d.value for d in at.dataframe if "better than it (sig.)" in d.value.columns]
    assert len(shown) == 2, "one row table per (benchmark, metric) touched"
    for rows, (bench, metric) in zip(shown, [("b1", "pass1"), ("b3", "m1")], strict=True):
        board = leaderboard(build_matrix(stored, benchmark=bench, metric=metric))
        want = board.table.set_index("system").loc[NEW]
        got = rows.set_index("system").loc[NEW]
        assert got["rank"] == want["rank"] and got["group"] == want["group"]
        lo, hi = int(want["rank_low"]), int(want["rank_high"])
        assert got["rank range"] == (f"{lo}–{hi}" if lo != hi else f"{lo}")
        assert got["mean"] == pytest.approx(want["mean"])
        better, worse = significant_neighbours(board, NEW)
        assert (got["better than it (sig.)"], got["worse than it (sig.)"]) == (len(better),
                                                                              len(worse))
    b1 = leaderboard(build_matrix(stored, benchmark="b1", metric="pass1"))
    better, worse = significant_neighbours(b1, NEW)
    assert not better and worse, "a 97% system is significantly ahead of some on b1"
    captions = " ".join(c.value for c in at.caption)
    assert "significantly better than: " + ", ".join(md_text(n) for n in worse) in captions
    links = [p.proto.label for p in at.get("page_link")]
    assert "Full leaderboard of b1 · pass1" in links and "Full leaderboard of b3 · m1" in links


def test_neighbours_follow_the_pairwise_tests() -> None:
    # Reference: a per-pair loop over the engine's pairwise table (difference = a − b).
    board = leaderboard(build_matrix(overall_frame(), benchmark="b1", metric="pass1"))
    t = board.pairwise.table
    for system in board.table["system"]:
        better, worse = significant_neighbours(board, system)
        want_better, want_worse = set(), set()
        for r in t.itertuples():
            if not r.significant or system not in (r.system_a, r.system_b):
                continue
            other = r.system_b if r.system_a == system else r.system_a
            ahead = (r.difference > 0) == (r.system_a == other)
            (want_better if ahead else want_worse).add(other)
        assert set(better) == want_better and set(worse) == want_worse
        assert not set(better) & set(worse)


@pytest.mark.slow
def test_hostile_system_name_stays_text(store: Path) -> None:
    at = commit(HOSTILE)
    no_exception(at)
    captions = [c.value for c in at.caption if "significantly" in c.value]
    assert len(captions) == 2 and all(HOSTILE not in c for c in captions)
    assert all(c.startswith(md_text(HOSTILE) + " — ") for c in captions)
    assert "\\<b\\>new" in captions[0] and "\\[x\\]\\(http" in captions[0]
    shown = [d.value for d in at.dataframe if "better than it (sig.)" in d.value.columns]
    assert HOSTILE in shown[0]["system"].tolist()  # the table shows the name as plain text
