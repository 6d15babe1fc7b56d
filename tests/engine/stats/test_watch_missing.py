"""The watch gate (``sigboard watch``, the Watch board's rows) bounded over the examples one
system lacks: exit 2 with one line when the sequence's verdict does not hold with them at the
worst and the best score; ``--allow-missing N`` the way past it.

The data: ``dropped_failures`` of tests/engine/stats/test_missing_bounds.py (300 hand-built
0/1 examples, no true difference: 60 won by each side alone; the candidate's harness dropped
60 of its 150 failures), streamed as two uploads — the baseline's, then the candidate's.
Reference values: the bounded sequences are :func:`engine.stats._arrivals.watch_frame` on the
complete table written out by hand (the 60 put back in the candidate's upload at their place,
failed for the lower bound, passed for the upper), so the fill is checked against a table
that needs no filling.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from test_missing_bounds import _kinds  # type: ignore[import-not-found]

from engine import open_store, watch_board
from engine.cli import main
from engine.stats._arrivals import watch_frame
from engine.stats._watch_missing import watch_bounds, watch_outcome

ARGS = ["--baseline", "base", "--candidate", "cand"]


def _streams() -> tuple[pd.DataFrame, pd.DataFrame, np.ndarray]:
    """(baseline's upload, candidate's complete upload, which of its rows the harness kept)."""
    base, cand = _kinds(90, 60, 60, 90)
    keep = np.ones(300, bool)
    keep[np.arange(90, 150, 2)] = False
    keep[np.arange(210, 300, 3)] = False
    # a fixed shuffle: the failures the harness kept are spread through the upload
    order = np.random.default_rng(7).permutation(300)
    ids = np.array([f"e{i:03d}" for i in range(300)])[order]
    one = pd.DataFrame({"benchmark": "b", "metric": "acc", "system": "base",
                        "example_id": ids, "value": base[order], "batch": 1})
    two = pd.DataFrame({"benchmark": "b", "metric": "acc", "system": "cand",
                        "example_id": ids, "value": cand[order], "batch": 2})
    return one, two, keep[order]


def _watch(frame: pd.DataFrame):  # type: ignore[no-untyped-def]
    return watch_frame(frame, baseline="base", candidate="cand", benchmark="b", metric="acc",
                       binary=True)


def test_dropped_failures_bounded_against_the_complete_stream() -> None:
    one, two, keep = _streams()
    observed = pd.concat([one, two[keep]], ignore_index=True)
    report = _watch(observed)
    assert watch_outcome(report).better  # the sequence left 0 upwards on the easy examples
    b = watch_bounds(observed, report, binary=True)
    assert b is not None and (b.n, b.candidate_lacks, b.baseline_lacks) == (300, 60, 0)
    failed = two.assign(value=np.where(keep, two["value"], 0.0))
    passed = two.assign(value=np.where(keep, two["value"], 1.0))
    low, high = _watch(pd.concat([one, failed])), _watch(pd.concat([one, passed]))
    assert (b.low_verdict, b.high_verdict) == (watch_outcome(low).verdict,
                                               watch_outcome(high).verdict)
    assert b.low == pytest.approx((low.cs_low + low.cs_high) / 2, rel=1e-12)
    assert b.high == pytest.approx((high.cs_low + high.cs_high) / 2, rel=1e-12)
    assert not watch_outcome(low).better and not b.survives and not b.decided


def test_a_complete_stream_has_no_bounds() -> None:
    one, two, _ = _streams()
    frame = pd.concat([one, two], ignore_index=True)
    assert watch_bounds(frame, _watch(frame), binary=True) is None


def _files(tmp_path: Path) -> list[str]:
    one, two, keep = _streams()
    paths = []
    for name, part in (("base.csv", one), ("cand.csv", two[keep])):
        path = tmp_path / name
        part.drop(columns="batch").to_csv(path, index=False)
        paths.append(str(path))
    return paths


@pytest.mark.slow
def test_cli_watch_exits_2_with_one_line(tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    files = _files(tmp_path)
    code = main(["watch", *files, *ARGS, "--format", "json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 2 and out["exit_code"] == 2 and "better" in out["verdict"]
    b = out["missing_bounds"]
    assert (b["candidate_lacks"], b["baseline_lacks"], b["decided"]) == (60, 0, False)
    assert main(["watch", *files, *ARGS]) == 2
    captured = capsys.readouterr()
    assert captured.err.strip().splitlines() == [b["sentence"]]
    assert b["sentence"].startswith("cand lacks 60 of 300 examples base has: with them failed")
    assert "--allow-missing 60" in b["sentence"]
    code = main(["watch", *files, *ARGS, "--allow-missing", "60", "--format", "json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["missing_bounds"]["decided"] is True
    assert main(["watch", *files, *ARGS, "--allow-missing", "59"]) == 2


def test_store_watch_and_board_bound_each_challenger(tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    one, two, keep = _streams()
    url = f"sqlite:///{tmp_path / 's.db'}"
    store = open_store(url)
    store.import_frame(one.drop(columns="batch"), filename="base.csv")
    store.import_frame(two[keep].drop(columns="batch"), filename="cand.csv")
    code = main(["watch", url, *ARGS, "--format", "json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 2 and out["missing_bounds"]["candidate_lacks"] == 60
    board = watch_board(store, "b", "acc", champion="base", keep=False)
    assert [b.candidate for b in board.undecided] == ["cand"]
    assert board.undecided[0].sentence() == out["missing_bounds"]["sentence"]
    store.close()
