"""The capped child of :func:`engine.io._board.read_board` (``isolated=True``):
``python -m engine.io._board_child HEADER``.

A board's files are parsed as any upload is (:mod:`engine.io._worker`): in a child with a
memory cap and a time limit, forked when that is safe, so a file that inflates to more than
the cap costs only the child. The answer is the long table as an Arrow IPC stream with the
board's facts in the schema metadata, "not a board" as an empty table, or the problems.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from .._contract import DataContractError, Problem
from ._limits import Limits
from ._worker import answer_table, cap_memory, exit_now, run_capped, send_problems, send_table

__all__ = ["read_board_isolated"]

_KEY = b"sigboard_board"


def _main(argv: list[str]) -> int:
    header: dict[str, Any] = json.loads(argv[0])
    limits = Limits(**header["limits"])
    cap_memory(limits.max_parse_memory)
    import pyarrow as pa

    from ._board import read_board
    from ._worker import table_of

    try:
        got = read_board(header["path"], instances=header["instances"],
                         benchmark=header["benchmark"], limits=limits)
        if got is None:
            return send_table(pa.table({}).replace_schema_metadata({_KEY: b"null"}))
        facts = {"benchmark": got.benchmark, "metric": got.metric, "n_items": got.n_items,
                 "sources": list(got.sources), "item_source": got.item_source}
        return send_table(table_of(got.frame).replace_schema_metadata(
            {_KEY: json.dumps(facts).encode()}))
    except DataContractError as exc:
        return send_problems(exc.problems)
    except (MemoryError, RecursionError):
        return send_problems([Problem(
            header["path"], rule=f"reading the board does not fit in the memory limit of "
                                 f"{limits.max_parse_memory >> 20:,} MiB",
            fix="split the board into smaller ones, or raise SIGBOARD_MAX_PARSE_MEMORY on "
                "the server")])


def read_board_isolated(path: str | Path, *, instances: str | Path | None,
                        benchmark: str | None, limits: Limits) -> Any:
    """:func:`engine.io._board.read_board` in the capped child; the same answer."""
    import pandas as pd

    from .._contract import validate_long
    from ._board import BoardFiles

    header = {"path": str(Path(path).resolve()),
              "instances": None if instances is None else str(Path(instances).resolve()),
              "benchmark": benchmark}
    done = run_capped("engine.io._board_child", header, None, str(path), limits,
                      doing="reading the board")
    table = answer_table(done, str(path), limits)
    facts = json.loads((table.schema.metadata or {}).get(_KEY, b"null"))
    if facts is None:
        return None
    frame: pd.DataFrame = table.to_pandas(use_threads=False)
    return BoardFiles(validate_long(frame, source=str(path)), facts["benchmark"],
                      facts["metric"], int(facts["n_items"]), tuple(facts["sources"]),
                      facts["item_source"])


if __name__ == "__main__":
    exit_now(_main(sys.argv[1:]))
