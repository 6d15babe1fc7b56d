"""The judge gate (:func:`engine.products._judge_gate.judge_gate`) bounded over the examples
one system lacks: the PPI++ verdict with the lacking examples' judge scores — and their human
labels where the other system's example is labelled — at the worst and the best score.

The rule is the A/B gate's (:mod:`engine.stats._missing_bounds`: Manski 1990; Horowitz &
Manski 2000): the observed verdict must survive the fill that works against it, unless each
side lacks at most the tolerance (10% of the examples either has) or the gap was declared
(``compare --allow-missing N``). A lacking example is one with a judge score for the other
system and none for this one. Its human label is filled where the other system's example has
one: the labels are a random subset of examples, and a label kept out of the fill would leave
the human-label scale — the gate's — bounded only through the judge (by λ of the gap), not by
the worst label. The bounded gate is rebuilt on the filled table as the gate was (the judge
board of every system, same options, same inclusion probabilities). Calibrated in
``benchmarks/bench_missing_judge_watch.py``
(no difference, failures dropped at 0.5: never "better" in 0.997 of 300 replications; 5%
missing at random: decides as on complete data in 0.950, and 0.893 ± 0.018 with +12
points, where the gate's own verdict is a coin flip).
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from .._options import TestOptions
from ..stats._missing_bounds import TOLERANCE, MissingBounds, Outcome, bound_gate, outcome_of
from ._judge_gate import JudgeGate, judge_gate

__all__ = ["judge_gate_bounds"]


def judge_gate_bounds(frame: pd.DataFrame, gate: JudgeGate, *, options: TestOptions | None = None,
                      inclusion: Any = None, declared: int = 0, tolerance: float = TOLERANCE
                      ) -> MissingBounds | None:
    """Bound ``gate``'s verdict over the examples one side lacks (None: neither lacks any,
    or the gate refused — it decides nothing to bound).

    Parameters
    ----------
    frame : DataFrame
        The long table the gate's board was built from (its judge and human metrics).
    gate : JudgeGate
        :func:`judge_gate`'s decision on that board.
    options : TestOptions, optional
        As given to the board and the gate (alpha, correction, alternative).
    inclusion : mapping or Series, optional
        The board's known inclusion probabilities (example_id → probability), if any.
    declared, tolerance :
        As :func:`engine.stats._missing_bounds.missing_bounds`.
    """
    from ..io._judge import JudgeContractError
    from ._judge import judge_board

    if gate.refused:
        return None
    rows = frame[(frame["benchmark"] == gate.benchmark)
                 & frame["metric"].isin([gate.judge, gate.human])]
    margin = None if gate.noninferiority is None else gate.noninferiority.margin

    def decide(whole: pd.DataFrame) -> Outcome:
        board: Any
        try:
            board = judge_board(whole, judge=gate.judge, human=gate.human,
                                benchmark=gate.benchmark, options=options,
                                higher_is_better=gate.higher_is_better, inclusion=inclusion)
        except JudgeContractError as exc:
            board = str(exc)
        return outcome_of(judge_gate(board, baseline=gate.baseline, candidate=gate.candidate,
                                     benchmark=gate.benchmark, judge=gate.judge,
                                     human=gate.human, higher_is_better=gate.higher_is_better,
                                     options=options, margin=margin))

    binary = bool(rows.loc[rows["metric"] == gate.judge, "value"].isin([0.0, 1.0]).all())
    return bound_gate(rows, outcome_of(gate), decide, baseline=gate.baseline,
                      candidate=gate.candidate, metric=gate.judge, binary=binary,
                      higher_is_better=gate.higher_is_better, declared=declared,
                      tolerance=tolerance)
