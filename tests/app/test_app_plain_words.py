"""Plain words on first screens, names of tests in tooltips (#27 item 5): the Plan page's two
tables have a tooltip on every column with its unit, A/B compare says how it decided in words
(the model and its statistics by name in the tooltip), and the sidebar's summary of the test
settings names the error rate, not the correction.

No external reference: the names checked are the app's own (app.widgets, app.charts.compare).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from apptest_support import app, no_exception
from pages_data_support import compare_frame, store_env

#: Names that belong in tooltips and on Methods, not in first-screen text.
JARGON = ("McNemar", "Holm", "Šídák", "Satterthwaite", "PWPP", "vc-t", "MixedLM", "Cohen",
          "Monte Carlo", "variance-components")


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    with store_env(tmp_path_factory.mktemp("plain") / "sigboard.db", compare_frame()) as path:
        yield path


def _screen_text(at) -> str:  # noqa: ANN001
    """Every caption, markdown, metric label and alert body (not their tooltips)."""
    parts = [e.value for kind in ("caption", "markdown", "info", "success", "warning", "error")
             for e in at.get(kind)]
    return " ".join([*parts, *(m.label for m in at.metric)])


def _column_help(frame) -> dict[str, str]:  # noqa: ANN001
    config = json.loads(frame.proto.columns or "{}")
    return {name.removeprefix("name:"): c.get("help", "") for name, c in config.items()}


def test_plan_tables_have_a_tooltip_with_units_on_every_column(store: Path) -> None:
    at = app("views/plan.py", benchmark="ab")
    no_exception(at)
    design, power = at.dataframe[0], at.dataframe[1]
    for frame in (design, power):
        helps = _column_help(frame)
        assert set(frame.value.columns) <= {c for c, h in helps.items() if h}, helps
    helps = _column_help(design)
    assert "a count" in helps["examples"]
    assert all("score units" in helps[c] for c in design.value.columns if c != "examples")
    helps = _column_help(power)
    assert "percent" in helps["power"] and "percentage points" in helps["±"]
    assert "exact McNemar" in helps["test"], "the tests by name, in the tooltip"
    assert not [j for j in JARGON if j in " ".join(map(str, power.value["test"]))]
    assert not [j for j in JARGON if j in _screen_text(at)], _screen_text(at)


@pytest.mark.slow
def test_compare_says_how_it_decided_in_words_and_names_the_model_in_the_tooltip(
        store: Path) -> None:
    at = app("views/compare.py", benchmark="ab")  # 3 runs per example: a run-aware model
    no_exception(at)
    decided = next(c for c in at.caption if "How it was decided" in c.value)
    assert "3 and 3 runs per example" in decided.value
    assert not [j for j in JARGON if j in decided.value], decided.value
    assert decided.proto.help, "the model by name and its statistics, in the tooltip"
    assert not [j for j in JARGON if j in _screen_text(at)], _screen_text(at)


def test_sidebar_summary_names_the_error_rate_not_the_correction(store: Path) -> None:
    at = app("views/leaderboard.py", benchmark="ab")
    summary = next(c for c in at.sidebar.caption if c.value.startswith(":material/tune:"))
    assert "chance of any false difference ≤ α" in summary.value
    assert "Šídák" not in summary.value and "Holm–Šídák" in summary.proto.help
