"""The JSON of every command, built here from the fields of the engine's results.

The statistics' result types keep their fields; which keys the command line writes, in
which order, is decided in this module only (``--format json``: :func:`engine.cli._common.emit`
then writes it as strict JSON). One function per result type; the exit codes the commands
return are computed here too, from the same fields (:func:`compare_exit`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

    from .._notes import Note
    from ..products._fragility import LeaderFragility
    from ..products._health import HealthReport
    from ..products._judge import JudgeBoard, LabelBudget
    from ..products._judge_battles import JudgeBattleBoard
    from ..products._judge_gate import JudgeGate
    from ..products._leaderboard import Leaderboard
    from ..products._overall import Overall
    from ..ranking._mechanisms import Mechanisms
    from ..ranking._rank_intervals import RankIntervals
    from ..ranking._rank_sets import RankSets
    from ..stats._ab import ABComparison
    from ..stats._arrivals import WatchReport
    from ..stats._churn import Churn
    from ..stats._equivalence import Equivalence
    from ..stats._noninferiority import NonInferiority
    from ..stats._pairwise import PairwiseTests
    from ..stats._power import PowerAnalysis
    from ..stats._resolution import Resolution
    from ..stats._runs_pairs import PairRunTest

__all__ = ["TUKEY_COLUMNS", "ab_exit", "ab_json", "board_rank_range", "cluster_fields",
           "compare_exit", "compare_json", "gate_exit", "gate_sides", "health_json", "judge_battles_json",
           "judge_board_json", "label_budget_json", "leaderboard_json", "mechanisms_json",
           "overall_json", "pairwise_json", "power_json", "rank_intervals_json", "rank_sets_json",
           "records", "resolution_json", "watch_json"]

EXIT_PASS, EXIT_FAIL, EXIT_CANNOT_DECIDE = 0, 1, 2


def _finite(x: Any) -> Any:
    """``x``, or None for a float that is not finite (JSON has no NaN)."""
    return None if isinstance(x, float) and not math.isfinite(x) else x


def _num(x: Any) -> float | None:
    import pandas as pd

    return None if x is None or pd.isna(x) else float(x)


def records(frame: pd.DataFrame, *, finite: bool = False) -> list[dict[str, Any]]:
    """The rows of ``frame`` as objects keyed by column name (non-finite floats None when
    ``finite``)."""
    rows: list[dict[str, Any]] = frame.to_dict(orient="records")  # type: ignore[assignment]
    if not finite:
        return [{str(k): v for k, v in r.items()} for r in rows]
    return [{str(k): _finite(v) for k, v in r.items()} for r in rows]


# ---------------------------------------------------------------- exit codes


def _decided(test: PairRunTest, ni: NonInferiority | None, alpha: float) -> int:
    """1 when the candidate fails: non-inferiority not shown (with a margin), else
    significantly worse by the two-sided test; 0 otherwise."""
    if ni is not None:
        return EXIT_PASS if ni.non_inferior else EXIT_FAIL
    return EXIT_FAIL if test.pvalue < alpha and test.estimate < 0 else EXIT_PASS


def ab_exit(res: ABComparison) -> int:
    """The A/B test's own decision (the judge's own scores when a gate decides)."""
    return _decided(res.test, res.noninferiority, res.options.alpha)


def gate_exit(gate: JudgeGate) -> int:
    """The PPI++ gate's exit code: 2 when it refuses, else its test's decision."""
    if gate.refused or gate.test is None:
        return EXIT_CANNOT_DECIDE
    return _decided(gate.test, gate.noninferiority, gate.alpha)


def compare_exit(res: ABComparison, gate: JudgeGate | None, missing: Sequence[Note],
                 allow_missing: bool) -> int:
    """``compare``'s one exit code (documented in its ``--help``): 2 when a system's missing
    scores are not missing at random (unless allowed), else the PPI++ gate's when a judge
    metric has human labels, else the A/B test's."""
    if missing and not allow_missing:
        return EXIT_CANNOT_DECIDE
    return ab_exit(res) if gate is None else gate_exit(gate)


# ---------------------------------------------------------------- parts


def resolution_json(r: Resolution | None) -> dict[str, Any] | None:
    if r is None:
        return None
    out = asdict(r)
    for key in ("mdd", "mdd_needed"):
        out[key] = None if not math.isfinite(out[key]) else out[key]
    return out


def _equivalence(e: Equivalence) -> dict[str, Any]:
    return {k: _finite(v) for k, v in asdict(e).items()}


