"""The CLI's modules import one another without a circle: the parser and the registry of
commands (``engine/cli/_main.py``) sit on top, the helpers every command shares
(``_common``) below the commands. Every ``import`` counts, inside functions too."""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx

CLI = Path(__file__).resolve().parents[2] / "engine" / "cli"


def _cli_imports(path: Path) -> set[str]:
    """The ``engine.cli`` modules that ``path`` imports (relative or absolute)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level == 1:
                names = [node.module] if node.module else [a.name for a in node.names]
            elif node.level == 0 and (node.module or "").startswith("engine.cli"):
                rest = (node.module or "").removeprefix("engine.cli").lstrip(".")
                names = [rest] if rest else [a.name for a in node.names]
            else:
                continue
            found |= {n.split(".")[0] or "__init__" for n in names}
        elif isinstance(node, ast.Import):
            found |= {a.name.removeprefix("engine.cli.").split(".")[0] for a in node.names
                      if a.name.startswith("engine.cli.")}
    return found


def cli_graph() -> nx.DiGraph:
    modules = {p.stem: p for p in CLI.glob("*.py")}
    graph = nx.DiGraph()
    graph.add_nodes_from(modules)
    for name, path in modules.items():
        graph.add_edges_from((name, other) for other in _cli_imports(path) if other in modules)
    return graph


def test_no_import_circle_among_cli_modules() -> None:
    graph = cli_graph()
    circles = [sorted(c) for c in nx.strongly_connected_components(graph) if len(c) > 1]
    assert circles == []
    assert not any(graph.has_edge(m, m) for m in graph)


def test_only_the_package_imports_the_parser() -> None:
    graph = cli_graph()
    assert sorted(graph.predecessors("_main")) == ["__init__"]
    assert set(graph.successors("_common")) <= {"_text", "_json"}


def test_the_graph_sees_relative_and_function_level_imports(tmp_path: Path) -> None:
    probe = tmp_path / "probe.py"
    probe.write_text("from . import stats, store\nfrom ._common import emit\n"
                     "def f():\n    from .judge import x\n    import engine.cli.watch\n")
    assert _cli_imports(probe) == {"stats", "store", "_common", "judge", "watch"}
