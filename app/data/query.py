"""The one question a page asks of one benchmark: the single key of its results and figures.

A page builds one :class:`Query` from its URL and passes it, never its parts, to the data
layer and to its components; the table and every chart then come from the same cached
result. Before, the charts were keyed by (token, benchmark, metric, options) while the table
also took the cluster column, and a clustered page drew the unclustered board under the
clustered table.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from engine import TestOptions


@dataclass(frozen=True)
class Query:
    """Everything that shapes one answer on one benchmark.

    ``token``: the data key (the store's token, or a slice's key from
    :mod:`app.data.slices`: the slice is part of the data); ``options``: the tests, the
    correction and alpha; ``cluster``: the example attribute whose clusters are the unit
    of the tests and intervals ("" none). Frozen and made of hashable parts:
    ``st.cache_resource`` hashes a dataclass field by field (nested ones too), so two
    queries share an entry exactly when every part is equal.

    Examples
    --------
    >>> q = Query("t", "qa", "score", cluster="passage")
    >>> q.with_metric("f1") == Query("t", "qa", "f1", cluster="passage")
    True
    """

    token: str
    benchmark: str
    metric: str
    options: TestOptions = field(default_factory=TestOptions)
    cluster: str = ""

    def with_metric(self, metric: str) -> Query:
        """The same question on another metric of the benchmark."""
        return replace(self, metric=metric)
