"""Readers: every public data file loads; aliases, wide files, gzip, buffers, metadata.

Reference values: systems/examples per eval-arena file from data/README.md (same table as the source data);
WMT row counts = ``zcat FILE | tail -n +2 | grep -vc None`` (rows with a score) and
systems = distinct first fields; AlpacaEval: 48,290 lines, 60 models
(``zcat … | wc -l``); bt-eval: 110,676 data lines (``zcat … | tail -n +2 | wc -l``).
"""

from __future__ import annotations

import gzip
import io
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine._contract import DataContractError, MetricSpec
from engine.cli import main as cli_main
from engine.io._bytes import benchmark_from_name
from engine.io._readers import read_results, split_metadata

EVAL_ARENA = {  # file: (benchmark, systems, examples)  -- data/README.md
    "humaneval.jsonl.gz": ("humaneval", 49, 164),
    "humaneval_hf.jsonl.gz": ("humaneval", 29, 164),
    "humaneval+.jsonl.gz": ("humaneval+", 49, 164),
    "mbpp.jsonl.gz": ("mbpp", 59, 378),
    "mbpp+.jsonl.gz": ("mbpp+", 59, 378),
    "cruxeval_input.jsonl.gz": ("CRUXEval-input", 37, 800),
    "cruxeval_output.jsonl.gz": ("CRUXEval-output", 37, 800),
    "lcb_codegen.jsonl.gz": ("lcb_codegen", 58, 400),
}
WMT = {  # file stem: (rows with a score, systems)  -- counted with zcat/grep, see docstring
    "mqm_newstest2020_ende": (14180, 10),
    "mqm_newstest2020_zhen": (20000, 10),
    "mqm_newstest2021_ende": (8959, 17),
    "mqm_newstest2021_zhen": (9750, 15),
    "mqm_ted_ende": (7406, 14),
    "mqm_ted_zhen": (7935, 15),
}
CANON = ["benchmark", "system", "example_id", "metric", "value"]


@pytest.mark.parametrize("name", sorted(EVAL_ARENA))
def test_eval_arena_files(demo_data: Path, name: str) -> None:
    bench, systems, examples = EVAL_ARENA[name]
    df = read_results(demo_data / name)
    assert list(df.columns[:5]) == CANON
    assert set(df["benchmark"]) == {bench}
    assert set(df["metric"]) == {"pass1"}
    assert df["system"].nunique() == systems
    assert df["example_id"].nunique() == examples
    assert len(df) == systems * examples  # complete grids (README)
    assert df["value"].dtype == np.float64
    assert df["value"].between(0, 1).all()


def test_cruxeval_hyperparams_are_system_metadata(demo_data: Path) -> None:
    df = read_results(demo_data / "cruxeval_input.jsonl.gz")
    results, systems, examples = split_metadata(df)
    assert "hyperparams" in systems.columns and "hyperparams" not in results.columns
    assert len(systems) == 37 and list(examples.columns) == ["benchmark", "example_id"]


@pytest.mark.parametrize("stem", sorted(WMT))
def test_wmt_tsv_space_header_and_none(test_data: Path, stem: str) -> None:
    rows, systems = WMT[stem]
    df = read_results(test_data / "wmt-mqm" / f"{stem}.avg_seg_scores.tsv.gz")
    assert set(df["benchmark"]) == {stem}
    assert set(df["metric"]) == {"mqm_avg_score"}
    assert len(df) == rows and df["system"].nunique() == systems
    assert (df["value"] <= 0).all()  # MQM penalties are negative (README)
    assert df.attrs["metric_specs"]["mqm_avg_score"] == MetricSpec(True, False)


def test_alpaca_eval_missing_instructions(test_data: Path) -> None:
    df = read_results(test_data / "alpaca-eval" / "alpaca_eval2_weighted_gpt4_turbo_long.jsonl.gz")
    assert set(df["metric"]) == {"preference"}
    assert len(df) == 48290 and df["system"].nunique() == 60
    counts = df.groupby("system").size()
    assert counts.max() == 805 and (counts < 805).sum() == 6  # six systems miss 1-3 (README)
    assert df["value"].between(1, 2).all()
    _, _, examples = split_metadata(df)
    assert "subset" in examples.columns and len(examples) == 805


def test_bt_eval_long_csv(test_data: Path) -> None:
    df = read_results(test_data / "bt-eval" / "bt_eval_scores_long.csv.gz")
    assert len(df) == 110676
    assert {"TAC2008", "TAC2009", "TAC2011"} <= set(df["benchmark"])
    assert "human_pyramid" in set(df["metric"])
    assert df["metric"].nunique() == 14  # 13 automatic metrics + human_pyramid (README)


