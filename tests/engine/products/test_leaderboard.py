"""leaderboard(): means with confidence intervals, ranks and rank ranges, group letters,
cliques, win rates and Bradley–Terry / Elo (SPEC "Leaderboard columns")."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy import stats
from statsmodels.stats.proportion import proportion_confint

from engine._contract import MetricSpec, validate_long
from engine._matrix import ScoreMatrix as ScoreMatrix
from engine._matrix import build_matrix
from engine.cli._json import leaderboard_json
from engine.products._leaderboard import LEADERBOARD_COLUMNS, Leaderboard, leaderboard

DATA = Path(__file__).resolve().parents[3] / "data"  # bundled eval-arena files
COLUMNS = ["benchmark", "system", "example_id", "metric", "value"]


def _long(scores: dict[str, list[float]]) -> pd.DataFrame:
    rows = [("b", s, f"e{i:03d}", "m", float(v)) for s, vals in scores.items()
            for i, v in enumerate(vals) if not np.isnan(v)]
    return validate_long(pd.DataFrame(rows, columns=COLUMNS))


def _matrix(scores: dict[str, list[float]], higher_is_better: bool = True) -> ScoreMatrix:
    return ScoreMatrix.from_array(scores, benchmark="b", metric="m",
                                  spec=MetricSpec(higher_is_better=higher_is_better))


@pytest.fixture(scope="module")
def humaneval_plus() -> tuple[ScoreMatrix, Leaderboard]:
    from engine.io._readers import read_results

    m = build_matrix(read_results(DATA / "humaneval+.jsonl.gz"))
    return m, leaderboard(m)


# ---------------------------------------------------------------- intervals


@pytest.mark.parametrize("alpha", [0.05, 0.1])
def test_wilson_interval_for_binary(alpha: float) -> None:
    scores = {"A": [1] * 17 + [0] * 3, "B": [1] * 9 + [0] * 11, "C": [0] * 19 + [1]}
    lb = leaderboard(_matrix(scores), alpha=alpha).table.set_index("system")
    for s, vals in scores.items():
        # statsmodels proportion_confint(count, nobs, alpha, method="wilson"), level 1 - alpha
        low, high = proportion_confint(sum(vals), len(vals), alpha=alpha, method="wilson")
        assert lb.loc[s, "ci_low"] == pytest.approx(low, rel=1e-12)
        assert lb.loc[s, "ci_high"] == pytest.approx(high, rel=1e-12)
        assert lb.loc[s, "mean"] == pytest.approx(np.mean(vals))


def test_wilson_reference_value() -> None:
    # Wilson (1927) score interval by its closed form for 17/20 at 95 % (z = 1.959964):
    # centre (p̂ + z²/2n) / (1 + z²/n) = 0.793606, half-width
    # z / (1 + z²/n) · sqrt(p̂(1 − p̂)/n + z²/4n²) = 0.154025 → [0.639581, 0.947631]
    lb = leaderboard(_matrix({"A": [1] * 17 + [0] * 3, "B": [0] * 20})).table.set_index("system")
    assert lb.loc["A", "ci_low"] == pytest.approx(0.639581, abs=1e-6)
    assert lb.loc["A", "ci_high"] == pytest.approx(0.947631, abs=1e-6)


@pytest.mark.parametrize("alpha", [0.05, 0.01])
def test_t_interval_for_numeric(alpha: float) -> None:
    rng = np.random.default_rng(2)
    scores = {s: list(rng.normal(i, 1 + i, size=7 + 3 * i).round(3)) for i, s in enumerate("ABC")}
    # each system on its own examples (no pairing): the estimate is the plain mean
    x = np.full((3, 30), np.nan)
    x[0, :7], x[1, 7:17], x[2, 17:] = scores["A"], scores["B"], scores["C"]
    m = ScoreMatrix.from_array(x, systems=list(scores), benchmark="b", metric="m")
    assert m.pairing == "none"
    lb = leaderboard(m, alpha=alpha).table.set_index("system")
    for s, vals in scores.items():
        v = np.asarray(vals)
        # scipy.stats.t.interval(confidence, df, loc, scale) with scale = s / √n
        low, high = stats.t.interval(1 - alpha, len(v) - 1, loc=v.mean(), scale=stats.sem(v))
        assert lb.loc[s, "ci_low"] == pytest.approx(low, rel=1e-10)
        assert lb.loc[s, "ci_high"] == pytest.approx(high, rel=1e-10)
        assert lb.loc[s, "n"] == len(v)


def test_sleep_t_interval_reference() -> None:
    # R's sleep data, group 2: mean 2.33, s = 2.002249, t_{0.975, 9} = 2.262157 (t tables)
    # → 2.33 ± 2.262157 · 2.002249 / √10 = 2.33 ± 1.432322 = [0.897678, 3.762322]
    g2 = [1.9, 0.8, 1.1, 0.1, -0.1, 4.4, 5.5, 1.6, 4.6, 3.4]
    g1 = [0.7, -1.6, -0.2, -1.2, -0.1, 3.4, 3.7, 0.8, 0.0, 2.0]
    lb = leaderboard(_matrix({"g1": g1, "g2": g2})).table.set_index("system")
    assert lb.loc["g2", "mean"] == pytest.approx(2.33)
    assert lb.loc["g2", "ci_low"] == pytest.approx(0.897678, abs=1e-6)
    assert lb.loc["g2", "ci_high"] == pytest.approx(3.762322, abs=1e-6)


def test_single_example_has_no_t_interval() -> None:
    lb = leaderboard(_matrix({"A": [0.5], "B": [0.25]})).table
    assert lb["ci_low"].isna().all() and lb["ci_high"].isna().all()
    assert lb["n"].tolist() == [1, 1]


# ---------------------------------------------------------------- table and ranks


def test_columns_order_and_ranks() -> None:
    scores = {"A": [0, 0, 1, 0, 0, 0] * 5, "B": [1, 1, 1, 1, 1, 0] * 5, "C": [1, 1, 1, 1, 1, 0] * 5}
    lb = leaderboard(_matrix(scores))
    t = lb.table
    assert tuple(t.columns) == LEADERBOARD_COLUMNS
    assert t["system"].tolist() == ["B", "C", "A"]  # ties sorted by name
    assert t["rank"].tolist() == [1, 1, 3]  # ties share the best rank
    assert t["runs"].tolist() == [1, 1, 1]
    # B, C (25/30) vs A (5/30): 20 discordant examples all one way → significant
    assert t["group"].tolist() == ["a", "a", "b"]
    assert lb.cliques == (("B", "C"),)  # tied members listed by name, like the table
    assert t["rank_low"].tolist() == [1, 1, 3] and t["rank_high"].tolist() == [2, 2, 3]
    assert t["bt_strength"].sum() == pytest.approx(1.0)
    assert lb.paired and lb.test == "mcnemar" and lb.higher_is_better
    assert (lb.benchmark, lb.metric) == ("b", "m")


def test_lower_is_better_reverses_order() -> None:
    lb = leaderboard(_matrix({"A": [1, 2, 3, 4.5], "B": [5, 6, 7, 8.5]}, higher_is_better=False))
    assert lb.table["system"].tolist() == ["A", "B"]
    assert lb.table["mean"].tolist() == [2.625, 6.625]  # raw means, not oriented
    assert lb.table["win_rate"].tolist() == [1.0, 0.0]
    assert not lb.higher_is_better


def test_runs_column_and_averaging() -> None:
    rows = [("b", "A", "e1", "m", 1, 0), ("b", "A", "e1", "m", 0, 1), ("b", "A", "e2", "m", 1, 0),
            ("b", "B", "e1", "m", 0, 0), ("b", "B", "e2", "m", 0, 0)]
    df = validate_long(pd.DataFrame(rows, columns=[*COLUMNS, "run"]))
    lb = leaderboard(build_matrix(df)).table.set_index("system")
    assert lb.loc["A", "runs"] == 2 and lb.loc["B", "runs"] == 1
    assert lb.loc["A", "mean"] == pytest.approx(0.75)  # per-example means (0.5, 1) averaged


def test_anchor() -> None:
    m = _matrix({"A": [1, 2, 3], "B": [2, 3, 1], "C": [0, 1, 2]})
    lb = leaderboard(m, anchor="C").table.set_index("system")
    assert lb.loc["C", "elo"] == pytest.approx(1000.0)
    assert leaderboard(m, anchor="C").anchor == "C"
    with pytest.raises(ValueError, match="anchor: system 'Z' is not on this leaderboard"):
        leaderboard(m, anchor="Z")


def test_unpaired_leaderboard_has_no_battle_ratings() -> None:
    rows = [("b", s, f"{s}{i}", "m", float(v)) for s, vals in
            {"A": [1, 0, 1, 1], "B": [0, 0, 1, 0]}.items() for i, v in enumerate(vals)]
    lb = leaderboard(build_matrix(validate_long(pd.DataFrame(rows, columns=COLUMNS))))
    assert not lb.paired and lb.test == "z"
    assert lb.table[["win_rate", "bt_strength", "elo"]].isna().all().all()
    assert any("No example is shared" in n for n in lb.notes)


def test_notes_for_partial_pairing_and_bt_prior() -> None:
    scores = {"A": [1, 1, 1, 1, np.nan], "B": [0, 0, 0, 0, 1]}
    lb = leaderboard(_matrix(scores))
    assert not lb.paired  # 4 shared examples < MIN_PAIRED_OVERLAP: tested unpaired
    assert any("Unpaired tests on data that shares examples" in n for n in lb.notes)
    assert any("adjusted means" in n for n in lb.notes)
    assert any("Bradley–Terry: some system never wins" in n for n in lb.notes)
    # battles use the examples each pair shares; B's estimate is on equal footing with A's:
    # the additive model compares them on the 4 shared examples (A 1, B 0 on each): A's
    # predicted mean 0.2 + 1 = 1.2 is kept to the scores' range, 1.0 (engine.stats._additive)
    t = lb.table.set_index("system")
    assert t.loc["B", "n"] == 5
    assert t.loc["B", "mean"] == pytest.approx(0.2)
    assert t.loc["A", "mean"] == pytest.approx(1.0)
    assert (t[["ci_low", "ci_high"]].to_numpy() <= 1.0).all()
    assert t.loc["A", "win_rate"] == 1.0


def test_order_restricts_systems() -> None:
    m = _matrix({"A": [1, 2, 3, 4.0], "B": [2, 3, 1, 0.5], "C": [0, 1, 2, 3.5]})
    lb = leaderboard(m, order=["C", "A"], compare="successive", alternative="less")
    assert set(lb.table["system"]) == {"A", "C"}
    assert lb.pairwise.table[["system_a", "system_b"]].values.tolist() == [["C", "A"]]


def test_to_dict_has_spec_fields() -> None:
    lb = leaderboard(_matrix({"A": [1, 2, 3, 4.0], "B": [2, 3, 1, 0.5]}))
    d = leaderboard_json(lb, [])
    for key in ("benchmark", "metric", "paired", "test", "systems", "cliques"):
        assert key in d
    for row in d["systems"]:  # type: ignore[attr-defined]
        for key in ("system", "mean", "ci_low", "ci_high", "n", "rank", "rank_low", "rank_high",
                    "group"):
            assert key in row


# ---------------------------------------------------------------- eval-arena humaneval+


@pytest.mark.slow
def test_humaneval_plus_leaderboard(humaneval_plus: tuple[ScoreMatrix, Leaderboard]) -> None:
    m, lb = humaneval_plus
    t = lb.table
    # eval-arena humaneval+: 49 systems × 164 problems, pass@1 is binary → exact McNemar
    assert len(t) == 49 and set(t["system"]) == set(m.systems)
    assert lb.paired and lb.test == "mcnemar"
    assert len(lb.pairwise.table) == 49 * 48 // 2 == 1176
    assert (t["n"] == 164).all()
    assert (t["mean"].diff().dropna() <= 0).all()  # sorted by mean
    assert t["rank"].iloc[0] == 1
    assert (t["group"].str.len() > 0).all()
    assert lb.groups.complete and len(lb.cliques) >= 2
    # every pair shares a letter iff it is not significantly different
    letters = dict(zip(t["system"], t["group"], strict=True))
    for r in lb.pairwise.table.itertuples():
        share = bool(set(letters[r.system_a]) & set(letters[r.system_b]))
        assert share == (not r.significant), (r.system_a, r.system_b)
    # cliques: members pairwise non-significant, best clique first
    sig = {frozenset((r.system_a, r.system_b)) for r in lb.pairwise.table.itertuples()
           if r.significant}
    mean = dict(zip(t["system"], t["mean"], strict=True))
    for c in lb.cliques:
        assert len(c) >= 2
        assert all(frozenset(p) not in sig for p in itertools.combinations(c, 2))
        assert [mean[s] for s in c] == sorted((mean[s] for s in c), reverse=True)
    assert lb.cliques[0][0] == t["system"].iloc[0]
    # rank ranges bracket the rank; best = 1 + #significantly better
    assert ((t["rank_low"] <= t["rank"]) & (t["rank"] <= t["rank_high"])).all()
    for row in t.itertuples():
        better = sum(1 for r in lb.pairwise.table.itertuples() if r.significant and (
            (r.system_a == row.system and not r.a_better) or (r.system_b == row.system and r.a_better)))
        assert row.rank_low == 1 + better
    # battle ratings
    assert t["bt_strength"].sum() == pytest.approx(1.0)
    assert t["elo"].mean() == pytest.approx(1000.0)
    assert t["win_rate"].between(0, 1).all()
    # Wilson intervals, 95 %
    for row in t.itertuples():
        low, high = proportion_confint(round(row.mean * 164), 164, alpha=0.05, method="wilson")
        assert (row.ci_low, row.ci_high) == pytest.approx((low, high), rel=1e-12)


def test_humaneval_plus_bt_matches_win_shares(humaneval_plus: tuple[ScoreMatrix, Leaderboard]) -> None:
    # win rate and Bradley–Terry strength order systems almost the same way (Kendall τ > 0.9)
    _, lb = humaneval_plus
    tau = stats.kendalltau(lb.table["win_rate"], lb.table["bt_strength"]).statistic
    assert tau > 0.9


# ---------------------------------------------------------------- shuffling rows


@st.composite
def long_tables(draw: st.DrawFn) -> pd.DataFrame:
    s = draw(st.integers(2, 5))
    n = draw(st.integers(2, 12))
    binary = draw(st.booleans())
    elements = st.sampled_from([0.0, 1.0]) if binary else st.integers(0, 6).map(lambda v: v / 2)
    rows = []
    for i in range(s):
        for j in range(n):
            if draw(st.integers(0, 9)) == 0 and j > 1:  # some examples missing (partial pairing)
                continue
            rows.append(("b", f"sys{i}", f"ex{j:02d}", "m", draw(elements)))
    return pd.DataFrame(rows, columns=COLUMNS)


@pytest.mark.slow
@settings(max_examples=40, suppress_health_check=[HealthCheck.too_slow])
@given(df=long_tables(), seed=st.integers(0, 2**32 - 1))
def test_shuffling_rows_does_not_change_the_leaderboard(df: pd.DataFrame, seed: int) -> None:
    base = leaderboard(build_matrix(validate_long(df)))
    shuffled = df.sample(frac=1.0, random_state=np.random.RandomState(seed % 2**32))
    other = leaderboard(build_matrix(validate_long(shuffled)))
    pd.testing.assert_frame_equal(base.table, other.table, check_exact=False, rtol=1e-9)
    assert base.cliques == other.cliques  # members tied on the mean are listed by name
    assert (base.paired, base.test) == (other.paired, other.test)
