"""Fragility: the fewest examples whose removal changes the #1 or a pair's verdict
(engine/products/_fragility.py)."""

from __future__ import annotations

from itertools import combinations
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from engine import ScoreMatrix, build_matrix, leaderboard, read_results
from engine.cli._json import leaderboard_json
from engine.products._fragility import leader_fragility, pair_fragility

HUMANEVAL = Path(__file__).resolve().parents[3] / "data" / "humaneval.jsonl.gz"


@pytest.fixture(scope="module")
def humaneval() -> pd.DataFrame:
    return read_results(str(HUMANEVAL))


def _leader(df: pd.DataFrame) -> tuple[str, float, float]:
    table = leaderboard(build_matrix(df), bt_resamples=0).table
    return str(table["system"].iloc[0]), float(table["mean"].iloc[0]), float(table["mean"].iloc[1])


def test_humaneval_leader_flips_when_the_reported_examples_are_removed(humaneval: pd.DataFrame
                                                                       ) -> None:
    lb = leaderboard(build_matrix(humaneval), bt_resamples=0)
    frag = lb.fragility
    assert frag is not None and frag.exact and frag.count is not None
    leader, _, _ = _leader(humaneval)
    assert frag.leader == leader
    # remove the reported examples from the data and recompute the leaderboard: the
    # challenger is now strictly ahead of the old leader
    rest = humaneval[~humaneval["example_id"].isin(frag.examples)]
    table = leaderboard(build_matrix(rest), bt_resamples=0).table.set_index("system")
    assert table.loc[frag.challenger, "mean"] > table.loc[leader, "mean"]
    # one fewer is not enough: with any subset of count - 1 of them the leader stays first
    for drop in combinations(frag.examples, frag.count - 1):
        kept = humaneval[~humaneval["example_id"].isin(drop)]
        means = build_matrix(kept).to_frame().mean(axis=1)
        assert means[leader] >= means.drop(leader).max()
    assert leaderboard_json(lb, [])["fragility"]["count"] == frag.count


@settings(max_examples=40)
@given(st.integers(2, 5), st.integers(3, 9), st.integers(0, 10_000))
def test_leader_count_is_the_minimum_by_brute_force(systems: int, examples: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    x = (rng.random((systems, examples)) < rng.uniform(0.2, 0.8, (systems, 1))).astype(float)
    m = ScoreMatrix.from_array(x, systems=[f"s{i}" for i in range(systems)])
    frag = leader_fragility(m)
    leader = m.systems.index(frag.leader)

    def flips(drop: tuple[int, ...]) -> bool:
        keep = np.setdiff1d(np.arange(examples), drop)
        means = x[:, keep].mean(axis=1)
        return bool((np.delete(means, leader) > means[leader]).any())

    brute = next((k for k in range(examples)  # at least one example kept
                  if any(flips(d) for d in combinations(range(examples), k))), None)
    assert frag.count == brute


def test_partial_pairing_is_checked_by_recomputing() -> None:
    x = np.array([[1, 1, 1, 1, 0, 1, np.nan], [1, 0, 1, 0, 1, 1, 1], [0, 0, 0, 0, 0, 1, 0]])
    m = ScoreMatrix.from_array(x, systems=["a", "b", "c"],
                               examples=[f"e{i}" for i in range(7)])
    frag = leader_fragility(m)
    assert not frag.exact and frag.examples is not None
    keep = [i for i, e in enumerate(m.examples) if e not in frag.examples]
    means = np.nanmean(x[:, keep], axis=1)
    assert means[m.systems.index(frag.challenger)] > means[m.systems.index(frag.leader)]


def test_pair_verdict_changes_after_removal(humaneval: pd.DataFrame) -> None:
    m = build_matrix(humaneval)
    frag = pair_fragility(m, "claude-3-opus-20240229", "gpt-3.5-turbo")
    assert frag.test == "mcnemar" and frag.examples is not None
    keep = [e for e in m.examples if e not in frag.examples]
    sub = m.subset(["claude-3-opus-20240229", "gpt-3.5-turbo"]).to_frame()[keep].to_numpy()
    wins, losses = int(((sub[0] == 1) & (sub[1] == 0)).sum()), int(((sub[0] == 0) & (sub[1] == 1)).sum())
    # exact McNemar = two-sided binomial test of the discordant pairs (scipy)
    p = stats.binomtest(wins, wins + losses, 0.5).pvalue
    assert p == pytest.approx(frag.pvalue_after)
    assert (p < 0.05) != frag.significant


def test_pair_verdict_numeric_uses_the_paired_t() -> None:
    rng = np.random.default_rng(4)
    a = rng.normal(0.3, 1, 60)
    b = rng.normal(0.0, 1, 60)
    m = ScoreMatrix.from_array(np.vstack([a, b]), systems=["a", "b"])
    frag = pair_fragility(m, "a", "b")
    assert frag.test == "paired-t" and frag.examples is not None
    assert frag.pvalue == pytest.approx(stats.ttest_rel(a, b).pvalue)
    keep = [i for i, e in enumerate(m.examples) if e not in frag.examples]
    after = stats.ttest_rel(a[keep], b[keep]).pvalue
    assert after == pytest.approx(frag.pvalue_after)
    assert (after < 0.05) != frag.significant
