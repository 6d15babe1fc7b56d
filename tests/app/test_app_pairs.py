"""The pair sentence and drill-down (issue #12, app side): who beats whom by how much, with
the interval, n and pairing; the Methods page states every convention."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from apptest_support import app, html_frame, no_exception

from app.components.pair_drilldown import difference_text, effect_words, pair_details, pair_summary
from engine import ScoreMatrix, build_matrix, leaderboard, pairwise_tests
from engine.app_support import MIN_PAIRED_OVERLAP
from engine.store import open_store


def summary_of(at) -> str:  # noqa: ANN001
    return next(m.value for m in at.markdown if "beats" in m.value or " tie" in m.value)


@pytest.mark.slow
def test_pair_sentence_gives_difference_interval_n_and_pairing(db: Path) -> None:
    at = app("views/pairwise.py", benchmark="humaneval", a="gpt-3.5-turbo",
             b="claude-3-opus-20240229")
    no_exception(at)
    text = summary_of(at)
    # binary metric: percentage points and an interval in points; the leader named first
    assert re.search(r"claude\\-3\\-opus\\-20240229\u2069 beats \u2068gpt\\-3\\.5\\-turbo\u2069 "
                     r"by \d+\.\d points \[-?\d+\.\d, -?\d+\.\d\]", text), text
    assert "n = 164" in text and "paired on the 164 examples" in text


def test_difference_text_orders_the_winner_first() -> None:
    text = difference_text(-0.032, -0.053, -0.011, "A", "B", percent=True, level="95%")
    assert re.search(r"B.* beats .*A.* by 3\.2 points \[1\.1, 5\.3\]", text), text
    numeric = difference_text(3.2, 1.1, 5.3, "A", "B", percent=False, level="95%")
    assert "by 3.2 [1.1, 5.3]" in numeric


def test_partial_overlap_pairs_say_unpaired_and_their_n() -> None:
    rng = np.random.default_rng(3)
    values = rng.normal(size=(3, 40))
    values[2, 5:] = np.nan  # shares 5 < MIN_PAIRED_OVERLAP examples with the others
    assert MIN_PAIRED_OVERLAP > 5
    m = ScoreMatrix.from_array(values, systems=["A", "B", "C"])
    result = pairwise_tests(m)
    text = pair_summary(result, "A", "C")
    assert "unpaired" in text and "n = 45" in text, text
    assert "paired on the 40 examples" in pair_summary(result, "A", "B")


def test_pair_sentence_says_the_effect_size_in_words_and_names_it_in_the_tooltip() -> None:
    # #27 item 5: plain words in the sentence, Cohen's name in its tooltip. Reference: the
    # engine's own effect size of the pair, worded by Cohen's (1988) thresholds.
    rng = np.random.default_rng(5)
    base = rng.normal(size=60)
    m = ScoreMatrix.from_array(np.vstack([base + 0.6, base + rng.normal(0, 1, 60)]),
                               systems=["A", "B"])
    result = pairwise_tests(m)
    size = abs(float(result.table["effect_size"].iloc[0]))
    text = pair_summary(result, "A", "B")
    assert f"effect size {size:.2f}: {effect_words(size)}" in text, text
    assert "Cohen" not in text
    assert "Cohen's d" in (pair_details(result, "A", "B") or "")


CONVENTIONS = ["n − 1", "Welch–Satterthwaite", "pooled proportion", "Newcombe", "Wilson",
               "Welch's t", "half a win", "decisive", "engine.MIN_PAIRED_OVERLAP", "adjusted",
               "Cohen's h", "d_av", "sign-flip"]


def test_methods_page_states_each_convention(db: Path) -> None:
    at = app("views/methods.py")
    no_exception(at)
    text = " ".join(m.value for m in at.markdown)
    missing = [phrase for phrase in CONVENTIONS if phrase not in text]
    assert not missing
    assert f"{MIN_PAIRED_OVERLAP} shared examples" in text


@pytest.mark.slow
def test_methods_page_explains_the_newer_pages(db: Path) -> None:
    # the combined p-value, rank ranges vs Tukey vs bootstrap rank intervals, slices and
    # conditions are explained where users look for methods
    at = app("views/methods.py")
    no_exception(at)
    text = " ".join(m.value for m in at.markdown)
    for phrase in ("harmonic mean p-value", "Tukey rank intervals", "rank range",
                   "Slices.", "Conditions", "Kendall's tau", "critical difference", "I²"):
        assert phrase in text, phrase


@pytest.mark.slow
def test_phones_get_the_most_significant_pairs_past_thirty_systems(db: Path) -> None:
    """#27: past 30 systems the heatmap has a phone replacement (shown below 640 px by CSS):
    the most significant pairs, smallest adjusted p first, the better system first; so has
    the default focus of 20 (4 px labels at 390 px), not a focus of 10."""
    at = app("views/pairwise.py", benchmark="humaneval", top="40")
    no_exception(at)
    bodies = [h.proto.body for h in at.get("html")]
    assert any('aria-label="most significant pairs"' in b for b in bodies)
    table = html_frame(at, "most significant pairs")
    p = table["adjusted p"].astype(float).to_numpy()
    assert len(table) == 30 and (np.diff(p) >= 0).all(), "smallest adjusted p first"
    assert list(table.columns) == ["better", "worse", "by (points)", "adjusted p"]
    fewer = app("views/pairwise.py", benchmark="humaneval", top="10")
    assert not any('most significant pairs' in h.proto.body for h in fewer.get("html"))



@pytest.mark.slow
def test_the_heatmaps_say_how_many_shown_pairs_differ(db: Path) -> None:
    """#27: the heatmap's answer in words (humaneval's best 20 at alpha 0.05). Reference: the
    engine's leaderboard on the stored scores, its pairwise table among the same 20 systems."""
    at = app("views/pairwise.py", benchmark="humaneval")
    no_exception(at)
    frame = open_store(f"sqlite:///{db}").load_frame("humaneval", "pass1")
    board = leaderboard(build_matrix(frame, benchmark="humaneval", metric="pass1"))
    best = set(board.table["system"].head(20))
    t = board.pairwise.table
    among = t[t["system_a"].isin(best) & t["system_b"].isin(best)]
    expected = f"{int(among['significant'].sum()):,} of {len(among):,} pairs among them differ"
    captions = [c.value for c in at.caption if "pairs among them differ" in c.value]
    assert captions == [f"20 of 78 systems (best first): {expected}; the *Table* tab and its "
                        "CSV have every pair."]
