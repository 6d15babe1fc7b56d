"""AppTests of slices (#18 item 3): the Slices page, and the Leaderboard and Pairwise pages
restricted to one slice (``scol``/``sval`` in the URL).

Data: the demo store (no per-example attribute in any demo benchmark) plus AlpacaEval 2.0
(tests/data/README.md), whose `subset` (the source dataset of each of the 805
instructions) and `len_output_1` (the length of the reference output) are real
per-example columns. Eight systems keep the tests quick. Reference values come from the
engine itself: ``engine.restrict_to_slice`` then ``engine.leaderboard`` on the same rows,
and ``engine.slice_table``.
"""

from __future__ import annotations

import shutil
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import numpy as np
import pandas as pd
import pytest
from apptest_support import app, no_exception, params, ranked
from streamlit.testing.v1 import AppTest

from engine import build_matrix, leaderboard, read_results, slice_table
from engine.app_support import restrict_to_slice
from engine.store import open_store

ROOT = Path(__file__).resolve().parents[2]
ALPACA_FILE = ROOT / "tests" / "data" / "alpaca-eval" / "alpaca_eval2_weighted_gpt4_turbo_long.jsonl.gz"
BENCH = "alpaca_eval2_weighted_gpt4_turbo"
SLICES = ("helpful_base", "koala", "oasst", "selfinstruct", "vicuna")  # AlpacaEval's 5 sources


@pytest.fixture(scope="module")
def alpaca() -> pd.DataFrame:
    """AlpacaEval restricted to its first 8 systems by name (all 805 instructions)."""
    df = read_results(ALPACA_FILE)
    keep = sorted(df["system"].unique())[:8]
    out = df[df["system"].isin(keep)].reset_index(drop=True)
    out.attrs = df.attrs
    return out


