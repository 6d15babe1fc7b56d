"""Every Eval Ever (EEE) records of a long table, with sigboard's uncertainty filled in.

:func:`write_eee` writes, per (benchmark, system), one aggregate record ``{uuid}.json``
(schema 0.3.0, ``EvaluationLog``) and its instance-level companion ``{uuid}_samples.jsonl``
(``InstanceLevelEvaluationLog``), in the datastore layout the package's validator checks:
``DIR/data/<benchmark>/<developer>/<model>/<uuid>.json``. The directory names follow the
package's rule (``every_eval_ever.helpers.io.datastore_path_components``): the developer is
the model id's first ``/`` part, the rest is the model with ``/`` → ``_``, ``:`` → ``_``;
characters no portable file name may hold become ``_`` too (the validator then warns that
directory and id are spelt differently). A system name without ``/`` is its own developer
(the schema has no "unknown" developer).

Each metric of the benchmark is one ``evaluation_results[]`` entry, ``evaluation_result_id``
= the metric, ``evaluation_name`` = ``source_data.dataset_name`` = the benchmark, and its
``score_details`` are the leaderboard's (:func:`engine.products.leaderboard`, the one every
page shows): ``score`` = the estimate (the mean, or the additive model's adjusted mean when
not every system scored every example), ``uncertainty.confidence_interval`` = its 1 − alpha
interval (Wilson for 0/1 scores, t otherwise, with the seed variance of repeated runs when
the runs disagree; ``method`` says which),
``uncertainty.standard_error`` = s / √n over the system's per-example scores (runs averaged
first), ``standard_deviation`` = s and ``num_samples`` = n; ``details`` name the pairwise
test and correction behind the rank and letters, the rank, the simultaneous rank set and
the group. A benchmark with one system has no test: the interval alone.

One instance record per (example, metric, run): ``sample_id`` = example_id, ``evaluation.score``
= value, ``is_correct`` = the better value for a 0/1 metric (else ``score > 0``, as the package's
converters write it), ``input.raw`` / ``input.reference`` / ``output.raw`` = the texts when the
table has them (empty otherwise: the schema requires the fields), ``metadata.run`` = the run,
``metadata.content_hash`` = the example's content hash (how sigboard pairs examples).
Other columns go to ``model_info.additional_details`` when they hold one value on all of a
system's rows (system metadata), else to each instance record's ``metadata`` as
``sigboard:<column>`` (example metadata), as text; with the
required ``deployment_type`` and ``model_availability`` ``unknown`` (sigboard does not know
them). :func:`engine.harness.read_harness` reads the records back to the same rows.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .._contract import REQUIRED_COLUMNS, MetricSpec
from .._matrix import build_matrix

__all__ = ["EXAMPLE_PREFIX", "SCHEMA_VERSION", "EeeExport", "write_eee"]

#: the EEE schema version the records follow (every-eval-ever 0.3.0)
SCHEMA_VERSION = "0.3.0"
#: an instance record's ``metadata`` key of an example metadata column (``sigboard:difficulty``)
EXAMPLE_PREFIX = "sigboard:"
_TEXTS = ("prompt", "reference", "output", "content_hash")
_UNPORTABLE = re.compile(r'[<>:"\\|?*\x00-\x1f/]')
_RESERVED = {"CON", "PRN", "AUX", "NUL", *(f"COM{i}" for i in range(1, 10)),
             *(f"LPT{i}" for i in range(1, 10))}


@dataclass(frozen=True)
class EeeExport:
    """What :func:`write_eee` wrote: ``files`` (paths, aggregates and samples), the count
    of aggregate records and of instance records."""

    files: tuple[Path, ...]
    aggregates: int
    instances: int


def _component(text: str) -> str:
    """One portable directory name (the package's rule, plus ``_`` for what it would refuse)."""
    out = _UNPORTABLE.sub("_", text.strip()).rstrip(". ") or "_"
    if out.split(".", 1)[0].upper() in _RESERVED or out == "data":
        out = f"{out}_"
    return out


def _where(benchmark: str, system: str) -> tuple[str, str, str]:
    parts = system.strip().split("/")
    developer = parts[0] if len(parts) > 1 else system
    model = "_".join(_component(p) for p in parts[1:]) if len(parts) > 1 else system
    return (_component(benchmark.replace("/", "_")), _component(developer), _component(model))


def _uuid4(*keys: str) -> str:
    """A UUID of version 4 form (the validator's file-name pattern), stable for the keys."""
    h = bytearray(hashlib.sha256("\x1f".join(keys).encode("utf-8")).digest()[:16])
    h[6] = (h[6] & 0x0F) | 0x40
    h[8] = (h[8] & 0x3F) | 0x80
    x = h.hex()
    return f"{x[:8]}-{x[8:12]}-{x[12:16]}-{x[16:20]}-{x[20:]}"


def _text(value: Any) -> str | None:
    if value is None or (not isinstance(value, list | tuple | dict | np.ndarray)
                         and bool(pd.isna(value))):
        return None
    return str(value)


def _finite(x: Any) -> bool:
    return isinstance(x, int | float | np.floating | np.integer) and math.isfinite(float(x))


def _uncertainty(values: np.ndarray, binary: bool, level: float,
                 board: Any, system: str) -> tuple[float, dict[str, Any], dict[str, str]]:
    """The score, its uncertainty block and the details of one system on one metric."""
    from ..products._leaderboard import _confidence_intervals

    row = values[~np.isnan(values)]
    n = int(row.size)
    sd = float(np.std(row, ddof=1)) if n > 1 else float("nan")
    details: dict[str, str] = {}
    if board is not None:
        table = board.table.set_index("system")
        mean, low, high = (float(table.at[system, k]) for k in ("mean", "ci_low", "ci_high"))
        partial = board.source is not None and board.source.pairing == "partial"
        details = {"sigboard_estimate": "adjusted mean (additive system + example model)"
                   if partial else "mean",
                   "sigboard_test": str(board.test),
                   "sigboard_correction": str(board.options.correction),
                   "sigboard_alpha": repr(float(board.options.alpha)),
                   "sigboard_paired": str(bool(board.paired)).lower(),
                   "sigboard_rank": str(int(table.at[system, "rank"])),
                   "sigboard_group": str(table.at[system, "group"])}
        sets = board.rank_sets
        if sets is not None:
            st = sets.table.set_index("system")
            details["sigboard_rank_set"] = (f"{int(st.at[system, 'rank_set_low'])}-"
                                            f"{int(st.at[system, 'rank_set_high'])}")
            details["sigboard_rank_set_kind"] = str(sets.kind)
        pooled = board.pairwise.pooled_runs
        seeds = pooled is not None and pooled.var_run > 0
        method = ("t, adjusted means" if partial else "wilson" if binary else "t")
        if seeds:  # engine.stats._runs.mean_intervals_with_runs: s²/n + σ²_run/R, Satterthwaite df
            method += " with the seed variance of repeated runs (Satterthwaite df)"
    else:  # one system: its interval, no test
        m, lo, hi, _ = _confidence_intervals(row[None, :], binary, level)
        mean, low, high = float(m[0]), float(lo[0]), float(hi[0])
        method = "wilson" if binary else "t"
        details = {"sigboard_estimate": "mean", "sigboard_test": "none (one system)"}
    unc: dict[str, Any] = {"num_samples": n}
    if n > 1 and _finite(sd):
        unc["standard_deviation"] = sd
        unc["standard_error"] = {"value": sd / math.sqrt(n),
                                 "method": "analytic (sample standard deviation / sqrt(n) "
                                           "over examples, runs averaged first)"}
    if _finite(low) and _finite(high):
        unc["confidence_interval"] = {"lower": low, "upper": high, "confidence_level": level,
                                      "method": method}
    return mean, unc, details


def _system_details(part: pd.DataFrame, extra: list[str]) -> tuple[dict[str, str], list[str]]:
    """The system's metadata (columns with one value on all its rows) and the other extra
    columns (example metadata: one value per row, written to each instance record)."""
    out = {"deployment_type": "unknown", "model_availability": "unknown"}
    per_row = []
    for col in extra:
        vals = part[col].dropna().unique()
        if len(vals) == 1 and col not in out and part[col].notna().all():
            out[col] = str(vals[0])
        elif len(vals):
            per_row.append(col)
    return out, per_row


def write_eee(frame: pd.DataFrame, out_dir: str | Path, *,
              specs: Mapping[tuple[str, str], MetricSpec] | None = None,
              alpha: float = 0.05, retrieved: str | None = None,
              source_organization: str = "sigboard",
              library_version: str = "unknown") -> EeeExport:
    """Write the long table as EEE records under ``out_dir/data/``.

    Parameters
    ----------
    frame : DataFrame
        A validated long table (:func:`engine.validate_long`, a reader's or the store's).
    out_dir : path
        Where ``data/<benchmark>/<developer>/<model>/`` is made (created when missing).
    specs : mapping, optional
        ``(benchmark, metric) → MetricSpec``: directions and modality (default: higher is
        better, detected).
    alpha : float
        Intervals at 1 − alpha; the tests behind rank and letters at alpha.
    retrieved : str, optional
        ``retrieved_timestamp`` (Unix seconds as text); default: now.
    source_organization : str
        ``source_metadata.source_organization_name``.
    library_version : str
        ``eval_library.version`` (``eval_library.name`` is sigboard).

    Returns
    -------
    EeeExport
        The files written and the counts of records.

    Raises
    ------
    ValueError
        ``alpha`` outside (0, 1), or a table without the canonical columns.
    """
    import time

    from ..products._leaderboard import leaderboard

    if not 0 < alpha < 1:
        raise ValueError(f"alpha: must be in (0, 1); got {alpha!r}")
    missing = [c for c in REQUIRED_COLUMNS if c not in frame.columns]
    if missing:
        raise ValueError(f"frame: missing column(s) {', '.join(missing)}; pass the canonical "
                         "long table (benchmark, system, example_id, metric, value)")
    specs = dict(specs or {})
    stamp = retrieved if retrieved is not None else repr(time.time())
    level = 1 - alpha
    has_run = "run" in frame.columns
    extra = [c for c in frame.columns if c not in (*REQUIRED_COLUMNS, "run", *_TEXTS)]
    root = Path(out_dir)
    written: list[Path] = []
    n_inst = 0
    for bench_key, bpart in frame.groupby("benchmark", sort=True):
        bench = str(bench_key)
        results: dict[str, dict[str, dict[str, Any]]] = {}  # system -> metric -> result
        for metric_key, mpart in bpart.groupby("metric", sort=True):
            name = str(metric_key)
            spec = specs.get((bench, name), MetricSpec())
            matrix = build_matrix(mpart, benchmark=bench, metric=name, spec=spec)
            board = leaderboard(matrix, alpha=alpha) if matrix.n_systems > 1 else None
            for i, system in enumerate(matrix.systems):
                score, unc, details = _uncertainty(matrix.values[i], matrix.binary, level,
                                                   board, system)
                config: dict[str, Any] = {
                    "evaluation_description": f"{name} on {bench}, as sigboard read it",
                    "metric_id": name, "metric_name": name,
                    "lower_is_better": not matrix.higher_is_better}
                if matrix.binary:
                    config.update(score_type="binary", min_score=0.0, max_score=1.0)
                else:
                    config.update(score_type="continuous", min_score="-Infinity",
                                  max_score="Infinity")
                results.setdefault(system, {})[name] = {
                    "evaluation_result_id": name, "evaluation_name": bench,
                    "source_data": {"dataset_name": bench, "source_type": "other"},
                    "metric_config": config,
                    "score_details": {"score": score, "details": details, "uncertainty": unc}}
        for system_key, spart in bpart.groupby("system", sort=True):
            system = str(system_key)
            collection, developer, model = _where(bench, system)
            uid = _uuid4(bench, system)
            folder = root / "data" / collection / developer / model
            folder.mkdir(parents=True, exist_ok=True)
            eval_id = f"{bench}/{system}/sigboard"
            binary = {m: r["metric_config"]["score_type"] == "binary"
                      for m, r in results[system].items()}
            lower = {m: r["metric_config"]["lower_is_better"] for m, r in results[system].items()}
            details, per_row = _system_details(spart, extra)
            lines = []
            order = ["metric", "example_id", *(["run"] if has_run else [])]
            records: list[dict[str, Any]] = spart.sort_values(  # type: ignore[assignment]
                order, kind="stable").to_dict(orient="records")
            for rec in records:
                metric, value = str(rec["metric"]), float(rec["value"])
                prompt, ref, output = (_text(rec.get(k)) for k in ("prompt", "reference", "output"))
                refs = ref.split("\n") if ref is not None else []
                correct = (value == (0.0 if lower[metric] else 1.0)) if binary[metric] else value > 0
                meta = {**({"run": str(int(rec["run"]))} if has_run else {}),
                        **({"content_hash": str(rec["content_hash"])}
                           if _text(rec.get("content_hash")) else {}),
                        **{f"{EXAMPLE_PREFIX}{c}": t for c in per_row
                           if (t := _text(rec.get(c))) is not None}} or None
                lines.append(json.dumps({
                    "schema_version": SCHEMA_VERSION, "evaluation_id": eval_id,
                    "model_id": system, "evaluation_name": bench, "evaluation_result_id": metric,
                    "sample_id": str(rec["example_id"]),
                    "sample_hash": hashlib.sha256(((prompt or "") + "".join(refs))
                                                  .encode("utf-8")).hexdigest(),
                    "interaction_type": "single_turn",
                    "input": {"raw": prompt or "", "reference": refs},
                    "output": {"raw": [output] if output is not None else []},
                    "messages": None, "answer_attribution": [],
                    "evaluation": {"score": value, "is_correct": bool(correct)},
                    "metadata": meta}, ensure_ascii=False))
            body = ("\n".join(lines) + "\n").encode("utf-8")
            samples = folder / f"{uid}_samples.jsonl"
            samples.write_bytes(body)
            aggregate = {
                "schema_version": SCHEMA_VERSION, "evaluation_id": eval_id,
                "retrieved_timestamp": stamp,
                "source_metadata": {"source_name": "sigboard", "source_type": "evaluation_run",
                                    "source_organization_name": source_organization,
                                    "evaluator_relationship": "other"},
                "eval_library": {"name": "sigboard", "version": library_version},
                "model_info": {"name": system, "id": system,
                               **({"developer": system} if "/" not in system.strip() else
                                  {"developer": system.strip().split("/")[0]}),
                               "additional_details": details},
                "evaluation_results": list(results[system].values()),
                "detailed_evaluation_results": {
                    "format": "jsonl",
                    "file_path": f"data/{collection}/{developer}/{model}/{uid}_samples.jsonl",
                    "hash_algorithm": "sha256",
                    "checksum": hashlib.sha256(body).hexdigest(), "total_rows": len(lines)}}
            path = folder / f"{uid}.json"
            path.write_text(json.dumps(aggregate, indent=2, ensure_ascii=False) + "\n",
                            encoding="utf-8")
            written += [path, samples]
            n_inst += len(lines)
    return EeeExport(files=tuple(written), aggregates=len(written) // 2, instances=n_inst)
