"""Waiting for a capped child: its answer read from both pipes, its stdin fed, its running
time and its resident memory watched.

Why the parent watches the memory too. The child's own cap, ``RLIMIT_AS``, bounds its
address space, not what it holds: a fresh interpreter reserves far more address space than
it touches (thread stacks, malloc arenas), so the cap has to leave room for that, and the
child may grow to most of the cap in real memory before it is refused. Beside a server that
already holds half a gigabyte, that is more than :attr:`Limits.max_parse_memory` for the
two together. So the caller reads the child's resident set (``VmRSS``) every
:data:`POLL` seconds and kills it once it passes :func:`rss_budget`: the cap less what the
caller itself holds, so that the caller and its child together stay within the cap
(``RLIMIT_AS`` stays, as the hard stop between two looks). The budget never falls below
what the child needs to start plus :data:`MIN_ROOM`: a caller that has grown past the cap
still parses small uploads, and then the two may hold more than the cap by the caller's
excess. This is the fresh interpreter a server starts (many threads: no fork); a fork of a
one-thread caller (the CLI) is bounded by its address space alone (:func:`rss_budget`).
"""

from __future__ import annotations

import contextlib
import os
import selectors
import subprocess
import time
from collections.abc import Callable
from typing import IO

__all__ = ["BETWEEN_LOOKS", "FRESH_RSS", "MIN_ROOM", "POLL", "OverBudget", "collect", "rss_budget", "rss_of"]

#: Seconds between two looks at the child's resident memory. Between two looks a child
#: filling memory at a few GB/s gains some tens of MB; the address-space cap bounds the rest.
POLL = 0.005
#: Resident memory of a fresh child once it has imported its readers (numpy, pandas,
#: pyarrow, the engine's readers): 130–160 MB measured with ``VmRSS`` (CPython 3.11).
FRESH_RSS = 160 << 20
#: Room to parse that a child always gets beyond what it starts with.
MIN_ROOM = 256 << 20
#: Kept back from the budget for what the child may gain between two looks.
BETWEEN_LOOKS = 32 << 20


class OverBudget(Exception):  # noqa: N818 - an outcome, caught by the caller, not an error
    """The child passed its resident-memory budget and was killed; the caller reports it."""

    def __init__(self, stderr: bytes, caller_rss: int) -> None:
        super().__init__("the child passed its memory budget")
        self.stderr = stderr
        self.caller_rss = caller_rss


def rss_of(pid: int | str = "self") -> int:
    """Resident memory of a process in bytes (``VmRSS``); 0 once it has exited."""
    try:
        with open(f"/proc/{pid}/status", "rb") as handle:
            for line in handle:
                if line.startswith(b"VmRSS:"):
                    return int(line.split()[1]) * 1024
    except OSError:  # gone, or no /proc: nothing to watch
        return 0
    return 0


def rss_budget(cap: int, caller_rss: int) -> int:
    """Resident bytes a fresh child may reach: ``cap`` less the caller's ``caller_rss`` (so
    the two together stay within the cap) and :data:`BETWEEN_LOOKS`, and never less than
    :data:`FRESH_RSS` plus :data:`MIN_ROOM`.

    A fork is not watched: it starts with the caller's pages *shared*, not copied (its
    ``VmRSS`` counts them again), and its address-space cap already allows it only the cap's
    room beyond what it inherited (:mod:`engine.io._fork`).
    """
    return max(cap - caller_rss - BETWEEN_LOOKS, FRESH_RSS + MIN_ROOM)


def collect(pid: int, out_r: int, err_r: int, *, deadline: float, budget: int | None,
            caller_rss: int, stop: Callable[[], None],
            feed: tuple[IO[bytes], bytes] | None = None) -> tuple[bytes, bytes]:
    """Everything the child writes on ``out_r`` and ``err_r`` until it closes them, while
    ``feed`` (its stdin, and the bytes to write there) is written and closed.

    ``stop`` kills and reaps the child; it is called before either exception below.
    ``budget`` None: the child's memory is not watched (a fork: see :func:`rss_budget`).

    Raises
    ------
    subprocess.TimeoutExpired
        When the deadline (``time.monotonic()``) passes.
    OverBudget
        When the child's resident memory passes ``budget`` bytes.
    """
    chunks: dict[int, list[bytes]] = {out_r: [], err_r: []}
    watching = budget is not None and os.path.exists(f"/proc/{pid}/status")
    with selectors.DefaultSelector() as sel:
        for fd in chunks:
            sel.register(fd, selectors.EVENT_READ)
        stdin, pending = feed if feed is not None else (None, b"")
        left_over = memoryview(pending)
        if stdin is not None:
            os.set_blocking(stdin.fileno(), False)
            sel.register(stdin, selectors.EVENT_WRITE)
        while sel.get_map():
            left = deadline - time.monotonic()
            if left <= 0:
                stop()
                raise subprocess.TimeoutExpired([], 0)
            ready = sel.select(min(left, POLL) if watching else left)
            if budget is not None and watching and rss_of(pid) > budget:
                stop()
                raise OverBudget(b"".join(chunks[err_r]), caller_rss)
            for key, _ in ready:
                if stdin is not None and key.fileobj is stdin:
                    left_over = _write_some(sel, stdin, left_over)
                    continue
                piece = os.read(key.fd, 1 << 20)
                if piece:
                    chunks[key.fd].append(piece)
                else:
                    sel.unregister(key.fd)
    return b"".join(chunks[out_r]), b"".join(chunks[err_r])


def _write_some(sel: selectors.BaseSelector, stdin: IO[bytes], pending: memoryview,
                ) -> memoryview:
    """Write what the pipe takes of ``pending``; close the child's stdin when all is written
    (or the child closed it: it stopped reading, and its answer says why)."""
    try:
        wrote = os.write(stdin.fileno(), pending[:1 << 16]) if len(pending) else 0
    except BlockingIOError:
        return pending
    except BrokenPipeError:
        wrote = len(pending)
    pending = pending[wrote:]
    if not len(pending):
        sel.unregister(stdin)
        # BrokenPipeError: what was buffered could not be written, the child has gone
        with contextlib.suppress(BrokenPipeError):
            stdin.close()
    return pending
