"""A public board's per-item results, one file per system, as the canonical long table.

Public boards publish their item-level results in a few shapes, each read here:

* a JSON list of the ids a system resolved (SWE-bench's per-instance lists), or a text
  file with one id per line; with the full item list (``instances.json`` /
  ``instances.txt`` beside them, or ``instances=``), since a list of what was resolved
  says nothing of the items it did not resolve;
* SWE-bench's ``results.json`` (``{"resolved": [...], "no_apply": [...], ...}``, in
  ``<system>/results/results.json`` of the experiments repository) and the harness report
  (``resolved_ids``, ``unresolved_ids``, ``error_ids``, ``empty_patch_ids``, …): every id
  the report names is an item, and an item a system did not resolve scores 0, as the board
  counts it (its share resolved is over all items);
* per-problem scores: BigCodeBench's ``eval_results.json`` (``{"eval": {task: [{"status":
  "pass"}, ...]}}``: the share of passing samples) and a JSON list of records with an id
  (``question_id``, ``task_id``, ``instance_id``, ``problem_id``, ``example_id``) and a
  score (``pass@1``, ``pass1``, ``score``, ``resolved``, ``passed``), as LiveCodeBench
  writes; a problem a system's file leaves out is missing for that system, not a failure;
* one JSON object mapping each system to its list of resolved ids (a whole board in one
  file).

The system is the file's stem (``<system>.json``), or the folder above ``results/`` for a
``results.json``. Anything else returns None: the caller reads it as any result file
(eval-arena's ``{"benchmark_id", "model", "example_id", "pass1"}`` records, a CSV, harness
logs). Reading stays within :class:`~engine.io._limits.Limits`: bytes, bracket depth,
systems and rows are checked before and after parsing, and nothing is stored.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .._contract import DataContractError, Problem, validate_long
from ._checks import check_counts
from ._limits import Limits, limit_error, nesting_depth

__all__ = ["INSTANCE_FILES", "BoardFiles", "read_board"]

#: Names of the full item list inside a board folder (never read as a system).
INSTANCE_FILES = ("instances.json", "instances.txt", "instance_ids.json", "instance_ids.txt")
_ID_KEYS = ("question_id", "task_id", "instance_id", "problem_id", "example_id")
_SCORE_KEYS = ("pass@1", "pass1", "score", "resolved", "passed")
#: the harness report's id lists (every id it names is an item of the board)
_REPORT_LISTS = ("resolved_ids", "unresolved_ids", "error_ids", "empty_patch_ids",
                 "completed_ids", "submitted_ids", "incomplete_ids")


@dataclass(frozen=True)
class _System:
    """One system's file: ``scores`` per item it names; ``resolved_only``: a bare list of
    resolved ids (it names no other item); ``counts_missing_as_zero``: an item the file
    does not name scored 0 (resolved lists and reports), else missing (per-problem scores)."""

    name: str
    scores: dict[str, float]
    resolved_only: bool
    counts_missing_as_zero: bool
    source: str


@dataclass(frozen=True)
class BoardFiles:
    """What :func:`read_board` read: the long table and where it came from."""

    frame: pd.DataFrame
    benchmark: str
    metric: str
    n_items: int
    sources: tuple[str, ...]
    item_source: str | None


def _bad(source: str, rule: str, fix: str) -> DataContractError:
    return DataContractError([Problem(source, rule=rule, fix=fix)])


def _load_json(path: Path, limits: Limits, budget: list[int]) -> Any:
    """``path`` parsed as JSON within the byte and depth limits (``budget``: bytes left)."""
    size = path.stat().st_size
    if size > budget[0]:
        raise limit_error(str(path), "max_bytes", limits,
                          "the board's files hold more bytes than one upload may")
    budget[0] -= size
    data = path.read_bytes()
    if nesting_depth(data, stop_above=limits.max_depth) > limits.max_depth:
        raise limit_error(str(path), "max_depth", limits,
                          f"a JSON document nests brackets more than {limits.max_depth} levels deep")
    try:
        return json.loads(data)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise _bad(str(path), f"not valid JSON ({exc})",
                   "write the file as JSON (a list of resolved ids, or a results report)") from None


def _ids(values: object, source: str, key: str) -> list[str]:
    if not isinstance(values, list) or not all(isinstance(v, str | int) for v in values):
        raise _bad(source, f"{key!r} must be a list of item ids (text)",
                   f"write {key!r} as a JSON list of ids, e.g. [\"django__django-11099\"]")
    return [str(v) for v in values]


def _per_problem(records: list[Any], source: str) -> dict[str, float] | None:
    """LiveCodeBench-style records ``{id key, score key}`` → scores; None if not that shape."""
    if not records or not all(isinstance(r, dict) for r in records):
        return None
    id_key = next((k for k in _ID_KEYS if k in records[0]), None)
    score_key = next((k for k in _SCORE_KEYS if k in records[0]), None)
    if id_key is None or score_key is None:
        return None
    out: dict[str, float] = {}
    for row, rec in enumerate(records, start=1):
        value = rec.get(score_key)
        if isinstance(value, bool):
            value = float(value)
        if rec.get(id_key) is None or not isinstance(value, int | float) \
                or not np.isfinite(value):
            raise DataContractError([Problem(
                source, rule=f"each record needs {id_key!r} and a finite number {score_key!r}",
                column=score_key, rows=(row,), fix="give every problem its id and its score")])
        key = str(rec[id_key])
        if key in out:
            raise DataContractError([Problem(
                source, rule=f"problem {key!r} is listed twice", column=id_key, rows=(row,),
                fix="keep one record per problem (average repeated tries first)")])
        out[key] = float(value)
    return out


def _system(path: Path, doc: Any, name: str) -> _System | None:
    """One system's file as scores, or None when it has none of the board shapes."""
    source = str(path)
    if isinstance(doc, list) and all(isinstance(v, str) for v in doc):
        return _System(name, dict.fromkeys(doc, 1.0), True, True, source)
    if isinstance(doc, list):
        scores = _per_problem(doc, source)
        return None if scores is None else _System(name, scores, False, False, source)
    if not isinstance(doc, dict):
        return None
    if "resolved_ids" in doc:  # the harness report
        named = {key: _ids(doc[key], source, key) for key in _REPORT_LISTS if key in doc}
        scores = {i: 0.0 for ids in named.values() for i in ids}
        scores.update(dict.fromkeys(named["resolved_ids"], 1.0))
        return _System(name, scores, False, True, source)
    if "resolved" in doc and isinstance(doc["resolved"], list):  # experiments' results.json
        lists = {k: _ids(v, source, k) for k, v in doc.items() if isinstance(v, list)}
        scores = {i: 0.0 for ids in lists.values() for i in ids}
        scores.update(dict.fromkeys(lists["resolved"], 1.0))
        return _System(name, scores, False, True, source)
    if isinstance(doc.get("eval"), dict):  # BigCodeBench's eval_results.json
        scores = {}
        for task, samples in doc["eval"].items():
            if not isinstance(samples, list) or not samples or not all(
                    isinstance(s, dict) and "status" in s for s in samples):
                raise _bad(source, f"task {task!r}: 'eval' must map each task to a list of "
                                   "samples with a 'status'",
                           "use BigCodeBench's eval_results.json as written by its evaluator")
            scores[str(task)] = float(np.mean([s["status"] == "pass" for s in samples]))
        return _System(name, scores, False, False, source)
    return None


