"""Per-observation text of an upload: each system's output on each example (``outputs``).

An upload's text columns that belong to one observation — a system's ``output``,
``completion`` or ``response`` on one example, as :func:`engine.io._readers.split_metadata`
keeps them in the results frame — are stored here, one row per (benchmark, system,
example, run, column), tagged with the upload. Keys are the label ids of ``results``.

An output is shown only while its upload's score row for the same (benchmark, system,
example, run) is live in ``results`` (for any metric): a replaced row's output is
superseded with it and comes back with it; a deleted upload's outputs leave every read
and come back on restore; :func:`engine.store._history.purge` removes them with their
upload. Where several live uploads hold a key (different metrics), the newest upload wins, as for metadata.

A value is capped at :data:`MAX_CHARS` characters (the rest is cut, with a note saying
so), so that a store does not balloon; NUL characters and unpaired surrogates, which
the databases cannot store as text, become U+FFFD. Every function runs inside the
caller's transaction.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pandas as pd
from sqlalchemy import Connection, select

from .._contract import REQUIRED_COLUMNS
from ..io._readers import is_text
from . import _io as sio
from . import _schema as S

__all__ = ["MAX_CHARS", "clip", "output_columns", "output_rows", "read_benchmark_outputs",
           "read_outputs"]

#: Longest stored output text (characters); longer ones are cut, with a note.
MAX_CHARS = 20_000
_CANON = (*REQUIRED_COLUMNS, "run")
_KEY = ["benchmark_id", "system_id", "example_key", "run"]


def output_columns(data: pd.DataFrame) -> list[str]:
    """The per-observation text columns of a results frame (numeric ones are not text).

    Examples
    --------
    >>> df = pd.DataFrame({"benchmark": "b", "system": "A", "example_id": ["1", "2"],
    ...                    "metric": "m", "value": [1.0, 0.0], "output": ["x", "y"],
    ...                    "tokens": [10, 12]})
    >>> output_columns(df)
    ['output']
    """
    return [str(c) for c in data.columns if c not in _CANON and is_text(data[c])]


def clip(value: Any, limit: int = MAX_CHARS) -> str | None:
    """One cell as stored text: None for a missing or empty cell, else at most ``limit``
    characters and a note when cut.

    Examples
    --------
    >>> clip(float("nan")) is None, clip("  "), clip("<b>x</b>")
    (True, None, '<b>x</b>')
    >>> clip("abcdef", limit=3)
    'abc\\n… [cut: 6 characters uploaded, the first 3 stored]'
    """
    if value is None or value is pd.NA or (isinstance(value, float) and np.isnan(value)):
        return None
    if isinstance(value, dict | list):
        text = json.dumps(value, ensure_ascii=False, default=str)
    else:
        text = str(value)
    if not text.strip():
        return None
    text = text.replace("\x00", "\ufffd")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # unpaired surrogates
        text = text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    if len(text) > limit:
        text = (f"{text[:limit]}\n… [cut: {len(text):,} characters uploaded, the first "
                f"{limit:,} stored]")
    return text


def output_rows(data: pd.DataFrame, cols: dict[str, np.ndarray],
                upload_id: int) -> list[dict[str, Any]]:
    """Rows of ``outputs`` for an upload: ``data`` is its results frame and ``cols`` its key
    ids in the same row order (``run`` after the conflict policy shifted it).

    A key repeated across metrics keeps its first non-empty text.
    """
    names = output_columns(data)
    if not names:
        return []
    keys = pd.DataFrame({k: np.asarray(cols[k], dtype=np.int64) for k in _KEY})
    out: list[dict[str, Any]] = []
    for name in names:
        values = [clip(v) for v in data[name].tolist()]
        part = keys.assign(value=pd.Series(values, index=keys.index, dtype=object))
        part = part.dropna(subset=["value"])
        part = part.drop_duplicates(_KEY, keep="first")
        out += [{"upload_id": upload_id, "benchmark_id": int(b), "system_id": int(s),
                 "example_key": int(e), "run": int(r), "name": name, "value": v}
                for b, s, e, r, v in part.itertuples(index=False)]
    return out


def read_outputs(conn: Connection, benchmark: str, example_id: str) -> pd.DataFrame:
    """The live outputs of one example: ``system, run, name, value`` (see the module
    docstring), in the systems' first-upload order."""
    empty = pd.DataFrame(columns=["system", "run", "name", "value"])
    ids = sio.lookup(conn, [benchmark, example_id])
    if benchmark not in ids or example_id not in ids:
        return empty
    b, e = ids[benchmark], ids[example_id]
    o, r, m = S.outputs.c, S.results.c, S.metrics_table.c
    rows = conn.execute(select(o.system_id, o.run, o.name, o.value, o.upload_id).where(
        o.benchmark_id == b, o.example_key == e).order_by(o.upload_id, o.id)).all()
    if not rows:
        return empty
    # the live score rows of this example (the metric ids keep the primary key's order)
    metrics = sio.lookup(conn, conn.execute(select(m.metric).where(m.benchmark == benchmark))
                         .scalars())
    live = conn.execute(select(r.system_id, r.run, r.upload_id).where(
        r.benchmark_id == b, r.metric_id.in_(list(metrics.values()) or [-1]),
        r.example_key == e).distinct()).all()
    found = pd.DataFrame.from_records(rows, columns=["system_id", "run", "name", "value",
                                                     "upload_id"])
    held = pd.DataFrame.from_records(live, columns=["system_id", "run", "upload_id"])
    shown = found.merge(held, on=["system_id", "run", "upload_id"], how="inner", sort=False)
    shown = shown.drop_duplicates(["system_id", "run", "name"], keep="last")  # newest wins
    if shown.empty:
        return empty
    texts = sio.label_texts(conn, shown["system_id"].tolist())
    return pd.DataFrame({"system": [texts[int(i)] for i in shown["system_id"]],
                         "run": shown["run"].to_numpy(np.int64),
                         "name": shown["name"].astype(str).to_numpy(),
                         "value": shown["value"].astype(str).to_numpy()})


