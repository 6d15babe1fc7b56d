"""The leaderboard report's section on repeated tries (engine/report/_passk_report.py).

Reference values: the issue's exact example (n = 8 tries, c = 6 successes, k = 4 →
pass^4 = C(6,4)/C(8,4) = 15/70 = 21.4%) on tasks that all have that count, so the mean over
tasks is that value; and the engine's own curves for the k-curve cells.
"""

from __future__ import annotations

import pandas as pd

from engine import build_matrix, leaderboard
from engine.report._passk_report import curve_ks, k_curve_table
from engine.report._reports import leaderboard_report
from engine.stats._passk import pass_k_curves
from engine.stats._passk_reliability import reliability


def _frame() -> pd.DataFrame:
    """System ``<b>A</b>`` (a name to escape): 6 of 8 tries pass on each of 5 tasks; ``B``:
    8 of 8 on 3 tasks, 0 of 8 on 2."""
    rows = []
    for t in range(5):
        for r in range(8):
            rows.append(("b", "<b>A</b>", f"t{t}", "success", float(r < 6), r))
            rows.append(("b", "B", f"t{t}", "success", float(t < 3), r))
    return pd.DataFrame(rows, columns=["benchmark", "system", "example_id", "metric", "value",
                                       "run"])


def test_report_has_pass_k_at_k_and_the_k_curve_tables() -> None:
    frame = _frame()
    result = reliability(frame, k=4)
    curves = pass_k_curves(result.counts)
    board = leaderboard(build_matrix(frame.groupby(
        ["benchmark", "system", "example_id", "metric"], as_index=False)["value"].mean()))
    md = leaderboard_report(board, fmt="markdown", reliability=(result, curves))
    assert "## Repeated tries: pass^k and pass@k" in md
    assert "## At k = 4, ranked by pass^4" in md
    assert "21.4% (" in md  # 15/70, the exact value
    html = leaderboard_report(board, fmt="html", reliability=(result, curves))
    assert "pass^k for every k (all k tries succeed)" in html
    assert "<b>A</b>" not in html and "&lt;b&gt;A&lt;/b&gt;" in html
    # B passes all 8 tries on 3 of 5 tasks and none on 2: pass^k = pass@k = 60% at every k
    table = k_curve_table(curves, "pass_hat_k").set_index("system")
    assert list(table.columns) == [f"k = {k}" for k in range(1, 9)]
    assert all(cell.startswith("60.0% (") for cell in table.loc["B"])
    assert leaderboard_report(board, fmt="markdown").count("Repeated tries") == 0


def test_many_tries_keep_a_dozen_columns() -> None:
    assert curve_ks(8) == list(range(1, 9))
    assert curve_ks(100) == [1, 2, 4, 8, 16, 32, 64, 100]
    assert curve_ks(64) == [1, 2, 4, 8, 16, 32, 64]
