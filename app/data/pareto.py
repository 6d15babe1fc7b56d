"""The Trade-offs page's one answer, cached: which systems may be the best trade-off of a
score and a cost on one benchmark, each with its confidence box
(:func:`engine.app_support.pareto_set`).

The chart and the table of the page are drawn from the same :class:`TradeOffs`, the
table's cost per success and cost per point included (columns of the engine's table). Its cache
key holds every input: the data version (``token``), the benchmark, both metrics, the
confidence, the bootstrap's seed and resamples, and the price table's bytes (a cost
computed from tokens at the user's prices, :func:`engine.app_support.cost_from_prices`).
"""

from __future__ import annotations

import io
from dataclasses import dataclass

import pandas as pd
import streamlit as st

from app.data import store
from engine.app_support import USAGE_METRICS, ParetoSet, cost_from_prices, pareto_set

__all__ = ["PRICED", "TradeOffs", "axes", "trade_offs"]

#: the cost axis computed from each example's tokens at the prices of an uploaded table
PRICED = "cost at your prices"
#: bootstrap resamples of each cost interval (the CLI's default)
RESAMPLES = 4999


@dataclass(frozen=True)
class TradeOffs:
    """One benchmark's trade-off of ``score`` against ``cost``: the engine's result, whether
    the score is 0/1 (a share, shown in percent) and the sentence stating the prices used."""

    result: ParetoSet
    binary: bool
    prices: str = ""


def axes(catalog: pd.DataFrame, benchmark: str) -> tuple[list[str], list[str]]:
    """The benchmark's possible score axes (higher-is-better metrics, usage metrics
    excluded) and cost axes (lower-is-better metrics: usage first, then any other)."""
    rows = catalog[catalog["benchmark"].astype(str) == benchmark]
    metric = rows["metric"].astype(str)
    usage = metric.isin(USAGE_METRICS)
    higher = rows["higher_is_better"].astype(bool)
    scores = metric[higher & ~usage].tolist()
    costs = metric[~higher & usage].tolist() + metric[~higher & ~usage].tolist()
    return scores, costs


def _rows(token: str, benchmark: str, metrics: tuple[str, ...]) -> pd.DataFrame:
    return pd.concat([store.metric_rows(token, benchmark, m) for m in metrics],
                     ignore_index=True)


@st.cache_data(show_spinner=False, max_entries=32)
def trade_offs(token: str, benchmark: str, score: str, cost: str, confidence: float, seed: int,
               prices: bytes = b"", prices_name: str = "", resamples: int = RESAMPLES
               ) -> TradeOffs:
    """The Pareto set with confidence of ``score`` against ``cost`` on ``benchmark``.

    ``cost`` = :data:`PRICED` computes the cost of each example from its ``tokens_in`` and
    ``tokens_out`` at the prices of ``prices`` (a CSV: system, input_price, output_price,
    prices per token). Raises ``ValueError`` with the engine's message when the data or the
    price table do not allow it.
    """
    if cost == PRICED:
        if not prices:
            raise ValueError("prices: upload a price table to compute the cost from tokens")
        try:
            table = pd.read_csv(io.BytesIO(prices), dtype={"system": str})
        except (ValueError, UnicodeDecodeError) as exc:
            raise ValueError(f"{prices_name}: cannot be read as CSV ({exc}); write a CSV with "
                             "the columns system, input_price, output_price") from None
        frame = cost_from_prices(_rows(token, benchmark, (score, "tokens_in", "tokens_out")),
                                 table, label=prices_name, metric="cost")
        metric = "cost"
        said = (f"Cost = tokens in × input price + tokens out × output price, at the prices "
                f"per token of {prices_name} (as you gave them; never fetched).")
    else:
        frame, metric, said = _rows(token, benchmark, (score, cost)), cost, ""
    result = pareto_set(frame, score, metric, benchmark=benchmark, confidence=confidence,
                        n_resamples=resamples, seed=seed)
    values = frame.loc[frame["metric"] == score, "value"]
    return TradeOffs(result, bool(values.isin([0.0, 1.0]).all()), said)
