"""The Overall leaderboard as one JSON document: what ``sigboard overall --format json``
prints and what the Overall page's "Download JSON" saves, built once here so the two cannot
differ (SPEC, ``overall``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..products._overall import Overall

__all__ = ["overall_document"]


def _num(x: Any) -> float | None:
    import pandas as pd

    return None if x is None or pd.isna(x) else float(x)


def overall_document(res: Overall, *, notes: Sequence[str] = (),
                     selection_rule: str | None = None,
                     warnings: Sequence[str] = ()) -> dict[str, Any]:
    """Ranked systems then the unranked (each with its cells per benchmark and its rank-set
    fields), the cliques, the headline, the scale, weights, metrics and correlations;
    ``notes`` the caller's beside the result's, ``selection_rule`` how the benchmarks were
    chosen, ``warnings`` informative missingness."""
    from ..products._headline import overall_headline
    from ..products._overall import _CELL_KEYS
    from ..ranking._rank_sets import rank_set_fields

    cells = {(str(r["system"]), str(r["benchmark"])): r
             for r in res.cells.to_dict(orient="records")}

    def row(r: Mapping[Any, Any], ranked: bool) -> dict[str, Any]:
        system = str(r["system"])
        per: dict[str, Any] = {}
        for b in res.benchmarks:
            c = cells.get((system, b))
            per[b] = ({k: None for k in _CELL_KEYS} if c is None else
                      {"mean": _num(c["mean"]), "ci_low": _num(c["ci_low"]),
                       "ci_high": _num(c["ci_high"]), "group": c["group"]})
        if not ranked:
            return {"system": system, "score": None, "ci_low": None, "ci_high": None,
                    "rank": None, "rank_low": None, "rank_high": None, "group": None,
                    "coverage": list(res.coverage[system]), "cells": per,
                    **rank_set_fields(None, system)}
        sets = rank_set_fields(res.rank_sets, system)
        # one rank range, the page's: the rank set (the pairwise range without rank sets)
        low = int(r["rank_low"]) if sets["rank_set_low"] is None else sets["rank_set_low"]
        high = int(r["rank_high"]) if sets["rank_set_high"] is None else sets["rank_set_high"]
        return {"system": system, "score": _num(r["score"]), "ci_low": _num(r["ci_low"]),
                "ci_high": _num(r["ci_high"]), "rank": int(r["rank"]),
                "rank_low": low, "rank_high": high,
                "group": r["group"], "coverage": list(res.coverage[system]), "cells": per,
                **sets}

    systems = [row(r, True) for r in res.table.to_dict(orient="records")]
    systems += [row(r, False) for r in res.unranked.to_dict(orient="records")]
    return {"benchmarks": list(res.benchmarks), "systems": systems,
            "cliques": [list(c) for c in res.cliques], "headline": overall_headline(res),
            "score_units": res.scale.units, "score_label": res.scale.label,
            "score_note": res.scale.explanation,
            "weights": dict(zip(res.benchmarks, res.benchmark_weights, strict=True)),
            "metrics": {b: list(m) for b, m in res.metrics.items()},
            "correlated": [{"benchmarks": [a, b], "shared_examples": n}
                           for a, b, n in res.correlated],
            "notes": [*res.notes, *notes], "selection_rule": selection_rule,
            "warnings": list(warnings)}
