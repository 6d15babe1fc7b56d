"""Judge scores corrected with human labels on the Leaderboard, Pairwise, A/B compare and
Overall pages: when the page's metric is an LLM judge's score with human labels, the
PPI++ estimates of the human-label mean (``engine.judge_board``, one cached board per metric
so every page shows the same figures), with the effective number of labels and the judge-only
and human-only figures beside them; the labels' refusal, with its reason, when they are not a
random sample."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from app import state
from app.data import judge
from app.data.query import Query
from app.ranked import html_table
from engine.app_support import error_rate_words, judge_pair_figures, md_isolated, md_text
from engine.results import JudgeBoard, JudgeGate, MissingBounds

METHOD_HELP = ("Prediction-powered inference (PPI++; Angelopoulos, Duchi & Zrnic 2023): the "
               "judge's mean over every example, rectified by the judge − human difference on "
               "the labelled ones, with the power-tuned λ per system; t quantiles with labels − 2 "
               "df (λ is fitted on the labels). Valid for the human-label mean whatever the "
               "judge's bias, if the labelled examples are a random sample. See Methods.")
SYSTEM_HELP = {
    "system": "The system",
    "corrected": "PPI++ estimate of the mean human label: judge scores corrected with the "
                 "human labels",
    "low": "Lower end of its interval", "high": "Upper end of its interval",
    "human labels": "Examples of this system a human labelled",
    "effective labels": "Human labels alone that would give an interval this narrow",
    "judge only": "Mean judge score [interval]: biased if the judge is",
    "human only": "Mean of the human labels alone [interval]"}
PAIR_HELP = {"source": "Which scores the difference is estimated from",
             "difference": "First system − second system", "low": "Lower end of its interval",
             "high": "Upper end of its interval", "p": "p-value of this pair alone",
             "adjusted p": "Corrected for testing every pair (PPI++ row only)",
             "examples": "Examples the estimate uses (labelled for both, or judged for both)"}
FORMATS = {c: ".4g" for c in ("corrected", "low", "high", "difference", "p", "adjusted p")}


def _interval(mean: float, low: float, high: float) -> str:
    return f"{mean:.4g} [{low:.4g}, {high:.4g}]"


def _weighted(board: JudgeBoard) -> str:
    """Said when the labels were drawn with known unequal chances."""
    return ("" if board.inclusion is None else ", each label weighted by 1 / the chance it "
            "had of being labelled (the upload's inclusion_probability)")


def _refused(reason: str) -> None:
    st.warning(f"The human labels cannot correct the judge here: {md_isolated(reason)} The "
               "figures on this page are the judge's own.", icon=":material/block:")


def _board(q: Query) -> JudgeBoard | None:
    found = judge.board_of(q)
    if isinstance(found, str):
        _refused(found)
        return None
    return found


def judge_systems(q: Query) -> str | None:
    """The corrected table of every system (Leaderboard, Overall) when the query's metric has
    human labels; returns the one-sentence lead (None: no human labels or refused, e.g.
    because ``q.cluster`` groups the examples and PPI++ would treat them as independent)."""
    board = _board(q)
    benchmark, metric = q.benchmark, q.metric
    if board is None:
        return None
    t = board.table
    total = int(t["n_human"].sum())
    st.markdown(f"**Judge scores corrected with {total:,} human labels** "
                f"({md_isolated(board.human)} on {md_isolated(benchmark)}){_weighted(board)}",
                help=METHOD_HELP)
    shown = pd.DataFrame({
        "system": t["system"].astype(str), "corrected": t["ppi_mean"], "low": t["ppi_low"],
        "high": t["ppi_high"], "human labels": t["n_human"],
        "effective labels": t["effective_n"].round().astype("Int64"),
        "judge only": [_interval(*r) for r in zip(t["judge_mean"], t["judge_low"],
                                                  t["judge_high"], strict=True)],
        "human only": [_interval(*r) for r in zip(t["human_mean"], t["human_low"],
                                                  t["human_high"], strict=True)]})
    st.html(html_table(shown, label="judge corrected", formats=FORMATS, help=SYSTEM_HELP,
                       max_height=None))
    st.caption(f"Best first by the corrected mean, {1 - board.alpha:.0%} intervals. The "
               "judge-only column is what the judge alone says (biased if the judge is); the "
               "human-only one uses only the labelled examples.")
    state.link("judge", "Judge + humans: agreement, pairs, label budget",
               icon=":material/gavel:", benchmark=benchmark, metric=metric)
    top = t.iloc[0]
    sig = board.pairs.table["significant"].astype(bool)  # the Judge page's and the CLI's count
    return (f"{md_isolated(top['system'])} leads on judge scores corrected with {total:,} human "
            f"labels: {top['ppi_mean']:.4g} [{top['ppi_low']:.4g}, {top['ppi_high']:.4g}], "
            f"its {int(top['n_human'])} labels worth about {top['effective_n']:.0f} used "
            f"alone (PPI++); {int(sig.sum())} of {len(sig)} pairs differ on the human-label "
            f"scale, {error_rate_words(board.alpha, board.correction)}")


def judge_pair(q: Query, a: str, b: str, *, sentence: bool = True) -> None:
    """The corrected difference a − b (Pairwise, A/B compare) when the query's metric has
    human labels, with the judge-only and human-only differences beside it (``sentence``:
    the lead above the table; A/B compare's verdict box says it instead)."""
    board = _board(q) if sentence else judge.board_of(q)
    if not isinstance(board, JudgeBoard) or a == b or not {a, b} <= set(board.data.systems):
        return
    f = judge_pair_figures(board, a, b)
    verdict = "differ" if f.significant else "cannot be told apart"
    if sentence:
        st.info(f"**Judge scores corrected with {f.n_both:,} human labels** (examples labelled for "
            f"both{_weighted(board)}): {md_isolated(a)} − {md_isolated(b)} = {f.estimate:.4g} "
            f"[{f.low:.4g}, {f.high:.4g}], p = {f.pvalue:.3g} ({f.p_adjusted:.3g} corrected for "
            f"every pair): they {verdict} on the human-label scale. The labels count like about "
            f"{f.effective_n:.0f} used alone.", icon=":material/gavel:")
    st.html(html_table(pd.DataFrame({
        "source": ["judge corrected (PPI++)", "judge only", "human only"],
        "difference": [f.estimate, f.judge_estimate, f.human_estimate],
        "low": [f.low, f.judge_low, f.human_low], "high": [f.high, f.judge_high, f.human_high],
        "p": [f.pvalue, None, None], "adjusted p": [f.p_adjusted, None, None],
        "examples": [f.n_both, f.n_judge, f.n_both]}),
        label="judge corrected pair", formats=FORMATS, help=PAIR_HELP, max_height=None))
    st.caption(md_text(METHOD_HELP))


def gate_verdict(gate: JudgeGate, bounds: MissingBounds | None = None) -> None:
    """A/B compare's verdict on a judge metric with human labels: the PPI++ gate's
    decision (what ``compare`` exits with), or why it refuses (exit 2); ``bounds``: the
    gate bounded over the examples one system lacks (the page says its sentence under the
    verdict): when it cannot decide, the verdict is shown as the observed examples' only."""
    if gate.refused:
        st.warning(f"**The gate would not decide this pair (exit 2).** The human labels cannot "
                   f"correct the judge here: {md_isolated(gate.refused)}. The figures below are "
                   "the judge's own scores.", icon=":material/block:")
        return
    box = st.success if gate.verdict.endswith("better") else {0: st.info, 1: st.error}[gate.exit_code]
    f, t = gate.figures, gate.test
    if f is None or t is None:
        return
    lead = ""
    if bounds is not None and not bounds.decided:  # exit 2: not a decision
        box, lead = st.warning, ("**Not a decision (exit 2): one system lacks examples the "
                                 "other has, see below.** On the examples both have only: ")
    box(f"{lead}**Verdict on judge scores corrected with {f.n_both:,} human labels (PPI++): "
        f"{md_isolated(gate.verdict)}** — {md_isolated(gate.candidate)} − "
        f"{md_isolated(gate.baseline)} = {t.estimate:+.4g} ({1 - gate.alpha:.0%} interval "
        f"{t.ci_low:+.4g} to {t.ci_high:+.4g}, p = {t.pvalue:.3g}) on the human-label scale of "
        f"{md_isolated(gate.human)}; the labels count like about {f.effective_n:.0f} used "
        "alone." + ("" if lead else " This is the verdict `compare` exits with."),
        icon=":material/gavel:")
