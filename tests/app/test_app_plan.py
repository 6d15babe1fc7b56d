"""AppTests of the Plan page (issue #16): detectable difference for n examples × r runs,
examples and runs needed, simulated power of each test; every choice and the seed in the URL.
Synthetic store (3 systems × 48 examples × 3 runs) so the simulations stay fast."""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path

import pytest
from apptest_support import app, no_exception
from pages_data_support import compare_frame, store_env

from engine import power

PAGE = "views/plan.py"


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    with store_env(tmp_path_factory.mktemp("plan") / "sigboard.db", compare_frame()) as path:
        yield path


def _metric(at, label: str) -> str:  # noqa: ANN001
    return next(m.value for m in at.metric if m.label == label)


@pytest.mark.slow
def test_defaults_plan_the_observed_design(store: Path) -> None:
    at = app(PAGE, benchmark="ab")
    no_exception(at)
    assert [t.value for t in at.title][0].startswith("Plan")
    # Reference: the engine's own planner on the same scores, as the page calls it.
    ref = power(compare_frame(), benchmark="ab", n_sim=500, rng=0)
    assert _metric(at, "Smallest detectable difference") == f"{ref.mdd:.4f}"
    assert at.number_input(key="url_pn").value == 48 and at.number_input(key="url_pr").value == 3
    grid = at.dataframe[0].value
    assert list(grid.columns) == ["examples", "1 run", "2 runs", "3 runs", "5 runs", "10 runs"]
    row = grid.set_index("examples").loc[48]
    assert row["3 runs"] == pytest.approx(ref.mdd, rel=1e-9)  # the grid's own design cell
    assert (grid.set_index("examples").diff().iloc[1:] < 0).all().all(), "more examples: smaller"
    rates = at.dataframe[1].value
    assert len(rates) == 6 and rates["power"].iloc[0] == pytest.approx(ref.power["paired-t"])
    assert "seed" not in at.query_params and "pn" not in at.query_params  # defaults stay out


@pytest.mark.slow
def test_design_difference_power_and_seed_from_the_url(store: Path) -> None:
    at = app(PAGE, benchmark="ab", pn="100", pr="2", pdiff="0.05", ppower="0.9", nsim="200",
             seed="3")
    no_exception(at)
    assert not at.warning
    ref = power(compare_frame(), benchmark="ab", difference=0.05, examples=100, runs=2,
                n_sim=200, rng=3, target_power=0.9)
    assert _metric(at, "Smallest detectable difference") == f"{ref.mdd:.4f}"
    needed = _metric(at, "Examples needed for 0.0500")
    assert needed == ("—" if ref.examples_needed is None else f"{ref.examples_needed:,}")
    assert _metric(at, "Runs needed for 0.0500") == (
        "—" if ref.runs_needed is None else f"{ref.runs_needed:,}")
    shown = at.dataframe[1].value["power"].tolist()
    want = [ref.power[k] for k in ref.power]
    assert all((a is None or (isinstance(a, float) and math.isnan(a))) if b is None
               else a == pytest.approx(b) for a, b in zip(shown, want, strict=True))
    for key, value in (("pn", "100"), ("pr", "2"), ("pdiff", "0.05"), ("ppower", "0.9"),
                       ("nsim", "200"), ("seed", "3")):
        assert at.query_params[key] == value, key


@pytest.mark.slow
def test_widgets_write_the_url(store: Path) -> None:
    at = app(PAGE, benchmark="ab")
    at.number_input(key="url_pn").set_value(80).run()
    no_exception(at)
    assert at.query_params["pn"] == "80"
    at.number_input(key="url_seed").set_value(7).run()
    assert at.query_params["seed"] == "7"
    assert "80 examples" in " ".join(c.value for c in at.caption)


def test_bad_url_values_fall_back_with_a_note(store: Path) -> None:
    at = app(PAGE, benchmark="ab", pdiff="-2", pn="1", nsim="7", ppower="2")
    no_exception(at)
    warnings = " ".join(w.value for w in at.warning)
    for name in ("`pdiff`", "`pn`", "`nsim`", "`ppower`"):
        assert name in warnings, name
    assert _metric(at, "Smallest detectable difference")  # still planned, with defaults


@pytest.mark.slow
def test_plan_is_linked_from_a_b_compare(store: Path) -> None:
    # issue #27: Plan is A/B compare's planning panel, no longer a top-level entry
    at = app("views/compare.py")
    assert "plan" in [link.proto.page for link in at.main.get("page_link")]
    assert "Plan" not in [link.proto.label for link in at.sidebar.get("page_link")]


@pytest.mark.slow
def test_binary_scores_plan_in_points(db: Path) -> None:
    """#27 plain units: on 0/1 scores (the demo's humaneval) the detectable difference, the
    planned one and the design grid are in points, the grid's observed-design cell equal to
    the figure above it (the grid showed 0.1458 under "14.6 points")."""
    at = app(PAGE, benchmark="humaneval")
    no_exception(at)
    shown = _metric(at, "Smallest detectable difference")
    assert shown.endswith(" points"), shown
    assert any(m.label.startswith("Examples needed for ") and m.label.endswith(" points")
               for m in at.metric)
    grid = at.dataframe[0].value.set_index("examples")
    assert grid.loc[164, "1 run"] == pytest.approx(float(shown.split()[0]), abs=0.05)


@pytest.mark.slow
def test_one_smallest_detectable_difference_on_every_page(store: Path) -> None:
    """Examples, A/B compare and Plan show the same smallest detectable difference, the
    engine's simulated one (the Examples page showed the health report's closed form)."""
    ref = power(compare_frame(), benchmark="ab", n_sim=500, rng=0)
    want = f"{ref.mdd:.4f}"
    for page, label in (("views/examples.py", "smallest detectable difference"),
                        ("views/compare.py", "Smallest detectable difference"),
                        (PAGE, "Smallest detectable difference")):
        at = app(page, benchmark="ab")
        no_exception(at)
        shown = next(m.value for m in at.metric if m.label == label)
        assert shown == want, (page, shown, want)
