"""`sigboard pareto` (the issue's interface: JSON ``systems`` with ``system, score,
score_low, score_high, cost, cost_low, cost_high, status, dominated_by`` and ``headline``).

Reference values: the numbers are checked against :func:`engine.products._pareto.pareto_set`
on the same table (its own tests check the dominance rule against a brute-force front); the
usage metrics against the raw promptfoo/Inspect JSON in tests/data/harness-logs-real/.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from engine.cli import main
from engine.cli.pareto import RATIO_KEYS, SYSTEM_KEYS
from engine.products._pareto import pareto_set

REAL = Path(__file__).resolve().parents[2] / "data" / "harness-logs-real"


def _json(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, Any]:
    code = main(list(args))
    out = capsys.readouterr().out
    return code, json.loads(out, parse_constant=lambda name: pytest.fail(f"JSON has {name}"))


def _table(path: Path) -> Path:
    rng = np.random.default_rng(2)
    rows = []
    for system, p, m in (("cheap", 0.55, 1.0), ("strong", 0.75, 2.0), ("bad", 0.3, 6.0)):
        for i in range(120):
            rows.append(("qa", system, f"q{i}", "acc", float(rng.random() < p)))
            rows.append(("qa", system, f"q{i}", "cost", m * rng.lognormal(0, 0.5)))
    pd.DataFrame(rows, columns=["benchmark", "system", "example_id", "metric", "value"]).to_csv(
        path, index=False)
    return path


@pytest.mark.slow
def test_json_systems_and_headline(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _table(tmp_path / "r.csv")
    code, doc = _json(capsys, "pareto", str(path), "--score", "acc", "--cost", "cost",
                      "--resamples", "999", "--format", "json")
    assert code == 0
    assert set(doc) >= {"systems", "headline"}
    by = {s["system"]: s for s in doc["systems"]}
    # a 0/1 score: cost per success and per percentage point beside the box
    assert all(list(s) == [*SYSTEM_KEYS, *RATIO_KEYS] for s in doc["systems"])
    want = pareto_set(pd.read_csv(path), "acc", "cost", n_resamples=999).table.set_index("system")
    for system, row in by.items():
        for key in ("score", "score_low", "score_high", "cost", "cost_low", "cost_high"):
            assert row[key] == pytest.approx(want.loc[system, key], rel=1e-12)
        for key in RATIO_KEYS:
            assert row[key] == pytest.approx(want.loc[system, key], rel=1e-12)
        assert row["cost_per_point"] == pytest.approx(row["cost_per_success"] / 100)
        assert row["status"] == want.loc[system, "status"]
        assert row["dominated_by"] == list(want.loc[system, "dominated_by"])
    assert by["bad"]["status"] == "certainly dominated" and "strong" in by["bad"]["dominated_by"]
    assert by["strong"]["status"] == "possibly optimal" and by["strong"]["dominated_by"] == []
    assert "bad is certainly dominated by" in doc["headline"]


@pytest.mark.slow
def test_text_output_names_the_level(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _table(tmp_path / "r.csv")
    assert main(["pareto", str(path), "--score", "acc", "--cost", "cost", "--resamples", "499"]) == 0
    out = capsys.readouterr().out
    assert "Šidák over 6 intervals" in out and "certainly dominated" in out
    assert "per success" in out and "per percentage point" in out


@pytest.mark.slow
def test_promptfoo_log_cost_from_its_usage(capsys: pytest.CaptureFixture[str]) -> None:
    path = REAL / "promptfoo" / "results.json"
    code, doc = _json(capsys, "pareto", str(path), "--score", "pass", "--cost", "latency_ms",
                      "--resamples", "499", "--format", "json")
    assert code == 0
    raw = json.loads(path.read_text())["results"]["results"]
    means: dict[str, list[float]] = {}
    for r in raw:  # one prompt label per promptIdx (results.prompts), as the reader names them
        label = json.loads(path.read_text())["results"]["prompts"][r["promptIdx"]]["label"]
        means.setdefault(f"{r['provider'].get('label') or r['provider']['id']} [{label}]",
                         []).append(float(r["latencyMs"]))
    assert {s["system"]: s["cost"] for s in doc["systems"]} == pytest.approx(
        {k: float(np.mean(v)) for k, v in means.items()})


@pytest.mark.slow
def test_inspect_log_latency(capsys: pytest.CaptureFixture[str]) -> None:
    code, doc = _json(capsys, "pareto", str(REAL / "inspect" / "json"), "--score", "match",
                      "--cost", "latency_s", "--resamples", "499", "--format", "json")
    assert code == 0 and doc["benchmark"] == "capitals" and len(doc["systems"]) == 2


@pytest.mark.slow
def test_unknown_metric_is_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _table(tmp_path / "r.csv")
    assert main(["pareto", str(path), "--score", "acc", "--cost", "latency_ms"]) == 2
    assert "latency_ms" in capsys.readouterr().err


@pytest.mark.slow
def test_prices_turn_tokens_into_cost(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rng = np.random.default_rng(5)
    rows = []
    for system, p, tin, tout in (("small", 0.5, 300, 40), ("large", 0.8, 300, 90)):
        for i in range(60):
            rows += [("qa", system, f"q{i}", "acc", float(rng.random() < p)),
                     ("qa", system, f"q{i}", "tokens_in", float(tin + rng.integers(0, 50))),
                     ("qa", system, f"q{i}", "tokens_out", float(tout + rng.integers(0, 20)))]
    data = pd.DataFrame(rows, columns=["benchmark", "system", "example_id", "metric", "value"])
    data.to_csv(tmp_path / "r.csv", index=False)
    prices = {"small": (1e-7, 4e-7), "large": (3e-6, 1.5e-5)}  # per token, made up for the test
    pd.DataFrame([(s, a, b) for s, (a, b) in prices.items()],
                 columns=["system", "input_price", "output_price"]).to_csv(tmp_path / "p.csv", index=False)
    code, doc = _json(capsys, "pareto", str(tmp_path / "r.csv"), "--score", "acc", "--cost", "cost",
                      "--prices", str(tmp_path / "p.csv"), "--resamples", "499", "--format", "json")
    assert code == 0 and "never fetched" in doc["prices"]
    wide = data.pivot_table(index=["system", "example_id"], columns="metric", values="value")
    for s in doc["systems"]:
        sub = wide.loc[s["system"]]
        a, b = prices[s["system"]]
        assert s["cost"] == pytest.approx(float((sub["tokens_in"] * a + sub["tokens_out"] * b).mean()))
    (tmp_path / "bad.csv").write_text("system,input_price,output_price\nsmall,1e-7,4e-7\n")
    assert main(["pareto", str(tmp_path / "r.csv"), "--score", "acc", "--cost", "cost",
                 "--prices", str(tmp_path / "bad.csv")]) == 2
    assert "no price for system(s) large" in capsys.readouterr().err