def _churn(c: Churn) -> dict[str, Any]:
    def part(ids: tuple[str, ...], ci: tuple[float, float]) -> dict[str, Any]:
        return {"count": len(ids), "rate": len(ids) / c.n, "ci_low": ci[0], "ci_high": ci[1],
                "examples": list(ids)}

    return {"fixed": part(c.fixed, c.fixed_ci), "broken": part(c.broken, c.broken_ci),
            "churn_n": c.n, "churn_net": c.net}


def _margin(ni: NonInferiority | None) -> dict[str, Any]:
    return {} if ni is None else {"margin": ni.margin, "ni_pvalue": ni.pvalue,
                                  "ni_lower": ni.lower, "ni_test": ni.hypothesis()}


def _fragility(f: LeaderFragility | None) -> dict[str, Any] | None:
    if f is None:
        return None
    return {"leader": f.leader, "challenger": f.challenger, "count": f.count,
            "share": None if f.count is None else f.count / f.n,
            "examples": None if f.examples is None else list(f.examples), "n": f.n,
            "exact": f.exact}


def cluster_fields(res: PairwiseTests) -> dict[str, Any]:
    """n_clusters and design_effect (median over pairs) when clusters were given."""
    import numpy as np

    if res.clusters is None:
        return {}
    deff = res.table["design_effect"].to_numpy(float)
    deff = deff[np.isfinite(deff)]
    return {"cluster": res.clusters.name, "n_clusters": res.clusters.n_clusters,
            "cluster_df": res.clusters.df,
            "design_effect": float(np.median(deff)) if deff.size else None}


# ---------------------------------------------------------------- commands


def board_rank_range(lb: Leaderboard) -> pd.DataFrame:
    """Per row of ``lb.table``, in its order: ``rank_set_low``, ``rank_set_high``,
    ``in_best_set`` — ONE rank range, the one every page shows: the simultaneous rank
    confidence set. Without rank sets (fewer than 2 scored examples) the pairwise tests'
    range stands in, as on the pages (best = 1 + systems significantly better, worst =
    systems not significantly worse; may be the best when it starts at 1)."""
    import pandas as pd

    t = lb.table
    if lb.rank_sets is None:
        low, high = t["rank_low"].astype(int).to_numpy(), t["rank_high"].astype(int).to_numpy()
        return pd.DataFrame({"rank_set_low": low, "rank_set_high": high, "in_best_set": low == 1})
    sets = lb.rank_sets.table.assign(system=lb.rank_sets.table["system"].astype(str))
    by = sets.set_index("system").reindex(t["system"].astype(str))
    return pd.DataFrame({"rank_set_low": by["rank_set_low"].astype(int).to_numpy(),
                         "rank_set_high": by["rank_set_high"].astype(int).to_numpy(),
                         "in_best_set": by["in_best_set"].astype(bool).to_numpy()})


def _board_rows(lb: Leaderboard) -> list[dict[Any, Any]]:
    """The table's rows with :func:`board_rank_range` as ``rank_low``/``rank_high`` (SPEC's
    names) and ``rank_set_low``/``rank_set_high`` (the same numbers), with ``in_best_set``."""
    out: list[dict[Any, Any]] = []
    ranks = board_rank_range(lb).to_dict(orient="records")
    for r, k in zip(lb.table.to_dict(orient="records"), ranks, strict=True):
        low, high = int(k["rank_set_low"]), int(k["rank_set_high"])
        out.append({**r, "rank_low": low, "rank_high": high, "rank_set_low": low,
                    "rank_set_high": high, "in_best_set": bool(k["in_best_set"])})
    return out


def leaderboard_json(lb: Leaderboard, warnings: Sequence[Note]) -> dict[str, Any]:
    """``leaderboard``: the board, its clusters and resolution, and the warnings shown above
    its table (informative missingness, unreliable unpaired tests, cannot separate)."""
    from ..products._headline import leaderboard_headline

    res = lb.pairwise
    out: dict[str, Any] = {
        "benchmark": lb.benchmark, "metric": lb.metric, "paired": lb.paired, "test": lb.test,
        "alpha": res.alpha, "correction": res.correction, "converged": lb.converged,
        "fragility": _fragility(lb.fragility),
        "systems": _board_rows(lb),
        "cliques": [list(c) for c in lb.cliques],
        "notes": list(lb.notes) + list(lb.groups.notes),
        "headline": leaderboard_headline(lb), **cluster_fields(res)}
    if res.resolution is not None:  # can any pair be significant at all
        out["resolution"] = resolution_json(res.resolution)
    out["warnings"] = [n.text for n in warnings]
    return out


