"""Uploads into the results store: validation, deduplication, conflicts and insertion.

:class:`StoreImports` adds to :class:`~engine.store._reads.StoreReads` everything
an upload does: a file or a table validated before anything is written, identical
content found by its SHA-256 and stored once, collisions rejected, replaced or given
new runs, and the rows, metadata, outputs (:mod:`engine.store._outputs`) and metric
definitions inserted in one transaction (see :mod:`engine.store._store` for the semantics); also the bundled
demo data, loaded once into an empty store.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import numpy as np
import pandas as pd
from sqlalchemy import Connection, select

from .._contract import (
    DataContractError,
    KeyCodes,
    MetricSpec,
    MetricSpecs,
    Problem,
    validate_long_codes,
)
from ..io._readers import metric_specs_of, read_bytes, read_results_bytes, split_metadata
from . import _hashes as sx
from . import _io as sio
from . import _outputs as so
from . import _schema as S
from . import _write as sw
from ._reads import StoreReads
from ._write import OnConflict

__all__ = ["StoreImports", "UploadReport"]

_DEMO_UPLOADER = "sigboard demo"
_MAX_RUN = 2**31 - 1  # stored as a 32-bit integer


@dataclass(frozen=True)
class UploadReport:
    """What an import did. ``duplicate_of`` is set (and nothing stored) for known content."""

    upload_id: int | None
    rows: int
    duplicate_of: int | None = None
    replaced: int = 0
    message: str = ""
    #: example ids stored apart (``<id>#<hash>``): their content differs from the store's
    unpaired: int = 0


def known_upload(conn: Connection, digest: str | None) -> tuple[int, str, str, str | None] | None:
    """The upload stored with this content hash (id, file name, created, deleted or None)."""
    u = S.uploads.c
    row = conn.execute(select(u.id, u.filename, u.created_at, u.deleted_at)
                       .where(u.content_hash == digest)).first()
    return None if row is None else (int(row[0]), str(row[1]), str(row[2]), row[3])


class StoreImports(StoreReads):
    """Imports of files and tables (the middle layer of :class:`ResultsStore`)."""

    #: Test hook called after each inserted chunk of an upload (rows so far).
    after_chunk: Callable[[int], None] | None = None

    def import_file(
        self,
        source: str | Path | IO[bytes],
        *,
        name: str | None = None,
        fmt: str | None = None,
        uploader: str = "",
        note: str = "",
        on_conflict: OnConflict = "reject",
        metrics: MetricSpecs | None = None,
    ) -> UploadReport:
        """Read a file (see :func:`engine.io._readers.read_results`) and import it as one upload."""
        from ..io._formats import source_name

        label = source_name(source, name)
        content = read_bytes(source, name=name)
        digest = hashlib.sha256(content).hexdigest()
        known = self._find_hash(digest)
        if known is not None:
            return self._duplicate_report(known, label)
        # the reader takes declarations by metric name (they pick a wide file's columns)
        named = {k: v for k, v in (metrics or {}).items() if isinstance(k, str)}
        df = read_results_bytes(content, label=label, fmt=fmt, metrics=named or None)
        return self._import(df, filename=label, digest=digest, uploader=uploader, note=note,
                            on_conflict=on_conflict, metrics=metrics, validated=True)

    def import_frame(
        self,
        df: pd.DataFrame,
        *,
        filename: str,
        content: bytes | None = None,
        uploader: str = "",
        note: str = "",
        on_conflict: OnConflict = "reject",
        metrics: MetricSpecs | None = None,
        content_hash: str | None = None,
    ) -> UploadReport:
        """Validate and store ``df`` as one upload (see the module docstring).
        ``content_hash``: the SHA-256 of the upload's bytes when the caller has it instead
        of the bytes (:attr:`engine.Ingested.content_hash`)."""
        digest = (hashlib.sha256(content).hexdigest() if content is not None else content_hash)
        return self._import(df, filename=filename, digest=digest, uploader=uploader, note=note,
                            on_conflict=on_conflict, metrics=metrics, validated=False)

    def _find_hash(self, digest: str) -> tuple[int, str, str, str | None] | None:
        with self._read() as conn:
            return known_upload(conn, digest)

    @staticmethod
    def _duplicate_report(known: tuple[int, str, str, str | None], label: str) -> UploadReport:
        upload_id, filename, created, deleted = known
        if deleted is not None:
            return UploadReport(None, 0, duplicate_of=upload_id, message=(
                f"{label}: identical content was stored as upload {upload_id} ({filename}, "
                f"{created}) and deleted on {deleted}; restore that upload to bring it "
                "back; nothing was stored"))
        return UploadReport(None, 0, duplicate_of=upload_id, message=(
            f"{label}: identical content is already stored as upload {upload_id} "
            f"({filename}, {created}); nothing was stored"))

    def _import(self, df: pd.DataFrame, *, filename: str, digest: str | None, uploader: str,
                note: str, on_conflict: OnConflict, metrics: MetricSpecs | None,
                validated: bool) -> UploadReport:
        if on_conflict not in ("reject", "replace", "add-run"):
            raise ValueError(f"on_conflict must be reject, replace or add-run, not {on_conflict!r}")
        specs: dict[str | tuple[str, str], MetricSpec] = {}
        specs.update(metric_specs_of(df))
        specs.update(metrics or {})
        key_codes: KeyCodes = {}  # the validation's codes: each key column factorized once
        if not validated:
            df, key_codes = validate_long_codes(df, source=filename, require_comparison=False)
            sw.check_declared_binary(df, filename, specs)
        if digest is None:
            digest = sw.frame_hash(df, known=key_codes)
        data, sys_meta, ex_meta = split_metadata(df)  # same rows in the same order as df
        factorized: dict[str, tuple[np.ndarray, Any]] = {
            col: key_codes[col] if col in key_codes else pd.factorize(data[col], sort=False)
            for col in sio.ID_COLUMNS}
        run = (data["run"].to_numpy(np.int64) if "run" in data.columns
               else np.zeros(len(data), dtype=np.int64))
        if len(run) and run.max() > _MAX_RUN:
            raise DataContractError([Problem(
                filename, rule=f"run {int(run.max())} is larger than {_MAX_RUN}", column="run",
                rows=tuple(int(p) + 1 for p in np.flatnonzero(run > _MAX_RUN)),
                fix="number repeated runs 0, 1, 2, …")])
        with self._write() as conn:
            known = known_upload(conn, digest)
            if known is not None:
                conn.rollback()
                return self._duplicate_report(known, filename)
            sw.check_stored_binary(conn, data, filename, specs)
            ids = sio.intern(conn, [str(u) for _, uniq in factorized.values() for u in uniq])
            df, pairing = sx.against_store(conn, df, ids=ids)
            if pairing.unpaired:  # ids moved: the split and the example codes follow them
                data, sys_meta, ex_meta = split_metadata(df)
                factorized["example_id"] = pd.factorize(data["example_id"], sort=False)
                ids.update(sio.intern(conn, [str(e) for e in factorized["example_id"][1]]))
            cols = {key: sio.encode(*factorized[col], ids)
                    for col, key in sio.ID_COLUMNS.items()}
            cols["run"] = run
            stored = sw.stored_keys(conn, cols)
            groups = sw.resolve(conn, cols, stored, filename, on_conflict)
            upload_id = sw.insert_upload(conn, filename=filename, content_hash=digest,
                                            rows=len(data), rows_stored=len(data),
                                            created_at=sio.now(), uploader=uploader,
                                            note=note, on_conflict=on_conflict)
            replaced = sw.supersede(conn, groups, upload_id)
            cols["upload_id"] = np.full(len(data), upload_id, dtype=np.int64)
            cols["pos"] = np.arange(len(data), dtype=np.int64)
            cols["value"] = data["value"].to_numpy(np.float64)
            sio.insert_results(conn, cols, len(data), self.after_chunk)
            for table, frame, key in ((S.system_meta, sys_meta, "system"),
                                      (S.example_meta, ex_meta, "example_id")):
                sio.insert_rows(conn, table, sw.meta_rows(frame, ("benchmark", key), upload_id))
            sio.insert_rows(conn, S.outputs, so.output_rows(data, cols, upload_id))
            sio.insert_rows(conn, S.example_hashes, sx.hash_rows(df, cols, upload_id))
            sw.upsert_metrics(conn, data, specs, upload_id)
            if conn.dialect.name == "postgresql" and len(data) >= 50_000:
                conn.exec_driver_sql("ANALYZE results")
        what = f"{len(data)} rows stored as upload {upload_id}"
        if replaced:
            what += f", {replaced} stored rows replaced"
        what += "".join(f". {line}" for line in pairing.sentences)
        return UploadReport(upload_id, len(data), replaced=replaced, message=f"{filename}: {what}",
                            unpaired=pairing.unpaired)

    def check_pairing(self, df: pd.DataFrame) -> sx.PairingCheck:
        """Which example ids of ``df`` (a canonical long table with a ``doc_hash`` or
        ``content_hash`` column) hold other content than the store holds for other systems
        (see :mod:`engine.store._hashes`). Reads only; the import stores them apart."""
        if sx.hash_column(df) is None:
            return sx.PairingCheck()
        with self._read() as conn:
            return sx.against_store(conn, df)[1]

    def check_conflicts(self, df: pd.DataFrame) -> pd.DataFrame:
        """Which rows of ``df`` (a canonical long table) collide with stored results.

        Reads only. Columns ``benchmark, system, metric, example_id, run, upload_id``
        (the stored row's upload); empty when ``df`` can be stored with "reject".
        """
        data = split_metadata(df)[0]
        run = (data["run"].to_numpy(np.int64) if "run" in data.columns
               else np.zeros(len(data), dtype=np.int64))
        with self._read() as conn:
            texts = [str(v) for col in sio.ID_COLUMNS for v in pd.unique(data[col])]
            ids = sio.lookup(conn, texts)
            known = np.ones(len(data), dtype=bool)
            cols: dict[str, np.ndarray] = {}
            for col, key in sio.ID_COLUMNS.items():
                codes = data[col].astype(str).map(ids)
                known &= codes.notna().to_numpy()
                cols[key] = codes.fillna(-1).to_numpy(np.int64)
            cols = {k: v[known] for k, v in cols.items()}
            cols["run"] = run[known]
            hits = sw.collisions(cols, sw.stored_keys(conn, cols)) if known.any() else None
            if hits is None or hits.empty:
                return sw.named(conn, pd.DataFrame(columns=[*sw.KEYS, "upload_id"]))
            return sw.named(conn, hits)

    def ensure_demo_data(self, directory: str | Path) -> list[UploadReport]:
        """Load the demo files (``directory/*.jsonl.gz``) once, into an empty store.

        Idempotent and safe when several replicas start together: each file is one
        upload deduplicated by content hash, and a flag records that the demo ran.
        """
        u = S.uploads.c
        with self._read() as conn:
            done = conn.execute(select(S.meta.c.value)
                                .where(S.meta.c.key == "demo_loaded")).scalar()
            # a store with user data is not "empty"; one with part of the demo (another
            # replica is loading it, or one died half-way) is completed
            own = conn.execute(select(u.id).where(u.uploader != _DEMO_UPLOADER).limit(1)).first()
        if done or own is not None:
            return []
        folder = Path(directory)
        reports = [self.import_file(path, uploader=_DEMO_UPLOADER, note="bundled demo data")
                   for path in sorted(folder.glob("*.jsonl.gz"))]
        with self._write() as conn:
            conn.execute(S.meta.update().where(S.meta.c.key == "demo_loaded").values(value=1))
        return reports