def _text_ids(path: Path, limits: Limits, budget: list[int]) -> list[str]:
    size = path.stat().st_size
    if size > budget[0]:
        raise limit_error(str(path), "max_bytes", limits,
                          "the board's files hold more bytes than one upload may")
    budget[0] -= size
    try:
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError:
        raise _bad(str(path), "not UTF-8 text", "save the id list as UTF-8, one id per line") \
            from None
    return [line.strip() for line in text.splitlines() if line.strip()]


def _item_list(path: Path, limits: Limits, budget: list[int]) -> list[str]:
    if path.suffix == ".txt":
        ids = _text_ids(path, limits, budget)
    else:
        doc = _load_json(path, limits, budget)
        ids = _ids(doc, str(path), "instances")
    if len(set(ids)) != len(ids):
        dup = pd.Series(ids)[pd.Series(ids).duplicated()].iloc[0]
        raise _bad(str(path), f"item {dup!r} is listed twice", "list every item once")
    return ids


def _system_name(path: Path, root: Path) -> str:
    """``<system>.json`` → its stem; ``<system>/results/results.json`` (SWE-bench's
    experiments layout) and ``<system>/results.json`` → the system's folder."""
    if path.name in ("results.json", "report.json", "eval_results.json") and path.parent != root:
        folder = path.parent.parent if path.parent.name == "results" else path.parent
        return folder.name
    return path.stem


def _candidates(root: Path) -> list[Path]:
    files = sorted(p for p in root.rglob("*") if p.is_file() and p.suffix in (".json", ".txt")
                   and p.name not in INSTANCE_FILES and not p.name.startswith("."))
    return files


