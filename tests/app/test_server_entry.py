"""The server entry (``app/server.py``) prepares the compiled kernels and imports the pages'
code before it serves (#27 item 3), and still starts when Numba cannot prepare them."""

from __future__ import annotations

import runpy
from pathlib import Path

import pytest

import app.preload
from engine import _warm, app_support

SERVER = Path(__file__).resolve().parents[2] / "app" / "server.py"


def test_the_kernels_are_warmed_before_the_app_is_made(monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    calls: list[str] = []

    def warm() -> _warm.Warmed:
        calls.append("warm")
        return _warm.Warmed({"elo_replay": 1}, 0.5)

    def preload() -> app.preload.Imported:
        calls.append("import")
        return app.preload.Imported(224, 1.5)

    monkeypatch.setattr(app_support, "warm_kernels", warm)
    monkeypatch.setattr(app.preload, "import_app_code", preload)
    served = runpy.run_path(str(SERVER))
    assert calls == ["warm", "import"] and "app" in served
    err = capsys.readouterr().err
    assert "1 compiled kernels ready" in err and "224 modules of the pages imported ahead" in err


def test_a_cache_numba_cannot_write_does_not_stop_the_server(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    def no_cache() -> _warm.Warmed:
        raise RuntimeError("cannot cache function '_elo_replay': no locator available")

    monkeypatch.setattr(app_support, "warm_kernels", no_cache)
    served = runpy.run_path(str(SERVER))
    assert "app" in served
    assert "pages compile them on first need" in capsys.readouterr().err
