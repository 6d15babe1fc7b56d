"""The pages' code imported before the server opens its port.

Each page imports what it needs when it first runs: on a fresh server, the first visit to
the Overall page imported 46 modules of the app and the engine (0.15-0.2 s of its 0.9 s of
CPU; more where Python may not write its bytecode cache), A/B compare 45, the Leaderboard
50. :func:`import_app_code` imports every module of ``app`` and ``engine`` once, at start,
so that no visitor waits for it — as :func:`engine.warm_kernels` does for the compiled
kernels.
"""

from __future__ import annotations

import importlib
import logging
import pkgutil
import time
from dataclasses import dataclass

import app
import engine

LOG = logging.getLogger("sigboard")
#: Scripts, not libraries: the pages (run by the navigation), the app's entry and the server
#: (run by Streamlit), and ``__main__`` modules (the CLI's entry).
_SCRIPTS = ("app.views.", "app.main", "app.server")
#: Libraries imported on first use (so that the CLI's commands that never use them start
#: without them): the first styled table imports pandas' Styler and jinja2 (~0.15 s), the
#: store's reads pyarrow's CSV reader.
_LIBRARIES = ("pyarrow", "pyarrow.json", "pyarrow.csv", "pandas.io.formats.style")


@dataclass(frozen=True)
class Imported:
    """How many modules :func:`import_app_code` imported, in how many seconds, and the
    ones that failed (name, error)."""

    modules: int
    seconds: float
    failed: tuple[tuple[str, str], ...] = ()

    def sentence(self) -> str:
        """One line for the server's log."""
        failed = f"; not imported: {', '.join(n for n, _ in self.failed)}" if self.failed else ""
        return f"{self.modules} modules of the pages imported ahead in {self.seconds:.1f} s{failed}"


def import_app_code() -> Imported:
    """Import every module of the ``app`` and ``engine`` packages (not the scripts) and the
    libraries they import only when used."""
    start, count, failed = time.perf_counter(), 0, []
    for name in _modules():
        try:
            importlib.import_module(name)
        except Exception as exc:  # an optional dependency missing: that page imports it
            # itself when it runs (and says what is wrong); the server still starts
            LOG.warning("preloading %s failed: %s", name, exc)
            failed.append((name, f"{type(exc).__name__}: {exc}"))
            continue
        count += 1
    return Imported(count, time.perf_counter() - start, tuple(failed))


def _modules() -> list[str]:
    """The modules of ``app`` and ``engine`` but the scripts, then :data:`_LIBRARIES`."""
    names = [found.name for package in (engine, app)
             for found in pkgutil.walk_packages(package.__path__, f"{package.__name__}.")
             if not found.name.startswith(_SCRIPTS) and not found.name.endswith(".__main__")]
    return [*names, *_LIBRARIES]
