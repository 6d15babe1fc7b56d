"""The judge-metric contract: a judge metric paired with a human metric on a random subset.

A judge metric (e.g. ``judge_score``) is scored on every (system, example); its human metric
(e.g. ``human_score``) on a subset that must be a random sample for prediction-powered
inference to be valid. :func:`judge_pair` builds the two aligned systems x examples matrices
and :func:`check_random_labels` refuses, with a message, when the data itself shows the labels
were not drawn at random: a system without labels, labels on one system only, a label rate
that differs between systems, or labels bunched at the start (or end) of the example order.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

__all__ = ["HUMAN_PREFIXES", "INCLUSION_COLUMN", "JudgePair", "JudgeContractError",
           "LabelPreview", "check_random_labels", "human_metric_for", "inclusion_probabilities",
           "judge_pair", "is_human_metric", "label_preview"]

#: a wide file's metric column with one of these prefixes may be partly empty (labels on a subset)
HUMAN_PREFIXES = ("human",)
#: the per-example column of known inclusion probabilities (labels drawn with unequal chances)
INCLUSION_COLUMN = "inclusion_probability"
#: evidence against random labelling strong enough to refuse the method
REFUSE_P = 0.001


class JudgeContractError(ValueError):
    """The human labels cannot serve prediction-powered inference (the message says why)."""


def is_human_metric(name: str) -> bool:
    """A metric whose values are human labels on a subset (its cells may be empty)."""
    return str(name).lower().startswith(HUMAN_PREFIXES)


def human_metric_for(metric: str, metrics: Sequence[str], linked: str | None = None
                     ) -> str | None:
    """The human metric that corrects ``metric`` (one rule for every page and the CLI): the
    store's declared link (``linked``), else the first human_* metric of the benchmark's
    ``metrics``; None when ``metric`` is itself human labels or none is found.

    >>> human_metric_for("judge_score", ["judge_score", "human_score"])
    'human_score'
    >>> human_metric_for("human_score", ["judge_score", "human_score"]) is None
    True
    """
    if is_human_metric(metric):
        return None
    if linked:
        return linked
    return next((str(m) for m in metrics if is_human_metric(str(m))), None)


@dataclass(frozen=True)
class JudgePair:
    """The judge and human matrices on the judge's systems and examples (NaN: no score)."""

    benchmark: str
    judge_metric: str
    human_metric: str
    systems: tuple[str, ...]
    examples: tuple[str, ...]
    judge: np.ndarray
    human: np.ndarray
    order: np.ndarray
    """Each example's position in the data as given (first appearance)."""

    @property
    def labelled(self) -> np.ndarray:
        return np.asarray(np.isfinite(self.judge) & np.isfinite(self.human))


def _pivot(rows: pd.DataFrame, systems: pd.Index, examples: pd.Index) -> np.ndarray:
    table = rows.groupby(["system", "example_id"], sort=False)["value"].mean().unstack()
    return table.reindex(index=systems, columns=examples).to_numpy(dtype=float)


def judge_pair(frame: pd.DataFrame, *, judge: str, human: str,
               benchmark: str | None = None) -> JudgePair:
    """Align the ``judge`` and ``human`` metrics of one benchmark of a long table."""
    for name, metric in (("judge", judge), ("human", human)):
        if metric not in set(frame["metric"].astype(str)):
            have = sorted(set(frame["metric"].astype(str)))[:10]
            raise JudgeContractError(f"--{name}: no metric {metric!r} in the data (metrics: "
                                     f"{', '.join(have)})")
    if judge == human:
        raise JudgeContractError(f"--human: must differ from the judge metric; got {human!r}")
    benches = sorted(frame.loc[frame["metric"] == judge, "benchmark"].astype(str).unique())
    if benchmark is None:
        if len(benches) != 1:
            raise JudgeContractError(f"--benchmark: the judge metric {judge!r} is on "
                                     f"{len(benches)} benchmarks ({', '.join(benches[:10])}); "
                                     "name one")
        benchmark = benches[0]
    part = frame[frame["benchmark"].astype(str) == benchmark]
    j_rows, h_rows = part[part["metric"] == judge], part[part["metric"] == human]
    if j_rows.empty:
        raise JudgeContractError(f"--benchmark: {benchmark!r} has no {judge!r} scores")
    systems = pd.Index(pd.unique(j_rows["system"].astype(str)))
    examples = pd.Index(pd.unique(j_rows["example_id"].astype(str)))
    j_rows = j_rows.assign(system=j_rows["system"].astype(str),
                           example_id=j_rows["example_id"].astype(str))
    h_rows = h_rows.assign(system=h_rows["system"].astype(str),
                           example_id=h_rows["example_id"].astype(str))
    return JudgePair(benchmark, judge, human, tuple(systems), tuple(examples),
                     _pivot(j_rows, systems, examples), _pivot(h_rows, systems, examples),
                     np.arange(len(examples)))


