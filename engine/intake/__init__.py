"""One ingest: an upload (a file, a folder, or bytes with a name) → what it holds, decided
and read once, inside the memory-capped child.

:func:`ingest` is the only way the Upload page and the CLI read user files. The whole
decision (the size, an archive's listing, the sniff, a results table, a battle list or
harness logs, the upload limits, the values skipped, the cluster column a log names, the
text) is made in ``python -m engine.intake._child`` under the address-space cap
:attr:`engine.Limits.max_parse_memory` (1 GiB by default): the process that calls it
(the server, the CLI) never parses a byte of the upload, and a log that would need more
memory than the cap is refused there, naming the file, the zip member, the rule and the
fix. The frame comes back as Arrow IPC with its metadata (:class:`Ingested`).

Why here (``engine.intake``, exported as :func:`engine.ingest`; a package named
``engine.ingest`` would be shadowed by the function of the same name), above :mod:`engine.io`
and :mod:`engine.harness`: the decision needs both the
table readers (io) and the harness readers (harness, which builds on io), so it lives above
them; io keeps the mechanism of the capped child (:func:`engine.io._worker.run_capped`)
and imports neither this package nor harness, so io and harness no longer import each
other. The decision itself is :func:`engine.intake._decide.decide` (run in the child).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    import pandas as pd

    from .._contract import MetricSpec
    from ..io._limits import Limits

__all__ = ["Ingested", "ingest"]

_MAX_NAME = 1000


@dataclass(frozen=True)
class Ingested:
    """An upload as :func:`ingest` read it.

    Attributes
    ----------
    kind : {"results", "battles"}
        The canonical long table (``results``) or the checked battle list of
        :func:`engine.read_battles` (``battles``: model_a, model_b, winner).
    frame : DataFrame
        The table; a results table's metric declarations are in ``frame.attrs``
        (:func:`engine.metric_specs_of`).
    format : str
        ``"table"``, ``"battles"`` or the harness format read (``"inspect"``, …).
    label : str
        The upload's name as messages give it.
    specs : dict
        ``(benchmark, metric) → MetricSpec`` the logs state (harness logs only).
    skipped : DataFrame or None
        Harness logs: the values not imported and why (``reason, benchmark, metric,
        count``); None for a table.
    report : str
        Harness logs: the sentence of :meth:`engine.HarnessImport.report`; "" for a table.
    clusters : dict
        ``benchmark → example attribute`` the log clusters its standard errors by.
    files : tuple of str
        The files that contributed rows (harness logs).
    content_hash : str or None
        SHA-256 (hex) of the upload's bytes as the child read them (a file, or the bytes
        given), the store's duplicate key; None for a folder. Computed in the child from the
        very bytes it parsed, so the caller never holds the upload to hash it.
    """

    kind: Literal["results", "battles"]
    frame: pd.DataFrame
    format: str
    label: str
    specs: dict[tuple[str, str], MetricSpec] = field(default_factory=dict)
    skipped: pd.DataFrame | None = None
    report: str = ""
    clusters: dict[str, str] = field(default_factory=dict)
    files: tuple[str, ...] = ()
    content_hash: str | None = None


def ingest(source: str | Path | tuple[str, bytes], *, format: str | None = None,  # noqa: A002
           system: str | None = None, limits: Limits | None = None,
           metrics: Mapping[str, MetricSpec] | None = None, battles: bool = True,
           siblings: bool = False, usage: bool = False) -> Ingested:
    """Read an upload once, in the memory-capped child, whatever it holds.

    Parameters
    ----------
    source : path or (name, bytes)
        A file or a folder (the child reads it from disk: this process holds none of
        it), or an upload's name and bytes (sent to the child on stdin).
    format : str, optional
        ``None`` (detect), ``"table"`` (a results table or a battle list, never logs), or
        one of :data:`engine.HARNESS_FORMATS` (``"long"``/``"wide"``: a table, read as
        harness logs when the upload is a folder or an archive).
    system : str, optional
        The system name for logs that do not name the model; names every row (a table
        given one must hold one system).
    limits : Limits, optional
        The upload limits, the child's memory cap and time limit (default ``Limits()``).
    metrics : mapping of metric → MetricSpec, optional
        Declared metrics (a wide table's metric columns; binary metrics checked).
    battles : bool
        Whether a table with ``model_a``, ``model_b`` and ``winner`` is read as a battle
        list (False: only results tables, as the analysis commands read DATA).
    siblings : bool
        For a file path: the harness readers may look at the files beside it (an lm-eval
        ``results_*.json`` naming the model) and at its folder's name.
    usage : bool
        Harness logs also give each example's usage (tokens, times, cost) as metrics
        (:func:`engine.read_harness`'s ``usage``).

    Returns
    -------
    Ingested

    Raises
    ------
    DataContractError
        Every problem of the upload (file, member, column, rows, rule, fix), including a
        child killed by its memory cap or its time limit; nothing is half-read.
    RuntimeError
        When the child fails for a reason that is not the upload.

    Examples
    --------
    >>> got = ingest(("r.csv", b"benchmark,system,example_id,metric,value\\nb,A,e1,m,1\\n"))
    >>> got.kind, got.format, got.frame["system"].tolist()
    ('results', 'table', ['A'])
    """
    import dataclasses

    from ..io._limits import active_limits
    from ..io._worker import answer_table, run_capped
    from ._wire import from_table

    limits = limits or active_limits()
    if isinstance(source, tuple):
        label, data, path = str(source[0])[:_MAX_NAME] or "<upload>", bytes(source[1]), None
    else:
        label, data, path = Path(source).name[:_MAX_NAME] or str(source), None, source
        path = os.path.abspath(path)
    header = {"name": label, "path": path, "format": format, "system": system,
              "battles": battles, "siblings": siblings, "usage": usage,
              "metrics": {str(k): dataclasses.asdict(v) for k, v in (metrics or {}).items()}}
    done = run_capped("engine.intake._child", header, data, label, limits)
    return from_table(answer_table(done, label, limits))
