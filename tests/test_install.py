"""sigboard installs as a package, and its CI recipe runs (issue #24): a fresh virtual environment outside the
repository, ``pip install ROOT[app]``, then from another directory: ``sigboard --version``,
``sigboard leaderboard FILE --format json``, ``import engine`` and ``sigboard serve`` (the
health endpoint answers, from a folder that holds its own ``app`` package). The pins in
requirements.txt are the constraints, so the install takes the tested versions (from pip's
cache after the first run). The CI recipe (the composite ``action.yml`` and the example
workflow) is checked by running its steps' commands in that environment, as a runner would.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.slow


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("venv")
    subprocess.run([sys.executable, "-m", "venv", str(folder)], check=True, timeout=300)
    pip = [str(folder / "bin" / "python"), "-m", "pip", "install", "-q", "--disable-pip-version-check"]
    pins = folder / "constraints.txt"  # requirements.txt without extras, which pip refuses there
    pins.write_text(re.sub(r"\[[^\]]*\]", "", (ROOT / "requirements.txt").read_text()))
    done = subprocess.run([*pip, "-c", str(pins), f"{ROOT}[app]"],
                          capture_output=True, text=True, timeout=900, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    shutil.rmtree(ROOT / "build", ignore_errors=True)  # setuptools' in-tree build folder
    return folder


def _run(venv: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in {"PYTHONPATH", "VIRTUAL_ENV"}}
    return subprocess.run([*args], cwd=cwd, env=env, capture_output=True, text=True, timeout=300,
                          check=False)


def test_console_script_and_import_from_elsewhere(venv: Path, tmp_path: Path) -> None:
    sigboard = str(venv / "bin" / "sigboard")
    version = _run(venv, sigboard, "--version", cwd=tmp_path)
    assert version.returncode == 0 and version.stdout.startswith("sigboard "), version.stderr
    data = ROOT / "data" / "humaneval.jsonl.gz"
    board = _run(venv, sigboard, "leaderboard", str(data), "--format", "json", cwd=tmp_path)
    assert board.returncode == 0, board.stderr
    rows = json.loads(board.stdout)
    assert rows, "an empty leaderboard"
    imported = _run(venv, str(venv / "bin" / "python"), "-c",
                    "import engine, sys; engine.leaderboard; print(engine.__file__)", cwd=tmp_path)
    assert imported.returncode == 0, imported.stderr
    installed = Path(imported.stdout.strip())
    assert ROOT not in installed.parents, f"engine imported from the checkout: {installed}"


def test_app_extra_leaves_out_the_optional_and_test_only_packages(venv: Path, tmp_path: Path
                                                                 ) -> None:
    """``[app]`` installs neither pyvis (the ``network`` extra, which brings IPython) nor
    trueskill (a test dependency: the engine has its own TrueSkill)."""
    code = ("import importlib.util as u; "
            "print(' '.join(n for n in ('pyvis', 'IPython', 'trueskill') if u.find_spec(n)))")
    found = _run(venv, str(venv / "bin" / "python"), "-c", code, cwd=tmp_path)
    assert found.returncode == 0, found.stderr
    assert found.stdout.strip() == "", f"installed by [app]: {found.stdout.strip()}"


def test_serve_answers_its_health_endpoint(venv: Path, tmp_path: Path) -> None:
    """From a folder holding its own ``app`` package, ``sigboard serve`` serves sigboard's."""
    (tmp_path / "app").mkdir()
    for name in ("__init__.py", "server.py"):
        (tmp_path / "app" / name).write_text("raise SystemExit('the wrong app')\n")
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if k not in {"PYTHONPATH", "VIRTUAL_ENV"}}
    server = subprocess.Popen([str(venv / "bin" / "sigboard"), "serve", "--server.port", str(port),
                               "--server.address", "127.0.0.1"], cwd=tmp_path, env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        status = None
        while time.monotonic() < deadline and status != 200:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2) as r:
                    status = r.status
            except OSError:
                assert server.poll() is None, server.stderr.read() if server.stderr else ""
                time.sleep(0.5)
        assert status == 200
    finally:
        server.terminate()
        server.wait(timeout=30)
    assert "the wrong app" not in (server.stderr.read() if server.stderr else "")


# ------------------------------------------------------------------- the CI recipe (action.yml)

def _steps(path: Path) -> list[dict[str, Any]]:
    document = yaml.safe_load(path.read_text(encoding="utf-8"))
    if "runs" in document:  # a composite action
        return list(document["runs"]["steps"])
    return [step for job in document["jobs"].values() for step in job["steps"]]


def _expand(text: str, values: dict[str, str]) -> str:
    """GitHub's ``${{ expr }}`` as the runner would fill it in for this test."""
    return re.sub(r"\$\{\{\s*([\w.]+)\s*\}\}", lambda m: values[m.group(1)], text)


def test_the_workflow_uses_the_action_with_its_inputs() -> None:
    action = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
    workflow_steps = _steps(ROOT / ".github" / "workflows" / "sigboard-gate.yml")
    gate = next(step for step in workflow_steps if step.get("uses") == "./")
    required = {name for name, spec in action["inputs"].items() if spec.get("required")}
    assert required <= set(gate["with"]), required - set(gate["with"])
    upload = next(step for step in workflow_steps
                  if str(step.get("uses", "")).startswith("actions/upload-artifact"))
    assert gate["with"]["report"] in upload["with"]["path"]


def test_the_action_steps_gate_and_write_the_report(venv: Path, tmp_path: Path) -> None:
    """Every ``run:`` of the workflow and the action, as a runner would run them."""
    workflow = _steps(ROOT / ".github" / "workflows" / "sigboard-gate.yml")
    gate = next(step for step in workflow if step.get("uses") == "./")
    (tmp_path / "data").symlink_to(ROOT / "data")
    output = tmp_path / "github_output"
    env = {k: v for k, v in os.environ.items() if k not in {"PYTHONPATH", "VIRTUAL_ENV"}}
    env |= {"PATH": f"{venv / 'bin'}:{env['PATH']}", "GITHUB_OUTPUT": str(output)}
    values = {"github.action_path": str(ROOT),
              **{f"inputs.{k}": str(v) for k, v in gate["with"].items()},
              "inputs.options": ""}
    for step in [*workflow, *_steps(ROOT / "action.yml")]:
        if "run" not in step:
            continue
        step_env = env | {k: _expand(str(v), values) for k, v in step.get("env", {}).items()}
        done = subprocess.run(["bash", "-e", "-c", _expand(step["run"], values)], cwd=tmp_path,
                              env=step_env, capture_output=True, text=True, timeout=600, check=False)
        assert done.returncode == 0, (step.get("name"), done.stdout[-2000:], done.stderr[-2000:])
    result = json.loads((tmp_path / "sigboard-compare.json").read_text())
    assert result["exit_code"] == 0 and result["baseline"] == gate["with"]["baseline"]
    assert "<html" in (tmp_path / gate["with"]["report"]).read_text(encoding="utf-8").lower()
    assert output.read_text().startswith(f"verdict={result['verdict']}")
