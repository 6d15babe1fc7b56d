"""Vega-Lite specifications as plain dicts: a chart in a millisecond instead of through altair.

Building an altair chart and calling ``to_dict`` validates every part against the
Vega-Lite JSON schema and deep-copies it several times: 0.2–0.5 s per chart on a
busy machine, paid on every settings change (the engine's own work for 78
systems is 0.05–0.15 s). The app's charts are therefore written as the dicts
altair would produce (the same marks, encodings and named datasets); the tests check
them against the schema through altair (``tests/app/test_app_svg.py``).

Datasets are data frames, named by a hash of their content like altair's and
listed once at the top level: Streamlit sends a frame to the browser as Arrow
(compact types kept), so no rows pass through Python dicts or JSON on the way.

Examples
--------
>>> import pandas as pd
>>> data = Datasets()
>>> frame = pd.DataFrame({"x": [1.0, float("nan")]})
>>> layers = [{"data": data.ref(frame), "mark": mark, "encoding": {"x": field("x", "quantitative")}}
...           for mark in ("point", "tick")]
>>> spec = top({"layer": layers}, data)
>>> len(spec["datasets"]), spec["$schema"] == SCHEMA
(1, True)
"""
from __future__ import annotations

import hashlib
import json
from typing import Any, cast

import altair as alt
import pandas as pd

from engine.app_support import one_line_all

Spec = dict[str, Any]

#: The schema altair writes (the browser's Vega-Lite reads it only as a version hint).
SCHEMA = alt.SCHEMA_URL
#: altair's default view configuration, kept so charts draw as they did through altair.
VIEW = {"continuousWidth": 300, "continuousHeight": 300}


class Datasets:
    """Named datasets of one specification (a frame used by several layers is stored once)."""

    def __init__(self) -> None:
        self.named: dict[str, pd.DataFrame] = {}

    def ref(self, frame: pd.DataFrame) -> dict[str, str]:
        """Store ``frame`` and return the ``data`` entry that names it."""
        frame = frame.reset_index(drop=True)
        digest = hashlib.md5(usedforsecurity=False)
        digest.update(json.dumps([str(c) for c in frame.columns]).encode())
        digest.update(pd.util.hash_pandas_object(frame, index=False).to_numpy().tobytes())
        name = f"data-{digest.hexdigest()}"
        self.named[name] = frame
        return {"name": name}


def field(name: str, kind: str, **extra: Any) -> dict[str, Any]:
    """An encoding channel on a data field (``kind``: quantitative, nominal, ordinal)."""
    return {"field": name, "type": kind, **extra}


def tooltip(name: str, kind: str, *, title: str | None = None, fmt: str | None = None
            ) -> dict[str, Any]:
    """One tooltip entry."""
    entry: dict[str, Any] = {"field": name, "type": kind}
    if title is not None:
        entry["title"] = title
    if fmt is not None:
        entry["format"] = fmt
    return entry


def top(body: Spec, datasets: Datasets, *, config: Spec | None = None) -> Spec:
    """A top-level specification: ``body`` with the datasets (frames), the schema and a config."""
    conf: Spec = {"view": dict(VIEW)}
    for key, value in (config or {}).items():
        conf[key] = {**conf.get(key, {}), **value}
    # a line separator in a name would end a string literal of Vega's expressions (sort orders)
    body = cast(Spec, one_line_all(body))
    named = {name: _one_line_frame(frame) for name, frame in datasets.named.items()}
    return {"config": conf, **body, "$schema": SCHEMA, "datasets": named}


def _one_line_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with control characters and line separators in its text columns as spaces
    (engine.one_line_all), copied only when some text holds one."""
    fixed = {}
    for name in frame.columns:
        column = frame[name]
        if column.dtype == object or isinstance(column.dtype, pd.StringDtype):
            mapped = column.map(one_line_all)
            if not mapped.equals(column):
                fixed[name] = mapped
    return frame.assign(**fixed) if fixed else frame
