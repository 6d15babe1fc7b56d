"""The label budget planner when the human labels were drawn with known inclusion
probabilities: the labels the inverse-probability-weighted PPI++ board needs.

The plan keeps the declared design's shape and scales it: every example's probability
times one factor (at most 1), so examples that were favoured stay favoured; the table gives
the factor (``scale``) and the expected label count it buys (``labels_needed``) from the
closed-form variance of :mod:`engine.stats._ppi_ipw_plan`. The simulation check resamples a
population from the labelled examples (each drawn with weight 1 / probability, carrying its
probability), labels it with the scaled design and runs the board's own estimator.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from ..stats._ppi_ipw import ppi_ipw_means
from ..stats._ppi_ipw_plan import IPWDesign, ipw_design, ipw_plan, ipw_scale_needed
from ._judge import JudgeBoard, LabelBudget

__all__ = ["ipw_budget_check", "ipw_label_budget"]

_COLUMNS = ["system", "n_judge", "n_human_now", "expected_now", "sd_human", "sd_judge", "rho",
            "scale", "labels_needed", "reachable"]


def _row(system: str, d: IPWDesign, found: dict[str, float] | None, n_now: int,
         alpha: float) -> dict[str, Any]:
    vy, vf, cov = d.moments()
    with np.errstate(invalid="ignore", divide="ignore"):
        rho = cov / np.sqrt(vy * vf)
    return {"system": system, "n_judge": d.total, "n_human_now": n_now,
            "expected_now": ipw_plan(d, 1.0, alpha=alpha)["expected_labels"],
            "sd_human": float(np.sqrt(max(vy, 0.0))), "sd_judge": float(np.sqrt(vf)),
            "rho": float(rho), "scale": np.nan if found is None else found["scale"],
            "labels_needed": d.total + 1 if found is None
            else int(np.ceil(found["expected_labels"] - 1e-9)),
            "reachable": found is not None}


def ipw_label_budget(board: JudgeBoard, *, target_width: float | None, delta: float | None,
                     power: float) -> LabelBudget:
    """:func:`engine.label_budget` for a board weighted by known inclusion probabilities
    (arguments checked there): per system the scale of the probabilities, and the expected
    labels, for a weighted PPI++ interval of ``target_width`` (t, Satterthwaite df), or for
    every pair difference of ``delta`` to be found with ``power`` (its hardest pair)."""
    if board.inclusion is None:
        raise ValueError("board: has no inclusion probabilities (use engine.label_budget)")
    pair, alpha = board.data, board.alpha
    idx = [pair.systems.index(s) for s in board.table["system"]]
    f, lab = pair.judge[idx], pair.labelled[idx]
    y = np.where(lab, pair.human[idx], np.nan)
    pi = np.asarray(board.inclusion, dtype=float)
    names = list(board.table["system"])
    n_now = board.table["n_human"].to_numpy(int)
    designs: dict[str, IPWDesign] = {}
    rows = []
    if target_width is not None:
        for k, name in enumerate(names):
            d = designs[name] = ipw_design(f[k], y[k], pi)
            found = ipw_scale_needed(d, width=target_width, alpha=alpha)
            rows.append(_row(name, d, found, n_now[k], alpha))
        table = pd.DataFrame(rows, columns=_COLUMNS)
    else:
        z = stats.norm.ppf(1 - alpha / 2) + stats.norm.ppf(power)
        se = float(delta or 0) / z
        best: dict[int, tuple[float, dict[str, Any], str]] = {}
        for a in range(len(names)):
            for b in range(a + 1, len(names)):
                d = ipw_design(f[a] - f[b], y[a] - y[b], pi)
                found = ipw_scale_needed(d, se=se, alpha=alpha)
                need = np.inf if found is None else found["expected_labels"]
                for me, other in ((a, b), (b, a)):
                    if me not in best or need > best[me][0]:
                        best[me] = (need, _row(names[me], d, found, n_now[me], alpha),
                                    names[other])
        rows = [dict(best[k][1], hardest_pair=best[k][2]) for k in range(len(names))]
        table = pd.DataFrame(rows, columns=["system", "hardest_pair", *_COLUMNS[1:]])
    return LabelBudget(target_width, delta, power, alpha, table, designs=designs)


def _population(d: IPWDesign, rng: np.random.Generator) -> tuple[np.ndarray, ...]:
    """``d.total`` examples resampled from the labelled ones with weight 1 / probability:
    (human labels, judge scores, probabilities) of a population like the observed one."""
    take = rng.choice(d.y.size, size=d.total, p=d.weights / d.weights.sum())
    return d.y[take], d.f[take], d.pi[take]


def ipw_budget_check(budget: LabelBudget, *, reps: int, seed: int) -> pd.DataFrame:
    """:func:`engine.budget_check` for a weighted plan: the predicted width at each reachable
    system's scale against the mean width of ``reps`` weighted PPI++ intervals (the board's
    estimator, t with Satterthwaite df) on a resampled population labelled with the scaled
    design."""
    rng = np.random.default_rng(seed)
    rows = []
    for system, scale in zip(budget.table["system"], budget.table["scale"], strict=True):
        d = (budget.designs or {}).get(system)
        if d is None or not np.isfinite(scale) or d.var_judge <= 0:
            continue
        plan = ipw_plan(d, float(scale), alpha=budget.alpha)
        y, f, pi = _population(d, rng)
        q = np.minimum(1.0, scale * pi)
        drawn = rng.random((reps, f.size)) < q
        sim = ppi_ipw_means(np.broadcast_to(f, drawn.shape), np.where(drawn, y, np.nan),
                            np.broadcast_to(q, drawn.shape), alpha=budget.alpha,
                            small_sample=True)
        rows.append({"system": system, "labels_needed": int(np.ceil(plan["expected_labels"])),
                     "predicted_width": plan["width"],
                     "simulated_width": float(np.nanmean(sim.high - sim.low))})
    out = pd.DataFrame(rows, columns=["system", "labels_needed", "predicted_width",
                                      "simulated_width"])
    out["ratio"] = out["predicted_width"] / out["simulated_width"]
    return out
