"""Watched comparisons in the results store (engine.store._watch): the state kept per
upload gives the sequence recomputed from all the data (engine.stats._arrivals.watch_frame)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from engine.cli._json import watch_json
from engine.stats._arrivals import watch_frame
from engine.store import open_store


def _batch(lo: int, hi: int, *, seed: int, p_a: float = 0.6, p_b: float = 0.75,
           binary: bool = True) -> pd.DataFrame:
    """Examples ``e{lo}`` … ``e{hi-1}`` of systems A and B; a family attribute of 5 per family."""
    rng = np.random.default_rng(seed)
    n = hi - lo
    ex = [f"e{i}" for i in range(lo, hi)]
    if binary:
        a, b = rng.binomial(1, p_a, n).astype(float), rng.binomial(1, p_b, n).astype(float)
    else:
        a, b = rng.beta(2, 2, n), rng.beta(2.2, 2, n)
    return pd.DataFrame({"benchmark": "b", "metric": "acc", "system": ["A"] * n + ["B"] * n,
                         "example_id": ex * 2, "value": np.r_[a, b],
                         "family": [f"f{i // 5}" for i in range(lo, hi)] * 2})


def _all(batches: list[pd.DataFrame]) -> pd.DataFrame:
    return pd.concat([b.assign(batch=i + 1) for i, b in enumerate(batches)], ignore_index=True)


@pytest.mark.slow
@pytest.mark.parametrize("binary", [True, False])
@pytest.mark.parametrize("cluster", [None, "family"])
def test_three_uploads_give_the_sequence_of_all_the_data(sqlite_url: str, binary: bool,
                                                         cluster: str | None) -> None:
    store = open_store(sqlite_url)
    batches = [_batch(0, 150, seed=1, binary=binary), _batch(150, 300, seed=2, binary=binary),
               _batch(300, 450, seed=3, binary=binary)]
    reports = []
    for i, frame in enumerate(batches):
        store.import_frame(frame, filename=f"{i}.csv")
        reports.append(store.watch("b", "acc", baseline="A", candidate="B", cluster=cluster))
    fresh = watch_frame(_all(batches), baseline="A", candidate="B", benchmark="b",
                        metric="acc", cluster=cluster)
    last = reports[-1]
    assert [r.n_seen for r in reports] == fresh.history["n_seen"].tolist()
    assert last.n_seen == fresh.n_seen and last.method == fresh.method == "betting"
    cols = ["n_seen", "cs_low", "cs_high", "p_always_valid", "log_e"]
    np.testing.assert_allclose(last.history[cols].to_numpy(float),
                               fresh.history[cols].to_numpy(float), rtol=1e-9, atol=1e-12)
    assert last.history["upload_id"].tolist() == [1, 2, 3]
    assert (last.first_excluded_n, last.first_excluded_upload) == \
        (fresh.first_excluded_n, fresh.first_excluded_upload)
    assert last.cs_low == pytest.approx(fresh.cs_low, abs=1e-12)
    assert last.p_always_valid == pytest.approx(fresh.p_always_valid, rel=1e-9)
    assert not any(r.rebuilt for r in reports)


def test_a_watch_started_late_equals_one_kept_from_the_start(sqlite_url: str) -> None:
    store = open_store(sqlite_url)
    for i, (lo, hi) in enumerate([(0, 100), (100, 250), (250, 400)]):
        store.import_frame(_batch(lo, hi, seed=i), filename=f"{i}.csv")
        early = store.watch("b", "acc", baseline="A", candidate="B")
    late = store.watch("b", "acc", baseline="B", candidate="A")
    assert late.n_seen == early.n_seen == 400
    assert late.cs_low == pytest.approx(-early.cs_high, abs=1e-12)
    assert late.history["upload_id"].tolist() == [1, 2, 3]
    assert len(store.watched()) == 2


def test_a_deleted_upload_rebuilds_the_watch(sqlite_url: str) -> None:
    store = open_store(sqlite_url)
    batches = [_batch(0, 100, seed=1), _batch(100, 200, seed=2), _batch(200, 300, seed=3)]
    for i, frame in enumerate(batches):
        store.import_frame(frame, filename=f"{i}.csv")
    store.watch("b", "acc", baseline="A", candidate="B")
    store.delete_upload(2)
    again = store.watch("b", "acc", baseline="A", candidate="B")
    fresh = watch_frame(_all([batches[0], batches[2]]).replace({"batch": {2: 3}}),
                        baseline="A", candidate="B", benchmark="b", metric="acc")
    assert again.rebuilt and again.n_seen == 200
    assert again.history["upload_id"].tolist() == [1, 3]
    assert again.cs_low == pytest.approx(fresh.cs_low, abs=1e-12)


def test_budget_and_settings(sqlite_url: str) -> None:
    store = open_store(sqlite_url)
    store.import_frame(_batch(0, 200, seed=4), filename="0.csv")
    capped = store.watch("b", "acc", baseline="A", candidate="B", max_n=50)
    assert capped.n_seen == 50 and watch_json(capped, verdict="", exit_code=0)["max_n"] == 50
    raised = store.watch("b", "acc", baseline="A", candidate="B", max_n=120)
    assert raised.n_seen == 120
    with pytest.raises(ValueError, match="max_n: the watch has already seen 120"):
        store.watch("b", "acc", baseline="A", candidate="B", max_n=10)
    with pytest.raises(ValueError, match="system: 'Z'"):
        store.watch("b", "acc", baseline="A", candidate="Z")
    with pytest.raises(ValueError, match="cluster: no example attribute 'nope'"):
        store.watch("b", "acc", baseline="A", candidate="B", cluster="nope")


@pytest.mark.slow
def test_champion_board_combines_e_values_by_e_bh(store_url: str) -> None:
    import xml.etree.ElementTree as ET

    from engine.products._watch_board import watch_board
    from engine.report._watch_svg import sequence_svg
    from engine.stats._ebh import e_bh

    store = open_store(store_url)  # SQLite and PostgreSQL (the raw reader's two paths)
    rng = np.random.default_rng(8)
    rates = {"champ": 0.8, "close": 0.78, "weak": 0.55, "weaker": 0.5}
    for k in range(3):
        ex = [f"e{i}" for i in range(k * 200, (k + 1) * 200)]
        store.import_frame(pd.concat([pd.DataFrame({
            "benchmark": "b", "metric": "acc", "system": s, "example_id": ex,
            "value": rng.binomial(1, p, 200).astype(float)}) for s, p in rates.items()]),
            filename=f"{k}.csv")
    board = watch_board(store, "b", "acc", champion="champ")
    assert board.stored and set(board.table["challenger"]) == {"close", "weak", "weaker"}
    expected = e_bh(board.table["e_value"].to_numpy(), alpha=0.05).rejected
    assert board.table["ebh_discovery"].tolist() == expected.tolist()
    weak = board.table.set_index("challenger").loc[["weak", "weaker"]]
    assert weak["ebh_discovery"].all() and (weak["cs_high"] < 0).all()
    assert "any dependence" in board.caveat
    preview = watch_board(store, "b", "acc", champion="champ", keep=False)
    assert not preview.stored  # every challenger's rows read at once: the same sequences
    pd.testing.assert_frame_equal(preview.table, board.table)
    assert store.upload_count("b", "acc") == 3 and store.upload_count("b", "nope") == 0
    report = board.reports[-1]
    svg = sequence_svg(report.history, title="champ vs weaker",
                       first_excluded_n=report.first_excluded_n)
    root = ET.fromstring(svg)
    bands = [e for e in root.iter("{http://www.w3.org/2000/svg}rect")] or \
        [e for e in root.iter("rect")]
    assert len(bands) == len(report.history) == 3
    assert "0 excluded at" in svg


def test_an_upload_feeds_the_watches_it_concerns(sqlite_url: str) -> None:
    """The watch is updated by each upload, without a `watch` call in between."""
    store = open_store(sqlite_url)
    batches = [_batch(0, 150, seed=1), _batch(150, 300, seed=2), _batch(300, 450, seed=3)]
    store.import_frame(batches[0], filename="0.csv")
    watch_id = store.watch("b", "acc", baseline="A", candidate="B").watch_id
    other = _batch(0, 50, seed=9).assign(benchmark="other")
    store.import_frame(other, filename="other.csv")
    for i, frame in enumerate(batches[1:], start=1):
        store.import_frame(frame, filename=f"{i}.csv")
    history = store.watch_history(watch_id)
    assert history["upload_id"].tolist() == [1, 3, 4] and history["n_seen"].tolist() == [150, 300, 450]
    assert store.watched().loc[0, "last_upload_id"] == 4
    fresh = watch_frame(_all(batches), baseline="A", candidate="B", benchmark="b", metric="acc")
    np.testing.assert_allclose(history["cs_low"], fresh.history["cs_low"], atol=1e-12)
