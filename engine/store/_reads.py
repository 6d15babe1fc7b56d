"""The read side of the results store: connections, and every query that only reads.

:class:`StoreReads` holds the SQLAlchemy engine and the transaction helpers
(``_read``; ``_write`` with the writers' lock) and answers every read-only
question: the canonical long table, the catalog, the uploads, metric definitions
and their history, metadata, the data version. :class:`engine.store.ResultsStore`
adds the writes on top (see :mod:`engine.store._store` for the semantics).
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from typing import Any

import numpy as np
import pandas as pd
from sqlalchemy import BigInteger, Connection, Engine, case, cast, func, select

from .._contract import USAGE_METRICS, MetricSpec
from . import _aliases as sa
from . import _io as sio
from . import _outputs as so
from . import _schema as S

__all__ = ["RUN_FIELDS", "StoreReads"]

#: System metadata a harness reader writes for a run that did not finish (Inspect: the
#: log's status, "killed" without header.json; planned and never-run sample-epochs).
RUN_FIELDS = ("run_status", "sample_epochs_planned", "sample_epochs_never_ran")

#: More than the rows of any one upload: ``upload_id * _POSITIONS + pos`` orders rows as
#: uploaded (a 64-bit integer in both SQLite and PostgreSQL).
_POSITIONS = 2**32


class StoreReads:
    """Connections to one database and every read (the base of :class:`ResultsStore`)."""

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
            aliases = sa.live_aliases(conn)
        wanted = {"benchmark": benchmark, "metric": metric}
        df = pd.DataFrame({col: (sio.decode(rows[key].to_numpy(), texts) if key in rows.columns
                                 else sio.constant(str(wanted[col]), len(rows)))
                           for col, key in sio.ID_COLUMNS.items()})
        df = df[["benchmark", "system", "example_id", "metric"]]
        df["value"] = rows["value"].to_numpy(np.float64)
        df["run"] = rows["run"].to_numpy(np.int64)
        df = sa.apply_to_frame(df, aliases)  # a system's several names read as one
        if benchmark is not None:
            df.attrs["metric_specs"] = {m: self.metric_spec(benchmark, m)
                                        for m in df["metric"].unique()}
        return df

    def coverage(self) -> pd.DataFrame:
        """Which systems have results on which (benchmark, metric), without reading a score.

        Columns ``benchmark, metric, system``: one row per triple, in the order of its
        first row in :meth:`load_frame` (upload order), a system's aliases read as the
        system. The first-appearance order of benchmarks, metrics and systems is the long
        table's, so the choices made from it (the Overall page's default benchmarks and
        primary metrics) are those made from the long table, at a fraction
        of the cost (one grouped query instead of every row).
        """
        r = S.results.c
        # a triple's first row as one number (upload, then position in it): grouped by the
        # primary key's first columns, the scan streams (grouping by the upload too needed a
        # temporary b-tree: 0.12 s instead of 0.04 s on the demo data)
        first = func.min(cast(r.upload_id, BigInteger) * _POSITIONS + r.pos)
        query = (select(r.benchmark_id, r.metric_id, r.system_id, first)
                 .group_by(r.benchmark_id, r.metric_id, r.system_id))
        with self._read() as conn:
            rows = pd.DataFrame(conn.execute(query).all(),
                                columns=["benchmark", "metric", "system", "first"])
            texts = sio.label_texts(conn, pd.unique(rows[["benchmark", "metric", "system"]]
                                                    .to_numpy().ravel()).tolist())
            aliases = sa.live_aliases(conn)
        rows = rows.sort_values("first", kind="stable")
        out = pd.DataFrame({c: sio.decode(rows[c].to_numpy(), texts)
                            for c in ("benchmark", "metric", "system")})
        return sa.apply_to_frame(out, aliases).drop_duplicates(ignore_index=True)

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
            merged = self._systems_merged(conn)
        out = []
        for b_id, m_id, systems, examples, rows, max_run, last_id, nonbin in stats:
            b, mm = texts[int(b_id)], texts[int(m_id)]
            hib, declared = specs.get((b, mm), (True, None))
            binary = bool(declared) if declared is not None else int(nonbin or 0) == 0
            systems = merged.get((int(b_id), int(m_id)), systems)
            out.append({"benchmark": b, "metric": mm, "systems": int(systems),
                        "examples": int(examples), "rows": int(rows), "runs": int(max_run) + 1,
                        "last_upload": times.get(last_id), "higher_is_better": bool(hib),
                        "binary": binary})
        cols = ["benchmark", "metric", "systems", "examples", "rows", "runs", "last_upload",
                "higher_is_better", "binary"]
        table = pd.DataFrame(out, columns=cols)
        # a benchmark's usage metrics (tokens, times, cost) after its scores: the first metric
        # is every page's default, and a cost is never the quality a board ranks by default
        usage = table["metric"].isin(USAGE_METRICS)
        return (table.assign(_usage=usage).sort_values(["benchmark", "_usage", "metric"])
                .drop(columns="_usage").reset_index(drop=True))

    def _systems_merged(self, conn: Connection) -> dict[tuple[int, int], int]:
        """Systems per (benchmark id, metric id) once aliases are applied (empty: none)."""
        aliases = sa.live_aliases(conn)
        if not aliases:
            return {}
        r = S.results.c
        rows = conn.execute(select(r.benchmark_id, r.metric_id, r.system_id).distinct()).all()
        texts = sio.label_texts(conn, list({int(s) for *_, s in rows}))
        names: dict[tuple[int, int], set[str]] = {}
        for b, m, s in rows:
            name = texts[int(s)]
            names.setdefault((int(b), int(m)), set()).add(aliases.get(name, name))
        return {key: len(v) for key, v in names.items()}

    def system_names(self) -> list[str]:
        """Every system name stored in live results, as stored (aliases not applied)."""
        r = S.results.c
        with self._read() as conn:
            ids = [int(i) for (i,) in conn.execute(select(r.system_id).distinct()).all()]
            texts = sio.label_texts(conn, ids)
        return sorted(texts[i] for i in ids)

    def aliases(self) -> dict[str, str]:
        """The live system aliases: a stored name -> the system it is read as."""
        with self._read() as conn:
            return sa.live_aliases(conn)

    def alias_history(self) -> pd.DataFrame:
        """Every alias set or removed, oldest first: ``alias, system, created_at,
        created_by, removed_at, removed_by``."""
        with self._read() as conn:
            return sa.alias_history(conn)

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

    def metric_thresholds(self) -> dict[tuple[str, str], float]:
        """Each declared "solved" threshold by (benchmark, metric), in one query: with the
        catalog's direction and modality, every metric's :class:`MetricSpec` without a
        query per metric (:meth:`metric_spec` counts each one's non-0/1 values)."""
        m = S.metrics_table.c
        with self._read() as conn:
            rows = conn.execute(select(m.benchmark, m.metric, m.threshold)
                                .where(m.threshold.is_not(None))).all()
        return {(str(b), str(mm)): float(t) for b, mm, t in rows}

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
        """``system`` plus one column per system attribute stored for ``benchmark`` (a
        system's aliases read as the system). A harness run's status (:data:`RUN_FIELDS`)
        is kept only while its upload still holds that system's scores."""
        wide = self._metadata(S.system_meta, "system", benchmark)
        if "run_status" in wide.columns:
            wide = self._current_run_status(wide, benchmark)
        return sa.apply_to_meta(wide, self.aliases())

    def _current_run_status(self, wide: pd.DataFrame, benchmark: str) -> pd.DataFrame:
        """Clear the status of a run whose scores were all replaced since (by a complete
        re-run, say): it no longer describes what the pages show. Only flagged systems are
        looked up (a run that did not finish is rare), one indexed probe each."""
        c, r = S.system_meta.c, S.results.c
        live: set[str] = set()
        with self._read() as conn:
            flagged = conn.execute(select(c.system, c.upload_id).where(
                c.benchmark == benchmark, c.name == "run_status")).all()
            ids = sio.lookup(conn, [benchmark, *(str(s) for s, _ in flagged)])
            for system, upload in flagged:
                if benchmark in ids and str(system) in ids and conn.execute(
                        select(r.upload_id).where(r.benchmark_id == ids[benchmark],
                                                  r.system_id == ids[str(system)],
                                                  r.upload_id == upload).limit(1)).first():
                    live.add(str(system))
        out = wide.copy()
        fields = [f for f in RUN_FIELDS if f in out.columns]
        out.loc[~out["system"].astype(str).isin(live), fields] = np.nan
        return out.drop(columns=[f for f in fields if out[f].isna().all()])

    def example_metadata(self, benchmark: str) -> pd.DataFrame:
        """``example_id`` plus one column per example attribute stored for ``benchmark``."""
        return self._metadata(S.example_meta, "example_id", benchmark)

    def example_outputs(self, benchmark: str, example_id: str) -> pd.DataFrame:
        """Each system's uploaded text on one example: ``system, run, name, value``.

        Per-observation text columns of the uploads (e.g. ``output``), as plain strings
        (whoever shows them escapes them), each at most
        :data:`engine.store._outputs.MAX_CHARS` characters plus a note when cut. Only
        outputs whose score row is live (not replaced, its upload not deleted); the
        newest upload wins per (system, run, name). Empty when there are none.
        """
        with self._read() as conn:
            return so.read_outputs(conn, str(benchmark), str(example_id))

    def benchmark_outputs(self, benchmark: str) -> pd.DataFrame:
        """Every system's uploaded texts on every example of ``benchmark``: ``system,
        example_id, run`` and one column per text name (e.g. ``output``); live rows only,
        as :meth:`example_outputs`."""
        with self._read() as conn:
            return so.read_benchmark_outputs(conn, str(benchmark))

    def dump(self) -> list[tuple[Any, ...]]:
        """Every row of every table, in a stable order (for "store unchanged" checks)."""
        out: list[tuple[Any, ...]] = []
        with self._read() as conn:
            for table in S.metadata.sorted_tables:
                cols = list(table.c)
                for row in conn.execute(select(*cols).order_by(*cols)).all():
                    out.append((table.name, *row))
        return out

