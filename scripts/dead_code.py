"""Functions, methods and classes of ``engine/`` and ``app/`` that nothing outside ``tests/`` uses.

Two passes, each a candidate list to check with grep before deleting anything:

1. vulture (https://github.com/jendrikseipp/vulture) over the code that may call them —
   ``engine``, ``app`` (the Streamlit pages are files under ``app/views`` that vulture
   reads like any module), ``scripts`` and ``benchmarks`` — with ``tests`` left out, so
   what only a test calls is reported. Only functions, methods, properties and classes of
   ``engine/`` and ``app/`` are printed (a dataclass field vulture calls an unused
   variable is part of a result's record, not furniture).
2. The public tables (``engine/__init__.py``, ``engine/results.py``,
   ``engine/app_support.py``): their ``TYPE_CHECKING`` imports count as uses for
   vulture, so each name they export is looked up in the same code outside the tables;
   one found nowhere is API that only tests, docs or users call (listed, not deleted).

vulture is not a dependency of the project: run this with an interpreter that has it, e.g.
``python3 -m venv /tmp/vulturevenv && /tmp/vulturevenv/bin/pip install vulture`` then
``/tmp/vulturevenv/bin/python scripts/dead_code.py``. Exit code 1 when pass 1 finds
anything not in :data:`KEPT`.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import vulture

ROOT = Path(__file__).resolve().parents[1]
CALLERS = ("engine", "app", "scripts", "benchmarks")
REPORTED = ("engine/", "app/")
TABLES = ("engine/__init__.py", "engine/results.py", "engine/app_support.py")
KINDS = ("function", "method", "property", "class")
#: Used by a framework, not by a call vulture can see: name -> why.
KEPT = {
    "_on_connect": "SQLAlchemy event listener (@event.listens_for)",
    "_on_begin": "SQLAlchemy event listener (@event.listens_for)",
}


def vulture_candidates() -> list[str]:
    finder = vulture.Vulture()
    finder.scavenge([str(ROOT / folder) for folder in CALLERS])
    out = []
    for item in finder.get_unused_code(min_confidence=60):
        path = Path(item.filename).resolve().relative_to(ROOT).as_posix()
        if item.typ in KINDS and path.startswith(REPORTED) and item.name not in KEPT:
            out.append(f"{path}:{item.first_lineno}: unused {item.typ} {item.name!r}")
    return sorted(out)


def _identifiers(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Name):
            names.add(node.id)
        elif isinstance(node, ast.Attribute):
            names.add(node.attr)
        elif isinstance(node, ast.alias):
            names.add(node.name.rsplit(".", 1)[-1])
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) \
                and node.value.isidentifier():
            names.add(node.value)
    return names


def _exported(path: Path) -> list[str]:
    """The names a public table imports in its ``if TYPE_CHECKING:`` block."""
    names = []
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for child in ast.walk(node):
                if isinstance(child, ast.ImportFrom):
                    names += [a.asname or a.name for a in child.names]
    return names


def api_used_only_outside_the_code() -> list[str]:
    tables = {ROOT / t for t in TABLES}
    used: set[str] = set()
    for folder in CALLERS:
        for path in (ROOT / folder).rglob("*.py"):
            if path not in tables:
                used |= _identifiers(path)
    return sorted(f"{table}: {name}" for table in TABLES
                  for name in _exported(ROOT / table) if name not in used)


def main() -> int:
    found = vulture_candidates()
    print(f"1. no caller outside tests ({len(found)}):")
    print("\n".join(f"   {line}" for line in found) or "   none")
    api = api_used_only_outside_the_code()
    print(f"2. public names no code outside the tables uses ({len(api)}):")
    print("\n".join(f"   {line}" for line in api) or "   none")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
