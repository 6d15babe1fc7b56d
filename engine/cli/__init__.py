"""The command line, ``python -m engine``: a thin layer between files and the engine API.

Each group of commands is a module exposing ``register(subparsers)``; every handler
returns an exit code. Heavy modules (the statistics, the store, the readers) are
imported inside the handlers, so ``--help`` and each command pay only for what they
use. Bad input (a :class:`ValueError`, which includes :class:`DataContractError`)
prints one line on stderr and exits with 2.
"""

from ._common import main

__all__ = ["main"]
