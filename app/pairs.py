"""One pair of systems: its scores side by side and its line of the pairwise table."""

from __future__ import annotations

import html

import numpy as np

from engine import PairwiseResult, ScoreMatrix

PWPP_SYSTEMS = 25


def pair_scores(matrix: ScoreMatrix, a: str, b: str, *, paired: bool) -> tuple[np.ndarray, np.ndarray]:
    """Scores of A and B on the examples both have (paired) or on all their examples."""
    index = {s: i for i, s in enumerate(matrix.systems)}
    x, y = matrix.values[index[a]], matrix.values[index[b]]
    if paired:
        both = ~np.isnan(x) & ~np.isnan(y)
        return x[both], y[both]
    return x[~np.isnan(x)], y[~np.isnan(y)]


def _md(text: str) -> str:
    """A system name safe inside markdown (no HTML, no markdown syntax)."""
    escaped = html.escape(text)
    return "".join(f"\\{c}" if c in "\\`*_{}[]()#+-.!|<>~$:" else c for c in escaped)


def pair_summary(result: PairwiseResult, a: str, b: str, n: int, *, higher_is_better: bool) -> str:
    """The pair's test result in one sentence (or why it was not tested)."""
    t = result.table
    row = t[(t["system_a"] == a) & (t["system_b"] == b)]
    sign = 1.0
    if row.empty:
        row, sign = t[(t["system_a"] == b) & (t["system_b"] == a)], -1.0
    if row.empty:
        return (f"{_md(a)} and {_md(b)} are not compared under the '{result.compare}' "
                "comparison set; choose all pairs to test them.")
    r = row.iloc[0]
    diff = sign * float(r["diff"]) * (1 if higher_is_better else -1)
    ahead = f"{_md(a)} is ahead" if diff > 0 else f"{_md(b)} is ahead" if diff < 0 else "a tie"
    verdict = ("**significantly different**" if bool(r["significant"])
               else "**not significantly different**")
    wins = ""
    if result.paired and np.isfinite(r["wins_a"]):
        wa, wb = (r["wins_a"], r["wins_b"]) if sign > 0 else (r["wins_b"], r["wins_a"])
        wins = f" {_md(a)} wins {int(wa)} examples, {_md(b)} wins {int(wb)}."
    return (f"{_md(a)} vs {_md(b)}: {verdict} ({r['test']}, n = {n}, adjusted p = "
            f"{r['pvalue_adj']:.3g}, raw p = {r['pvalue']:.3g}, {r['effect_name']} = "
            f"{sign * r['effect_size']:.3f}, mean difference = {sign * r['diff']:.4f}; "
            f"{ahead}).{wins}")
