"""The slice in the URL (``scol``/``sval``/``sbins``, app/url.py): parsed, validated, carried."""

from __future__ import annotations

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.url import PAGE_PARAMS, SLICE_BINS, View, check_slice, parse_view

CATALOG = pd.DataFrame({"benchmark": ["b", "b"], "metric": ["m", "n"]})
SLICES = {"lang": ("python", "rust"), "len": ("q1 [2, 10]", "q2 [10, 40]")}


def test_slice_parameters_are_read_and_written_back() -> None:
    view, problems = parse_view({"scol": ["lang"], "sval": ["python"], "sbins": ["5"]}, CATALOG)
    assert problems == []
    assert (view.scol, view.sval, view.sbins) == ("lang", "python", 5)
    assert view.params("leaderboard") == {"benchmark": "b", "metric": "m", "scol": "lang",
                                          "sval": "python", "sbins": "5"}
    assert {"scol", "sval", "sbins"} <= set(view.params("pairwise"))
    # the Slices page reads the column and its bins, not the slice a leaderboard showed
    assert set(view.params("slices")) == {"benchmark", "metric", "scol", "sbins"}
    assert "sval" not in PAGE_PARAMS["slices"]
    for page in ("overall", "examples", "mechanisms", "compare"):
        assert "sval" not in view.params(page), page


def test_a_slice_without_its_column_is_dropped_with_a_message() -> None:
    view, problems = parse_view({"sval": ["python"]}, CATALOG)
    assert view.sval == "" and len(problems) == 1
    assert "`sval`" in problems[0] and "`scol`" in problems[0]


def test_bins_outside_the_choices_fall_back_to_the_default() -> None:
    view, problems = parse_view({"sbins": ["1"]}, CATALOG)
    assert view.sbins == View().sbins == 4 and len(problems) == 1
    assert all(str(n) in problems[0] for n in SLICE_BINS)


def test_check_slice_keeps_a_known_slice() -> None:
    view = View(benchmark="b", scol="len", sval="q2 [10, 40]")
    assert check_slice(view, SLICES) == (view, [])
    assert check_slice(View(benchmark="b"), {}) == (View(benchmark="b"), [])
    column_only = View(benchmark="b", scol="lang")
    assert check_slice(column_only, SLICES) == (column_only, [])


def test_unknown_column_names_the_columns_that_exist() -> None:
    view, problems = check_slice(View(benchmark="b", scol="language", sval="python"), SLICES)
    assert (view.scol, view.sval) == ("", "")
    assert len(problems) == 1 and "lang" in problems[0] and "len" in problems[0]
    assert "Showing all examples" in problems[0]
    _, none = check_slice(View(benchmark="b", scol="lang", sval="python"), {})
    assert "no per-example columns" in none[0]


def test_unknown_slice_names_the_slices_of_the_column() -> None:
    view, problems = check_slice(View(benchmark="b", scol="lang", sval="go"), SLICES)
    assert (view.scol, view.sval) == ("lang", "")
    assert "python" in problems[0] and "rust" in problems[0] and "go" in problems[0]


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(st.text(max_size=30), st.text(max_size=30))
def test_any_url_text_gives_a_valid_view_or_a_message(column: str, value: str) -> None:
    """Invariant: whatever the URL holds, the checked view names an existing slice or none,
    and a dropped value comes with a message (markup in it is escaped)."""
    raw = {k: [v] for k, v in (("scol", column), ("sval", value)) if v}
    view, problems = parse_view(raw, CATALOG)
    checked, more = check_slice(view, SLICES)
    assert checked.scol in ("", *SLICES)
    assert checked.sval == "" or checked.sval in SLICES[checked.scol]
    dropped = (bool(value) and not checked.sval) + (bool(column) and not checked.scol)
    assert len(problems) + len(more) >= min(dropped, 1)
    for message in problems + more:
        assert "<" not in message.replace("\\<", "")
