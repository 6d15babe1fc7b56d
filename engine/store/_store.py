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

import contextlib
import hashlib
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import IO, Any

import numpy as np
import pandas as pd
from sqlalchemy import Connection, Engine, case, func, select

from .._contract import (
    DataContractError,
    KeyCodes,
    MetricSpec,
    MetricSpecs,
    Problem,
    validate_long_codes,
)
from .._readers import metric_specs_of, read_bytes, read_results_bytes, split_metadata
from . import _history as sh
from . import _io as sio
from . import _schema as S
from . import _write as sw
from ._write import ConflictError, OnConflict, frame_hash

__all__ = ["ConflictError", "OnConflict", "ResultsStore", "UploadReport", "frame_hash",
           "open_store"]

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


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds")


class ResultsStore:
    """Results store bound to one database (see the module docstring for semantics)."""

    #: Test hook called after each inserted chunk of an upload (rows so far).
    after_chunk: Callable[[int], None] | None = None

    def __init__(self, engine: Engine, *, read_only: bool = False) -> None:
        self.engine = engine
        self.read_only = read_only
        self.url = engine.url.render_as_string(hide_password=True)
        self.schema_version = S.upgrade(engine, read_only=read_only)

    # ------------------------------------------------------------------ helpers
    @contextlib.contextmanager
    def _write(self) -> Iterator[Connection]:
        if self.read_only:
            raise PermissionError(f"{self.url}: the store file cannot be written here, so it "
                                  "was opened read-only; browse it, or fix its permissions "
                                  "to change it")
        with self.engine.connect().execution_options(sigboard_write=True) as conn, conn.begin():
            S.write_lock(conn)
            yield conn

    @contextlib.contextmanager
    def _read(self) -> Iterator[Connection]:
        with self.engine.connect() as conn, conn.begin():
            yield conn

    def close(self) -> None:
        self.engine.dispose()

    # ------------------------------------------------------------------ reads
    def data_version(self) -> str:
        """Changes on every committed write (imports, replacements, deletes)."""
        with self._read() as conn:
            value = conn.execute(select(S.meta.c.value)
                                 .where(S.meta.c.key == "data_version")).scalar()
        return str(int(value or 0))

    def load_frame(self, benchmark: str | None = None, metric: str | None = None) -> pd.DataFrame:
        """Stored results as the canonical long table, in upload order.

        Columns ``benchmark, system, example_id, metric, value, run`` (``run`` always
        present, 0 for single runs). When ``benchmark`` is given,
        ``df.attrs["metric_specs"]`` maps each metric to its :class:`MetricSpec`.
        """
        with self._read() as conn:
            ids = sio.lookup(conn, [t for t in (benchmark, metric) if t is not None])
            missing = [t for t in (benchmark, metric) if t is not None and t not in ids]
            where = [(col, ids.get(t, -1)) for col, t in (("benchmark_id", benchmark),
                                                          ("metric_id", metric)) if t is not None]
            rows = sio.read_results(conn, [("benchmark_id", -1)] if missing else where)
            texts = sio.label_texts(conn, [*ids.values(), *np.unique(np.concatenate([
                rows[c].to_numpy() for c in sio.ID_COLUMNS.values() if c in rows.columns]))])
        wanted = {"benchmark": benchmark, "metric": metric}
        df = pd.DataFrame({col: (sio.decode(rows[key].to_numpy(), texts) if key in rows.columns
                                 else sio.constant(str(wanted[col]), len(rows)))
                           for col, key in sio.ID_COLUMNS.items()})
        df = df[["benchmark", "system", "example_id", "metric"]]
        df["value"] = rows["value"].to_numpy(np.float64)
        df["run"] = rows["run"].to_numpy(np.int64)
        if benchmark is not None:
            df.attrs["metric_specs"] = {m: self.metric_spec(benchmark, m)
                                        for m in df["metric"].unique()}
        return df

    def catalog(self) -> pd.DataFrame:
        """One row per (benchmark, metric): systems, examples, rows, runs, last upload, spec."""
        r, u, m = S.results.c, S.uploads.c, S.metrics_table.c
        nonbinary = func.sum(case((r.value.in_([0.0, 1.0]), 0), else_=1))
        query = (select(r.benchmark_id, r.metric_id,
                        func.count(func.distinct(r.system_id)).label("systems"),
                        func.count(func.distinct(r.example_key)).label("examples"),
                        func.count().label("rows"), func.max(r.run).label("max_run"),
                        func.max(r.upload_id).label("last_upload_id"),
                        nonbinary.label("nonbinary"))
                 .group_by(r.benchmark_id, r.metric_id))
        with self._read() as conn:
            stats = conn.execute(query).all()
            texts = sio.label_texts(conn, [i for row in stats for i in row[:2]])
            specs = {(b, mm): (h, bi) for b, mm, h, bi in conn.execute(
                select(m.benchmark, m.metric, m.higher_is_better, m.binary)).all()}
            times = dict(conn.execute(select(u.id, u.created_at)).all())
        out = []
        for b_id, m_id, systems, examples, rows, max_run, last_id, nonbin in stats:
            b, mm = texts[int(b_id)], texts[int(m_id)]
            hib, declared = specs.get((b, mm), (True, None))
            binary = bool(declared) if declared is not None else int(nonbin or 0) == 0
            out.append({"benchmark": b, "metric": mm, "systems": int(systems),
                        "examples": int(examples), "rows": int(rows), "runs": int(max_run) + 1,
                        "last_upload": times.get(last_id), "higher_is_better": bool(hib),
                        "binary": binary})
        cols = ["benchmark", "metric", "systems", "examples", "rows", "runs", "last_upload",
                "higher_is_better", "binary"]
        return pd.DataFrame(out, columns=cols).sort_values(["benchmark", "metric"],
                                                           ignore_index=True)

    def uploads(self, *, deleted: bool = False) -> pd.DataFrame:
        """Every live upload (``deleted=True``: every deleted one), newest first, with the
        rows it still has in the store (``rows_stored``) and ``deleted_at``."""
        u = S.uploads.c
        query = (select(u.id.label("upload_id"), u.filename, u.content_hash, u.rows,
                        u.rows_stored, u.created_at, u.uploader, u.note, u.on_conflict,
                        u.deleted_at)
                 .where(u.deleted_at.is_not(None) if deleted else u.deleted_at.is_(None))
                 .order_by(u.id.desc()))
        with self._read() as conn:
            rows = conn.execute(query).all()
        cols = ["upload_id", "filename", "content_hash", "rows", "rows_stored", "created_at",
                "uploader", "note", "on_conflict", "deleted_at"]
        return pd.DataFrame.from_records(rows, columns=cols)

    def upload_contents(self, upload_id: int) -> pd.DataFrame:
        """What an upload holds in the store now: rows per (benchmark, metric), live ones.

        Columns ``benchmark, metric, systems, rows``; what :meth:`delete_upload` would
        take away (the app shows it before asking for confirmation).
        """
        r = S.results.c
        query = (select(r.benchmark_id, r.metric_id, func.count(func.distinct(r.system_id)),
                        func.count()).where(r.upload_id == int(upload_id))
                 .group_by(r.benchmark_id, r.metric_id))
        with self._read() as conn:
            stats = conn.execute(query).all()
            texts = sio.label_texts(conn, [i for row in stats for i in row[:2]])
        out = pd.DataFrame([{"benchmark": texts[b], "metric": texts[m], "systems": int(s),
                             "rows": int(n)} for b, m, s, n in stats],
                           columns=["benchmark", "metric", "systems", "rows"])
        return out.sort_values(["benchmark", "metric"], ignore_index=True)

    def metric_definitions(self) -> pd.DataFrame:
        """Every stored metric definition: ``benchmark, metric, higher_is_better, binary,
        threshold, display_scale`` (``binary`` None = detected from the values)."""
        m = S.metrics_table.c
        with self._read() as conn:
            rows = conn.execute(select(m.benchmark, m.metric, m.higher_is_better, m.binary,
                                       m.threshold, m.display_scale)
                                .order_by(m.benchmark, m.metric)).all()
        return pd.DataFrame.from_records(rows, columns=[
            "benchmark", "metric", "higher_is_better", "binary", "threshold", "display_scale"])

    def metric_history(self, benchmark: str | None = None,
                       metric: str | None = None) -> pd.DataFrame:
        """Changes of metric definitions after upload, oldest first: ``benchmark, metric,
        changed_at, changed_by, reason, old, new`` (definitions as JSON text)."""
        mh = S.metric_history.c
        query = select(mh.benchmark, mh.metric, mh.changed_at, mh.changed_by, mh.reason,
                       mh.old, mh.new).order_by(mh.id)
        if benchmark is not None:
            query = query.where(mh.benchmark == benchmark)
        if metric is not None:
            query = query.where(mh.metric == metric)
        with self._read() as conn:
            rows = conn.execute(query).all()
        return pd.DataFrame.from_records(rows, columns=[
            "benchmark", "metric", "changed_at", "changed_by", "reason", "old", "new"])

    def metric_spec(self, benchmark: str, metric: str) -> MetricSpec:
        """Direction, modality and threshold; ``binary`` is the declaration, else detected."""
        m, r = S.metrics_table.c, S.results.c
        with self._read() as conn:
            row = conn.execute(select(m.higher_is_better, m.binary, m.threshold).where(
                m.benchmark == benchmark, m.metric == metric)).first()
            threshold = None if row is None or row[2] is None else float(row[2])
            if row is not None and row[1] is not None:
                return MetricSpec(bool(row[0]), bool(row[1]), threshold)
            ids = sio.lookup(conn, [benchmark, metric])
            detected = False
            if benchmark in ids and metric in ids:
                key = (r.benchmark_id == ids[benchmark], r.metric_id == ids[metric])
                nonbin = conn.execute(select(func.count()).select_from(S.results).where(
                    *key, r.value.not_in([0.0, 1.0]))).scalar()
                anyrow = conn.execute(select(r.run).where(*key).limit(1)).first()
                detected = anyrow is not None and not nonbin
        hib = bool(row[0]) if row is not None else True
        return MetricSpec(hib, binary=detected, threshold=threshold)

    def _metadata(self, table: Any, key: str, benchmark: str) -> pd.DataFrame:
        c, u = table.c, S.uploads.c
        live = select(u.id).where(u.deleted_at.is_(None))
        with self._read() as conn:
            rows = conn.execute(select(c[key], c.name, c.value).where(
                c.benchmark == benchmark, c.upload_id.in_(live))
                                .order_by(c.upload_id, c.id)).all()
        if not rows:
            return pd.DataFrame(columns=[key])
        long = pd.DataFrame.from_records(rows, columns=[key, "name", "value"])
        long = long.drop_duplicates([key, "name"], keep="last")  # newest upload wins
        long["value"] = [json.loads(v) for v in long["value"]]
        wide = long.pivot(index=key, columns="name", values="value")
        order = list(dict.fromkeys(long[key]))
        wide = wide.reindex(order).reset_index()
        wide.columns.name = None
        return wide

    def system_metadata(self, benchmark: str) -> pd.DataFrame:
        """``system`` plus one column per system attribute stored for ``benchmark``."""
        return self._metadata(S.system_meta, "system", benchmark)

    def example_metadata(self, benchmark: str) -> pd.DataFrame:
        """``example_id`` plus one column per example attribute stored for ``benchmark``."""
        return self._metadata(S.example_meta, "example_id", benchmark)

    def dump(self) -> list[tuple[Any, ...]]:
        """Every row of every table, in a stable order (for "store unchanged" checks)."""
        out: list[tuple[Any, ...]] = []
        with self._read() as conn:
            for table in S.metadata.sorted_tables:
                cols = list(table.c)
                for row in conn.execute(select(*cols).order_by(*cols)).all():
                    out.append((table.name, *row))
        return out

    # ------------------------------------------------------------------ writes
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
        """Read a file (see :func:`engine._readers.read_results`) and import it as one upload."""
        from .._formats import source_name

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
    ) -> UploadReport:
        """Validate and store ``df`` as one upload (see the module docstring)."""
        digest = hashlib.sha256(content).hexdigest() if content is not None else None
        return self._import(df, filename=filename, digest=digest, uploader=uploader, note=note,
                            on_conflict=on_conflict, metrics=metrics, validated=False)

    def _find_hash(self, digest: str) -> tuple[int, str, str, str | None] | None:
        u = S.uploads.c
        with self._read() as conn:
            row = conn.execute(select(u.id, u.filename, u.created_at, u.deleted_at)
                               .where(u.content_hash == digest)).first()
        return None if row is None else (int(row[0]), str(row[1]), str(row[2]), row[3])

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
            u = S.uploads.c
            known = conn.execute(select(u.id, u.filename, u.created_at, u.deleted_at)
                                 .where(u.content_hash == digest)).first()
            if known is not None:
                conn.rollback()
                return self._duplicate_report((int(known[0]), str(known[1]), str(known[2]),
                                               known[3]), filename)
            sw.check_stored_binary(conn, data, filename, specs)
            ids = sio.intern(conn, [str(u) for _, uniq in factorized.values() for u in uniq])
            cols = {key: sio.encode(*factorized[col], ids)
                    for col, key in sio.ID_COLUMNS.items()}
            cols["run"] = run
            stored = sw.stored_keys(conn, cols)
            groups = sw.resolve(conn, cols, stored, filename, on_conflict)
            upload_id = sw.insert_upload(conn, filename=filename, content_hash=digest,
                                            rows=len(data), rows_stored=len(data),
                                            created_at=_now(), uploader=uploader,
                                            note=note, on_conflict=on_conflict)
            replaced = sw.supersede(conn, groups, upload_id)
            cols["upload_id"] = np.full(len(data), upload_id, dtype=np.int64)
            cols["pos"] = np.arange(len(data), dtype=np.int64)
            cols["value"] = data["value"].to_numpy(np.float64)
            sio.insert_results(conn, cols, len(data), self.after_chunk)
            for table, frame, key in ((S.system_meta, sys_meta, "system"),
                                      (S.example_meta, ex_meta, "example_id")):
                sio.insert_rows(conn, table, sw.meta_rows(frame, ("benchmark", key), upload_id))
            sw.upsert_metrics(conn, data, specs, upload_id)
            if conn.dialect.name == "postgresql" and len(data) >= 50_000:
                conn.exec_driver_sql("ANALYZE results")
        what = f"{len(data)} rows stored as upload {upload_id}"
        if replaced:
            what += f", {replaced} stored rows replaced"
        return UploadReport(upload_id, len(data), replaced=replaced, message=f"{filename}: {what}")

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
            return sh.delete_upload(conn, int(upload_id), at=_now(), by=deleted_by)

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
            return sh.restore_upload(conn, int(upload_id), str(row[2]), at=_now(),
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
                                    changed_by=changed_by, reason="edited", at=_now())

    @staticmethod
    def _frame_in(conn: Connection, benchmark: str, metric: str) -> pd.DataFrame:
        ids = sio.lookup(conn, [benchmark, metric])
        rows = sio.read_results(conn, [("benchmark_id", ids.get(benchmark, -1)),
                                       ("metric_id", ids.get(metric, -1))])
        return pd.DataFrame({"benchmark": benchmark, "metric": metric,
                             "value": rows["value"].to_numpy(np.float64)})

    def is_empty(self) -> bool:
        """No live upload (deleted ones do not count)."""
        u = S.uploads.c
        with self._read() as conn:
            return conn.execute(select(u.id).where(u.deleted_at.is_(None))
                                .limit(1)).first() is None

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


