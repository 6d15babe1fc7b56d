"""``sigboard import`` of Every Eval Ever records and ``sigboard export --format eee --out DIR``.

Reference: the store's own CSV export of the first import (what ``import`` reads back
unchanged); the records are every-eval-ever 0.3.0's, converted from real Inspect logs
(tests/data/eee/README.md).
"""

from __future__ import annotations

import io
import json
from contextlib import redirect_stdout
from pathlib import Path

import pandas as pd
import pytest

from engine.cli import main

EEE = Path(__file__).resolve().parents[1] / "data" / "eee"


def _csv(url: str) -> pd.DataFrame:
    buf = io.StringIO()
    with redirect_stdout(buf):
        assert main(["export", url]) == 0
    df = pd.read_csv(io.StringIO(buf.getvalue()), dtype=str, keep_default_na=False)
    keys = ["benchmark", "system", "metric", "example_id", "run"]
    return df.sort_values(keys).reset_index(drop=True)


@pytest.mark.slow
def test_import_export_eee_import_gives_the_same_store(tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    first = f"sqlite:///{tmp_path / 'a.db'}"
    assert main(["import", str(EEE / "inspect"), "--db", first, "--format", "json"]) == 0
    out = capsys.readouterr()
    report = json.loads(out.out)["uploads"][0]
    # import reads usage too: 104 scores + latency_ms and working_s of 56 sample-runs
    assert report["rows"] == 104 + 2 * 56 and "eee log" in out.err
    assert main(["export", first, "--format", "eee", "--out", str(tmp_path / "records")]) == 0
    said = capsys.readouterr().err
    assert "5 EEE aggregate record(s) and 216 instance record(s)" in said
    agg = json.loads(next((tmp_path / "records" / "data" / "capitals").rglob("*-*-*-*-*.json"))
                     .read_text())
    unc = agg["evaluation_results"][0]["score_details"]["uncertainty"]
    assert {"num_samples", "confidence_interval"} <= set(unc)
    second = f"sqlite:///{tmp_path / 'b.db'}"
    assert main(["import", str(tmp_path / "records"), "--db", second, "--format", "json"]) == 0
    capsys.readouterr()
    a, b = _csv(first), _csv(second)
    cols = ["benchmark", "system", "example_id", "metric", "value", "run", "prompt", "reference",
            "output"]
    pd.testing.assert_frame_equal(a[cols], b[cols])
    assert set(b["eee_schema_version"]) == {"0.3.0"}


@pytest.mark.slow
def test_export_eee_needs_a_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = str(EEE / "lm_eval")
    assert main(["export", data, "--format", "eee"]) != 0
    assert "--out: --format eee writes a folder of records" in capsys.readouterr().err
    assert main(["export", data, "--out", str(tmp_path)]) != 0
    assert "--out: only with --format eee" in capsys.readouterr().err
    (tmp_path / "file").write_text("x")
    assert main(["export", data, "--format", "eee", "--out", str(tmp_path / "file")]) != 0
    assert "is a file" in capsys.readouterr().err
