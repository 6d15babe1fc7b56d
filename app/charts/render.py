"""Altair charts rendered to SVG on the server (vl-convert), for views that must load light.

An SVG image needs no JavaScript in the browser: no Vega bundle to fetch and
compile, no chart data to marshal on every run. The leaderboard's default
significance graph is drawn this way so that it never holds up the ranked table
above it. vl-convert bundles Vega itself and fetches nothing at run time.

Drawing happens in one long-lived child process (``_svg_worker``): the calling
script thread waits on a pipe without holding the interpreter lock, so the
server keeps serving every other request meanwhile.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import altair as alt

from app.charts.vl import jsonable
from engine import one_line_all

_ROOT = Path(__file__).resolve().parents[2]
_lock = threading.Lock()
_child: subprocess.Popen[bytes] | None = None


def chart_svg(chart: alt.TopLevelMixin | dict[str, Any], *, width: int | None) -> str:
    """``chart`` (an altair chart or a Vega-Lite dict of :mod:`app.charts.vl`) drawn ``width``
    pixels wide (None: as its own parts say, for concatenated charts) as a standalone SVG
    document (with a viewBox)."""
    if isinstance(chart, dict):
        spec = jsonable({**chart, "width": width} if width else chart)
    else:
        with alt.data_transformers.enable("default", max_rows=None):
            spec = (chart.properties(width=width) if width else chart).to_dict()
    # a line separator in a name would end a string literal of Vega's expressions (sort orders)
    line = json.dumps(one_line_all(spec), separators=(",", ":")).encode() + b"\n"
    with _lock:  # one drawing at a time through the one pipe
        try:
            return _draw(line)
        except (OSError, ValueError):  # the child died (killed, out of memory): a new one, once
            _stop()
            return _draw(line)


def warm() -> None:
    """Start the drawing process now (#27): vl-convert takes about 1.5 s to load, which the
    first chart of A/B compare then no longer waits for."""
    with _lock:
        _start()


def _draw(line: bytes) -> str:
    child = _start()
    if child.stdin is None or child.stdout is None:  # never: Popen was given both pipes
        raise OSError("the SVG worker has no pipes")
    child.stdin.write(line)
    child.stdin.flush()
    size = int(child.stdout.readline())
    return child.stdout.read(size).decode()


def _start() -> subprocess.Popen[bytes]:
    global _child
    if _child is None or _child.poll() is not None:
        _child = subprocess.Popen([sys.executable, "-m", "app.charts._svg_worker"], cwd=_ROOT,
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    return _child


def _stop() -> None:
    global _child
    if _child is not None:
        _child.kill()
        _child.wait()
    _child = None