_ENGINES: dict[str, Engine] = {}


def open_store(url: str, *, create: bool = True) -> ResultsStore:
    """The results store at the SQLAlchemy ``url`` (``sqlite:///…``, ``postgresql+psycopg://…``).

    ``create=False`` (commands that only read) refuses a ``sqlite:///`` file that does
    not exist ("no such store") instead of creating an empty one. A SQLite file this
    process cannot write (a read-only filesystem or permissions) opens read-only: it can
    be browsed, and every write raises ``PermissionError``. Engines are shared per URL
    within the process. The engine reads no environment variable: the app
    (``app/config.py``) and the CLI's entry point choose the URL.
    """
    if not isinstance(url, str) or not url.strip():
        raise ValueError(f"url: a results-store URL such as sqlite:///var/sigboard.db is "
                         f"needed; got {url!r}")
    resolved = url.strip()
    path = S.sqlite_path(resolved)
    read_only = False
    if path is not None:
        if not path.exists():
            if not create:
                raise ValueError(f"url: no such store: {path} does not exist (check the path; "
                                 "importing a file creates a store)")
        else:
            read_only = not S.writable(path)
    key = f"{resolved}#ro" if read_only else resolved
    engine = _ENGINES.get(key)
    if engine is None:
        engine = _ENGINES[key] = S.make_engine(resolved, read_only=read_only)
    return ResultsStore(engine, read_only=read_only)
