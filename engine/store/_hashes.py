"""Pairing safety across uploads: each system's content hash per example (``example_hashes``).

A harness log may say what each example is: lm-eval's ``doc_hash``, or the ``content_hash``
of prompt and reference that sigboard computes for Inspect, HELM and lighteval
(docs/formats.md, "Pairing safety"). Within one upload,
:func:`engine.harness._pairing.split_conflicts` keeps apart the systems whose hashes for an
example id differ. Here the same holds across uploads: an upload's hash for a (benchmark,
example id) is compared with the hashes the store holds there for *other* systems (each
system's newest upload that is not deleted; the hash most of them hold, ties to the oldest
upload). Where it differs, the upload's rows for that id move to ``<id>#<first 8 characters
of its hash>`` — the stored systems keep the id, as the majority does within an upload — so
no test pairs them, and the report says how many example ids differ.

The Upload page's preview (:meth:`engine.store._imports.StoreImports.check_pairing`) and
the import itself (``python -m engine import`` and the Upload page's commit both call
:meth:`~engine.store._imports.StoreImports.import_frame`) run :func:`against_store`; the
import then stores the upload's hashes (:func:`hash_rows`). Every function runs inside the
caller's transaction.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from sqlalchemy import Connection, select

from . import _io as sio
from . import _schema as S

__all__ = ["PairingCheck", "against_store", "hash_column", "hash_rows"]

#: Columns that say what an example is, in the order they are trusted
#: (the same as :data:`engine.harness._pairing.HASH_COLUMNS`; a test keeps them equal).
HASH_COLUMNS: tuple[str, ...] = ("doc_hash", "content_hash")
_KEY = ["benchmark", "example_id", "system"]
_IN_CHUNK = 1000
_SHOWN = 5


@dataclass(frozen=True)
class PairingCheck:
    """How many example ids of an upload hold other content than the store holds for the
    same ids (``unpaired``), and one sentence per benchmark saying where and against whom."""

    unpaired: int = 0
    sentences: tuple[str, ...] = ()


def hash_column(df: pd.DataFrame) -> str | None:
    """The content-hash column of a results frame, or None when it has none.

    >>> hash_column(pd.DataFrame(columns=["benchmark", "content_hash"])), hash_column(pd.DataFrame())
    ('content_hash', None)
    """
    return next((c for c in HASH_COLUMNS if c in df.columns), None)


def _upload_hashes(df: pd.DataFrame, column: str) -> pd.DataFrame:
    """``benchmark, example_id, system, hash`` of the upload, one row per (b, e, s)."""
    held = df.loc[df[column].notna(), [*_KEY, column]].drop_duplicates(_KEY)
    return pd.DataFrame({k: held[k].astype(str).to_numpy() for k in _KEY}
                        | {"hash": held[column].astype(str).to_numpy()})


def _stored(conn: Connection, wanted: pd.DataFrame, column: str,
            ids: dict[str, int] | None) -> pd.DataFrame:
    """The live stored hashes (``column`` kind) of the example ids in ``wanted``, per system:
    ``benchmark, example_id, system, hash, upload_id`` (each system's newest upload).
    ``ids``: the label ids of the upload's texts when the caller has them (else looked up)."""
    cols = ["benchmark", "example_id", "system", "hash", "upload_id"]
    benches = [str(b) for b in wanted["benchmark"].unique()]
    if ids is None:
        ids = sio.lookup(conn, [*benches, *wanted["example_id"].unique()])
    h, u = S.example_hashes.c, S.uploads.c
    frames = []
    for bench in benches:
        if bench not in ids or conn.execute(select(h.id).where(
                h.benchmark_id == ids[bench], h.name == column).limit(1)).first() is None:
            continue  # nothing stored there: the usual first upload of a benchmark
        rows = conn.execute(select(h.example_key, h.system_id, h.value, h.upload_id)
                            .join(S.uploads, u.id == h.upload_id)
                            .where(h.benchmark_id == ids[bench], h.name == column,
                                   u.deleted_at.is_(None))).all()
        found = pd.DataFrame([tuple(r) for r in rows],
                             columns=["example_key", "system_id", "hash", "upload_id"])
        examples = {ids[e]: e for e in wanted.loc[wanted["benchmark"] == bench, "example_id"]
                    if e in ids}  # label id → the upload's example id
        found = found[found["example_key"].isin(examples.keys())]
        frames.append(found.assign(benchmark=bench, example_id=found["example_key"].map(examples)))
    if not frames or not sum(len(f) for f in frames):
        return pd.DataFrame(columns=cols)
    found = pd.concat(frames, ignore_index=True).sort_values("upload_id", kind="stable")
    found = found.drop_duplicates(["benchmark", "example_key", "system_id"], keep="last")
    texts = sio.label_texts(conn, set(found["system_id"].tolist()))
    found["system"] = found["system_id"].map(lambda k: texts[int(k)])
    return found[cols].reset_index(drop=True)


def _keepers(stored: pd.DataFrame) -> pd.DataFrame:
    """Per (benchmark, example id): the hash most stored systems hold (ties: the oldest
    upload's), as ``keep``."""
    keys = ["benchmark", "example_id"]
    votes = (stored.groupby([*keys, "hash"], sort=False)
             .agg(n=("system", "size"), first=("upload_id", "min")).reset_index())
    votes = votes.sort_values(["n", "first"], ascending=[False, True], kind="stable")
    return votes.drop_duplicates(keys)[[*keys, "hash"]].rename(columns={"hash": "keep"})


def _holders(stored: pd.DataFrame, moved: pd.DataFrame) -> pd.DataFrame:
    """``moved`` with ``holders``: the stored systems that hold the kept hash of its id."""
    keys = ["benchmark", "example_id"]
    held = stored.merge(moved[[*keys, "keep"]].drop_duplicates(), on=keys)
    held = held[held["hash"] == held["keep"]]
    names = held.groupby(keys, sort=False)["system"].agg(lambda s: sorted(map(str, s)))
    return moved.merge(names.rename("holders").reset_index(), on=keys, how="left")


def _sentences(moved: pd.DataFrame, column: str) -> list[str]:
    said = []
    for bench, group in moved.groupby("benchmark", sort=False):
        ids = list(dict.fromkeys(group["example_id"]))
        holders = sorted({s for names in group["holders"] for s in names})
        shown = ", ".join(ids[:_SHOWN]) + (f" and {len(ids) - _SHOWN} more" if len(ids) > _SHOWN
                                           else "")
        others = ", ".join(holders[:3]) + (f" and {len(holders) - 3} more" if len(holders) > 3
                                           else "")
        n = len(ids)
        said.append(f"{bench}: {n} example id{'s' if n != 1 else ''} of this upload "
                    f"hold{'s' if n == 1 else ''} other content ({column}) than the stored "
                    f"systems ({others}) and {'is' if n == 1 else 'are'} not paired with them: "
                    f"{shown} (kept as <id>#<hash>)")
    return said


def against_store(conn: Connection, df: pd.DataFrame, *,
                  ids: dict[str, int] | None = None) -> tuple[pd.DataFrame, PairingCheck]:
    """``df`` with the example ids whose content differs from the store's moved to
    ``<id>#<hash>`` (for this upload's systems only), and what was found.

    ``df`` is returned as it is when it has no hash column or nothing differs. ``ids``:
    the label ids of ``df``'s texts, when the caller has interned them already.
    """
    column = hash_column(df)
    if column is None or df.empty:
        return df, PairingCheck()
    mine = _upload_hashes(df, column)
    if mine.empty:
        return df, PairingCheck()
    stored = _stored(conn, mine, column, ids)
    own = mine[["benchmark", "system"]].drop_duplicates().assign(_own=True)
    stored = stored.merge(own, on=["benchmark", "system"], how="left")
    stored = stored[stored["_own"].isna()].drop(columns="_own")  # other systems only
    if stored.empty:
        return df, PairingCheck()
    checked = mine.merge(_keepers(stored), on=["benchmark", "example_id"], how="inner")
    moved = checked[checked["hash"] != checked["keep"]]
    if moved.empty:
        return df, PairingCheck()
    moved = _holders(stored, moved)
    new_id = pd.Series([f"{e}#{h[:8]}" for e, h in zip(moved["example_id"], moved["hash"],
                                                         strict=True)],
                       index=pd.MultiIndex.from_frame(moved[_KEY]))
    rows = pd.MultiIndex.from_arrays([df[k].astype(str).to_numpy() for k in _KEY])
    found = new_id.reindex(rows).to_numpy(dtype=object)
    renamed = np.where(pd.isna(found), df["example_id"].to_numpy(dtype=object), found)
    out = df.assign(example_id=pd.Series(renamed, index=df.index, dtype=object))
    unpaired = len(moved[["benchmark", "example_id"]].drop_duplicates())
    return out, PairingCheck(unpaired, tuple(_sentences(moved, column)))


def hash_rows(df: pd.DataFrame, cols: dict[str, np.ndarray], upload_id: int) -> list[dict[str, Any]]:
    """Rows of ``example_hashes`` for an upload: ``df`` is its results frame (after
    :func:`against_store`) and ``cols`` its key ids in the same row order."""
    column = hash_column(df)
    if column is None:
        return []
    keys = pd.DataFrame({k: np.asarray(cols[k], dtype=np.int64)
                         for k in ("benchmark_id", "example_key", "system_id")})
    keys["value"] = df[column].to_numpy(dtype=object)
    keys = keys[pd.notna(keys["value"])].drop_duplicates(["benchmark_id", "example_key",
                                                          "system_id"])
    columns = [keys[c].to_numpy().tolist() for c in ("benchmark_id", "example_key", "system_id")]
    return [{"upload_id": upload_id, "benchmark_id": b, "example_key": e, "system_id": s,
             "name": column, "value": str(v)}
            for b, e, s, v in zip(*columns, keys["value"].tolist(), strict=True)]
