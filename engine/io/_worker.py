"""Parsing in a child process, so that a parser crash or a memory bomb kills only the child.

:func:`parse_isolated` runs :func:`engine.io._formats.frame_from_bytes` in
``python -m engine.io._worker``: the upload goes to the child on stdin, the child
caps its own address space (``RLIMIT_AS``) before parsing, and sends the frame back as
Arrow IPC bytes (never a pickle), or the contract problems as JSON. A child that dies
from a signal (a segfault in a native parser, the memory cap) or runs out of time
becomes a :class:`~engine._contract.DataContractError` in the parent.

Child protocol: argv[1] is a JSON header ``{"name", "fmt", "limits"}``; stdin is the
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

__all__ = ["check_harness_isolated", "parse_isolated"]

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
    header = json.dumps({"name": label, "fmt": fmt, "limits": dataclasses.asdict(limits),
                         "path": None if path is None else str(Path(path).resolve()),
                         "unzip": unzip})
    try:
        done = subprocess.run(  # noqa: S603 - our own interpreter and module, no shell
            [sys.executable, "-m", "engine.io._worker", header], input=data or b"",
            capture_output=True, timeout=limits.parse_timeout, cwd=_ENGINE_ROOT, check=False)
    except subprocess.TimeoutExpired:
        raise DataContractError([Problem(
            label, rule=f"parsing took longer than {limits.parse_timeout:g} s",
            fix="split the file into several uploads, or raise SIGBOARD_PARSE_TIMEOUT "
            "on the server")]) from None
    return _answer(done, label, limits)


def check_harness_isolated(data: bytes | None, name: str, *, fmt: str | None = None,
                           system: str | None = None, limits: Limits | None = None,
                           path: str | None = None) -> None:
    """Read harness logs (an archive, an Inspect ``.eval``, a JSON/JSONL log) once in the
    memory-capped child and discard the result: a bomb, a crash or a log over the limits
    (:func:`engine.io._limits.check_produced`) kills or fails only the child and becomes a
    :class:`~engine._contract.DataContractError` here. The caller then reads logs that
    passed, which the limits bound, in its own process. ``path`` (with ``data`` None) has
    the child read a log folder (or file) from disk itself, as the CLI gives it.

    Raises
    ------
    DataContractError
        The child's problems (as :func:`engine.read_harness` raises them in-process), or
        its crash, memory cap or time limit.
    """
    limits = limits or active_limits()
    label = str(name)[:_MAX_NAME] or "<upload>"
    header = json.dumps({"name": label, "fmt": fmt, "limits": dataclasses.asdict(limits),
                         "harness": True, "system": system,
                         "path": None if path is None else str(Path(path).resolve())})
    try:
        done = subprocess.run(  # noqa: S603 - our own interpreter and module, no shell
            [sys.executable, "-m", "engine.io._worker", header], input=data or b"",
            capture_output=True, timeout=limits.parse_timeout, cwd=_ENGINE_ROOT, check=False)
    except subprocess.TimeoutExpired:
        raise DataContractError([Problem(
            label, rule=f"reading the logs took longer than {limits.parse_timeout:g} s",
            fix="split the upload, or raise SIGBOARD_PARSE_TIMEOUT on the server")]) from None
    if done.returncode == 0 and not done.stdout:
        return
    _answer(done, label, limits)


def _harness_main(header: dict[str, Any], limits: Limits) -> int:
    """Child side of :func:`check_harness_isolated`: exit 0 (no output) or 3 (problems)."""
    from ..harness import read_harness
    from ._limits import check_produced, limits_in_force

    path = header.get("path")
    source: Any = path if path else (header["name"], sys.stdin.buffer.read())
    out = sys.stdout.buffer
    try:
        with limits_in_force(limits):
            result = read_harness(source, format=header["fmt"], system=header.get("system"))
        del source
        check_produced(result.frame, header["name"], limits)
    except DataContractError as exc:
        out.write(json.dumps([dataclasses.asdict(p) for p in exc.problems]).encode())
        return _EXIT_PROBLEMS
    except (ValueError, RecursionError, MemoryError) as exc:
        what = {RecursionError: "nests too deeply to read",
                MemoryError: f"does not fit in the memory limit of "
                             f"{limits.max_parse_memory >> 20:,} MiB"}.get(type(exc), str(exc))
        problem = Problem(header["name"], rule=f"the upload {what}" if not isinstance(
            exc, ValueError) else what, fix="upload the logs as the harness wrote them, split "
            "them, or raise SIGBOARD_MAX_PARSE_MEMORY on the server")
        out.write(json.dumps([dataclasses.asdict(problem)]).encode())
        return _EXIT_PROBLEMS
    return 0


def _answer(done: subprocess.CompletedProcess[bytes], label: str,
            limits: Limits) -> pd.DataFrame:
    """The child's outcome → a frame, or the exception it stands for."""
    if done.returncode == 0:
        import pyarrow as pa

        frame: pd.DataFrame = pa.ipc.open_stream(pa.py_buffer(done.stdout)).read_all().to_pandas()
        return frame
    if done.returncode == _EXIT_PROBLEMS:
        raise DataContractError([Problem(**p) for p in _problems(done.stdout)])
    written = _complete_problems(done.stdout) if done.returncode < 0 else None
    if written:  # refused, then killed on its way out (see the module docstring)
        raise DataContractError([Problem(**p) for p in written])
    tail = done.stderr.decode("utf-8", "replace").strip().splitlines()[-5:]
    # out of memory under the cap, e.g. while importing: Python raises MemoryError, or an
    # OSError ENOMEM when the import system's directory listing cannot be allocated
    out_of_memory = bool(tail) and (tail[-1].startswith("MemoryError")
                                    or "[Errno 12]" in tail[-1])
    if done.returncode < 0 or out_of_memory:
        signum = -done.returncode
        try:
            signame = "MemoryError" if out_of_memory else signal.Signals(signum).name
        except ValueError:
            signame = f"signal {signum}"
        raise DataContractError([Problem(
            label, rule=f"the parser crashed on this file ({signame}) within the memory "
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


# --------------------------------------------------------------------------- child side


def _cap_memory(limit: int) -> None:
    import resource

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


def _worker_main(argv: list[str]) -> int:
    header = json.loads(argv[0])
    limits = Limits(**header["limits"])
    _cap_memory(limits.max_parse_memory)
    if header.get("harness"):
        return _harness_main(header, limits)
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


def _exit_now(code: int) -> None:
    """Flush the answer and leave without running native destructors (module docstring)."""
    import os

    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


if __name__ == "__main__":
    _exit_now(_worker_main(sys.argv[1:]))