def pairwise_json(res: PairwiseTests, table: pd.DataFrame,
                  judge: Mapping[str, Any] | None) -> dict[str, Any]:
    """``pairwise``: the options, notes, resolution, clusters, the PPI++ part (``judge``) and
    the pair rows of ``table`` (``res.table`` in the order asked)."""
    return {"benchmark": res.benchmark, "metric": res.metric, "paired": res.paired,
            "test": res.test, "reason": res.reason, "alpha": res.alpha,
            "correction": res.correction, "compare": res.compare,
            "alternative": res.alternative, "notes": list(res.notes),
            "resolution": resolution_json(res.resolution), **cluster_fields(res),
            "judge": None if judge is None else dict(judge),
            "pairs": table.to_dict(orient="records")}


def ab_json(res: ABComparison, *, headline: str | None = None,
            exit_code: int | None = None) -> dict[str, Any]:
    """``compare`` without a judge gate (SPEC's keys; with a margin also ``margin``,
    ``ni_pvalue``, ``ni_lower``, ``ni_test``); ``exit_code`` by default the A/B test's own
    (:func:`ab_exit`), ``headline`` the page's sentence (None leaves the key None)."""
    exit_code = ab_exit(res) if exit_code is None else exit_code
    t = res.test
    out: dict[str, Any] = {
        "baseline": res.baseline, "candidate": res.candidate, "benchmark": res.benchmark,
        "metric": res.metric, "n": t.n, "runs": min(t.runs), "difference": t.estimate,
        "ci_low": t.ci_low, "ci_high": t.ci_high, "pvalue": t.pvalue, "model": t.model,
        "verdict": res.verdict, "exit_code": exit_code, "effect_size": res.effect_size,
        "effect_ci_low": res.effect_ci[0], "effect_ci_high": res.effect_ci[1],
        "pairwise": dict(res.pairwise), "same_as_pairwise": res.same_as_pairwise,
        "note": res.note, "headline": headline,
        "seed_variance_from": list(res.seed_variance_from), "warnings": list(res.missing),
        "n_clusters": None if res.clusters is None else res.clusters[0],
        "design_effect": None if res.clusters is None else res.clusters[1],
        **_cluster_icc(res),
        "resolution": resolution_json(res.resolution)}
    if res.churn is not None:
        out.update(_churn(res.churn))
    if res.equivalence is not None:
        out["equivalence"] = _equivalence(res.equivalence)
    out.update(_margin(res.noninferiority))
    return out


def _cluster_icc(res: ABComparison) -> dict[str, Any]:
    """The model-based design effect beside the empirical ``design_effect``: the ICC(1) of
    the per-example differences, Kish's mean cluster size and 1 + (m̄ − 1) · ICC; these
    keys only when clusters were given (None when no cluster holds two examples)."""
    if res.clusters is None:
        return {}
    m = res.cluster_icc
    return {"icc": None if m is None else m.icc,
            "cluster_mean_size": None if m is None else m.mean_size,
            "design_effect_model": None if m is None else m.design_effect}


def _gate(gate: JudgeGate) -> dict[str, Any]:
    """``judge_gate`` of ``compare`` (differences oriented: positive = candidate better; the
    judge-only and human-only figures beside, not deciding)."""
    from ..products._judge_gate import METHOD, MIN_GATE_LABELS

    def side(est: float, low: float, high: float) -> dict[str, float | None]:
        lo, hi = sorted((gate.sign * low, gate.sign * high))
        return {k: (float(v) if math.isfinite(v) else None) for k, v in
                {"difference": gate.sign * est, "ci_low": lo, "ci_high": hi}.items()}

    f, t = gate.figures, gate.test
    out: dict[str, Any] = {
        "method": METHOD + ("; labels weighted by 1 / inclusion probability, the effective "
                            "number of labels in place of labels" if gate.weighted else ""),
        "judge_metric": gate.judge, "human_metric": gate.human, "weighted": gate.weighted,
        "verdict": gate.verdict, "exit_code": gate_exit(gate),
        "refused": gate.refused or None, "min_labels": MIN_GATE_LABELS,
        "difference": None, "ci_low": None, "ci_high": None, "pvalue": None,
        "p_adjusted": None, "n_labels": None, "effective_labels": None, "n_judged": None,
        "judge_only": None, "human_only": None}
    if f is not None:
        out.update(n_labels=f.n_both,
                   effective_labels=float(f.effective_n) if math.isfinite(f.effective_n)
                   else None, n_judged=f.n_judge,
                   p_adjusted=float(f.p_adjusted) if math.isfinite(f.p_adjusted) else None,
                   judge_only=side(f.judge_estimate, f.judge_low, f.judge_high),
                   human_only=side(f.human_estimate, f.human_low, f.human_high))
    if t is not None:
        out.update(difference=t.estimate, ci_low=t.ci_low, ci_high=t.ci_high, pvalue=t.pvalue)
    out.update(_margin(gate.noninferiority))
    if gate.equivalence is not None:
        out["equivalence"] = _equivalence(gate.equivalence)
    return out


