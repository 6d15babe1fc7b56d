"""Battle lists judged by an LLM with human verdicts on a random subset (Boyeau et al.).

The contract: a battle list (:mod:`engine.io._battles`) whose ``winner`` column is the
judge's verdict on every battle (or the column named by ``judge``) and a column of human
verdicts, ``human_winner`` by default, in the same vocabulary (``model_a``, ``model_b``,
``tie``, ``both_bad``) on a random subset of the battles and empty on the others. Every
model needs at least one human-labelled battle, and battle weights are not used (all 1).
The verdicts must be a random sample: refused when the data show otherwise at p < 0.001
(as for judge metrics, :func:`engine.io._judge.check_random_labels`): a share labelled that
differs between pairs of models (chi-square), or labels bunched at the start or end of the
file (Spearman of labelled on position).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .._contract import DataContractError, Problem
from ._battles import _ALIASES, WINNERS, _rows, validate_battles

__all__ = ["HUMAN_WINNER", "judged_battles"]

HUMAN_WINNER = "human_winner"
_FIX_HUMAN = ("write the human verdict (model_a, model_b, tie or both_bad) on a random "
              "sample of the battles and leave the others empty")


def _column(df: pd.DataFrame, name: str, label: str, what: str) -> pd.Series:
    key = name.strip().lower()
    if key not in df.columns:
        raise DataContractError([Problem(
            label, rule=f"no column {name!r} of {what} (found: "
            f"{', '.join(map(str, df.columns[:12]))})", column=name,
            fix=_FIX_HUMAN if what == "human verdicts" else
            "name the column of the judge's verdicts (--judge), or call it winner")])
    return df[key]


def _outcomes(values: pd.Series, label: str, column: str, *, optional: bool,
              problems: list[Problem]) -> np.ndarray:
    """model_a's outcome per row (1, 0, 1/2; NaN where empty and ``optional``)."""
    text = values.astype("string").str.strip().str.lower().replace(_ALIASES)
    empty = (text.isna() | (text == "")).to_numpy(dtype=bool)
    known = text.isin(list(WINNERS)).fillna(False).to_numpy(dtype=bool)
    bad = ~known & ~(empty & optional)
    if bad.any():
        shown = ", ".join(repr(v) for v in pd.unique(values[bad])[:5])
        problems.append(Problem(label, rule=f"a verdict must be one of {', '.join(WINNERS)}"
                                f"{' or empty' if optional else ''}; got {shown}",
                                column=column, rows=_rows(bad), fix=_FIX_HUMAN if optional
                                else "write who won: model_a, model_b, tie or both_bad"))
    return np.where(known, text.map(WINNERS).to_numpy(dtype=float, na_value=np.nan), np.nan)


def judged_battles(frame: pd.DataFrame, *, label: str = "<battles>", judge: str = "winner",
                   human: str = HUMAN_WINNER) -> pd.DataFrame:
    """The checked battle list with ``judge_y`` and ``human_y``: model_a's outcome (1 won,
    0 lost, 1/2 tie or both bad) by the judge on every battle and by humans where labelled
    (NaN elsewhere). Raises :class:`DataContractError` naming file, column, rows, rule, fix."""
    df = frame.rename(columns={c: str(c).strip().lower() for c in frame.columns})
    judge_col = _column(df, judge, label, "judge verdicts")
    human_col = _column(df, human, label, "human verdicts")
    base = df.drop(columns=[human.strip().lower()])
    if judge.strip().lower() != "winner":  # the judge's column is the battle list's winner
        base = base.drop(columns=["winner"], errors="ignore").assign(winner=judge_col)
    out = validate_battles(base, label=label)
    problems: list[Problem] = []
    out["judge_y"] = _outcomes(judge_col, label, judge, optional=False, problems=problems)
    out["human_y"] = _outcomes(human_col, label, human, optional=True, problems=problems)
    heavy = out["weight"].to_numpy() != 1.0
    if heavy.any():
        problems.append(Problem(label, rule="battle weights are not used with human verdicts",
                                column="weight", rows=_rows(heavy),
                                fix="drop the weight column (or give every battle weight 1)"))
    if problems:
        raise DataContractError(problems)
    _check_coverage(out, label, human)
    _check_random(out, label, human)
    return out


def _check_coverage(out: pd.DataFrame, label: str, human: str) -> None:
    """Every model in a human-labelled battle, and more labelled battles than models."""
    labelled = out[np.isfinite(out["human_y"].to_numpy())]
    models = pd.unique(pd.concat([out["model_a"], out["model_b"]]))
    seen = set(labelled["model_a"]) | set(labelled["model_b"])
    unseen = [str(m) for m in models if m not in seen]
    if unseen:
        raise DataContractError([Problem(
            label, rule=f"every model needs a human-labelled battle; none for "
            f"{', '.join(unseen[:10])} (its rating would be the judge's alone)", column=human,
            fix="label a random sample of battles that covers every model")])
    if len(labelled) <= len(models):
        raise DataContractError([Problem(
            label, rule=f"needs more human-labelled battles than models ({len(models)}); got "
            f"{len(labelled)}", column=human, fix=_FIX_HUMAN)])
    if len(labelled) > len(out) - 2:
        raise DataContractError([Problem(
            label, rule="needs at least 2 battles without a human verdict (the judge's "
            "verdicts are what PPI adds)", column=human,
            fix="use the plain battle leaderboard when every battle has a human verdict")])


def _check_random(out: pd.DataFrame, label: str, human: str) -> None:
    """Refuse verdicts that are not a random sample by the data's own evidence."""
    from scipy import stats  # only when checking

    from ._judge import REFUSE_P

    lab = np.isfinite(out["human_y"].to_numpy())
    pair = [" vs ".join(sorted(p)) for p in zip(out["model_a"], out["model_b"], strict=True)]
    table = pd.crosstab(pd.Series(pair, name="pair"), pd.Series(lab, name="labelled"))
    if table.shape == (len(table), 2) and len(table) > 1:
        p_pairs = float(stats.chi2_contingency(table.to_numpy())[1])
        if p_pairs < REFUSE_P:
            share = table[True] / table.sum(axis=1)
            raise DataContractError([Problem(
                label, rule=f"the share of battles with a human verdict differs between pairs "
                f"of models ({share.min():.0%}-{share.max():.0%}; chi-square p = "
                f"{p_pairs:.2g}), so the verdicts are not one random sample", column=human,
                fix="label the same random share of every pair's battles")])
    rho, p_pos = stats.spearmanr(np.arange(len(lab)), lab)
    if float(p_pos) < REFUSE_P:
        raise DataContractError([Problem(
            label, rule=f"the battles with a human verdict sit at the "
            f"{'start' if rho < 0 else 'end'} of the file (Spearman of labelled on position, "
            f"p = {float(p_pos):.2g}), not spread at random", column=human,
            fix="label a random sample of the battles")])
