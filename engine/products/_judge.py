"""The judge leaderboard: LLM-judge scores made honest with a few human labels (PPI++).

Per system the PPI++ mean of the human label (Angelopoulos, Duchi & Zrnic 2023, "PPI++:
Efficient Prediction-Powered Inference"; Angelopoulos et al. 2023, Science 382) with the
judge-only and human-only figures beside it; the PPI++ mean difference of every pair, adjusted
like every other test; the judge-human agreement panel (agreement, bias by system,
calibration bins); and the label budget planner (closed form from the PPI++ variance, with a
simulation check).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from .._options import TestOptions, resolve
from ..io._judge import (
    JudgePair,
    check_random_labels,
    inclusion_probabilities,
    judge_pair,
)
from ..stats._ppi import (
    PPIPairs,
    _pair_sums,
    _ppi_from_sums,
    ppi_labels_needed,
    ppi_means,
    ppi_pairs,
    ppi_standard_error,
)
from ..stats._ppi_ipw import ppi_ipw_means, ppi_ipw_pairs

__all__ = ["JUDGE_COLUMNS", "JudgeBoard", "LabelBudget", "budget_check",
           "judge_board", "label_budget",
           "predicted_width", "simulate_ppi_width"]

JUDGE_COLUMNS = ("system", "rank", "ppi_mean", "ppi_low", "ppi_high", "ppi_se", "lam",
                 "n_human", "n_judge", "effective_n", "judge_mean", "judge_low", "judge_high",
                 "human_mean", "human_low", "human_high", "bias")
METHOD = ("PPI++ (Angelopoulos, Duchi & Zrnic 2023): the judge's mean rectified by the "
          "human-labelled examples, power-tuned lambda per system, t quantiles with "
          "(labels - 2) df and the variance times labels / (labels - 2) (lambda is fitted on "
          "the labels); valid for the human-label mean if the labelled examples are a "
          "random sample")
IPW_METHOD = ("; labels drawn with known inclusion probabilities: each weighted by 1 / "
              "probability (inverse-probability-weighted PPI++, Zrnic & Candès 2024), t "
              "quantiles with Satterthwaite's effective number of labels m - 2 df and the "
              "variance times m / (m - 2) (lambda is fitted on the labels)")


@dataclass(frozen=True)
class JudgeBoard:
    """The judge leaderboard of one benchmark (see :func:`judge_board`)."""

    benchmark: str
    judge: str
    human: str
    alpha: float
    correction: str
    higher_is_better: bool
    table: pd.DataFrame
    pairs: PPIPairs
    agreement: dict[str, Any]
    bias: pd.DataFrame
    calibration: pd.DataFrame
    data: JudgePair = field(repr=False)
    notes: tuple[str, ...] = ()
    inclusion: np.ndarray | None = field(default=None, repr=False)
    """Each example's known inclusion probability (``data.examples`` order; None: uniform)."""


def _z(alpha: float) -> float:
    return float(stats.norm.ppf(1 - alpha / 2))


def _t(alpha: float, n: Any) -> Any:
    """The t quantile of the human-only and judge-only intervals (n - 1 df)."""
    return stats.t.ppf(1 - alpha / 2, np.maximum(np.asarray(n, dtype=float) - 1, 1.0))


def _ppi_quantile(alpha: float, n: Any) -> Any:
    """The factor between a PPI++ standard error from 1/n moments and the board's interval
    half-width: t with labels - 2 df times sqrt(labels / (labels - 2)) (lambda is fitted on
    the labels, :func:`engine.stats._ppi._result`); labels below 3 count as 3."""
    n = np.maximum(np.asarray(n, dtype=float), 3.0)
    return stats.t.ppf(1 - alpha / 2, n - 2) * np.sqrt(n / (n - 2))