def check_random_labels(pair: JudgePair, *, refuse_p: float = REFUSE_P) -> list[str]:
    """Refuse (raise :class:`JudgeContractError`) when the labels are not a random sample by
    the data's own evidence; return the notes of weaker doubts (empty when none)."""
    from scipy import stats  # only when checking (the readers import this module)

    lab = pair.labelled
    counts = lab.sum(1)
    where = f"{pair.benchmark} / {pair.human_metric}"
    if counts.sum() == 0:
        raise JudgeContractError(f"{where}: no example has both a {pair.judge_metric!r} score "
                                 "and a human label. Fix: add human labels on a random subset")
    if len(pair.systems) > 1 and (counts > 0).sum() == 1:
        only = pair.systems[int(np.argmax(counts))]
        raise JudgeContractError(f"{where}: only {only!r} has human labels; PPI needs a random "
                                 "sample of every system's examples. Fix: label a random "
                                 "subset for every system")
    few = [s for s, c in zip(pair.systems, counts, strict=True) if c < 2]
    if few:
        raise JudgeContractError(f"{where}: {', '.join(few[:10])} ha{'s' if len(few) == 1 else 've'}"
                                 " fewer than 2 human labels; PPI needs a random sample of every "
                                 "system's examples. Fix: label a random subset for every system")
    judged = np.isfinite(pair.judge).sum(1)
    if len(pair.systems) > 1 and (judged > counts).any():
        table = np.stack([counts, judged - counts])
        p_rate = float(stats.chi2_contingency(table)[1])
        if p_rate < refuse_p:
            raise JudgeContractError(f"{where}: the share labelled differs between systems "
                                     f"({counts.min()}-{counts.max()} labels; chi-square "
                                     f"p = {p_rate:.2g}), so the labels are not one random sample. "
                                     "Fix: label the same random share of every system")
    # per example (labels are often drawn per example for every system): the share of its
    # judged systems labelled, against its position in the data
    judged_e = np.isfinite(pair.judge).sum(0)
    share = np.where(judged_e > 0, lab.sum(0) / np.maximum(judged_e, 1), np.nan)
    keep = np.isfinite(share)
    if np.ptp(share[keep]) > 0:
        rho, p_pos = stats.spearmanr(pair.order[keep], share[keep])
        if float(p_pos) < refuse_p:
            raise JudgeContractError(
                f"{where}: the labelled examples sit at the {'start' if rho < 0 else 'end'} of "
                f"the data (Spearman of label share on position, p = {float(p_pos):.2g}), not "
                "spread at random. Fix: label a random sample of the examples")
    return []


