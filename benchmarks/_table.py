"""What the benchmark scripts share: timing a call and printing a fixed-width table.

``Table([("row", "<58"), ("sigboard s", ">11.4f")])`` prints its header with
:meth:`Table.header` and each row with :meth:`Table.row`; a column's spec is the
alignment and width of its header, plus the format of its values when it has one
(``">11.4f"``: header right-aligned in 11, values ``{:>11.4f}``).
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Sequence
from typing import Any

__all__ = ["Table", "best_of", "cpu_call"]


def cpu_call(fn: Callable[[], Any]) -> tuple[float, Any]:
    """CPU seconds of one call (``time.process_time``: the load of a shared machine
    bends wall time, not this) and its result."""
    start = time.process_time()
    out = fn()
    return time.process_time() - start, out


def best_of(fn: Callable[[], object], k: int = 3) -> float:
    """Shortest wall time of ``k`` calls."""
    times = []
    for _ in range(k):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


class Table:
    """Fixed-width columns: a header line, then one line per row."""

    def __init__(self, columns: Sequence[tuple[str, str]]) -> None:
        self.columns = list(columns)

    def header(self) -> None:
        print(" ".join(f"{name:{_width(spec)}}" for name, spec in self.columns))

    def row(self, *values: object) -> None:
        """One line; values beyond the given ones are left blank, a str is printed as is
        in its column's width."""
        cells = []
        for (_, spec), value in zip(self.columns, values, strict=False):
            cells.append(f"{value:{_width(spec)}}" if isinstance(value, str) else
                         f"{value:{spec}}")
        print(" ".join(cells))


def _width(spec: str) -> str:
    """The alignment and width of a column spec ("<58", ">11.4f" → ">11")."""
    match = re.match(r"[<>^]?\d*", spec)
    return match.group(0) if match else ""