def _plain_means(values: np.ndarray, alpha: float) -> tuple[np.ndarray, ...]:
    """Row means with t 1 - alpha intervals (n - 1 df, as the PPI++ column), NaN-aware."""
    n = np.isfinite(values).sum(1)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.nanmean(np.where(n[:, None] > 0, values, 0.0), axis=1)
        mean = np.where(n > 0, mean, np.nan)
        sd = np.nanstd(np.where(n[:, None] > 1, values, 0.0), axis=1, ddof=1)
        half = _t(alpha, n) * np.where(n > 1, sd, np.nan) / np.sqrt(n)
    return mean, mean - half, mean + half, n


def _system_table(pair: JudgePair, alpha: float, higher: bool,
                  inclusion: np.ndarray | None) -> pd.DataFrame:
    lab = pair.labelled
    human = np.where(lab, pair.human, np.nan)
    j_mean, j_low, j_high, n_judge = _plain_means(pair.judge, alpha)
    if inclusion is None:
        ppi = ppi_means(pair.judge, human, alpha=alpha, small_sample=True)
        h_mean, h_low, h_high, _ = _plain_means(human, alpha)
        se_h = np.nanstd(human, axis=1) / np.sqrt(ppi.n_labelled)  # lam = 0
    else:  # labels drawn with known unequal chances: every label weighted by 1 / pi
        incl = np.broadcast_to(inclusion, pair.judge.shape)
        ppi = ppi_ipw_means(pair.judge, human, incl, alpha=alpha, small_sample=True)
        alone = ppi_ipw_means(pair.judge, human, incl, alpha=alpha, lam=0.0, small_sample=True)
        h_mean, h_low, h_high, se_h = alone.estimate, alone.low, alone.high, alone.se
    with np.errstate(invalid="ignore", divide="ignore"):
        eff = ppi.n_labelled * (se_h / ppi.se) ** 2
        bias = np.nanmean(np.where(lab, pair.judge - pair.human, np.nan), axis=1)
    table = pd.DataFrame({
        "system": list(pair.systems), "ppi_mean": ppi.estimate, "ppi_low": ppi.low,
        "ppi_high": ppi.high, "ppi_se": ppi.se, "lam": ppi.lam, "n_human": ppi.n_labelled,
        "n_judge": n_judge, "effective_n": eff, "judge_mean": j_mean, "judge_low": j_low,
        "judge_high": j_high, "human_mean": h_mean, "human_low": h_low, "human_high": h_high,
        "bias": bias})
    table = table.sort_values("ppi_mean", ascending=not higher, kind="stable")
    table.insert(1, "rank", np.arange(1, len(table) + 1))
    return table.reset_index(drop=True)[list(JUDGE_COLUMNS)]


def _agreement(pair: JudgePair, alpha: float) -> tuple[dict[str, Any], pd.DataFrame]:
    lab = pair.labelled
    j, h = pair.judge[lab], pair.human[lab]
    binary = bool(np.isin(j, (0.0, 1.0)).all() and np.isin(h, (0.0, 1.0)).all())
    const = np.ptp(j) == 0 or np.ptp(h) == 0
    agree: dict[str, Any] = {
        "n_labelled": int(lab.sum()),
        "pearson": None if const else float(stats.pearsonr(j, h)[0]),
        "spearman": None if const else float(stats.spearmanr(j, h)[0]),
        "mean_bias": float(np.mean(j - h)), "mean_abs_difference": float(np.mean(np.abs(j - h))),
        "exact_agreement": float(np.mean(j == h)) if binary else None}
    diffs = [(pair.judge[s] - pair.human[s])[lab[s]] for s in range(len(pair.systems))]
    z = _z(alpha)
    bias = pd.DataFrame({
        "system": list(pair.systems), "bias": [float(np.mean(d)) for d in diffs],
        "bias_low": [np.mean(d) - z * np.std(d, ddof=1) / np.sqrt(len(d)) for d in diffs],
        "bias_high": [np.mean(d) + z * np.std(d, ddof=1) / np.sqrt(len(d)) for d in diffs],
        "n_human": [len(d) for d in diffs]})
    groups = [d for d in diffs if len(d) >= 2]
    spread = [np.ptp(d) for d in groups]
    p = (float(stats.f_oneway(*groups).pvalue)
         if len(groups) >= 2 and max(spread, default=0) > 0 else None)
    agree["bias_differs_pvalue"] = p  # one-way ANOVA: does the judge favour some systems?
    agree["bias_differs"] = None if p is None else bool(p < alpha)
    return agree, bias


