"""Resident memory of a process and of its whole tree, read from /proc (Linux).

What the memory benchmarks share: :func:`status_kb` (one field of ``/proc/PID/status``),
:func:`tree` (a process and every descendant), :func:`tree_rss_kb` (the sum of their
VmRSS) and :class:`TreeSampler`, which samples a tree's RSS on a thread every
``interval`` seconds and keeps the peak of the sum and each process's own peak (VmHWM).

The sum of RSS counts a page shared by two processes (a fork's inherited pages, a
library mapped by both) once per process: an upper bound of the memory the tree holds.
"""

from __future__ import annotations

import os
import threading
import time
from types import TracebackType

__all__ = ["TreeSampler", "status_kb", "tree", "tree_rss_kb"]


def status_kb(pid: int, key: str) -> int:
    """The ``key`` field of ``/proc/PID/status`` in kB (``VmRSS``, ``VmHWM``, …); 0 when the
    process is gone or has no such field."""
    try:
        with open(f"/proc/{pid}/status") as handle:
            for line in handle:
                if line.startswith(key):
                    return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return 0


def _children(pid: int) -> list[int]:
    """The children of every thread of ``pid`` (``/proc/PID/task/TID/children`` lists
    those one thread started: a server starts its parsing child from a script thread)."""
    out: list[int] = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return out
    for task in tasks:
        try:
            with open(f"/proc/{pid}/task/{task}/children") as handle:
                out.extend(int(p) for p in handle.read().split())
        except OSError:
            continue
    return out


def tree(pid: int) -> list[int]:
    """``pid`` and every process below it."""
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo.extend(_children(p))
    return out


def tree_rss_kb(pid: int) -> int:
    """The sum of VmRSS over ``pid``'s tree, in kB."""
    return sum(status_kb(p, "VmRSS") for p in tree(pid))


class TreeSampler:
    """Samples the RSS of ``pid``'s tree every ``interval`` seconds while in its ``with``
    block (on a thread of its own); ``peak_kb`` is the largest sum seen, ``hwm_kb`` the
    sum of each process's own peak (an upper bound: the peaks need not coincide),
    ``processes`` how many distinct processes were seen; ``root_peak_kb`` the root's own
    largest RSS sampled, ``below_peak_kb`` the largest sum over its descendants, and
    ``root_at_peak_kb`` the root's share of the largest sum."""

    def __init__(self, pid: int, interval: float = 0.05) -> None:
        self.pid, self.interval = pid, interval
        self.peak_kb = 0
        self.root_peak_kb = self.below_peak_kb = self.root_at_peak_kb = 0
        self._hwm: dict[int, int] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    @property
    def hwm_kb(self) -> int:
        return sum(self._hwm.values())

    @property
    def processes(self) -> int:
        return len(self._hwm)

    def sample(self) -> None:
        """One sample now."""
        total = root = 0
        for p in tree(self.pid):
            rss = status_kb(p, "VmRSS")
            total += rss
            root = rss if p == self.pid else root
            self._hwm[p] = max(self._hwm.get(p, 0), status_kb(p, "VmHWM"))
        if total > self.peak_kb:
            self.peak_kb, self.root_at_peak_kb = total, root
        self.root_peak_kb = max(self.root_peak_kb, root)
        self.below_peak_kb = max(self.below_peak_kb, total - root)

    def _run(self) -> None:
        while not self._stop.is_set():
            self.sample()
            time.sleep(self.interval)

    def __enter__(self) -> TreeSampler:
        self._thread.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self._stop.set()
        self._thread.join()
