"""Inspect logs of task-argument variants and of interrupted runs, written by inspect-ai itself.

Provenance: ``tests/data/harness-logs-real/inspect/variants/`` and ``.../inspect/interrupted/``
were written offline by inspect-ai 0.3.285 from PyPI (``VERSIONS.txt`` in each folder) with
``scripts/harness_runs/inspect_run.py OUT variants interrupted`` (README beside the logs):

* ``variants/``: task ``hinted`` (3 arith samples) run with ``hint=False`` and ``hint=True``,
  model ``sigtest/model-a``; with the hint the task puts a system message into each sample's
  input, so the two logs' ``sample.input`` differ for the same dataset samples.
* ``interrupted/``: ``arith`` (6 samples × 2 epochs) with ``sigtest/interrupt``, which sends
  itself SIGINT on the first sample of epoch 2 (``status: "cancelled"``: epoch 1 scored, sample
  1 of epoch 2 errored by the cancellation, 5 sample-epochs never started); and ``arith``
  (6 × 1) with ``sigtest/slow`` in a child process SIGKILLed once the log held one sample (no
  ``header.json``, only ``_journal/start.json`` and ``samples/1_epoch_1.json``).

Reference values: ``inspect/expected.csv``, every score as inspect-ai's own ``read_eval_log``
and ``value_to_float`` read it (``scripts/harness_runs/inspect_expected.py``, same release);
the counts of sample-epochs from the logs' ``eval.dataset.sample_ids`` and
``eval.config.epochs`` as read here from the zip members.
"""

from __future__ import annotations

import contextlib
import io
import json
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from engine import build_matrix
from engine.harness import read_harness
from engine.io._zip import member_bytes

INSPECT = Path(__file__).resolve().parents[2] / "data" / "harness-logs-real" / "inspect"
VARIANTS = INSPECT / "variants"
INTERRUPTED = INSPECT / "interrupted"
HINT = "Hint: work the sum out step by step before you answer."  # inspect_run.py's HINT


def _member(path: Path, name: str) -> dict[str, object] | None:
    data = path.read_bytes()
    archive = zipfile.ZipFile(path)
    if name not in archive.namelist():
        return None
    loaded: dict[str, object] = json.loads(member_bytes(data, archive, archive.getinfo(name), path.name))
    return loaded


def _expected(folder: str) -> pd.DataFrame:
    want = pd.read_csv(INSPECT / "expected.csv", dtype={"id": str}, keep_default_na=False)
    return want[want["file"].str.startswith(f"{folder}/")]


# ---------------------------------------------------------------- task-argument variants


def test_the_premise_the_variants_inputs_differ_for_the_same_samples() -> None:
    inputs: dict[bool, list[str]] = {}
    for path in sorted(VARIANTS.glob("*.eval")):
        header = _member(path, "header.json")
        assert header is not None
        hint = header["eval"]["task_args"]["hint"]  # type: ignore[index]
        sample = _member(path, "samples/1_epoch_1.json")
        assert sample is not None
        inputs[hint] = [m["role"] for m in sample["input"]]  # type: ignore[attr-defined]
    assert inputs == {False: ["user"], True: ["system", "user"]}


def test_variants_are_two_systems_on_the_same_example_ids() -> None:
    result = read_harness(VARIANTS)
    df = result.frame
    assert set(df["system"]) == {"sigtest/model-a [hint=false]", "sigtest/model-a [hint=true]"}
    ids = df.groupby("system")["example_id"].apply(lambda s: sorted(set(s)))
    assert ids.to_dict() == {"sigtest/model-a [hint=false]": ["1", "2", "3"],
                             "sigtest/model-a [hint=true]": ["1", "2", "3"]}
    assert not df["example_id"].str.contains("#").any()
    report = result.report()
    assert "hold other content" not in report and "holds other content" not in report
    # one content hash and one prompt per example, whichever variant ran it
    per_example = df.groupby("example_id")[["content_hash", "prompt"]].nunique()
    assert (per_example == 1).all().all()
    assert set(df["prompt"]) == {"user: What is 2 + 3? Answer with the number only.",
                                 "user: What is 7 * 6? Answer with the number only.",
                                 "user: What is 10 - 4? Answer with the number only."}
    # what the task rendered around the samples stays with the system that ran it
    prompts = df.groupby("system")["system_prompt"].agg(lambda s: set(s.dropna()))
    assert prompts.to_dict() == {"sigtest/model-a [hint=false]": set(),
                                 "sigtest/model-a [hint=true]": {HINT}}


