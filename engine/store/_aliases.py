"""System aliases: one model stored under several names (``gpt-4o``, ``GPT-4O-2024-05-13``)
read as one system.

An alias maps a stored system name to the name it is read as. The mapping is a table of
its own, ``system_aliases``, created on the first alias (a store without one reads as
before); every change is a row (set, or removed with ``removed_at``), so the table is its
own history. Reads apply the live mapping: :func:`apply_to_frame` renames the systems of
a long table and numbers the merged name's rows as further runs of the system (two names
that ran one example are two runs of it, never a key collision), :func:`apply_to_meta`
renames a system-metadata frame keeping one row per system.
"""

from __future__ import annotations

import pandas as pd
from sqlalchemy import Column, Connection, Integer, MetaData, String, Table, inspect, select

__all__ = ["ALIASES", "alias_history", "apply_to_frame", "apply_to_meta", "live_aliases",
           "remove_alias", "set_alias"]

_META = MetaData()
#: One row per change: an alias set (``removed_at`` empty while it holds) or removed.
ALIASES = Table(
    "system_aliases", _META,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("alias", String(512), nullable=False),
    Column("system", String(512), nullable=False),
    Column("created_at", String(40), nullable=False),
    Column("created_by", String(200), nullable=False, default=""),
    Column("removed_at", String(40), nullable=True),
    Column("removed_by", String(200), nullable=True),
)
_COLUMNS = ["alias", "system", "created_at", "created_by", "removed_at", "removed_by"]


def _exists(conn: Connection) -> bool:
    return bool(inspect(conn).has_table(ALIASES.name))


def live_aliases(conn: Connection) -> dict[str, str]:
    """alias -> the system name it is read as (empty without any alias)."""
    if not _exists(conn):
        return {}
    a = ALIASES.c
    rows = conn.execute(select(a.alias, a.system).where(a.removed_at.is_(None))
                        .order_by(a.id)).all()
    return {str(alias): str(system) for alias, system in rows}


def alias_history(conn: Connection) -> pd.DataFrame:
    """Every alias ever set, oldest first, with when and by whom it was set and removed."""
    if not _exists(conn):
        return pd.DataFrame(columns=_COLUMNS)
    a = ALIASES.c
    rows = conn.execute(select(*[a[c] for c in _COLUMNS]).order_by(a.id)).all()
    return pd.DataFrame.from_records(rows, columns=_COLUMNS)


def set_alias(conn: Connection, alias: str, system: str, *, at: str, by: str) -> None:
    """Read ``alias`` as ``system`` from now on (replacing an earlier alias of that name)."""
    alias, system = str(alias).strip(), str(system).strip()
    if not alias or not system:
        raise ValueError(f"alias: needs a name and the system it stands for; got {alias!r} -> "
                         f"{system!r}")
    if alias == system:
        raise ValueError(f"alias: {alias!r} cannot stand for itself")
    ALIASES.create(conn, checkfirst=True)
    live = live_aliases(conn)
    if alias in live.values() or system in live:
        raise ValueError(f"alias: {alias!r} -> {system!r} would chain aliases ("
                         f"{system!r} is itself an alias, or {alias!r} has aliases); "
                         "point every name at the one system name")
    remove_alias(conn, alias, at=at, by=by, missing_ok=True)
    conn.execute(ALIASES.insert().values(alias=alias, system=system, created_at=at,
                                         created_by=by))


def remove_alias(conn: Connection, alias: str, *, at: str, by: str,
                 missing_ok: bool = False) -> None:
    """Stop reading ``alias`` as another name (kept in the history)."""
    if alias not in live_aliases(conn):
        if missing_ok:
            return
        raise ValueError(f"alias: {alias!r} is not an alias; aliases: "
                         f"{sorted(live_aliases(conn))!r}")
    a = ALIASES.c
    conn.execute(ALIASES.update().where(a.alias == alias, a.removed_at.is_(None))
                 .values(removed_at=at, removed_by=by))


def apply_to_frame(df: pd.DataFrame, aliases: dict[str, str]) -> pd.DataFrame:
    """The long table with each alias read as its system; an alias's rows become further
    runs of the system (after every run stored under any name), so no key collides."""
    if not aliases or df.empty or not df["system"].isin(list(aliases)).any():
        return df
    out = df.copy()
    names = out["system"].astype(str)
    renamed = names.isin(list(aliases))
    if "run" in out.columns:
        # the k-th name merged into a system: its runs shifted by k x (highest run + 1)
        order = {alias: 1 + sorted(a for a, s in aliases.items() if s == system).index(alias)
                 for alias, system in aliases.items()}
        step = int(out["run"].max()) + 1
        out.loc[renamed, "run"] = (out.loc[renamed, "run"]
                                   + names[renamed].map(order).astype("int64") * step)
    out["system"] = names.replace(aliases) if renamed.any() else names
    out.attrs = dict(df.attrs)
    return out


def apply_to_meta(meta: pd.DataFrame, aliases: dict[str, str]) -> pd.DataFrame:
    """A system-metadata frame with each alias read as its system (the system's own row
    first, so its values win)."""
    if not aliases or "system" not in meta.columns or meta.empty:
        return meta
    out = meta.copy()
    out["_alias"] = out["system"].astype(str).isin(list(aliases))
    out["system"] = out["system"].astype(str).replace(aliases)
    out = out.sort_values("_alias", kind="stable").drop_duplicates("system", keep="first")
    return out.drop(columns="_alias").reset_index(drop=True)
