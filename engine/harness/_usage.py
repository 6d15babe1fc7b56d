"""Harness logs with their usage: tokens, times and cost beside the scores.

:func:`read_harness` imports scores only, so an upload's metrics (and every board computed
from them) do not change. :func:`read_with_usage` reads the same logs with each example's
usage as further metrics, declared lower-is-better (:class:`~engine._contract.MetricSpec`):

- Inspect: ``tokens_in``, ``tokens_out`` (``model_usage``), ``cost`` (``model_usage``'s
  ``total_cost``, when recorded), ``latency_s`` (``total_time``), ``working_s``
  (``working_time``), per sample and epoch (:func:`engine.harness._inspect.usage_values`);
- promptfoo: ``cost``, ``latency_ms`` (``latencyMs``), ``tokens_in``, ``tokens_out``
  (``response.tokenUsage``), per result (:func:`engine.harness._promptfoo.usage_values`);
- HELM: ``tokens_in`` (``num_prompt_tokens``), ``tokens_out`` (``num_completion_tokens``),
  ``latency_s`` (``inference_runtime``), per instance and trial
  (:data:`engine.harness._helm.USAGE_STATS`).

A results table's per-row columns named as a usage metric (``cost``, ``latency_ms``,
``latency_s``, ``working_s``, ``tokens_in``, ``tokens_out``) become those metrics on upload
(:func:`usage_columns`): one value per example and try, lower is better.

lm-eval (0.4) records no usage per example (only a run's ``total_evaluation_time_seconds``),
so its import is the same with usage or without; lighteval and OpenAI evals likewise. Other
formats are read as :func:`read_harness` reads them. A plain table's ``cost`` or
``latency_ms`` column of a long table is a metric like any other: its direction is declared
as for any metric (a ``higher_is_better`` column, or the upload's metric settings).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._contract import USAGE_METRICS

if TYPE_CHECKING:
    import pandas as pd

    from .._contract import MetricSpec
    from ._report import HarnessImport
    from ._walk import Source

__all__ = ["USAGE_MEANINGS", "read_with_usage", "usage_columns", "usage_line", "usage_table"]

#: each usage metric: what it measures, in which unit
USAGE_MEANINGS = {"tokens_in": ("tokens sent to the model (prompt)", "tokens"),
                  "tokens_out": ("tokens the model wrote (completion)", "tokens"),
                  "latency_s": ("time to answer, wall clock", "seconds"),
                  "working_s": ("time to answer without waits on rate limits", "seconds"),
                  "latency_ms": ("time to answer, wall clock", "milliseconds"),
                  "cost": ("money the log records", "the provider's currency")}


def read_with_usage(source: Source, *, format: str | None = None,  # noqa: A002 - the CLI's name
                    system: str | None = None, name: str | None = None) -> HarnessImport:
    """:func:`engine.harness.read_harness` with ``usage=True``: the usage metrics of Inspect,
    promptfoo and HELM beside the scores.

    >>> import json
    >>> line = json.dumps({"provider": {"id": "m"}, "testCase": {"description": "t1"},
    ...                    "success": True, "score": 1, "cost": 0.5, "latencyMs": 20})
    >>> out = read_with_usage(("r.jsonl", line.encode()), format="promptfoo")
    >>> out.frame[["metric", "value"]].values.tolist()
    [['pass', 1.0], ['score', 1.0], ['cost', 0.5], ['latency_ms', 20.0]]
    >>> out.specs[("r", "cost")].higher_is_better
    False
    """
    from . import read_harness

    return read_harness(source, format=format, system=system, name=name, usage=True)


def usage_table(frame: pd.DataFrame) -> pd.DataFrame:
    """The usage metrics of a long table, one row per (benchmark, metric): what it measures,
    its unit, the systems and examples that have it and its mean (lower is better).

    >>> import pandas as pd
    >>> rows = pd.DataFrame({"benchmark": "b", "system": ["m", "m", "n"], "example_id": "e",
    ...                      "metric": ["score", "latency_s", "latency_s"],
    ...                      "value": [1.0, 2.0, 4.0]})
    >>> usage_table(rows)[["metric", "unit", "systems", "mean"]].values.tolist()
    [['latency_s', 'seconds', 2, 3.0]]
    """
    import pandas as pd

    used = frame[frame["metric"].isin(USAGE_METRICS)]
    cols = ["benchmark", "metric", "measures", "unit", "systems", "examples", "mean"]
    if used.empty:
        return pd.DataFrame(columns=cols)
    out = (used.groupby(["benchmark", "metric"], sort=False)
           .agg(systems=("system", "nunique"), examples=("example_id", "nunique"),
                mean=("value", "mean")).reset_index())
    out["measures"] = [USAGE_MEANINGS[str(m)][0] for m in out["metric"]]
    out["unit"] = [USAGE_MEANINGS[str(m)][1] for m in out["metric"]]
    return out[cols]


def usage_line(frame: pd.DataFrame) -> str:
    """One sentence naming the usage metrics an import stores (empty when none).

    >>> import pandas as pd
    >>> rows = pd.DataFrame({"benchmark": "b", "system": "m", "example_id": ["e1", "e2"],
    ...                      "metric": ["score", "latency_s"], "value": [1.0, 2.0]})
    >>> usage_line(rows)
    'usage stored as metrics where lower is better: latency_s (seconds, 1 example)'
    """
    table = usage_table(frame)
    if table.empty:
        return ""
    per = table.groupby("metric", sort=False).agg(unit=("unit", "first"),
                                                 examples=("examples", "sum"))
    said = [f"{m} ({u}, {n} example{'s' if n != 1 else ''})"
            for m, u, n in per[["unit", "examples"]].itertuples()]
    return "usage stored as metrics where lower is better: " + ", ".join(said)


def usage_columns(frame: pd.DataFrame, label: str = "the table"
                  ) -> tuple[pd.DataFrame, dict[tuple[str, str], MetricSpec]]:
    """A long results table's numeric columns named as usage metrics (:data:`USAGE_METRICS`)
    as rows of those metrics, lower is better; the table unchanged when it has none.

    Each column holds one value per (benchmark, system, example_id, run): the rows of one
    example's several metrics repeat it. A value differing between those rows, or a metric
    of that name already in the table, is refused (:class:`~engine.DataContractError`
    naming the column and the fix); an empty cell records nothing.

    >>> import pandas as pd
    >>> t = pd.DataFrame({"benchmark": "b", "system": "m", "example_id": ["e1", "e2"],
    ...                   "metric": "acc", "value": [1.0, 0.0], "cost": [0.5, None]})
    >>> out, specs = usage_columns(t)
    >>> out[["example_id", "metric", "value"]].values.tolist()
    [['e1', 'acc', 1.0], ['e2', 'acc', 0.0], ['e1', 'cost', 0.5]]
    >>> specs[("b", "cost")].higher_is_better
    False
    """
    import numpy as np
    import pandas as pd

    from .._contract import DataContractError, MetricSpec, Problem

    cols = [c for c in frame.columns if c in USAGE_METRICS
            and pd.api.types.is_numeric_dtype(frame[c]) and not pd.api.types.is_bool_dtype(frame[c])]
    if not cols:
        return frame, {}
    keys = [k for k in ("benchmark", "system", "example_id", "run") if k in frame.columns]
    problems = []
    for c in cols:
        if c in set(frame["metric"].astype(str)):
            problems.append(Problem(label, column=c, rule=f"the table has both a {c} column and "
                                    f"rows of metric {c}", fix="keep one: rename the column or "
                                    "the metric"))
            continue
        spread = frame.groupby(keys, sort=False)[c].nunique()
        if (spread > 1).any():
            where = spread[spread > 1].index[0]
            problems.append(Problem(label, column=c, rule=f"{c} differs between the rows of one "
                                    f"example and try ({', '.join(map(str, np.atleast_1d(where)))})",
                                    fix=f"give each example and try one {c} value"))
    if problems:
        raise DataContractError(problems)
    base = frame.drop_duplicates(keys)
    added = []
    for c in cols:
        rows = base[np.isfinite(base[c].to_numpy(float))]
        added.append(rows.assign(metric=c, value=rows[c].astype(float)))
    out = pd.concat([frame, *added], ignore_index=True).drop(columns=cols)
    out.attrs = dict(frame.attrs)
    found = pd.concat(added)[["benchmark", "metric"]].drop_duplicates()
    specs = {(str(b), str(m)): MetricSpec(higher_is_better=False, binary=False)
             for b, m in found.itertuples(index=False)}
    return out, specs
