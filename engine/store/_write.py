"""The write path of the results store: conflict checks and resolution, metadata rows.

Every function runs inside the caller's write transaction (see
:meth:`engine._store.ResultsStore._write`) and changes nothing when it raises.
"""

from __future__ import annotations

import hashlib
import json
import math
from typing import Any, Literal

import numpy as np
import pandas as pd
from sqlalchemy import Connection, and_, delete, func, insert, select, tuple_

from .._contract import DataContractError, MetricSpec, MetricSpecs, Problem, spec_for
from . import _io as sio
from . import _schema as S

__all__ = ["ConflictError", "OnConflict", "check_declared_binary", "check_stored_binary",
           "frame_hash", "insert_upload", "meta_rows", "resolve", "stored_keys",
           "upsert_metrics"]

OnConflict = Literal["reject", "replace", "add-run"]
KEYS = ("benchmark_id", "metric_id", "system_id", "example_key", "run")
_SHOWN = 5


class ConflictError(DataContractError):
    """An upload collides with stored keys; ``collisions`` holds the colliding keys."""

    def __init__(self, problems: list[Problem], collisions: pd.DataFrame) -> None:
        super().__init__(problems)
        self.collisions = collisions


def frame_hash(df: pd.DataFrame) -> str:
    """SHA-256 of a table's content that does not depend on row or column order."""
    cols = sorted(map(str, df.columns))
    rows = pd.util.hash_pandas_object(df[cols].astype(str), index=False).to_numpy(np.uint64)
    mixed = (rows * np.uint64(0x9E3779B97F4A7C15)) ^ (rows >> np.uint64(29))
    with np.errstate(over="ignore"):
        parts = [len(rows), int(rows.sum(dtype=np.uint64)), int(np.bitwise_xor.reduce(rows))
                 if len(rows) else 0, int(mixed.sum(dtype=np.uint64))]
    return hashlib.sha256(json.dumps([cols, parts]).encode()).hexdigest()


def _json_scalar(value: Any) -> str | None:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    if value is pd.NA or value is pd.NaT:
        return None
    if hasattr(value, "item"):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return json.dumps(str(value))
    if not isinstance(value, str | int | float | bool):
        value = str(value)
    return json.dumps(value, ensure_ascii=False)


def meta_rows(frame: pd.DataFrame, keys: tuple[str, str], upload_id: int) -> list[dict[str, Any]]:
    names = [c for c in frame.columns if c not in keys]
    out: list[dict[str, Any]] = []
    for name in names:
        for k1, k2, v in zip(frame[keys[0]], frame[keys[1]], frame[name], strict=True):
            encoded = _json_scalar(v)
            if encoded is not None:
                out.append({"upload_id": upload_id, "benchmark": k1, keys[1]: k2,
                            "name": str(name), "value": encoded})
    return out


def check_declared_binary(df: pd.DataFrame, filename: str, specs: MetricSpecs) -> None:
    problems = []
    for key, spec in specs.items():
        if spec.binary is not True:
            continue
        bench, metric = key if isinstance(key, tuple) else (None, key)
        in_slice = df["metric"] == metric
        if bench is not None:
            in_slice &= df["benchmark"] == bench
        mask = (in_slice & ~df["value"].isin([0.0, 1.0])).to_numpy()
        if mask.any():
            problems.append(Problem(
                filename, rule=f"metric {metric!r} is declared binary but has the value "
                f"{df['value'].to_numpy()[mask][0]:g}", column="value",
                rows=tuple(int(p) + 1 for p in np.flatnonzero(mask)),
                fix="score binary metrics as 0 or 1, or declare the metric numeric"))
    if problems:
        raise DataContractError(problems)


def check_stored_binary(conn: Connection, data: pd.DataFrame, filename: str,
                         specs: MetricSpecs) -> None:
    m = S.metrics_table.c
    pairs = data[["benchmark", "metric"]].drop_duplicates()
    declared = {(b, mm) for b, mm in conn.execute(select(m.benchmark, m.metric).where(
        m.binary.is_(True))).all()}
    problems = []
    for b, mm in pairs.itertuples(index=False):
        own = spec_for(specs, b, mm)
        if (b, mm) not in declared or (own is not None and own.binary is False):
            continue
        mask = ((data["benchmark"] == b) & (data["metric"] == mm)
                & ~data["value"].isin([0.0, 1.0])).to_numpy()
        if mask.any():
            rows = tuple(int(p) + 1 for p in np.flatnonzero(mask))
            problems.append(Problem(
                filename, rule=f"metric {mm!r} of benchmark {b!r} is declared binary in the "
                f"store, but this upload has the value {data['value'].to_numpy()[mask][0]:g}",
                column="value", rows=rows, fix="score it 0 or 1, or declare it numeric"))
    if problems:
        raise DataContractError(problems)


def insert_upload(conn: Connection, **values: Any) -> int:
    key = conn.execute(insert(S.uploads).values(**values)).inserted_primary_key
    assert key is not None
    return int(key[0])