@pytest.fixture(scope="module")
def alpaca_template(template_db: Path, alpaca: pd.DataFrame,
                    tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("slices") / "sigboard.db"
    shutil.copy(template_db, path)
    store = open_store(f"sqlite:///{path}")
    store.import_frame(alpaca, filename="alpaca_eval 8 systems")
    store.close()
    return path


@pytest.fixture
def alpaca_db(db: Path, alpaca_template: Path) -> Path:
    """This test's copy of the demo store plus AlpacaEval (the app's environment points at it)."""
    shutil.copy(alpaca_template, db)
    return db


class _Tables(HTMLParser):
    """Header texts, header links and body cells of the HTML tables of one element."""

    def __init__(self) -> None:
        super().__init__()
        self.header: list[str] = []
        self.links: dict[str, str] = {}
        self.rows: list[list[str]] = []
        self._cell: list[str] | None = None
        self._href = ""
        self._small = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "tr":
            self.rows.append([])
        elif tag in ("td", "th"):
            self._cell, self._href = [], ""
        elif tag == "a":
            self._href = dict(attrs).get("href") or ""
        elif tag == "small":
            self._small = True
            if self._cell is not None:
                self._cell.append(" ")

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag == "small":
            self._small = False
        if tag in ("td", "th") and self._cell is not None:
            text = "".join(self._cell).strip()
            if tag == "th":
                self.header.append(text.split(" ")[0])
                if self._href:
                    self.links[text.split(" ")[0]] = self._href
            else:
                self.rows[-1].append(text)
            self._cell = None


def _table(at: AppTest, label: str) -> _Tables:
    bodies = [h.proto.body for h in at.get("html") if f'aria-label="{label}"' in h.proto.body]
    assert len(bodies) == 1, f"one {label} table"
    parser = _Tables()
    parser.feed(bodies[0])
    parser.rows = [r for r in parser.rows if r]
    return parser


def _texts(elements: object) -> list[str]:
    return [str(e.value) for e in elements]  # type: ignore[attr-defined]


def _plain(text: str) -> str:
    """A message without the isolates and markdown escapes that make names inert."""
    return text.replace("\u2068", "").replace("\u2069", "").replace("\\", "")


def _slice_board(alpaca: pd.DataFrame, column: str, value: str) -> pd.DataFrame:
    part = restrict_to_slice(alpaca, column=column, value=value)
    return leaderboard(build_matrix(part), bt_resamples=0).table


@pytest.mark.slow
def test_slices_page_shows_each_system_per_subset(alpaca_db: Path, alpaca: pd.DataFrame) -> None:
    at = app("views/slices.py", benchmark=BENCH)
    no_exception(at)
    assert params(at)["scol"] == "subset", "categories are offered before numbers"
    table = _table(at, "slices")
    assert table.header == ["system", *SLICES]
    assert len(table.rows) == 8 and all(len(r) == 1 + len(SLICES) for r in table.rows)
    # each cell: the slice's mean and its interval in the metric's units (AlpacaEval's 1–2
    # preference is not 0/1: four decimals, as engine._units writes every page's scores);
    # reference: engine.slice_table
    ref = slice_table(alpaca, column="subset").estimates.set_index(["system", "slice"])
    for row in table.rows:
        for name, cell in zip(SLICES, row[1:], strict=True):
            mean, low, high = (float(x) for x in cell.replace("[", "").replace("]", "")
                               .replace(",", "").split())
            exp = ref.loc[(row[0], name)]
            assert (mean, low, high) == tuple(round(float(exp[c]), 4)
                                               for c in ("mean", "ci_low", "ci_high"))
    # each slice links to the leaderboard of that slice (with the current benchmark and metric)
    query = parse_qs(urlparse(table.links["koala"]).query)
    assert urlparse(table.links["koala"]).path == "leaderboard"
    assert query["scol"] == ["subset"] and query["sval"] == ["koala"]
    assert query["benchmark"] == [BENCH]
    changes = _table(at, "slice changes") if any(
        'aria-label="slice changes"' in h.proto.body for h in at.get("html")) else None
    expected = slice_table(alpaca, column="subset").changes
    assert (0 if changes is None else len(changes.rows)) == min(len(expected), 100)


@pytest.mark.slow
def test_slice_link_restricts_the_leaderboard_as_the_engine_does(
        alpaca_db: Path, alpaca: pd.DataFrame) -> None:
    at = app("views/leaderboard.py", benchmark=BENCH, scol="subset", sval="koala")
    no_exception(at)
    notes = [_plain(t) for t in _texts(at.info)]
    # AlpacaEval: 156 of the 805 instructions come from koala
    assert "Only examples with subset = koala (156 of 805)" in notes
    shown, links = ranked(at)
    ref = _slice_board(alpaca, "subset", "koala")
    assert list(shown["system"]) == list(ref["system"])
    assert list(shown["mean"]) == [f"{m:.4f}" for m in ref["mean"]]
    assert list(shown["n"]) == [str(int(n)) for n in ref["n"]]
    assert list(shown["rank"]) == [str(int(r)) for r in ref["rank"]]
    # the rows open the pair on the Pairwise page of the same slice
    query = parse_qs(urlparse(next(iter(links.values()))).query)
    assert query["scol"] == ["subset"] and query["sval"] == ["koala"]
    labels = [p.proto.label for p in at.main.get("page_link")]
    assert "Show all examples" in labels
    clear = next(p for p in at.main.get("page_link") if p.proto.label == "Show all examples")
    assert "sval" not in clear.proto.query_string
    # the slice's numbers differ from the whole benchmark's (the restriction took effect)
    whole = leaderboard(build_matrix(alpaca), bt_resamples=0).table
    assert not np.allclose(whole.set_index("system")["mean"].sort_index(),
                           ref.set_index("system")["mean"].sort_index())


@pytest.mark.slow
def test_pairwise_page_tests_the_slice(alpaca_db: Path, alpaca: pd.DataFrame) -> None:
    at = app("views/pairwise.py", benchmark=BENCH, scol="subset", sval="vicuna", panel="table")
    no_exception(at)
    assert "Only examples with subset = vicuna (80 of 805)" in [_plain(t) for t in
                                                                 _texts(at.info)]
    part = restrict_to_slice(alpaca, column="subset", value="vicuna")
    ref = leaderboard(build_matrix(part), bt_resamples=0).pairwise.table
    shown = at.dataframe[0].value
    key = ["system A", "system B"]
    got = shown.set_index(key)["adjusted p"].sort_index()
    exp = ref.rename(columns={"system_a": "system A", "system_b": "system B"}).set_index(key)
    np.testing.assert_allclose(got, exp["pvalue_adj"].loc[got.index], rtol=1e-12)
    assert (shown["n"] == 80).all()


@pytest.mark.slow
def test_numeric_column_slices_are_quantile_bins(alpaca_db: Path, alpaca: pd.DataFrame) -> None:
    at = app("views/slices.py", benchmark=BENCH, scol="len_output_1")
    no_exception(at)
    table = _table(at, "slices")
    assert [h[:2] for h in table.header[1:]] == ["q1", "q2", "q3", "q4"]
    first = next(iter(table.links))
    query = {k: v[0] for k, v in parse_qs(urlparse(table.links[first]).query).items()}
    board = app("views/leaderboard.py", **query)
    no_exception(board)
    n = restrict_to_slice(alpaca, column="len_output_1", value=query["sval"])["example_id"]
    assert f"({n.nunique()} of 805)" in " ".join(_texts(board.info))
    shown, _ = ranked(board)
    ref = _slice_board(alpaca, "len_output_1", query["sval"])
    assert list(shown["mean"]) == [f"{m:.4f}" for m in ref["mean"]]


@pytest.mark.parametrize(("query", "needle"), [
    ({"scol": "language", "sval": "python"}, "is not a per-example column"),
    ({"scol": "subset", "sval": "<b>python</b>"}, "is not a slice of"),
    ({"sval": "koala"}, "needs `scol`"),
])
@pytest.mark.slow
def test_bad_slice_in_the_url_gives_a_message_not_a_crash(
        alpaca_db: Path, query: dict[str, str], needle: str) -> None:
    at = app("views/leaderboard.py", benchmark=BENCH, **query)
    no_exception(at)
    warnings = _texts(at.warning)
    assert any(needle in w for w in warnings), warnings
    assert "Only examples" not in " ".join(_texts(at.info))
    shown, _ = ranked(at)
    assert len(shown) == 8  # the whole benchmark is shown
    assert "sval" not in params(at)


@pytest.mark.slow
def test_demo_benchmark_without_example_attributes_says_so(db: Path) -> None:
    at = app("views/slices.py", benchmark="humaneval")
    no_exception(at)
    info = " ".join(_texts(at.info))
    assert "has no information about its examples to split it by" in info
    at = app("views/leaderboard.py", benchmark="humaneval", scol="language", sval="python")
    no_exception(at)
    assert any("no per-example columns" in w for w in _texts(at.warning))


@pytest.mark.slow
def test_across_metrics_panel_and_links_keep_the_slice(alpaca_db: Path) -> None:
    at = app("views/pairwise.py", benchmark=BENCH, scol="subset", sval="koala", panel="metrics")
    no_exception(at)
    labels = {p.proto.label: p.proto.query_string for p in at.main.get("page_link")}
    assert "sval" not in labels["Show all examples"]
    assert "scol=subset" in labels["Compare the slices"]
    assert "sval" not in labels["Compare the slices"]
    # a column kept from the Slices page without a slice: nothing restricted, nothing to warn
    at = app("views/leaderboard.py", benchmark="humaneval", scol="subset")
    no_exception(at)
    assert not at.warning and "Only examples" not in " ".join(_texts(at.info))


def test_data_key_carries_any_slice_name() -> None:
    """The slice is part of the cache key: any column or slice name survives the round trip."""
    from app.data.slices import sliced, split_key

    token = "sqlite:///x.db@7"
    for column, value in (("subset", "koala"), ("a|slice=b", '"q1 [2, 3]"'), ("é", "\n")):
        key = sliced(token, column, value, 5)
        assert key != token and split_key(key) == (token, (column, value, 5))
        assert sliced(key, column, value, 5) == key
    assert sliced(token, "subset", "", 4) == token and split_key(token) == (token, None)


def test_slices_page_is_in_the_sidebar(db: Path) -> None:
    at = app("views/leaderboard.py", benchmark="humaneval")
    links = {p.proto.label for p in at.sidebar.get("page_link")}
    assert "Slices" in links


def test_table_cells_in_percent_with_a_dash_where_a_system_has_no_result() -> None:
    """Pure component test on a small 0/1 table: system C answered only the "easy" examples."""
    from app.components.slices_table import changes_frame, changes_html, estimates_html

    rng = np.random.default_rng(1)
    rows = [{"benchmark": "b", "metric": "m", "system": s, "example_id": f"e{i}",
             "value": float(rng.random() < p), "level": "easy" if i % 2 else "hard"}
            for s, p in (("A", 0.9), ("B", 0.2), ("C", 0.5)) for i in range(60)
            if s != "C" or i % 2]
    result = slice_table(pd.DataFrame(rows), column="level")
    html = estimates_html(result, ["A", "C", "B"], counts={"easy": 30, "hard": 30},
                          links={"easy": "leaderboard?scol=level&sval=easy"}, percent=True)
    parser = _Tables()
    parser.feed(html)
    body = [r for r in parser.rows if r]
    assert [r[0] for r in body] == ["A", "C", "B"]
    assert body[1][2] == "—", "C has no result on the hard examples"
    mean_a = result.estimates.query("system == 'A' and slice == 'easy'")["mean"].iloc[0]
    assert body[0][1].startswith(f"{100 * mean_a:.1f}%")
    assert parser.links == {"easy": "leaderboard?scol=level&sval=easy"}
    assert 'data-missing="1"' in html
    frame = changes_frame(result)
    assert list(frame.columns)[:2] == ["system A", "system B"]
    assert 'aria-label="slice changes"' in changes_html(frame)
