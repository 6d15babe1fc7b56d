"""``serve``: start the bundled Streamlit app (needs the ``app`` extra: ``pip install sigboard[app]``);
``warm``: compile the engine's Numba kernels once, after installing (so that
no first page pays for them).

The engine never imports the app: ``serve`` finds sigboard's own ``app`` folder (beside this
``engine`` package, :func:`app_folder`; never by the top-level name ``app``, which a working
directory or another distribution may hold) and becomes ``python -P -m streamlit run
app/server.py`` (``exec``), with the app's Streamlit settings (``app/streamlit.toml``) as
command-line flags, so they hold from any working directory. Flags given after ``serve``
(``--server.port 8502``) come last and win.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import site
import subprocess
import sys
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

__all__ = ["app_folder", "register", "streamlit_flags"]


def streamlit_flags(settings: Mapping[str, Any]) -> list[str]:
    """``{"server": {"port": 1}}`` → ``["--server.port=1"]`` (TOML booleans as true/false).

    >>> streamlit_flags({"server": {"headless": True, "port": 8501}, "theme": {"base": "light"}})
    ['--server.headless=true', '--server.port=8501', '--theme.base=light']
    """
    flags = []
    for section, options in settings.items():
        for key, value in options.items():
            text = str(value).lower() if isinstance(value, bool) else str(value)
            flags.append(f"--{section}.{key}={text}")
    return flags


def app_folder() -> Path:
    """sigboard's own app folder: ``app/`` beside this ``engine`` package.

    Both are one distribution's: a wheel installs them side by side (the same
    ``site-packages``), and an editable install (``pip install -e .``) maps both to the
    checkout (its finder: ``engine`` → ``ROOT/engine``, ``app`` → ``ROOT/app``). A top-level
    look-up of the name ``app`` would instead find whatever package of that name comes first
    on ``sys.path``: the working directory's own ``app/``, or another project's.
    """
    folder = Path(__file__).resolve().parents[2] / "app"
    if not all((folder / name).is_file() for name in ("__init__.py", "server.py", "streamlit.toml")):
        raise OSError(f"sigboard's app is not installed beside its engine ({folder}): "
                      "pip install 'sigboard[app]' (or, in a checkout, pip install -e '.[app]')")
    if importlib.util.find_spec("streamlit") is None:
        raise OSError("the app needs Streamlit: pip install 'sigboard[app]' (or, in a checkout, "
                      "pip install -e '.[app]')")
    return folder


def _child_path(root: Path, environ: Mapping[str, str]) -> str | None:
    """The server's ``PYTHONPATH``: ``root`` (the folder holding ``engine/`` and ``app/``)
    first, unless it is one of this Python's site directories (a wheel's ``site-packages``,
    which every Python of this environment imports from, after the standard library).

    The server runs with ``python -P``: the working directory does not go on its
    ``sys.path`` (Streamlit adds only the script's own folder, sigboard's ``app/``), so
    ``import app`` there finds sigboard's app (through ``root``, or an editable install's
    finder), not a working directory's ``app/``.
    """
    sites = {Path(folder).resolve() for folder in [*site.getsitepackages(),
                                                   site.getusersitepackages()]}
    rest = environ.get("PYTHONPATH")
    if root in sites:
        return rest
    return os.pathsep.join([str(root), rest]) if rest else str(root)


def _serve(args: argparse.Namespace) -> int:
    folder = app_folder()
    settings = tomllib.loads((folder / "streamlit.toml").read_text(encoding="utf-8"))
    # -P: the working directory is not on the server's sys.path (see _child_path)
    command = [sys.executable, "-P", "-m", "streamlit", "run", str(folder / "server.py"),
               *streamlit_flags(settings), *args.streamlit_args]
    env = dict(os.environ)
    python_path = _child_path(folder.parent, env)
    if python_path is not None:
        env["PYTHONPATH"] = python_path
    # glibc gives each of the server's threads a malloc arena of its own; two hold the same
    # work in 60-70 MB less resident memory (measured idle: 535 → 474 MB with
    # benchmarks/bench_ingest_memory.py --browser)
    env.setdefault("MALLOC_ARENA_MAX", "2")
    if not env.get("SIGBOARD_DB_URL") and not env.get("SIGBOARD_DB_PATH"):
        # the results store next to where it is served from, never inside site-packages
        env["SIGBOARD_DB_PATH"] = str(Path.cwd() / "var" / "sigboard.db")
    if not env.get("SIGBOARD_DB_URL"):  # a store file where uploads could be lost: refused now
        from ..store import check_sqlite_store

        check_sqlite_store(Path(env["SIGBOARD_DB_PATH"]))
    if os.name == "posix":
        # the server replaces this process, so a signal to `sigboard serve` (a service
        # manager's stop, a test's terminate) reaches Streamlit itself and leaves no orphan
        os.execve(sys.executable, command, env)  # noqa: S606 - a fixed argv, no shell
    try:  # pragma: no cover - Windows has no exec that keeps the process id
        return subprocess.call(command, env=env)
    except KeyboardInterrupt:  # pragma: no cover
        return 0


def _warm(args: argparse.Namespace) -> int:
    from engine._warm import warm_kernels

    print(warm_kernels().sentence())
    return 0


def register(subparsers: Any) -> None:
    """Add ``serve`` and ``warm`` to the ``sigboard`` parser."""
    p = subparsers.add_parser(
        "serve", help="start the web app (needs sigboard[app]); Streamlit flags such as "
                      "--server.port 8502 pass through",
        description="Start the sigboard web app on the results store SIGBOARD_DB_URL, or the "
                    "SQLite file SIGBOARD_DB_PATH (default ./var/sigboard.db). Options after "
                    "`serve` go to `streamlit run` (e.g. --server.port 8502 --server.address "
                    "0.0.0.0).")
    p.add_argument("streamlit_args", nargs="*", metavar="STREAMLIT_OPTION",
                   help="Streamlit options, e.g. --server.port 8502")
    p.set_defaults(handler=_serve)
    w = subparsers.add_parser(
        "warm", help="compile the engine's Numba kernels now (once after installing; the "
                     "server does it before opening its port when they are not cached)",
        description="Compile every Numba kernel of the engine for the argument types it uses, "
                    "or load them from Numba's disk cache (next to engine/_jit.py, or "
                    "NUMBA_CACHE_DIR): a first page then never waits for a compilation.")
    w.set_defaults(handler=_warm)
