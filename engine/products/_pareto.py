"""Which systems may be the best trade-off of score and cost: the Pareto set with confidence.

A board that draws "the front" from point estimates puts a system on it though its score
interval overlaps the next one's. Here each system gets a **simultaneous confidence box**:
its score interval and its cost interval, each at the Šidák level ``confidence^(1/(2K))``
for K systems, so that all 2K intervals hold their true values at once with probability
≥ ``confidence`` (Šidák 1967, JASA 62:626; exact for independent intervals, conservative
for positively dependent ones). A system is **certainly dominated** when another system's
box dominates its box: the other's score_low ≥ its score_high and the other's cost_high ≤
its cost_low, at least one of them strict. Otherwise it is **possibly optimal**.

Why this keeps its promise: when every box holds its truth, a box-dominated system is truly
dominated (true score of the other ≥ its score_low ≥ … ≥ the first's true score, likewise
cost, one step strict), so no system of the true Pareto front is called dominated. The
possibly-optimal set therefore contains the true front with probability ≥ ``confidence``
(benchmarks/calibrate_pareto.py: 7 systems, 200 examples, two equal systems on the front,
400 replications: 1.000, MC SE 0.000 — conservative, as a union bound over boxes is; the
price is power, 0.26 of the 2 truly dominated systems found dominated on average). With zero-width
boxes it is the exact Pareto front of the point estimates.

Intervals (on the examples every system has both metrics for, repeated tries averaged per
example): score, the t interval of the mean (clipped to [0, 1] for a 0/1 score); cost
(lower is better, heavy-tailed), the symmetric studentised bootstrap of the mean
(:func:`engine.stats._cost.bootstrap_t_interval`), its lower bound raised to 0 when no cost
is negative. Intersecting an interval with the set its parameter lies in keeps its coverage.

Beside the boxes, each system's **cost per success** (a 0/1 score) and **cost per point** of
score (one percentage point of a 0/1 score, else one unit): Σcost/Σscore with a bootstrap-t
interval on its log (:func:`engine.stats._cost.ratio_of_means`), at ``confidence`` for each
system alone — they say what a system's quality costs, not which system dominates.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from ..stats._cost import bootstrap_t_interval, ratio_of_means

__all__ = ["CERTAINLY_DOMINATED", "POSSIBLY_OPTIMAL", "PRICE_COLUMNS", "RATIO_COLUMNS", "ParetoSet",
           "cost_from_prices", "pareto_boxes", "pareto_set"]

#: a price table: one row per system, the price of one input token and of one output token
PRICE_COLUMNS = ("system", "input_price", "output_price")

POSSIBLY_OPTIMAL = "possibly optimal"
CERTAINLY_DOMINATED = "certainly dominated"
COLUMNS = ("system", "score", "score_low", "score_high", "cost", "cost_low", "cost_high",
           "status", "dominated_by")
#: per-system ratio columns :func:`pareto_set` adds (``cost_per_success*`` for a 0/1 score only)
RATIO_COLUMNS = ("cost_per_success", "cost_per_success_low", "cost_per_success_high",
                 "cost_per_point", "cost_per_point_low", "cost_per_point_high")


@dataclass(frozen=True)
class ParetoSet:
    """Each system's box and status; ``table`` has :data:`COLUMNS` (``dominated_by`` a
    tuple of system names), in the order the systems were given, and from
    :func:`pareto_set` the :data:`RATIO_COLUMNS` (``cost_per_point*`` always,
    ``cost_per_success*`` when ``zero_one``)."""

    table: pd.DataFrame
    headline: str
    score_metric: str = "score"
    cost_metric: str = "cost"
    benchmark: str | None = None
    confidence: float | None = None
    per_interval: float | None = None
    n_examples: int | None = None
    zero_one: bool | None = None

    @property
    def possibly_optimal(self) -> tuple[str, ...]:
        t = self.table
        return tuple(t.loc[t["status"] == POSSIBLY_OPTIMAL, "system"])


def _dominates(i: int, j: int, s_low: np.ndarray, s_high: np.ndarray, c_low: np.ndarray,
               c_high: np.ndarray) -> bool:
    weak = s_low[i] >= s_high[j] and c_high[i] <= c_low[j]
    return bool(weak and (s_low[i] > s_high[j] or c_high[i] < c_low[j]))


def _names(names: Sequence[str]) -> str:
    names = list(names)
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _headline(table: pd.DataFrame, score: str, cost: str) -> str:
    k = len(table)
    optimal = table.loc[table["status"] == POSSIBLY_OPTIMAL, "system"].tolist()
    dominated = table[table["status"] == CERTAINLY_DOMINATED]
    if len(optimal) == 1:
        first = f"{optimal[0]} is the best trade-off of {score} and {cost}"
    elif len(optimal) == k:
        first = (f"all {k} systems may be the best trade-off of {score} and {cost}: no system "
                 "is certainly better and cheaper than another")
    else:
        first = (f"{len(optimal)} of {k} systems may be the best trade-off of {score} and "
                 f"{cost} ({_names(optimal)})")
    said = [f"{system} is certainly dominated by {_names(list(by))}: higher {score} at lower {cost}"
            for system, by in zip(dominated["system"].head(3), dominated["dominated_by"].head(3),
                                  strict=True)]
    if len(dominated) > 3:
        said.append(f"{len(dominated) - 3} more systems are certainly dominated")
    return "; ".join([first, *said]) + "."


def pareto_boxes(systems: Sequence[str], score: object, score_low: object, score_high: object,
                 cost: object, cost_low: object, cost_high: object, *,
                 score_metric: str = "score", cost_metric: str = "cost") -> ParetoSet:
    """The status of each system from its (score, cost) box: score higher-is-better, cost
    lower-is-better.

    Examples
    --------
    >>> out = pareto_boxes(["a", "b", "c"], [0.8, 0.7, 0.6], [0.8, 0.7, 0.6], [0.8, 0.7, 0.6],
    ...                    [2.0, 1.0, 1.5], [2.0, 1.0, 1.5], [2.0, 1.0, 1.5])
    >>> out.possibly_optimal, out.table["dominated_by"].tolist()
    (('a', 'b'), [(), (), ('b',)])
    """
    names = [str(s) for s in systems]
    if len(set(names)) != len(names):
        raise ValueError("systems: every system must be named once")
    arrays = [np.asarray(x, dtype=float) for x in (score, score_low, score_high, cost, cost_low,
                                                   cost_high)]
    if any(a.shape != (len(names),) for a in arrays):
        raise ValueError(f"score, cost and their bounds: one value per system ({len(names)})")
    est, s_low, s_high, c_est, c_low, c_high = arrays
    if np.isnan(arrays).any():
        raise ValueError("score, cost and their bounds: must not be NaN")
    if (s_low > est).any() or (est > s_high).any() or (c_low > c_est).any() or (c_est > c_high).any():
        raise ValueError("bounds: each interval must hold its estimate (low ≤ estimate ≤ high)")
    k = len(names)
    by = [tuple(names[i] for i in range(k) if i != j and _dominates(i, j, s_low, s_high, c_low, c_high))
          for j in range(k)]
    table = pd.DataFrame({"system": names, "score": est, "score_low": s_low, "score_high": s_high,
                          "cost": c_est, "cost_low": c_low, "cost_high": c_high,
                          "status": [CERTAINLY_DOMINATED if d else POSSIBLY_OPTIMAL for d in by],
                          "dominated_by": pd.Series(by, dtype=object)})
    return ParetoSet(table, _headline(table, score_metric, cost_metric), score_metric, cost_metric)


def _per_example(frame: pd.DataFrame, metric: str, benchmark: str) -> pd.DataFrame:
    rows = frame[(frame["metric"] == metric) & (frame["benchmark"].astype(str) == benchmark)]
    return rows.groupby(["example_id", "system"])["value"].mean().unstack("system")


def pareto_set(frame: pd.DataFrame, score: str, cost: str, *, benchmark: str | None = None,
               confidence: float = 0.95, n_resamples: int = 4999, seed: int = 0) -> ParetoSet:
    """The Pareto set with confidence of ``score`` (higher better) against ``cost`` (lower
    better) on one benchmark of a long table (``benchmark, system, example_id, metric,
    value``), on the examples every system has both metrics for."""
    if not 0 < confidence < 1:
        raise ValueError(f"confidence: must be in (0, 1); got {confidence!r}")
    metrics = set(map(str, frame["metric"].unique()))
    for role, name in (("score", score), ("cost", cost)):
        if name not in metrics:
            raise ValueError(f"{role}: metric {name!r} is not in the data; metrics: "
                             f"{', '.join(sorted(metrics))}")
    both = frame[frame["metric"].isin([score, cost])]
    benches = sorted(set(map(str, both.loc[both["metric"] == score, "benchmark"]))
                     & set(map(str, both.loc[both["metric"] == cost, "benchmark"])))
    if benchmark is None:
        if len(benches) != 1:
            raise ValueError(f"benchmark: {score!r} and {cost!r} are both on {len(benches)} "
                             f"benchmarks ({', '.join(benches) or 'none'}); name one")
        benchmark = benches[0]
    elif benchmark not in benches:
        raise ValueError(f"benchmark: {benchmark!r} does not have both {score!r} and {cost!r}; "
                         f"benchmarks that do: {', '.join(benches) or 'none'}")
    s_wide, c_wide = _per_example(frame, score, benchmark), _per_example(frame, cost, benchmark)
    systems = sorted(set(s_wide.columns) & set(c_wide.columns), key=str)
    common = s_wide[systems].dropna().index.intersection(c_wide[systems].dropna().index)
    if len(systems) < 1 or len(common) < 2:
        raise ValueError(f"benchmark {benchmark!r}: fewer than 2 examples have {score!r} and "
                         f"{cost!r} for every system; upload both metrics for the same examples")
    s_wide, c_wide = s_wide.loc[common, systems], c_wide.loc[common, systems]
    k, n = len(systems), len(common)
    level = confidence ** (1 / (2 * k))  # Šidák over the 2K intervals
    t = float(stats.t.ppf(0.5 + level / 2, n - 1))
    s_mean = s_wide.mean().to_numpy(float)
    s_half = t * s_wide.std(ddof=1).to_numpy(float) / np.sqrt(n)
    s_low, s_high = s_mean - s_half, s_mean + s_half
    raw = frame.loc[(frame["metric"] == score) & (frame["benchmark"].astype(str) == benchmark),
                    "value"]
    if raw.isin((0.0, 1.0)).all():  # a 0/1 score (tries averaged too): its mean is in [0, 1]
        s_low, s_high = np.clip(s_low, 0, 1), np.clip(s_high, 0, 1)
    rng = np.random.default_rng(seed)
    c_bounds = [bootstrap_t_interval(c_wide[s].to_numpy(float), level, n_resamples, rng)
                for s in systems]
    if (c_wide.to_numpy(float) >= 0).all():  # tokens, times, money: a mean cost is ≥ 0
        c_bounds = [(max(lo, 0.0), hi) for lo, hi in c_bounds]
    out = pareto_boxes([str(s) for s in systems], s_mean, s_low, s_high,
                       c_wide.mean().to_numpy(float), [b[0] for b in c_bounds],
                       [b[1] for b in c_bounds], score_metric=score, cost_metric=cost)
    binary = bool(raw.isin((0.0, 1.0)).all())
    table = _with_ratios(out.table, c_wide, s_wide, binary, confidence, n_resamples, seed)
    return ParetoSet(table, out.headline, score, cost, benchmark, confidence, level, n, binary)


def _with_ratios(table: pd.DataFrame, c_wide: pd.DataFrame, s_wide: pd.DataFrame, binary: bool,
                 confidence: float, n_resamples: int, seed: int) -> pd.DataFrame:
    """``table`` with each system's cost per success (a 0/1 score) and cost per point:
    Σcost/Σscore (a ratio of means; tries averaged per example, so a 0/1 score's share of
    successful tries counts) with its ``confidence`` interval for that system alone
    (:func:`engine.stats._cost.ratio_of_means`; not simultaneous, unlike the boxes). A point
    is one percentage point of a 0/1 score (cost per success / 100), else one unit. NaN when
    a cost is negative or the system's mean score is ≤ 0 (no ratio has a meaning then)."""
    ratios = []
    for system in table["system"]:
        c, s = c_wide[system].to_numpy(float), s_wide[system].to_numpy(float)
        if (c < 0).any() or s.sum() <= 0:
            ratios.append((np.nan, np.nan, np.nan))
            continue
        # one seed for all: every system resamples the same examples, so renaming or
        # reordering the systems changes no ratio's interval
        r = ratio_of_means(c, s, confidence=confidence, n_resamples=n_resamples, seed=seed)
        ratios.append((r.ratio, r.low, r.high))
    values = np.array(ratios, dtype=float).reshape(len(table), 3)
    out = table.copy()
    if binary:
        out[list(RATIO_COLUMNS[:3])] = values
    out[list(RATIO_COLUMNS[3:])] = values / 100 if binary else values
    return out


