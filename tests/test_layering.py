"""The engine is UI-free: no engine module imports streamlit, altair or pyvis (or app/).

Checked twice: statically (every ``import`` in ``engine/**/*.py``, including
``importlib.import_module("…")`` / ``__import__("…")`` with a literal name) and at run
time (import every engine module in a fresh interpreter, then look at ``sys.modules``,
which also catches a UI library pulled in through a third-party dependency).
"""

from __future__ import annotations

import ast
import importlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ENGINE = ROOT / "engine"
FORBIDDEN = {"streamlit", "altair", "pyvis", "app"}


def _engine_files() -> list[Path]:
    return sorted(ENGINE.rglob("*.py"))


def _imported_names(source: str, relpath: Path) -> list[tuple[int, str]]:
    """(line, absolute module name) for every import in ``source``, a file at ``relpath``."""
    tree = ast.parse(source, filename=str(relpath))
    package = ".".join(relpath.with_suffix("").parts[:-1])
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                up = node.level - 1
                if up > len(base):
                    found.append((node.lineno, "<relative import above the project root>"))
                    continue
                base = base[: len(base) - up] if up else base
                name = ".".join([*base, *([node.module] if node.module else [])])
                if not base:  # climbed out of engine/ to the top level
                    name = node.module or "<top level>"
            else:
                name = node.module or ""
            found.append((node.lineno, name))
        elif isinstance(node, ast.Call):
            func = node.func
            called = (func.attr if isinstance(func, ast.Attribute)
                      else func.id if isinstance(func, ast.Name) else "")
            if (called in {"import_module", "__import__"} and node.args
                    and isinstance(node.args[0], ast.Constant)
                    and isinstance(node.args[0].value, str)):
                found.append((node.lineno, node.args[0].value))
    return found


def test_engine_has_modules() -> None:
    assert (ENGINE / "__init__.py").is_file()
    assert len(_engine_files()) > 1


