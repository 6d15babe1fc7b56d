"""Every docstring example in the engine runs and prints what it says (doctest).

The examples are the first code a user copies; running them here keeps them true.
Collected per module (``engine.__main__`` is left out: importing it runs the CLI).
"""

from __future__ import annotations

import doctest
import importlib
import inspect
import pkgutil
from types import ModuleType
from typing import Any

import pytest

import engine

MODULES = sorted(info.name for info in pkgutil.walk_packages(engine.__path__, "engine.")
                 if not info.name.endswith("__main__"))


def _globals_of(obj: object) -> dict[str, Any] | None:
    """The globals a function (or a class's first method) was written with; None if none."""
    obj = inspect.unwrap(obj) if callable(obj) else obj  # type: ignore[arg-type]
    if inspect.isfunction(obj):
        return obj.__globals__
    if inspect.isclass(obj):
        for member in vars(obj).values():
            member = getattr(member, "__func__", member)  # classmethod, staticmethod
            if inspect.isfunction(member):
                return member.__globals__
    return None


class _HomeFinder(doctest.DocTestFinder):
    """A finder that takes an object's examples from the module that wrote it, also once the
    lazy tables of ``engine``, ``engine.results`` and ``engine.app_support`` have rewritten
    its ``__module__`` to say where it is public: the examples run with the globals they
    were written with (doctest's own finder goes by ``__module__``)."""

    def _from_module(self, module: ModuleType | None, object: object) -> bool:  # noqa: A002
        home = _globals_of(object)
        if module is not None and home is not None:
            return home is module.__dict__
        return bool(super()._from_module(module, object))  # type: ignore[misc]


def test_the_engine_has_examples() -> None:
    found = sum(len(_HomeFinder().find(importlib.import_module(name))) for name in MODULES)
    assert found > 20


@pytest.mark.slow
@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_run(name: str) -> None:
    module = importlib.import_module(name)
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS,
                                   verbose=False)
    for test in _HomeFinder().find(module, name):
        runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, f"{name}: {result.failed} of {result.attempted} examples failed"