def compare_json(res: ABComparison, gate: JudgeGate | None, *, headline: str | None,
                 exit_code: int) -> dict[str, Any]:
    """``compare``: the A/B result with the command's exit code; when the PPI++ gate decides,
    its figures on top, the judge's own in ``judge_own`` (None on top when it refuses)."""
    if gate is None:
        return ab_json(res, headline=headline, exit_code=exit_code)
    own = ab_json(res, headline=None, exit_code=ab_exit(res))
    g = _gate(gate)
    top = {k: g[k] for k in ("difference", "ci_low", "ci_high", "pvalue", "verdict")}
    return {**own, **top, "exit_code": exit_code,
            "model": "ppi++" if gate.test is not None else None,
            "headline": gate.sentence(), "judge_gate": g,
            "judge_own": {k: own[k] for k in ("difference", "ci_low", "ci_high", "pvalue",
                                              "model", "verdict", "exit_code")}}


def gate_sides(gate: JudgeGate) -> dict[str, dict[str, float | None] | None]:
    """The judge-only and human-only figures of the gate (its text lines)."""
    g = _gate(gate)
    return {"judge_only": g["judge_only"], "human_only": g["human_only"]}


def overall_json(res: Overall, *, notes: Sequence[str], selection_rule: str | None,
                 warnings: Sequence[str]) -> dict[str, Any]:
    """``overall``: the document the Overall page downloads too
    (:func:`engine.report._overall_json.overall_document`); ``notes`` the command's beside the
    result's, ``warnings`` informative missingness."""
    from ..report._overall_json import overall_document

    return overall_document(res, notes=notes, selection_rule=selection_rule, warnings=warnings)


def health_json(r: HealthReport) -> dict[str, Any]:
    """``health`` of one slice (SPEC keys first, then extras). Where "solved" is not
    defined, ``no_solve``, ``solved_by_one``, ``tau_neg`` and ``suspects`` are null."""
    import numpy as np

    se = r.system_table["se"].to_numpy(float)
    has_se = se[np.isfinite(se)]
    defined = r.solved_defined
    return {
        "benchmark": r.benchmark, "metric": r.metric, "size": r.size,
        "systems": len(r.systems), "p5_min": r.p5_min, "p5_max": r.p5_max,
        "no_solve": list(r.no_solve) if defined else None,
        "solved_by_one": records(r.solved_by_one) if defined else None,
        "tau_neg": r.tau_neg, "suspects": records(r.suspects) if defined else None,
        "noise_test": r.noise_test, "units": r.units, "solved_rule": r.solved_rule,
        "alpha": r.alpha, "power": r.power, "threshold": r.threshold, "bins": r.bins,
        "rating": r.rating_source, "n_dropped": r.n_dropped,
        "se_system": {
            "min": float(has_se.min()) if has_se.size else float("nan"),
            "median": float(np.median(has_se)) if has_se.size else float("nan"),
            "max": float(has_se.max()) if has_se.size else float("nan")},
        "sd_diff": r.sd_diff, "se_diff": r.se_diff, "corr": r.corr, "mdd": r.mdd,
        "system_stats": records(r.system_table), "difficulty": records(r.difficulty),
        "examples": records(r.example_table), "notes": list(r.notes), "cluster": r.cluster,
        "n_clusters": r.n_clusters, "design_effect": r.design_effect}


def power_json(res: PowerAnalysis) -> dict[str, Any]:
    """``power``: SPEC's keys first (``mdd`` by simulation of the default test), then the
    closed-form MDD, the default test, Monte Carlo errors and replications."""
    return {"mdd": res.mdd, "examples_needed": res.examples_needed,
            "runs_needed": res.runs_needed, "power": dict(res.power),
            "mdd_closed_form": res.mdd_closed_form, "default_test": res.default_test,
            "mc_se": dict(res.mc_se), "n_sim": res.n_sim}


