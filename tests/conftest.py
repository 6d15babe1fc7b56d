"""Shared fixtures: the bundled and test data sets, throw-away results stores.

Every file a test reads is inside this repository: the demo data in ``data/`` and
the small real data sets in ``tests/data/`` (sources and licences in its README).

PostgreSQL: tests that take ``pg_url`` (or ``store_url`` with the ``postgres`` param)
get a fresh database with a random name on the server at 127.0.0.1:5432, dropped
afterwards. Without a server they skip, unless ``SIGBOARD_REQUIRE_POSTGRES=1``
(``.ci/run``), where a missing server is a failure.

Hypothesis: one profile for every property test, loaded here before any test module is
imported (so each ``@settings(...)`` inherits it). No per-example deadline: a deadline is a
timed test, and on two shared cores a property test's example took 862 ms against the 200 ms
default and failed a correct run. With ``CI`` set (``.ci/run`` exports it) Hypothesis's own
``ci`` profile is loaded instead: no deadline either, and derandomized (the same examples on
every run, so a CI result is reproducible), no example database, slow generation allowed.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings

settings.register_profile("sigboard", deadline=None, print_blob=True)
settings.load_profile("ci" if os.environ.get("CI") else "sigboard")

ROOT = Path(__file__).resolve().parent.parent
DEMO_DATA = ROOT / "data"
TEST_DATA = ROOT / "tests" / "data"
PG_ADMIN_URL = os.environ.get("SIGBOARD_TEST_PG_ADMIN",
                              "postgresql+psycopg://postgres@127.0.0.1:5432/postgres")


@pytest.fixture(scope="session")
def root() -> Path:
    """The repository's root folder."""
    return ROOT


@pytest.fixture(scope="session")
def demo_data() -> Path:
    """``data/``: the bundled eval-arena demo files (MIT, see data/README.md)."""
    return DEMO_DATA


@pytest.fixture(scope="session")
def test_data() -> Path:
    """``tests/data/``: WMT MQM, AlpacaEval and bt-eval (see tests/data/README.md)."""
    return TEST_DATA


def _dispose(url: str) -> None:
    from engine.store import _store

    engine = _store._ENGINES.pop(url, None)
    if engine is not None:
        engine.dispose()


@pytest.fixture
def sqlite_url(tmp_path: Path) -> Iterator[str]:
    """URL of a fresh SQLite results store in a temporary directory."""
    url = f"sqlite:///{tmp_path / 'store.db'}"
    yield url
    _dispose(url)


def _pg_admin():  # type: ignore[no-untyped-def]
    from sqlalchemy import create_engine, text

    engine = create_engine(PG_ADMIN_URL, isolation_level="AUTOCOMMIT",
                           connect_args={"connect_timeout": 3})
    try:
        with engine.connect() as conn:
            conn.execute(text("SELECT 1"))
    except Exception as exc:  # noqa: BLE001
        engine.dispose()
        message = f"PostgreSQL not reachable at {PG_ADMIN_URL}: {exc}"
        if os.environ.get("SIGBOARD_REQUIRE_POSTGRES") == "1":
            pytest.fail(message + " (SIGBOARD_REQUIRE_POSTGRES=1 makes this a failure)")
        pytest.skip(message)
    return engine


@pytest.fixture
def pg_url() -> Iterator[str]:
    """URL of a fresh PostgreSQL database (random name), dropped after the test."""
    from sqlalchemy import text

    admin = _pg_admin()
    name = f"sigboard_test_{secrets.token_hex(6)}"
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    url = PG_ADMIN_URL.rsplit("/", 1)[0] + f"/{name}"
    try:
        yield url
    finally:
        _dispose(url)
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def store_url(request: pytest.FixtureRequest) -> str:
    """A fresh store URL, once on SQLite and once on PostgreSQL."""
    name = "sqlite_url" if request.param == "sqlite" else "pg_url"
    return str(request.getfixturevalue(name))
