"""Watched comparisons: confidence sequences kept up to date as uploads arrive.

A watch is one (benchmark, metric, baseline, candidate[, cluster]) comparison. Its
row in ``watches`` holds the sequential state (:mod:`engine.stats._confseq`: the
betting wealth on its grid and two sums, or the normal mixture's sums) after the
uploads it has seen, in upload order (the arrival order,
:mod:`engine.stats._arrivals`); ``watch_history`` holds, per upload that brought new
paired observations, the interval, the always-valid p-value and the e-value. An
update feeds only the observations of uploads newer than the last one seen — the
wealth is never recomputed from the start — unless an upload it had seen was deleted
or replaced since (the observations it saw no longer match their fingerprint): then
the watch is rebuilt from the store as it is and says so.
"""

from __future__ import annotations

import hashlib
import json
import math
from typing import Any

import numpy as np
import pandas as pd
from sqlalchemy import Connection, delete, func, insert, inspect, select

from .._options import TestOptions, resolve
from ..stats._arrivals import (
    HISTORY_COLUMNS,
    Arrivals,
    WatchReport,
    advance,
    arrivals,
    choose_bounds,
)
from ..stats._confseq import start_sequence, state_from_json
from ..stats._watch_many import watch_frames
from . import _io as sio
from . import _schema as S
from ._reads import StoreReads

__all__ = ["StoreWatches", "WatchReport"]


def _fingerprint(d: np.ndarray) -> str:
    return hashlib.sha256(np.ascontiguousarray(d, dtype=np.float64).tobytes()).hexdigest()


def _ensure_tables(conn: Connection) -> None:
    for table in (S.watches, S.watch_history):
        table.create(conn, checkfirst=True)


