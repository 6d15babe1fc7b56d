"""One Elo update from given ratings (engine/ranking/_elo.py): the textbook worked example
and properties of the K-factor rule."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.ranking._elo import elo_expected, elo_update
from engine.ranking._sequential import Battles, sequential_elo

# Wikipedia, "Elo rating system", section "Mathematical details" (the worked example): a
# player rated 1613 loses to 1609, draws with 1477, beats 1388 and 1586, loses to 1720;
# actual score 0 + 0.5 + 1 + 1 + 0 = 2.5; expected 0.506 + 0.686 + 0.785 + 0.539 + 0.351
# = 2.867 (later revisions round each term to two decimals: 0.51 + 0.69 + 0.79 + 0.54 +
# 0.35 = 2.88); with K = 32 the new rating is 1613 + 32 × (2.5 − 2.867) = 1601.
OPPONENTS = [1609, 1477, 1388, 1586, 1720]
SCORES = [0, 0.5, 1, 1, 0]


def test_wikipedia_worked_example() -> None:
    res = elo_update(1613, OPPONENTS, SCORES, k=32)
    np.testing.assert_allclose(res.expected, [0.506, 0.686, 0.785, 0.539, 0.351], atol=5e-4)
    assert round(res.expected_total, 3) == 2.867
    assert round(float(np.round(res.expected, 2).sum()), 2) == 2.88  # the two-decimal terms
    assert res.score_total == 2.5
    assert round(res.rating) == 1601
    # unrounded: 1613 + 32 × (2.5 − 2.86656...) = 1601.27
    assert res.rating == pytest.approx(1613 + 32 * (2.5 - res.expected_total), abs=1e-12)
    assert res.rating == pytest.approx(1601.27, abs=0.01)


def test_expected_score_textbook_points() -> None:
    # Wikipedia, "Elo rating system" (lead): 100 points ahead → expected 64 %, 200 → 76 %;
    # equal ratings → 50 %
    np.testing.assert_allclose(elo_expected(1600, [1500, 1400, 1600]), [0.64, 0.76, 0.5],
                               atol=0.005)


def test_huge_gap_does_not_overflow() -> None:
    e = elo_expected(0.0, [1e6, -1e6])
    np.testing.assert_allclose(e, [0.0, 1.0], atol=1e-300)
    assert np.isfinite(e).all()


def test_one_game_matches_sequential_elo() -> None:
    # One battle replayed by the online Elo (both start at 1000) moves A by K (s − E).
    battles = Battles(np.array([0]), np.array([1]), np.array([1.0]), 2, "ignore")
    seq = sequential_elo(battles, k=32, initial=1000, orders=np.array([[0]]))
    res = elo_update(1000, [1000], [1.0], k=32)
    assert seq.rating[0] == pytest.approx(res.rating, abs=1e-9)


@pytest.mark.parametrize(("kwargs", "match"), [
    ({"scores": [0, 1]}, "one score per opponent"),
    ({"scores": [0, 0.5, 1, 2, 0]}, r"score 3 is 2.0; each score must be in \[0, 1\]"),
    ({"scores": [0, 0.5, math.nan, 1, 0]}, "score 2 is nan"),
    ({"k": -1.0}, "K-factor must be ≥ 0"),
    ({"k": math.inf}, "k: must be finite"),
    ({"scale": 0.0}, "scale: must be a positive"),
    ({"opponents": [1609, math.nan, 1388, 1586, 1720]}, "opponents: rating 1 is nan"),
    ({"rating": "high"}, "rating: must be a number"),
])
def test_bad_input_names_the_argument(kwargs: dict[str, object], match: str) -> None:
    args: dict[str, object] = {"rating": 1613, "opponents": OPPONENTS, "scores": SCORES}
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        elo_update(**args)  # type: ignore[arg-type]


RATING = st.floats(min_value=0.0, max_value=3000.0, allow_nan=False)
SCORE = st.sampled_from([0.0, 0.5, 1.0])
K = st.floats(min_value=1.0, max_value=64.0, allow_nan=False)


@settings(max_examples=200)
@given(ra=RATING, rb=RATING, s=SCORE, k=K)
def test_zero_sum_between_two_players_with_equal_k(ra: float, rb: float, s: float,
                                                   k: float) -> None:
    a = elo_update(ra, [rb], [s], k=k)
    b = elo_update(rb, [ra], [1.0 - s], k=k)
    assert a.change + b.change == pytest.approx(0.0, abs=1e-9)
    assert a.rating + b.rating == pytest.approx(ra + rb, abs=1e-9)


@pytest.mark.slow
@settings(max_examples=200)
@given(r=RATING, opp=st.lists(RATING, min_size=1, max_size=10), k=K)
def test_unchanged_when_scores_equal_expectations(r: float, opp: list[float], k: float) -> None:
    expected = elo_expected(r, opp)
    res = elo_update(r, opp, expected, k=k)
    assert res.change == pytest.approx(0.0, abs=1e-9)
    assert res.rating == pytest.approx(r, abs=1e-9)


@pytest.mark.slow
@settings(max_examples=200)
@given(r=RATING, opp=st.lists(RATING, min_size=1, max_size=10), data=st.data(), k=K)
def test_monotone_in_the_score(r: float, opp: list[float], data: st.DataObject,
                               k: float) -> None:
    low = np.array(data.draw(st.lists(SCORE, min_size=len(opp), max_size=len(opp))))
    i = data.draw(st.integers(0, len(opp) - 1))
    if low[i] == 1.0:
        low[i] = 0.5
    high = low.copy()
    high[i] += 0.5  # one game's result better, the rest the same
    lo, hi = elo_update(r, opp, low, k=k), elo_update(r, opp, high, k=k)
    assert hi.rating > lo.rating
    assert hi.rating - lo.rating == pytest.approx(0.5 * k, rel=1e-12)
