"""Parsing in a child process, so that a parser crash or a memory bomb kills only the child.

The mechanism (:func:`run_capped`, :func:`answer_table` here; the child's side:
:func:`cap_memory`, :func:`send_table`, :func:`send_problems`, :func:`exit_now`) is what
every memory-capped reader uses: :func:`parse_isolated` runs
:func:`engine.io._formats.frame_from_bytes` in ``python -m engine.io._worker``, and
:func:`engine.ingest` (above io and harness, which this module never imports) makes
the whole decision about an upload in ``python -m engine.intake._child`` (or in a fork of
this process running the same ``_main``, when it is safe: :mod:`engine.io._fork`, which
saves the child a second import of pandas and pyarrow). The upload goes
to the child on stdin (or the child reads it from disk), the child caps its own address
space (``RLIMIT_AS``, :attr:`Limits.max_parse_memory`) before parsing, and sends the frame
back as Arrow IPC bytes (never a pickle), or the contract problems as JSON. A child that
dies from a signal (a segfault in a native parser, the memory cap) or runs out of time
becomes a :class:`~engine._contract.DataContractError` in the parent, naming the zip member
or file it was reading (the child says so on stderr as it goes:
:func:`engine.io._limits.reading`).

Child protocol: argv[1] is a JSON header (here ``{"name", "fmt", "limits"}``); stdin is the
file's bytes; exit 0 = stdout holds an Arrow IPC stream; exit 3 = stdout holds the JSON
list of problems.

The child leaves with ``os._exit`` once its answer is flushed: a normal interpreter exit
runs native destructors, and Arrow's thread pools can abort the process there
(``terminate called without an active exception``, SIGABRT after the work is done:
apache/arrow#34314), which turned a refusal already written into "the parser crashed"
once in a while. For the same reason a child killed by a signal *after* it wrote a
complete list of problems is answered with those problems.
"""

from __future__ import annotations

import dataclasses
import json
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pandas as pd

from .._contract import DataContractError, Problem
from ._limits import Limits, active_limits

__all__ = ["answer_table", "cap_memory", "exit_now", "parse_isolated", "run_capped",
           "send_problems", "send_table"]

_EXIT_PROBLEMS = 3
_ENGINE_ROOT = Path(__file__).resolve().parents[2]  # the folder that holds engine/
_MAX_NAME = 1000


def parse_isolated(data: bytes | None, name: str, *, fmt: str | None = None,
                   limits: Limits | None = None, path: str | Path | None = None,
                   unzip: bool = False) -> pd.DataFrame:
    """Parse an upload in a child process with a memory cap and a time limit.

    Parameters
    ----------
    data : bytes or None
        The file as uploaded (gzip is detected and inflated in the child); None with
        ``path``, which the child then reads from disk itself (the caller never holds
        the file's bytes).
    name : str
        File name, for messages and format detection.
    fmt : {"csv", "tsv", "jsonl", "json", "parquet"}, optional
        Overrides format detection.
    limits : Limits, optional
        Upload limits (default ``Limits()``); ``max_parse_memory`` caps the child's
        address space and ``parse_timeout`` its running time.
    unzip : bool, keyword-only
        A zip holding one file is opened in the child and that file parsed (its format
        from its own name; messages name it ``<zip>:<file>``).

    Returns
    -------
    DataFrame
        What :func:`engine.io._formats.frame_from_bytes` returns in-process (the raw
        parsed table, before :mod:`engine.io._readers` shapes it).

    Raises
    ------
    DataContractError
        For bad input as in-process, and when the child crashes, exceeds its memory
        cap or its time limit.
    RuntimeError
        When the child fails for a reason that is not the input (e.g. it cannot import
        the engine); the message carries the end of its stderr.

    Examples
    --------
    >>> frame = parse_isolated(b"system,value\\nA,1\\n", "r.csv")
    >>> frame.to_dict("list")
    {'system': ['A'], 'value': [1]}
    """
    limits = limits or active_limits()
    label = str(name)[:_MAX_NAME] or "<upload>"
    done = run_capped("engine.io._worker", {
        "name": label, "fmt": fmt, "path": None if path is None else str(Path(path).resolve()),
        "unzip": unzip}, data, label, limits, doing="parsing")
    return _answer(done, label, limits)