def read_board(path: str | Path, *, instances: str | Path | None = None,
               benchmark: str | None = None, limits: Limits | None = None,
               isolated: bool = False) -> BoardFiles | None:
    """A public board's per-system files (a folder, or one JSON file mapping each system to
    its resolved ids) as the canonical long table; None when ``path`` is no board file.

    Parameters
    ----------
    path : str or Path
        The folder of per-system files, or one board file.
    instances : str or Path, optional
        The full item list (JSON list or one id per line); default ``instances.json`` or
        ``instances.txt`` in the folder. Needed when every file is a bare resolved list.
    benchmark : str, optional
        The benchmark's name (default: the folder's or file's name).
    limits : Limits, optional
        Bytes, depth, systems and rows allowed (default :class:`Limits`' defaults).
    isolated : bool
        Parse in the memory-capped child with the time limit (:mod:`._board_child`), as
        every upload is read; the CLI and the app do.

    Returns
    -------
    BoardFiles or None
        ``frame``: benchmark, system, example_id, metric (``resolved`` for resolved lists,
        ``pass@1`` for per-problem scores), value.

    Raises
    ------
    DataContractError
        Naming the file, the rule and the fix: an id outside the item list, one system
        only, bare resolved lists without the item list, limits exceeded.
    """
    limits = Limits() if limits is None else limits
    if isolated:
        from ._board_child import read_board_isolated

        answer: BoardFiles | None = read_board_isolated(path, instances=instances,
                                                        benchmark=benchmark, limits=limits)
        return answer
    root = Path(path)
    budget = [limits.max_bytes]
    if root.is_dir():
        files = _candidates(root)
        if len(files) > limits.max_systems + 1:
            raise limit_error(str(root), "max_systems", limits,
                              f"the folder holds {len(files):,} files, one per system")
        systems: list[_System] = []
        for f in files:
            if f.suffix == ".txt":
                systems.append(_System(_system_name(f, root), dict.fromkeys(
                    _text_ids(f, limits, budget), 1.0), True, True, str(f)))
                continue
            found = _system(f, _load_json(f, limits, budget), _system_name(f, root))
            if found is not None:
                systems.append(found)
        if not systems:
            return None
        default_items = next((root / n for n in INSTANCE_FILES if (root / n).is_file()), None)
    elif root.is_file() and root.suffix == ".json":
        doc = _load_json(root, limits, budget)
        if not (isinstance(doc, dict) and doc and all(
                isinstance(v, list) and all(isinstance(i, str) for i in v) for v in doc.values())):
            one = _system(root, doc, root.stem)
            if one is not None:
                raise _bad(str(root), "one system's results: a board needs two systems or more",
                           "put one file per system in a folder and give the folder")
            return None
        systems = [_System(str(k), dict.fromkeys(v, 1.0), True, True, str(root))
                   for k, v in doc.items()]
        default_items = None
    else:
        return None
    return _assemble(root, systems, instances, default_items, benchmark, limits, budget)


def _assemble(root: Path, systems: Sequence[_System], instances: str | Path | None,
              default_items: Path | None, benchmark: str | None, limits: Limits,
              budget: list[int]) -> BoardFiles:
    names = [s.name for s in systems]
    seen: dict[str, str] = {}
    for s in systems:
        if s.name in seen:
            raise _bad(s.source, f"system {s.name!r} is also given by {seen[s.name]}",
                       "give each system one file (rename one of them)")
        seen[s.name] = s.source
    if len(systems) < 2:
        raise _bad(str(root), f"only one system ({names[0]!r}): a board needs two or more",
                   "add the other systems' files to the folder")
    items_path = Path(instances) if instances is not None else default_items
    per_problem = [s for s in systems if not s.counts_missing_as_zero]
    if per_problem and len(per_problem) != len(systems):
        raise _bad(per_problem[0].source, "per-problem scores mixed with resolved lists",
                   "give one kind of file per board (all resolved lists, or all scores)")
    if items_path is not None:
        items = _item_list(items_path, limits, budget)
        known = set(items)
        for s in systems:
            extra = [i for i in s.scores if i not in known]
            if extra:
                raise _bad(s.source, f"item {extra[0]!r} is not in the item list {items_path} "
                                     f"({len(extra)} such item(s))",
                           "give the full item list of this board (or correct the id)")
    elif any(s.resolved_only for s in systems):
        bare = next(s for s in systems if s.resolved_only)
        raise _bad(bare.source, "a list of resolved ids says nothing of the items it did not "
                                "resolve, so the share resolved has no denominator",
                   "give the full item list: --instances FILE, or instances.json (a JSON list "
                   "of ids) in the folder")
    else:
        items = sorted({i for s in systems for i in s.scores})
    metric = "resolved" if not per_problem else "pass@1"
    bench = benchmark or (root.stem if root.is_file() else root.name) or "board"
    n = len(items)
    if n * len(systems) > limits.max_rows:
        raise limit_error(str(root), "max_rows", limits,
                          f"{len(systems):,} systems × {n:,} items make more rows than one upload may")
    position = {item: j for j, item in enumerate(items)}
    values = np.full((len(systems), n), np.nan if per_problem else 0.0)
    for i, s in enumerate(systems):
        for item, score in s.scores.items():
            values[i, position[item]] = score
    keep = ~np.isnan(values)
    rows, cols = np.nonzero(keep)
    frame = pd.DataFrame({"benchmark": bench, "system": np.asarray(names, dtype=object)[rows],
                          "example_id": np.asarray(items, dtype=object)[cols],
                          "metric": metric, "value": values[keep]})
    check_counts(frame, str(root), limits)
    frame = validate_long(frame, source=str(root))
    return BoardFiles(frame, bench, metric, n, tuple(s.source for s in systems),
                      None if items_path is None else str(items_path))

