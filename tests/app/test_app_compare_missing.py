"""The A/B compare page when one system lacks examples the other has: the same "cannot
decide" as ``sigboard compare`` (exit 2), with the same sentence, in the headline and beside
the verdict; a complete pair keeps its verdict.

The data: ``dropped_failures`` of tests/cli/test_cli_missing_gate.py, built again here (300
hand-built 0/1 examples, no true difference; the candidate's harness dropped 60 of its
failures). Reference: the engine's :func:`missing_bounds` on the same table, as the command
line calls it.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from apptest_support import app, no_exception
from pages_data_support import store_env

from engine import compare_ab
from engine.app_support import md_text, missing_bounds

# every test here takes seconds: ./scripts/test.sh --fast leaves them out
pytestmark = pytest.mark.slow

PAGE = "views/compare.py"


def dropped_failures() -> pd.DataFrame:
    base = np.r_[np.ones(90), np.ones(60), np.zeros(60), np.zeros(90)]
    cand = np.r_[np.ones(90), np.zeros(60), np.ones(60), np.zeros(90)]
    keep = np.ones(300, bool)
    keep[np.arange(90, 150, 2)] = False
    keep[np.arange(210, 300, 3)] = False
    ids = np.array([f"e{i:03d}" for i in range(300)])
    frame = pd.DataFrame({"benchmark": "b", "metric": "acc",
                          "system": ["base"] * 300 + ["cand"] * int(keep.sum()),
                          "example_id": np.r_[ids, ids[keep]], "value": np.r_[base, cand[keep]]})
    complete = pd.DataFrame({"benchmark": "full", "metric": "acc",
                             "system": ["base"] * 300 + ["cand"] * 300,
                             "example_id": np.r_[ids, ids], "value": np.r_[base, cand]})
    return pd.concat([frame, complete, many_systems()], ignore_index=True)


def many_systems() -> pd.DataFrame:
    """10 equal systems on 164 0/1 examples of varied difficulty; s9 drops each failure with
    probability 0.5 (``_scores`` of tests/engine/stats/test_missing.py, seed 2)."""
    rng = np.random.default_rng(2)
    difficulty = rng.normal(0, 1.5, 164)
    x = (rng.random((10, 164)) < 1 / (1 + np.exp(-(0.5 - difficulty)))).astype(float)
    x[-1][(x[-1] == 0) & (rng.random(164) < 0.5)] = np.nan
    rows = [("many", f"s{s}", f"e{i:03d}", "acc", x[s, i]) for s in range(10)
            for i in range(164) if not np.isnan(x[s, i])]
    return pd.DataFrame(rows, columns=["benchmark", "system", "example_id", "metric", "value"])


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    with store_env(tmp_path_factory.mktemp("missing") / "sigboard.db", dropped_failures()) as p:
        yield p


def test_the_page_cannot_decide_as_the_command_line(store: Path) -> None:
    frame = dropped_failures()
    frame = frame[frame["benchmark"] == "b"]
    res = compare_ab(frame, baseline="base", candidate="cand")
    bounds = missing_bounds(frame, res)
    assert res.verdict == "candidate is significantly better" and not bounds.decided
    at = app(PAGE, benchmark="b", base="base", cand="cand")
    no_exception(at)
    shown = " ".join(m.value for m in at.markdown)
    assert "Cannot decide (the gate exits 2):" in shown
    sentence = md_text(bounds.sentence(flag=None))
    assert sentence in shown
    warnings = [w.value for w in at.warning]
    assert any("cannot decide" in w and "Verdict" in w for w in warnings), warnings
    assert any(sentence in w for w in warnings), warnings
    assert not at.success  # no green "significantly better" box


def test_a_complete_pair_keeps_its_verdict(store: Path) -> None:
    at = app(PAGE, benchmark="full", base="base", cand="cand")
    no_exception(at)
    assert "Cannot decide" not in " ".join(m.value for m in at.markdown)
    assert not [w.value for w in at.warning if "exit 2" in w.value]


def test_missing_not_at_random_among_many_systems_cannot_decide(store: Path) -> None:
    res = compare_ab(many_systems(), baseline="s0", candidate="s9")
    assert not res.decided
    at = app(PAGE, benchmark="many", base="s0", cand="s9")
    no_exception(at)
    assert "Cannot decide (the gate exits 2):" in " ".join(m.value for m in at.markdown)
    assert not at.success