def test_variants_scores_are_inspects_and_pair_for_a_test() -> None:
    want = _expected("variants")
    hint = want["input"].str.contains("ChatMessageSystem").map({True: "true", False: "false"})
    want = want.assign(system="sigtest/model-a [hint=" + hint + "]")
    got = read_harness(VARIANTS).frame
    merged = want.merge(got, left_on=["system", "id", "scorer"],
                        right_on=["system", "example_id", "metric"], validate="1:1")
    assert len(merged) == len(want) == len(got) == 6
    np.testing.assert_array_equal(merged["value_x"].to_numpy(float), merged["value_y"].to_numpy(float))
    matrix = build_matrix(got, benchmark="hinted", metric="match")
    assert matrix.pairing == "full" and matrix.examples == ("1", "2", "3")
    assert matrix.values.shape == (2, 3)


# ---------------------------------------------------------------- interrupted runs


def _logs() -> dict[str, Path]:
    return {("killed" if _member(p, "header.json") is None else "cancelled"): p
            for p in INTERRUPTED.glob("*.eval")}


def test_the_premise_one_cancelled_log_and_one_killed() -> None:
    logs = _logs()
    assert set(logs) == {"cancelled", "killed"}
    header = _member(logs["cancelled"], "header.json")
    assert header is not None and header["status"] == "cancelled"
    assert header["eval"]["config"]["epochs"] == 2  # type: ignore[index]
    names = zipfile.ZipFile(logs["killed"]).namelist()
    assert [n for n in names if n.startswith("samples/")] == ["samples/1_epoch_1.json"]
    start = _member(logs["killed"], "_journal/start.json")
    assert start is not None and start["eval"]["dataset"]["sample_ids"] == [1, 2, 3, 4, 5, 6]  # type: ignore[index]
    assert set(_expected("interrupted")["status"]) == {"cancelled", "started"}


def test_interrupted_logs_say_how_many_sample_epochs_never_ran() -> None:
    logs = _logs()
    result = read_harness(INTERRUPTED)
    report = result.report()
    # cancelled: 6 samples x 2 epochs planned; epoch 1 (6) ran, sample 1 of epoch 2 errored
    assert (f"arith, sigtest/interrupt: log interrupted/{logs['cancelled'].name} was cancelled: "
            "5 of 12 sample-epochs never ran") in report
    assert "1 errored sample" in report
    # killed: 6 x 1 planned, one sample written before SIGKILL
    assert (f"arith, sigtest/slow: log interrupted/{logs['killed'].name} did not finish (no "
            "header.json: the run was killed or is still running): 5 of 6 sample-epochs never "
            "ran") in report
    # what did run is imported as Inspect scored it, nothing for what did not
    want = _expected("interrupted")
    got = result.frame
    assert len(got) == len(want) == 14
    per = got.groupby("system").size().to_dict()
    assert per == {"sigtest/interrupt": 12, "sigtest/slow": 2}


@pytest.mark.slow
def test_the_cli_import_prints_the_sentence(tmp_path: Path) -> None:
    from engine.cli import main

    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        assert main(["import", str(INTERRUPTED), "--db", f"sqlite:///{tmp_path / 'a.db'}"]) == 0
    assert "was cancelled: 5 of 12 sample-epochs never ran" in err.getvalue()
    assert "5 of 6 sample-epochs never ran" in err.getvalue()


def test_a_finished_retry_of_a_stopped_log_says_nothing_never_ran() -> None:
    # retry/: the first log stopped on an error, its eval_retry ran every sample
    report = read_harness(INSPECT / "retry").report()
    assert "never ran" not in report and "did not finish" not in report


@pytest.mark.parametrize("folder", ["eval", "json"])
def test_finished_logs_say_nothing(folder: str) -> None:
    report = read_harness(INSPECT / folder).report()
    assert "never ran" not in report and "did not finish" not in report


def test_system_messages_that_differ_per_sample_stay_in_the_prompt() -> None:
    # a system message that is part of each example (it differs between samples) is kept in
    # the prompt shown for it; the content hash still leaves it out, as for every log
    from engine.harness._inspect import shared_system, split_system

    samples = [{"input": [{"role": "system", "content": f"Persona {i}."},
                          {"role": "user", "content": "Hello?"}]} for i in (1, 2)]
    assert shared_system(samples) == ()
    assert split_system(samples[0]["input"]) == ("user: Hello?", ("Persona 1.",))
    assert shared_system(samples[:1]) == ("Persona 1.",)
