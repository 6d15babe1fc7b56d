"""Condition-and-compare: one system hyperparameter's levels compared with the others held fixed.

Systems are often a grid of settings (prompt template × temperature × model
family). To ask "is template B better than template A?" without confounding,
compare only *matched* systems: pairs that differ in the chosen factor and agree
on every other setting. Each matched pair is tested with the pairwise engine on
its own matrix; the tests of all matched pairs are adjusted together.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from .._contract import MetricSpec
from .._matrix import ScoreMatrix, build_matrix, pick_slice
from .._options import EFFECT_THRESHOLDS, TestOptions, resolve
from ..io._readers import split_metadata
from ..stats._multitest import adjust_pvalues
from ..stats._pairwise import pairwise_tests

__all__ = ["CONDITION_COLUMNS", "ConditionComparison", "condition_and_compare",
           "system_identifiers"]

CONDITION_COLUMNS = ("level_a", "level_b", "system_a", "system_b", "difference", "ci_low",
                     "ci_high", "pvalue", "pvalue_adj", "significant", "test", "n")
#: Share of systems whose value is their own name (or the part of it before a "/") from which
#: a column names the system rather than sets it: AlpacaEval's ``generator_2`` is the system
#: name for 59 of 60 systems (the odd one a placeholder), a real setting such as
#: CRUXEval's model name without "+cot" for only 29 of 37.
NAME_SHARE = 0.9


def _name_like(values: pd.Series, systems: pd.Series) -> pd.Series:
    """Whether each value is its system's name (case-insensitive), or its name cut at "/"."""
    value = values.astype(str).str.strip().str.casefold()
    name = systems.astype(str).str.strip().str.casefold()
    return (value == name) | (value == name.str.split("/", n=1).str[0])


def system_identifiers(meta: pd.DataFrame, *, system: str = "system") -> list[str]:
    """The system metadata columns that identify the system instead of setting it.

    A column identifies the system when it has a different value for every system (a
    name, a path, a run id: no two systems share a level, so nothing is matched) or when
    it is the system's own name for at least :data:`NAME_SHARE` of the systems (a copy
    of the name, perhaps with a suffix cut). Neither is a setting to compare or hold
    fixed; ``meta`` has one row per system (``system`` its name column).

    Examples
    --------
    >>> meta = pd.DataFrame({"system": ["a-7b", "a-13b", "b-7b"],
    ...                      "generator": ["a-7b", "a-13b", "b-7b"], "size": ["7b", "13b", "7b"],
    ...                      "run": ["r1", "r2", "r3"]})
    >>> system_identifiers(meta)
    ['generator', 'run']
    """
    if system not in meta.columns:
        raise ValueError(f"meta: needs the column {system!r} (one row per system); "
                         f"columns: {list(meta.columns)!r}")
    n = len(meta)
    out = []
    for column in meta.columns:
        if column == system:
            continue
        distinct = meta[column].nunique(dropna=False) == n > 2
        named = n > 0 and _name_like(meta[column], meta[system]).mean() >= NAME_SHARE
        if distinct or named:
            out.append(str(column))
    return out


@dataclass(frozen=True)
class ConditionComparison:
    """Matched comparisons of the levels of one system hyperparameter (``factor``).

    ``table``: one row per matched pair, the held settings (one column per ``held``
    name) then ``CONDITION_COLUMNS``: level_a < level_b (sorted), their systems,
    difference = level_b's system minus level_a's in the metric's units and
    direction (positive = level_b better), its interval at 1 − alpha, raw and
    adjusted p (adjusted over every row together), significant, test, n.
    """

    benchmark: str
    metric: str
    factor: str
    held: tuple[str, ...]
    levels: tuple[str, ...]
    table: pd.DataFrame
    options: TestOptions
    notes: tuple[str, ...] = field(default=())

    def summary(self) -> list[str]:
        """One sentence per pair of levels, e.g. "template=B beats template=A in 7 of 9
        matched configurations (5 significantly); template=A beats template=B in 2 (0
        significantly)"."""
        out = []
        for (a, b), part in self.table.groupby(["level_a", "level_b"], sort=True):
            n = len(part)
            d, sig = part["difference"].to_numpy(float), part["significant"].to_numpy(bool)
            fa, fb = f"{self.factor}={a}", f"{self.factor}={b}"
            ties = int((d == 0).sum())
            tail = f"; {ties} tied" if ties else ""
            out.append(f"{fb} beats {fa} in {int((d > 0).sum())} of {n} matched "
                       f"configuration{'s' if n != 1 else ''} ({int((sig & (d > 0)).sum())} "
                       f"significantly); {fa} beats {fb} in {int((d < 0).sum())} "
                       f"({int((sig & (d < 0)).sum())} significantly){tail}.")
        return out


