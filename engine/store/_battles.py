"""Battle lists in the store: one upload per battle file, read back per arena.

A battle upload is an upload like any other (``uploads``: file name, content hash —
identical content is stored once —, uploader, note, soft delete and restore); its rows
go to the ``battles`` table (:mod:`engine.store._schema`), created on the first battle
upload. An arena is a named set of battles (as a benchmark is a named set of results):
its battles are those of its live uploads, in upload order then file order. Human
verdicts of a judged battle list (``human_winner``) are kept; a battles table made
before them gains the column on the first upload that has one.
"""

from __future__ import annotations

import hashlib

import pandas as pd
from sqlalchemy import Connection, delete, inspect, select, text

from ..io._battles import validate_battles
from . import _io as sio
from . import _schema as S
from . import _write as sw
from ._imports import StoreImports, UploadReport, known_upload
from ._reads import StoreReads

__all__ = ["StoreBattles"]

_COLUMNS = ("model_a", "model_b", "winner", "judge", "category", "weight", "human_winner")


def _has_table(conn: Connection) -> bool:
    return bool(inspect(conn).has_table(S.battles.name))


def _columns(conn: Connection) -> tuple[str, ...]:
    """The battle columns the stored table has (an older one lacks ``human_winner``)."""
    present = {c["name"] for c in inspect(conn).get_columns(S.battles.name)}
    return tuple(c for c in _COLUMNS if c in present)


class StoreBattles(StoreReads):
    """Battle uploads and reads (a layer of :class:`ResultsStore`)."""

    def import_battles(self, battles: pd.DataFrame, *, arena: str, filename: str,
                       content: bytes | None = None, uploader: str = "", note: str = "",
                       content_hash: str | None = None) -> UploadReport:
        return _import_battles(self, battles, arena=arena, filename=filename, content=content,
                               uploader=uploader, note=note, content_hash=content_hash)

    def battle_arenas(self) -> list[str]:
        return _battle_arenas(self)

    def load_battles(self, arena: str) -> pd.DataFrame:
        return _load_battles(self, arena)


def _import_battles(store: StoreReads, battles: pd.DataFrame, *, arena: str, filename: str,
                    content: bytes | None = None, uploader: str = "", note: str = "",
                    content_hash: str | None = None) -> UploadReport:
    """Validate ``battles`` (:func:`engine.io._battles.validate_battles`) and store them as
    one upload of ``arena``; identical content (the file's bytes, else the table) is
    stored once (``content_hash``: the bytes' SHA-256 when the caller has it instead of
    them). Nothing is written when validation fails."""
    if not arena.strip():
        raise ValueError("arena: name the set of battles (e.g. the file's name)")
    frame = validate_battles(battles, label=filename)
    digest = content_hash if content is None and content_hash is not None else hashlib.sha256(
        content if content is not None else
        pd.util.hash_pandas_object(frame, index=False).to_numpy().tobytes()
        + arena.encode()).hexdigest()
    with store._write() as conn:
        S.battles.create(conn, checkfirst=True)
        names = _columns(conn)
        if "human_winner" in frame.columns and "human_winner" not in names:
            conn.execute(text("ALTER TABLE battles ADD COLUMN human_winner VARCHAR(16)"))
            names = _columns(conn)
        known = known_upload(conn, digest)
        if known is not None:
            conn.rollback()
            return StoreImports._duplicate_report(known, filename)
        live = select(S.uploads.c.id)
        conn.execute(delete(S.battles).where(S.battles.c.upload_id.not_in(live)))  # purged
        upload_id = sw.insert_upload(conn, filename=filename, content_hash=digest,
                                     rows=len(frame), rows_stored=len(frame),
                                     created_at=sio.now(), uploader=uploader, note=note,
                                     on_conflict="reject")
        rows = frame.reindex(columns=list(names)).astype(object)
        rows = rows.where(rows.notna(), None)
        if "human_winner" in rows.columns:  # no human verdict: NULL
            rows["human_winner"] = rows["human_winner"].replace("", None)
        records = [dict(zip(names, r, strict=True), upload_id=upload_id, arena=arena, pos=i)
                   for i, r in enumerate(rows.itertuples(index=False, name=None))]
        sio.insert_rows(conn, S.battles, records)
    return UploadReport(upload_id, len(frame),
                        message=f"{filename}: {len(frame)} battles stored as upload {upload_id} "
                                f"(arena {arena!r})")


def _battle_arenas(store: StoreReads) -> list[str]:
    """Names of the arenas with battles in live uploads, sorted."""
    b, u = S.battles.c, S.uploads.c
    with store._read() as conn:
        if not _has_table(conn):
            return []
        names = conn.execute(select(b.arena).distinct().join_from(S.battles, S.uploads,
                                                                  b.upload_id == u.id)
                             .where(u.deleted_at.is_(None)).order_by(b.arena)).scalars()
        return [str(n) for n in names]


def _load_battles(store: StoreReads, arena: str) -> pd.DataFrame:
    """The arena's battles of live uploads (upload order, then file order): model_a,
    model_b, winner, weight, and judge / category / human_winner where some battle has them
    (human_winner: "" where a battle has no human verdict)."""
    b, u = S.battles.c, S.uploads.c
    names: tuple[str, ...] = _COLUMNS
    with store._read() as conn:
        if not _has_table(conn):
            rows: list[tuple[object, ...]] = []
        else:
            names = _columns(conn)
            rows = [tuple(r) for r in conn.execute(
                select(*(getattr(b, c) for c in names))
                .join_from(S.battles, S.uploads, b.upload_id == u.id)
                .where(b.arena == arena, u.deleted_at.is_(None))
                .order_by(b.upload_id, b.pos))]
    frame = pd.DataFrame.from_records(rows, columns=list(names)).reindex(columns=list(_COLUMNS))
    frame["weight"] = frame["weight"].astype(float)
    frame = frame.drop(columns=[c for c in ("judge", "category", "human_winner")
                                if frame[c].isna().all()])
    if "human_winner" in frame.columns:
        frame["human_winner"] = frame["human_winner"].fillna("").astype(str)
    return frame
