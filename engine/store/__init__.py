"""The results store: uploads with provenance in SQLite (default) or PostgreSQL.

Imported only by the commands and pages that read or write stored results, so a
command that analyses files never pays for SQLAlchemy.
"""

from ._store import ConflictError, OnConflict, ResultsStore, UploadReport, frame_hash, open_store

__all__ = ["ConflictError", "OnConflict", "ResultsStore", "UploadReport", "frame_hash",
           "open_store"]
