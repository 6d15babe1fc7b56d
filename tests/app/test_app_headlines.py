"""AppTests of the headline sentences (issue #25 item 3): Leaderboard, Pairwise (one pair) and
A/B compare open with one plain sentence whose numbers are the page's own table's.

References: the sentence is compared with the page's table (rank range of the #1, the pair's
difference and interval in points) and with the engine's headline function on the same
result (:mod:`engine.products._headline`). Data: the bundled demo store (HumanEval, one run
per system; ``db`` fixture) and the Mechanisms page's synthetic store.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from apptest_support import app, no_exception, ranked
from streamlit.testing.v1 import AppTest

from engine import build_matrix, compare_ab, leaderboard
from engine.app_support import compare_headline, leaderboard_headline, pair_headline
from engine.store import open_store

# every test here takes seconds: ./scripts/test.sh --fast leaves them out
pytestmark = pytest.mark.slow


def headline(at: AppTest) -> str:
    """The page's first bold sentence, markdown escapes removed."""
    text = next(m.value for m in at.markdown if m.value.startswith("**"))
    return text.strip("*").replace("\\", "")


def test_leaderboard_headline_is_the_tables(db: Path) -> None:
    at = app("views/leaderboard.py", benchmark="humaneval")
    no_exception(at)
    text = headline(at)
    table, _ = ranked(at)
    top = table.iloc[0]
    # the group cell of a long group reads "ties with N": the systems the tests cannot tell
    # apart from it (the rank range is the rank set, issue #29)
    frame = open_store(f"sqlite:///{db}").load_frame()
    board = leaderboard(build_matrix(frame, benchmark="humaneval", metric="pass1"))
    group = str(top["group"])
    tied = (int(group.removeprefix("ties with ")) if group.startswith("ties with ")
            else int(board.table["rank_high"].iloc[0]) - 1)  # short letters: the tests' count
    assert text.startswith(f"{top['system']} ranks first on humaneval")
    assert f"but {tied} systems cannot be told apart from it" in text
    assert text == leaderboard_headline(board)
    assert "McNemar" not in text and "mcnemar" not in text  # test names one click away


def test_pairwise_headline_is_the_pairs(db: Path) -> None:
    at = app("views/pairwise.py", benchmark="humaneval", a="gpt-3.5-turbo",
             b="claude-3-opus-20240229")
    no_exception(at)
    text = headline(at)
    frame = open_store(f"sqlite:///{db}").load_frame()
    t = leaderboard(build_matrix(frame, benchmark="humaneval", metric="pass1")).pairwise.table
    row = t[t["system_a"].isin(["gpt-3.5-turbo", "claude-3-opus-20240229"])
            & t["system_b"].isin(["gpt-3.5-turbo", "claude-3-opus-20240229"])].iloc[0]
    assert text == pair_headline(row, binary=True, alpha=0.05, correction="holm-sidak")
    size = abs(float(row["difference"])) * 100
    assert f"by {size:.1f} points" in text or f"ahead by {size:.1f} points" in text


def test_compare_headline_is_the_verdicts(db: Path) -> None:
    at = app("views/compare.py", benchmark="humaneval", base="deepseek-coder-33b-instruct",
             cand="claude-3-opus-20240229")
    no_exception(at)
    text = headline(at)
    frame = open_store(f"sqlite:///{db}").load_frame()
    humaneval = frame[frame["benchmark"] == "humaneval"]
    ab = compare_ab(humaneval, baseline="deepseek-coder-33b-instruct",
                    candidate="claude-3-opus-20240229")
    assert text == compare_headline(ab, binary=True)
    verdict = next(b.value for b in (*at.success, *at.error, *at.info)
                   if b.value.startswith("**Verdict"))
    d = ab.test.estimate * 100
    assert f"{d:+.1f} points" in verdict, "the same units as the Pairwise page: points"
    assert any("same p-value and interval" in c.value for c in at.caption)
