"""Every Eval Ever records in and out: the reader on records written by the package's own
converters (every-eval-ever 0.3.0, tests/data/eee/README.md), the writer's uncertainty fields,
round trips, and the messages for bad records.

Reference values: the rows sigboard's own lm-eval and Inspect readers take from the logs the
records were converted from (tests/data/harness-logs-real/); intervals from statsmodels
(``proportion_confint(method="wilson")``) and scipy (``stats.t.ppf``); standard errors from
numpy; the converters' own standard errors in the committed aggregate records.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from statsmodels.stats.proportion import proportion_confint

from engine import DataContractError
from engine._matrix import build_matrix
from engine.harness import detect_format, read_harness
from engine.products._leaderboard import leaderboard
from engine.report._eee import write_eee

DATA = Path(__file__).resolve().parents[2] / "data"
EEE = DATA / "eee"
REAL = DATA / "harness-logs-real"
CORE = ["benchmark", "system", "example_id", "metric", "value"]
TEXTS = ["prompt", "reference", "output", "content_hash"]


def _sorted(df: pd.DataFrame) -> pd.DataFrame:
    keys = [c for c in ("benchmark", "system", "metric", "example_id", "run") if c in df.columns]
    return df.sort_values(keys).reset_index(drop=True)


# ------------------------------------------------------------- converter-produced records


def test_every_record_kind_is_detected_as_eee() -> None:
    agg = next((EEE / "lm_eval").rglob("*-*-*-*-????????????.json"))
    samples = next((EEE / "lm_eval").rglob("*_samples.jsonl"))
    assert detect_format(EEE / "lm_eval") == "eee"
    assert detect_format(agg) == "eee"
    assert detect_format(samples) == "eee"
    assert read_harness(EEE / "inspect", format="every_eval_ever").format == "eee"


def test_lm_eval_records_give_the_rows_of_the_lm_eval_log() -> None:
    """The converter's lm-eval records vs sigboard's reading of the same samples files:
    the same benchmark, systems, examples (with the same unpaired doc), scores and prompts;
    the metric is the result id ``metric:filter`` where lm-eval writes ``metric,filter``."""
    got = read_harness(EEE / "lm_eval")
    want = read_harness(REAL / "lm_eval" / "doc_hash").frame
    frame = got.frame.assign(metric=got.frame["metric"].str.replace(":", ",", n=1))
    # the unpaired example's id carries a hash of its content: lm-eval's doc_hash there, the
    # hash of prompt and reference here (EEE records have no doc hash of their own)
    unpaired_got = set(frame.loc[frame["example_id"].str.contains("#"), "system"])
    unpaired_want = set(want.loc[want["example_id"].str.contains("#"), "system"])
    assert unpaired_got == unpaired_want == {"sigtest/model-b"}
    frame = frame.assign(example_id=frame["example_id"].str.split("#").str[0])
    want = want.assign(example_id=want["example_id"].str.split("#").str[0])
    cols = [*CORE, "prompt", "reference"]
    pd.testing.assert_frame_equal(_sorted(frame)[cols], _sorted(want)[cols])
    assert set(got.frame["eee_schema_version"]) == {"0.3.0"}
    assert set(got.frame["harness_version"]) == {"lm_eval 0.4.13"}
    assert all(s.higher_is_better for s in got.specs.values()) and len(got.specs) == 2
    # the converter writes the filtered response ("[invalid]" when strict-match found none)
    assert "[invalid]" in set(got.frame["output"])
    assert "unpaired" not in got.report() and "not paired" in got.report()


def test_inspect_records_of_one_epoch_give_the_rows_of_the_inspect_log() -> None:
    got = read_harness(EEE / "inspect" / "data" / "capitals", usage=True).frame
    want = read_harness(REAL / "inspect" / "json", usage=True).frame
    got = got.assign(metric=got["metric"].replace({"match:accuracy": "match"}))
    cols = [*CORE, "run", *TEXTS]
    for metric in ("match", "working_s"):  # Inspect's working_time = the record's generation_time_ms
        a = _sorted(got[got["metric"] == metric])[cols]
        b = _sorted(want[want["metric"] == metric])[cols]
        pd.testing.assert_frame_equal(a, b, check_exact=False, rtol=1e-12)


def test_inspect_records_of_two_epochs_agree_on_each_examples_mean() -> None:
    """With epochs, the converter writes each record the sample's epoch-reduced score (the
    log's mean reduction), so the per-example means over runs agree with the log's, and the
    systems (split by temperature, model-b's two seeds as runs) are the same."""
    got = read_harness(EEE / "inspect" / "data" / "arith").frame
    want = read_harness(REAL / "inspect" / "eval").frame
    got = got.assign(metric=got["metric"].str.split(":").str[0])
    keys = ["system", "example_id", "metric"]
    mean_got = got.groupby(keys)["value"].mean()
    mean_want = want.groupby(keys)["value"].mean()
    pd.testing.assert_series_equal(mean_got, mean_want)
    assert got.groupby("system")["run"].nunique().to_dict() == \
        want.groupby("system")["run"].nunique().to_dict()
    assert set(got["prompt"]) == set(want["prompt"]) and set(got["reference"]) == set(want["reference"])


def test_aggregate_only_records_are_named_not_imported(tmp_path: Path) -> None:
    agg = next((EEE / "lm_eval").rglob("*-*-*-*-????????????.json"))
    (tmp_path / agg.name).write_bytes(agg.read_bytes())
    with pytest.raises(DataContractError, match="nothing usable") as err:
        read_harness(tmp_path)
    assert "not per-example data" in str(err.value) or "per-example" in str(err.value)
    both = tmp_path / "both"
    both.mkdir()
    src = next(p for p in (EEE / "lm_eval").rglob("*_samples.jsonl"))
    (both / src.name).write_bytes(src.read_bytes())
    other = next(p for p in (EEE / "inspect").rglob("*-*-*-*-????????????.json"))
    (both / other.name).write_bytes(other.read_bytes())
    got = read_harness(both)
    assert any("no instance-level records" in d for d in got.decisions)


# ----------------------------------------------------------------------------- the writer


def _records(out: Path) -> tuple[list[dict], list[dict]]:
    aggs = [json.loads(p.read_text()) for p in sorted(out.rglob("*.json"))]
    lines = [json.loads(line) for p in sorted(out.rglob("*_samples.jsonl"))
             for line in p.read_text().splitlines()]
    return aggs, lines


def test_export_fills_the_uncertainty_from_sigboards_statistics(tmp_path: Path) -> None:
    src = read_harness(REAL / "inspect" / "eval")
    write_eee(src.frame, tmp_path, specs=src.specs, retrieved="0")
    aggs, _ = _records(tmp_path)
    assert len(aggs) == 3
    for agg in aggs:
        system = agg["model_info"]["id"]
        for res in agg["evaluation_results"]:
            part = src.frame[(src.frame["system"] == system)
                             & (src.frame["metric"] == res["evaluation_result_id"])]
            per_example = part.groupby("example_id")["value"].mean().to_numpy()
            n, mean = per_example.size, per_example.mean()
            sd = per_example.std(ddof=1)
            unc = res["score_details"]["uncertainty"]
            assert res["score_details"]["score"] == pytest.approx(mean, abs=1e-12)
            assert unc["num_samples"] == n
            assert unc["standard_error"]["value"] == pytest.approx(sd / np.sqrt(n), rel=1e-12)
            ci = unc.get("confidence_interval")
            # the leaderboard's modality is the metric's (every system's per-example means)
            everyone = src.frame[src.frame["metric"] == res["evaluation_result_id"]]
            binary = set(everyone.groupby(["system", "example_id"])["value"].mean()) <= {0.0, 1.0}
            board = leaderboard(build_matrix(src.frame, benchmark="arith",
                                             metric=res["evaluation_result_id"]))
            row = board.table.set_index("system").loc[system]
            if "seed variance" in ci["method"]:  # runs that disagree: the board's own interval
                assert board.pairwise.pooled_runs.var_run > 0
                lo, hi = row["ci_low"], row["ci_high"]
            elif binary:
                lo, hi = proportion_confint(round(mean * n), n, alpha=0.05, method="wilson")
                assert ci["method"] == "wilson"
            else:
                half = stats.t.ppf(0.975, n - 1) * sd / np.sqrt(n)
                lo, hi = mean - half, mean + half
                assert ci["method"] == "t" and res["metric_config"]["score_type"] == "continuous"
            if sd > 0:
                assert (ci["lower"], ci["upper"]) == pytest.approx((lo, hi), abs=1e-12)
            assert ci["confidence_level"] == 0.95
            details = res["score_details"]["details"]
            assert details["sigboard_test"] == board.test  # the board's test (vc-t: run-aware)
            assert details["sigboard_rank"] == str(row["rank"])
            assert details["sigboard_group"] == row["group"]
            assert details["sigboard_correction"] == "holm-sidak"
            assert all(isinstance(v, str) for v in details.values())


def test_the_standard_error_is_the_converters_where_both_compute_it(tmp_path: Path) -> None:
    """Inspect's own stderr() (the converter copies it into the record) is s/√n over the
    samples, as sigboard's: the one-epoch capitals records and model-a at temperature 0."""
    src = read_harness(EEE / "inspect" / "data" / "arith")
    one = src.frame[src.frame["system"] == "sigtest/model-a [temperature=0.0]"]
    write_eee(one, tmp_path, specs=src.specs, retrieved="0")
    ours = {r["evaluation_result_id"]: r for a in _records(tmp_path)[0] for r in a["evaluation_results"]}
    theirs = next(json.loads(p.read_text()) for p in (EEE / "inspect" / "data" / "arith").rglob("*.json")
                  if json.loads(p.read_text())["evaluation_results"][0]["generation_config"]
                  ["generation_args"]["temperature"] == 0.0 and "model-a" in p.parent.name)
    for res in theirs["evaluation_results"]:
        se = res["score_details"]["uncertainty"]["standard_error"]["value"]
        mine = ours[res["evaluation_result_id"]]["score_details"]["uncertainty"]
        if se > 0:
            assert mine["standard_error"]["value"] == pytest.approx(se, rel=1e-9)
        assert ours[res["evaluation_result_id"]]["score_details"]["score"] == \
            pytest.approx(res["score_details"]["score"], abs=1e-12)
        values = set(one.loc[one["metric"] == res["evaluation_result_id"], "value"])
        method = "wilson" if values <= {0.0, 1.0} else "t"  # one system: its own interval
        assert mine["confidence_interval"]["method"] == method


@pytest.mark.parametrize("source", [REAL / "inspect" / "eval", EEE / "lm_eval", EEE / "inspect"])
def test_import_export_import_is_exact(tmp_path: Path, source: Path) -> None:
    first = read_harness(source)
    write_eee(first.frame, tmp_path, specs=first.specs, retrieved="0")
    again = read_harness(tmp_path)
    a, b = _sorted(first.frame), _sorted(again.frame)
    cols = [c for c in [*CORE, "run", *TEXTS] if c in a.columns]
    assert [c for c in cols if c not in b.columns] == []
    pd.testing.assert_frame_equal(a[cols], b[cols])
    meta = [c for c in a.columns if c not in cols]
    for c in meta:  # system metadata comes back as text (EEE additional_details are strings)
        assert (a[c].astype(str) == b[c].astype(str)).all(), c
    assert {k: v.higher_is_better for k, v in again.specs.items()} == \
        {k: first.specs.get(k, v).higher_is_better for k, v in again.specs.items()}


names = st.sampled_from(["org/model-a", "flat", "org/sub/model:v1", 'org/m "q" [t=0.9]', "x/y."])


@pytest.mark.slow
@settings(max_examples=25, deadline=None)
@given(systems=st.lists(names, min_size=2, max_size=3, unique=True),
       n=st.integers(2, 6), runs=st.integers(1, 2), binary=st.booleans(),
       lower=st.booleans(), seed=st.integers(0, 2**16))
def test_round_trip_of_random_tables(tmp_path_factory: pytest.TempPathFactory,
                                     systems: list[str], n: int, runs: int, binary: bool,
                                     lower: bool, seed: int) -> None:
    from engine import MetricSpec, validate_long

    rng = np.random.default_rng(seed)
    rows = [("bench/one", s, f"ex{i}", "score", float(rng.integers(0, 2)) if binary
             else float(np.round(rng.normal(), 6)), r)
            for s in systems for i in range(n) for r in range(runs)]
    df = validate_long(pd.DataFrame(rows, columns=[*CORE, "run"]), source="t")
    specs = {("bench/one", "score"): MetricSpec(higher_is_better=not lower)}
    out = tmp_path_factory.mktemp("eee")
    write_eee(df.sample(frac=1, random_state=seed), out, specs=specs, retrieved="0")  # any order
    back = read_harness(out)
    cols = [*CORE, "run"]
    pd.testing.assert_frame_equal(_sorted(df)[cols], _sorted(back.frame)[cols])
    assert back.specs[("bench/one", "score")].higher_is_better is (not lower)


def test_write_eee_refuses_bad_arguments(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="alpha: must be in"):
        write_eee(pd.DataFrame(columns=CORE), tmp_path, alpha=1.5)
    with pytest.raises(ValueError, match="missing column"):
        write_eee(pd.DataFrame({"system": ["a"]}), tmp_path)


# ------------------------------------------------------------------------- bad records


def _copy_lm_eval(tmp_path: Path) -> tuple[Path, Path]:
    src = next((EEE / "lm_eval").rglob("*-*-*-*-????????????.json"))
    samples = src.with_name(src.stem + "_samples.jsonl")
    agg, inst = tmp_path / src.name, tmp_path / samples.name
    agg.write_bytes(src.read_bytes())
    inst.write_bytes(samples.read_bytes())
    return agg, inst


def test_a_bad_aggregate_names_file_field_rule_and_fix(tmp_path: Path) -> None:
    agg, _ = _copy_lm_eval(tmp_path)
    record = json.loads(agg.read_text())
    del record["model_info"]["id"]
    agg.write_text(json.dumps(record))
    with pytest.raises(DataContractError) as err:
        read_harness(tmp_path)
    text = str(err.value)
    assert agg.name in text and "model_info.id" in text and "must be a string (missing)" in text
    assert "every_eval_ever validate" in text


def test_a_bad_direction_is_refused(tmp_path: Path) -> None:
    agg, _ = _copy_lm_eval(tmp_path)
    record = json.loads(agg.read_text())
    record["evaluation_results"][1]["metric_config"]["lower_is_better"] = "no"
    agg.write_text(json.dumps(record))
    with pytest.raises(DataContractError, match=r"evaluation_results\[1\]: field "
                       r"metric_config.lower_is_better must be true or false \(is \"no\"\)"):
        read_harness(tmp_path)


@pytest.mark.parametrize(("edit", "field", "rule"), [
    (lambda r: r["evaluation"].pop("score"), "evaluation.score", "is missing"),
    (lambda r: r.pop("model_id"), "model_id", "must be a string"),
    (lambda r: r.update(metadata={"epoch": "one"}), "metadata.epoch", "whole number"),
])
def test_a_bad_instance_record_names_file_line_field_and_rule(tmp_path: Path, edit: object,
                                                              field: str, rule: str) -> None:
    _, inst = _copy_lm_eval(tmp_path)
    lines = inst.read_text().splitlines()
    record = json.loads(lines[2])
    edit(record)  # type: ignore[operator]
    lines[2] = json.dumps(record)
    inst.write_text("\n".join(lines) + "\n")
    with pytest.raises(DataContractError) as err:
        read_harness(tmp_path)
    text = str(err.value)
    assert inst.name in text and "line 3" in text and field in text and rule in text
    assert "Fix:" in text


def test_a_broken_line_is_named(tmp_path: Path) -> None:
    _, inst = _copy_lm_eval(tmp_path)
    inst.write_text(inst.read_text() + '{"schema_version": "0.3.0", "sample_id"\n')
    with pytest.raises(DataContractError, match=r"line 13 is not valid JSON"):
        read_harness(tmp_path)


def test_an_errored_sample_is_skipped_and_counted(tmp_path: Path) -> None:
    _, inst = _copy_lm_eval(tmp_path)
    lines = inst.read_text().splitlines()
    record = json.loads(lines[0])
    record["error"] = "timeout"
    lines[0] = json.dumps(record)
    inst.write_text("\n".join(lines) + "\n")
    got = read_harness(tmp_path)
    assert len(got.frame) == 11
    assert int(got.skipped.loc[got.skipped["reason"] == "errored sample", "count"].sum()) == 1


def test_an_agentic_record_without_its_aggregate(tmp_path: Path) -> None:
    """A samples file alone: the benchmark is the record's evaluation_name, the output the
    last assistant message, usage from token_usage and performance (values: the record's)."""
    record = {"schema_version": "0.3.0", "evaluation_id": "e1", "model_id": "org/agent",
              "evaluation_name": "swe", "sample_id": "task-1", "interaction_type": "agentic",
              "input": {"raw": "Fix the bug", "reference": ["patch"]}, "output": None,
              "messages": [{"turn_idx": 0, "role": "user", "content": "Fix the bug"},
                           {"turn_idx": 1, "role": "assistant", "content": "looking"},
                           {"turn_idx": 2, "role": "tool", "content": "ok"},
                           {"turn_idx": 3, "role": "assistant", "content": "done"}],
              "answer_attribution": [], "evaluation": {"score": 1.0, "is_correct": True},
              "token_usage": {"input_tokens": 120, "output_tokens": 30, "total_tokens": 150},
              "performance": {"latency_ms": 2500.0, "generation_time_ms": 2000.0}}
    other = {**record, "model_id": "org/other", "evaluation_id": "e2",
             "evaluation": {"score": 0.0, "is_correct": False}}
    (tmp_path / "x_samples.jsonl").write_text(json.dumps(record) + "\n" + json.dumps(other) + "\n")
    got = read_harness(tmp_path, usage=True)
    a = got.frame[got.frame["system"] == "org/agent"].set_index("metric")
    assert a.loc["swe", "value"] == 1.0 and a.loc["swe", "output"] == "done"
    assert a.loc["tokens_in", "value"] == 120 and a.loc["tokens_out", "value"] == 30
    assert a.loc["latency_ms", "value"] == 2500.0 and a.loc["working_s", "value"] == 2.0
    assert not got.specs[("swe", "tokens_in")].higher_is_better
    assert set(got.frame["benchmark"]) == {"swe"}


def test_example_and_system_metadata_come_back(tmp_path: Path) -> None:
    from engine import validate_long

    rows = [("b", s, f"ex{i}", "acc", float((i + j) % 2), f"{i * 0.1:.1f}", team)
            for j, (s, team) in enumerate([("a/x", "red"), ("b/y", "blue")]) for i in range(4)]
    df = validate_long(pd.DataFrame(rows, columns=[*CORE, "difficulty", "team"]), source="t")
    write_eee(df, tmp_path, retrieved="0")
    agg = json.loads(next(tmp_path.rglob("*-*-*-*-*.json")).read_text())
    assert agg["model_info"]["additional_details"]["team"] in {"red", "blue"}
    line = json.loads(next(tmp_path.rglob("*_samples.jsonl")).read_text().splitlines()[0])
    assert line["metadata"] == {"sigboard:difficulty": "0.0"}
    back = _sorted(read_harness(tmp_path).frame)
    want = _sorted(df)
    for col in (*CORE, "difficulty", "team"):
        assert (back[col].astype(str) == want[col].astype(str)).all(), col
