"""AppTests of the Overall page: the ranked systems (complete coverage) and the others by what
they ran, the headline, choices in the URL, pairs.

Two tests run on the bundled demo store (issue #25's acceptance: none of the first 10 ranked
rows has a *not run* cell; every system shown, none dropped; the headline's numbers are
the table's); the others on a small synthetic store (``pages_data_support``). Reference
values come from :func:`engine.overall` on the same data and choices.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path

import pytest
from apptest_support import TIMEOUT, app, no_exception
from pages_data_support import XSS, overall_frame, store_env
from streamlit.testing.v1 import AppTest

from app.components.overall_table import MISSING, UNRANKED
from app.tables import SHORT_LETTERS
from app.url import format_weights, parse_weights
from engine import overall
from engine.app_support import default_selection, overall_headline
from engine.store import open_store

PAGE = "views/overall.py"


class _Table(HTMLParser):
    """Header texts, cell texts and the data- attributes of the overall table."""

    def __init__(self) -> None:
        super().__init__()
        self.attrs: dict[str, str] = {}
        self.header: list[str] = []
        self.rows: list[list[str]] = []
        self.separators: list[int] = []  # rows that head a group of unranked systems
        self._cell: list[str] | None = None
        self._in_head = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "table":
            self.attrs = {k: v or "" for k, v in attrs}
        elif tag == "thead":
            self._in_head = True
        elif tag == "tbody":
            self._in_head = False
        elif tag == "tr" and not self._in_head:
            self.rows.append([])
            if ("class", "sep") in attrs:
                self.separators.append(len(self.rows) - 1)
        elif tag in ("td", "th"):
            self._cell = []

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._cell is not None:
            text = "".join(self._cell)
            (self.header if self._in_head else self.rows[-1]).append(text)
            self._cell = None


def overall_table(at: AppTest) -> _Table:
    bodies = [h.proto.body for h in at.get("html") if 'aria-label="overall"' in h.proto.body]
    assert len(bodies) == 1, "one overall table on the page"
    parser = _Table()
    parser.feed(bodies[0])
    return parser


def _run(**params: str | list[str]) -> AppTest:
    at = AppTest.from_file(str(Path(__file__).resolve().parents[2] / "app" / "main.py"),
                           default_timeout=TIMEOUT)
    for key, value in params.items():
        at.query_params[key] = value
    at.switch_page(PAGE)
    return at.run()


def system_rows(table: _Table) -> list[list[str]]:
    """The rows of systems (ranked, then unranked), without the group headings."""
    return [r for i, r in enumerate(table.rows) if i not in set(table.separators)]


def headline(at: AppTest) -> str:
    return next(m.value for m in at.markdown if m.value.startswith("**")).strip("*")


def values(at: AppTest, key: str) -> list[str]:
    """A query parameter's values (AppTest keeps a single value as a string)."""
    value = at.query_params[key]
    return list(value) if isinstance(value, list) else [value]


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """One synthetic store for the module (cached results are shared between its tests)."""
    with store_env(tmp_path_factory.mktemp("overall") / "sigboard.db", overall_frame()) as path:
        yield path


