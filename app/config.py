"""The app's settings, read from the environment in one place (the engine reads none).

``SIGBOARD_DB_URL`` (a SQLAlchemy URL) wins; else SQLite at ``SIGBOARD_DB_PATH``,
else ``<repo>/var/sigboard.db``. ``SIGBOARD_UPLOAD_TOKEN`` and
``SIGBOARD_UPLOAD_ALLOW`` (comma-separated e-mails) restrict uploading (see
``app/auth.py``). ``SIGBOARD_VIEWER_DB_URL``, optional, is a read-only connection the
pages read through (``app/data/store.py``; uploads still write through the first). Upload
limits (``SIGBOARD_MAX_BYTES``, ``SIGBOARD_MAX_ROWS``, …,
see :class:`engine.Limits`) are read here too. The demo files are ``<repo>/data``.
The repository root is found from this file's path, so the app runs from any working directory.
:meth:`Settings.from_env` is pure; :func:`current` reads ``os.environ`` once per
script run (``app/main.py`` calls :func:`load`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import streamlit as st

from engine import Limits, UnsafeStoreError
from engine.app_support import masked, safe_url

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DB_PATH = ROOT / "var" / "sigboard.db"
DEMO_DATA = ROOT / "data"
_SESSION_KEY = "sigboard_settings"


@dataclass(frozen=True)
class Settings:
    """Everything the app is configured with; secrets are kept out of ``repr``."""

    db_url: str = field(repr=False)
    upload_token: str = field(default="", repr=False)
    upload_allow: frozenset[str] = frozenset()
    demo_data: Path = DEMO_DATA
    limits: Limits = field(default_factory=Limits)
    viewer_db_url: str = field(default="", repr=False)

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> Settings:
        """Settings from an environment mapping (``os.environ`` in the app)."""
        url = env.get("SIGBOARD_DB_URL", "").strip()
        if not url:
            path = env.get("SIGBOARD_DB_PATH", "").strip() or str(DEFAULT_DB_PATH)
            url = f"sqlite:///{Path(path).expanduser().resolve()}"
        allow = env.get("SIGBOARD_UPLOAD_ALLOW", "")
        return cls(db_url=url, upload_token=env.get("SIGBOARD_UPLOAD_TOKEN", ""),
                   upload_allow=frozenset(e.strip().lower() for e in allow.split(",")
                                          if e.strip()),
                   limits=Limits.from_mapping(env),
                   viewer_db_url=env.get("SIGBOARD_VIEWER_DB_URL", "").strip())


def load() -> Settings:
    """Read the environment for this script run (called once, by ``app/main.py``)."""
    settings = Settings.from_env(os.environ)
    st.session_state[_SESSION_KEY] = settings
    return settings


def current() -> Settings:
    """This run's settings (read now if a page runs without ``app/main.py``)."""
    settings = st.session_state.get(_SESSION_KEY)
    return settings if isinstance(settings, Settings) else load()


def store_problem(exc: BaseException, url: str | None = None) -> str:
    """One line for a store that failed (unreachable, refused, full): the store's address with
    its password masked, and the first line of the cause with any password masked too; a
    full disk says that nothing was stored and what to do."""
    url = current().db_url if url is None else url
    if isinstance(exc, UnsafeStoreError):  # names the file and the fix itself
        return str(exc)
    cause = str(getattr(exc, "orig", None) or exc).strip().splitlines() or [type(exc).__name__]
    if getattr(exc, "errno", None) == 28 or "disk is full" in cause[0] \
            or "No space left" in cause[0]:
        return (f"the disk of the results store {safe_url(url)} is full: nothing was stored "
                "(an upload is one transaction); free space, then commit again")
    return masked(f"cannot use the results store {safe_url(url)}: {cause[0]}",
                  [url, os.environ.get("SIGBOARD_DB_URL", "")])


def is_store_error(exc: BaseException) -> bool:
    """An error of the database itself (SQLAlchemy's or the driver's, or the disk's), or a
    store file where SQLite could lose uploads (:class:`engine.UnsafeStoreError`)."""
    return isinstance(exc, OSError | UnsafeStoreError) or any(
        c.__module__.split(".")[0] in ("sqlalchemy", "psycopg", "psycopg2", "sqlite3")
        for c in type(exc).__mro__)