def _settings(df: pd.DataFrame, factor: str, hold: Sequence[str] | None
              ) -> tuple[pd.DataFrame, tuple[str, ...], list[str]]:
    """System metadata (one row per system) and the settings held fixed."""
    _, meta, _ = split_metadata(df)
    meta = meta.drop(columns="benchmark").set_index("system")
    if factor not in meta.columns:
        raise ValueError(f"factor: {factor!r} is not system metadata (one value per system); "
                         f"system metadata columns: {list(meta.columns)!r}")
    notes: list[str] = []
    if hold is None:
        others = [c for c in meta.columns if c != factor]
        # a column that names the system (a different value for every system, or the name
        # itself) would leave no two systems matched: an identifier, not a setting
        ids = [c for c in system_identifiers(meta.reset_index()) if c in others]
        held = tuple(c for c in others if c not in ids)
        if ids:
            notes.append(f"Not held fixed (they name the system): {', '.join(ids)}.")
    else:
        missing = [c for c in hold if c not in meta.columns or c == factor]
        if missing:
            raise ValueError(f"hold: {missing!r} must be system metadata other than the factor; "
                             f"system metadata columns: {list(meta.columns)!r}")
        held = tuple(hold)
    return meta, held, notes


def _matched_pairs(meta: pd.DataFrame, factor: str, held: tuple[str, ...]
                   ) -> tuple[list[tuple[tuple[object, ...], str, str, str, str]], list[str]]:
    """(held settings, level a, level b, system a, system b) of every matched pair."""
    systems = [str(s) for s in meta.index]
    level_of = dict(zip(systems, meta[factor].astype(object).map(str), strict=True))
    settings = list(zip(*(meta[c].astype(object) for c in held), strict=True)) if held else \
        [()] * len(systems)
    groups: dict[tuple[str, ...], list[int]] = {}
    for i, values in enumerate(settings):
        groups.setdefault(tuple(map(str, values)), []).append(i)
    rank = {level: i for i, level in enumerate(_ordered_levels(meta[factor]))}
    pairs, notes = [], []
    for key in sorted(groups):
        members = [systems[i] for i in groups[key]]
        by_level: dict[str, list[str]] = {}
        for sys in members:
            by_level.setdefault(level_of[sys], []).append(sys)
        repeated = sorted(lv for lv, names in by_level.items() if len(names) > 1)
        if repeated:
            names = sorted(n for lv in repeated for n in by_level[lv])
            notes.append(f"Systems {names} share every held setting and the level {repeated!r}: "
                         "left out (hold the setting that tells them apart).")
        single = sorted((lv for lv, names in by_level.items() if len(names) == 1),
                        key=rank.__getitem__)
        for a, b in itertools.combinations(single, 2):
            pairs.append((settings[groups[key][0]], a, b, by_level[a][0], by_level[b][0]))
    return pairs, notes


def _ordered_levels(values: pd.Series) -> list[str]:
    """Levels as text, in numeric order for a numeric setting (0.2 < 0.7 < 10), else sorted."""
    unique = pd.Series(values.dropna().unique())
    if pd.api.types.is_numeric_dtype(unique.dtype) and not pd.api.types.is_bool_dtype(unique.dtype):
        unique = unique.sort_values()
        return [str(v) for v in unique]
    return sorted(map(str, unique))


def _test_pair(matrix: ScoreMatrix, sys_a: str, sys_b: str, opts: TestOptions
               ) -> dict[str, object]:
    """The pairwise engine on the two systems' own matrix; difference as level b − level a."""
    row = pairwise_tests(matrix.subset([sys_a, sys_b]), opts.with_(correction="none")).table.iloc[0]
    return {"difference": -float(row["difference"]), "ci_low": -float(row["ci_high"]),
            "ci_high": -float(row["ci_low"]), "pvalue": float(row["pvalue"]),
            "effect": -float(row["criterion_effect"]), "test": str(row["test"]), "n": int(row["n"])}