def _calibration(pair: JudgePair, bins: int = 10) -> pd.DataFrame:
    lab = pair.labelled
    j, h = pair.judge[lab], pair.human[lab]
    edges = np.unique(np.quantile(j, np.linspace(0, 1, bins + 1)))
    which = np.clip(np.searchsorted(edges, j, side="right") - 1, 0, max(len(edges) - 2, 0))
    frame = pd.DataFrame({"bin": which, "judge": j, "human": h})
    out = frame.groupby("bin").agg(judge_mean=("judge", "mean"), human_mean=("human", "mean"),
                                   n=("human", "size")).reset_index()
    out["bin_low"] = edges[out["bin"].to_numpy()]
    out["bin_high"] = edges[np.minimum(out["bin"].to_numpy() + 1, len(edges) - 1)]
    return out[["bin_low", "bin_high", "judge_mean", "human_mean", "n"]]


def judge_board(frame: pd.DataFrame, *, judge: str, human: str, benchmark: str | None = None,
                options: TestOptions | None = None, higher_is_better: bool = True,
                inclusion: Mapping[str, float] | pd.Series | None = None) -> JudgeBoard:
    """The judge leaderboard of a long table holding a ``judge`` metric on every example and
    a ``human`` metric on a random subset (validate → PPI++ means → pairs → agreement).

    With known inclusion probabilities (``inclusion``: example_id → the probability it had of
    being labelled, or the frame's ``inclusion_probability`` column) every label is weighted by
    1 / probability (:func:`engine.stats._ppi_ipw.ppi_ipw_means`) and the random-labels check,
    which assumes equal chances, is skipped.

    Raises :class:`engine.JudgeContractError` when the labels are not a random sample by the
    data's own evidence, or a labelled example lacks its inclusion probability. ``options``:
    its ``alpha`` (intervals, agreement) and ``correction`` (the pairs); default
    ``TestOptions()``."""
    opts = resolve(options, {})
    alpha, correction = opts.alpha, opts.correction
    pair = judge_pair(frame, judge=judge, human=human, benchmark=benchmark)
    probs = inclusion_probabilities(frame, pair, inclusion)
    notes = check_random_labels(pair) if probs is None else []  # unequal by design
    table = _system_table(pair, alpha, higher_is_better, probs)
    order = [pair.systems.index(s) for s in table["system"]]
    human_lab = np.where(pair.labelled, pair.human, np.nan)
    names = tuple(table["system"])
    pairs = (ppi_pairs(pair.judge[order], human_lab[order], names, options=opts,
                       small_sample=True) if probs is None else
             ppi_ipw_pairs(pair.judge[order], human_lab[order],
                           np.broadcast_to(probs, pair.judge.shape), names, options=opts,
                           small_sample=True))
    agreement, bias = _agreement(pair, alpha)
    return JudgeBoard(pair.benchmark, judge, human, alpha, correction, higher_is_better, table,
                      pairs, agreement, bias, _calibration(pair), pair, tuple(notes), probs)



# --------------------------------------------------------------------------- budget planner


@dataclass(frozen=True)
class LabelBudget:
    """Human labels needed per system (closed form; ``total + 1``: out of reach). With known
    inclusion probabilities (``designs`` set, :mod:`engine.products._judge_budget_ipw`) the
    labels are the expected count of the declared design scaled by the table's ``scale``."""

    target_width: float | None
    delta: float | None
    power: float
    alpha: float
    table: pd.DataFrame
    designs: dict[str, Any] | None = field(default=None, repr=False)
    """Per system, the planner's view of its labels (weighted plans only)."""


