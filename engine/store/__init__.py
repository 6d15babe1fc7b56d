"""The results store: uploads with provenance in SQLite (default) or PostgreSQL.

Imported only by the commands and pages that read or write stored results, so a
command that analyses files never pays for SQLAlchemy.
"""

from ._safety import check_sqlite_store
from ._store import (
    ConflictError,
    OnConflict,
    ResultsStore,
    UnsafeStoreError,
    UploadReport,
    frame_hash,
    open_store,
)

__all__ = ["ConflictError", "OnConflict", "ResultsStore", "UnsafeStoreError", "UploadReport",
           "check_sqlite_store", "frame_hash", "open_store"]
