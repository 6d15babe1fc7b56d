"""The A/B gate on a judge metric with human labels: the verdict, interval, p-value and
exit code from the PPI++ paired difference, not from the judge's own scores.

The figures are the judge board's own pair row (:func:`engine.judge_pair_figures`, the row the
Pairwise page and ``leaderboard --judge`` show), oriented so that positive = candidate better.
The gate refuses (exit 2) where the PPI++ design cannot keep its promise: the labels are not a
random sample by the data's own evidence (the board's refusal), fewer than
:data:`MIN_GATE_LABELS` examples are labelled for both systems, the examples are clustered
(PPI++ here treats them as independent), or a one-sided test or margin is asked of labels
weighted by known inclusion probabilities (their Satterthwaite df is not kept per pair).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from .._options import TestOptions, resolve
from ..stats._ab import _verdict
from ..stats._equivalence import Equivalence, tost
from ..stats._noninferiority import NonInferiority, ni_verdict, noninferiority_test
from ..stats._runs_pairs import PairRunTest
from ._judge import JudgeBoard
from ._judge_pair import JudgePairFigures, judge_pair_figures

__all__ = ["MIN_GATE_LABELS", "JudgeGate", "judge_gate", "report_with_gate"]

#: Fewest examples labelled for both systems the gate decides on: its false alarms stayed
#: within alpha from 10 labels up (benchmarks/calibrate_ppi_gate.py, Methods); below 10 the
#: judge-human covariance behind lambda rests on too few pairs to trust.
MIN_GATE_LABELS = 10
MODEL = "ppi++"
METHOD = ("PPI++ paired difference (Angelopoulos, Duchi & Zrnic 2023): the judge's difference "
          "on every example both systems were judged on, rectified by the human-labelled "
          "difference; t quantiles with labels - 2 df (lambda is fitted on the labels)")


@dataclass(frozen=True)
class JudgeGate:
    """The gate's decision on a judge metric with human labels (see :func:`judge_gate`).

    ``figures``: the board's PPI++ difference candidate − baseline in the metric's raw units
    (None when refused before it could be computed); ``refused``: why the gate cannot decide
    (exit 2), empty when it decides; ``test``: the PPI++ difference as a test oriented
    positive = candidate better (None when refused)."""

    baseline: str
    candidate: str
    benchmark: str
    judge: str
    human: str
    higher_is_better: bool
    alpha: float
    verdict: str
    exit_code: int
    refused: str = ""
    figures: JudgePairFigures | None = None
    test: PairRunTest | None = None
    weighted: bool = False
    noninferiority: NonInferiority | None = None
    equivalence: Equivalence | None = None

    @property
    def sign(self) -> float:
        return 1.0 if self.higher_is_better else -1.0

    def sentence(self) -> str:
        """The gate's answer in one line (the CLI's first line, the page's verdict box)."""
        if self.refused:
            return (f"cannot decide on human-label terms: {self.refused} (exit 2; the judge's "
                    "own scores are shown below for information)")
        f, t = self.figures, self.test
        if f is None or t is None:  # not refused: both were computed
            return self.verdict
        level = f"{1 - self.alpha:.0%}"
        return (f"{self.verdict}: {self.candidate} − {self.baseline} = {t.estimate:+.4g} "
                f"({level} interval {t.ci_low:+.4g} to {t.ci_high:+.4g}, p = {t.pvalue:.3g}) "
                f"on judge scores corrected with {f.n_both:,} human labels (PPI++, "
                f"{self.human}; worth about {f.effective_n:.0f} labels used alone)")


def _num(value: float) -> float | None:
    return float(value) if math.isfinite(value) else None


def _refuse(base: dict[str, Any], why: str, **extra: Any) -> JudgeGate:
    return JudgeGate(**base, verdict="cannot decide", exit_code=2, refused=why, **extra)


def _pair_se(board: JudgeBoard, a: str, b: str) -> float:
    t = board.pairs.table
    row = t[((t["system_a"] == a) & (t["system_b"] == b))
            | ((t["system_a"] == b) & (t["system_b"] == a))]
    return float(row["se"].iloc[0])


def _as_test(f: JudgePairFigures, se: float, sign: float, alternative: str) -> PairRunTest:
    """The PPI++ difference as the gate's test, oriented (positive = candidate better); the
    one-sided p-values from the same t as the two-sided one (labels - 2 df: lambda is fitted
    on the labels, :func:`engine.stats._ppi._result`)."""
    from scipy import stats

    est = sign * f.estimate
    low, high = sorted((sign * f.low, sign * f.high))
    df = float(f.n_both - 2)
    statistic = est / se if se > 0 else math.nan
    pvalue = (f.pvalue if alternative == "two-sided" else
              float(stats.t.sf(statistic, df)) if alternative == "greater" else
              float(stats.t.cdf(statistic, df)))
    return PairRunTest(MODEL, METHOD, est, se, df, statistic, pvalue, low, high, math.nan,
                       math.nan, math.nan, f.n_judge, (1, 1), True, f.alpha, alternative)