def read_benchmark_outputs(conn: Connection, benchmark: str) -> pd.DataFrame:
    """The live outputs of every example of one benchmark, one column per text name:
    ``system, example_id, run`` then e.g. ``output`` (for ``export``; the same rules as
    :func:`read_outputs`)."""
    key = ["system", "example_id", "run"]
    ids = sio.lookup(conn, [benchmark])
    if benchmark not in ids:
        return pd.DataFrame(columns=key)
    b = ids[benchmark]
    o, r = S.outputs.c, S.results.c
    rows = conn.execute(select(o.system_id, o.example_key, o.run, o.name, o.value, o.upload_id)
                        .where(o.benchmark_id == b).order_by(o.upload_id, o.id)).all()
    if not rows:
        return pd.DataFrame(columns=key)
    live = conn.execute(select(r.system_id, r.example_key, r.run, r.upload_id)
                        .where(r.benchmark_id == b).distinct()).all()
    cols = ["system_id", "example_key", "run"]
    found = pd.DataFrame.from_records(rows, columns=[*cols, "name", "value", "upload_id"])
    held = pd.DataFrame.from_records(live, columns=[*cols, "upload_id"])
    shown = found.merge(held, on=[*cols, "upload_id"], how="inner", sort=False)
    shown = shown.drop_duplicates([*cols, "name"], keep="last")  # newest upload wins
    if shown.empty:
        return pd.DataFrame(columns=key)
    texts = sio.label_texts(conn, list({*shown["system_id"].tolist(), *shown["example_key"].tolist()}))
    wide = shown.pivot(index=cols, columns="name", values="value").reset_index()
    wide.columns.name = None
    wide.insert(0, "system", [texts[int(i)] for i in wide.pop("system_id")])
    wide.insert(1, "example_id", [texts[int(i)] for i in wide.pop("example_key")])
    return wide.astype({"run": np.int64})
