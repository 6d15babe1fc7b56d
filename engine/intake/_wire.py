"""An :class:`~engine.Ingested` over the child's stdout: the frame as Arrow IPC, the
rest as JSON in the schema's metadata (key ``sigboard``), never a pickle."""

from __future__ import annotations

import dataclasses
import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from . import Ingested

__all__ = ["from_table", "to_table"]

_KEY = b"sigboard"


def to_table(got: Ingested) -> Any:
    """The Arrow table the child sends for ``got``."""
    from ..io._readers import metric_specs_of
    from ..io._worker import table_of

    meta = {
        "kind": got.kind, "format": got.format, "label": got.label,
        "specs": [[b, m, dataclasses.asdict(s)] for (b, m), s in got.specs.items()],
        "metric_specs": [[m, dataclasses.asdict(s)] for m, s in metric_specs_of(got.frame).items()],
        # benchmark → (metric, harness): the harness's primary metric, the default metric
        "primary_metrics": [[b, *mh] for b, mh in
                            (got.frame.attrs.get("primary_metrics") or {}).items()],
        # the columns travel with the rows, so an empty table keeps them and the parent
        # needs none of the harness readers to know them
        "skipped": None if got.skipped is None else {
            "columns": [str(c) for c in got.skipped.columns],
            "rows": got.skipped.to_dict("records")},
        "report": got.report, "clusters": got.clusters, "files": list(got.files),
        "content_hash": got.content_hash,
        # text columns come back from Arrow as pandas' string dtype: these were objects
        "objects": [str(c) for c in got.frame.columns if got.frame[c].dtype == object],
    }
    table = table_of(got.frame)
    return table.replace_schema_metadata({**(table.schema.metadata or {}),
                                          _KEY: json.dumps(meta).encode()})


def from_table(table: Any) -> Ingested:
    """The :class:`~engine.Ingested` of a table :func:`to_table` made."""
    import pandas as pd

    from .._contract import MetricSpec
    from . import Ingested

    meta = json.loads((table.schema.metadata or {})[_KEY])
    frame = _frame_of(table, [str(c) for c in meta.get("objects", ())])
    del table
    frame.attrs["metric_specs"] = {str(m): MetricSpec(**s) for m, s in meta["metric_specs"]}
    if meta.get("primary_metrics"):
        frame.attrs["primary_metrics"] = {str(b): (str(m), str(h))
                                          for b, m, h in meta["primary_metrics"]}
    skipped = None
    if meta["skipped"] is not None:
        got = meta["skipped"]
        skipped = pd.DataFrame(got["rows"], columns=got["columns"])
        if "count" in skipped.columns:
            skipped = skipped.astype({"count": "int64"})
    return Ingested(kind=meta["kind"], frame=frame, format=meta["format"], label=meta["label"],
                    specs={(str(b), str(m)): MetricSpec(**s) for b, m, s in meta["specs"]},
                    skipped=skipped, report=meta["report"],
                    clusters={str(k): str(v) for k, v in meta["clusters"].items()},
                    files=tuple(meta["files"]), content_hash=meta.get("content_hash"))


def _frame_of(table: Any, objects: list[str]) -> Any:
    """The DataFrame of ``table`` with the columns named in ``objects`` as object columns
    (None where missing), as the child's frame had them."""
    import pandas as pd
    import pyarrow as pa

    # text columns are rebuilt from their distinct values (one str object per value, not
    # one per row, which pandas' string dtype and then astype(object) would make)
    text = {c for c in objects if c in table.column_names
            and (pa.types.is_string(table.schema.field(c).type)
                 or pa.types.is_large_string(table.schema.field(c).type))}
    if len(text) == table.num_columns:
        text = set()
    # one thread: Arrow's pool, once started, keeps threads that would stop this process
    # from forking its next child (engine.io._fork); a frame of an upload converts fast
    frame = table.drop_columns(sorted(text)).to_pandas(use_threads=False)
    for place, column in enumerate(table.column_names):
        if column in text:
            frame.insert(place, column, pd.Series(_objects(table.column(column)), dtype=object,
                                                  index=frame.index, copy=False))
    for column in objects:
        if column in frame.columns and frame[column].dtype != object:
            frame[column] = frame[column].astype(object).where(frame[column].notna(), None)
    return frame


def _objects(column: Any) -> Any:
    """A text column of Arrow as a numpy object array, None where missing."""
    import numpy as np

    encoded = column.combine_chunks().dictionary_encode()
    values = np.array([*encoded.dictionary.to_pylist(), None], dtype=object)
    return values[encoded.indices.fill_null(len(values) - 1).to_numpy()]
