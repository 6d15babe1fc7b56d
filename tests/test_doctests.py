"""Every docstring example in the engine runs and prints what it says (doctest).

The examples are the first code a user copies; running them here keeps them true.
Collected per module (``engine.__main__`` is left out: importing it runs the CLI).
"""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import engine

MODULES = sorted(info.name for info in pkgutil.walk_packages(engine.__path__, "engine.")
                 if not info.name.endswith("__main__"))


def test_the_engine_has_examples() -> None:
    found = sum(len(doctest.DocTestFinder().find(importlib.import_module(name)))
                for name in MODULES)
    assert found > 20


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_run(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS,
                             verbose=False, report=True)
    assert result.failed == 0, f"{name}: {result.failed} of {result.attempted} examples failed"
