"""A read-only connection for viewers: the pages read through it, the database refuses writes.

The database credentials are the write permission (the CLI imports with them; the app's
upload token guards only its pages). A team can give the server's pages a connection
that cannot write at all, so a bug or an attack through a page cannot change the store:

- SQLite: the file opened with ``mode=ro`` (SQLite refuses every write);
- PostgreSQL: every transaction starts ``READ ONLY`` (``default_transaction_read_only``),
  best with a role that has only ``SELECT`` (``GRANT SELECT ON ALL TABLES IN SCHEMA
  public TO viewer``), so that not even ``SET`` can lift it.

The app opens it from ``SIGBOARD_VIEWER_DB_URL`` (docs/deploy.md, "Store access").
"""

from __future__ import annotations

from sqlalchemy import Engine, create_engine
from sqlalchemy.engine import make_url

from . import _connect as sc
from ._safety import check_sqlite_file
from ._store import ResultsStore

__all__ = ["open_viewer_store"]

_VIEWERS: dict[str, Engine] = {}


def open_viewer_store(url: str) -> ResultsStore:
    """The results store at ``url``, read-only at the database: every write raises.

    Parameters
    ----------
    url : str
        A SQLAlchemy URL of an existing store (``sqlite:///…`` or ``postgresql://…``).

    Raises
    ------
    ValueError
        For a blank URL, in-memory SQLite, or a SQLite file that does not exist (a viewer
        never creates a store).
    """
    if not isinstance(url, str) or not url.strip():
        raise ValueError(f"url: a results-store URL is needed for viewers; got {url!r}")
    resolved = url.strip()
    engine = _VIEWERS.get(resolved)
    if engine is None:
        engine = _VIEWERS[resolved] = _read_only_engine(resolved)
    return ResultsStore(engine, read_only=True)


def _read_only_engine(url: str) -> Engine:
    parsed = make_url(sc._normalise(url))
    if parsed.get_backend_name() == "sqlite":
        path = sc.sqlite_path(url)
        if path is None:
            raise ValueError(f"url: a viewer needs a SQLite file, not {url!r}")
        if not path.exists():
            raise ValueError(f"url: no such store: {path} (a viewer never creates one)")
        check_sqlite_file(path, read_only=True)
        return sc.make_engine(url, read_only=True)
    return create_engine(parsed, pool_pre_ping=True, connect_args={
        "connect_timeout": sc.PG_CONNECT_TIMEOUT,
        "options": "-c default_transaction_read_only=on"})