def test_every_data_file_is_covered(demo_data: Path, test_data: Path) -> None:
    """The tests above read all 16 real data files of the repository: the 8 demo files in
    data/ and the 8 test files in tests/data/ (6 WMT + AlpacaEval + bt-eval)."""
    assert {p.name for p in demo_data.glob("*.gz")} == set(EVAL_ARENA)
    covered = {*(f"{s}.avg_seg_scores.tsv.gz" for s in WMT),
               "alpaca_eval2_weighted_gpt4_turbo_long.jsonl.gz", "bt_eval_scores_long.csv.gz"}
    folders = ("wmt-mqm", "alpaca-eval", "bt-eval")
    assert {p.name for f in folders for p in (test_data / f).glob("*.gz")} == covered


def test_aliases_and_uploaded_buffer_without_suffix() -> None:
    raw = "\n".join(json.dumps({"benchmark_id": "b", "model": m, "example_id": e, "pass1": v})
                    for m, e, v in [("A", "1", 1), ("A", "2", 0), ("B", "1", 1)])
    buf = io.BytesIO(gzip.compress(raw.encode()))
    buf.name = "upload"  # like Streamlit's UploadedFile; no suffix → sniffed
    df = read_results(buf)
    assert df[CANON].values.tolist() == [["b", "A", "1", "pass1", 1.0], ["b", "A", "2", "pass1", 0.0],
                                         ["b", "B", "1", "pass1", 1.0]]


def test_wide_csv_two_metrics_and_stem_benchmark(tmp_path: Path) -> None:
    path = tmp_path / "my_bench.csv"
    path.write_text("model,example_id,rougeL,edit_sim,size,temperature\n"
                    "A,e1,0.5,0.1,7b,0.2\nA,e2,0.25,0.2,7b,0.2\nB,e1,0.75,0.3,13b,0.7\n")
    df = read_results(path)
    assert set(df["benchmark"]) == {"my_bench"}
    assert sorted(set(df["metric"])) == ["edit_sim", "rougeL"]
    assert len(df) == 6
    _, systems, _ = split_metadata(df)
    assert systems.set_index("system")["size"].to_dict() == {"A": "7b", "B": "13b"}
    assert systems.set_index("system")["temperature"].to_dict() == {"A": 0.2, "B": 0.7}


def test_declared_metrics_choose_wide_columns_and_direction(tmp_path: Path) -> None:
    path = tmp_path / "x.tsv"
    path.write_text("system\texample_id\tlatency\tacc\nA\t1\t3.5\t1\nB\t1\t2.0\t0\n")
    df = read_results(path, metrics={"latency": MetricSpec(higher_is_better=False)})
    assert set(df["metric"]) == {"latency"}
    assert df.attrs["metric_specs"] == {"latency": MetricSpec(False, None)}


def test_binary_declaration_accepts_zero_one(tmp_path: Path) -> None:
    path = tmp_path / "x.csv"
    path.write_text("system,example_id,acc\nA,1,1\nB,1,0\n")
    assert len(read_results(path, metrics={"acc": MetricSpec(binary=True)})) == 2
    with pytest.raises(DataContractError, match="declared binary"):
        read_results(io.BytesIO(b"system,example_id,acc\nA,1,0.5\n"), name="y.csv",
                     metrics={"acc": MetricSpec(binary=True)})


def test_parquet_json_and_runs(tmp_path: Path) -> None:
    frame = pd.DataFrame({"benchmark": "b", "system": ["A", "A", "B"], "example_id": [1, 1, 1],
                          "metric": "m", "value": [0.5, 0.7, 0.1], "run": [0, 1, 0]})
    frame.to_parquet(tmp_path / "r.parquet")
    (tmp_path / "r.json").write_text(frame.to_json(orient="records"))
    for name in ("r.parquet", "r.json"):
        df = read_results(tmp_path / name)
        assert df["run"].tolist() == [0, 1, 0] and df["example_id"].tolist() == ["1"] * 3


def test_html_and_formula_names_verbatim(tmp_path: Path) -> None:
    names = ['<script>alert("x")</script>', "=HYPERLINK(\"http://e.x\",\"a\")", "+1-2", "@SUM(A1)"]
    frame = pd.DataFrame({"system": names, "example_id": "e", "metric": "m", "value": 1.0})
    frame.to_csv(tmp_path / "x.csv", index=False)
    assert read_results(tmp_path / "x.csv")["system"].tolist() == names


def test_benchmark_from_name() -> None:
    assert benchmark_from_name("mqm_newstest2021_ende.avg_seg_scores.tsv.gz") == \
        "mqm_newstest2021_ende"
    assert benchmark_from_name("results.csv.gz") == "results"
    assert benchmark_from_name("v1.2.jsonl") == "v1.2"


def test_messages_name_file_and_fix(tmp_path: Path) -> None:
    (tmp_path / "bad.csv").write_text("benchmark,system,example_id,metric,value\nb,s,e,m,x\n")
    with pytest.raises(DataContractError) as info:
        read_results(tmp_path / "bad.csv")
    text = str(info.value)
    assert text.startswith("bad.csv, column 'value', row 1:") and "Fix:" in text


names = st.text(st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=12).filter(
    lambda s: s.strip() == s and s.strip() != "")