@pytest.mark.slow
def test_demo_store_ranks_the_largest_complete_block(db: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """The demo store's first view; it never loads the whole long table (#27 item 3: who
    ran what is one grouped query, each chosen benchmark's rows are read on their own)."""
    import app.data.store as data_store

    def whole_table(token: str) -> None:
        raise AssertionError("the Overall page loaded every stored result")

    monkeypatch.setattr(data_store, "long_table", whole_table)
    at = app(PAGE)
    no_exception(at)
    assert [t.value for t in at.title] == ["Overall"]
    table = overall_table(at)
    frame = open_store(f"sqlite:///{db}").load_frame()
    selection = default_selection(frame)
    assert set(selection.benchmarks) == {"humaneval", "humaneval+", "mbpp", "mbpp+"}
    assert set(table.header[5:]) == set(selection.benchmarks)
    ranked = int(table.attrs["data-rows"])
    assert ranked == len(selection.complete) == 37
    rows = system_rows(table)
    assert all(MISSING not in row for row in rows[:ranked]), "ranked rows ran every benchmark"
    assert all(row[0] != UNRANKED for row in rows[:ranked])
    assert all(row[0] == UNRANKED for row in rows[ranked:])
    present = set(frame.loc[frame["benchmark"].isin(selection.benchmarks), "system"])
    assert {row[1] for row in rows} == present, "every system of the chosen benchmarks shown"
    assert table.separators and all(table.rows[i][0].startswith("Not ranked — ran ")
                                    for i in table.separators)
    groups = [row[3] for row in rows[:ranked]]
    assert all(len(g) <= SHORT_LETTERS or re.fullmatch(r"ties with \d+", g) for g in groups), \
        "long letters read as a count: the row's one rank span is its rank set (#25, #29)"
    links = [p.proto.label for p in at.main.get("page_link")]
    assert any(label.startswith("Per benchmark") for label in links), \
        "the per-benchmark overview is one click away"


@pytest.mark.slow
def test_demo_headline_numbers_are_the_tables(db: Path) -> None:
    at = app(PAGE)
    no_exception(at)
    frame = open_store(f"sqlite:///{db}").load_frame()
    table = overall_table(at)
    chosen = table.header[5:]  # the page's order of the default selection
    assert set(chosen) == set(default_selection(frame).benchmarks)
    expected = overall(frame, benchmarks=chosen)
    text = headline(at).replace("\\", "")  # markdown escapes (md_text) removed
    assert text == overall_headline(expected)
    rows = system_rows(table)
    top = rows[0]
    tied = int(top[2].split("–")[1]) - 1  # rank range 1–k: k − 1 cannot be told apart
    assert text.replace("\\", "").startswith(f"{top[1]} ranks first of 37 systems")
    assert f"but {tied} systems cannot be told apart from it" in text
    assert f"({top[4].split('[')[0]})" in text, "the headline's score is the table's"


@pytest.mark.slow
def test_choice_of_benchmarks_and_weights_comes_from_the_url(small: Path) -> None:
    at = _run(bench=["b2", "b1"], bw=["b1:3"])
    no_exception(at)
    assert not at.warning
    table = overall_table(at)
    assert table.header[5:] == ["b2", "b1"], "the chosen benchmarks, in the chosen order"
    caption = next(c.value for c in at.caption if "weights:" in c.value)
    assert "b2 25%" in caption and "b1 75%" in caption
    assert values(at, "bench") == ["b2", "b1"] and values(at, "bw") == ["b1:3"]
    # the page's order matches the engine's on the same choice
    df = overall_frame()
    expected = overall(df, benchmarks=["b2", "b1"], benchmark_weights={"b1": 3, "b2": 1})
    rows = system_rows(table)
    ranked = list(expected.table["system"])
    assert [row[1] for row in rows[:len(ranked)]] == ranked
    assert "sys-f" not in ranked, "sys-f has no results on b2: not ranked"
    sys_f = next(row for row in rows if row[1] == "sys-f")
    assert sys_f[0] == UNRANKED and sys_f[5] == MISSING, "shown below, never dropped"


@pytest.mark.slow
def test_weight_widget_writes_the_url(small: Path) -> None:
    at = _run(bench=["b1", "b2"])
    no_exception(at)
    at.number_input(key="overall_w_1").set_value(2.0).run()
    no_exception(at)
    assert values(at, "bw") == ["b2:2"]
    caption = next(c.value for c in at.caption if "weights:" in c.value)
    assert "b2 67%" in caption


@pytest.mark.slow
def test_bad_url_values_are_reported_and_ignored(small: Path) -> None:
    at = _run(bench=["b1", "nope"], bw=["b1:-2", "zz:1"])
    no_exception(at)
    warnings = " ".join(w.value for w in at.warning)
    assert "nope" in warnings and "b1" in warnings and "zz" in warnings
    assert overall_table(at).header[5:] == ["b1"]


@pytest.mark.slow
def test_primary_metric_by_default_and_the_aggregate_by_choice(small: Path) -> None:
    at = _run(bench=["b3"])
    no_exception(at)
    assert at.multiselect(key="url_ometric").value == []  # the primary metric, m1
    header = overall_table(at).header
    at = _run(bench=["b3"], ometric=["m1", "m2"])
    no_exception(at)
    assert values(at, "ometric") == ["m1", "m2"]
    expected = overall(overall_frame(), benchmarks=["b3"], metrics=["m1", "m2"])
    assert expected.metrics["b3"] == ("m1", "m2")
    assert header[5] == "b3"
    assert overall_table(at).header[5] == "b3aggregate of 2 metrics", "the aggregate, labelled"


@pytest.mark.slow
def test_pairs_tab_orders_pairs_by_the_overall_test(small: Path) -> None:
    at = _run(bench=["b1", "b2"], otab="pairs")
    no_exception(at)
    pairs = at.dataframe[0].value
    assert list(pairs.columns[:6]) == ["system A", "system B", "difference", "adjusted p",
                                       "verdict", "differs somewhere p"]
    assert {"b1", "b2"} <= set(pairs.columns)
    assert pairs["adjusted p"].is_monotonic_increasing
    assert len(pairs) == 10, "the 5 ranked systems' pairs (sys-f ran b1 only)"
    assert not ((pairs["system A"] == "sys-f") | (pairs["system B"] == "sys-f")).any()
    top = pairs.iloc[0]
    assert top["verdict"] == "better" and top["system A"] == "sys-a"
    assert (pairs.loc[pairs["verdict"] == "better", "difference"] > 0).all()


def test_names_are_shown_as_text(small: Path) -> None:
    at = _run(bench=["b1"])
    no_exception(at)
    body = next(h.proto.body for h in at.get("html") if 'aria-label="overall"' in h.proto.body)
    assert XSS not in body and "&lt;img src=x onerror=alert(1)&gt;" in body
    assert XSS in {row[1] for row in system_rows(overall_table(at))}


def test_weights_parse_and_format() -> None:
    weights, problems = parse_weights(["a:2", "b:x", "c:1", "x:y:0.5"], ["a", "b", "x:y"])
    assert weights == {"a": 2.0, "x:y": 0.5}
    assert len(problems) == 2
    assert format_weights({"a": 2.0, "b": 1.0, "x:y": 0.5}) == ("a:2", "x:y:0.5")


@pytest.mark.slow
def test_groups_are_listed_under_the_pairs_tab(small: Path) -> None:
    """The maximal cliques are listed with the pairs (the systems tab shows letters only)."""
    systems = _run(bench=["b1", "b2"])
    no_exception(systems)
    assert not [e for e in systems.expander if "Groups of systems" in e.label]
    at = _run(bench=["b1", "b2"], otab="pairs")
    no_exception(at)
    expected = overall(overall_frame(), benchmarks=["b1", "b2"])
    label = next(e.label for e in at.expander if "Groups of systems" in e.label)
    assert f"({len(expected.cliques)})" in label
    listed = [t.value for t in at.text if t.value[:1].isdigit()]
    assert listed[0] == "1. " + ", ".join(expected.cliques[0])


@pytest.mark.slow
def test_a_leaderboard_opened_from_overall_tests_nothing_again(
        db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Overall tests each benchmark with the Leaderboard page's cached board (#27 item 3): the
    Leaderboard of a benchmark Overall combined then runs no test of its own."""
    import app.data.results as data_results

    no_exception(app(PAGE))

    def tested_again(*args: object, **kwargs: object) -> None:
        raise AssertionError("the Leaderboard tested the benchmark again")

    monkeypatch.setattr(data_results, "leaderboard", tested_again)
    at = app("views/leaderboard.py", benchmark="humaneval")
    no_exception(at)
    assert [t.value for t in at.title][0].startswith("Leaderboard")
