"""Declared links from a judge metric to its human metric (prediction-powered inference).

A link says: on this benchmark, metric ``judge`` is an LLM judge's score and ``human`` holds
human labels of the same (system, example) on a random subset. Analyses of the judge metric
then use PPI++ (:func:`engine.judge_board`). The table lives in its own metadata and is
created on first write, so stores made before it keep working.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sqlalchemy import Column, MetaData, Table, Text, delete, insert, inspect, select

if TYPE_CHECKING:
    from ._store import ResultsStore

__all__ = ["judge_links", "link_judge"]

_meta = MetaData()
JUDGE_LINKS = Table(
    "judge_links", _meta,
    Column("benchmark", Text, primary_key=True),
    Column("judge_metric", Text, primary_key=True),
    Column("human_metric", Text, nullable=False),
)


def link_judge(store: ResultsStore, benchmark: str, judge: str, human: str) -> None:
    """Declare ``human`` the human metric of the judge metric ``judge`` on ``benchmark``
    (replacing an earlier link). Both metrics must be in the store."""
    if judge == human:
        raise ValueError(f"human: must differ from the judge metric; got {human!r}")
    known = set(store.metric_definitions()[["benchmark", "metric"]]
                .astype(str).itertuples(index=False, name=None))
    for name, metric in (("judge", judge), ("human", human)):
        if (benchmark, metric) not in known:
            raise ValueError(f"{name}: no metric {metric!r} on benchmark {benchmark!r} in the "
                             "store; upload it first")
    with store._write() as conn:
        JUDGE_LINKS.create(conn, checkfirst=True)
        c = JUDGE_LINKS.c
        conn.execute(delete(JUDGE_LINKS).where(c.benchmark == benchmark, c.judge_metric == judge))
        conn.execute(insert(JUDGE_LINKS).values(benchmark=benchmark, judge_metric=judge,
                                                human_metric=human))


def judge_links(store: ResultsStore) -> dict[tuple[str, str], str]:
    """Every declared link: (benchmark, judge metric) → human metric."""
    with store._read() as conn:
        if not inspect(conn).has_table("judge_links"):
            return {}
        rows = conn.execute(select(JUDGE_LINKS)).all()
    return {(str(b), str(j)): str(h) for b, j, h in rows}

