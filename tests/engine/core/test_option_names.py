"""One vocabulary: every value each test option accepts has exactly one display name, in
engine.OPTION_NAMES, and the app's menus and the engine's sentences read that table."""

from __future__ import annotations

import numpy as np

import engine
from engine._options import ALL_TESTS
from engine.stats._resolution import resolution


def test_every_option_value_has_one_name() -> None:
    want = {"test": ALL_TESTS, "correction": engine.CORRECTIONS,
            "compare": engine.COMPARISONS, "alternative": engine.ALTERNATIVES,
            "criterion": engine.CRITERIA, "paired": ("auto", "paired", "unpaired")}
    assert {k: tuple(v) for k, v in engine.OPTION_NAMES.items()} == {
        k: tuple(v) for k, v in want.items()}
    for kind, names in engine.OPTION_NAMES.items():
        assert len(set(names.values())) == len(names), f"{kind}: two values, one name"


def test_the_app_menus_are_the_engine_table() -> None:
    from app import widgets

    assert widgets.TEST_NAMES is engine.OPTION_NAMES["test"]
    assert widgets._CORRECTION_NAMES is engine.OPTION_NAMES["correction"]


def test_an_unseparable_board_names_its_test_and_correction_from_the_table() -> None:
    # 3 systems on 4 paired 0/1 examples: the smallest exact McNemar p, 2 * 0.5**4 = 0.125,
    # is above any threshold at alpha = 0.05 (the exact binomial test's floor)
    got = resolution(test="mcnemar", examples=np.array([4, 4, 4]), alternative="two-sided",
                     alpha=0.05, correction="holm-sidak", systems=3, sd_difference=0.5)
    assert not got.can_separate
    assert "(Holm–Šídák over 3 pair(s))" in got.message
    assert "the exact McNemar test can reach" in got.message
