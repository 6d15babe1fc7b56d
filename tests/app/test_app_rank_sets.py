"""AppTests of the rank confidence sets on the pages (issue #29 item 2), on the bundled demo
store (HumanEval, ``db`` fixture): the Leaderboard, Distributions and Mechanisms pages show
the same set, the engine's :func:`engine.rank_sets_of` of the same matrix (reference: the
engine on the same data, itself checked against the csranks vignette in
tests/engine/test_rank_sets.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from apptest_support import app, html_frame, no_exception

from engine import best_set_sentence, build_matrix, rank_sets_of
from engine.store import open_store


def _sets(db: Path):  # type: ignore[no-untyped-def]
    frame = open_store(f"sqlite:///{db}").load_frame()
    return rank_sets_of(build_matrix(frame, benchmark="humaneval", metric="pass1"))


def test_leaderboard_says_which_systems_may_be_best(db: Path) -> None:
    at = app("views/leaderboard.py", benchmark="humaneval")
    no_exception(at)
    expected = best_set_sentence(_sets(db))
    assert any(c.value.replace("\\", "") == expected for c in at.caption)


def test_distributions_table_has_the_rank_sets(db: Path) -> None:
    at = app("views/distributions.py", benchmark="humaneval", boot="200")
    no_exception(at)
    shown = html_frame(at, "bootstrap summary").set_index("system")
    sets = _sets(db).table.set_index("system")
    for system, row in sets.iterrows():
        assert int(shown.loc[system, "rank set best"]) == row["rank_set_low"]
        assert int(shown.loc[system, "rank set worst"]) == row["rank_set_high"]
    assert any("*Rank set*" in c.value and "different question" in c.value for c in at.caption)


@pytest.mark.slow
def test_mechanisms_names_the_same_best_set(db: Path) -> None:
    at = app("views/mechanisms.py", benchmark="humaneval")
    no_exception(at)
    expected = best_set_sentence(_sets(db))
    assert any(c.value.replace("\\", "").startswith(expected) for c in at.caption)
