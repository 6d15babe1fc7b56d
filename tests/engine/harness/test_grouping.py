"""Files of one harness output uploaded one by one (names without folders, as a browser
sends them): recognised as parts of one output (the Upload page groups them by default),
and read together they give the rows the output folder gives.

Data: the real logs of tests/data/harness-logs-real (lm-eval 0.4.13, lighteval 0.13.0,
HELM 0.5.16, inspect-ai 0.3.285; see its README). Reference: the same logs read as the
folder the harness wrote.
"""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pandas as pd
import pytest

from engine.harness import read_harness
from engine.harness._grouping import belong_together

REAL = Path(__file__).resolve().parents[2] / "data" / "harness-logs-real"
COLUMNS = ["benchmark", "system", "example_id", "metric", "value"]


def _flat(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if p.is_file() and p.name != "VERSIONS.txt")


def _as_one_zip(files: list[Path]) -> tuple[str, bytes]:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for p in files:
            z.writestr(p.name, p.read_bytes())  # the name only, as a browser upload
    return "files.zip", buf.getvalue()


@pytest.mark.parametrize("folder", ["lm_eval/out/sigtest__model-a", "lighteval/out",
                                    "helm/v1/simple_mcqa:model=sigtest_model-a", "inspect/eval"])
def test_one_outputs_files_belong_together(folder: str) -> None:
    assert belong_together([p.name for p in _flat(REAL / folder)])


def test_other_uploads_stay_apart() -> None:
    assert not belong_together(["scores.csv", "more.csv"])
    assert not belong_together(["results_2026.json"])  # one file: nothing to group
    helm = _flat(REAL / "helm" / "v1")  # two runs' files share their names: need folders
    assert not belong_together([p.name for p in helm])
    assert not belong_together(["samples_a_1.jsonl", "notes.csv"])


@pytest.mark.parametrize("folder", ["lighteval/out", "lm_eval/out"])
def test_read_together_without_folders_gives_the_folders_rows(folder: str) -> None:
    # lighteval: the details parquet are matched to their results file by the run's date in
    # both names (the folders that named the model are gone)
    flat = read_harness(_as_one_zip(_flat(REAL / folder))).frame
    whole = read_harness(REAL / folder).frame

    def rows(df: pd.DataFrame) -> pd.DataFrame:
        return df[COLUMNS].sort_values(COLUMNS).reset_index(drop=True)

    pd.testing.assert_frame_equal(rows(flat), rows(whole))