def inclusion_probabilities(frame: pd.DataFrame, pair: JudgePair,
                            given: Mapping[str, float] | pd.Series | None) -> np.ndarray | None:
    """Each example's inclusion probability (``pair.examples`` order): ``given`` (example_id →
    probability), else the frame's :data:`INCLUSION_COLUMN`, else None (uniform labels).
    Raises :class:`JudgeContractError` naming the first labelled example without one."""
    if given is None and INCLUSION_COLUMN in frame.columns:
        rows = frame[frame["metric"].astype(str) == pair.human_metric]
        given = (rows.assign(example_id=rows["example_id"].astype(str))
                 .groupby("example_id")[INCLUSION_COLUMN].first())
    if given is None:
        return None
    probs = pd.to_numeric(pd.Series(given, dtype=object).reindex(list(pair.examples)),
                          errors="coerce").to_numpy(dtype=float)
    where = f"{pair.benchmark} / {pair.human_metric}"
    missing = pair.labelled.any(0) & ~((probs > 0) & (probs <= 1))
    if missing.any():
        first = pair.examples[int(np.argmax(missing))]
        raise JudgeContractError(
            f"{where}: column {INCLUSION_COLUMN!r}: {int(missing.sum())} labelled example(s) "
            f"have no inclusion probability in (0, 1] (first: example {first!r}). Fix: give "
            "every labelled example the probability it had of being sent to humans")
    return probs


@dataclass(frozen=True)
class LabelPreview:
    """The human labels of an upload, before it is stored (see :func:`label_preview`)."""

    counts: pd.DataFrame
    """One row per (benchmark, judge, human, system): ``judged`` examples and ``labelled``."""
    verdicts: tuple[tuple[str, str, str, str | None], ...]
    """(benchmark, judge, human, why PPI is refused or None when the labels can be used)."""
    weighted: tuple[tuple[str, str, str], ...] = ()
    """The (benchmark, judge, human) whose labels are weighted by known inclusion
    probabilities (the equal-chance check does not apply to them)."""


def _judge_metrics(metrics: list[str], human: str, benchmark: str,
                   links: Mapping[tuple[str, str], str]) -> list[str]:
    """The metrics ``human`` labels: the declared links to it, else every non-human metric
    of the benchmark (what the pages pair it with)."""
    declared = [j for (b, j), h in links.items() if b == benchmark and h == human and j in metrics]
    return declared or [m for m in metrics if not is_human_metric(m)]


def label_preview(frame: pd.DataFrame, *,
                  links: Mapping[tuple[str, str], str] | None = None) -> LabelPreview:
    """Per judge metric with human labels (a human_* metric, or a declared link): how many
    labels each system has and whether they can serve PPI (:func:`check_random_labels`; with
    an :data:`INCLUSION_COLUMN`, whether every labelled example has its probability)."""
    links = dict(links or {})
    rows: list[pd.DataFrame] = []
    verdicts: list[tuple[str, str, str, str | None]] = []
    weighted: list[tuple[str, str, str]] = []
    for benchmark, part in frame.groupby(frame["benchmark"].astype(str), sort=False):
        metrics = list(dict.fromkeys(part["metric"].astype(str)))
        humans = [m for m in metrics if is_human_metric(m)]
        humans += [h for (b, _), h in links.items() if b == benchmark and h in metrics
                   and h not in humans]
        for human in humans:
            for judge in _judge_metrics(metrics, human, str(benchmark), links):
                if judge == human:
                    continue
                try:
                    pair = judge_pair(part, judge=judge, human=human, benchmark=str(benchmark))
                    rows.append(pd.DataFrame({
                        "benchmark": benchmark, "judge": judge, "human": human,
                        "system": list(pair.systems), "judged": np.isfinite(pair.judge).sum(1),
                        "labelled": pair.labelled.sum(1)}))
                    if inclusion_probabilities(part, pair, None) is None:
                        check_random_labels(pair)
                    else:
                        weighted.append((str(benchmark), judge, human))
                    verdicts.append((str(benchmark), judge, human, None))
                except JudgeContractError as exc:
                    verdicts.append((str(benchmark), judge, human, str(exc)))
    columns = ["benchmark", "judge", "human", "system", "judged", "labelled"]
    counts = pd.concat(rows, ignore_index=True) if rows else pd.DataFrame(columns=columns)
    return LabelPreview(counts, tuple(verdicts), tuple(weighted))
