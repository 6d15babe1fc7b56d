"""Downloads that are safe to open in a spreadsheet (OWASP CSV injection)."""

from __future__ import annotations

import re

import pandas as pd

#: A cell starting with one of these may be run as a formula by a spreadsheet.
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def neutralise(value: object) -> object:
    """Prefix a text cell that a spreadsheet would read as a formula with ``'``.

    Numbers are left alone (``-0.5`` is data, not a formula); only strings are
    touched.
    """
    if isinstance(value, str) and value.startswith(FORMULA_START):
        return "'" + value
    return value


def safe_csv(frame: pd.DataFrame) -> bytes:
    """``frame`` as UTF-8 CSV with every formula-like text cell (and header) neutralised."""
    safe = frame.copy()
    safe.columns = [neutralise(str(c)) for c in safe.columns]
    for column in safe.columns:
        if safe[column].dtype == object or pd.api.types.is_string_dtype(safe[column]):
            safe[column] = safe[column].map(neutralise)
    return safe.to_csv(index=False).encode("utf-8")


_UNSAFE_NAME = re.compile(r"[^A-Za-z0-9._-]+")


def file_name(*parts: str, suffix: str = ".csv") -> str:
    """A download's file name from stored names: letters, digits, ``.``, ``_``, ``-`` only
    (no path separators, quotes or control characters), at most 120 characters."""
    stem = "-".join(_UNSAFE_NAME.sub("_", p).strip("._-") for p in parts if p) or "download"
    return stem[:120] + suffix