@pytest.mark.slow
@settings(max_examples=40, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(names, names, st.floats(-1e6, 1e6, allow_nan=False)), min_size=1,
                max_size=20, unique_by=lambda t: (t[0], t[1])),
       st.sampled_from(["csv", "jsonl", "parquet"]))
def test_roundtrip_any_names(rows: list[tuple[str, str, float]], fmt: str) -> None:
    """Whatever the names (quotes, commas, unicode), writing then reading is lossless."""
    frame = pd.DataFrame(rows, columns=["system", "example_id", "value"])
    frame.insert(0, "benchmark", "b")
    frame.insert(3, "metric", "m")
    buf = io.BytesIO()
    if fmt == "csv":
        buf.write(frame.to_csv(index=False).encode())
    elif fmt == "jsonl":
        buf.write("".join(json.dumps(r) + "\n" for r in frame.to_dict(orient="records")).encode())
    else:
        frame.to_parquet(buf)
    df = read_results(buf, name=f"x.{fmt}")
    assert df["system"].tolist() == frame["system"].tolist()
    assert df["example_id"].tolist() == frame["example_id"].tolist()
    np.testing.assert_allclose(df["value"].to_numpy(), frame["value"].to_numpy(), rtol=1e-15)


_pieces = st.sampled_from(list("abc,;\t \"'\n\r01.5-eNa{}[]:\\") + [
    "benchmark", "system", "example_id", "metric", "value", "run", "None", "inf", "NaN", "\x00",
    "é", "\x1f\x8b", "PAR1"])


@pytest.mark.slow
@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_pieces, max_size=40).map("".join),
       st.sampled_from(["x.csv", "x.tsv", "x.jsonl", "x.json", "x", "x.parquet"]), st.booleans())
def test_garbage_never_crashes(text: str, name: str, header: bool) -> None:
    """Any input either loads as a valid table or raises DataContractError (found a crash
    on an unclosed quote in the header before the parse step was guarded)."""
    if header:
        text = "benchmark,system,example_id,metric,value\n" + text
    try:
        df = read_results(io.BytesIO(text.encode()), name=name)
    except DataContractError as exc:
        assert str(exc).startswith(name) and "Fix:" in str(exc)
    else:
        assert df["value"].notna().all() and len(df) > 0


def test_an_output_column_stays_per_observation_with_one_system() -> None:
    """With one system an ``output`` is constant within each example; it is still an output
    (not per-example text), while a ``prompt`` is example metadata."""
    df = pd.DataFrame({"benchmark": "b", "system": "A", "example_id": ["1", "2"],
                       "metric": "m", "value": [1.0, 0.0], "output": ["x", "<b>y</b>"],
                       "prompt": ["p1", "p2"], "response": [3, 4]})
    results, systems, examples = split_metadata(df)
    assert "output" in results.columns and "output" not in examples.columns
    # a numeric column is not text, whatever its name: placed by its variation as before
    assert list(examples.columns) == ["benchmark", "example_id", "prompt", "response"]
    assert list(systems.columns) == ["benchmark", "system"]



@pytest.mark.slow
def test_a_wide_files_inclusion_probability_is_a_design_column_not_a_metric(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A wide judge file (judge_score, partial human_score, inclusion_probability): the
    probabilities weight the labels (PPI++ with known chances, #31) exactly as in the same
    data in long form; before, the wide reader took the column for a third metric and the
    board silently ignored the unequal chances."""
    rng = np.random.default_rng(5)
    n = 120
    chance = np.where(np.arange(n) % 2 == 0, 0.2, 0.5)
    labelled = rng.random(n) < chance
    rows = []
    for system, shift in (("a", 0.0), ("b", 0.4)):
        human = rng.normal(5, 1, n)
        rows.append(pd.DataFrame({
            "benchmark": "mt", "system": system, "example_id": [f"q{i}" for i in range(n)],
            "judge_score": human + shift + rng.normal(0, 0.5, n),
            "human_score": np.where(labelled, human, np.nan), "inclusion_probability": chance}))
    wide = pd.concat(rows, ignore_index=True)
    frame = read_results(io.BytesIO(wide.to_csv(index=False).encode()), name="wide.csv")
    assert set(frame["metric"]) == {"judge_score", "human_score"}
    long = wide.melt(id_vars=["benchmark", "system", "example_id", "inclusion_probability"],
                     value_vars=["judge_score", "human_score"], var_name="metric"
                     ).dropna(subset=["value"])
    boards = []
    for name, table in (("wide.csv", wide), ("long.csv", long)):
        table.to_csv(tmp_path / name, index=False)
        assert cli_main(["leaderboard", str(tmp_path / name), "--judge", "judge_score",
                         "--human", "human_score", "--format", "json"]) == 0
        boards.append(json.loads(capsys.readouterr().out))
    assert boards[0]["weighted"] is True and boards[1]["weighted"] is True
    assert [s["ppi_mean"] for s in boards[0]["systems"]] == pytest.approx(
        [s["ppi_mean"] for s in boards[1]["systems"]], abs=1e-12)
