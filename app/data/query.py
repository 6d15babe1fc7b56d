"""The one question a page asks of one benchmark: the single key of its results and figures.

A page builds one :class:`Query` from its URL (:meth:`Query.of`) and passes it, never its
parts, to the data layer and to its components; the table and every chart then come from
the same cached result. Before, the charts were keyed by (token, benchmark, metric, options)
while the table also took the cluster column, and a clustered page drew the unclustered
board under the clustered table.

A result that reads only some parts of a query is cached under the query holding only those
(:meth:`Query.narrowed`): a change of what it does not read reuses it, and what it reads is
never dropped from its key.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from app.data import slices
from engine import TestOptions

#: Monte Carlo replications of the A/B compare page's power panel.
POWER_SIMULATIONS = 500
#: Bootstrap resamples of the Distributions page by default (its URL's ``boot``).
BOOTSTRAP_RESAMPLES = 1000


@dataclass(frozen=True)
class PowerPlan:
    """The inputs of one power simulation (:func:`engine.power`): the difference planned for
    (None: the smallest detectable one), the design (None: as observed), the simulation size
    and the power aimed at."""

    difference: float | None = None
    examples: int | None = None
    runs: int | None = None
    n_sim: int = POWER_SIMULATIONS
    target_power: float = 0.8


@dataclass(frozen=True)
class Query:
    """Everything that shapes one answer on one benchmark.

    ``token``: the data key (the store's token, or a slice's key from
    :mod:`app.data.slices`: the slice is part of the data, :attr:`slice`); ``options``: the
    tests, the correction and alpha; ``cluster``: the example attribute whose clusters are the
    unit of the tests and intervals ("" none). The other parts are each one page's:
    ``pair`` the two systems compared (A/B compare: baseline, candidate); ``example`` the
    example drilled into; ``split`` the Slices page's (column, bins); ``factor`` and
    ``hold`` the Conditions page's setting and the settings held fixed (None: the
    default); ``plan`` the power simulation's inputs; ``human`` the human metric a judge
    metric is corrected with ("" the declared one); ``champion`` the Watch page's
    champion; ``more_orders`` the Mechanisms page's "more battle orders"; ``resamples`` the
    Distributions page's bootstrap resamples; ``label_width`` the PPI++ interval width the
    label budget plans for (None: the engine's default); ``k`` the tries of pass@k and pass^k
    of the Leaderboard's reliability view (0: its default, :mod:`app.data.reliability`).

    Frozen and made of hashable parts: ``st.cache_resource`` hashes a dataclass field by
    field (nested ones too), so two queries share an entry exactly when every part is equal.

    Examples
    --------
    >>> q = Query("t", "qa", "score", cluster="passage")
    >>> q.with_metric("f1") == Query("t", "qa", "f1", cluster="passage")
    True
    >>> q.narrowed(cluster=q.cluster) == Query("t", "qa", "score", cluster="passage")
    True
    """

    token: str
    benchmark: str
    metric: str
    options: TestOptions = field(default_factory=TestOptions)
    cluster: str = ""
    pair: tuple[str, str] | None = None
    example: str = ""
    split: tuple[str, int] | None = None
    factor: str = ""
    hold: tuple[str, ...] | None = None
    plan: PowerPlan | None = None
    human: str = ""
    champion: str = ""
    more_orders: bool = False
    resamples: int = BOOTSTRAP_RESAMPLES
    label_width: float | None = None
    k: int = 0

    @classmethod
    def of(cls, view: Any, token: str, **chosen: Any) -> Query:
        """The query of a page's URL ``view`` (its benchmark, metric and test options) on the
        data key ``token``, with the page's own parts in ``chosen`` (e.g. the resolved
        ``cluster``, the ``pair`` compared)."""
        return cls(token, view.benchmark, view.metric, view.test_options(), **chosen)

    @property
    def store_token(self) -> str:
        """The store's token without the slice (what the store's own readers take)."""
        return slices.split_key(self.token)[0]

    @property
    def slice(self) -> tuple[str, str, int] | None:
        """The slice (column, value, bins) the data key holds, None for all examples."""
        return slices.split_key(self.token)[1]

    def with_metric(self, metric: str) -> Query:
        """The same question on another metric of the benchmark."""
        return replace(self, metric=metric)

    def narrowed(self, **kept: Any) -> Query:
        """The query of the same data (token, benchmark, metric) holding only ``kept``
        (every other part at its default): the cache key of a result that reads only
        those parts."""
        return Query(self.token, self.benchmark, self.metric, **kept)


@dataclass(frozen=True)
class ArenaQuery:
    """What shapes the answer on one stored battle list: the store's token and the arena.
    Its leaderboard, its win-rate matrix and its judge-corrected board are answers of this one
    query (:mod:`app.data.battles`)."""

    token: str
    arena: str


@dataclass(frozen=True)
class AcrossQuery:
    """Everything that shapes the Overall page's answer across benchmarks.

    ``token``: the store's token; ``benchmarks``: those combined; ``metrics``: the metrics
    used where measured (None: all of each benchmark); ``weights``: (benchmark, weight)
    pairs (empty: equal); ``options``: the tests (all pairs, two-sided on that page);
    ``clusters``: (benchmark, cluster column) of the benchmarks grouped by the column
    declared on upload. The ranking, every benchmark's pairs and the judge tables of the
    page are answers of this one query (:func:`app.data.overall.overall_result`,
    :func:`app.data.overall.benchmark_pairs`, :meth:`benchmark_query`).
    """

    token: str
    benchmarks: tuple[str, ...]
    metrics: tuple[str, ...] | None = None
    weights: tuple[tuple[str, float], ...] = ()
    options: TestOptions = field(default_factory=TestOptions)
    clusters: tuple[tuple[str, str], ...] = ()

    def cluster_of(self, benchmark: str) -> str:
        """The cluster column ``benchmark`` is grouped by here ("" none)."""
        return dict(self.clusters).get(benchmark, "")

    def benchmark_query(self, benchmark: str, metric: str) -> Query:
        """The one-benchmark query of ``benchmark``'s share on its one ``metric``: its
        options and cluster column as this page tests it."""
        return Query(self.token, benchmark, metric, self.options,
                     cluster=self.cluster_of(benchmark))
