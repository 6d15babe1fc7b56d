"""The Leaderboard's reliability view and the Examples page's flaky tasks, under AppTest.

Data: ``reliability_support.tries_frame()`` (4 agents × 40 tasks × 8 tries, 0/1). The
reference numbers are the engine's own (:func:`engine.app_support.reliability` and
:func:`engine.app_support.pass_k_curves` on the same table): the page must show them, and
its k-curve chart must draw, at the chosen k, exactly the numbers of the table beside it
(one answer). The demo data (no repeated tries) must not offer the view.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from apptest_support import app, html_frame, no_exception, pictures
from pages_data_support import store_env
from reliability_support import BENCHMARK, TRIES, tries_frame  # type: ignore[import-not-found]

from app.charts.reliability import percent
from engine.app_support import pass_k_curves, reliability

# every test here takes seconds: ./scripts/test.sh --fast leaves them out
pytestmark = pytest.mark.slow

#: Word joiners and isolates the app's escaping puts around names and before "@".
_INVISIBLE = dict.fromkeys(map(ord, "\u2060\u2066\u2067\u2068\u2069"))
_TIP = re.compile(r"(?P<system>.+): (?P<name>pass\^k|pass@k) at k = (?P<k>\d+) (?P<v>\S+), "
                  r"interval (?P<low>\S+) to (?P<high>\S+), simultaneous band (?P<blow>\S+) to "
                  r"(?P<bhigh>\S+), (?P<tasks>\d+) tasks$")


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    with store_env(tmp_path_factory.mktemp("reliability") / "sigboard.db", tries_frame()) as p:
        yield p


def _clean(text: str) -> str:
    """Text as a reader sees it: entities undone, invisible marks dropped."""
    return html.unescape(text).translate(_INVISIBLE)


def _table(at: object) -> dict[str, dict[str, str]]:
    frame = html_frame(at, "reliability")  # type: ignore[arg-type]
    frame.columns = [_clean(c) for c in frame.columns]
    return {_clean(r["system"]): {k: _clean(v) for k, v in r.items()}
            for r in frame.to_dict("records")}


def _tips(svg: str) -> list[dict[str, str]]:
    found = []
    for title in re.findall(r"<title>(.*?)</title>", svg):
        m = _TIP.match(_clean(title))
        if m:
            found.append(m.groupdict())
    return found


@pytest.mark.parametrize("k", [2, 4])
def test_reliability_view_shows_the_engines_pass_k_ranked_by_pass_hat_k(store: Path, k: int
                                                                       ) -> None:
    at = app("views/leaderboard.py", benchmark=BENCHMARK, table="reliability", k=str(k))
    no_exception(at)
    assert not at.warning, [w.value for w in at.warning]
    reference = reliability(tries_frame(), k=k).estimates.table.set_index("system")
    table = _table(at)
    assert set(table) == set(reference.index)
    order = sorted(table, key=lambda s: int(table[s]["rank"]))
    # ranked by pass^k, best first (the engine's numbers, not the page's rounding)
    assert order == list(reference["pass_hat_k"].sort_values(ascending=False).index)
    for system, row in table.items():
        ref = reference.loc[system]
        assert row[f"pass^{k}"] == percent(ref["pass_hat_k"]), system
        assert row[f"pass@{k}"] == percent(ref["pass_at_k"]), system
        assert row[f"pass^{k} interval"] == (f"{100 * ref['pass_hat_k_low']:.1f}–"
                                             f"{100 * ref['pass_hat_k_high']:.1f}%"), system
        assert int(row["tasks"]) == ref["tasks"] == 40
    # the two measures said in plain words on the main screen
    captions = " ".join(c.value for c in at.caption)
    assert "all k tries of a task succeed" in captions
    assert "at least one of k tries" in captions
    assert "simultaneous" in captions
    # every pair's paired pass^k test, as the engine adjusts them (Holm–Šidák by default)
    pairs = reliability(tries_frame(), k=k).pairs.table
    assert f"{int(pairs['significant'].sum())} of {len(pairs)} pairs of systems differ in " \
           f"pass^{k}" in captions
    assert at.query_params["k"] == [str(k)] or at.query_params["k"] == str(k)


def test_the_k_curves_draw_the_tables_numbers_at_the_chosen_k(store: Path) -> None:
    k = 3
    at = app("views/leaderboard.py", benchmark=BENCHMARK, table="reliability", k=str(k))
    no_exception(at)
    table = _table(at)
    charts = [p for p in pictures(at) if "against k" in p]
    assert len(charts) == 2, "a pass^k and a pass@k chart"
    for svg, name, column in ((charts[0], "pass^k", f"pass^{k}"),
                              (charts[1], "pass@k", f"pass@{k}")):
        assert "k (number of tries)" in svg and f"{name}: " in _clean(svg)  # axis titles
        tips = _tips(svg)
        at_k = {t["system"]: t for t in tips if t["k"] == str(k) and t["name"] == name}
        assert set(at_k) == set(table)
        for system, tip in at_k.items():
            row = table[system]
            assert tip["v"] == row[column], (system, tip, row)
            assert f"{tip['low'].removesuffix('%')}–{tip['high']}" == row[f"{column} interval"]
        # every k from 1 to the tries, for every system, with its simultaneous band
        assert {int(t["k"]) for t in tips} == set(range(1, TRIES + 1))
    # the band is the engine's simultaneous one, wider than the pointwise interval
    curves = pass_k_curves(reliability(tries_frame(), k=k).counts)
    s = curves.systems.index("agent-base")
    tip = next(t for t in _tips(charts[0]) if t["system"] == "agent-base" and t["k"] == "5")
    assert tip["blow"] == percent(curves.pass_hat_k_band_low[s, 4])
    assert tip["bhigh"] == percent(curves.pass_hat_k_band_high[s, 4])
    assert curves.pass_hat_k_band_low[s, 4] < curves.pass_hat_k_low[s, 4]


def test_k_defaults_to_the_common_tries_and_a_k_past_them_falls_back(store: Path) -> None:
    at = app("views/leaderboard.py", benchmark=BENCHMARK, table="reliability")
    no_exception(at)
    assert f"pass^{TRIES}" in _table(at)["agent-base"]  # 8 tries per task: k = 8
    at = app("views/leaderboard.py", benchmark=BENCHMARK, table="reliability", k="50")
    no_exception(at)
    assert any("k`=50" in w.value for w in at.warning)
    assert f"pass^{TRIES}" in _table(at)["agent-base"]


def test_examples_page_lists_flaky_tasks_with_exact_intervals(store: Path) -> None:
    at = app("views/examples.py", benchmark=BENCHMARK)
    no_exception(at)
    flaky = reliability(tries_frame(), k=1).flaky
    counts = html_frame(at, "flaky per system")
    assert dict(zip(counts["system"].map(_clean), counts["flaky tasks"].astype(int),
                    strict=True)) == dict(zip(flaky.systems, flaky.counts.tolist(), strict=True))
    listed = html_frame(at, "flaky examples")
    reference = flaky.flaky()
    assert len(listed) == len(reference) == int(flaky.counts.sum()) > 0
    for shown, row in zip(listed.to_dict("records"), reference.itertuples(), strict=True):
        assert _clean(shown["example"]) == row.example_id
        assert (int(shown["tries"]), int(shown["successes"])) == (row.tries, row.successes)
        assert 0 < row.successes < row.tries  # the rule: tries that both passed and failed
        low, high = float(row.low), float(row.high)
        assert _clean(shown["interval"]) == f"{100 * low:.1f}–{100 * high:.1f}%"
    consistency = reliability(tries_frame(), k=1).consistency
    # C_out to two decimals, as written (the engine's value; 0.475 sits on a rounding edge)
    assert list(counts["outcome consistency"]) == [f"{v:.2f}" for v in consistency.c_out]
    assert list(counts["interval"]) == [f"{a:.2f}–{b:.2f}" for a, b in zip(
        consistency.low, consistency.high, strict=True)]
    text = " ".join(c.value for c in at.caption)
    assert "excludes both always-fail (0%) and always-pass (100%)" in text


def test_demo_data_without_tries_has_no_reliability_view(db: Path) -> None:
    at = app("views/leaderboard.py", benchmark="humaneval", table="reliability")
    no_exception(at)
    assert any("no repeated tries" in w.value for w in at.warning)
    assert not [h for h in at.get("html") if 'aria-label="reliability"' in h.proto.body]
    at = app("views/examples.py", benchmark="humaneval")
    no_exception(at)
    assert not [h for h in at.get("html") if 'aria-label="flaky examples"' in h.proto.body]
