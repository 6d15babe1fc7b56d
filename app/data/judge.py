"""Cached answers of the judge metrics: the PPI++ judge leaderboard of a page's
:class:`app.data.query.Query`, the declared judge → human metric links of the store, and which
human metric (if any) corrects a page's metric."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd
import streamlit as st

from app.data import results, slices, store
from app.data.query import Query
from engine import JudgeContractError, TestOptions, judge_board, judge_gate
from engine.app_support import (
    INCLUSION_COLUMN,
    budget_check,
    find_groups,
    human_metric_for,
    judge_gate_bounds,
    judge_links,
    label_budget,
    restrict_to_slice,
)
from engine.results import JudgeBoard, JudgeGate, LabelBudget, Leaderboard, MissingBounds


@st.cache_resource(show_spinner=False, max_entries=16)
def links(token: str) -> dict[tuple[str, str], str]:
    """(benchmark, judge metric) → human metric, as declared in the store."""
    return judge_links(store.current())


def refusal_of_clusters(cluster: str) -> str:
    """Why PPI++ is not used on examples grouped by ``cluster``: its intervals treat the
    examples as independent, so beside a cluster-robust table they would be a second, too
    narrow answer (the sentence of ``engine.judge_gate``'s own refusal)."""
    return (f"the examples are clustered by {cluster!r}, and PPI++ treats them as "
            "independent; choose (no grouping) under Group examples by to correct the judge.")


@st.cache_resource(show_spinner="Rectifying the judge with the human labels…", max_entries=16)
def _board(q: Query) -> JudgeBoard | str:
    frame, inclusion = _rows(q)
    spec = store.metric_specs(q.store_token).get((q.benchmark, q.metric))
    try:
        return judge_board(frame, judge=q.metric, human=q.human, benchmark=q.benchmark,
                           options=q.options,
                           higher_is_better=True if spec is None else spec.higher_is_better,
                           inclusion=inclusion)
    except JudgeContractError as exc:
        return str(exc)


def _rows(q: Query) -> tuple[pd.DataFrame, pd.Series | None]:
    """The benchmark's rows a judge board is built from (the query's slice of them) and the
    examples' known inclusion probabilities (None: none stored)."""
    part = q.slice
    if part is None:
        frame = store.current().load_frame(q.benchmark)
    else:
        column, value, bins = part
        rows = restrict_to_slice(
            slices.numbers_typed(store.example_frame(q.store_token, q.benchmark)),
            column=column, value=value, bins=bins)
        frame = rows[store.CANONICAL]
    meta = store.current().example_metadata(q.benchmark)  # known inclusion probabilities
    inclusion = (meta.set_index(meta["example_id"].astype(str))[INCLUSION_COLUMN]
                 if INCLUSION_COLUMN in meta.columns else None)
    return frame, inclusion


def human_metric_of(q: Query) -> str | None:
    """The human metric the query's metric is corrected with: ``q.human`` when the page
    chose one, else the store's declared link, else a human_* metric of the same benchmark;
    None when the metric is not a judge metric."""
    if q.human:
        return q.human
    cat = store.catalog(q.store_token)
    metrics = cat.loc[cat["benchmark"] == q.benchmark, "metric"].astype(str)
    return human_metric_for(q.metric, list(metrics),
                            links(q.store_token).get((q.benchmark, q.metric)))


def board_of(q: Query) -> JudgeBoard | str | None:
    """The judge board every page shows for the query's metric (the same cached object on
    every page, so one system's or pair's figures are the same everywhere; the query's alpha
    and correction, of its slice's examples on a slice's data key): None when the metric has
    no human labels, the refusal's sentence when the labels cannot be used, or when
    ``q.cluster`` groups the examples (:func:`refusal_of_clusters`)."""
    human = human_metric_of(q)
    if human is None:
        return None
    if q.cluster:
        return refusal_of_clusters(q.cluster)
    o = q.options
    return _board(q.narrowed(options=TestOptions(alpha=o.alpha, correction=o.correction),
                             human=human))


def corrected_leaderboard(q: Query) -> Leaderboard | None:
    """The Leaderboard's board ranked on the judge board's PPI++ estimates of the
    human-label means (:func:`board_of`, the object the page's headline and its count of
    differing pairs come from); None when the metric has no usable human labels."""
    if not isinstance(board_of(q), JudgeBoard):
        return None
    return _corrected_leaderboard(q)


@st.cache_resource(show_spinner=False, max_entries=16)
def _corrected_leaderboard(q: Query) -> Leaderboard:
    found = board_of(q)
    assert isinstance(found, JudgeBoard)  # corrected_leaderboard checked it
    return corrected_ranking(results.board_of(q), found)


def corrected_ranking(own: Leaderboard, judged: JudgeBoard) -> Leaderboard:
    """``own`` (the judge's scores as they are) with its table ranked on ``judged``: each
    system's rank, mean and interval the PPI++ estimate's, its group letters and rank range
    from the PPI++ pair tests (adjusted as the headline counts them: Holm by default); the
    columns without a corrected counterpart (win rate, strength, Elo: example battles of the
    judge's scores) left empty. The rank range is the pair tests' (1 + systems significantly
    better to systems − those significantly worse), not the judge's rank sets."""
    t = judged.table
    systems = t["system"].astype(str).tolist()
    sign = 1.0 if judged.higher_is_better else -1.0
    p = judged.pairs.table
    pairs = pd.DataFrame({"system_a": p["system_a"].astype(str),
                          "system_b": p["system_b"].astype(str),
                          "pvalue_adj": p["p_adjusted"].to_numpy(float),
                          "significant": p["significant"].to_numpy(bool),
                          "a_better": sign * p["estimate"].to_numpy(float) > 0})
    groups = find_groups(systems, (sign * t["ppi_mean"].to_numpy(float)).tolist(), pairs)
    table = (own.table.assign(system=own.table["system"].astype(str)).set_index("system")
             .reindex(systems).reset_index())
    table = table.assign(
        rank=t["rank"].to_numpy(int), mean=t["ppi_mean"].to_numpy(float),
        ci_low=t["ppi_low"].to_numpy(float), ci_high=t["ppi_high"].to_numpy(float),
        rank_low=[groups.rank_low[s] for s in systems],
        rank_high=[groups.rank_high[s] for s in systems],
        group=[groups.letters[s] for s in systems],
        win_rate=np.nan, bt_strength=np.nan, elo=np.nan)
    # the pair tests the charts draw (edges, p-values) are the PPI++ ones the groups come
    # from, not the judge's own: one answer for the table and every chart beside it
    tests = pd.DataFrame({"system_a": pairs["system_a"], "system_b": pairs["system_b"],
                          "estimate": p["estimate"].to_numpy(float),
                          "pvalue": p["pvalue"].to_numpy(float),
                          "pvalue_adj": pairs["pvalue_adj"], "significant": pairs["significant"],
                          "effect_size": np.nan})
    pairwise = replace(own.pairwise, table=tests, test="ppi++", wins=None, ties=None,
                       reason="judge scores corrected with human labels → PPI++ pair tests "
                              "(Angelopoulos et al. 2023)")
    # no source matrix: the rank sets of the judge's own scores are not this ranking's
    return replace(own, table=table, groups=groups, pairwise=pairwise, test="ppi++",
                   source=None, given_rank_sets=None)


def shown_board(q: Query) -> Leaderboard:
    """The board the Leaderboard page shows for ``q``: ranked on the PPI++ estimates when
    human labels correct its judge metric (:func:`corrected_leaderboard`), else the
    query's own board. The ranked table, every chart and the Markdown report draw it."""
    return corrected_leaderboard(q) or results.board_of(q)


def gate_of(q: Query) -> JudgeGate | None:
    """The A/B gate on the PPI++ difference (``compare``'s) of the query's pair (baseline,
    candidate) when its metric has human labels, from the same cached board as every page;
    None otherwise."""
    human = human_metric_of(q)
    if human is None or q.pair is None:
        return None
    found = board_of(replace(q, cluster=""))  # the gate says itself why clusters refuse
    spec = store.metric_specs(q.store_token).get((q.benchmark, q.metric))
    baseline, candidate = q.pair
    return judge_gate(found or "", baseline=baseline, candidate=candidate,
                      benchmark=q.benchmark, judge=q.metric, human=human,
                      higher_is_better=True if spec is None else spec.higher_is_better,
                      options=q.options, cluster=q.cluster or None)


def gate_bounds_of(q: Query) -> MissingBounds | None:
    """The gate of :func:`gate_of` bounded over the examples one system lacks, as
    ``compare`` bounds it (None: no gate, it refused, or neither system lacks any)."""
    if human_metric_of(q) is None or q.pair is None:
        return None
    return _gate_bounds(q)


@st.cache_resource(show_spinner="Bounding the examples one system lacks…", max_entries=16)
def _gate_bounds(q: Query) -> MissingBounds | None:
    gate = gate_of(q)
    if gate is None or gate.refused:
        return None
    frame, inclusion = _rows(replace(q, cluster="", human=gate.human))
    return judge_gate_bounds(frame, gate, options=q.options, inclusion=inclusion)


@st.cache_resource(show_spinner="Planning the human labels…", max_entries=32)
def _budget(q: Query) -> tuple[LabelBudget, pd.DataFrame]:
    board = board_of(q)
    if not isinstance(board, JudgeBoard):
        raise ValueError(f"metric: {q.metric!r} has no usable human labels to plan for")
    plan = label_budget(board, target_width=q.label_width)
    return plan, budget_check(plan, reps=500, seed=0)


def budget(q: Query) -> tuple[LabelBudget, pd.DataFrame]:
    """Labels per system for a PPI++ interval of ``q.label_width`` of the query's judge
    board (:func:`board_of`), and the closed form checked by simulation (500 replications,
    seed 0)."""
    o = q.options
    return _budget(q.narrowed(options=TestOptions(alpha=o.alpha, correction=o.correction),
                              human=q.human, label_width=q.label_width))
