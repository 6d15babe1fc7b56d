"""The results store: uploads with provenance, in SQLite (default) or any SQLAlchemy database.

Semantics (see also :mod:`engine.store._schema`):

* **One upload = one transaction.** Validation happens before anything is written;
  a rejected upload leaves the store exactly as it was (the data version too).
* **Identical content is stored once**: the SHA-256 of the raw bytes (or of the
  table, order-independent, when there are no bytes) is unique; a repeat returns
  ``duplicate_of`` and stores nothing.
* **Collisions** with stored ``(benchmark, system, metric, example_id, run)`` keys
  are rejected with :class:`ConflictError` listing them, unless ``on_conflict`` is
  ``"replace"`` — every stored row of each (benchmark, system, metric) that collides
  is superseded (kept in the history, hidden from reads), then the upload is stored —
  or ``"add-run"`` — the upload's rows of each colliding (benchmark, system, metric)
  get run numbers after the highest stored one. :meth:`ResultsStore.check_conflicts`
  answers the same question before an upload, without writing.
* **Nothing is destroyed at once.** :meth:`ResultsStore.delete_upload` hides an
  upload and brings back the rows it had replaced; :meth:`ResultsStore.restore_upload`
  undoes that; :meth:`ResultsStore.purge_deleted` removes deleted uploads for good.
  Upload ids are never reused.
* **Metric definitions stay editable** (:meth:`ResultsStore.update_metric`), each
  change recorded with who and when (:meth:`ResultsStore.metric_history`).
* **Writers are serialised** (SQLite ``BEGIN IMMEDIATE`` + busy timeout; PostgreSQL
  row lock on the data-version counter); readers never block.
* :meth:`ResultsStore.data_version` changes on every committed write, deletes included.

:meth:`ResultsStore.load_frame` always returns a ``run`` column (0 for single runs).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np
import pandas as pd
from sqlalchemy import Connection, Engine, select

from .._contract import MetricSpec
from . import _aliases as sa
from . import _clusters as scl
from . import _connect as sc
from . import _history as sh
from . import _io as sio
from . import _schema as S
from . import _write as sw
from ._battles import StoreBattles
from ._imports import StoreImports, UploadReport
from ._safety import UnsafeStoreError, check_sqlite_file
from ._watch import StoreWatches
from ._write import ConflictError, OnConflict, frame_hash

__all__ = ["ConflictError", "OnConflict", "ResultsStore", "UnsafeStoreError", "UploadReport",
           "frame_hash", "open_store"]


class ResultsStore(StoreWatches, StoreImports, StoreBattles):
    """Results store bound to one database (see the module docstring for semantics).

    Reads come from :class:`~engine.store._reads.StoreReads`, uploads from
    :class:`~engine.store._imports.StoreImports`, watched comparisons from
    :class:`~engine.store._watch.StoreWatches`; deletes, restores, purges and metric
    edits are defined here.
    """

    def _live_upload(self, conn: Connection, upload_id: int, *, deleted: bool) -> Any:
        u = S.uploads.c
        row = conn.execute(select(u.id, u.deleted_at, u.on_conflict)
                           .where(u.id == upload_id)).first()
        if row is None or (row[1] is not None) != deleted:
            state = "no such deleted upload" if deleted else "no such upload"
            hint = ("" if row is None else " (it is live)" if deleted else
                    f" (it was deleted on {row[1]}; restore_upload({upload_id}) brings it back)")
            raise ValueError(f"upload {upload_id}: {state}{hint} (list them with "
                             "`python -m engine uploads`)")
        return row

    def delete_upload(self, upload_id: int, *, deleted_by: str = "") -> int:
        """Delete an upload: its rows and metadata leave every read, and the rows it had
        replaced come back; returns its result rows removed from the store.

        The delete is soft: :meth:`restore_upload` undoes it until
        :meth:`purge_deleted` removes the upload for good.
        """
        with self._write() as conn:
            try:
                self._live_upload(conn, upload_id, deleted=False)
            except ValueError:
                conn.rollback()
                raise
            return sh.delete_upload(conn, int(upload_id), at=sio.now(), by=deleted_by)

    def set_alias(self, alias: str, system: str, *, set_by: str = "") -> None:
        """Read the stored name ``alias`` as ``system`` everywhere (recorded with who and
        when; :meth:`alias_history`). Its rows become further runs of ``system``."""
        with self._write() as conn:
            sa.set_alias(conn, alias, system, at=sio.now(), by=set_by)

    def remove_alias(self, alias: str, *, removed_by: str = "") -> None:
        """Read ``alias`` as its own name again (the alias stays in the history)."""
        with self._write() as conn:
            sa.remove_alias(conn, alias, at=sio.now(), by=removed_by)

    def set_benchmark_cluster(self, benchmark: str, column: str, *, set_by: str = "") -> None:
        """Declare the example attribute ``column`` the cluster column of ``benchmark``
        ("" removes it): the pages group its examples by it by default."""
        known = [str(c) for c in self.example_metadata(benchmark).columns if c != "example_id"]
        with self._write() as conn:
            scl.set_declared_cluster(conn, benchmark, column, known, at=sio.now(), by=set_by)

    def declare_log_clusters(self, clusters: dict[str, str], *, set_by: str = "") -> list[str]:
        """Declare the cluster columns a harness log names (``HarnessImport.clusters``,
        Inspect's ``stderr(cluster=...)``) after its import; one sentence per benchmark."""
        said = []
        for benchmark, column in clusters.items():
            try:
                self.set_benchmark_cluster(benchmark, column, set_by=set_by)
            except ValueError as exc:  # the field is on no stored example of it
                said.append(f"{benchmark}: cluster column not declared: {exc}")
                continue
            said.append(f"{benchmark}: clustered by {column}, as the log's stderr(cluster=...) says")
        return said

    def benchmark_cluster(self, benchmark: str) -> str | None:
        """The cluster column declared for ``benchmark`` (None: none)."""
        with self._read() as conn:
            return scl.declared_cluster(conn, benchmark)

    def restore_upload(self, upload_id: int, *, restored_by: str = "") -> int:
        """Undo :meth:`delete_upload`; returns the rows back in the store.

        Keys that a newer upload holds now stay with it (this upload's rows wait behind
        it); rows of older uploads that came back at the delete are replaced again.
        """
        with self._write() as conn:
            try:
                row = self._live_upload(conn, upload_id, deleted=True)
            except ValueError:
                conn.rollback()
                raise
            return sh.restore_upload(conn, int(upload_id), str(row[2]), at=sio.now(),
                                     by=restored_by)

    def purge_deleted(self, *, older_than: timedelta = timedelta(days=30)) -> list[int]:
        """Remove for good the uploads deleted more than ``older_than`` ago; returns their ids."""
        if older_than < timedelta(0):
            raise ValueError(f"older_than: must not be negative; got {older_than}")
        cutoff = (datetime.now(UTC) - older_than).isoformat(timespec="microseconds")
        u = S.uploads.c
        with self._write() as conn:
            ids = [int(i) for i in conn.execute(select(u.id).where(
                u.deleted_at.is_not(None), u.deleted_at <= cutoff)).scalars()]
            sh.purge(conn, ids)
        return ids

    def update_metric(self, benchmark: str, metric: str, spec: MetricSpec, *,
                      display_scale: float | None = None, changed_by: str = "") -> None:
        """Change a stored metric's definition (direction, modality, threshold, display
        scale); recorded in :meth:`metric_history` and a new data version.

        Raises ``ValueError`` for a metric that is not stored, and
        :class:`~engine._contract.DataContractError` when declaring binary a metric whose
        stored values are not all 0 or 1.
        """
        if display_scale is not None and not (np.isfinite(display_scale) and display_scale > 0):
            raise ValueError(f"display_scale: must be a positive number or None; "
                             f"got {display_scale!r}")
        m = S.metrics_table.c
        with self._write() as conn:
            old = sh.metric_row(conn, benchmark, metric)
            if old is None:
                conn.rollback()
                raise ValueError(f"metric: {metric!r} of benchmark {benchmark!r} is not in "
                                 "the store")
            if spec.binary:
                frame = self._frame_in(conn, benchmark, metric)
                sw.check_stored_binary(conn, frame, f"{benchmark} · {metric}",
                                       {(benchmark, metric): spec})
                sw.check_declared_binary(frame, f"{benchmark} · {metric}",
                                         {(benchmark, metric): spec})
            values = sh.spec_values(spec, display_scale)
            conn.execute(S.metrics_table.update().where(
                m.benchmark == benchmark, m.metric == metric).values(**values))
            sh.record_metric_change(conn, benchmark, metric, old=sh.definition_json(old),
                                    new=sh.definition_json(tuple(values.values())),
                                    changed_by=changed_by, reason="edited", at=sio.now())

    @staticmethod
    def _frame_in(conn: Connection, benchmark: str, metric: str) -> pd.DataFrame:
        ids = sio.lookup(conn, [benchmark, metric])
        rows = sio.read_results(conn, [("benchmark_id", ids.get(benchmark, -1)),
                                       ("metric_id", ids.get(metric, -1))])
        return pd.DataFrame({"benchmark": benchmark, "metric": metric,
                             "value": rows["value"].to_numpy(np.float64)})


_ENGINES: dict[str, Engine] = {}


def open_store(url: str, *, create: bool = True) -> ResultsStore:
    """The results store at the SQLAlchemy ``url`` (``sqlite:///…``, ``postgresql+psycopg://…``).

    ``create=False`` (commands that only read) refuses a ``sqlite:///`` file that does
    not exist ("no such store") instead of creating an empty one. A SQLite file this
    process cannot write (a read-only filesystem or permissions) opens read-only: it can
    be browsed, and every write raises ``PermissionError``. A SQLite file where uploads
    could be lost or misread (a network file system, file locks that do not work, a folder
    this user cannot write while others may write the file) raises
    :class:`~engine.store._safety.UnsafeStoreError` naming the file and the fix. Engines are shared per URL
    within the process. The engine reads no environment variable: the app
    (``app/config.py``) and the CLI's entry point choose the URL.
    """
    if not isinstance(url, str) or not url.strip():
        raise ValueError(f"url: a results-store URL such as sqlite:///var/sigboard.db is "
                         f"needed; got {url!r}")
    resolved = url.strip()
    path = sc.sqlite_path(resolved)
    read_only = False
    if path is not None:
        if not path.exists():
            if not create:
                raise ValueError(f"url: no such store: {path} does not exist (check the path; "
                                 "importing a file creates a store)")
        else:
            read_only = not sc.writable(path)
        check_sqlite_file(path, read_only=read_only)
    key = f"{resolved}#ro" if read_only else resolved
    engine = _ENGINES.get(key)
    if engine is None:
        engine = _ENGINES[key] = sc.make_engine(resolved, read_only=read_only)
    return ResultsStore(engine, read_only=read_only)
