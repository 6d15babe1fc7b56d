"""Issue #26 item 5 on the pages: a benchmark too small for any pair to be significant says so
on the Pairwise and A/B compare pages, in plain words, with the engine's figures
(engine.stats._resolution: the smallest exact McNemar p on 6 examples is 2·0.5⁶ = 0.03125,
below 0.05 for one pair, but above Holm–Šídák's first threshold 0.05/… for 4 systems)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from apptest_support import app, no_exception
from pages_data_support import store_env


def _tiny() -> pd.DataFrame:
    rng = np.random.default_rng(0)
    return pd.DataFrame([("tiny", f"s{s}", f"e{i}", "acc", float(rng.random() < 0.5))
                         for s in range(4) for i in range(6)],
                        columns=["benchmark", "system", "example_id", "metric", "value"])


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    with store_env(tmp_path_factory.mktemp("tiny") / "sigboard.db", _tiny()) as path:
        yield path


@pytest.mark.slow
def test_pairwise_page_says_no_pair_can_be_significant(store: Path) -> None:
    at = app("views/pairwise.py", benchmark="tiny")
    no_exception(at)
    text = " ".join(i.value for i in at.info)
    assert "No pair can be significant on this benchmark, whatever the scores" in text
    assert "6 examples cannot separate 4 systems" in text


@pytest.mark.slow
def test_compare_page_says_so_for_a_pair_on_five_examples(tmp_path: Path) -> None:
    frame = _tiny()[lambda d: d["example_id"] != "e5"]  # 5 examples: smallest p 0.0625
    with store_env(tmp_path / "sigboard.db", frame):
        at = app("views/compare.py", benchmark="tiny", base="s0", cand="s1")
        no_exception(at)
        text = " ".join(i.value for i in at.info)
        assert "No difference can be significant here, whatever the scores" in text
        assert "5 examples cannot separate 2 systems" in text
