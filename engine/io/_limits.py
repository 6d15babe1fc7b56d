"""Limits on one upload, and the cheap scans that enforce them before any parser runs.

A hostile or merely huge file must be turned away while it is still a byte string:
the size after decompression, the number of lines, and (for JSON) how deeply the
brackets nest are all measured on the bytes; systems, metrics and benchmarks are
counted on the key columns right after parsing, before anything pivots them.
The engine reads no environment variable: the app and the CLI build their
:class:`Limits` with :meth:`Limits.from_mapping` from theirs.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, fields

import numpy as np
import pandas as pd

from .._contract import DataContractError, Problem

__all__ = ["ENV_NAMES", "InflateRoom", "Limits", "active_limits", "check_produced", "count_lines",
           "limit_error", "limits_in_force", "nesting_depth", "reading", "set_parse_room",
           "when_reading"]

#: Field of :class:`Limits` → the environment variable the app and the CLI read it from.
ENV_NAMES: dict[str, str] = {
    "max_bytes": "SIGBOARD_MAX_BYTES",
    "max_rows": "SIGBOARD_MAX_ROWS",
    "max_systems": "SIGBOARD_MAX_SYSTEMS",
    "max_metrics": "SIGBOARD_MAX_METRICS",
    "max_benchmarks": "SIGBOARD_MAX_BENCHMARKS",
    "max_depth": "SIGBOARD_MAX_DEPTH",
    "max_text_bytes": "SIGBOARD_MAX_TEXT_BYTES",
    "max_members": "SIGBOARD_MAX_MEMBERS",
    "max_parse_memory": "SIGBOARD_MAX_PARSE_MEMORY",
    "parse_timeout": "SIGBOARD_PARSE_TIMEOUT",
}
_UNITS = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30}
_SIZE = re.compile(r"^\s*(\d[\d_]*)\s*([kmg]?)(i?b)?\s*$", re.I)


@dataclass(frozen=True, kw_only=True)
class Limits:
    """What one upload may hold; every check runs before the expensive step it protects.

    Parameters
    ----------
    max_bytes : int
        Bytes after decompression (``SIGBOARD_MAX_BYTES``; default 512 MiB). Checked
        chunk by chunk while inflating every gzip member, so a bomb stops at the limit.
    max_rows : int
        Data rows (``SIGBOARD_MAX_ROWS``; default 5,000,000). Counted as lines on the
        bytes for CSV/TSV/JSONL (while inflating, too), from the metadata for Parquet.
    max_systems, max_metrics, max_benchmarks : int
        Distinct values of ``system``, ``metric`` and ``benchmark``
        (``SIGBOARD_MAX_SYSTEMS`` 2,000, ``SIGBOARD_MAX_METRICS`` 200,
        ``SIGBOARD_MAX_BENCHMARKS`` 500). In a wide file every numeric column that is
        not a key counts as a metric.
    max_depth : int
        How deeply JSON arrays/objects may nest (``SIGBOARD_MAX_DEPTH``; default 64):
        deeper input crashes or overflows JSON parsers.
    max_text_bytes : int
        Characters of text (prompts, references, outputs, metadata) that harness logs may
        produce in one upload (``SIGBOARD_MAX_TEXT_BYTES``; default 256 MiB).
    max_members : int
        Files in one archive (a zip or an Inspect ``.eval``; ``SIGBOARD_MAX_MEMBERS``;
        default 10,000), counted from the archive's end record before any member is read.
    max_parse_memory : int
        Address space allowed to the child process of
        :func:`engine.io._worker.parse_isolated` and of :func:`engine.ingest`
        (``SIGBOARD_MAX_PARSE_MEMORY``; default 1 GiB): every upload is read there, and a
        zip member or gzip file it could never hold is refused before it is inflated
        (:class:`InflateRoom`).
    parse_timeout : float
        Seconds the child may take (``SIGBOARD_PARSE_TIMEOUT``; default 300).

    Notes
    -----
    Byte sizes in the environment may carry a unit: ``512M``, ``2GiB``, ``64k``.

    Examples
    --------
    >>> Limits.from_mapping({"SIGBOARD_MAX_ROWS": "1000", "SIGBOARD_MAX_BYTES": "64M"})
    ... # doctest: +ELLIPSIS
    Limits(max_bytes=67108864, max_rows=1000, max_systems=2000, ...)
    >>> Limits(max_rows=0)
    Traceback (most recent call last):
    ...
    ValueError: max_rows: must be a positive whole number; got 0
    """

    max_bytes: int = 512 << 20
    max_rows: int = 5_000_000
    max_systems: int = 2_000
    max_metrics: int = 200
    max_benchmarks: int = 500
    max_depth: int = 64
    max_text_bytes: int = 256 << 20
    max_members: int = 10_000
    max_parse_memory: int = 1 << 30
    parse_timeout: float = 300.0

    def __post_init__(self) -> None:
        for field in fields(self):
            value = getattr(self, field.name)
            if field.name == "parse_timeout":
                ok = isinstance(value, int | float) and not isinstance(value, bool) and value > 0
                if not ok or not np.isfinite(value):
                    raise ValueError(f"parse_timeout: must be a positive number of seconds; "
                                     f"got {value!r}")
            elif not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ValueError(f"{field.name}: must be a positive whole number; got {value!r}")

    @classmethod
    def from_mapping(cls, env: Mapping[str, str]) -> Limits:
        """Limits from ``SIGBOARD_MAX_*`` entries of ``env`` (e.g. ``os.environ``);
        absent or blank entries keep their default."""
        values: dict[str, int | float] = {}
        for field, var in ENV_NAMES.items():
            text = str(env.get(var, "")).strip()
            if not text:
                continue
            values[field] = _parse_setting(var, text, seconds=field == "parse_timeout")
        try:
            return cls(**values)  # type: ignore[arg-type]
        except ValueError as exc:
            field, rest = str(exc).split(": ", 1)
            raise ValueError(f"{ENV_NAMES[field]}: {rest}") from None


_IN_FORCE: ContextVar[Limits | None] = ContextVar("sigboard_limits", default=None)


def active_limits() -> Limits:
    """The limits of the :func:`limits_in_force` block around this call, else the defaults.

    Readers deep inside a harness walk (a zip's member count, a member's size, a JSON
    log's depth) call this instead of ``Limits()``, so the server's and the CLI's settings
    (``SIGBOARD_MAX_MEMBERS``, …) reach them without a parameter on every function.
    """
    return _IN_FORCE.get() or Limits()


@contextmanager
def limits_in_force(limits: Limits) -> Iterator[Limits]:
    """Make ``limits`` what :func:`active_limits` returns inside the ``with`` block (this
    thread or task only: a context variable).

    >>> with limits_in_force(Limits(max_members=12)):
    ...     active_limits().max_members
    12
    >>> active_limits().max_members
    10000
    """
    token = _IN_FORCE.set(limits)
    try:
        yield limits
    finally:
        _IN_FORCE.reset(token)


#: Called with what is being read (a file, a zip member) each time a reader starts on one:
#: the memory-capped child reports it on stderr, so a refusal (MemoryError) or a crash under
#: the cap names the member that was too large (engine.io._worker).
_ON_READING: list[Callable[[str], None]] = []


def reading(what: str) -> None:
    """Note that ``what`` (``"zip member samples/1.json"``, ``"x.zip:a/b.jsonl"``) is being
    read now; a no-op unless :func:`when_reading` installed a listener (the child does)."""
    for listener in _ON_READING:
        listener(what)


def when_reading(listener: Callable[[str], None]) -> None:
    """Call ``listener`` on every :func:`reading` of this process (the child's reporter)."""
    _ON_READING.append(listener)


#: What the memory-capped child can ever give one upload's data (its cap less what a fresh
#: interpreter holds once it has imported the readers); None outside the child.
_PARSE_ROOM: list[int] = []
#: The least memory CPython (64-bit) gives one parsed JSON object and one array:
#: ``sys.getsizeof({})`` is 64 bytes and ``sys.getsizeof([])`` 56 on CPython 3.11.
_OBJECT_BYTES, _ARRAY_BYTES = 64, 56
_JSON_NAME = re.compile(r"\.jsonl?$", re.I)


def set_parse_room(room: int) -> None:
    """Note that this process is the capped child and ``room`` bytes is the most it can
    ever give one upload's data (:func:`engine.io._worker.cap_memory` calls it)."""
    _PARSE_ROOM[:] = [max(int(room), 0)]


class InflateRoom:
    """A lower bound of the memory a zip member or a gzip file being inflated will take,
    held to the child's room (:func:`set_parse_room`) before and while it is inflated.

    The bound counts what is certain. Before a byte is inflated: twice the size a zip
    member's directory entry declares (the growing buffer and the ``bytes`` it is returned
    as exist together). While inflating: the bytes so far, and for JSON (the name ends in
    ``.json`` or ``.jsonl``, before any ``.gz``) one empty dict per ``{`` and one empty list
    per ``[``, what parsing it allocates at the least (a bracket inside a string counts too,
    so the bound is high for text full of brackets). Text that is not JSON therefore reaches
    the size limit (:attr:`Limits.max_bytes`, below the room) before this bound, and keeps
    its size-limit message. Past the room it raises :class:`MemoryError`, as the allocation
    would once made: the child answers it with its usual refusal naming the file or member
    being read, the rule and the fix. Outside the child it checks nothing.

    Examples
    --------
    >>> InflateRoom("samples/1.json", declared=None).add(b"{}," * 1000)  # no room noted: inert
    """

    def __init__(self, name: str, declared: int | None) -> None:
        self.room = _PARSE_ROOM[0] if _PARSE_ROOM else None
        self.json = bool(_JSON_NAME.search(re.sub(r"\.gz(ip)?$", "", name, flags=re.I)))
        self.size = self.structures = 0
        if declared is not None:
            self._check(2 * declared, "its directory entry states")

    def add(self, chunk: bytes | bytearray) -> None:
        """Count one inflated chunk; MemoryError once the bound passes the room."""
        if self.room is None:
            return
        self.size += len(chunk)
        if self.json:
            self.structures += (chunk.count(b"{") * _OBJECT_BYTES
                                + chunk.count(b"[") * _ARRAY_BYTES)
        self._check(self.size + self.structures, "inflated so far")

    def _check(self, need: int, what: str) -> None:
        if self.room is not None and need > self.room:
            raise MemoryError(f"at least {need:,} bytes ({what}) in a room of {self.room:,}")


def _parse_setting(var: str, text: str, *, seconds: bool) -> int | float:
    if seconds:
        try:
            return float(text)
        except ValueError:
            raise ValueError(f"{var}: must be a number of seconds; got {text!r}") from None
    match = _SIZE.match(text)
    if not match:
        raise ValueError(f"{var}: must be a whole number, optionally with a unit K, M or G; "
                         f"got {text!r}")
    return int(match.group(1).replace("_", "")) * _UNITS[match.group(2).lower()]


def _human(n: int) -> str:
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size and n % size == 0:
            return f"{n // size:,} {unit}"
    return f"{n:,}"


def limit_error(label: str, field: str, limits: Limits, what: str,
                column: str | None = None) -> DataContractError:
    """The problem for a file over one limit: what, the limit, and how to change it."""
    value = getattr(limits, field)
    shown = _human(value) + (" bytes" if field == "max_bytes" and value % 1024 else "")
    remedy = ("flatten nested values (one flat JSON object per record)" if field == "max_depth"
              else "split the file into several uploads")
    return DataContractError([Problem(
        label, rule=f"{what} (the limit per upload is {shown})", column=column,
        fix=f"{remedy}, or raise {ENV_NAMES[field]} on the server")])


def check_produced(frame: pd.DataFrame, label: str, limits: Limits) -> None:
    """What harness logs produced, within the same limits as a results table: rows, systems,
    metrics and benchmarks (counted on the long table's key columns) and the characters of
    its text columns. The app and the CLI call it on every :func:`engine.read_harness`
    result, so a zip of 20,000 lm-eval systems is refused like a table of them.

    Raises
    ------
    DataContractError
        Naming the upload, the count, the limit and the setting that raises it.
    """
    from ._checks import check_counts  # _checks imports this module

    check_counts(frame, label, limits)
    texts = 0
    for name in frame.columns:
        column = frame[name]
        if column.dtype == object or isinstance(column.dtype, pd.StringDtype):
            texts += int(column.astype("string").str.len().sum(skipna=True))
            if texts > limits.max_text_bytes:
                raise limit_error(label, "max_text_bytes", limits,
                                  f"its logs hold more than {_human(limits.max_text_bytes)} "
                                  f"characters of text")


# --------------------------------------------------------------------------- byte scans


def count_lines(data: bytes | bytearray) -> int:
    """Lines in ``data``: its newlines, plus one for a last line without a newline.

    >>> count_lines(b"a\\nb\\n"), count_lines(b"a\\nb"), count_lines(b"")
    (2, 2, 0)
    """
    if not data:
        return 0
    return data.count(b"\n") + (data[-1:] != b"\n")


#: From this many bytes on, the depth is scanned by the compiled loop of engine._jit (when
#: Numba is installed): below, loading the compiled code costs more than the scan.
_COMPILED_FROM = 1 << 20
_OPEN = np.zeros(256, np.int8)
_OPEN[[ord("["), ord("{")]] = 1
_OPEN[[ord("]"), ord("}")]] = -1
_SPECIAL = np.zeros(256, bool)
_SPECIAL[list(b'[]{}"\\\n')] = True


def nesting_depth(data: bytes | bytearray | memoryview, *, stop_above: int | None = None,
                  chunk: int = 8 << 20) -> int:
    r"""Deepest nesting of JSON brackets outside strings, scanned without parsing.

    Parameters
    ----------
    data : bytes
        JSON or JSON Lines text (any bytes are accepted; invalid JSON gives a bound).
    stop_above : int, optional
        Return as soon as the depth exceeds this (the file is rejected anyway).
    chunk : int
        Bytes scanned per vectorised step (memory is a few times ``chunk / 8``).

    Returns
    -------
    int
        The maximum depth; ``[[1]]`` is 2.

    Notes
    -----
    Only the bytes ``[ ] { } " \`` and newlines are looked at. A quote preceded by an
    odd run of backslashes is escaped; brackets between unescaped quotes are text. A
    raw newline cannot occur inside a JSON string, so it ends any open string (an
    unclosed quote cannot hide the next lines). The depth is the walk of +1/-1 steps
    reflected at zero, :math:`d_k = S_k - \min(0, \min_{j \le k} S_j)`, so stray
    closing brackets cannot offset a deep run that follows them.

    Examples
    --------
    >>> nesting_depth(b'{"a": [1, {"b": "]]]]"}]}')
    3
    >>> nesting_depth(b'"\\\\"[[')
    2
    """
    view = memoryview(data).cast("B")
    from .. import _jit

    # the vectorised scan takes ~19 ms a MiB: Numba is loaded for ~16 MiB (or loaded already)
    compiled = _jit.kernels_for(len(view) * 1.8e-8) if len(view) >= _COMPILED_FROM else None
    if compiled is not None:  # one compiled pass: ~1 ns a byte, a fraction of the parse
        cap = np.iinfo(np.int64).max if stop_above is None else stop_above
        return int(compiled.nesting_depth(np.frombuffer(view, np.uint8), cap))
    if len(view) <= _PLAIN_UP_TO:
        plain = _plain_depth(view.tobytes() if not isinstance(data, bytes) else data)
        if plain is not None:
            return plain
    depth, low, in_string, deepest = 0, 0, 0, 0
    start, n = 0, len(view)
    while start < n:
        end = min(start + chunk, n)
        while end < n and view[end - 1] == 0x5C:  # never split a run of backslashes
            end += 1
        block = np.frombuffer(view[start:end], np.uint8)
        start = end
        pos = np.flatnonzero(_SPECIAL[block])
        if len(pos) == 0:
            continue
        vals = block[pos]
        depth, low, in_string, top = _scan_specials(pos, vals, depth, low, in_string)
        deepest = max(deepest, top)
        if stop_above is not None and deepest > stop_above:
            break
    return deepest


#: Up to this many bytes the depth of plain text is told by :func:`_plain_depth` (its
#: arrays hold ~10 bytes per bracket, quote or newline: at most ~170 MB here).
_PLAIN_UP_TO = 16 << 20
_NOT_SPECIAL = bytes(b for b in range(256) if b not in b'[]{}"\n')


def _plain_depth(data: bytes) -> int | None:
    """The depth of plain text, told on its bracket, quote and newline bytes alone
    (``bytes.translate`` drops the rest in C: JSON Lines of short records are mostly
    quotes and brackets, where the block scan costs ~70 ns a byte); None when the text
    is not plain: a quote right after a backslash (it may be escaped), a line with an
    odd number of quotes (a string ended by the newline) or a closing bracket before
    its opener (the walk reflected at zero). Plain text's depth is the maximum of the
    bracket walk outside strings, which is what the block scan computes."""
    if b'\\"' in data:
        return None
    special = np.frombuffer(data.translate(None, _NOT_SPECIAL), np.uint8)
    if len(special) == 0:
        return 0
    # after an odd number of quotes: inside a string (the parity survives uint8 wrap-around)
    odd = (np.cumsum(special == 0x22, dtype=np.uint8) & 1).view(bool)
    if odd[special == 0x0A].any():
        return None
    walk = np.cumsum(np.where(odd, 0, _OPEN[special]), dtype=np.int64)
    if int(walk.min()) < 0:
        return None
    return max(int(walk.max()), 0)


def _scan_specials(pos: np.ndarray, vals: np.ndarray, depth: int, low: int,
                   in_string: int) -> tuple[int, int, int, int]:
    """One block's special bytes → (depth, running minimum, string state, deepest)."""
    idx = np.arange(len(vals))
    backslash = vals == 0x5C
    # escaped[k]: the run of adjacent backslashes just before byte k has odd length
    after_backslash = np.zeros(len(vals), bool)
    after_backslash[1:] = backslash[:-1] & (np.diff(pos) == 1)
    run_start = np.maximum.accumulate(np.where(backslash & ~after_backslash, idx, 0))
    prev_start = np.concatenate(([0], run_start[:-1]))
    escaped = after_backslash & ((idx - prev_start) % 2 == 1)
    quote = ((vals == 0x22) & ~escaped).astype(np.int64)
    quotes = np.cumsum(quote)
    newline = vals == 0x0A
    # quotes counted since the last newline (or since the block start, with the carried state)
    last_nl = np.maximum.accumulate(np.where(newline, idx, -1))
    base = np.where(last_nl >= 0, quotes[np.maximum(last_nl, 0)], -in_string)
    inside = (quotes - quote - base) % 2 == 1
    step = np.where(inside, 0, _OPEN[vals]).astype(np.int64)
    walk = depth + np.cumsum(step)
    running_min = np.minimum(low, np.minimum.accumulate(walk))
    reflected = walk - np.minimum(running_min, 0)
    return (int(walk[-1]), int(running_min[-1]), int((quotes[-1] - base[-1]) % 2),
            int(reflected.max()))
