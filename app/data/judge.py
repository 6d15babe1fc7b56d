"""Cached answers of the judge metrics (#31): the PPI++ judge leaderboard, the declared judge →
human metric links of the store, and which human metric (if any) corrects a page's metric."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from app.data import slices, store
from engine import (
    INCLUSION_COLUMN,
    JudgeBoard,
    JudgeContractError,
    JudgeGate,
    LabelBudget,
    TestOptions,
    budget_check,
    human_metric_for,
    judge_board,
    judge_gate,
    judge_links,
    label_budget,
    restrict_to_slice,
)


@st.cache_resource(show_spinner=False, max_entries=16)
def links(token: str) -> dict[tuple[str, str], str]:
    """(benchmark, judge metric) → human metric, as declared in the store."""
    return judge_links(store.current())


@st.cache_resource(show_spinner="Rectifying the judge with the human labels…", max_entries=16)
def board(token: str, benchmark: str, judge: str, human: str, alpha: float,
          higher_is_better: bool, correction: str = "holm-sidak") -> JudgeBoard | str:
    """The judge leaderboard, or the sentence saying why the labels cannot be used; on a
    slice's data key (``app.data.slices.sliced``), of the slice's examples only."""
    base, part = slices.split_key(token)
    if part is None:
        frame = store.current().load_frame(benchmark)
    else:
        column, value, bins = part
        rows = restrict_to_slice(slices.numbers_typed(store.example_frame(base, benchmark)),
                                 column=column, value=value, bins=bins)
        frame = rows[store.CANONICAL]
    meta = store.current().example_metadata(benchmark)  # known inclusion probabilities (#31)
    inclusion = (meta.set_index(meta["example_id"].astype(str))[INCLUSION_COLUMN]
                 if INCLUSION_COLUMN in meta.columns else None)
    try:
        return judge_board(frame, judge=judge, human=human, benchmark=benchmark, alpha=alpha,
                           correction=correction, higher_is_better=higher_is_better,
                           inclusion=inclusion)
    except JudgeContractError as exc:
        return str(exc)


def human_metric_of(token: str, benchmark: str, metric: str,
                    catalog: pd.DataFrame) -> str | None:
    """The human metric paired with ``metric`` (the store's declared link, else a human_*
    metric of the same benchmark), or None when ``metric`` is not a judge metric."""
    metrics = catalog.loc[catalog["benchmark"] == benchmark, "metric"].astype(str)
    return human_metric_for(metric, list(metrics), links(token).get((benchmark, metric)))


def board_of(token: str, benchmark: str, metric: str, catalog: pd.DataFrame, *,
             alpha: float, correction: str) -> JudgeBoard | str | None:
    """The judge board every page shows for ``metric`` (the same cached object on every page,
    so one system's or pair's figures are the same everywhere): None when the metric has no
    human labels, the refusal's sentence when the labels cannot be used."""
    human = human_metric_of(token, benchmark, metric, catalog)
    if human is None:
        return None
    spec = store.metric_specs(token).get((benchmark, metric))
    higher = True if spec is None else spec.higher_is_better
    return board(token, benchmark, metric, human, alpha, higher, correction)


def gate_of(token: str, benchmark: str, metric: str, catalog: pd.DataFrame, baseline: str,
            candidate: str, options: TestOptions, cluster: str | None) -> JudgeGate | None:
    """The A/B gate on the PPI++ difference (``compare``'s, #31) when ``metric`` has human
    labels, from the same cached board as every page; None otherwise."""
    human = human_metric_of(token, benchmark, metric, catalog)
    if human is None:
        return None
    found = board_of(token, benchmark, metric, catalog, alpha=options.alpha,
                     correction=options.correction)
    spec = store.metric_specs(token).get((benchmark, metric))
    return judge_gate(found or "", baseline=baseline, candidate=candidate,
                      benchmark=benchmark, judge=metric, human=human,
                      higher_is_better=True if spec is None else spec.higher_is_better,
                      alpha=options.alpha, alternative=options.alternative,
                      cluster=cluster or None)


@st.cache_resource(show_spinner="Planning the human labels…", max_entries=32)
def budget(_board: JudgeBoard, token: str, benchmark: str, metric: str, alpha: float,
           correction: str, width: float) -> tuple[LabelBudget, pd.DataFrame]:
    """Labels per system for a PPI++ interval of ``width``, and the closed form checked by
    simulation (500 replications, seed 0); the key names the board (``_board`` unhashed)."""
    plan = label_budget(_board, target_width=width)
    return plan, budget_check(plan, reps=500, seed=0)
