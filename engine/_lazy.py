"""The lazy tables of the engine's public modules (``engine``, ``engine.results``,
``engine.app_support``): one ``TYPE_CHECKING`` block per module names its public names,
and that same block drives its ``__all__`` and its PEP 562 ``__getattr__``.

A name loads on first use; a class or function then has its ``__module__`` rewritten to the
public module, so its ``repr`` says ``engine.ScoreMatrix`` rather than the private file it lives in
(as scipy does for its public API). Constants and type aliases are left as they are.
"""

from __future__ import annotations

import ast
import contextlib
import importlib
import types
import warnings
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

__all__ = ["Home", "homes", "lazy_module"]

#: a public name → (module relative to ``engine``, the name it has there)
Home = tuple[str, str]


def homes(path: str | Path) -> dict[str, Home]:
    """Each public name of the module at ``path`` → where it is defined, read from the
    module's ``TYPE_CHECKING`` block (``from .x import a as b`` exports ``a`` of ``.x`` as
    ``b``)."""
    tree = ast.parse(Path(path).read_text(encoding="utf-8"))
    block = next(node for node in tree.body
                 if isinstance(node, ast.If) and getattr(node.test, "id", "") == "TYPE_CHECKING")
    return {alias.asname or alias.name: ("." * node.level + (node.module or ""), alias.name)
            for node in block.body if isinstance(node, ast.ImportFrom) for alias in node.names}


def _publish(value: Any, module: str) -> None:
    """Say ``module.name`` in the repr of a class or function (not of constants or aliases)."""
    if not isinstance(value, type | types.FunctionType) and not hasattr(value, "__wrapped__"):
        return
    if not getattr(value, "__module__", "engine").startswith("engine"):
        return  # a name some other library defines keeps its own home
    with contextlib.suppress(AttributeError, TypeError):  # built-in or read-only: leave it
        value.__module__ = module


def lazy_module(module: str, table: Callable[[], Mapping[str, Home]], globs: dict[str, Any],
                moved: Mapping[str, str] | None = None,
                ) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``__getattr__`` and ``__dir__`` for the public module ``module`` (its ``globals()``
    are ``globs``) whose names ``table()`` lists. ``moved`` maps an old name no longer in
    the table to the public module that now has it: it still resolves, with a
    ``DeprecationWarning`` naming the new place, and is not in ``__all__``."""
    moved = {} if moved is None else moved  # the same dict: the module may add to it

    def __getattr__(name: str) -> Any:
        if name == "__all__":
            return sorted(table())
        home = table().get(name)
        if home is None:
            if name in moved:
                warnings.warn(f"{module}.{name} moved: import it from {moved[name]}",
                              DeprecationWarning, stacklevel=2)
                return getattr(importlib.import_module(moved[name]), name)
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        where, defined = home
        value = getattr(importlib.import_module(where, "engine"), defined)
        _publish(value, module)
        globs[name] = value  # later look-ups skip this function
        return value

    def __dir__() -> list[str]:
        return sorted({*globs, *table()})

    return __getattr__, __dir__
