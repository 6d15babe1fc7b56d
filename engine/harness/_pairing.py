"""Pairing safety: an example id that holds other content for some systems is not paired.

Systems are paired on the example ids they share. When a harness writes a content hash
per example (lm-eval ``doc_hash``; sigboard's ``content_hash`` of prompt and reference for
Inspect, HELM and lighteval, :mod:`engine.harness._texts`), two systems whose hashes for
one id disagree did not see the same example (another dataset version, another split, a
shuffled legacy log). Within one benchmark of one upload the hash most systems hold keeps
the id (ties: the first system in order); the rows of the other systems move to
``<id>#<first 8 hex digits of their hash>``, so no test pairs them, and the upload report
says how many examples differ, where and for whom (docs/formats.md, "Pairing safety").
The store does the same across uploads (:mod:`engine.store._hashes`), and
:func:`unpaired_note` tells a leaderboard how many of its example ids were kept apart.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

import pandas as pd

__all__ = ["HASH_COLUMNS", "split_conflicts", "unpaired_note"]

#: Columns that identify an example's content, in the order they are trusted.
HASH_COLUMNS: tuple[str, ...] = ("doc_hash", "content_hash")
#: an id kept apart: ``<id>#<first 8 hex digits of its content hash>``
_KEPT_APART = re.compile(r"^(?P<id>.+)#[0-9a-f]{8}$")


def split_conflicts(df: pd.DataFrame) -> tuple[pd.DataFrame, list[str]]:
    """``df`` with conflicting example ids split per content hash, and one sentence per
    benchmark that had any (empty when none did).

    Examples
    --------
    >>> df = pd.DataFrame({"benchmark": "b", "system": ["A", "B", "C"], "example_id": "1",
    ...                    "metric": "m", "value": 1.0, "doc_hash": ["aa", "aa", "ff0123456789"]})
    >>> out, said = split_conflicts(df)
    >>> out["example_id"].tolist()
    ['1', '1', '1#ff012345']
    >>> said[0]
    'b: 1 example id holds other content (doc_hash) for some systems and is not paired for them: 1 (C)'
    """
    column = next((c for c in HASH_COLUMNS if c in df.columns), None)
    if column is None or df.empty:
        return df, []
    held = df.loc[df[column].notna(), ["benchmark", "example_id", "system", column]]
    per = held.drop_duplicates(["benchmark", "example_id", "system"])
    kinds = per.groupby(["benchmark", "example_id"], sort=False)[column].nunique()
    clash = kinds[kinds > 1]
    if clash.empty:
        return df, []
    keys = ["benchmark", "example_id"]
    per = per.merge(clash.rename("kinds").reset_index()[keys], on=keys)  # clashing ids only
    per["count"] = per.groupby([*keys, column], sort=False)[column].transform("size")
    keep = (per.sort_values("count", ascending=False, kind="stable")
            .drop_duplicates(keys)[[*keys, column]].rename(columns={column: "_keep"}))
    per = per.merge(keep, on=keys)
    moved = per[per[column] != per["_keep"]].assign(
        _new=lambda t: t["example_id"].astype(str) + "#" + t[column].astype(str).str[:8])
    index = pd.MultiIndex.from_frame(moved[["benchmark", "example_id", "system"]])
    new_id = pd.Series(moved["_new"].to_numpy(), index=index)
    rows = pd.MultiIndex.from_frame(df[["benchmark", "example_id", "system"]])
    found = new_id.reindex(rows).to_numpy()
    out = df.assign(example_id=pd.Series(found, index=df.index).fillna(df["example_id"]))
    said = []
    for bench, group in moved.groupby("benchmark", sort=False):
        by_id = group.groupby("example_id", sort=False)["system"].agg(list)
        shown = ", ".join(f"{e} ({', '.join(map(str, s))})" for e, s in by_id.head(5).items())
        more = f" and {len(by_id) - 5} more" if len(by_id) > 5 else ""
        n = len(by_id)
        said.append(f"{bench}: {n} example id{'s' if n != 1 else ''} hold{'s' if n == 1 else ''} "
                    f"other content ({column}) for some systems and {'is' if n == 1 else 'are'} "
                    f"not paired for them: {shown}{more}")
    return out, said


def unpaired_note(examples: Iterable[object]) -> list[str]:
    """One sentence when some example ids were kept apart because the systems' content for
    them differs (``<id>#<hash>`` beside ``<id>``), else none: for a leaderboard's notes.

    Examples
    --------
    >>> note, = unpaired_note(["1", "2", "2#ff012345", "3#00aa11bb"])
    >>> note.split(" (their")[0]
    '1 example (2) holds other content for some systems'
    >>> unpaired_note(["1", "2"])
    []
    """
    ids = {str(e) for e in examples}
    marked = [e for e in ids if "#" in e]  # a substring test first: 100,000 ids in ~5 ms
    bases = sorted({m["id"] for e in marked if (m := _KEPT_APART.match(e)) and m["id"] in ids})
    if not bases:
        return []
    n = len(bases)
    shown = ", ".join(bases[:5]) + (f" and {n - 5} more" if n > 5 else "")
    return [f"{n} example{'s' if n != 1 else ''} ({shown}) hold{'s' if n == 1 else ''} other "
            "content for some systems (their content hashes differ: another dataset version or "
            f"split): those systems' scores on {'it' if n == 1 else 'them'} are kept apart as "
            "<id>#<hash> and not paired with the others"]