def run_capped(module: str, header: dict[str, Any], data: bytes | None, label: str,
               limits: Limits, *, doing: str = "reading the upload",
               ) -> subprocess.CompletedProcess[bytes]:
    """Run ``python -m module`` (a child built on this module's child side) with ``header``
    (plus ``limits``) as its JSON argument and ``data`` on stdin, within the time limit.

    Raises
    ------
    DataContractError
        When the child takes longer than ``limits.parse_timeout``.
    """
    argument = json.dumps({**header, "limits": dataclasses.asdict(limits)})
    try:
        return _spawn(module, argument, data or b"", limits.parse_timeout)
    except subprocess.TimeoutExpired:
        raise DataContractError([Problem(
            label, rule=f"{doing} took longer than {limits.parse_timeout:g} s",
            fix="split the file into several uploads, or raise SIGBOARD_PARSE_TIMEOUT "
            "on the server")]) from None


def _spawn(module: str, argument: str, data: bytes, timeout: float,
           ) -> subprocess.CompletedProcess[bytes]:
    """The child's outcome: a fork of this process when that is safe (:mod:`._fork`: one
    thread; the readers already imported are not imported again), else a fresh
    interpreter (``python -m module``)."""
    from . import _fork

    if _fork.can_fork():
        return _fork.run_forked(module, argument, data, timeout)
    return subprocess.run(  # noqa: S603 - our own interpreter and module, no shell
        [sys.executable, "-m", module, argument], input=data, capture_output=True,
        timeout=timeout, cwd=_ENGINE_ROOT, check=False)


def _answer(done: subprocess.CompletedProcess[bytes], label: str,
            limits: Limits) -> pd.DataFrame:
    """The child's outcome → a frame, or the exception it stands for."""
    # one thread, as engine.intake._wire.from_table (Arrow's pool would stop the next fork)
    frame: pd.DataFrame = answer_table(done, label, limits).to_pandas(use_threads=False)
    return frame


def answer_table(done: subprocess.CompletedProcess[bytes], label: str, limits: Limits) -> Any:
    """The child's outcome → the Arrow table it sent (schema metadata included), or the
    exception it stands for (its problems; a crash or the memory cap, naming what it was
    reading; a RuntimeError for a child that failed for another reason)."""
    if done.returncode == 0:
        import pyarrow as pa

        return pa.ipc.open_stream(pa.py_buffer(done.stdout)).read_all()
    if done.returncode == _EXIT_PROBLEMS:
        raise DataContractError([Problem(**p) for p in _problems(done.stdout)])
    written = _complete_problems(done.stdout) if done.returncode < 0 else None
    if written:  # refused, then killed on its way out (see the module docstring)
        raise DataContractError([Problem(**p) for p in written])
    tail = [line for line in done.stderr.decode("utf-8", "replace").strip().splitlines()
            if not line.startswith(_READING)][-5:]
    # out of memory under the cap, e.g. while importing: Python raises MemoryError, or an
    # OSError ENOMEM when the import system's directory listing cannot be allocated
    # (or a shared library that cannot be mapped: "failed to map segment from shared object")
    out_of_memory = bool(tail) and (tail[-1].startswith("MemoryError")
                                    or "[Errno 12]" in tail[-1]
                                    or "failed to map segment" in tail[-1])
    if done.returncode < 0 or out_of_memory:
        signum = -done.returncode
        try:
            signame = "MemoryError" if out_of_memory else signal.Signals(signum).name
        except ValueError:
            signame = f"signal {signum}"
        member = last_reading(done.stderr)
        where = f" while reading {member}" if member else ""
        raise DataContractError([Problem(
            label, rule=f"the parser crashed on this file ({signame}){where} within the memory "
            f"limit of {limits.max_parse_memory >> 20:,} MiB",
            fix="check that the file is valid CSV, JSON Lines or Parquet; split it into "
            "smaller uploads, or raise SIGBOARD_MAX_PARSE_MEMORY on the server")])
    raise RuntimeError(f"the parse worker failed with exit code {done.returncode}: "
                       + " | ".join(tail))


def _problems(payload: bytes) -> list[dict[str, Any]]:
    items = json.loads(payload)
    for item in items:
        item["rows"] = tuple(item.get("rows", ()))
    return list(items)


def _complete_problems(payload: bytes) -> list[dict[str, Any]] | None:
    """The problems a child wrote before it died, when its output is exactly such a list
    (a partial write or an Arrow stream is not: None)."""
    if not payload.startswith(b"["):
        return None
    try:
        items = _problems(payload)
        [Problem(**p) for p in items]  # noqa: B018 - every item must make a Problem
    except (ValueError, TypeError, AttributeError):
        return None
    return items or None


#: the child's stderr lines saying what it reads (engine.io._limits.reading)
_READING = "sigboard-reading: "


def last_reading(stderr: bytes) -> str | None:
    """What the child last said it was reading (a zip member, a file), if anything."""
    at = stderr.rfind(_READING.encode())
    if at < 0:
        return None
    line = stderr[at + len(_READING):].split(b"\n", 1)[0]
    return line.decode("utf-8", "replace").strip()[:_MAX_NAME] or None


