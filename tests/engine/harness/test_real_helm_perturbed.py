"""HELM perturbed instances, as crfm-helm 0.5.16 wrote them (tests/data/harness-logs-real/helm/
perturbed/, README there; scripts/harness_runs/helm_run.py, suite ``perturbed``: run entry
``simple_mcqa:data_augmentation=typo_easy,model=sigtest/model-X``, 4 eval instances, then
``helm-summarize``).

HELM's data augmenter writes a perturbed instance under the id of the instance it perturbed,
with a ``perturbation`` object (``{"name": "typos", "prob": 0.1, ...}``), in
``instances.json``, ``display_predictions.json`` and ``per_instance_stats.json`` alike.

Reference values: read in each test from those JSON files as HELM wrote them: the input and
correct references of ``instances.json``, the ``predicted_text`` and ``mapped_output`` of
``display_predictions.json`` (the import writes ``"<predicted_text> → <mapped_output>"``
when HELM mapped a letter to a choice, docs/formats.md "Texts"), and the instance ids and
perturbations of ``per_instance_stats.json``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from engine.harness import read_harness

PERTURBED = (Path(__file__).resolve().parents[2] / "data" / "harness-logs-real" / "helm"
             / "perturbed")
BASE = "simple_mcqa:data_augmentation=typo0.1"
Key = tuple[str, str, str | None]  # (model, instance id, perturbation name)


def _name(obj: dict[str, Any]) -> str | None:
    p = obj.get("perturbation")
    return p["name"] if p else None


def _helm_texts() -> tuple[dict[Key, tuple[str, str]], dict[tuple[str, str, str | None, int], str]]:
    """(model, id, perturbation) → (input, correct references); (…, trial) → predicted text."""
    inputs: dict[Key, tuple[str, str]] = {}
    outputs: dict[tuple[str, str, str | None, int], str] = {}
    for run_dir in sorted(PERTURBED.iterdir()):
        model = json.loads((run_dir / "run_spec.json").read_text())["adapter_spec"]["model"]
        for inst in json.loads((run_dir / "instances.json").read_text()):
            refs = [r["output"]["text"] for r in inst["references"] if "correct" in r["tags"]]
            inputs[(model, inst["id"], _name(inst))] = (inst["input"]["text"], "\n".join(refs))
        for pred in json.loads((run_dir / "display_predictions.json").read_text()):
            text = pred["predicted_text"]
            mapped = pred.get("mapped_output")
            outputs[(model, pred["instance_id"], _name(pred), pred["train_trial_index"])] = (
                f"{text} → {mapped}" if mapped else text)
    return inputs, outputs


@pytest.fixture(scope="module")
def frame() -> pd.DataFrame:
    return read_harness(PERTURBED).frame


def test_the_premise_helm_wrote_perturbed_instances_under_the_original_ids() -> None:
    inputs, outputs = _helm_texts()
    perturbed = [k for k in inputs if k[2] is not None]
    assert perturbed and {k[2] for k in perturbed} == {"typos"}
    for model, iid, _ in perturbed:
        assert (model, iid, None) in inputs  # the original, same id
        assert inputs[(model, iid, "typos")][0] != inputs[(model, iid, None)][0]  # typos made
    # a model answers a perturbed prompt differently at least once: a lookup by id alone
    # would give the perturbed row the original's output
    assert any(outputs[(m, i, "typos", 0)] != outputs[(m, i, None, 0)] for m, i, _ in perturbed)


def test_every_perturbed_row_has_the_texts_helm_wrote_for_its_id_and_perturbation(
        frame: pd.DataFrame) -> None:
    inputs, outputs = _helm_texts()
    rows = frame[frame["perturbation"].notna()]
    assert len(rows) > 0
    for row in rows.itertuples():
        key = (row.system, row.example_id, row.perturbation)
        assert (row.prompt, row.reference) == inputs[key], key
        assert row.output == outputs[(*key, row.run)], key
    # and the originals keep theirs
    for row in frame[frame["perturbation"].isna()].itertuples():
        key = (row.system, row.example_id, None)
        assert (row.prompt, row.reference) == inputs[key], key
        assert row.output == outputs[(*key, row.run)], key


def test_perturbed_and_original_prompts_hash_differently(frame: pd.DataFrame) -> None:
    both = frame[frame["example_id"].isin(frame.loc[frame["perturbation"].notna(), "example_id"])]
    hashes = both.groupby(["example_id", both["perturbation"].fillna("")])["content_hash"].unique()
    assert all(len(h) == 1 and isinstance(h[0], str) for h in hashes)
    per_id = hashes.map(lambda h: h[0]).unstack()
    assert (per_id[""] != per_id["typos"]).all()


def test_outputs_keep_helm_s_leading_space(frame: pd.DataFrame) -> None:
    # the sigtest model answers " A" / " B" (scripts/harness_runs/sigtest_helm.py), and HELM
    # writes that completion unchanged as predicted_text
    for run_dir in PERTURBED.iterdir():
        preds = json.loads((run_dir / "display_predictions.json").read_text())
        assert all(p["predicted_text"].startswith(" ") for p in preds)
    assert frame["output"].notna().all()
    assert frame["output"].str.match(r"^ [AB] → (Even|Odd)$").all()


def test_perturbed_instances_are_named_by_id_in_a_perturbation_benchmark(
        frame: pd.DataFrame) -> None:
    assert set(frame["benchmark"]) == {BASE, f"{BASE},perturbation=typos"}
    assert frame.loc[frame["benchmark"] == BASE, "perturbation"].isna().all()
    assert frame.loc[frame["benchmark"] != BASE, "perturbation"].eq("typos").all()
    for run_dir in PERTURBED.iterdir():
        model = json.loads((run_dir / "run_spec.json").read_text())["adapter_spec"]["model"]
        stats = json.loads((run_dir / "per_instance_stats.json").read_text())
        for name, bench in ((None, BASE), ("typos", f"{BASE},perturbation=typos")):
            ids = {e["instance_id"] for e in stats if _name(e) == name}
            got = frame[(frame["system"] == model) & (frame["benchmark"] == bench)]
            assert set(got["example_id"]) == ids
