"""pyvis is optional (the ``network`` extra, since it brings IPython): without it the app's
code imports, the "Interactive graph" tab says how to install it, and the static graph is
drawn as before."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from apptest_support import app, no_exception, pictures

import app.charts.network as network
from app.data import figures

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_without_pyvis_the_interactive_tab_says_how_to_install_it(
        db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(network, "HAVE_PYVIS", False)
    figures.graph_html.clear()  # a graph drawn with pyvis by an earlier test is not reused
    try:
        at = app("views/leaderboard.py", benchmark="humaneval", graph="interactive")
        no_exception(at)
        page = at.get("iframe")[0].proto.srcdoc
        assert page == network.MISSING_PYVIS
        assert "pip install 'sigboard[network]'" in page
        assert network.self_contained(page) == page  # no external resource either
        static = app("views/leaderboard.py", benchmark="humaneval", graph="static")
        no_exception(static)
        assert pictures(static), "the server-drawn graph does not need pyvis"
    finally:
        figures.graph_html.clear()


@pytest.mark.slow
def test_the_app_code_imports_without_pyvis() -> None:
    code = ("import sys\n"
            "sys.modules['pyvis'] = None  # an import of pyvis (or pyvis.network) fails\n"
            "sys.modules['pyvis.network'] = None\n"
            "import app.charts.network as n\n"
            "assert not n.HAVE_PYVIS\n"
            "from app.preload import import_app_code\n"
            "print(import_app_code().sentence())\n")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"} | {"PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "pyvis" not in done.stderr
