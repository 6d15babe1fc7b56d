"""Slices of a benchmark: the data key that names one, and the slices a benchmark offers.

The data key of a slice is the token with the slice appended (:func:`sliced`). Every
cached result of ``app/data`` takes a data key where it takes a token, and
:func:`app.data.results.matrix` builds the matrix of that slice's examples only, so each
result computed from a matrix is keyed on the slice. The components that receive the key
from a page draw the slice without knowing of it; the Leaderboard and Pairwise pages
therefore agree on a slice's numbers, and with the Slices page, which cuts the same frame
the same way (:func:`numbers_typed` of :func:`app.data.store.example_frame`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import pandas as pd
import streamlit as st

from app.data import store
from engine.app_support import slice_labels

_SLICE_MARK = "|slice="
#: A per-example column with more slices than this (e.g. a prompt text) is not offered.
MAX_SLICES = 30


def sliced(token: str, column: str, value: str, bins: int) -> str:
    """The data key of one slice (the whole benchmark's when ``value`` is empty): pass it to
    every cached function instead of the token, and each result is that of the slice's
    examples. ``token`` may itself be a data key (its slice is replaced)."""
    if not column or not value:
        return split_key(token)[0]
    return f"{split_key(token)[0]}{_SLICE_MARK}{json.dumps([column, value, bins])}"


def split_key(key: str) -> tuple[str, tuple[str, str, int] | None]:
    """The token and the slice (column, value, bins) of a data key made by :func:`sliced`."""
    token, mark, part = key.partition(_SLICE_MARK)
    if not mark:
        return key, None
    column, value, bins = json.loads(part)
    return token, (str(column), str(value), int(bins))


def numbers_typed(frame: pd.DataFrame) -> pd.DataFrame:
    """:func:`app.data.store.example_frame` with the attributes stored as JSON numbers numeric
    again, so a numeric attribute is cut into quantile bins (as :func:`engine.slice_labels`
    does for numbers). Only the attribute columns are new (pandas copies lazily)."""
    extra = [c for c in frame.columns if c not in store.CANONICAL]
    return frame.assign(**{c: frame[c].infer_objects() for c in extra}) if extra else frame


@dataclass(frozen=True)
class SliceChoices:
    """The per-example columns a benchmark can be split by, and why others cannot.

    ``counts``: column → examples per slice (a Series indexed by slice name, in name
    order); ``skipped``: column → a plain reason (one value only, too many values);
    ``numeric``: the columns holding numbers (cut into quantile bins when they have many
    values).
    """

    counts: dict[str, pd.Series]
    skipped: dict[str, str]
    numeric: frozenset[str] = frozenset()

    @property
    def names(self) -> dict[str, tuple[str, ...]]:
        """Column → its slice names (what ``sval`` may be)."""
        return {c: tuple(map(str, n.index)) for c, n in self.counts.items()}


@st.cache_resource(show_spinner=False, max_entries=64)
def slice_choices(token: str, benchmark: str, bins: int) -> SliceChoices:
    """Each per-example column of ``benchmark`` with its slices (numeric ones in ``bins``
    quantile bins); columns with one value or more than :data:`MAX_SLICES` are skipped."""
    meta = store.example_metadata(token, benchmark)
    columns = [c for c in meta.columns if c != "example_id"]
    counts: dict[str, pd.Series] = {}
    skipped: dict[str, str] = {}
    if not columns:
        return SliceChoices(counts, skipped)
    frame = numbers_typed(store.example_frame(token, benchmark))
    for column in columns:
        try:
            labels = slice_labels(frame, benchmark=benchmark, column=column, bins=bins)
        except ValueError:  # e.g. one value for every example: system-wide, not a split
            skipped[column] = "has the same value for every example"
            continue
        n = labels.value_counts().sort_index()
        if len(n) < 2:
            skipped[column] = "has the same value for every example"
        elif len(n) > MAX_SLICES:
            skipped[column] = f"has {len(n):,} different values (at most {MAX_SLICES} are compared)"
        else:
            counts[column] = n
    numeric = frozenset(c for c in counts if pd.api.types.is_numeric_dtype(frame[c]))
    return SliceChoices(counts, skipped, numeric)