@pytest.mark.parametrize("path", _engine_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_engine_module_imports_no_ui(path: Path) -> None:
    bad = [f"{path.relative_to(ROOT)}:{line}: imports {name}"
           for line, name in _imported_names(path.read_text(encoding="utf-8"),
                                             path.relative_to(ROOT))
           if name.split(".")[0] in FORBIDDEN or name.startswith("<")]
    assert not bad, "\n".join(bad)


def test_checker_catches_forbidden_imports() -> None:
    """The static check itself: each spelling of a forbidden import is found."""
    source = (
        "import streamlit as st\n"
        "from altair import Chart\n"
        "import pyvis.network\n"
        "from ..app import main\n"
        "from . import _matrix\n"
        "import importlib\n"
        "importlib.import_module('streamlit')\n"
        "import numpy\n"
    )
    names = [name for _, name in _imported_names(source, Path("engine/probe.py"))]
    assert names.count("streamlit") == 2
    assert {"altair", "pyvis.network", "app", "engine", "numpy"} <= set(names)


def _subprocess_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    return env


@pytest.mark.slow
def test_importing_the_whole_engine_loads_no_ui_library() -> None:
    code = (
        "import importlib, pkgutil, sys\n"
        "import engine\n"
        "for info in pkgutil.walk_packages(engine.__path__, 'engine.'):\n"
        "    if info.name.rsplit('.', 1)[-1] != '__main__':\n"
        "        importlib.import_module(info.name)\n"
        f"bad = sorted(m for m in sys.modules if m.split('.')[0] in {sorted(FORBIDDEN)!r})\n"
        "print(' '.join(bad))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=_subprocess_env(),
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "", f"loaded by importing engine: {result.stdout.strip()}"


def test_cli_help_runs() -> None:
    result = subprocess.run([sys.executable, "-m", "engine", "--help"], cwd=ROOT,
                            env=_subprocess_env(), capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert "usage" in result.stdout.lower()
    for command in ("import", "leaderboard", "pairwise", "health", "compare"):
        assert command in result.stdout, f"`python -m engine {command}` is missing from --help"


# ---------------------------------------------------------------- configuration out of the engine

#: engine modules allowed to look at the environment or at their own file path, and why
CONFIG_READERS = {
    "engine/cli/_common.py": "the CLI's entry point reads SIGBOARD_DB_URL / SIGBOARD_DB_PATH",
    "engine/cli/serve.py": "`serve` passes the environment on to the app, with a default store path",
    "engine/__init__.py": "reads its own TYPE_CHECKING block, the one table of the public API",
    "engine/results.py": "reads its own TYPE_CHECKING block, the table of the result types",
    "engine/app_support.py": "reads its own TYPE_CHECKING block, the table of the app's names",
    "engine/io/_worker.py": "starts the isolated parser with the engine on its PYTHONPATH",
}


def _config_uses(source: str) -> list[tuple[int, str]]:
    """(line, what) for ``os.environ``/``os.getenv``/``__file__`` uses in ``source``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute) and node.attr in {"environ", "getenv", "environb"}:
            found.append((node.lineno, f"os.{node.attr}"))
        elif isinstance(node, ast.Name) and node.id == "__file__":
            found.append((node.lineno, "__file__"))
        elif isinstance(node, ast.ImportFrom) and node.module == "os" and any(
                a.name in {"environ", "getenv"} for a in node.names):
            found.append((node.lineno, "from os import environ/getenv"))
    return found


@pytest.mark.slow
@pytest.mark.parametrize("path", _engine_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_engine_reads_no_configuration(path: Path) -> None:
    """The engine takes explicit arguments: no environment variables, no paths found from its
    own location (``open_store(url)``, ``ensure_demo_data(directory)``); the app reads its
    settings in app/config.py and the CLI in its entry point."""
    rel = str(path.relative_to(ROOT))
    if rel in CONFIG_READERS:
        return
    uses = _config_uses(path.read_text(encoding="utf-8"))
    assert not uses, "\n".join(f"{rel}:{line}: {what}" for line, what in uses)


def test_config_checker_catches_each_spelling() -> None:
    source = "import os\nos.environ.get('X')\nos.getenv('Y')\np = __file__\n"
    assert [what for _, what in sorted(_config_uses(source))] == ["os.environ", "os.getenv", "__file__"]


def test_public_names_resolve() -> None:
    """Every name in ``engine.__all__`` loads from the module the API table names."""
    import engine

    assert sorted(engine.__all__) == sorted(engine._homes())
    assert "ScoreMatrix" in engine.__all__ and "__version__" not in engine.__all__
    for name in engine.__all__:
        assert getattr(engine, name) is not None, name
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        _ = engine.nope  # type: ignore[attr-defined]


def test_cli_help_imports_no_heavy_module() -> None:
    """``python -m engine --help`` starts without pandas, scipy, statsmodels or SQLAlchemy."""
    code = ("import sys, contextlib, io\n"
            "from engine.cli._main import build_parser\n"
            "with contextlib.suppress(SystemExit), contextlib.redirect_stdout(io.StringIO()):\n"
            "    build_parser().parse_args(['--help'])\n"
            "heavy = {'pandas', 'scipy', 'statsmodels', 'sqlalchemy', 'networkx', 'pyarrow'}\n"
            "print(' '.join(sorted(m for m in sys.modules if m.split('.')[0] in heavy)))\n")
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=_subprocess_env(),
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "", f"--help imported: {result.stdout.strip()}"


# ---------------------------------------------------------------- the app uses the public API

APP = ROOT / "app"

#: the modules the app may import: the front door, the result types and the app's provider
APP_MODULES = ("engine", "engine.results", "engine.app_support")


def _public_engine_names() -> dict[str, set[str]]:
    """Each module the app may import → its public names (its lazy table's ``__all__``)."""
    import importlib

    public = {m: set(importlib.import_module(m).__all__) for m in APP_MODULES}
    public["engine"] |= {"__version__", "results", "app_support"}
    return public


def _engine_uses(source: str, public: dict[str, set[str]]) -> list[tuple[int, str]]:
    """(line, what) for each use of the engine in ``source`` other than importing a module
    of ``public`` (``import engine``, ``import engine.results as r``) and its public names
    (``from engine.app_support import md_text``, ``engine.leaderboard``, ``r.Leaderboard``):
    any other submodule (``engine.store``, ``engine.io._readers``, also through
    ``importlib``) or a private or unknown name."""
    aliases: dict[str, str] = {"engine": "engine"}  # a name in the source → the module it is
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name not in public:
                    if alias.name.startswith("engine."):
                        found.append((node.lineno, f"import {alias.name}"))
                elif alias.asname:
                    aliases[alias.asname] = alias.name
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            if node.module in public:
                names = public[node.module]
                found += [(node.lineno, f"from {node.module} import {a.name}")
                          for a in node.names if a.name not in names]
                aliases.update({a.asname or a.name: f"{node.module}.{a.name}"
                                for a in node.names if f"{node.module}.{a.name}" in public})
            elif node.module.startswith("engine."):
                found.append((node.lineno, f"from {node.module} import …"))
        elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
            func = node.func
            called = (func.attr if isinstance(func, ast.Attribute)
                      else func.id if isinstance(func, ast.Name) else "")
            name = node.args[0].value
            if (called in {"import_module", "__import__"} and isinstance(name, str)
                    and name.startswith("engine.") and name not in public):
                found.append((node.lineno, f"{called}({name!r})"))
    for node in ast.walk(ast.parse(source)):  # after the imports: every alias is known
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name | ast.Attribute):
            inner = node.value
            spelled = (f"{inner.id}" if isinstance(inner, ast.Name)
                       else f"{inner.value.id}.{inner.attr}" if isinstance(inner.value, ast.Name)
                       else "")
            head, _, rest = spelled.partition(".")
            module = aliases.get(head, "") + (f".{rest}" if rest and head in aliases else "")
            if head in aliases and module in public and node.attr not in public[module]:
                found.append((node.lineno, f"{spelled}.{node.attr}"))
    return found


def test_engine_use_checker_catches_each_spelling() -> None:
    source = ("import engine\nimport engine as e\nimport engine.store\n"
              "from engine import leaderboard, _homes\nfrom engine.io._readers import is_text\n"
              "from engine.store import OnConflict\nimport importlib\n"
              "importlib.import_module('engine.harness')\n"
              "engine.power\ne._text\nengine.report\n"
              "import engine.results as r\nfrom engine.app_support import md_text, _x\n"
              "r.Leaderboard\nr.Nope\nengine.results.Leaderboard\nengine.app_support.nope\n"
              "importlib.import_module('engine.results')\n")
    public = {"engine": {"leaderboard", "power", "results", "app_support"},
              "engine.results": {"Leaderboard"}, "engine.app_support": {"md_text"}}
    found = [what for _, what in sorted(_engine_uses(source, public))]
    assert found == ["import engine.store", "from engine import _homes",
                     "from engine.io._readers import …", "from engine.store import …",
                     "import_module('engine.harness')", "e._text", "engine.report",
                     "from engine.app_support import _x", "r.Nope", "engine.app_support.nope"]


@pytest.mark.parametrize("path", sorted(APP.rglob("*.py")), ids=lambda p: str(p.relative_to(ROOT)))
def test_app_uses_only_the_public_engine_api(path: Path) -> None:
    """The app imports ``engine``, ``engine.results`` and ``engine.app_support`` and their
    public names (the TYPE_CHECKING table of each), never another submodule or a private
    name: the engine can move its modules without breaking the app."""
    uses = _engine_uses(path.read_text(encoding="utf-8"), _public_engine_names())
    rel = path.relative_to(ROOT)
    assert not uses, "\n".join(f"{rel}:{line}: {what}" for line, what in uses)


def _app_imports(path: Path) -> list[tuple[int, str]]:
    return [(line, name) for line, name in _imported_names(path.read_text(encoding="utf-8"),
                                                           path.relative_to(ROOT))
            if name.split(".")[0] == "app"]


@pytest.mark.parametrize("path", sorted((APP / "data").glob("*.py")),
                         ids=lambda p: str(p.relative_to(ROOT)))
def test_data_layer_draws_on_no_page_part(path: Path) -> None:
    """``app/data`` (the only place the app caches) depends on the engine, the config and the
    charts, never on the pages or their components, which depend on it."""
    bad = [f"{path.relative_to(ROOT)}:{line}: imports {name}" for line, name in _app_imports(path)
           if name.startswith(("app.components", "app.views", "app.widgets", "app.state"))]
    assert not bad, "\n".join(bad)


@pytest.mark.slow
def test_only_the_data_layer_caches() -> None:
    """``st.cache_resource``/``st.cache_data`` appear in ``app/data`` only (and never in the
    engine): one place to look for what is cached and under which key."""
    found = [f"{path.relative_to(ROOT)}:{node.lineno}"
             for path in [*APP.rglob("*.py"), *_engine_files()] if APP / "data" not in path.parents
             for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
             if isinstance(node, ast.Attribute) and node.attr in {"cache_resource", "cache_data"}]
    assert not found, "\n".join(found)


# ---------------------------------------------------------------- the engine's floors

#: The engine's floors, lowest first. A module may import its own folder and the folders of
#: lower floors, never a folder of its own floor nor of one above: each floor answers its
#: question with the answers below it, so a change to a floor cannot break the floors under
#: it and there is no circle between folders. Folders sharing a floor answer independent
#: questions. A "folder" is a subpackage of engine/ or a top-level module; ``engine`` is the
#: front door (engine/__init__.py).
FLOORS: tuple[tuple[str, ...], ...] = (
    # the data contract, test options, escaping, compiled kernels and the kinds of notes:
    # used everywhere, they use nothing of the engine
    ("_contract", "_options", "_text", "_jit", "_notes", "_lazy"),
    ("_moments",),  # per-system count, mean and variance, which the score matrix reads
    ("_matrix",),  # the systems × examples score matrix every computation starts from
    ("_units",),  # how a score and a difference are written (a 0/1 metric, runs too, in %)
    ("io",),  # how a file becomes the canonical long table (limits, formats, readers)
    ("harness",),  # how a harness log becomes that table, with io's readers and limits
    ("intake",),  # the one decision about an upload, over io and harness, in the capped child
    # read-only analytics sources (DuckDB, ClickHouse): a query read as a table upload, in a
    # capped child of its own, shaped by intake's table readers
    ("sources",),
    ("stats",),  # one benchmark: tests, intervals, multiplicity, runs, A/B, power
    # the order of the systems (built on the statistics), and where results live (the store
    # reads io's readers and the statistics' sequences); neither needs the other
    ("ranking", "store"),
    ("across",),  # statistics across benchmarks and metrics (HMP, meta-analysis, Friedman…)
    ("products",),  # what each page shows, from everything below (the Overall product too)
    ("report",),  # the one-file reports of the products
    # server warm-up compiles kernels from anywhere below; only the front door (which names
    # it for the app) and the CLI import it
    ("_warm",),
    # the front door (its lazy table names the workflow of every floor), the result types
    # and what only the app needs: three lazy tables that import only the floors below
    ("engine", "results", "app_support"),
    ("cli",),  # the command line, over everything
    ("__main__",),  # ``python -m engine`` runs the command line
)

#: folder → the floor it lives on
FLOOR_OF = {folder: level for level, floors in enumerate(FLOORS) for folder in floors}

#: Cross-folder circles allowed anyway, each with why; empty: the floors admit none.
ALLOWED_CIRCLES: dict[frozenset[str], str] = {}


def _module_of(path: Path) -> str:
    """``engine/stats/_ab.py`` → ``engine.stats._ab``; a package's ``__init__`` is the package."""
    parts = list(path.with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _folder_of(module: str) -> str:
    """The floor-plan folder of an engine module: ``engine.stats._ab`` → ``stats``,
    ``engine._matrix`` → ``_matrix``, ``engine`` → ``engine`` (the front door)."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "engine"


def _engine_imports(source: str, relpath: Path, modules: set[str]) -> list[tuple[int, str]]:
    """(line, engine module) for every import of the engine in ``source``, a file at
    ``relpath``: ``from .. import _jit`` is an import of ``engine._jit``, ``from ..stats import
    x`` of ``engine.stats`` (unless ``x`` is a module), a name below a module (``import
    engine.io._readers.x``) of the module; imports of other packages are left out."""
    found = []
    is_package = relpath.name == "__init__.py"
    package = _module_of(relpath) if is_package else _module_of(relpath).rpartition(".")[0]
    for node in ast.walk(ast.parse(source, filename=str(relpath))):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                stem = ".".join([*base, *([node.module] if node.module else [])])
            else:
                stem = node.module or ""
            targets = [f"{stem}.{a.name}" if f"{stem}.{a.name}" in modules else stem
                       for a in node.names]
        elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
            func = node.func
            called = (func.attr if isinstance(func, ast.Attribute)
                      else func.id if isinstance(func, ast.Name) else "")
            if called in {"import_module", "__import__"} and isinstance(node.args[0].value, str):
                targets = [node.args[0].value]
        for target in targets:
            while target not in modules and "." in target:
                target = target.rpartition(".")[0]  # a name inside a module: the module
            if target in modules:
                found.append((getattr(node, "lineno", 0), target))  # an import or a call
    return list(dict.fromkeys(found))  # one line importing two names of a module: one edge


def _engine_graph() -> dict[str, list[tuple[int, str]]]:
    """Every engine module → (line, engine module) of each of its imports."""
    files = {_module_of(p.relative_to(ROOT)): p for p in _engine_files()}
    modules = set(files)
    return {m: _engine_imports(p.read_text(encoding="utf-8"), p.relative_to(ROOT), modules)
            for m, p in files.items()}


def _floor_violations(graph: dict[str, list[tuple[int, str]]]) -> list[str]:
    """Each import of a folder of the importer's own floor or above, or of a folder the
    floor plan does not know."""
    bad = []
    for module, imports in sorted(graph.items()):
        here = _folder_of(module)
        for line, target in imports:
            there = _folder_of(target)
            if there == here:
                continue
            if here not in FLOOR_OF or there not in FLOOR_OF:
                bad.append(f"{module}:{line}: imports {target}, and "
                           f"{(here if here not in FLOOR_OF else there)!r} is on no floor")
            elif FLOOR_OF[there] >= FLOOR_OF[here]:
                bad.append(f"{module}:{line}: imports {target} ({there}, floor "
                           f"{FLOOR_OF[there]}) from {here} (floor {FLOOR_OF[here]})")
    return bad


def _crossing_circles(graph: dict[str, list[tuple[int, str]]]) -> list[set[str]]:
    """Strongly connected sets of modules (import circles) spanning more than one folder."""
    import networkx as nx

    g = nx.DiGraph()
    g.add_nodes_from(graph)
    g.add_edges_from((m, t) for m, imports in graph.items() for _, t in imports if t != m)
    return [set(c) for c in nx.strongly_connected_components(g)
            if len({_folder_of(m) for m in c}) > 1]


@pytest.mark.slow
def test_floor_plan_names_every_folder() -> None:
    folders = {_folder_of(m) for m in _engine_graph()}
    assert folders <= set(FLOOR_OF), f"on no floor: {sorted(folders - set(FLOOR_OF))}"
    assert len(FLOOR_OF) == sum(map(len, FLOORS)), "a folder is on two floors"


@pytest.mark.slow
def test_engine_imports_only_lower_floors() -> None:
    """Every import between engine folders goes down the floors (statically, by AST: also
    the imports inside functions and under ``TYPE_CHECKING``)."""
    bad = _floor_violations(_engine_graph())
    assert not bad, "\n".join(bad)


@pytest.mark.slow
def test_no_import_circle_crosses_a_folder() -> None:
    """Circles inside one folder are that folder's business; one between folders means two
    floors depend on each other."""
    circles = [c for c in _crossing_circles(_engine_graph())
               if frozenset({_folder_of(m) for m in c}) not in ALLOWED_CIRCLES]
    assert not circles, "\n".join(
        f"{sorted({_folder_of(m) for m in c})}: {sorted(c)}" for c in circles)


def test_floor_checks_catch_planted_violations() -> None:
    """The floor checks themselves, on a planted tree: a statistic importing a product, a
    lower folder reaching the front door (``from engine import …`` and ``from .. import X``
    for a name of engine/__init__), ``_warm`` imported from below, and a circle
    stats ⇄ ranking, while the legal imports (down the floors, within a folder, ``from ..
    import _jit``) pass."""
    modules = {"engine", "engine._jit", "engine._warm", "engine.stats", "engine.stats._ab",
               "engine.stats._kernels", "engine.ranking._groups", "engine.products._headline",
               "engine.cli._main", "engine.io", "engine.io._readers", "engine.io._limits"}
    planted = {
        Path("engine/stats/_ab.py"): (
            "from ..products._headline import compare_headline\n"  # up: products
            "from .. import _jit\n"  # down: fine
            "from ._kernels import row_moments\n"  # own folder: fine
            "def f():\n    from ..ranking._groups import find_groups\n"),  # up, in a function
        Path("engine/ranking/_groups.py"): (
            "from ..stats._ab import ABComparison\n"  # down: fine, but closes the circle
            "from engine import ScoreMatrix\n"  # the front door from below
            "from .. import leaderboard\n"  # the same, relatively
            "from .._warm import warm_kernels\n"),  # warm-up from below
        Path("engine/cli/_main.py"): "from .._warm import warm_kernels\nimport engine\n",
        Path("engine/io/_readers.py"): "import numpy\nfrom . import _limits\n",
    }
    graph = {_module_of(p): _engine_imports(src, p, modules) for p, src in planted.items()}
    bad = _floor_violations(graph)
    assert [b.split(":")[:2] for b in bad] == [
        ["engine.ranking._groups", "2"], ["engine.ranking._groups", "3"],
        ["engine.ranking._groups", "4"], ["engine.stats._ab", "1"], ["engine.stats._ab", "5"]]
    assert "imports engine.products._headline (products, floor" in bad[3]
    assert [sorted(c) for c in _crossing_circles(graph)] == [
        ["engine.ranking._groups", "engine.stats._ab"]]
    # a folder the plan does not know is an error, not a pass
    unknown = {"engine.newfolder._x": [(1, "engine._jit")]}
    assert _floor_violations(unknown) == [
        "engine.newfolder._x:1: imports engine._jit, and 'newfolder' is on no floor"]


# ---------------------------------------------------------------- the front door in tiers


def test_front_door_is_small_and_every_public_name_is_documented() -> None:
    """``engine`` exports at most 80 names (the workflow); every name of ``engine`` and
    ``engine.results`` resolves, and each class or function says it is public there
    (``__module__``, rewritten by the lazy loader, as scipy does) and has a docstring;
    each constant of the front door is described in the module's docstring."""
    import importlib

    import engine

    assert len(engine.__all__) <= 80, f"{len(engine.__all__)} names in the front door"
    for module in ("engine", "engine.results", "engine.app_support"):
        mod = importlib.import_module(module)
        assert mod.__all__ == sorted(mod._homes()), module
        for name in mod.__all__:
            value = getattr(mod, name)
            assert value is not None, f"{module}.{name}"
            if isinstance(value, type) or callable(value) and hasattr(value, "__code__"):
                assert value.__module__.startswith("engine"), f"{module}.{name}: {value.__module__}"
                assert (value.__doc__ or "").strip(), f"{module}.{name} has no docstring"
                if module != "engine.app_support":
                    assert value.__module__ == module, f"{module}.{name}: {value.__module__}"
                    assert value.__name__ == name, f"{module}.{name}: {value.__name__}"
            elif module == "engine":
                assert f"``{name}``" in (engine.__doc__ or ""), f"engine.{name} is not described"
    assert not set(engine.__all__) & set(importlib.import_module("engine.results").__all__)


def test_a_name_that_left_the_front_door_warns_where_it_went(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A name in ``engine.MOVED`` (one that left the front door while a file still imports
    it from there) resolves to its new home with a DeprecationWarning naming it, and is not
    public; planted here, as the table is empty when every import has moved."""
    import engine
    import engine.app_support

    monkeypatch.setitem(engine.MOVED, "md_text", "engine.app_support")
    monkeypatch.delitem(vars(engine), "md_text", raising=False)
    with pytest.warns(DeprecationWarning, match="engine.md_text moved: import it from engine.app_support"):
        assert engine.md_text is engine.app_support.md_text  # type: ignore[attr-defined]
    assert "md_text" not in engine.__all__
    for name, home in engine.MOVED.items():
        assert name not in engine.__all__ and name in importlib.import_module(home).__all__