# --------------------------------------------------------------------------- child side


def cap_memory(limit: int) -> None:
    """Cap this process's address space at ``limit`` bytes (no core files), note the room
    that leaves an upload's data (``limit`` less :data:`engine.io._fork.FRESH_SPACE`, what a
    fresh child holds once it has imported its readers; a fork's cap adds what it inherited,
    so its room is the same), and report on stderr each file or member its readers start on
    (:func:`last_reading` reads it back)."""
    from ._fork import FRESH_SPACE
    from ._limits import set_parse_room, when_reading

    _cap_memory(limit)
    # a zip member or gzip file that cannot fit is refused before it is inflated, with the
    # refusal of a failed allocation (engine.io._limits.InflateRoom)
    set_parse_room(limit - FRESH_SPACE)

    def report(what: str) -> None:
        sys.stderr.write(f"{_READING}{what}\n")
        sys.stderr.flush()

    when_reading(report)


def send_problems(problems: Any) -> int:
    """Write ``problems`` (Problem objects) as the child's answer; the exit code to leave with."""
    sys.stdout.buffer.write(json.dumps([dataclasses.asdict(p) for p in problems]).encode())
    return _EXIT_PROBLEMS


def send_table(table: Any) -> int:
    """Write the Arrow ``table`` (an IPC stream) as the child's answer; exit code 0."""
    import pyarrow as pa

    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, table.schema) as writer:
        writer.write_table(table)
    sys.stdout.buffer.write(memoryview(sink.getvalue()))
    return 0


def table_of(frame: pd.DataFrame) -> Any:
    """The frame as an Arrow table; object columns of mixed types go over as text."""
    return _table_of(frame)


def _cap_memory(limit: int) -> None:
    import resource

    from ._fork import inherited_space

    # a forked child keeps its parent's mappings: the room to parse is the same as a fresh
    # interpreter's once it has imported the readers (see engine.io._fork)
    limit += inherited_space()
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # a crash leaves no core file behind
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))


def _table_of(frame: pd.DataFrame) -> Any:
    """The frame as an Arrow table; object columns of mixed types go over as text."""
    import pyarrow as pa

    try:
        return pa.Table.from_pandas(frame, preserve_index=False)
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        frame = frame.copy()
        for col in frame.columns:
            if frame[col].dtype == object:
                cells = frame[col]
                frame[col] = cells.where(cells.isna(), cells.astype(str)).astype(object)
        return pa.Table.from_pandas(frame, preserve_index=False)


def _read_capped(path: str, limits: Limits) -> bytes:
    """A file's bytes, at most one past the size limit (frame_from_bytes then refuses it)."""
    with open(path, "rb") as handle:
        return handle.read(limits.max_bytes + 1)


def _main(argv: list[str]) -> int:
    header = json.loads(argv[0])
    limits = Limits(**header["limits"])
    cap_memory(limits.max_parse_memory)
    from ._formats import frame_from_bytes
    from ._limits import limits_in_force

    path = header.get("path")
    data = _read_capped(path, limits) if path else sys.stdin.buffer.read()
    out = sys.stdout.buffer
    try:
        with limits_in_force(limits):
            name = header["name"]
            if header.get("unzip") and data[:4] == b"PK\x03\x04":
                from ._zip import only_member

                member, data = only_member(data, name, limits)
                name = f"{name}:{member}"
            frame = frame_from_bytes(data, name, header["fmt"], limits=limits)
        del data
        import pyarrow as pa

        table = _table_of(frame)
        del frame
        sink = pa.BufferOutputStream()
        with pa.ipc.new_stream(sink, table.schema) as writer:
            writer.write_table(table)
        out.write(memoryview(sink.getvalue()))
    except DataContractError as exc:
        out.write(json.dumps([dataclasses.asdict(p) for p in exc.problems]).encode())
        return _EXIT_PROBLEMS
    except MemoryError:
        problem = Problem(header["name"], rule="the parsed table does not fit in the memory "
                          f"limit of {limits.max_parse_memory >> 20:,} MiB",
                          fix="split the file into several uploads, or raise "
                          "SIGBOARD_MAX_PARSE_MEMORY on the server")
        out.write(json.dumps([dataclasses.asdict(problem)]).encode())
        return _EXIT_PROBLEMS
    return 0


def exit_now(code: int) -> None:
    """Flush the answer and leave without running native destructors (module docstring)."""
    import os

    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


if __name__ == "__main__":
    exit_now(_main(sys.argv[1:]))
