"""The capped child as a fork of this process, when that is safe: no second interpreter.

A fresh ``python -m engine.intake._child`` spends most of its life importing pandas and
pyarrow, which the CLI has already imported; a fork inherits them (copy-on-write) and
starts parsing at once. :func:`engine.io._worker.run_capped` forks when
:func:`can_fork` says it is safe, and starts a fresh interpreter otherwise (the protocol,
the answers and the messages are the same either way).

When it is safe. A fork copies only the calling thread: a lock another thread held at
that moment stays held in the child forever (a Python thread in the middle of an import,
of ``logging``, of a SQLite call). So this process forks only while it *is* one thread:
one Python thread, and no other OS thread but those of two libraries that make
``fork`` safe themselves in their ``pthread_atfork`` handlers: jemalloc's background
purger (``jemalloc_bg_thd``, which pyarrow starts at import) and OpenBLAS's workers (one
per core but the first, as :mod:`threadpoolctl` counts them; stopped before the fork,
started again on demand). Any other thread (a server's, a running Arrow or Numba pool)
means a fresh interpreter instead. :data:`enabled` set to False turns forking off (the
engine reads no environment variable; a test that poisons the parsers in its own process
does so).

What the child inherits and does not touch. It reads the upload from memory the parent
already holds (no stdin pipe), writes its answer to two pipes, never touches an open
store (SQLite asks that a connection not be used across ``fork``; the child never calls
it) and leaves with ``os._exit``: no ``atexit`` handler, destructor or buffered output of
the parent runs twice. POSIX record locks belong to the process that set them and are not
inherited, so the child's descriptors closing at its exit drop none of the parent's store
locks.

The memory cap. ``RLIMIT_AS`` counts the address space the child inherited. A fresh
interpreter that has imported the readers (numpy, pandas, pyarrow, the engine's readers)
holds about :data:`FRESH_SPACE` of it before it parses; a fork is given the same room to
parse: the cap plus whatever it inherited beyond that (:func:`inherited_space`). The
inherited pages are shared with the parent (not copied) until one of them writes.
"""

from __future__ import annotations

import contextlib
import io
import os
import selectors
import signal
import subprocess
import sys
import threading
import time
import traceback
from collections.abc import Callable

__all__ = ["FRESH_SPACE", "address_space", "can_fork", "enabled", "inherited_space", "run_forked"]

#: Address space of a fresh interpreter once it has imported what the child needs
#: (``python -c "import engine.intake._decide"``: 358–367 MB VmSize, CPython 3.11,
#: numpy 2, pandas 2, pyarrow; measured with /proc/self/status).
FRESH_SPACE = 350 << 20
#: The only thread besides the caller a fork may leave behind (see the module docstring).
_FORK_SAFE_THREADS = frozenset({"jemalloc_bg_thd"})
#: False: always a fresh interpreter.
enabled = True
_inherited = 0  # set in a forked child: its address space beyond FRESH_SPACE at the fork


def inherited_space() -> int:
    """Bytes of address space this process inherited beyond :data:`FRESH_SPACE` when it
    is a forked child (0 in a fresh interpreter): what its memory cap adds."""
    return _inherited


def can_fork() -> bool:
    """True when this process may fork the child: it runs one thread (module docstring)."""
    if not enabled or not hasattr(os, "fork"):
        return False
    if threading.active_count() != 1 or threading.current_thread() is not threading.main_thread():
        return False
    try:
        tasks = os.listdir("/proc/self/task")
        me = str(threading.get_native_id())
        unnamed = 0
        for task in tasks:
            if task != me:
                with open(f"/proc/self/task/{task}/comm") as handle:
                    unnamed += handle.read().strip() not in _FORK_SAFE_THREADS
    except OSError:  # no /proc (not Linux): the threads cannot be seen, so no fork
        return False
    return unnamed == 0 or unnamed <= _blas_workers()


