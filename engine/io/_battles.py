"""Battle lists as input: one row per pairwise judgement, as arenas and pairwise judges write.

A battle list has ``model_a``, ``model_b`` and ``winner`` (``model_a``, ``model_b``,
``tie``, ``both_bad``; LMArena's ``tie (bothbad)`` is read as ``both_bad``), and may
have ``judge``, ``category``, ``weight`` (a non-negative number; default 1) and
``human_winner`` (a human verdict in the same words on a random subset, empty elsewhere:
a judged battle list, :mod:`engine.io._battles_judged`). It is
the input of LMArena's published leaderboard computation (FastChat
``fastchat/serve/monitor/rating_systems.py``, LMArena's ``arena-rank``), of MT-Bench's
human judgments and of pairwise LLM-judge outputs. The file goes through the same
size, format and depth checks as a results file (:func:`engine.io._formats.frame_from_bytes`).
"""

from __future__ import annotations

from pathlib import Path
from typing import IO

import numpy as np
import pandas as pd

from .._contract import DataContractError, Problem
from ._bytes import read_bytes, source_name
from ._formats import frame_from_bytes
from ._limits import Limits

__all__ = ["BATTLE_COLUMNS", "WINNERS", "is_battle_table", "read_battles", "validate_battles"]

BATTLE_COLUMNS = ("model_a", "model_b", "winner")
#: Outcome of a battle for model_a: 1 won, 0 lost, ½ tie (both good or both bad).
WINNERS = {"model_a": 1.0, "model_b": 0.0, "tie": 0.5, "both_bad": 0.5}
_ALIASES = {"tie (bothbad)": "both_bad", "bothbad": "both_bad", "both bad": "both_bad"}


def is_battle_table(frame: pd.DataFrame) -> bool:
    """True when ``frame`` has the battle-list columns (and no ``value`` column)."""
    names = {str(c).strip().lower() for c in frame.columns}
    return set(BATTLE_COLUMNS) <= names and "value" not in names


def read_battles(source: str | Path | IO[bytes] | pd.DataFrame, *, name: str | None = None,
                 fmt: str | None = None, limits: Limits | None = None) -> pd.DataFrame:
    """Read and validate a battle list (CSV/TSV, JSON Lines/JSON or Parquet, or a frame).

    Returns
    -------
    DataFrame
        ``model_a``, ``model_b`` (str), ``winner`` (one of :data:`WINNERS`), ``weight``
        (float, 1 when absent), and ``judge``/``category``/``human_winner`` (str; "" where
        a battle has no human verdict) when present, in the
        file's order (the order sequential Elo replays).

    Raises
    ------
    DataContractError
        Naming the file, the column, the rows, the rule and the fix; nothing is returned.
    """
    if isinstance(source, pd.DataFrame):
        return validate_battles(source, label=name or "<battles>")
    label = source_name(source, name)
    frame = frame_from_bytes(read_bytes(source, name=name), label, fmt, limits=limits)
    return validate_battles(frame, label=label)


def _text(column: pd.Series) -> pd.api.extensions.ExtensionArray | np.ndarray:
    """``column`` as the str column the output holds, without its index (the output's is
    0..n-1) and without a trip through a million Python strings: Arrow-backed text stays
    Arrow (pandas turns an object array of str back into Arrow text on assignment)."""
    return column.astype(str).array


def _rows(mask: np.ndarray | pd.Series) -> tuple[int, ...]:
    return tuple(int(i) + 1 for i in np.flatnonzero(np.asarray(mask)))


def _distinct_verdicts(column: pd.Series) -> tuple[np.ndarray, pd.Series]:
    """Each row's code (-1 where missing) and each distinct value of a winner column as
    :data:`WINNERS` spells it (stripped, lower case, aliases read).

    A verdict column has a handful of words over up to millions of rows: each is
    normalised once (stripping, lower-casing and reading aliases row by row cost four
    passes over the text). Values that factorize as one (1 and 1.0 in an object column)
    are no verdict in any spelling, so sharing one normalised form changes no valid row."""
    codes, distinct = pd.factorize(column)
    words = pd.Series(distinct, dtype=object).astype("string").str.strip().str.lower() \
        .replace(_ALIASES)
    return codes, words


