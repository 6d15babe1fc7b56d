"""The Watch board's champion: named (taken as fixed in advance, e-values as they are) or
chosen from the data (the best mean on the same results; e-BH on the e-values divided by
the systems it could have chosen, compound e-values of Ignatiadis, Wang & Ramdas 2024).

The null stream below is replication seed 116 of ``benchmarks/calibrate_watch_champion.py``'s
:func:`stream` (6 equal systems, 4 uploads of 100 0/1 examples): found by scanning seeds
0–599 for a stream on which e-BH on the raw e-values marked a challenger of the best mean
(seeds 116, 118, 229 and 306 were the first four).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from benchmarks.calibrate_watch_champion import Design, rate, simulate, stream
from engine import open_store
from engine.products._watch_board import (
    CHAMPION_CHOSEN,
    CHAMPION_NAMED,
    champion_marks,
    selection_factor,
    watch_board,
)
from engine.stats._ebh import e_bh

SEED = 116


@pytest.fixture(scope="module")
def null_store(tmp_path_factory: pytest.TempPathFactory) -> object:
    frame, shifts = stream(np.random.default_rng(SEED), Design(6, 4, 100))
    assert len(set(shifts.values())) == 1  # every system equal: any mark is false
    store = open_store(f"sqlite:///{tmp_path_factory.mktemp('champ') / 's.db'}")
    for batch, part in frame.groupby("batch", sort=True):
        store.import_frame(part.drop(columns="batch").assign(benchmark="b", metric="acc"),
                           filename=f"{batch}.csv")
    return store


@pytest.mark.slow
def test_a_champion_chosen_on_the_same_data_marks_no_null_challenger(null_store: object) -> None:
    board = watch_board(null_store, "b", "acc", keep=False)  # type: ignore[arg-type]
    assert board.champion == "s5" and board.champion_rule == CHAMPION_CHOSEN
    assert board.selection_factor == 6.0
    raw = board.table["e_value"].to_numpy()
    # the old rule (e-BH on the raw e-values) marks a challenger of these equal systems
    assert e_bh(raw, alpha=0.05).rejected.sum() == 1
    assert not board.table["ebh_discovery"].any()
    # ebh in the challengers' order, the reports in the table's: compare as sets
    np.testing.assert_allclose(np.sort(board.ebh.e_values), np.sort(raw / 6))
    assert "best mean on these same results" in board.champion_note
    assert "divides each challenger's e-value by 6" in board.champion_note


def test_a_named_champion_takes_the_e_values_as_they_are(null_store: object) -> None:
    board = watch_board(null_store, "b", "acc", champion="s5", keep=False)  # type: ignore[arg-type]
    assert board.champion_rule == CHAMPION_NAMED and board.selection_factor == 1.0
    raw = board.table["e_value"].to_numpy()
    assert board.table["ebh_discovery"].tolist() == e_bh(raw, alpha=0.05).rejected.tolist()
    assert "was named" in board.champion_note


def test_the_factor_counts_the_pairs_that_could_be_shown() -> None:
    systems = ["a", "b", "c", "d"]
    assert selection_factor(systems, None, "a") == 4.0  # K: every other system a challenger
    # challengers c, d: champions a, b show 2 each, c and d 1 each: 6 pairs
    assert selection_factor(systems, ["c", "d"], "a") == 3.0
    assert selection_factor(systems, ["c", "d"], "c") == 6.0
    for champ in systems:  # factor × challengers shown = the pairs, whatever the choice
        shown = len([c for c in ["c", "d"] if c != champ])
        assert selection_factor(systems, ["c", "d"], champ) * shown == 6.0


def test_champion_marks_refuses_a_factor_below_one() -> None:
    with pytest.raises(ValueError, match="factor: must be a number ≥ 1"):
        champion_marks([1.0, 2.0], factor=0.5, alpha=0.05)
    # factor 1 is plain e-BH (Wang & Ramdas 2022): the example of engine.stats._ebh
    assert champion_marks([100.0, 50.0, 1.0, 0.5], factor=1, alpha=0.05).rejected.tolist() == \
        [True, True, False, False]


@pytest.mark.slow
def test_a_small_simulation_keeps_the_rule_calibrated() -> None:
    # 60 null replications of the calibration's design at 20 systems (where choosing on
    # the same data matters most); the full run (300 each) is the benchmark's
    got = simulate(60, 3, Design(20, 2, 100), ("chosen raw", "chosen"))
    r_chosen, se = rate(got["chosen"].false_any)
    assert r_chosen <= 0.05 + 1.96 * se
    assert rate(got["chosen raw"].false_any)[0] >= r_chosen


def test_the_simulated_stream_is_what_the_store_holds(null_store: object) -> None:
    frame, _ = stream(np.random.default_rng(SEED), Design(6, 4, 100))
    stored = null_store.load_frame("b", "acc")  # type: ignore[attr-defined]
    means = stored.groupby("system")["value"].mean()
    pd.testing.assert_series_equal(means, frame.groupby("system")["value"].mean())