def judge_gate(board: JudgeBoard | str, *, baseline: str, candidate: str, benchmark: str,
               judge: str, human: str, higher_is_better: bool = True,
               options: TestOptions | None = None, margin: float | None = None,
               equivalence: float | None = None, cluster: str | None = None) -> JudgeGate:
    """The A/B gate of ``candidate`` against ``baseline`` on the PPI++ paired difference of a
    judge board (validate the design → the board's pair row → verdict and exit code).

    ``board``: the judge board of the metric, or the sentence saying why its labels cannot be
    used (:class:`engine.JudgeContractError`'s message). ``options``: its ``alternative``, and
    its ``alpha`` where there is no board (default ``TestOptions()``). The verdict is
    "candidate is significantly worse/better" at the board's ``alpha`` by the pair's
    unadjusted p-value (one pair, one test: the adjusted one stays beside it), or with
    ``margin`` the non-inferiority test on the PPI++ estimate and standard error (labels - 2
    df). Exit 1 only for worse (or non-inferiority not shown), 2 when refused.

    Examples
    --------
    >>> judge_gate("labels on the first examples only", baseline="a", candidate="b",
    ...            benchmark="x", judge="j", human="h").exit_code
    2
    """
    opts = resolve(options, {})
    alpha, alternative = opts.alpha, opts.alternative
    base: dict[str, Any] = {"baseline": baseline, "candidate": candidate, "benchmark": benchmark,
                            "judge": judge, "human": human,
                            "higher_is_better": higher_is_better, "alpha": alpha}
    if isinstance(board, str):
        return _refuse(base, f"the human labels of {human!r} cannot serve PPI++: {board}")
    base["alpha"] = board.alpha
    weighted = board.inclusion is not None
    missing = [s for s in (baseline, candidate) if s not in board.data.systems]
    if missing:
        return _refuse(base, f"{missing[0]!r} has no {judge!r} scores to correct",
                       weighted=weighted)
    if cluster is not None:
        return _refuse(base, f"the examples are clustered by {cluster!r}, and PPI++ treats "
                       "them as independent; pass --cluster - (the page: cluster 'none') to "
                       "decide as if they were", weighted=weighted)
    if weighted and (alternative != "two-sided" or margin is not None):
        return _refuse(base, "a one-sided test or margin on labels weighted by inclusion "
                       "probabilities is not supported (their effective df is per system); "
                       "use the two-sided gate", weighted=weighted)
    f = judge_pair_figures(board, candidate, baseline)
    if f.n_both < MIN_GATE_LABELS:
        return _refuse(base, f"only {f.n_both} example(s) are labelled for both systems "
                       f"(fewer than {MIN_GATE_LABELS}); label more (ppi-budget says how many)",
                       figures=f, weighted=weighted)
    se = _pair_se(board, candidate, baseline)
    if not (math.isfinite(se) and math.isfinite(f.pvalue)):
        return _refuse(base, "the PPI++ difference has no standard error (constant labels "
                       "and scores)", figures=f, weighted=weighted)
    test = _as_test(f, se, 1.0 if higher_is_better else -1.0, alternative)
    ni = None if margin is None else noninferiority_test(test, margin=margin, alpha=board.alpha)
    verdict, code = ni_verdict(ni) if ni is not None else _verdict(test, board.alpha)
    eq = (None if equivalence is None or weighted else
          tost(test.estimate, test.se, test.df, margin=equivalence, alpha=board.alpha))
    return JudgeGate(**base, verdict=verdict, exit_code=code, figures=f, test=test,
                     weighted=weighted, noninferiority=ni, equivalence=eq)


def report_with_gate(report: str, gate: JudgeGate | None, fmt: str) -> str:
    """An A/B report (``compare --report``, the page's downloads) with the gate's verdict under
    its title: the rest of the report describes the judge's own scores, and says so.
    ``fmt``: "markdown", else HTML (after the first ``</h1>``)."""
    if gate is None:
        return report
    from .._text import html_text, md_text

    said = (f"Gate verdict (judge scores corrected with human labels): {gate.sentence()}. "
            "The rest of this report describes the judge's own scores.")
    if fmt == "markdown":
        title, _, rest = report.partition("\n")
        return f"{title}\n\n**{md_text(said)}**\n{rest}"
    head, sep, rest = report.partition("</h1>")
    return f"{head}{sep}<p class=\"verdict none\">{html_text(said)}</p>{rest}" if sep else report
