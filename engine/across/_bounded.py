"""The systems a page ranks when the store holds more than it can test pair by pair.

All-pairs tests grow with the square of the systems: 2,500 systems are 3.1 million pairs
per benchmark, and the Overall page over such a store did not fit a 3 GiB server.
:func:`leading_systems` picks the ``most`` systems a page ranks: those that did
best on the benchmarks they ran, each benchmark counted by where a system's mean on its
first metric falls among that benchmark's systems (a percentile rank, oriented by the
metric's direction), averaged over every benchmark of the table (a benchmark not run
counts as the bottom). The choice is a screen, not a test: the page says it ranks only
these systems.
"""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from .._contract import MetricSpec

__all__ = ["leading_systems"]


def leading_systems(df: pd.DataFrame, most: int,
                    specs: Mapping[tuple[str, str], MetricSpec] | None = None,
                    ) -> tuple[str, ...] | None:
    """The ``most`` leading systems of a long table, best first; None when it holds no more.

    Parameters
    ----------
    df : DataFrame
        Canonical long table (``benchmark, system, example_id, metric, value``).
    most : int
        How many systems to keep (at least 1).
    specs : mapping (benchmark, metric) → MetricSpec, optional
        Directions of the metrics (higher is better when absent).

    Examples
    --------
    >>> df = pd.DataFrame({"benchmark": ["b"] * 3 + ["c"] * 2, "system": list("xyzxy"),
    ...                    "example_id": "e", "metric": "m", "value": [0.2, 0.9, 0.5, 1, 0]})
    >>> leading_systems(df, 2), leading_systems(df, 3)
    (('y', 'x'), None)
    """
    if most < 1:
        raise ValueError(f"most: must be at least 1; got {most}")
    systems = pd.unique(df["system"].astype(str))
    if len(systems) <= most:
        return None
    firsts = df.drop_duplicates("benchmark")[["benchmark", "metric"]]
    first = df.merge(firsts, on=["benchmark", "metric"])
    means = first.groupby(["benchmark", "system"], observed=True, sort=False)["value"].mean()
    higher = {str(b): (specs or {}).get((str(b), str(m)), MetricSpec()).higher_is_better
              for b, m in firsts.itertuples(index=False)}
    table = means.unstack("system")
    signs = pd.Series([1.0 if higher[str(b)] else -1.0 for b in table.index], index=table.index)
    placed = table.mul(signs, axis=0).rank(axis=1, pct=True)
    score = placed.fillna(0.0).mean(axis=0)  # a benchmark not run counts as the bottom
    order = pd.DataFrame({"score": score, "name": score.index.astype(str)})
    best = order.sort_values(["score", "name"], ascending=[False, True]).head(most)
    return tuple(best["name"])
