"""Headline sentences (issue #25 item 3): each number in a sentence is the number the
page's table shows — computed here from the same result object, never pinned.

Data: the bundled Eval-Arena HumanEval files (data/README.md) and the Inspect fixture
(tests/data/harness-logs/inspect).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from engine._matrix import build_matrix
from engine.cli import main
from engine.cli._json import ab_json
from engine.io._readers import read_results
from engine.products._headline import (
    compare_headline,
    leaderboard_headline,
    overall_headline,
    pair_headline,
)
from engine.products._leaderboard import leaderboard
from engine.products._overall import overall
from engine.stats._ab import compare_ab

ROOT = Path(__file__).resolve().parents[3]
CODE = ("humaneval", "humaneval+", "mbpp", "mbpp+")


@pytest.fixture(scope="module")
def humaneval() -> pd.DataFrame:
    return read_results(ROOT / "data" / "humaneval.jsonl.gz")


def test_leaderboard_headline_counts_what_the_table_shows(humaneval: pd.DataFrame) -> None:
    board = leaderboard(build_matrix(humaneval, benchmark="humaneval", metric="pass1"))
    text = leaderboard_headline(board)
    top = board.table.iloc[0]
    assert text.startswith(f"{top['system']} ranks first on humaneval ({top['mean'] * 100:.1f}%)")
    tied = int(top["rank_high"]) - 1  # rank range 1–k: k − 1 systems not told apart
    assert f"but {tied} systems cannot be told apart from it" in text
    # the correction in plain words (issue #27 item 5), its name only in tooltips and Methods
    assert "(at most a 5% chance that any difference found is false)" in text
    assert "Holm" not in text and "mcnemar" not in text.lower()


@pytest.mark.slow
def test_overall_headline_counts_what_the_table_shows() -> None:
    df = pd.concat([read_results(ROOT / "data" / f"{b}.jsonl.gz") for b in CODE],
                   ignore_index=True)
    res = overall(df, benchmarks=list(CODE))
    text = overall_headline(res)
    top = res.table.iloc[0]
    assert text.startswith(f"{top['system']} ranks first of {len(res.table)} systems")
    assert f"({top['score']:.1f}%)" in text
    assert f"but {int(top['rank_high']) - 1} systems cannot be told apart" in text
    assert f"{len(res.unranked)} systems that did not run all 4 benchmarks" in text


def test_pair_headline_is_the_pairwise_row(humaneval: pd.DataFrame) -> None:
    board = leaderboard(build_matrix(humaneval, benchmark="humaneval", metric="pass1"))
    t = board.pairwise.table
    for _, row in t[t["significant"]].head(3).iterrows():
        text = pair_headline(row, binary=True, alpha=0.05)
        winner = row["system_a"] if row["difference"] > 0 else row["system_b"]
        assert text.startswith(f"{winner} is better than")
        size = abs(row["difference"]) * 100
        lo, hi = sorted(abs(x) * 100 for x in (row["ci_low"], row["ci_high"]))
        assert f"by {size:.1f} points (95% interval {lo:.1f} to {hi:.1f})" in text
        assert text.rstrip(".").endswith("this is significant (α = 0.05)")
    calm = t[~t["significant"]].iloc[0]
    assert "cannot be told apart" in pair_headline(calm, binary=True, alpha=0.05)


def test_compare_headline_is_the_ab_result(humaneval: pd.DataFrame) -> None:
    res = compare_ab(humaneval, baseline="mistral-7b-codealpaca", candidate="octocoder")
    text = compare_headline(res, binary=True)
    t = res.test
    assert text.startswith("octocoder is worse than mistral-7b-codealpaca by "
                           f"{abs(t.estimate) * 100:.1f} points")
    assert f"interval {-t.ci_high * 100:.1f} to {-t.ci_low * 100:.1f} points" in text
    # the statistic's fields carry no sentence: compare's JSON gets it from the caller
    assert ab_json(res)["headline"] is None
    assert ab_json(res, headline=text)["headline"] == text


@pytest.mark.slow
def test_compare_json_headline_is_the_sentence(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    """``compare --format json`` writes :func:`compare_headline` of its result (the key in
    the place it always had), though the A/B statistic no longer writes it."""
    rows = [("b", s, f"e{i:02d}", "acc", v) for s, vals in
            {"base": [1] * 30, "cand": [1] * 10 + [0] * 20}.items() for i, v in enumerate(vals)]
    path = tmp_path / "r.csv"
    pd.DataFrame(rows, columns=["benchmark", "system", "example_id", "metric", "value"]).to_csv(
        path, index=False)
    code = main(["compare", str(path), "--baseline", "base", "--candidate", "cand",
                 "--format", "json"])
    out = json.loads(capsys.readouterr().out)
    res = compare_ab(read_results(path), baseline="base", candidate="cand")
    assert code == 1 and out["headline"] == compare_headline(res, binary=True)
    assert list(out).index("headline") == list(ab_json(res)).index("headline")


def _made_up(values: dict[str, list[float]], runs: int = 1) -> pd.DataFrame:
    """One benchmark, systems → per-example scores (repeated ``runs`` times per example)."""
    rows = [{"benchmark": "b", "metric": "m", "system": s, "example_id": f"e{i:02d}",
             "run": r, "value": v}
            for s, vs in values.items() for i, v in enumerate(vs) for r in range(runs)]
    return pd.DataFrame(rows)


def test_leaderboard_headline_writes_the_score_in_the_tables_units() -> None:
    # A numeric score whose means lie in [0, 1] is not a share: the headline writes it with
    # four decimals, as the table (engine._units), not "72.6%" beside a table of 0.7255.
    rng = np.random.default_rng(3)
    numeric = _made_up({"alpha": list(rng.uniform(0.6, 0.9, 40)),
                        "beta": list(rng.uniform(0.3, 0.6, 40))})
    board = leaderboard(build_matrix(numeric, benchmark="b", metric="m"))
    top = board.table.iloc[0]
    assert f"ranks first on b (mean {top['mean']:.4f})" in leaderboard_headline(board)
    # A 0/1 metric run twice per example (cells are fractions) still reads as a share.
    tries = _made_up({"alpha": [1.0] * 30 + [0.0] * 10, "beta": [1.0] * 15 + [0.0] * 25}, runs=2)
    board = leaderboard(build_matrix(tries, benchmark="b", metric="m"))
    assert "ranks first on b (75.0%)" in leaderboard_headline(board)
