"""The Conditions page's matched pairs in plain words: one row per pair, verdict included.

Pure (no Streamlit): the engine's :class:`engine.ConditionComparison` table becomes
display text (differences in percentage points for 0/1 metrics, intervals as
``[low, high]`` in the same units, "—" for missing values, a verdict per row).
"""

from __future__ import annotations

import math

import pandas as pd

from app.ranked import MISSING
from engine.app_support import difference_text, interval_text
from engine.results import ConditionComparison


def amount(value: float, binary: bool, *, sign: bool = True) -> str:
    """A difference in the metric's units (:func:`engine.app_support.difference_text`):
    percentage points for a 0/1 metric, else four decimals.

    Examples
    --------
    >>> amount(0.125, True), amount(-0.5, False), amount(float("nan"), True)
    ('+12.5 points', '-0.5000', '—')
    """
    return difference_text(value, percent=binary, signed=sign)


def pvalue(value: float) -> str:
    """An adjusted p-value as text ("< 0.001" below that)."""
    if not math.isfinite(value):
        return MISSING
    return "< 0.001" if value < 0.001 else f"{value:.3f}"


def verdict(result: ConditionComparison, row: pd.Series) -> str:
    """Which level is better on this matched pair, or that the data cannot tell."""
    if not bool(row["significant"]):
        return "no clear difference"
    level = row["level_b"] if float(row["difference"]) > 0 else row["level_a"]
    return f"{result.factor} = {level} better"


def pairs_table(result: ConditionComparison, binary: bool) -> pd.DataFrame:
    """One display row per matched pair: levels, verdict, difference, interval, adjusted p,
    held settings, the two systems, test and examples (the verdict early: seen on a phone).
    ``binary``: a 0/1 metric (:func:`engine.app_support.zero_one`, repeated runs too), whose
    differences are in points ("+4.2 points", "[-0.7, +15.7] points")."""
    t = result.table
    out = pd.DataFrame({"compared": [f"{b} vs {a}" for a, b in
                                     zip(t["level_a"], t["level_b"], strict=True)]})
    out["verdict"] = [verdict(result, row) for _, row in t.iterrows()]
    out["difference"] = [amount(float(d), binary) for d in t["difference"]]
    out["interval"] = [interval_text(float(lo), float(hi), percent=binary, difference=True)
                       for lo, hi in zip(t["ci_low"], t["ci_high"], strict=True)]
    out["adjusted p"] = [pvalue(float(p)) for p in t["pvalue_adj"]]
    for h in result.held:
        out[h] = t[h].astype(object).map(lambda v: MISSING if pd.isna(v) else str(v))
    out["systems"] = [f"{b} vs {a}" for a, b in zip(t["system_a"], t["system_b"], strict=True)]
    out["test"] = t["test"].astype(str)
    out["examples"] = t["n"].astype(int)
    return out