def cost_from_prices(frame: pd.DataFrame, prices: pd.DataFrame, *, label: str = "the price table",
                     metric: str = "cost") -> pd.DataFrame:
    """``frame`` with ``metric`` per example and try computed from its token counts:
    ``tokens_in × input_price + tokens_out × output_price`` of the system's row of
    ``prices`` (:data:`PRICE_COLUMNS`; prices per token, as the user states them — never
    fetched). Rows of ``metric`` the logs recorded are replaced for the priced systems.

    Examples
    --------
    >>> rows = pd.DataFrame({"benchmark": "b", "system": "m", "example_id": "e1",
    ...                      "metric": ["tokens_in", "tokens_out"], "value": [100.0, 20.0]})
    >>> table = pd.DataFrame({"system": ["m"], "input_price": [1e-6], "output_price": [4e-6]})
    >>> out = cost_from_prices(rows, table)
    >>> round(float(out.loc[out["metric"] == "cost", "value"].iloc[0]), 12)
    0.00018
    """
    missing = [c for c in PRICE_COLUMNS if c not in prices.columns]
    if missing:
        raise ValueError(f"{label}: column(s) {', '.join(missing)} missing; a price table has "
                         f"the columns {', '.join(PRICE_COLUMNS)} (prices per token)")
    if prices["system"].astype(str).duplicated().any():
        twice = sorted(set(prices.loc[prices["system"].astype(str).duplicated(), "system"].astype(str)))
        raise ValueError(f"{label}: system(s) {', '.join(twice)} priced twice; give one row each")
    table = prices.assign(system=prices["system"].astype(str)).set_index("system")
    for col in ("input_price", "output_price"):
        values = pd.to_numeric(table[col], errors="coerce")
        bad = table.index[~np.isfinite(values.to_numpy(float)) | (values.to_numpy(float) < 0)]
        if len(bad):
            raise ValueError(f"{label}: column {col} of system {bad[0]} is not a price ≥ 0; "
                             "write the price of one token as a number")
        table[col] = values
    tokens = frame[frame["metric"].isin(["tokens_in", "tokens_out"])]
    if tokens.empty:
        raise ValueError("prices: the data have no tokens_in/tokens_out metrics to price "
                         "(harness logs record them when the model reports usage)")
    systems = sorted(set(map(str, tokens["system"])))
    unpriced = [s for s in systems if s not in table.index]
    if unpriced:
        raise ValueError(f"{label}: no price for system(s) {', '.join(unpriced)}; add a row "
                         f"for each ({', '.join(PRICE_COLUMNS)})")
    keys = [c for c in ("benchmark", "system", "example_id", "run") if c in tokens.columns]
    wide = tokens.pivot_table(index=keys, columns="metric", values="value", aggfunc="first")
    wide = wide.reindex(columns=["tokens_in", "tokens_out"])
    if wide.isna().any().any():
        raise ValueError("prices: some examples have tokens_in without tokens_out (or the "
                         "reverse); a cost from prices needs both")
    system = wide.index.get_level_values("system").astype(str)
    value = (wide["tokens_in"].to_numpy(float) * table.loc[system, "input_price"].to_numpy(float)
             + wide["tokens_out"].to_numpy(float) * table.loc[system, "output_price"].to_numpy(float))
    priced = wide.index.to_frame(index=False).assign(metric=metric, value=value)
    kept = frame[~((frame["metric"] == metric) & frame["system"].astype(str).isin(systems))]
    return pd.concat([kept, priced], ignore_index=True)
