"""Rank sets from the variance model of the pairwise tests on the same page.

The leaderboard's rank sets (Mogstad, Romano, Shaikh & Wilhelm 2024) are built on the page's
pairwise tests: each pair is studentised by its test's standard error (the run-to-run
variance of ``vc-t``, CR2 with clusters), its tail is t(df) of that test, and a pair is
separated only where the corrected test separates it. Before, the sets used the covariance
of the means with each system's own few-seed run variance and a normal critical value, and
on seed sweeps they said "not the best" where no pairwise test found any difference.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy import stats

from engine import ScoreMatrix, build_matrix, pairwise_tests, validate_long
from engine.products._leaderboard import leaderboard
from engine.ranking._mean_covariance import leaderboard_rank_sets, pair_evidence
from engine.ranking._rank_sets import _normal_scale

SETTINGS = settings(max_examples=25, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def _seed_sweeps(seed: int, systems: int = 10, runs: int = 3, n: int = 60,
                 names: list[str] | None = None) -> ScoreMatrix:
    """No true difference: score = example + seed shift of the whole run (SD 0.3) + noise
    (SD 1), ``runs`` runs per system (the design of benchmarks/calibrate_rank_sets_designs.py)."""
    rng = np.random.default_rng(seed)
    ex = rng.normal(0, 1, n)
    y = ex[None, None, :] + rng.normal(0, 0.3, (systems, runs, 1)) + rng.normal(0, 1, (systems, runs, n))
    labels = names or [f"s{i}" for i in range(systems)]
    frames = [pd.DataFrame({"benchmark": "b", "metric": "m", "system": labels[s],
                            "example_id": [f"e{i:03d}" for i in range(n)], "run": r,
                            "value": y[s, r]})
              for s in range(systems) for r in range(runs)]
    return build_matrix(validate_long(pd.concat(frames, ignore_index=True)))


def _lows(sets: object) -> dict[str, int]:
    table = sets.table  # type: ignore[attr-defined]
    return dict(zip(table["system"].astype(str), table["rank_set_low"].astype(int), strict=True))


def test_seed_sweeps_no_set_says_not_best_where_no_test_separates() -> None:
    # seed 4 of this design (found by scanning seeds 0–39: 9 of 40 had an old set without
    # rank 1 and no significant pair; the calibration script measures the rate)
    m = _seed_sweeps(4)
    pw = pairwise_tests(m)
    assert pw.test == "vc-t" and not pw.table["significant"].any()
    old = leaderboard_rank_sets(m, alpha=0.05, pairwise=False)
    new = leaderboard_rank_sets(m, alpha=0.05, pairwise=pw)
    assert old is not None and new is not None
    assert max(_lows(old).values()) > 1  # the old sets: "this one is not the best"
    assert set(_lows(new).values()) == {1}
    assert (new.table["rank_set_high"] == m.n_systems).all()


def test_the_leaderboard_shows_the_sets_built_on_its_tests() -> None:
    m = _seed_sweeps(4)
    board = leaderboard(m)
    direct = leaderboard_rank_sets(m, alpha=board.pairwise.alpha, pairwise=board.pairwise)
    assert board.rank_sets is not None and direct is not None
    pd.testing.assert_frame_equal(board.rank_sets.table, direct.table)
    assert set(_lows(board.rank_sets).values()) == {1}


@st.composite
def boards(draw: st.DrawFn) -> ScoreMatrix:
    """3–6 systems with their own success rates on 8–40 binary examples, or seed sweeps
    (2–3 runs) with shifted means: some pairs separate, some do not."""
    k = draw(st.integers(3, 6))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    if draw(st.booleans()):
        n = draw(st.integers(8, 40))
        rates = rng.choice([0.1, 0.3, 0.5, 0.7, 0.9], size=k)
        return ScoreMatrix.from_array((rng.random((k, n)) < rates[:, None]).astype(float))
    runs, n = draw(st.integers(2, 3)), draw(st.integers(10, 40))
    shift = rng.choice([0.0, 0.0, 0.8, 1.5], size=k)
    y = (shift[:, None, None] + rng.normal(0, 0.5, (k, runs, 1))
         + rng.normal(0, 1, (k, runs, n)) + rng.normal(0, 1, n)[None, None, :])
    frames = [pd.DataFrame({"benchmark": "b", "metric": "m", "system": f"s{s}",
                            "example_id": [f"e{i:03d}" for i in range(n)], "run": r,
                            "value": y[s, r]}) for s in range(k) for r in range(runs)]
    return build_matrix(validate_long(pd.concat(frames, ignore_index=True)))


@pytest.mark.slow
@SETTINGS
@given(m=boards())
def test_every_set_holds_every_rank_the_tests_cannot_rule_out(m: ScoreMatrix) -> None:
    pw = pairwise_tests(m)
    sets = leaderboard_rank_sets(m, alpha=pw.alpha, pairwise=pw)
    assert sets is not None
    tab = pw.table
    # a difference the same on every example (10/10 against 0/10) is known without error:
    # the sets separate it though a test on few examples cannot (test_one_rank_range.py)
    x = dict(zip(m.systems, m.values, strict=True))
    d = [x[a] - x[b] for a, b in zip(tab["system_a"], tab["system_b"], strict=True)]
    certain = np.array([bool(np.ptp(v) == 0 and v[0] != 0) for v in d])
    sep = tab["significant"].to_numpy(bool) | certain
    a_better = tab["a_better"].to_numpy(bool)
    winner = np.where(a_better, tab["system_a"], tab["system_b"]).astype(str)[sep]
    loser = np.where(a_better, tab["system_b"], tab["system_a"]).astype(str)[sep]
    for row in sets.table.itertuples():
        s = str(row.system)
        better, worse = int((loser == s).sum()), int((winner == s).sum())
        # at most the systems a test shows better (worse) can push the set's ends in
        assert row.rank_set_low <= 1 + better
        assert row.rank_set_high >= m.n_systems - worse
        if better == 0:
            assert row.rank_set_low == 1


@pytest.mark.slow
@SETTINGS
@given(seed=st.integers(0, 10_000), data=st.data())
def test_relabelling_leaves_every_set_unchanged(seed: int, data: st.DataObject) -> None:
    k = 6
    old = [f"s{i}" for i in range(k)]
    new = data.draw(st.permutations([f"{c}-model" for c in "qwerty"]))

    def sets(names: list[str]) -> dict[str, tuple[int, int, bool]]:
        m = _seed_sweeps(seed, systems=k, runs=2, n=20, names=names)
        order = sorted(m.systems)  # rows as a store lists them: by name
        m = m.subset(order)
        res = leaderboard_rank_sets(m, alpha=0.05, pairwise=pairwise_tests(m))
        assert res is not None
        return {str(r.system): (int(r.rank_set_low), int(r.rank_set_high), bool(r.in_best_set))
                for r in res.table.itertuples()}

    before, after = sets(old), sets(list(new))
    assert {new[i]: before[old[i]] for i in range(k)} == after


def test_pair_evidence_lines_up_with_the_tests() -> None:
    m = _seed_sweeps(4, systems=4)
    pw = pairwise_tests(m)
    ev = pair_evidence(pw, m.systems)
    assert ev is not None
    row = pw.table.iloc[0]
    a, b = m.systems.index(row["system_a"]), m.systems.index(row["system_b"])
    assert ev.t[a, b] == pytest.approx(row["statistic"]) and ev.t[b, a] == -ev.t[a, b]
    assert ev.df[a, b] == ev.df[b, a] == pytest.approx(row["df"])
    # first-versus-rest tests do not cover every pair: no evidence, the covariance alone
    assert pair_evidence(pairwise_tests(m, compare="first"), m.systems) is None


def test_normal_scale_matches_the_t_tail() -> None:
    # t(0.975; 2) = 4.302653 (scipy.stats.t.ppf; Student's table 4.303) maps to z(0.975)
    z = _normal_scale(np.array([[0.0, stats.t.ppf(0.975, 2)], [-stats.t.ppf(0.975, 2), 0.0]]),
                      np.array([[np.inf, 2.0], [2.0, np.inf]]))
    assert z[0, 1] == pytest.approx(stats.norm.ppf(0.975), rel=1e-9)
    assert z[1, 0] == pytest.approx(-stats.norm.ppf(0.975), rel=1e-9)
    # infinite df leaves the statistic as it is; an infinite statistic stays infinite
    same = _normal_scale(np.array([[1.5, np.inf]]), np.array([[np.inf, 3.0]]))
    assert same[0, 0] == 1.5 and same[0, 1] == np.inf


def test_systems_on_different_examples_are_ranked_by_the_leaderboards_estimates() -> None:
    """A truly worse system (0.5 logit) that skipped the 100 hardest of 300 examples has the
    third-best raw mean; the rank sets ranked it third by that raw mean while the Leaderboard,
    on adjusted means (engine.stats._additive), ranks it last. Now the sets' estimates and
    ranks are the Leaderboard's."""
    from engine import leaderboard
    from engine._matrix import ScoreMatrix

    rng = np.random.default_rng(1)
    difficulty = rng.normal(0, 1.5, 300)
    effect = np.full(10, 0.5)
    effect[9] = 0.0
    p = 1 / (1 + np.exp(-(effect[:, None] - difficulty[None, :])))
    x = (rng.random((10, 300)) < p).astype(float)
    x[9, np.argsort(difficulty)[-100:]] = np.nan
    lb = leaderboard(ScoreMatrix.from_array(x), bt_resamples=0)
    sets = lb.rank_sets.table.set_index("system")
    board = lb.table.set_index("system")
    assert board.loc["s9", "rank"] == 10 and np.nanmean(x[9]) > np.nanmean(x[:9], axis=1).mean()
    np.testing.assert_allclose(sets.loc[board.index, "estimate"], board["mean"], rtol=1e-9)
    assert sets.loc["s9", "rank"] == 10
