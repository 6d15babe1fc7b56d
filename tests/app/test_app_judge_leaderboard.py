"""AppTests of the Leaderboard on a judge metric whose human labels are linked in the store
(``engine.store._judge_links``): one answer per page. The headline's count of differing pairs
is the PPI++ board's (``engine.judge_board``, the Judge page's and ``sigboard judge``'s), the
ranked table and the charts beside it rank the same corrected estimates (nothing on the page
is the judge's own uncorrected ranking), and no other "N of M pairs differ" is on the page.

Synthetic data (made here): 4 systems × 400 examples, human labels with means 60–70, the
judge biased by −6, 0, +6, +3 points with noise SD 8, half the examples labelled by a human
under the metric name ``expert`` (not a ``human_…`` name: only the link makes it the human
metric). Reference: ``judge_board`` on the stored long table.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from apptest_support import app, html_frame, no_exception
from pages_data_support import store_env

from engine import judge_board, open_store
from engine.store._judge_links import link_judge

PAGE = "views/leaderboard.py"
COUNT = re.compile(r"(\d+) of (\d+) pairs[^.]*? differ")


def _long(seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    s, e = 4, 400
    h = np.linspace(60, 70, s)[:, None] + rng.normal(0, 20, (s, e))
    j = h + np.array([-6.0, 0.0, 6.0, 3.0])[:, None] + rng.normal(0, 8, (s, e))
    lab = np.broadcast_to(rng.random(e) < 0.5, (s, e))
    wide = pd.DataFrame({"benchmark": "judged",
                         "system": np.repeat([f"s{i}" for i in range(s)], e),
                         "example_id": np.tile([f"e{k}" for k in range(e)], s),
                         "rating": j.ravel(), "expert": np.where(lab, h, np.nan).ravel()})
    return (wide.melt(id_vars=["benchmark", "system", "example_id"], var_name="metric",
                      value_name="value").dropna(subset=["value"]).reset_index(drop=True))


@pytest.fixture
def linked(tmp_path: Path) -> Iterator[Path]:
    with store_env(tmp_path / "sigboard.db", _long()) as path:
        store = open_store(f"sqlite:///{path}")
        link_judge(store, "judged", "rating", "expert")
        store.close()
        yield path


def _texts(at) -> list[str]:  # noqa: ANN001 - AppTest
    return [e.value for kind in ("markdown", "caption", "info", "warning", "success")
            for e in getattr(at, kind)]


def test_the_pages_one_count_of_differing_pairs_is_the_ppi_boards(linked: Path) -> None:
    frame = open_store(f"sqlite:///{linked}").load_frame("judged")
    ref = judge_board(frame, judge="rating", human="expert", benchmark="judged")
    want = (int(ref.pairs.table["significant"].sum()), len(ref.pairs.table))
    at = app(PAGE, benchmark="judged", metric="rating")
    no_exception(at)
    head = next(m.value for m in at.markdown if m.value.startswith("**"))
    head = head.replace("\u2068", "").replace("\u2069", "")  # isolates around names
    counts = [tuple(map(int, m.groups())) for t in _texts(at) for m in COUNT.finditer(t)]
    assert counts == [want], "one count of differing pairs, the PPI++ board's, on the page"
    assert COUNT.search(head) and "human-label scale" in head
    assert f"{ref.table['system'].iloc[0]} leads on judge scores corrected" in head
    shown = html_frame(at, "judge corrected")
    assert shown["system"].tolist() == ref.table["system"].tolist()
    labels = _texts(at)
    assert not any("uncorrected" in t for t in labels), "one ranking on the page"


def test_a_metric_without_human_labels_keeps_its_own_count(linked: Path) -> None:
    at = app(PAGE, benchmark="judged", metric="expert")
    no_exception(at)
    counts = [m.groups() for t in _texts(at) for m in COUNT.finditer(t)]
    assert len(counts) == 1 and counts[0][1] == "6"
    assert not any("uncorrected" in t for t in _texts(at))
