"""The write path of the results store: conflict checks and resolution, metadata rows.

Every function runs inside the caller's write transaction (see
:meth:`engine._store.ResultsStore._write`) and changes nothing when it raises.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping
from typing import Any, Literal

import numpy as np
import pandas as pd
from sqlalchemy import Connection, and_, delete, func, insert, literal, select, tuple_

from .._contract import (
    DataContractError,
    MetricSpec,
    MetricSpecs,
    Problem,
    exact_factorize,
    spec_for,
)
from . import _io as sio
from . import _schema as S

__all__ = ["ConflictError", "OnConflict", "adjust_stored", "check_declared_binary",
           "check_stored_binary", "collisions", "conflict_error", "frame_hash", "insert_upload",
           "meta_rows", "move_to_history", "named", "resolve", "stored_keys", "supersede",
           "upsert_metrics"]

OnConflict = Literal["reject", "replace", "add-run"]
KEYS = ("benchmark_id", "metric_id", "system_id", "example_key", "run")
_SHOWN = 5


class ConflictError(DataContractError):
    """An upload collides with stored keys; ``collisions`` holds the colliding keys."""

    def __init__(self, problems: list[Problem], collisions: pd.DataFrame) -> None:
        super().__init__(problems)
        self.collisions = collisions


def _as_text(column: pd.Series, coded: tuple[np.ndarray, np.ndarray] | None = None) -> pd.Series:
    """``column.astype(str)`` for hashing: a categorical of the distinct texts when the
    values group exactly (pandas hashes a categorical as its values), else row by row.
    ``coded`` = (row codes, distinct texts) of a text column, when already known."""
    if coded is not None:
        known_codes, texts = coded
        return pd.Series(pd.Categorical.from_codes(known_codes,
                                                   categories=pd.Index(texts, dtype=object)),
                         index=column.index)
    grouped = exact_factorize(column)
    if grouped is None:
        return column.astype(str)
    codes, uniques = grouped
    text_codes, distinct = pd.factorize(uniques.astype(str))  # "1" may come from 1 and "1"
    row_codes = np.append(np.asarray(text_codes), -1)[codes]  # -1: missing stays missing
    return pd.Series(pd.Categorical.from_codes(row_codes, categories=distinct),
                     index=column.index)


def frame_hash(df: pd.DataFrame, *,
               known: Mapping[str, tuple[np.ndarray, np.ndarray]] | None = None) -> str:
    """SHA-256 of a table's content that does not depend on row or column order.

    The hash of ``df[sorted columns].astype(str)``, row by row (pandas'
    ``hash_pandas_object``), summed and xor-ed over rows; each column's text and hash are
    computed once per distinct value. ``known`` maps text columns to their (row codes,
    distinct texts), as :func:`engine._contract.validate_long_codes` returns them.
    """
    cols = sorted(map(str, df.columns))
    if len(set(cols)) == len(cols) and all(isinstance(c, str) for c in df.columns):
        text = pd.DataFrame({c: _as_text(df[c], (known or {}).get(c)) for c in cols},
                            index=df.index)
    else:  # duplicate or non-text column names: the plain conversion
        text = df[cols].astype(str)
    rows = pd.util.hash_pandas_object(text, index=False).to_numpy(np.uint64)
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
    """Stored (benchmark, metric, system, example, run) ids of the upload's systems, with
    the ``upload_id`` that holds each."""
    r = S.results.c
    group = ["benchmark_id", "metric_id", "system_id"]
    upload = pd.DataFrame({k: cols[k] for k in group}).drop_duplicates()
    frames = []
    for pair, part in upload.groupby(["benchmark_id", "metric_id"], sort=False):
        b, mm = (int(x) for x in pair)  # type: ignore[union-attr,call-overload]
        systems = [int(x) for x in part["system_id"]]
        for i in range(0, len(systems), 1000):
            rows = conn.execute(select(r.benchmark_id, r.metric_id, r.system_id,
                                       r.example_key, r.run, r.upload_id)
                                .where(r.benchmark_id == b, r.metric_id == mm,
                                       r.system_id.in_(systems[i:i + 1000]))).all()
            if rows:
                frames.append(pd.DataFrame.from_records(rows, columns=[*KEYS, "upload_id"]))
    if not frames:
        return pd.DataFrame({k: pd.Series(dtype="int64") for k in [*KEYS, "upload_id"]})
    return pd.concat(frames, ignore_index=True).astype("int64")


def collisions(cols: dict[str, np.ndarray], stored: pd.DataFrame) -> pd.DataFrame:
    """The upload's keys that are stored already (``upload_id`` = the stored row's upload)."""
    upload = pd.DataFrame({k: cols[k] for k in KEYS})
    return upload.merge(stored, on=list(KEYS), how="inner")


def named(conn: Connection, hits: pd.DataFrame) -> pd.DataFrame:
    """Colliding keys with their label texts (columns benchmark, system, metric,
    example_id, run, upload_id)."""
    group = ["benchmark_id", "metric_id", "system_id", "example_key"]
    texts = sio.label_texts(conn, np.unique(hits[group].to_numpy()) if len(hits) else [])
    return pd.DataFrame({
        "benchmark": [texts[i] for i in hits["benchmark_id"]],
        "system": [texts[i] for i in hits["system_id"]],
        "metric": [texts[i] for i in hits["metric_id"]],
        "example_id": [texts[i] for i in hits["example_key"]],
        "run": hits["run"].to_numpy(np.int64),
        "upload_id": hits["upload_id"].to_numpy(np.int64)})


def conflict_error(conn: Connection, hits: pd.DataFrame, filename: str) -> ConflictError:
    """The error of a rejected upload, naming the first colliding keys."""
    keys = named(conn, hits)
    shown = "; ".join(
        f"benchmark={h.benchmark}, system={h.system}, metric={h.metric}, "
        f"example_id={h.example_id}, run={h.run}"
        for h in keys.head(_SHOWN).itertuples(index=False))
    more = f" and {len(hits) - _SHOWN} more" if len(hits) > _SHOWN else ""
    return ConflictError([Problem(
        filename, column="system",
        rule=f"{len(hits)} row(s) collide with stored results ({shown}{more})",
        fix="choose on-conflict 'replace' to replace the stored rows of these systems, "
            "or 'add-run' to store this upload as a new run")], keys.drop(columns="upload_id"))


def move_to_history(conn: Connection, where: Any, tag: Any) -> dict[int, int]:
    """Move the ``results`` rows matching ``where`` to ``results_history`` tagged ``tag``
    (a number, or a column expression); returns the rows moved per upload."""
    r, h = S.results.c, S.results_history.c
    moved = {int(u): int(n) for u, n in conn.execute(
        select(r.upload_id, func.count()).where(where).group_by(r.upload_id)).all()}
    if moved:
        cols = [c.name for c in S.results.columns]
        source = select(*[r[c] for c in cols], literal(tag) if isinstance(tag, int) else tag
                        ).where(where)
        conn.execute(insert(S.results_history).from_select([*cols, h.superseded_by.name],
                                                           source))
        conn.execute(delete(S.results).where(where))
        adjust_stored(conn, moved, -1)
    return moved


def adjust_stored(conn: Connection, counts: dict[int, int], sign: int) -> None:
    """Keep ``uploads.rows_stored`` (rows of each upload in ``results``) in step."""
    u = S.uploads.c
    for upload_id, n in counts.items():
        conn.execute(S.uploads.update().where(u.id == upload_id)
                     .values(rows_stored=u.rows_stored + sign * n))


def resolve(conn: Connection, cols: dict[str, np.ndarray], stored: pd.DataFrame,
             filename: str, on_conflict: OnConflict) -> pd.DataFrame:
    """Apply the conflict policy before the upload is stored; returns the groups
    ``(benchmark_id, metric_id, system_id)`` to supersede (``cols['run']`` may shift)."""
    group = ["benchmark_id", "metric_id", "system_id"]
    hits = collisions(cols, stored)
    if hits.empty:
        return pd.DataFrame(columns=group)
    if on_conflict == "reject":
        raise conflict_error(conn, hits, filename)
    colliding = hits[group].drop_duplicates()
    if on_conflict == "replace":
        return colliding
    # add-run: the upload's rows of each colliding group move after the highest stored run
    upload = pd.DataFrame({k: cols[k] for k in KEYS})
    top = stored.groupby(group, sort=False)["run"].max().rename("top").reset_index()
    first = upload.groupby(group, sort=False)["run"].min().rename("first").reset_index()
    shift = colliding.merge(top, on=group).merge(first, on=group)
    shift["delta"] = shift["top"] + 1 - shift["first"]
    delta = upload[group].merge(shift[[*group, "delta"]], on=group, how="left", sort=False)
    cols["run"] = cols["run"] + delta["delta"].fillna(0).to_numpy(np.int64)
    return pd.DataFrame(columns=group)


def supersede(conn: Connection, groups: pd.DataFrame, upload_id: int) -> int:
    """Replace: every stored row of each group goes to the history, superseded by
    ``upload_id`` (it comes back if that upload is deleted); returns rows superseded."""
    r = S.results.c
    replaced = 0
    for b, mm, sy in groups.itertuples(index=False):
        where = and_(r.benchmark_id == int(b), r.metric_id == int(mm), r.system_id == int(sy))
        replaced += sum(move_to_history(conn, where, upload_id).values())
    return replaced


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
