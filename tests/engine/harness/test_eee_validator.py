"""Exported EEE records pass the package's own validator (every-eval-ever 0.3.0).

The package needs Python >= 3.12 and sigboard runs on 3.11, so the validator runs in a
separate virtual environment, built here when missing (``pip install every-eval-ever==0.3.0``
from the package registry, cached in ``$SIGBOARD_EEE_VENV`` or ``~/.cache/sigboard-eee-venv``)
and called as its documented command, ``python -m every_eval_ever validate --format json
'DIR/data/*/*/*/*.json*'``. Without a Python 3.12 the test is skipped, except under CI
(``$CI`` or ``$SIGBOARD_REQUIRE_EEE`` set), where it fails; an environment that cannot be built
is a failure, never a skip.
"""

from __future__ import annotations

import glob
import json
import os
import shutil
import subprocess
from pathlib import Path

import pandas as pd
import pytest

from engine import validate_long
from engine.harness import read_harness
from engine.report._eee import write_eee

DATA = Path(__file__).resolve().parents[2] / "data"
PIN = "every-eval-ever==0.3.0"
#: systems whose names no datastore directory can spell: the validator warns (and only then)
ODD = {'org/m "q" [t=0.9]', "x/y."}


def _python312() -> str | None:
    """A working Python 3.12 (a pyenv shim on PATH may exist and still not run one)."""
    candidates = [*sorted(glob.glob("/root/.pyenv/versions/3.12.*/bin/python"), reverse=True),
                  *filter(None, [shutil.which("python3.12")])]
    for python in candidates:
        ok = subprocess.run([python, "-c", "import sys; assert sys.version_info[:2] == (3, 12)"],
                            capture_output=True)
        if ok.returncode == 0:
            return python
    return None


def _venv() -> Path:
    """The validator's interpreter, building its environment when missing."""
    home = Path(os.environ.get("SIGBOARD_EEE_VENV") or Path.home() / ".cache" / "sigboard-eee-venv")
    python = home / "bin" / "python"
    check = [str(python), "-c", "import importlib.metadata as m; "
             "assert m.version('every-eval-ever') == '0.3.0'"]
    if python.exists() and subprocess.run(check, capture_output=True).returncode == 0:
        return python
    base = _python312()
    if base is None:
        why = "no Python 3.12 on this machine (every-eval-ever 0.3.0 needs Python >= 3.12)"
        if os.environ.get("CI") or os.environ.get("SIGBOARD_REQUIRE_EEE"):
            pytest.fail(f"{why}; CI requires the EEE validator test")
        pytest.skip(why)
    try:
        subprocess.run([base, "-m", "venv", "--clear", str(home)], check=True, capture_output=True)
        subprocess.run([str(python), "-m", "pip", "install", "-q", PIN], check=True,
                       capture_output=True, timeout=900)
        subprocess.run(check, check=True, capture_output=True)
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as exc:
        err = getattr(exc, "stderr", b"") or b""
        pytest.fail(f"could not build the EEE validator environment at {home}: {exc}\n"
                    f"{err.decode(errors='replace')[-2000:]}")
    return python


def _validate(python: Path, out: Path) -> list[dict]:
    got = subprocess.run([str(python), "-m", "every_eval_ever", "validate", "--format", "json",
                          f"{out}/data/*/*/*/*.json*"], capture_output=True, text=True,
                         cwd=out, timeout=300)
    assert got.returncode in (0, 2), got.stderr[-2000:]  # 0: clean, 2: warnings only
    reports: list[dict] = json.loads(got.stdout)
    assert reports, "the validator saw no file"
    return reports


@pytest.mark.slow
def test_exported_records_pass_the_packages_validator(tmp_path: Path) -> None:
    python = _venv()
    # real logs (runs with seed variance), the converter's records again, and odd names
    real = read_harness(DATA / "harness-logs-real" / "inspect" / "eval")
    again = read_harness(DATA / "eee" / "lm_eval")
    rows = [("bench/one", s, f"ex{i}", m, float((i + j) % 2) if m == "acc" else i * 0.3 + j, r)
            for j, s in enumerate(["org/model-a", "flat", "org/sub/model:v1", *sorted(ODD)])
            for i in range(5) for m in ("acc", "f1") for r in (0, 1)]
    odd = validate_long(pd.DataFrame(rows, columns=["benchmark", "system", "example_id", "metric",
                                                    "value", "run"]), source="odd")
    for name, frame, specs in (("real", real.frame, real.specs), ("again", again.frame, again.specs),
                               ("odd", odd, {})):
        out = tmp_path / name
        written = write_eee(frame, out, specs=specs)
        reports = _validate(python, out)
        assert len(reports) == len(written.files)
        bad = [(r["file"], r["errors"]) for r in reports if not r["valid"] or r["errors"]]
        assert not bad, bad
        warned = [r for r in reports if r["warnings"]]
        for report in warned:
            assert all("names no datastore directory" in w["msg"] for w in report["warnings"])
            assert any(f"id {json.dumps(s)[1:-1]!r}" in report["warnings"][0]["msg"]
                       or repr(s) in report["warnings"][0]["msg"] for s in ODD)
        assert len(warned) == (len(ODD) if name == "odd" else 0)
    # and the package's own records, as converted (the reader's input), are valid too
    for folder in ("lm_eval", "inspect"):
        reports = _validate(python, DATA / "eee" / folder)
        assert all(r["valid"] and not r["errors"] for r in reports)