def condition_and_compare(
    df: pd.DataFrame,
    *,
    benchmark: str | None = None,
    metric: str | None = None,
    factor: str,
    hold: Sequence[str] | None = None,
    spec: MetricSpec | None = None,
    options: TestOptions | None = None,
    **overrides: Any,
) -> ConditionComparison:
    """Compare the levels of one system hyperparameter on matched pairs of systems.

    Parameters
    ----------
    df : DataFrame
        Canonical long table whose system metadata columns hold the hyperparameters
        (one value per system, e.g. ``template``, ``temperature``, ``family``).
    benchmark, metric : str, optional
        Which benchmark and metric (may be omitted when the table holds only one).
    factor : str, keyword-only
        The hyperparameter whose levels are compared.
    hold : sequence of str, optional
        Settings held fixed (default: every other system metadata column, except
        identifiers with a different value for every system).
    spec : MetricSpec, optional
        Direction and modality of the metric.
    options : TestOptions, optional
        Test, alternative, correction, alpha, criterion as in :func:`engine.pairwise_tests`;
        ``**overrides`` sets any of them by name.

    Returns
    -------
    ConditionComparison
        ``table`` (held settings, level_a, level_b, system_a, system_b, difference,
        ci_low, ci_high, pvalue, pvalue_adj, significant, test, n) and ``summary()``.

    Notes
    -----
    Systems are grouped by their held settings; within a group, each two
    systems at different levels of ``factor`` form a matched pair, so the
    difference d = score(level b) − score(level a) is not confounded by the
    held settings. Each pair is tested by :func:`engine.pairwise_tests` on its
    own two-system matrix (paired on shared examples when possible); the raw
    p-values of all matched pairs, over every pair of levels, are adjusted
    together with ``options.correction``. Groups where two systems share a level
    are ambiguous (an unlisted setting differs) and left out, with a note.

    References
    ----------
    Ackerman, Farchi, Raz & Toledo (2025). Statistical multi-metric evaluation
    and visualization of LLM system predictive performance. arXiv:2501.18243,
    §10.2 (condition-and-compare system hyperparameters,
    ``compare_system_metrics_conditioned_on_features``).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> grid = [(t, f) for t in ("A", "B") for f in ("x", "y")]
    >>> df = pd.concat([pd.DataFrame({
    ...     "benchmark": "b", "metric": "m", "system": f"{t}-{f}", "template": t, "family": f,
    ...     "example_id": np.arange(300).astype(str),
    ...     "value": (rng.random(300) < (0.8 if t == "B" else 0.5)) * 1.0}) for t, f in grid])
    >>> condition_and_compare(df, factor="template").summary()
    ['template=B beats template=A in 2 of 2 matched configurations (2 significantly); \
template=A beats template=B in 0 (0 significantly).']
    """
    opts = resolve(options, overrides)
    bench, met = pick_slice(df, benchmark, metric)
    part = df[(df["benchmark"] == bench) & (df["metric"] == met)]
    meta, held, notes = _settings(part, factor, hold)
    pairs, pair_notes = _matched_pairs(meta, factor, held)
    notes += pair_notes
    if not pairs:
        raise ValueError(f"factor: no two systems differ only in {factor!r} (held fixed: "
                         f"{', '.join(held) or 'nothing'})" + "".join(f"; {n}" for n in notes))
    matrix = build_matrix(part, spec=spec)
    rows = [{**dict(zip(held, values, strict=True)), "level_a": a, "level_b": b,
             "system_a": sa, "system_b": sb, **_test_pair(matrix, sa, sb, opts)}
            for values, a, b, sa, sb in pairs]
    table = pd.DataFrame(rows)
    table["pvalue_adj"] = adjust_pvalues(table["pvalue"].to_numpy(float),
                                         method=opts.correction, alpha=opts.alpha)
    significant = table["pvalue_adj"].to_numpy(float) < opts.alpha
    if opts.criterion != "pvalue":
        significant &= np.abs(table["effect"].to_numpy(float)) >= EFFECT_THRESHOLDS[opts.criterion]
    table["significant"] = significant
    order = {level: i for i, level in enumerate(_ordered_levels(meta[factor]))}
    table = table[[*held, *CONDITION_COLUMNS]].sort_values(
        ["level_a", "level_b", *held], kind="stable",
        key=lambda col: col.map(order) if col.name in ("level_a", "level_b") else col
    ).reset_index(drop=True)
    levels = tuple(_ordered_levels(meta[factor]))
    return ConditionComparison(bench, met, factor, held, levels, table, opts, tuple(notes))