def mechanisms_json(res: Mechanisms) -> dict[str, Any]:
    return {"benchmark": res.benchmark, "metric": res.metric,
            "rankings": {name: list(order) for name, order in res.rankings.items()},
            "kendall_tau": dict(res.kendall_tau), "winner_differs": res.winner_differs,
            "top3_differs": res.top3_differs,
            "winners": {name: order[0] for name, order in res.rankings.items() if order},
            "n_examples": res.n_examples, "n_battles": res.n_battles,
            "params": dict(res.params)}


#: ``rank-intervals``' names for the engine's Tukey interval columns: named apart from the
#: rank range (``rank_low``/``rank_high``, ``rank_set_low``/``rank_set_high``), a different
#: quantity built on the pairwise tests
TUKEY_COLUMNS = {"rank_ci_low": "tukey_rank_low", "rank_ci_high": "tukey_rank_high"}


def rank_intervals_json(res: RankIntervals) -> dict[str, Any]:
    return {"alpha": res.alpha, "method": "tukey", "critical_value": res.critical_value,
            "systems": res.table.rename(columns=TUKEY_COLUMNS).to_dict(orient="records")}


def rank_sets_json(res: RankSets, *, benchmark: str, metric: str,
                   cluster: str | None) -> dict[str, Any]:
    return {"benchmark": benchmark, "metric": metric, "cluster": cluster, "kind": res.kind,
            "alpha": res.alpha, "method": "mogstad-romano-shaikh-wilhelm",
            "tau_best": res.tau_best, "best_set": list(res.best_set),
            "tau_worst": res.tau_worst, "n_draws": res.n_draws, "seed": res.seed,
            "stepdown_steps": res.steps, "critical_value": res.critical_value,
            "systems": res.table.to_dict(orient="records")}


def watch_json(r: WatchReport, *, verdict: str, exit_code: int) -> dict[str, Any]:
    return {"watch_id": r.watch_id, "benchmark": r.benchmark, "metric": r.metric,
            "baseline": r.baseline, "candidate": r.candidate, "cluster": r.cluster,
            "method": r.method, "alpha": r.alpha, "bounds": r.settings.get("bounds"),
            "max_n": r.settings.get("max_n"), "n_seen": r.n_seen, "cs_low": r.cs_low,
            "cs_high": r.cs_high, "p_always_valid": r.p_always_valid, "e_value": r.e_value,
            "stopped_at": r.stopped_at, "first_excluded_n": r.first_excluded_n,
            "first_excluded_upload": r.first_excluded_upload, "rebuilt": r.rebuilt,
            "dropped": r.dropped, "history": r.history.to_dict(orient="records"),
            "verdict": verdict, "exit_code": exit_code}


def judge_board_json(board: JudgeBoard) -> dict[str, Any]:
    from ..products._judge import IPW_METHOD, METHOD

    return {"benchmark": board.benchmark, "judge_metric": board.judge,
            "human_metric": board.human,
            "method": METHOD if board.inclusion is None else METHOD + IPW_METHOD,
            "weighted": board.inclusion is not None, "alpha": board.alpha,
            "correction": board.correction, "higher_is_better": board.higher_is_better,
            "systems": records(board.table, finite=True),
            "pairs": records(board.pairs.table, finite=True), "agreement": board.agreement,
            "bias": records(board.bias, finite=True),
            "calibration": records(board.calibration, finite=True),
            "notes": list(board.notes)}


def label_budget_json(budget: LabelBudget) -> dict[str, Any]:
    from ..products._judge import WEIGHTED_PLAN

    out: dict[str, Any] = {"target_width": budget.target_width, "delta": budget.delta,
                           "power": budget.power, "alpha": budget.alpha,
                           "systems": budget.table.to_dict(orient="records")}
    if budget.designs is not None:
        out["design"] = WEIGHTED_PLAN
    return out


def judge_battles_json(board: JudgeBattleBoard) -> dict[str, Any]:
    from ..products._judge_battles import METHOD

    return {"method": METHOD, "judge_column": board.judge, "human_column": board.human,
            "lam": board.lam, "n_battles": board.n_battles, "n_human": board.n_human,
            "alpha": board.alpha, "correction": board.correction,
            "systems": records(board.table, finite=True),
            "pairs": records(board.pairs, finite=True)}
