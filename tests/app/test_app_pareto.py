"""The Trade-offs page (Pareto set with confidence) on logs the real harnesses wrote,
imported with their usage as the Upload page imports them (tests/data/harness-logs-real/:
inspect-ai 0.3.285, promptfoo 0.123.1; see the VERSIONS.txt beside each).

Reference values: :func:`engine.app_support.pareto_set` (and ``cost_from_prices``) on the
store's own rows, the engine's result the page must show in its chart and its table.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from apptest_support import app, no_exception
from streamlit.testing.v1 import AppTest

from engine import MetricSpec, ingest
from engine.app_support import cost_from_prices, md_text, pareto_set
from engine.store import open_store

ROOT = Path(__file__).resolve().parents[2]
REAL = ROOT / "tests" / "data" / "harness-logs-real"
PAGE = "views/pareto.py"

pytestmark = pytest.mark.slow


def _import(db: Path, path: Path) -> None:
    got = ingest(str(path), usage=True)  # as the Upload page reads a log
    store = open_store(f"sqlite:///{db}")
    store.import_frame(got.frame, filename=path.name, metrics=dict(got.specs.items()))
    store.close()


@pytest.fixture
def usage_db(db: Path) -> Path:
    """The demo store plus an Inspect log (times) and a promptfoo output (cost, latency)."""
    _import(db, REAL / "inspect" / "eval")
    _import(db, REAL / "promptfoo" / "results.json")
    return db


def _stored(db: Path, benchmark: str) -> pd.DataFrame:
    store = open_store(f"sqlite:///{db}")
    try:
        return store.load_frame(benchmark=benchmark)
    finally:
        store.close()


def _table(at: AppTest) -> pd.DataFrame:
    frames = [d.value for d in at.dataframe if "trade-off" in d.value.columns]
    assert len(frames) == 1
    return frames[0]


def _charts(at: AppTest) -> list[Any]:
    return list(at.get("arrow_vega_lite_chart") or at.get("vega_lite_chart"))


def _headline(at: AppTest) -> str:
    bold = [m.value for m in at.markdown if m.value.startswith("**")]
    assert bold
    return bold[0]


def test_default_opens_a_benchmark_with_costs_and_matches_the_engine(usage_db: Path) -> None:
    at = app(PAGE)
    no_exception(at)
    # the demo benchmark records no cost: the first benchmark with both a score and a cost
    assert at.query_params["benchmark"] == "arith"
    assert at.query_params["cost"] == "latency_s"
    want = pareto_set(_stored(usage_db, "arith"), "includes", "latency_s",
                      benchmark="arith", n_resamples=4999, seed=0)
    assert at.query_params["metric"] == "includes"  # the first score (catalog order)
    got = _table(at)
    assert list(got["system"]) == list(want.table["system"])  # all possibly optimal: same order
    assert list(got["includes"]) == [f"{v:.1%}" for v in want.table["score"]]  # 0/1: percent
    assert list(got["latency_s"]) == [f"{v:.4g}" for v in want.table["cost"]]
    # cost per success and per percentage point, from the same cached result
    t = want.table
    assert list(got["latency_s per success"]) == [
        f"{v:.4g} ({a:.4g} to {b:.4g})" for v, a, b in
        zip(t["cost_per_success"], t["cost_per_success_low"], t["cost_per_success_high"],
            strict=True)]
    assert list(got["latency_s per percentage point"]) == [
        f"{v:.4g} ({a:.4g} to {b:.4g})" for v, a, b in
        zip(t["cost_per_point"], t["cost_per_point_low"], t["cost_per_point_high"], strict=True)]
    assert md_text(want.headline) in _headline(at)
    charts = _charts(at)
    assert len(charts) == 1  # the chart, from the same result as the table
    spec = charts[0].proto.spec
    assert '["latency_s: mean per example", "(seconds, lower is better)"]' in spec
    assert '["includes: share of examples", "(higher is better)"]' in spec
    # the main screen in plain words: the method's terms only in "How this is computed"
    main = [_headline(at), *(c.value for c in at.caption), *(i.value for i in at.info),
            *(str(w.label) for w in at.selectbox)]
    for word in ("Pareto", "Šidák", "simultaneous", "bootstrap"):
        assert not any(word in text for text in main), word


def test_url_keeps_the_axes_and_the_table_follows(usage_db: Path) -> None:
    at = app(PAGE, benchmark="sig_arith", metric="pass", cost="latency_ms")
    no_exception(at)
    assert at.query_params["cost"] == "latency_ms" and at.query_params["metric"] == "pass"
    want = pareto_set(_stored(usage_db, "sig_arith"), "pass", "latency_ms", seed=0)
    got = _table(at)
    order = want.table.sort_values("status", kind="stable", key=lambda s: s != "possibly optimal")
    assert list(got["system"]) == list(order["system"])
    assert list(got["pass"]) == [f"{v:.1%}" for v in order["score"]]  # a 0/1 score in percent
    assert md_text(want.headline) in _headline(at)
    # promptfoo's latencies (0-2 ms on 6 examples) leave the bootstrap's upper bound
    # infinite: said, never drawn as inf; a mean latency is >= 0
    assert (got["latency_ms range"] == "0 to unbounded").all()
    assert any("no bound on that side" in c.value for c in at.caption)
    # choosing another cost rewrites the address
    at.selectbox(key="url_cost").set_value("cost").run()
    no_exception(at)
    assert at.query_params["cost"] == "cost"
    assert "cost" in _table(at).columns


def test_unknown_cost_warns_and_falls_back(usage_db: Path) -> None:
    at = app(PAGE, benchmark="sig_arith", metric="pass", cost="dollars")
    no_exception(at)
    assert any("`cost`" in w.value for w in at.warning)
    assert at.query_params["cost"] == "cost"


def test_a_benchmark_without_costs_opens_one_with_costs_and_says_so(usage_db: Path) -> None:
    at = app(PAGE, benchmark="humaneval")
    no_exception(at)
    info = " ".join(i.value for i in at.info)
    assert "humaneval" in info and "no cost or time" in info
    assert at.query_params["benchmark"] == "arith"
    assert at.selectbox(key="url_benchmark").options == ["arith", "sig_arith"]


def test_no_costs_anywhere_says_how_to_get_them(db: Path) -> None:
    at = app(PAGE)
    no_exception(at)
    assert any("Harness logs that record usage" in i.value for i in at.info)
    assert not _charts(at)


def test_prices_turn_tokens_into_cost_as_the_engine_does(usage_db: Path) -> None:
    systems = sorted(set(_stored(usage_db, "sig_arith")["system"]))
    prices = pd.DataFrame({"system": systems, "input_price": [1e-6, 2e-6, 3e-6, 4e-6],
                           "output_price": [5e-6, 6e-6, 7e-6, 8e-6]})
    at = app(PAGE, benchmark="sig_arith", metric="pass", cost="cost")
    at.file_uploader(key="pareto_prices_file").upload(
        "prices.csv", prices.to_csv(index=False).encode(), "text/csv")
    at.run()
    no_exception(at)
    at.selectbox(key="url_cost").set_value("cost at your prices").run()
    no_exception(at)
    assert any(md_text("prices per token of prices.csv") in c.value for c in at.caption)
    frame = _stored(usage_db, "sig_arith")
    frame = frame[frame["metric"].isin(["pass", "tokens_in", "tokens_out"])]
    want = pareto_set(cost_from_prices(frame, prices, label="prices.csv"), "pass", "cost", seed=0)
    assert md_text(want.headline) in _headline(at)


def test_usage_is_never_a_benchmark_default_metric(usage_db: Path) -> None:
    """The Leaderboard opens each imported benchmark on a score, not on a cost."""
    for benchmark, first in (("arith", "includes"), ("sig_arith", "accuracy")):
        at = app("views/leaderboard.py", benchmark=benchmark)
        no_exception(at)
        assert at.query_params["metric"] == first
    catalog = open_store(f"sqlite:///{usage_db}").catalog()
    latency = catalog[(catalog["benchmark"] == "arith") & (catalog["metric"] == "latency_s")]
    assert not latency["higher_is_better"].iloc[0]  # stored lower is better


def test_a_beaten_system_is_named_with_who_beats_it(db: Path) -> None:
    """Synthetic (seeded): 'big' and 'cheap' are better and cheaper than 'slow' by more than the
    boxes' widths on 200 examples; 'cheap' is cheapest. Reference: pareto_set on the rows."""
    rng = np.random.default_rng(7)
    spec = {"big": (0.9, 1.0), "slow": (0.3, 5.0), "cheap": (0.5, 0.1)}
    rows = [(s, f"e{i}", m, v) for s, (acc, cost) in spec.items() for i in range(200)
            for m, v in (("accuracy", float(rng.random() < acc)),
                         ("cost", float(cost * rng.lognormal(0, 0.5))))]
    frame = pd.DataFrame(rows, columns=["system", "example_id", "metric", "value"]).assign(
        benchmark="synthetic")
    store = open_store(f"sqlite:///{db}")
    store.import_frame(frame, filename="synthetic.csv",
                       metrics={("synthetic", "cost"): MetricSpec(higher_is_better=False)})
    store.close()
    want = pareto_set(_stored(db, "synthetic"), "accuracy", "cost", seed=0)
    assert want.table.set_index("system").loc["slow", "dominated_by"] == ("big", "cheap")
    at = app(PAGE, benchmark="synthetic")
    no_exception(at)
    got = _table(at).set_index("system")
    assert got.loc["slow", "beaten by"] == "big, cheap"
    assert got.loc["slow", "trade-off"] == "beaten: another is better and cheaper"
    assert list(got.index) == ["big", "cheap", "slow"]  # the beaten last
    assert got.loc["slow", "#"] == 3  # its number on the chart: its row in the engine's order
    assert md_text(want.headline) in _headline(at)
