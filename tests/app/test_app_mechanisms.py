"""AppTests of the Mechanisms page on a small synthetic benchmark (7 systems × 60 examples)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest
from apptest_support import app, no_exception, pictures
from pages_data_support import mechanisms_frame, store_env

from app.charts.mechanisms import LABELS
from app.components.mechanisms_table import (
    decisive_pairs,
    positions,
    rankings_html,
    verdicts_beside,
)
from app.data import results
from engine import build_matrix, leaderboard, mechanisms, p_beats

PAGE = "views/mechanisms.py"


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    with store_env(tmp_path_factory.mktemp("mech") / "sigboard.db", mechanisms_frame()) as path:
        yield path


def _table(at: object) -> str:
    bodies = [h.proto.body for h in at.get("html")  # type: ignore[attr-defined]
              if 'aria-label="mechanisms"' in h.proto.body]
    assert len(bodies) == 1
    return bodies[0]


@pytest.mark.slow
def test_rankings_side_by_side_with_rank_ranges_and_intervals(store: Path) -> None:
    at = app(PAGE, benchmark="mech")
    no_exception(at)
    assert [t.value for t in at.title] == ["Mechanisms · mech"]
    body = _table(at)
    assert 'data-rows="7"' in body
    for label in [*LABELS.values(), "rank range (leaderboard)", "Tukey rank interval"]:
        assert f">{label}</th>" in body  # each span named as what it is (#25 item 5)
    answers = " ".join(m.value for m in at.markdown)
    for question in ("Same winner everywhere?", "Same top 3 everywhere?", "Lowest agreement"):
        assert f"**{question}**" in answers, question
    drawings = pictures(at)
    assert len(drawings) == 2, "agreement matrix and P(A beats B), drawn on the server"
    assert all(d.startswith("<svg") for d in drawings)
    stated = " ".join(c.value for c in at.caption)
    assert "P(A beats B): row system vs column system" in stated
    assert f"{results.ELO_ORDERS} random orders" in stated, "the page states its orders"


def test_page_matches_the_engine_with_the_same_orders(store: Path) -> None:
    at = app(PAGE, benchmark="mech", seed="5")
    no_exception(at)
    m = build_matrix(mechanisms_frame(), benchmark="mech", metric="pass1")
    # reference: engine.mechanisms itself with the page's numbers of orders and seed
    expected = mechanisms(m, n_permutations=results.ELO_ORDERS,
                          trueskill_permutations=results.TRUESKILL_ORDERS, rng=5)
    # the page's rows are the engine's positions, with the two rank columns filled in
    mine = rankings_html(expected, None, None, level="95%").split("<tbody>")[1]
    assert mine.count("<td></td>") == 14 and _table(at).count("<td></td>") == 0
    page_rows = _table(at).split("<tbody>")[1].split("</tr>")
    for row, expected_row in zip(page_rows, mine.split("</tr>"), strict=True):
        assert row.startswith(expected_row.split("<td></td>")[0])
    pos = positions(expected)
    assert list(pos.index) == list(expected.rankings["mean"])
    assert pos["mean"].tolist() == list(range(1, 8))
    scores = at.dataframe[0].value
    assert list(scores["system"]) == list(expected.scores["system"])
    assert scores["elo"].round(6).tolist() == expected.scores["elo"].round(6).tolist()


@pytest.mark.slow
def test_unknown_benchmark_in_the_url_warns(store: Path) -> None:
    at = app(PAGE, benchmark="missing-bench")
    no_exception(at)
    assert any("missing" in w.value for w in at.warning)


@pytest.mark.slow
def test_sign_test_is_labelled_with_the_leaderboards_verdict_beside(store: Path) -> None:
    """Issue #25 item 8: "who beats whom" is its own question (a sign test on wins), and the
    Leaderboard's verdict is shown beside it, with the pairs where the two disagree.
    Reference: the engine's leaderboard and mechanisms on the same data."""
    at = app(PAGE, benchmark="mech")
    no_exception(at)
    heads = [h.value for h in at.subheader]
    assert "Who wins more examples (a sign test, not the leaderboard's test)" in heads
    frame = mechanisms_frame()
    board = leaderboard(build_matrix(frame, benchmark="mech", metric="pass1"))
    beside = next(m.value for m in at.markdown if m.value.startswith("**Leaderboard's verdict"))
    lb_sig = int(board.pairwise.table["significant"].sum())
    assert f"{lb_sig:,} of 21 pairs differ by the Leaderboard's test" in beside
    mech = mechanisms(build_matrix(frame, benchmark="mech", metric="pass1"))
    table = verdicts_beside(mech.p_beats.table, board)
    assert f"disagree on {int((~table['agree']).sum()):,} pairs" in beside
    assert any(e.label.startswith("Pairs where the sign test and the Leaderboard disagree")
               for e in at.expander)
    listed = [h.proto.body for h in at.get("html")  # a static table (#27: no data grid)
              if 'aria-label="sign test and leaderboard disagree"' in h.proto.body]
    assert len(listed) == 1
    assert listed[0].split("<tbody>")[1].count("<tr") == int((~table["agree"]).sum())


def test_the_phones_decisive_pairs_follow_the_sign_test() -> None:
    """#27: past 10 systems shown a phone gets this table instead of the P(A beats B)
    heatmap. Reference: engine.p_beats on the same matrix (its prob matrix and adjusted p)."""
    m = build_matrix(mechanisms_frame(), benchmark="mech", metric="pass1")
    pb = p_beats(m)
    systems = list(pb.prob.index)
    got = decisive_pairs(pb.table, systems[:6], 8)
    assert len(got) == 8 and set(got["wins more"]) | set(got["than"]) <= set(systems[:6])
    pairs = {frozenset(p) for p in zip(got["wins more"], got["than"], strict=True)}
    assert len(pairs) == len(got), "each pair once"
    assert (got["adjusted p"].diff().dropna() >= 0).all(), "smallest adjusted p first"
    for winner, loser, share in zip(got["wins more"], got["than"], got["P(beats)"], strict=True):
        assert share >= 0.5 and share == pytest.approx(pb.prob.loc[winner, loser])
    both = pd.concat([pb.table, pb.table.rename(columns={"system_a": "system_b",
                                                          "system_b": "system_a"})
                      .assign(p_a_beats_b=lambda f: 1 - f["p_a_beats_b"])])
    assert decisive_pairs(both, systems, 50).equals(decisive_pairs(pb.table, systems, 50)), \
        "a table listing each pair in both orders gives the same rows"