class StoreWatches(StoreReads):
    """Watched comparisons over the store (a layer of :class:`ResultsStore`)."""

    def _pair_rows(self, conn: Connection, benchmark: str, metric: str,
                   systems: list[str]) -> pd.DataFrame:
        """The systems' live rows with their upload ids, in upload order."""
        ids = sio.lookup(conn, [benchmark, metric, *systems])
        if benchmark not in ids or metric not in ids:
            raise ValueError(f"benchmark, metric: {benchmark!r} / {metric!r} is not in the store")
        for name in systems:
            if name not in ids:
                raise ValueError(f"system: {name!r} has no results in the store")
        # the raw reader (numbers, not Row objects: 0.18 s on humaneval's 12,800 rows)
        read = sio.read_results(conn, [("benchmark_id", ids[benchmark]),
                                       ("metric_id", ids[metric])],
                                systems=[ids[s] for s in systems], uploads=True)
        frame = pd.DataFrame({"system": read["system_id"], "example_id": read["example_key"],
                              "value": read["value"], "batch": read["upload_id"]})
        texts = sio.label_texts(conn, [*(ids[s] for s in systems),
                                       *np.unique(frame["example_id"].to_numpy(np.int64))])
        frame["system"] = frame["system"].map(texts)
        frame["example_id"] = frame["example_id"].map(texts)
        return frame

    def _arrivals(self, conn: Connection, key: dict[str, str],
                  bounds: tuple[float, float] | None | str,
                  ) -> tuple[Arrivals, tuple[float, float] | None]:
        frame = self._pair_rows(conn, key["benchmark"], key["metric"],
                                [key["baseline"], key["candidate"]])
        spec = self.metric_spec(key["benchmark"], key["metric"])
        clusters = None
        if key["cluster"]:
            meta = self.example_metadata(key["benchmark"])
            if key["cluster"] not in meta.columns:
                raise ValueError(f"cluster: no example attribute {key['cluster']!r} in "
                                 f"{key['benchmark']!r}; attributes: {list(meta.columns[1:])}")
            clusters = meta.set_index("example_id")[key["cluster"]]
        arr = arrivals(frame, baseline=key["baseline"], candidate=key["candidate"],
                       higher_is_better=spec.higher_is_better, clusters=clusters)
        return arr, choose_bounds(frame["value"], spec.binary, bounds)

    def watch(self, benchmark: str, metric: str, *, baseline: str, candidate: str,
              cluster: str | None = None, options: TestOptions | None = None,
              bounds: tuple[float, float] | None | str = "auto", breaks: int = 1000,
              sigma: float | None = None, max_n: int | None = None) -> WatchReport:
        """Start watching a comparison, or bring it up to date; returns where it stands.

        ``bounds``: the score bounds for the betting CS; "auto" = [0, 1] for a binary
        metric or when every stored score is in [0, 1], else the normal mixture (unbounded,
        ``sigma`` its sub-Gaussian scale when known). Settings are fixed when the watch
        starts (a sequence cannot change its rules midway); ``max_n`` (a budget of
        observations) may be raised later. ``options``: its ``alpha``, the level of the
        sequence (default ``TestOptions()``).
        """
        alpha = resolve(options, {}).alpha
        if max_n is not None and max_n < 1:
            raise ValueError(f"max_n: must be ≥ 1; got {max_n!r}")
        key = {"benchmark": benchmark, "metric": metric, "baseline": baseline,
               "candidate": candidate, "cluster": cluster or ""}
        w = S.watches.c
        with self._write() as conn:
            _ensure_tables(conn)
            row: Any = conn.execute(select(w.id, w.settings, w.state, w.last_upload_id,
                                           w.first_excluded_n, w.first_excluded_upload)
                                    .where(*(w[k] == v for k, v in key.items()))).first()
            arr, chosen = self._arrivals(conn, key, bounds)
            if row is None:
                settings = {"alpha": alpha, "bounds": None if chosen is None else list(chosen),
                            "breaks": breaks, "sigma": sigma, "max_n": max_n, "seen": ""}
                state = self._start(settings)
                made = conn.execute(insert(S.watches).values(
                    **key, settings=json.dumps(settings), state=json.dumps(state.to_json()),
                    last_upload_id=0, created_at=sio.now())).inserted_primary_key
                watch_id = int(made[0]) if made is not None else 0
                row = (watch_id, json.dumps(settings), None, 0, None, None)
            report = self._update(conn, row, key, arr, max_n)
        return report

    def watch_previews(self, benchmark: str, metric: str, *, baseline: str,
                       candidates: list[str], cluster: str | None = None,
                       options: TestOptions | None = None,
                       bounds: tuple[float, float] | None | str = "auto",
                       max_n: int | None = None) -> list[WatchReport]:
        """What :meth:`watch` would report for each of ``candidates`` against ``baseline``,
        computed from the uploads and stored nowhere (for a read-only store), the rows read
        once (the Watch page: every challenger of the champion)."""
        frame = self.watch_rows(benchmark, metric, [baseline, *candidates], cluster=cluster)
        spec = self.metric_spec(benchmark, metric)
        return watch_frames(frame, baseline=baseline, candidates=candidates, benchmark=benchmark,
                            metric=metric, higher_is_better=spec.higher_is_better,
                            binary=spec.binary, cluster=cluster or None, options=options,
                            bounds=bounds, max_n=max_n)

    def watch_rows(self, benchmark: str, metric: str, systems: list[str], *,
                   cluster: str | None = None) -> pd.DataFrame:
        """The systems' live rows as a watch streams them: ``system, example_id, value,
        batch`` (the upload), ``benchmark``, ``metric`` and the ``cluster`` attribute if
        given, in upload order (what :func:`~engine.stats._arrivals.watch_frame` takes)."""
        with self._read() as conn:
            frame = self._pair_rows(conn, benchmark, metric, systems)
        frame = frame.assign(benchmark=benchmark, metric=metric)
        if cluster:
            meta = self.example_metadata(benchmark)
            if cluster not in meta.columns:
                raise ValueError(f"cluster: no example attribute {cluster!r} in {benchmark!r}")
            frame[cluster] = frame["example_id"].map(meta.set_index("example_id")[cluster])
        return frame

    @staticmethod
    def _start(settings: dict[str, Any]) -> Any:
        bounds = settings["bounds"]
        return start_sequence(bounds=None if bounds is None else (bounds[0], bounds[1]),
                              alpha=settings["alpha"], breaks=settings["breaks"],
                              sigma=settings["sigma"])

    def _update(self, conn: Connection, row: Any, key: dict[str, str], arr: Arrivals,
                max_n: int | None) -> WatchReport:
        watch_id, settings_json, state_json, _, first_n, first_up = row
        settings = json.loads(settings_json)
        if max_n is not None:
            settings["max_n"] = max_n
        state = self._start(settings) if state_json is None else state_from_json(
            json.loads(state_json))
        budget = settings.get("max_n")
        if budget is not None and state.n > budget:
            raise ValueError(f"max_n: the watch has already seen {state.n} observations; "
                             f"give at least that many (got {budget})")
        h = S.watch_history.c
        rebuilt = bool(state.n) and (len(arr.d) < state.n
                                     or _fingerprint(arr.d[:state.n]) != settings["seen"])
        if rebuilt:  # an upload it saw was deleted or replaced: start again
            state, first_n, first_up = self._start(settings), None, None
            conn.execute(delete(S.watch_history).where(h.watch_id == watch_id))
        fresh = arr.window(state.n, budget)
        moved = advance(state, fresh, first_n=first_n, first_batch=first_up)
        for batch, n_seen, low, high, p, log_e in moved.history.itertuples(index=False):
            conn.execute(insert(S.watch_history).values(
                watch_id=watch_id, upload_id=int(batch), n_seen=int(n_seen),
                cs_low=_finite(low), cs_high=_finite(high), p_always_valid=float(p),
                log_e=float(log_e)))
        newest = conn.execute(select(func.max(S.uploads.c.id))).scalar() or 0
        settings["seen"] = _fingerprint(arr.d[:moved.state.n])
        conn.execute(S.watches.update().where(S.watches.c.id == watch_id).values(
            settings=json.dumps(settings), state=json.dumps(moved.state.to_json()),
            last_upload_id=int(newest), first_excluded_n=moved.first_excluded_n,
            first_excluded_upload=moved.first_excluded_batch))
        history = self._history(conn, watch_id)
        s = moved.state
        return WatchReport(watch_id, key["benchmark"], key["metric"], key["baseline"],
                           key["candidate"], key["cluster"] or None, settings, s.method, s.n,
                           s.cs_low, s.cs_high, float(min(1.0, math.exp(-s.max_log_e))),
                           float(math.exp(s.log_e)), moved.first_excluded_n,
                           moved.first_excluded_batch, history, rebuilt,
                           arr.dropped)

    @staticmethod
    def _history(conn: Connection, watch_id: int) -> pd.DataFrame:
        h = S.watch_history.c
        rows = conn.execute(select(h.upload_id, h.n_seen, h.cs_low, h.cs_high,
                                   h.p_always_valid, h.log_e)
                            .where(h.watch_id == watch_id).order_by(h.upload_id)).all()
        cols = ["upload_id", *HISTORY_COLUMNS[1:]]
        out = pd.DataFrame.from_records(rows, columns=cols)
        for c in ("cs_low", "cs_high"):
            out[c] = out[c].astype(np.float64).fillna(-np.inf if c == "cs_low" else np.inf)
        return out

    def _import(self, df: pd.DataFrame, **kwargs: Any) -> Any:
        """An upload (:meth:`StoreImports._import`), then every watch of the benchmarks and
        metrics it brought fed with its new observations (a second transaction: the upload
        stands even when a watch cannot take them — the next :meth:`watch` says why)."""
        report = super()._import(df, **kwargs)  # type: ignore[misc]
        if report.upload_id is not None:
            self._feed_watches(int(report.upload_id))
        return report

    def _feed_watches(self, upload_id: int) -> None:
        r, w = S.results.c, S.watches.c
        with self._read() as conn:
            if not inspect(conn).has_table(S.watches.name):
                return
            pairs = conn.execute(select(r.benchmark_id, r.metric_id)
                                 .where(r.upload_id == upload_id).distinct()).all()
            texts = sio.label_texts(conn, [i for p in pairs for i in p])
            keys = {(texts[b], texts[m]) for b, m in pairs}
            rows = conn.execute(select(w.benchmark, w.metric, w.baseline, w.candidate,
                                       w.cluster)).all()
        for bench, met, base, cand, cluster in rows:
            if (bench, met) in keys:
                try:
                    self.watch(bench, met, baseline=base, candidate=cand, cluster=cluster or None)
                except ValueError:
                    continue  # e.g. a score outside the watch's bounds: `watch` reports it

    def watch_history(self, watch_id: int) -> pd.DataFrame:
        """One watch's interval, always-valid p-value and log e-value after each upload that
        brought it observations: ``upload_id, n_seen, cs_low, cs_high, p_always_valid, log_e``."""
        with self._read() as conn:
            return self._history(conn, int(watch_id))

    def upload_count(self, benchmark: str, metric: str) -> int:
        """How many uploads the live rows of a benchmark's metric came in (more than one:
        fixed-n figures on them assume a single look)."""
        r = S.results.c
        with self._read() as conn:
            ids = sio.lookup(conn, [benchmark, metric])
            if benchmark not in ids or metric not in ids:
                return 0
            return int(conn.execute(select(func.count(func.distinct(r.upload_id))).where(
                r.benchmark_id == ids[benchmark], r.metric_id == ids[metric])).scalar() or 0)

    def watched(self) -> pd.DataFrame:
        """Every watch: ``watch_id, benchmark, metric, baseline, candidate, cluster,
        last_upload_id, first_excluded_n`` (empty when the store has none)."""
        cols = ["watch_id", "benchmark", "metric", "baseline", "candidate", "cluster",
                "last_upload_id", "first_excluded_n"]
        with self._read() as conn:
            if not inspect(conn).has_table(S.watches.name):
                return pd.DataFrame(columns=cols)
            w = S.watches.c
            rows = conn.execute(select(w.id, w.benchmark, w.metric, w.baseline, w.candidate,
                                       w.cluster, w.last_upload_id, w.first_excluded_n)
                                .order_by(w.id)).all()
        return pd.DataFrame.from_records(rows, columns=cols)


def _finite(value: float) -> float | None:
    return float(value) if math.isfinite(value) else None
