"""The leaderboard report's section on repeated tries: pass^k and pass@k per system at the
chosen k, and the k-curve tables (k = 1…n) with their simultaneous bands.

Pure text over :class:`engine.stats._passk_reliability.Reliability` and
:class:`engine.stats._passk.PassKCurves`; the HTML and Markdown writers are
:mod:`engine.report._text`'s, so every name is escaped as in the rest of the report.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import pandas as pd

from ._text import h, html_table, markdown_text, md_table

if TYPE_CHECKING:
    from ..stats._passk import PassKCurves
    from ..stats._passk_reliability import Reliability

#: The k-curve tables keep at most this many k columns: 1, 2, 4, 8, … and the last k past it.
MAX_K_COLUMNS = 12


def _pct(value: float) -> str:
    return f"{100 * value:.1f}%" if math.isfinite(value) else "—"


def _cell(value: float, low: float, high: float) -> str:
    """"55.9% (41.4–69.6)": the estimate and its band (or interval) in percent."""
    if not math.isfinite(value):
        return "—"
    return f"{_pct(value)} ({100 * low:.1f}–{100 * high:.1f})"


def curve_ks(k_max: int) -> list[int]:
    """The k shown as columns: every k up to :data:`MAX_K_COLUMNS`, else the powers of two
    and ``k_max``.

    >>> curve_ks(5), curve_ks(40)
    ([1, 2, 3, 4, 5], [1, 2, 4, 8, 16, 32, 40])
    """
    if k_max <= MAX_K_COLUMNS:
        return list(range(1, k_max + 1))
    ks = [2 ** i for i in range(k_max.bit_length()) if 2 ** i <= k_max]
    return ks if ks[-1] == k_max else [*ks, k_max]


def k_curve_table(curves: PassKCurves, measure: str) -> pd.DataFrame:
    """One row per system, one column per k (:func:`curve_ks`): ``measure`` ("pass_hat_k" or
    "pass_at_k") with its simultaneous band."""
    ks = curve_ks(int(curves.ks[-1]))
    est, lo, hi = (getattr(curves, measure + s) for s in ("", "_band_low", "_band_high"))
    out = {"system": list(curves.systems)}
    for k in ks:
        j = k - 1
        out[f"k = {k}"] = [_cell(float(est[s, j]), float(lo[s, j]), float(hi[s, j]))
                           for s in range(len(curves.systems))]
    return pd.DataFrame(out)


def at_k_table(result: Reliability) -> pd.DataFrame:
    """pass^k and pass@k at the result's k with their intervals, best pass^k first."""
    t = result.estimates.table.sort_values("pass_hat_k", ascending=False, kind="stable")
    return pd.DataFrame({
        "system": t["system"],
        f"pass^{result.k}": [_cell(*v) for v in zip(t["pass_hat_k"], t["pass_hat_k_low"],
                                                     t["pass_hat_k_high"], strict=True)],
        f"pass@{result.k}": [_cell(*v) for v in zip(t["pass_at_k"], t["pass_at_k_low"],
                                                     t["pass_at_k_high"], strict=True)],
        "tasks": t["tasks"]})


def reliability_section(result: Reliability, curves: PassKCurves, fmt: str) -> list[str]:
    """The report's lines (Markdown) or elements (HTML) on repeated tries."""
    level, rule = f"{1 - result.options.alpha:.0%}", result.estimates.rule()
    intro = (f"pass^k: all k tries of a task succeed; pass@k: at least one of k tries succeeds "
             f"(unbiased estimates from the tries, averaged over tasks). At k = {result.k}: "
             f"{level} intervals over tasks. The k-curves: the range in each cell is the "
             f"simultaneous {level} band, which holds a system's whole curve at once. "
             f"{rule[:1].upper()}{rule[1:]}.")
    parts = [("Repeated tries: pass^k and pass@k", None, intro),
             (f"At k = {result.k}, ranked by pass^{result.k}", at_k_table(result), None),
             ("pass^k for every k (all k tries succeed)", k_curve_table(curves, "pass_hat_k"),
              None),
             ("pass@k for every k (at least one of k succeeds)",
              k_curve_table(curves, "pass_at_k"), None)]
    out: list[str] = []
    for title, table, text in parts:
        if fmt == "markdown":
            out += [f"## {title}", ""]
            out += [md_table(table), ""] if table is not None else [markdown_text(str(text)), ""]
        else:
            out.append(f"<h2>{h(title)}</h2>")
            out.append(html_table(table, title) if table is not None
                       else f'<p class="muted">{h(text)}</p>')
    return out
