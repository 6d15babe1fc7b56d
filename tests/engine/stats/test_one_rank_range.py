"""One rank range per system: the rank set, unchanged by names, and letters that agree with it.

The leaderboard's JSON gives the simultaneous rank confidence set (Mogstad, Romano, Shaikh &
Wilhelm 2024) as ``rank_low``/``rank_high`` and ``rank_set_low``/``rank_set_high``; the sets
do not depend on what the systems are called (their bootstrap draws are assigned by
estimate and covariance, not by name); and two systems whose sets are disjoint — shown
apart at 1 − alpha — never share a compact letter, even when the corrected pairwise tests
do not separate them.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import ScoreMatrix
from engine.cli._json import leaderboard_json
from engine.products._leaderboard import leaderboard
from engine.ranking._mean_covariance import leaderboard_rank_sets
from engine.ranking._rank_sets import rank_sets

SETTINGS = settings(max_examples=40, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@st.composite
def boards(draw: st.DrawFn) -> np.ndarray:
    """A binary systems × examples board: 3–7 systems with their own success rates (ties
    in the means are frequent on few examples), 6–40 examples."""
    k = draw(st.integers(3, 7))
    n = draw(st.integers(6, 40))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    rates = rng.choice([0.1, 0.3, 0.5, 0.5, 0.7, 0.9, 1.0], size=k)
    return (rng.random((k, n)) < rates[:, None]).astype(float)


def _sets(values: np.ndarray, names: list[str]) -> dict[str, tuple[int, int, bool]]:
    """Each system's (low, high, in best set), rows in the order of the names (as a store
    lists them)."""
    order = np.argsort(np.asarray(names, dtype=object), kind="stable")
    m = ScoreMatrix.from_array(values[order], systems=[names[i] for i in order])
    sets = leaderboard_rank_sets(m, alpha=0.05)
    assert sets is not None
    return {str(r.system): (int(r.rank_set_low), int(r.rank_set_high), bool(r.in_best_set))
            for r in sets.table.itertuples()}


@pytest.mark.slow
@SETTINGS
@given(values=boards(), data=st.data())
def test_renaming_leaves_every_rank_set_unchanged(values: np.ndarray, data: st.DataObject) -> None:
    k = len(values)
    old = [f"sys{i}" for i in range(k)]
    # new names in a random order relative to the old ones: the rows are listed differently
    letters = data.draw(st.permutations([f"{c}-model" for c in "qwertyu"[:k]]))
    before, after = _sets(values, old), _sets(values, list(letters))
    assert {letters[i]: before[old[i]] for i in range(k)} == after


def test_renaming_with_equal_estimates_and_variances() -> None:
    # four systems with the same estimate and variance but different covariances with a
    # fifth: the draws' order used to come from the names, so renaming moved the sets
    cov = np.array([[1.0, 0.5, 0.0, 0.0, 0.3],
                    [0.5, 1.0, 0.0, 0.0, 0.0],
                    [0.0, 0.0, 1.0, 0.5, 0.0],
                    [0.0, 0.0, 0.5, 1.0, -0.3],
                    [0.3, 0.0, 0.0, -0.3, 1.0]]) * 0.01
    x = np.array([0.5, 0.5, 0.5, 0.5, 0.1])
    base = rank_sets(x, cov, labels=["a", "b", "c", "d", "e"]).table.set_index("system")
    for perm in ([3, 1, 0, 2, 4], [4, 2, 3, 0, 1], [1, 0, 3, 2, 4]):
        names = ["zz", "aa", "mm", "bb", "cc"]  # names[j] is system perm[j]
        got = rank_sets(x[perm], cov[np.ix_(perm, perm)], labels=names).table.set_index("system")
        for j, i in enumerate(perm):
            want = base.loc["abcde"[i], ["rank_set_low", "rank_set_high"]].tolist()
            assert got.loc[names[j], ["rank_set_low", "rank_set_high"]].tolist() == want


def _shares_letter(a: str, b: str) -> bool:
    return bool(set(a) & set(b))


@pytest.mark.slow
@SETTINGS
@given(values=boards())
def test_systems_with_disjoint_rank_sets_share_no_letter(values: np.ndarray) -> None:
    m = ScoreMatrix.from_array(values, systems=[f"s{i}" for i in range(len(values))])
    lb = leaderboard(m, bt_resamples=0)
    assert lb.rank_sets is not None
    sets = lb.rank_sets.table.set_index("system")
    group = lb.table.set_index("system")["group"]
    for a in group.index:
        for b in group.index:
            if a < b and (sets.loc[a, "rank_set_high"] < sets.loc[b, "rank_set_low"]
                          or sets.loc[b, "rank_set_high"] < sets.loc[a, "rank_set_low"]):
                assert not _shares_letter(group[a], group[b]), (a, b, group.to_dict())


def test_certainly_best_system_has_a_letter_of_its_own() -> None:
    # one system scores 10/10, nine score 0/10: the rank set of the first is {1} (its
    # differences are known without error), but exact McNemar's p = 2 · 0.5^10 ≈ 0.002 on
    # each of its 9 pairs, Holm-corrected over the 45 pairs (0.002 · 45 > 0.05), separates
    # nobody; its letter must still be its own
    k = 10
    m = ScoreMatrix.from_array([[1.0] * 10] + [[0.0] * 10] * (k - 1),
                               systems=[f"s{i}" for i in range(k)])
    lb = leaderboard(m, bt_resamples=0)
    assert not lb.pairwise.table["significant"].any()  # the tests alone separate no pair
    assert lb.rank_sets is not None
    first = lb.rank_sets.table.set_index("system").loc["s0"]
    assert (first["rank_set_low"], first["rank_set_high"]) == (1, 1)
    group = lb.table.set_index("system")["group"]
    assert all(not _shares_letter(group["s0"], group[s]) for s in group.index if s != "s0")
    assert any("disjoint rank sets" in n for n in lb.notes)


def test_json_gives_one_rank_range_the_rank_set() -> None:
    # the same board: the pairwise tests' range of s0 would be 1–10, its rank set is {1}
    m = ScoreMatrix.from_array([[1.0] * 10] + [[0.0] * 10] * 9,
                               systems=[f"s{i}" for i in range(10)])
    lb = leaderboard(m, bt_resamples=0)
    rows = {r["system"]: r for r in leaderboard_json(lb, [])["systems"]}
    assert lb.rank_sets is not None
    for r in lb.rank_sets.table.itertuples():
        row = rows[r.system]
        assert (row["rank_low"], row["rank_high"]) == (r.rank_set_low, r.rank_set_high)
        assert (row["rank_set_low"], row["rank_set_high"]) == (r.rank_set_low, r.rank_set_high)
    assert (rows["s0"]["rank_low"], rows["s0"]["rank_high"]) == (1, 1)


def test_json_without_rank_sets_shows_the_pairwise_range() -> None:
    # one example: no covariance of the means, so no rank set; the pairwise tests' range
    # (nothing significant on one example: 1–2 for both) stands in under every name
    lb = leaderboard(ScoreMatrix.from_array([[1.0], [0.0]], systems=["A", "B"]), bt_resamples=0)
    assert lb.rank_sets is None
    for row in leaderboard_json(lb, [])["systems"]:
        assert (row["rank_low"], row["rank_high"], row["rank_set_low"], row["rank_set_high"],
                row["in_best_set"]) == (1, 2, 1, 2, True)
