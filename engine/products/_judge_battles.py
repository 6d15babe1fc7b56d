"""The arena leaderboard of an LLM judge's battles corrected by human verdicts on a random
subset: PPI++ Bradley-Terry (Boyeau et al. 2024, "AutoEval done right", arXiv:2403.07008).

Bradley-Terry is the logistic regression of model_a's outcome on x = e_a - e_b (one model's
coefficient fixed at 0); :func:`engine.stats._ppi_logistic.ppi_logistic` fits it to the
human verdicts, rectifying the judge's verdicts on every battle (power-tuned lambda). The
ratings are on LMArena's scale (400 points = 10:1 odds, mean 1000) with normal intervals
from the PPI++ sandwich covariance; every pair's rating difference is z-tested and adjusted
like every other test; its BT win probability expit(theta_a - theta_b) comes with the
interval's end points mapped the same way. Beside them: the judge's verdicts alone (every
battle; biased when the judge favours some models) and the human verdicts alone.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats
from scipy.special import expit

from .._options import TestOptions, resolve
from ..stats._multitest import adjust_pvalues
from ..stats._ppi_logistic import PPILogistic, ppi_logistic

__all__ = ["JudgeBattleBoard", "judge_battle_board"]

POINTS = 400 / np.log(10)  # LMArena: 400 points = 10:1 odds
METHOD = ("PPI++ Bradley-Terry (Boyeau et al. 2024; Angelopoulos, Duchi & Zrnic 2023): "
          "logistic regression of the human verdicts rectifying the judge's verdicts on every "
          "battle, power-tuned lambda, sandwich covariance; valid for the human verdicts' "
          "Bradley-Terry ratings if the labelled battles are a random sample")


@dataclass(frozen=True)
class JudgeBattleBoard:
    """Per model (``table``) and per pair (``pairs``): PPI++, judge-only and human-only."""

    table: pd.DataFrame
    pairs: pd.DataFrame
    lam: float
    n_battles: int
    n_human: int
    alpha: float
    correction: str
    judge: str
    human: str


def _design(battles: pd.DataFrame) -> tuple[np.ndarray, tuple[str, ...]]:
    """x = e_a - e_b without the first model's column (its coefficient is 0)."""
    systems = tuple(sorted(set(battles["model_a"]) | set(battles["model_b"])))
    code = {s: k for k, s in enumerate(systems)}
    a = battles["model_a"].map(code).to_numpy()
    b = battles["model_b"].map(code).to_numpy()
    x = np.zeros((len(battles), len(systems)))
    rows = np.arange(len(battles))
    x[rows, a], x[rows, b] = 1.0, -1.0
    return x[:, 1:], systems


def _ratings(fit: PPILogistic, z: float) -> dict[str, np.ndarray]:
    """Centred ratings (mean 1000) and their intervals from the coefficients' covariance."""
    s = len(fit.coef) + 1
    theta = np.concatenate([[0.0], fit.coef])
    cov = np.zeros((s, s))
    cov[1:, 1:] = fit.cov
    centre = np.eye(s) - 1.0 / s
    se = np.sqrt(np.maximum(np.diag(centre @ cov @ centre), 0.0)) * POINTS
    rating = 1000.0 + POINTS * (theta - theta.mean())
    return {"rating": rating, "low": rating - z * se, "high": rating + z * se, "theta": theta,
            "cov": cov}


def _pairs(systems: tuple[str, ...], r: dict[str, np.ndarray], *, alpha: float,
           correction: str) -> pd.DataFrame:
    a, b = np.triu_indices(len(systems), k=1)
    cov, theta = r["cov"], r["theta"]
    diff = theta[a] - theta[b]
    se = np.sqrt(np.maximum(cov[a, a] + cov[b, b] - 2 * cov[a, b], 0.0))
    z = stats.norm.ppf(1 - alpha / 2)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = 2 * stats.norm.sf(np.abs(diff / se))
    adj = adjust_pvalues(p, method=correction, alpha=alpha) if len(p) else p
    names = np.asarray(systems, dtype=object)
    return pd.DataFrame({
        "system_a": names[a], "system_b": names[b], "difference": POINTS * diff,
        "low": POINTS * (diff - z * se), "high": POINTS * (diff + z * se),
        "win_prob": expit(diff), "win_prob_low": expit(diff - z * se),
        "win_prob_high": expit(diff + z * se), "pvalue": p, "p_adjusted": adj,
        "significant": adj < alpha})


def judge_battle_board(battles: pd.DataFrame, *, options: TestOptions | None = None,
                       judge: str = "winner", human: str = "human_winner") -> JudgeBattleBoard:
    """The PPI++ arena leaderboard of a judged battle list (:func:`engine.io._battles_judged.
    judged_battles`: ``judge_y`` on every battle, ``human_y`` on the labelled ones);
    ``options``: its ``alpha`` (intervals, ``significant``) and ``correction`` (the pairs);
    default ``TestOptions()``."""
    opts = resolve(options, {})
    alpha, correction = opts.alpha, opts.correction
    x, systems = _design(battles)
    y_judge, y_human = (battles[c].to_numpy(dtype=float) for c in ("judge_y", "human_y"))
    lab = np.isfinite(y_human)
    args = (x[lab], y_human[lab], y_judge[lab], x[~lab], y_judge[~lab])
    z = float(stats.norm.ppf(1 - alpha / 2))
    ppi = ppi_logistic(*args, alpha=alpha)
    alone = ppi_logistic(*args, alpha=alpha, lam=0.0)
    naive = ppi_logistic(x, y_judge, y_judge, x, y_judge, alpha=alpha, lam=0.0)
    r, h, j = _ratings(ppi, z), _ratings(alone, z), _ratings(naive, z)
    involved = np.abs(np.concatenate([-(x.sum(1, keepdims=True)), x], axis=1))
    with np.errstate(invalid="ignore", divide="ignore"):
        eff = involved[lab].sum(0) * ((h["high"] - h["low"]) / (r["high"] - r["low"])) ** 2
    table = pd.DataFrame({
        "system": list(systems), "ppi_rating": r["rating"], "ppi_low": r["low"],
        "ppi_high": r["high"], "n_human": involved[lab].sum(0).astype(int),
        "battles": involved.sum(0).astype(int), "effective_n": eff,
        "judge_rating": j["rating"], "judge_low": j["low"], "judge_high": j["high"],
        "human_rating": h["rating"], "human_low": h["low"], "human_high": h["high"]})
    table = table.sort_values("ppi_rating", ascending=False, kind="stable")
    table.insert(1, "rank", np.arange(1, len(table) + 1))
    return JudgeBattleBoard(table.reset_index(drop=True),
                            _pairs(systems, r, alpha=alpha, correction=correction), ppi.lam,
                            len(battles), int(lab.sum()), alpha, correction, judge, human)