WEIGHTED_PLAN = ("labels drawn with the declared inclusion probabilities, all scaled by one "
                 "factor per system (scale, at most 1 each); labels_needed is the expected "
                 "count; closed form of the inverse-probability-weighted PPI++ variance")


def _moments(n: np.ndarray, sy: np.ndarray, sf: np.ndarray, syy: np.ndarray, sff: np.ndarray,
             syf: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    with np.errstate(invalid="ignore", divide="ignore"):
        my, mf = sy / n, sf / n
        return syy / n - my**2, sff / n - mf**2, syf / n - my * mf


def label_budget(board: JudgeBoard, *, target_width: float | None = None,
                 delta: float | None = None, power: float = 0.8) -> LabelBudget:
    """Labels per system for a PPI++ interval of ``target_width`` (full width, 1 - alpha), or,
    with ``delta``, for every pair difference of ``delta`` to be found with ``power`` (each
    system's row: its hardest pair) — from the observed human variance and judge-human
    covariance (:func:`engine.stats._ppi.ppi_labels_needed`). A board weighted by known
    inclusion probabilities gets the weighted plan (:func:`ipw_label_budget`: the declared
    design scaled, ``scale`` and ``expected_now`` columns added)."""
    if (target_width is None) == (delta is None):
        raise ValueError("target_width, delta: give exactly one")
    for name, v in (("target_width", target_width), ("delta", delta)):
        if v is not None and not v > 0:
            raise ValueError(f"{name}: must be > 0; got {v!r}")
    if not 0 < power < 1:
        raise ValueError(f"power: must be strictly between 0 and 1; got {power!r}")
    if board.inclusion is not None:  # known inclusion probabilities: the weighted plan
        from ._judge_budget_ipw import ipw_label_budget

        return ipw_label_budget(board, target_width=target_width, delta=delta, power=power)
    pair, z = board.data, _z(board.alpha)
    idx = [pair.systems.index(s) for s in board.table["system"]]
    lab, f, y = pair.labelled[idx], pair.judge[idx], pair.human[idx]
    total = np.isfinite(f).sum(1)
    if target_width is not None:
        f0, y0 = np.where(lab, f, 0.0), np.where(lab, y, 0.0)
        vy, vf, cov = _moments(lab.sum(1), y0.sum(1), f0.sum(1), (y0 * y0).sum(1),
                               (f0 * f0).sum(1), (y0 * f0).sum(1))
        need = ppi_labels_needed(target_width / (2 * z), total, var_human=vy, var_judge=vf,
                                 cov=cov)
        for _ in range(2):  # the board's intervals: t with (labels - 2) df: refine twice
            need = ppi_labels_needed(target_width / (2 * _ppi_quantile(board.alpha, need)), total,
                                     var_human=vy, var_judge=vf, cov=cov)
    else:
        se = float(delta or 0) / (z + float(stats.norm.ppf(power)))
        pvy, pvf, pcov = _moments(*_pair_sums(y, f, lab))
        both = _pair_sums(f, f, np.isfinite(f))[0].astype(int)
        k = len(idx)
        need_pairs = ppi_labels_needed(se, both.ravel(), var_human=pvy.ravel(),
                                       var_judge=pvf.ravel(), cov=pcov.ravel()).reshape(k, k)
        np.fill_diagonal(need_pairs, 0)
        hardest = need_pairs.argmax(1)
        need, rows = need_pairs.max(1), np.arange(k)
        vy, vf, cov = pvy[rows, hardest], pvf[rows, hardest], pcov[rows, hardest]
        total = both[rows, hardest]
    with np.errstate(invalid="ignore", divide="ignore"):
        rho = cov / np.sqrt(vy * vf)
    table = pd.DataFrame({"system": board.table["system"].to_numpy(), "n_judge": total,
                          "n_human_now": board.table["n_human"].to_numpy(),
                          "sd_human": np.sqrt(np.maximum(vy, 0)),
                          "sd_judge": np.sqrt(np.maximum(vf, 0)), "rho": rho,
                          "labels_needed": need, "reachable": need <= total})
    if delta is not None:
        table.insert(1, "hardest_pair", [board.table["system"].iloc[h] for h in hardest])
    return LabelBudget(target_width, delta, power, board.alpha, table)


def simulate_ppi_width(n: int, total: int, *, sd_human: float, sd_judge: float, rho: float,
                       alpha: float = 0.05, reps: int = 2000, rng: np.random.Generator) -> float:
    """Mean PPI++ interval width over ``reps`` simulated normal (human, judge) samples with
    correlation ``rho``, n of ``total`` labelled (all replications at once)."""
    y = rng.standard_normal((reps, total))
    f = (rho * y + np.sqrt(1 - rho**2) * rng.standard_normal((reps, total))) * sd_judge
    y = y * sd_human
    yl, fl, fu = y[:, :n], f[:, :n], f[:, n:]
    _, _, se = _ppi_from_sums(n, yl.sum(1), fl.sum(1), (yl * yl).sum(1), (fl * fl).sum(1),
                              (yl * fl).sum(1), total - n, fu.sum(1), (fu * fu).sum(1))
    return float(np.mean(2 * _ppi_quantile(alpha, n) * se))


def predicted_width(n: Any, total: Any, *, sd_human: Any, sd_judge: Any, rho: Any,
                    alpha: float = 0.05) -> Any:
    """The PPI++ interval width the planner inverts (closed form; t quantile as the board)."""
    return 2 * _ppi_quantile(alpha, n) * ppi_standard_error(
        n, total, var_human=np.square(sd_human), var_judge=np.square(sd_judge),
        cov=np.asarray(rho) * np.asarray(sd_human) * np.asarray(sd_judge))


def budget_check(budget: LabelBudget, *, reps: int = 500, seed: int = 0) -> pd.DataFrame:
    """The planner's closed form against simulation, per system of a width budget: the
    predicted interval width at ``labels_needed`` and the mean width of ``reps`` simulated
    PPI++ intervals (normal human labels and judge scores with the observed SDs and
    correlation) at the same labels; reachable systems only."""
    if budget.target_width is None:
        raise ValueError("budget: the simulation check is for a target width (not a delta)")
    if budget.designs is not None:  # weighted plan: simulate the scaled design
        from ._judge_budget_ipw import ipw_budget_check

        return ipw_budget_check(budget, reps=reps, seed=seed)
    rng = np.random.default_rng(seed)
    t = budget.table[budget.table["reachable"]]
    rows = []
    for system, n, total, sd_h, sd_j, rho in zip(
            t["system"], t["labels_needed"].to_numpy(int), t["n_judge"].to_numpy(int),
            t["sd_human"].to_numpy(float), t["sd_judge"].to_numpy(float),
            t["rho"].to_numpy(float), strict=True):
        if n >= total or not np.isfinite(rho) or sd_j <= 0:
            continue  # every example labelled, or nothing to simulate: no judge to rectify
        args = {"sd_human": float(sd_h), "sd_judge": float(sd_j),
                "rho": float(np.clip(rho, -0.999, 0.999)), "alpha": budget.alpha}
        rows.append({"system": system, "labels_needed": int(n),
                     "predicted_width": float(predicted_width(n, total, **args)),
                     "simulated_width": simulate_ppi_width(int(n), int(total), reps=reps,
                                                           rng=rng, **args)})
    out = pd.DataFrame(rows, columns=["system", "labels_needed", "predicted_width",
                                      "simulated_width"])
    out["ratio"] = out["predicted_width"] / out["simulated_width"]
    return out
