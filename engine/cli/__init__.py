"""The command line, ``python -m engine``: a thin layer between files and the engine API.

Each group of commands is a module exposing ``register(subparsers)``; every handler
returns an exit code. Heavy modules (the statistics, the store, the readers) are
imported inside the handlers, so ``--help`` and each command pay only for what they
use. Bad input (a :class:`ValueError`, which includes :class:`DataContractError`)
prints one line on stderr and exits with 2.

Layout: :mod:`._main` holds the parser and ``main`` (the registry of every command);
:mod:`._common` the helpers the commands share; :mod:`._json` builds every command's JSON
from the fields of the engine's results.
"""

from ._main import main

__all__ = ["main"]
