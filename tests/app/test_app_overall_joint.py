"""AppTests of the Overall page's "model all systems" choice (the joint model of the matrix).

On a small synthetic store (``pages_data_support.overall_frame`` plus a benchmark three
other systems alone ran, for the refusal and the default that leaves it out) and on the
bundled demo store. Reference values: :func:`engine.app_support.joint_model` on the same
rows and choices.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from apptest_support import TIMEOUT, no_exception
from pages_data_support import XSS, overall_frame, store_env
from streamlit.testing.v1 import AppTest

from engine.app_support import connected_selection, joint_headline, joint_model
from engine.store import open_store

PAGE = "views/overall.py"
MAIN = str(Path(__file__).resolve().parents[2] / "app" / "main.py")


def _frame() -> pd.DataFrame:
    g = np.random.default_rng(3)
    lone = [("lone", s, f"l{i}", "pass1", float(g.random() < 0.5))
            for s in ("x1", "x2", "x3") for i in range(30)]
    return pd.concat([overall_frame(), pd.DataFrame(lone, columns=overall_frame().columns)],
                     ignore_index=True)


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    with store_env(tmp_path_factory.mktemp("joint") / "sigboard.db", _frame()) as path:
        yield path


def _run(**params: str | list[str]) -> AppTest:
    at = AppTest.from_file(MAIN, default_timeout=TIMEOUT)
    for key, value in params.items():
        at.query_params[key] = value
    at.switch_page(PAGE)
    return at.run()


def _headline(at: AppTest) -> str:
    return next(m.value for m in at.markdown if m.value.startswith("**")).strip("*")


@pytest.mark.slow
def test_model_all_systems_ranks_everyone(small: Path) -> None:
    at = _run(omodel="irt")
    no_exception(at)
    frame = open_store(f"sqlite:///{small}").load_frame()
    kept, left = connected_selection(frame)
    assert (kept, left) == (("b1", "b2", "b3"), ("lone",))
    expected = joint_model(frame, benchmarks=list(kept))
    table = at.dataframe[0].value
    assert table["system"].tolist() == expected.table["system"].tolist()
    assert XSS in table["system"].tolist(), "an uploaded name is shown as text, inert"
    assert _headline(at).replace("\\", "") == joint_headline(expected)
    captions = " ".join(c.value for c in at.caption).replace("\\", "")
    assert "1 of 18 cells missing" in captions
    assert "left out: lone" in captions
    assert "Worst-fitting benchmark:" in captions
    charts = list(at.get("arrow_vega_lite_chart") or at.get("vega_lite_chart"))
    assert len(charts) == 1, "the chart, from the same fit"
    assert at.query_params["omodel"] == "irt"


def test_the_choice_is_kept_in_the_url(small: Path) -> None:
    at = _run()
    no_exception(at)
    assert "omodel" not in at.query_params, "complete block only stays the default"
    at.radio(key="url_omodel").set_value("irt").run()
    no_exception(at)
    assert at.query_params["omodel"] == "irt"
    assert len(at.dataframe) >= 1 and "rank set" in at.dataframe[0].value.columns


def test_refuses_what_it_cannot_place(small: Path) -> None:
    at = _run(omodel="irt", bench=["b1", "lone"])
    no_exception(at)
    errors = [e.value for e in at.error]
    assert any("share no benchmark with the others" in e for e in errors), errors
    assert "cannot rank these systems together" in _headline(at)


@pytest.mark.slow
def test_demo_store_ranks_every_placeable_system(db: Path) -> None:
    """The demo store: every system of the benchmarks the model can link is ranked (all but
    lcb_codegen's, which no system that ran it ran anything else: 132 of 190), and a system
    that ran 2 of the 6 has a rank set at least as wide as any system that ran all 6."""
    at = _run(omodel="irt")
    no_exception(at)
    frame = open_store(f"sqlite:///{db}").load_frame()
    kept, left = connected_selection(frame)
    assert left == ("lcb_codegen",)
    table = at.dataframe[0].value
    present = set(frame.loc[frame["benchmark"].isin(kept), "system"])
    assert set(table["system"]) == present and len(present) == 132
    width = table["rank set"].map(lambda s: int(s.split("–")[-1]) - int(s.split("–")[0]))
    runs = table["benchmarks run"].map(lambda s: int(s.split()[0]))
    assert width[runs == 2].max() >= width[runs == 6].max()
    print(f"demo: {len(table)} systems ranked; rank-set width of systems that ran 2 of 6: "
          f"median {width[runs == 2].median():.0f}, of those that ran all 6: "
          f"max {width[runs == 6].max()}")