def stored_keys(conn: Connection, cols: dict[str, np.ndarray]) -> pd.DataFrame:
    """Stored (benchmark, metric, system, example, run) ids of the upload's systems."""
    r = S.results.c
    group = ["benchmark_id", "metric_id", "system_id"]
    upload = pd.DataFrame({k: cols[k] for k in group}).drop_duplicates()
    frames = []
    for pair, part in upload.groupby(["benchmark_id", "metric_id"], sort=False):
        b, mm = (int(x) for x in pair)  # type: ignore[union-attr,call-overload]
        systems = [int(x) for x in part["system_id"]]
        for i in range(0, len(systems), 1000):
            rows = conn.execute(select(r.benchmark_id, r.metric_id, r.system_id,
                                       r.example_key, r.run)
                                .where(r.benchmark_id == b, r.metric_id == mm,
                                       r.system_id.in_(systems[i:i + 1000]))).all()
            if rows:
                frames.append(pd.DataFrame.from_records(rows, columns=[*KEYS]))
    if not frames:
        return pd.DataFrame(columns=[*KEYS])
    return pd.concat(frames, ignore_index=True).astype("int64")


def resolve(conn: Connection, cols: dict[str, np.ndarray], stored: pd.DataFrame,
             filename: str, on_conflict: OnConflict) -> int:
    """Apply the conflict policy; returns rows replaced (``cols['run']`` may shift)."""
    upload = pd.DataFrame({k: cols[k] for k in KEYS})
    hits = upload.merge(stored, on=list(KEYS), how="inner")
    if hits.empty:
        return 0
    group = ["benchmark_id", "metric_id", "system_id"]
    if on_conflict == "reject":
        texts = sio.label_texts(conn, np.unique(hits[group + ["example_key"]].to_numpy()))
        named = pd.DataFrame({
            "benchmark": [texts[i] for i in hits["benchmark_id"]],
            "system": [texts[i] for i in hits["system_id"]],
            "metric": [texts[i] for i in hits["metric_id"]],
            "example_id": [texts[i] for i in hits["example_key"]],
            "run": hits["run"].to_numpy()})
        shown = "; ".join(
            f"benchmark={h.benchmark}, system={h.system}, metric={h.metric}, "
            f"example_id={h.example_id}, run={h.run}"
            for h in named.head(_SHOWN).itertuples(index=False))
        more = f" and {len(hits) - _SHOWN} more" if len(hits) > _SHOWN else ""
        raise ConflictError([Problem(
            filename, column="system",
            rule=f"{len(hits)} row(s) collide with stored results ({shown}{more})",
            fix="choose on-conflict 'replace' to replace the stored rows of these systems, "
                "or 'add-run' to store this upload as a new run")], named)
    colliding = hits[group].drop_duplicates()
    r = S.results.c
    if on_conflict == "replace":
        removed = 0
        u = S.uploads.c
        for b, mm, sy in colliding.itertuples(index=False):
            where = (r.benchmark_id == int(b), r.metric_id == int(mm), r.system_id == int(sy))
            lost = conn.execute(select(r.upload_id, func.count()).where(*where)
                                .group_by(r.upload_id)).all()
            for upload_id, n in lost:
                conn.execute(S.uploads.update().where(u.id == upload_id)
                             .values(rows_stored=u.rows_stored - n))
            removed += int(conn.execute(delete(S.results).where(*where)).rowcount or 0)
        return removed
    # add-run: the upload's rows of each colliding group move after the highest stored run
    top = stored.groupby(group, sort=False)["run"].max().rename("top").reset_index()
    first = upload.groupby(group, sort=False)["run"].min().rename("first").reset_index()
    shift = colliding.merge(top, on=group).merge(first, on=group)
    shift["delta"] = shift["top"] + 1 - shift["first"]
    delta = upload[group].merge(shift[[*group, "delta"]], on=group, how="left", sort=False)
    cols["run"] = cols["run"] + delta["delta"].fillna(0).to_numpy(np.int64)
    return 0


def upsert_metrics(conn: Connection, data: pd.DataFrame, specs: MetricSpecs,
                   upload_id: int) -> None:
    m = S.metrics_table.c
    pairs = list(data[["benchmark", "metric"]].drop_duplicates().itertuples(index=False))
    existing = {(b, mm) for b, mm in conn.execute(select(m.benchmark, m.metric).where(
        tuple_(m.benchmark, m.metric).in_([tuple(p) for p in pairs]))).all()} if pairs else set()
    for b, mm in pairs:
        spec = spec_for(specs, b, mm)
        if (b, mm) not in existing:
            spec = spec or MetricSpec()
            conn.execute(insert(S.metrics_table).values(
                benchmark=b, metric=mm, higher_is_better=spec.higher_is_better,
                binary=spec.binary, threshold=spec.threshold, upload_id=upload_id))
        elif spec is not None:
            conn.execute(S.metrics_table.update().where(and_(
                m.benchmark == b, m.metric == mm)).values(
                higher_is_better=spec.higher_is_better, binary=spec.binary,
                threshold=spec.threshold, upload_id=upload_id))
