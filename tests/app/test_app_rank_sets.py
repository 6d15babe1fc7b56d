"""AppTests of the rank confidence sets on the pages (issue #29 item 2), on the bundled demo
store (HumanEval, ``db`` fixture): the Leaderboard, Overall, Distributions and Mechanisms
pages show one rank set per system, the engine's :func:`engine.rank_sets_of` of the same
matrix (reference: the engine on the same data, itself checked against the csranks vignette
in tests/engine/ranking/test_rank_sets.py), and the headline names the confidence set for the best."""

from __future__ import annotations

from pathlib import Path

import pytest
from apptest_support import app, html_frame, no_exception
from streamlit.testing.v1 import AppTest

from app.rank_span import span_text
from engine import build_matrix, rank_sets_of
from engine.app_support import best_set_sentence
from engine.results import RankSets
from engine.store import open_store


def _sets(db: Path) -> RankSets:
    frame = open_store(f"sqlite:///{db}").load_frame()
    return rank_sets_of(build_matrix(frame, benchmark="humaneval", metric="pass1"))


def _expected(db: Path) -> dict[str, str]:
    t = _sets(db).table
    return {str(s): span_text(lo, hi) for s, lo, hi in
            zip(t["system"], t["rank_set_low"], t["rank_set_high"], strict=True)}


def _column(at: AppTest, label: str, column: str) -> dict[str, str]:
    shown = html_frame(at, label)
    return dict(zip(shown["system"].astype(str), shown[column].astype(str), strict=True))


@pytest.mark.slow
def test_leaderboard_headline_says_which_systems_may_be_best(db: Path) -> None:
    at = app("views/leaderboard.py", benchmark="humaneval")
    no_exception(at)
    expected = best_set_sentence(_sets(db), cite=False)
    assert any(m.value.replace("\\", "").strip("*").endswith(expected) for m in at.markdown)


@pytest.mark.slow
def test_leaderboard_rank_range_is_the_rank_set(db: Path) -> None:
    at = app("views/leaderboard.py", benchmark="humaneval")
    no_exception(at)
    assert _column(at, "leaderboard", "rank range") == _expected(db)
    shaded = set(_sets(db).best_set)
    body = next(h.proto.body for h in at.get("html") if 'aria-label="leaderboard"' in h.proto.body)
    assert body.count('class="top"') == len(shaded)  # shaded: the set for the best


@pytest.mark.slow
def test_overall_rank_range_is_the_rank_set(db: Path) -> None:
    # one benchmark: the overall score is the mean in percent, so its rank sets are the
    # leaderboard's (tests/engine/ranking/test_rank_sets.py checks the JSON the same way)
    at = app("views/overall.py", bench="humaneval")
    no_exception(at)
    shown = _column(at, "overall", "rank range")
    expected = _expected(db)
    assert {s: shown[s] for s in expected} == expected


@pytest.mark.slow
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
def test_mechanisms_shows_the_same_rank_set(db: Path) -> None:
    at = app("views/mechanisms.py", benchmark="humaneval")
    no_exception(at)
    expected = best_set_sentence(_sets(db))
    assert any(c.value.replace("\\", "").startswith(expected) for c in at.caption)
    assert _column(at, "mechanisms", "rank range (leaderboard)") == _expected(db)


def test_leaderboard_says_when_a_benchmark_cannot_separate_any_pair(db: Path) -> None:
    # issue #26 item 5: 3 systems on 4 paired 0/1 examples: exact McNemar's smallest p is
    # 2 * 0.5**4 = 0.125 > 0.05 (engine.stats._resolution), so no pair can be significant
    import pandas as pd

    rows = [{"benchmark": "tiny", "system": s, "example_id": f"e{i}", "metric": "acc",
             "value": float(v)}
            for s, values in {"A": [1, 1, 1, 1], "B": [0, 0, 0, 0], "C": [1, 0, 1, 0]}.items()
            for i, v in enumerate(values)]
    store = open_store(f"sqlite:///{db}")
    store.import_frame(pd.DataFrame(rows), filename="tiny.csv")
    store.close()
    at = app("views/leaderboard.py", benchmark="tiny")
    no_exception(at)
    warning = next(w.value for w in at.warning if "too small" in w.value)
    assert "these 3 systems" in warning and "with 4 examples" in warning
    assert "McNemar" not in warning  # the test's name is in the tooltip
