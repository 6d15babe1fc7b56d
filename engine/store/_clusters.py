"""Each benchmark's declared cluster column: the example attribute whose
examples may fail together (passage, task family), declared on upload or ``import --cluster``.

A table of its own, ``benchmark_clusters``, created on the first declaration (a store
without one reads as before, with no schema version change, as ``system_aliases``); one row
per benchmark, the latest declaration kept. The pages use it as the default of "Group
examples by"; nothing else changes how the rows are stored.
"""

from __future__ import annotations

from sqlalchemy import Column, Connection, MetaData, String, Table, Text, inspect, select

__all__ = ["CLUSTERS", "declared_cluster", "set_declared_cluster"]

_META = MetaData()
CLUSTERS = Table(
    "benchmark_clusters", _META,
    Column("benchmark", Text, primary_key=True),
    Column("cluster", Text, nullable=False),  # "" = declared: no clusters
    Column("set_at", String(40), nullable=False),
    Column("set_by", String(200), nullable=False, default=""),
)


def declared_cluster(conn: Connection, benchmark: str) -> str | None:
    """The cluster column declared for ``benchmark`` (None: none declared)."""
    if not inspect(conn).has_table(CLUSTERS.name):
        return None
    value = conn.execute(select(CLUSTERS.c.cluster)
                         .where(CLUSTERS.c.benchmark == benchmark)).scalar()
    return str(value) if value else None


def set_declared_cluster(conn: Connection, benchmark: str, column: str, known: list[str], *,
                         at: str, by: str) -> None:
    """Declare ``column`` (one of the benchmark's example attributes ``known``) its cluster
    column; an empty ``column`` removes the declaration."""
    column = str(column).strip()
    if column and column not in known:
        raise ValueError(f"cluster: {column!r} is not an example attribute of benchmark "
                         f"{benchmark!r}; its example attributes: {known!r}. Give a column "
                         "that holds one value per example (e.g. passage, task family)")
    CLUSTERS.create(conn, checkfirst=True)
    conn.execute(CLUSTERS.delete().where(CLUSTERS.c.benchmark == benchmark))
    conn.execute(CLUSTERS.insert().values(benchmark=benchmark, cluster=column, set_at=at,
                                          set_by=by))
