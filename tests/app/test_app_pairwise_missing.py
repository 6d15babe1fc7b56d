"""The Pairwise page when one system dropped half its failures: a pair the missing examples
could overturn says "cannot decide (N examples missing on X)" in the headline, the table, the
p-value matrix and the count of differing pairs, as the A/B gate (``sigboard compare``, exit
2) decides it; a pair of complete systems keeps its verdict.

The data: 10 equal systems on 164 0/1 examples of varied difficulty, s9 dropping each of its
failures with probability 0.5 (``many_systems`` of tests/app/test_app_compare_missing.py,
seed 6 here: the seed where the Holm-adjusted pairwise tests flag three pairs with s9 and,
by chance, one complete pair, s3–s6). Reference: the engine's :func:`compare_ab` and
:func:`missing_bounds` on the same table, as the command line calls them, and the engine's
own :func:`leaderboard` for the pairs it flags.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from apptest_support import app, no_exception
from pages_data_support import store_env

from engine import build_matrix, compare_ab, leaderboard
from engine.app_support import md_text, missing_bounds

PAGE = "views/pairwise.py"


def dropped_half() -> pd.DataFrame:
    rng = np.random.default_rng(6)
    difficulty = rng.normal(0, 1.5, 164)
    x = (rng.random((10, 164)) < 1 / (1 + np.exp(-(0.5 - difficulty)))).astype(float)
    x[-1][(x[-1] == 0) & (rng.random(164) < 0.5)] = np.nan
    rows = [("many", f"s{s}", f"e{i:03d}", "acc", x[s, i]) for s in range(10)
            for i in range(164) if not np.isnan(x[s, i])]
    return pd.DataFrame(rows, columns=["benchmark", "system", "example_id", "metric", "value"])


def within_tolerance() -> pd.DataFrame:
    """s9 truly better (+1.2 logits) that dropped 13 of its hard failures: 7.9% of 164
    examples, under the bound's 10% tolerance, yet not at random by the other systems'
    scores, so ``compare`` refuses (exit 2) on every pair with it (seed 0)."""
    rng = np.random.default_rng(0)
    difficulty = rng.normal(0, 1.5, 164)
    skill = np.r_[np.zeros(9), 1.2][:, None]
    x = (rng.random((10, 164)) < 1 / (1 + np.exp(-(0.5 + skill - difficulty)))).astype(float)
    x[-1][(x[-1] == 0) & (rng.random(164) < 0.45) & (difficulty > 0.5)] = np.nan
    rows = [("within", f"s{s}", f"e{i:03d}", "acc", x[s, i]) for s in range(10)
            for i in range(164) if not np.isnan(x[s, i])]
    return pd.DataFrame(rows, columns=["benchmark", "system", "example_id", "metric", "value"])


def _flagged(frame: pd.DataFrame) -> set[frozenset[str]]:
    t = leaderboard(build_matrix(frame, benchmark="many", metric="acc"), bt_resamples=0).pairwise.table
    return {frozenset(p) for p in zip(t.loc[t["significant"], "system_a"],
                                      t.loc[t["significant"], "system_b"], strict=True)}


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    with store_env(tmp_path_factory.mktemp("pairwise-missing") / "sigboard.db",
                   pd.concat([dropped_half(), within_tolerance()], ignore_index=True)) as p:
        yield p


@pytest.mark.slow
def test_the_premise_pairwise_flags_pairs_the_gate_cannot_decide() -> None:
    frame = dropped_half()
    assert _flagged(frame) == {frozenset(p) for p in
                               (("s1", "s9"), ("s5", "s9"), ("s6", "s9"), ("s3", "s6"))}
    for other in ("s1", "s5", "s6"):
        ab = compare_ab(frame, baseline=other, candidate="s9")
        bounds = missing_bounds(frame, ab)
        assert ab.verdict == "candidate is significantly better"
        assert bounds is not None and bounds.candidate_lacks == 42
        assert not ab.decided and not bounds.decided  # `compare` exits 2
    assert compare_ab(frame, baseline="s3", candidate="s6").decided  # complete: no bound


def test_the_pair_cannot_decide_in_the_headline_and_the_sentence(store: Path) -> None:
    at = app(PAGE, benchmark="many", metric="acc", a="s9", b="s1")
    no_exception(at)
    shown = " ".join(m.value for m in at.markdown)
    assert md_text("cannot decide (42 examples missing on s9)") in shown
    assert "significantly different**" not in shown  # the drill-down's verdict too
    # the page's count: the complete pair s3–s6 differs, the three with s9 cannot be decided
    assert "1 of 45 pairs differ" in shown
    assert "3 of the pairs that would differ cannot be decided" in shown


@pytest.mark.slow
def test_the_table_and_the_matrix_say_the_same(store: Path) -> None:
    at = app(PAGE, benchmark="many", metric="acc", a="s3", b="s6", panel="table")
    no_exception(at)
    rows = at.dataframe[0].value
    open_ = rows[rows["missing examples"].notna()]
    assert {frozenset(p) for p in zip(open_["system A"], open_["system B"], strict=True)} == {
        frozenset(p) for p in (("s1", "s9"), ("s5", "s9"), ("s6", "s9"))}
    assert set(open_["missing examples"]) == {"cannot decide (42 examples missing on s9)"}
    assert not open_["significant"].any()
    kept = rows[rows["significant"].astype(bool)]
    assert [frozenset(p) for p in zip(kept["system A"], kept["system B"], strict=True)] == [
        frozenset(("s3", "s6"))]
    # the default panel, the p-value matrix, from the same result: "?" cells, named in the tip
    at = app(PAGE, benchmark="many", metric="acc", a="s3", b="s6")
    no_exception(at)
    svg = " ".join(h.proto.body for h in at.get("html") if "adjusted p-values among" in h.proto.body)
    assert svg.count("cannot decide (42 examples missing on s9)") == 6  # 3 pairs, both halves
    assert "? cannot decide (examples missing)" in svg
    assert "significantly different**" in " ".join(m.value for m in at.markdown)  # s3–s6



def test_missing_not_at_random_under_the_tolerance_cannot_decide_either(store: Path) -> None:
    frame = within_tolerance()
    t = leaderboard(build_matrix(frame, benchmark="within", metric="acc"),
                    bt_resamples=0).pairwise.table
    with_s9 = t[t["significant"] & ((t["system_a"] == "s9") | (t["system_b"] == "s9"))]
    others = sorted({*with_s9["system_a"], *with_s9["system_b"]} - {"s9"})
    assert len(others) == 9
    for other in others:  # the A/B gate on each: not at random, so exit 2
        ab = compare_ab(frame, baseline=other, candidate="s9")
        assert ab.verdict == "candidate is significantly better" and not ab.decided
        bounds = missing_bounds(frame, ab)
        assert bounds is not None and bounds.candidate_lacks == 13 and bounds.within_tolerance
    at = app(PAGE, benchmark="within", metric="acc", a="s9", b="s0", panel="table")
    no_exception(at)
    rows = at.dataframe[0].value
    open_ = rows[rows["missing examples"].notna()]
    assert len(open_) == 9 and not open_["significant"].any()
    assert set(open_["missing examples"]) == {"cannot decide (13 examples missing on s9)"}
    assert md_text("cannot decide (13 examples missing on s9)") in " ".join(
        m.value for m in at.markdown)