def _verdicts(column: pd.Series) -> pd.Series:
    """A winner column's words as :data:`WINNERS` spells them, missing values kept."""
    codes, words = _distinct_verdicts(column)
    return pd.Series(words.array.take(codes, allow_fill=True), index=column.index)


def _human(column: pd.Series, label: str, problems: list[Problem]) -> np.ndarray:
    """The human verdicts ("" where none), each one of :data:`WINNERS`."""
    text = _verdicts(column).fillna("")
    bad = ~(text.isin(list(WINNERS)) | (text == "")).to_numpy(dtype=bool)
    if bad.any():
        shown = ", ".join(repr(v) for v in pd.unique(column[bad])[:5])
        problems.append(Problem(label, rule=f"a human verdict must be one of "
                                f"{', '.join(WINNERS)} or empty; got {shown}",
                                column="human_winner", rows=_rows(bad),
                                fix="write the human verdict on the labelled battles and leave "
                                    "the others empty"))
    return text.astype(str).to_numpy()


def validate_battles(frame: pd.DataFrame, *, label: str = "<battles>") -> pd.DataFrame:
    """The checked, canonical battle table of ``frame`` (see :func:`read_battles`)."""
    df = frame.rename(columns={c: str(c).strip().lower() for c in frame.columns})
    missing = [c for c in BATTLE_COLUMNS if c not in df.columns]
    if missing:
        raise DataContractError([Problem(
            label, rule=f"a battle list needs the columns {', '.join(BATTLE_COLUMNS)}; missing "
            f"{', '.join(missing)} (found: {', '.join(map(str, frame.columns[:12]))})",
            fix="name the columns model_a, model_b, winner (optional judge, category, weight)")])
    problems: list[Problem] = []
    out = pd.DataFrame(index=range(len(df)))
    for col in ("model_a", "model_b"):
        names = df[col].astype("string").str.strip()
        empty = names.isna() | (names == "")
        if empty.any():
            problems.append(Problem(label, rule="a model name is missing", column=col,
                                    rows=_rows(empty), fix="name both models of every battle"))
        out[col] = _text(names.fillna(""))
    same = (out["model_a"] == out["model_b"]) & (out["model_a"] != "")
    if same.any():
        problems.append(Problem(label, rule="a model battles itself", column="model_b",
                                rows=_rows(same), fix="drop self-battles or fix the names"))
    codes, words = _distinct_verdicts(df["winner"])
    # the last slot stands for a missing verdict (code -1): not valid, written ""
    valid = np.append(words.isin(list(WINNERS)).fillna(False).to_numpy(dtype=bool), False)
    bad = ~valid[codes]
    if bad.any():
        shown = ", ".join(repr(v) for v in pd.unique(df["winner"][bad])[:5])
        problems.append(Problem(label, rule=f"winner must be one of {', '.join(WINNERS)} "
                                f"(or 'tie (bothbad)'); got {shown}", column="winner",
                                rows=_rows(bad), fix="write who won: model_a, model_b, tie or "
                                "both_bad"))
    spelled = pd.Series([*words.fillna("").astype(str), ""], dtype=str).array
    out["winner"] = spelled.take(np.where(codes < 0, len(words), codes))
    weight = pd.to_numeric(df["weight"], errors="coerce") if "weight" in df.columns else \
        pd.Series(1.0, index=df.index)
    bad_w = ~(np.isfinite(weight.to_numpy(dtype=float)) & (weight.to_numpy(dtype=float) >= 0))
    if bad_w.any():
        problems.append(Problem(label, rule="weight must be a finite number ≥ 0",
                                column="weight", rows=_rows(bad_w),
                                fix="give each battle a weight ≥ 0, or drop the column"))
    out["weight"] = weight.to_numpy(dtype=float)
    for col in ("judge", "category"):
        if col in df.columns:
            out[col] = _text(df[col].astype("string").fillna(""))
    if "human_winner" in df.columns:
        out["human_winner"] = _human(df["human_winner"], label, problems)
    if problems:
        raise DataContractError(problems)
    if not len(out):
        raise DataContractError([Problem(label, rule="the battle list has no rows",
                                         fix="add at least one battle")])
    return out
