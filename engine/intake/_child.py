"""The child of :func:`engine.ingest`: ``python -m engine.intake._child HEADER``.

It caps its own address space first (:func:`engine.io._worker.cap_memory`), reads the
upload (stdin, or the file or folder the header names), makes the decision
(:func:`engine.intake._decide.decide`) and writes the answer: an Arrow IPC stream
(:mod:`engine.intake._wire`) and exit 0, or the problems as JSON and exit 3. Running out
of memory under the cap is a problem too, naming the file or zip member being read.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from ..io._worker import cap_memory, exit_now, send_problems, send_table

__all__: list[str] = []


def _main(argv: list[str]) -> int:
    header: dict[str, Any] = json.loads(argv[0])
    from ..io._limits import Limits

    limits = Limits(**header["limits"])
    cap_memory(limits.max_parse_memory)
    from .._contract import DataContractError, MetricSpec, Problem

    current: list[str] = []

    def note(what: str) -> None:
        current[:] = [what]

    from ..io._limits import when_reading

    when_reading(note)
    label = header["name"]
    try:
        from ._decide import decide
        from ._wire import to_table

        source = header["path"] or (label, sys.stdin.buffer.read())
        metrics = {k: MetricSpec(**v) for k, v in (header.get("metrics") or {}).items()}
        got = decide(source, fmt=header.get("format"), system=header.get("system"),
                     limits=limits, metrics=metrics or None,
                     battles=bool(header.get("battles", True)),
                     siblings=bool(header.get("siblings")), usage=bool(header.get("usage")))
        del source
        table = to_table(got)
        del got
        return send_table(table)
    except DataContractError as exc:
        return send_problems(exc.problems)
    except (MemoryError, RecursionError) as exc:
        where = current[0] if current else "the upload"
        if isinstance(exc, RecursionError):
            rule = f"{where} nests too deeply to read"
            fix = "upload the log as the harness wrote it (flat records)"
        else:
            rule = (f"reading {where} does not fit in the memory limit of "
                    f"{limits.max_parse_memory >> 20:,} MiB")
            fix = ("split the upload into smaller ones, or raise SIGBOARD_MAX_PARSE_MEMORY "
                   "on the server")
        return send_problems([Problem(label, rule=rule, fix=fix)])


if __name__ == "__main__":
    exit_now(_main(sys.argv[1:]))