def _blas_workers() -> int:
    """Threads the loaded OpenBLAS libraries may have started: num_threads − 1 each (the
    caller's thread is the first). OpenBLAS stops them in its own ``pthread_atfork``
    prepare handler (``blas_thread_shutdown_``) and starts them again on demand, so a fork
    never copies one of them mid-call; after a fork they are gone until the next BLAS
    call, hence "at most"."""
    try:
        from threadpoolctl import threadpool_info  # type: ignore[import-untyped]
    except ImportError:
        return 0
    return sum(max(int(pool.get("num_threads") or 1) - 1, 0) for pool in threadpool_info()
               if pool.get("internal_api") == "openblas")


def address_space() -> int:
    """This process's address space in bytes (VmSize)."""
    with open("/proc/self/status") as handle:
        for line in handle:
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    return 0


def run_forked(module: str, argument: str, data: bytes, timeout: float,
               ) -> subprocess.CompletedProcess[bytes]:
    """Run ``module``'s ``_main([argument])`` in a fork with ``data`` as its stdin; its
    exit code (negative: the signal that killed it), stdout and stderr.

    Raises
    ------
    subprocess.TimeoutExpired
        When the child runs longer than ``timeout`` seconds (it is killed first).
    """
    import importlib

    main: Callable[[list[str]], int] = importlib.import_module(module)._main
    argv = [sys.executable, "-m", module, argument]
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    sys.stdout.flush()
    sys.stderr.flush()
    space = address_space()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child; its outcome is what the tests check
        _child(main, argument, data, out_w, err_w, (out_r, err_r), space)
    os.close(out_w)
    os.close(err_w)
    try:
        stdout, stderr = _drain(pid, out_r, err_r, time.monotonic() + timeout)
    except subprocess.TimeoutExpired:
        raise subprocess.TimeoutExpired(argv, timeout) from None
    finally:
        os.close(out_r)
        os.close(err_r)
    _, status = os.waitpid(pid, 0)
    return subprocess.CompletedProcess(argv, os.waitstatus_to_exitcode(status), stdout, stderr)


def _drain(pid: int, out_r: int, err_r: int, deadline: float) -> tuple[bytes, bytes]:
    """Everything the child writes on both pipes until it closes them (or the deadline:
    then the child is killed and reaped, and TimeoutExpired raised)."""
    chunks: dict[int, list[bytes]] = {out_r: [], err_r: []}
    with selectors.DefaultSelector() as sel:
        for fd in chunks:
            sel.register(fd, selectors.EVENT_READ)
        while sel.get_map():
            left = deadline - time.monotonic()
            ready = sel.select(max(left, 0.0)) if left > 0 else []
            if not ready:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                raise subprocess.TimeoutExpired([], 0)
            for key, _ in ready:
                piece = os.read(key.fd, 1 << 20)  # type: ignore[arg-type]
                if piece:
                    chunks[key.fd].append(piece)  # type: ignore[index]
                else:
                    sel.unregister(key.fd)
    return b"".join(chunks[out_r]), b"".join(chunks[err_r])


def _child(main: Callable[[list[str]], int], argument: str, data: bytes, out_w: int,
           err_w: int, parent_ends: tuple[int, int], space: int) -> None:  # pragma: no cover
    """The forked child: stdio onto the pipes, the parent's signal handlers undone, the
    child's ``_main``, and ``os._exit`` whatever happens (never back into the caller)."""
    global _inherited
    code = 1
    try:
        for fd in parent_ends:
            os.close(fd)
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.dup2(out_w, 1)
        os.dup2(err_w, 2)
        for fd in (null, out_w, err_w):
            os.close(fd)
        for signum in (signal.SIGINT, signal.SIGTERM):  # the server's handlers are not ours
            signal.signal(signum, signal.SIG_DFL)
        _inherited = max(0, space - FRESH_SPACE)
        sys.stdin = io.TextIOWrapper(io.BytesIO(data))
        sys.stdout = io.TextIOWrapper(open(1, "wb", closefd=False))  # noqa: SIM115
        sys.stderr = io.TextIOWrapper(open(2, "wb", closefd=False), line_buffering=True)  # noqa: SIM115
        del data
        code = main([argument])
    except BaseException:  # noqa: BLE001 - reported as a fresh interpreter would report it
        with contextlib.suppress(BaseException):  # out of memory even for the traceback
            traceback.print_exc()
        code = 1
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)
