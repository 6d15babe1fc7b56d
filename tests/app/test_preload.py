"""The server imports the pages' code before it serves (#27 item 3): a page's first visit then
imports no module of the app or the engine."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from apptest_support import app, no_exception

from app.preload import import_app_code


def _ours() -> set[str]:
    """Modules of the app and the engine, and the libraries the engine imports when used."""
    return {m for m in sys.modules
            if m.split(".")[0] in ("app", "engine", "pyarrow")}


def test_every_module_of_the_app_and_the_engine_is_imported() -> None:
    imported = import_app_code()
    assert imported.failed == ()
    assert imported.modules >= 150  # 224 when written (every package and module, no script)
    assert "engine.harness._helm" in sys.modules and "app.components.overall_pairs" in sys.modules
    assert "pyarrow.csv" in sys.modules  # the store's reads (imported when used)
    assert not [m for m in sys.modules if m.startswith("app.views")], "pages are scripts"
    assert "imported ahead" in imported.sentence()


@pytest.mark.slow
@pytest.mark.parametrize("page", ["overall", "compare", "leaderboard", "mechanisms"])
def test_a_first_visit_imports_nothing_more(db: Path, page: str) -> None:
    import_app_code()
    before = _ours()
    no_exception(app(f"views/{page}.py", benchmark="humaneval"))
    assert _ours() - before == set()


def test_a_module_that_fails_to_import_is_named_and_skipped(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib

    real = importlib.import_module

    def refuse(name: str, package: str | None = None) -> object:
        if name == "engine.harness._helm":
            raise ImportError("no module named 'helm_dependency'")
        return real(name, package)

    monkeypatch.setattr(importlib, "import_module", refuse)
    imported = import_app_code()
    assert [name for name, _ in imported.failed] == ["engine.harness._helm"]
    assert "not imported: engine.harness._helm" in imported.sentence()
