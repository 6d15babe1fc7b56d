"""History of the results store: soft delete, restore, purge, and metric-definition edits.

Nothing a user does destroys data at once. A replaced row moves to
``results_history`` tagged with the upload that replaced it; deleting an upload
moves its rows there tagged ``-upload_id`` and brings back the rows it had
replaced (unless a newer upload holds that key now: then they wait behind that
one). Restoring an upload puts its rows back where no newer upload holds the key.
Only :func:`purge` removes rows for good. Every function runs inside the caller's
write transaction (:meth:`engine.store.ResultsStore._write`).
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pandas as pd
from sqlalchemy import Connection, and_, delete, func, insert, select

from .._contract import MetricSpec
from . import _io as sio
from . import _schema as S
from . import _write as sw

__all__ = ["definition_json", "delete_upload", "purge", "record_metric_change",
           "restore_upload"]

_KEYS = list(sw.KEYS)
_GROUP = ["benchmark_id", "metric_id", "system_id"]
_IN_CHUNK = 5000


def definition_json(row: Any) -> str | None:
    """A metric definition ``(higher_is_better, binary, threshold, display_scale)`` as JSON."""
    if row is None:
        return None
    hib, binary, threshold, scale = row
    return json.dumps({"higher_is_better": bool(hib),
                       "binary": None if binary is None else bool(binary),
                       "threshold": None if threshold is None else float(threshold),
                       "display_scale": None if scale is None else float(scale)})


def record_metric_change(conn: Connection, benchmark: str, metric: str, *, old: str | None,
                         new: str | None, changed_by: str, reason: str, at: str) -> None:
    conn.execute(insert(S.metric_history).values(
        benchmark=benchmark, metric=metric, changed_at=at, changed_by=changed_by,
        reason=reason, old=old, new=new))


def _history_rows(conn: Connection, where: Any) -> pd.DataFrame:
    h = S.results_history.c
    rows = conn.execute(select(h.id, *[h[k] for k in _KEYS], h.upload_id).where(where)).all()
    return pd.DataFrame.from_records(rows, columns=["id", *_KEYS, "upload_id"]).astype("int64")


def _live_holders(conn: Connection, rows: pd.DataFrame) -> pd.DataFrame:
    """For each key of ``rows``: the upload whose row is live there now (``holder``, 0 = free)."""
    cols = {k: rows[k].to_numpy(np.int64) for k in _KEYS}
    live = sw.stored_keys(conn, cols).rename(columns={"upload_id": "holder"})
    out = rows.merge(live, on=_KEYS, how="left")
    out["holder"] = out["holder"].fillna(0).astype("int64")
    return out


def _bring_back(conn: Connection, ids: list[int]) -> dict[int, int]:
    """Move history rows (by id) back into ``results``; returns rows per upload."""
    h = S.results_history.c
    cols = [c.name for c in S.results.columns]
    counts: dict[int, int] = {}
    for i in range(0, len(ids), _IN_CHUNK):
        chunk = ids[i:i + _IN_CHUNK]
        for upload_id, n in conn.execute(select(h.upload_id, func.count())
                                         .where(h.id.in_(chunk)).group_by(h.upload_id)).all():
            counts[int(upload_id)] = counts.get(int(upload_id), 0) + int(n)
        conn.execute(insert(S.results).from_select(cols, select(*[h[c] for c in cols])
                                                   .where(h.id.in_(chunk))))
        conn.execute(delete(S.results_history).where(h.id.in_(chunk)))
    sw.adjust_stored(conn, counts, +1)
    return counts


def _retag(conn: Connection, frame: pd.DataFrame, column: str) -> None:
    """Set ``superseded_by`` of history rows ``frame['id']`` to ``frame[column]``."""
    if frame.empty:
        return
    h = S.results_history.c
    for _, part in frame.groupby(column, sort=False):
        tag = int(part[column].iloc[0])
        ids = [int(i) for i in part["id"]]
        for i in range(0, len(ids), _IN_CHUNK):
            conn.execute(S.results_history.update().where(h.id.in_(ids[i:i + _IN_CHUNK]))
                         .values(superseded_by=tag))


def _deleted_ids(conn: Connection) -> set[int]:
    u = S.uploads.c
    return {int(i) for i in conn.execute(select(u.id).where(u.deleted_at.is_not(None))).scalars()}


def delete_upload(conn: Connection, upload_id: int, *, at: str, by: str) -> int:
    """Soft-delete ``upload_id``; returns its rows that left ``results``."""
    r, h, m = S.results.c, S.results_history.c, S.metrics_table.c
    pairs: list[Any] = list(conn.execute(select(r.benchmark_id, r.metric_id)
                                         .where(r.upload_id == upload_id).distinct()).all())
    removed = sum(sw.move_to_history(conn, r.upload_id == upload_id, -upload_id).values())
    conn.execute(S.uploads.update().where(S.uploads.c.id == upload_id).values(deleted_at=at))
    # rows this upload had replaced come back, except those of deleted uploads (they
    # wait for their own restore) and keys a newer upload holds (they wait behind it)
    waiting = _history_rows(conn, h.superseded_by == upload_id)
    if not waiting.empty:
        gone = waiting["upload_id"].isin(_deleted_ids(conn))
        stashed = waiting[gone]
        _retag(conn, stashed.assign(tag=-stashed["upload_id"]), "tag")
        held = _live_holders(conn, waiting[~gone])
        _retag(conn, held[held["holder"] != 0], "holder")
        back = held.loc[held["holder"] == 0, "id"]
        pairs += [tuple(p) for p in held[["benchmark_id", "metric_id"]].drop_duplicates()
                  .itertuples(index=False)]
        _bring_back(conn, [int(i) for i in back])
    # a definition whose metric has no rows left goes, recorded so a restore brings it back
    texts = sio.label_texts(conn, [int(i) for p in pairs for i in p])
    for b, mm in dict.fromkeys((int(b), int(mm)) for b, mm in pairs):
        if conn.execute(select(r.run).where(r.benchmark_id == b, r.metric_id == mm)
                        .limit(1)).first() is not None:
            continue
        where = and_(m.benchmark == texts[b], m.metric == texts[mm])
        old = conn.execute(select(m.higher_is_better, m.binary, m.threshold, m.display_scale)
                           .where(where)).first()
        if old is not None:
            record_metric_change(conn, texts[b], texts[mm], old=definition_json(old), new=None,
                                 changed_by=by, reason=f"deleted with upload {upload_id}",
                                 at=at)
            conn.execute(delete(S.metrics_table).where(where))
    return removed


def restore_upload(conn: Connection, upload_id: int, on_conflict: str, *, at: str,
                   by: str) -> int:
    """Undo :func:`delete_upload`; returns the rows back in ``results``.

    Where a newer upload holds a key now, this upload's row waits behind it; where an
    older one does (it came back when this upload was deleted), it is replaced again —
    with the whole (benchmark, metric, system) group when the upload replaced on import.
    """
    r, h, m = S.results.c, S.results_history.c, S.metrics_table.c
    conn.execute(S.uploads.update().where(S.uploads.c.id == upload_id).values(deleted_at=None))
    mine = _history_rows(conn, h.superseded_by == -upload_id)
    if mine.empty:
        return 0
    if on_conflict == "replace":
        for b, mm, sy in mine[_GROUP].drop_duplicates().itertuples(index=False):
            sw.move_to_history(conn, and_(r.benchmark_id == int(b), r.metric_id == int(mm),
                                          r.system_id == int(sy), r.upload_id < upload_id),
                               upload_id)
    held = _live_holders(conn, mine)
    newer = held[held["holder"] > upload_id]
    _retag(conn, newer, "holder")
    older = held[(held["holder"] != 0) & (held["holder"] < upload_id)]
    for b, mm, sy, e, run in older[_KEYS].itertuples(index=False):
        sw.move_to_history(conn, and_(r.benchmark_id == int(b), r.metric_id == int(mm),
                                      r.system_id == int(sy), r.example_key == int(e),
                                      r.run == int(run)), upload_id)
    back = held.loc[held["holder"] <= upload_id, "id"]
    restored = sum(_bring_back(conn, [int(i) for i in back]).values())
    # definitions that left with this upload come back (unless one was set since)
    mh = S.metric_history.c
    gone = conn.execute(select(mh.benchmark, mh.metric, mh.old)
                        .where(mh.reason == f"deleted with upload {upload_id}")
                        .order_by(mh.id)).all()
    for bench, metric, old in gone:
        where = and_(m.benchmark == bench, m.metric == metric)
        if conn.execute(select(m.metric).where(where)).first() is not None or old is None:
            continue
        spec = json.loads(old)
        conn.execute(insert(S.metrics_table).values(benchmark=bench, metric=metric,
                                                    upload_id=upload_id, **spec))
        record_metric_change(conn, bench, metric, old=None, new=old, changed_by=by,
                             reason=f"restored with upload {upload_id}", at=at)
    return restored


def purge(conn: Connection, upload_ids: list[int]) -> int:
    """Remove deleted uploads for good (rows, metadata, provenance); returns rows removed."""
    h = S.results_history.c
    removed = 0
    for upload_id in upload_ids:
        removed += int(conn.execute(delete(S.results_history)
                                    .where(h.upload_id == upload_id)).rowcount or 0)
        for table in (S.system_meta, S.example_meta, S.outputs, S.example_hashes):
            conn.execute(delete(table).where(table.c.upload_id == upload_id))
        conn.execute(delete(S.uploads).where(S.uploads.c.id == upload_id))
    return removed


def metric_row(conn: Connection, benchmark: str, metric: str) -> Any:
    m = S.metrics_table.c
    return conn.execute(select(m.higher_is_better, m.binary, m.threshold, m.display_scale)
                        .where(m.benchmark == benchmark, m.metric == metric)).first()


def spec_values(spec: MetricSpec, display_scale: float | None) -> dict[str, Any]:
    return {"higher_is_better": spec.higher_is_better, "binary": spec.binary,
            "threshold": spec.threshold, "display_scale": display_scale}
