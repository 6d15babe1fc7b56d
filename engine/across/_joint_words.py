"""The joint model's result in words and as a JSON document (the CLI and the Overall page).

One sentence per fact a reader needs before the table: who leads and how sure, how many
cells were missing, which systems rest on few benchmarks, which benchmark fits worst, and
what the ability scale means.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ._joint import JointFit

__all__ = ["SCALE_TEXT", "joint_document", "joint_headline", "joint_notes"]

#: What the ability column means, as every view says it.
SCALE_TEXT = ("Ability: the predicted score, in percent, on a reference benchmark of median "
              "difficulty and average discrimination, from a two-parameter logistic model "
              "fitted to every (system, benchmark) cell's examples (Epoch Capabilities Index "
              "form, arXiv:2512.00193); its interval comes from the examples (sandwich "
              "covariance clustered by example id) and feeds the simultaneous rank sets.")


def _names(names: Sequence[str], limit: int = 6) -> str:
    shown = ", ".join(names[:limit])
    return shown + (f" and {len(names) - limit} more" if len(names) > limit else "")


def joint_headline(fit: JointFit) -> str:
    """"A leads the N systems …": the first system, its rank set and the best set in words."""
    t = fit.table
    best = list(t.loc[t["in_best_set"], "system"])
    level = f"{1 - fit.alpha:.0%}"
    lead = (f"{best[0]} ranks first of {len(t)} systems on the joint model"
            if len(best) == 1 else
            f"The best of {len(t)} systems is one of {{{_names(best)}}} ({level})")
    if len(best) == 1:
        lead += f" ({level} rank set {{1}})"
    return (f"{lead}; {fit.cells_missing} of {fit.cells_total} (system, benchmark) cells "
            "were not run, and every system is ranked with its rank set.")


def joint_notes(fit: JointFit, left_out: Sequence[str] = ()) -> list[str]:
    """The notes under the table: missing cells, few benchmarks, fit, rescaled metrics."""
    notes = [f"{fit.cells_missing} of {fit.cells_total} cells missing "
             f"({fit.cells_missing / fit.cells_total:.0%}): the model ranks each system on the "
             "benchmarks it ran."]
    if fit.few_benchmarks:
        few = list(fit.few_benchmarks)
        notes.append(f"{len(few)} system(s) rest on few benchmarks (under half of the "
                     f"{len(fit.benchmarks)}): {_names(few)}; their intervals and rank sets are "
                     "wider.")
    worst = fit.benchmark_fit.set_index("benchmark").loc[fit.worst_benchmark]
    if fit.badly_fitting:
        notes.append(f"Fits badly: {', '.join(fit.badly_fitting)} (residuals over twice the "
                     "median benchmark's): its systems do not follow the order the other "
                     "benchmarks give; read it on its own leaderboard too.")
    notes.append(f"Worst-fitting benchmark: {fit.worst_benchmark} (observed − predicted mean "
                 f"{worst['rmse_points']:.1f} points root mean square, "
                 f"{worst['rms_z']:.1f} standard errors).")
    if left_out:
        notes.append(f"Left out: {', '.join(left_out)} — no system that ran it ran another "
                     "benchmark (or fewer than 3 systems ran it), so the model cannot place it "
                     "on the common scale.")
    if fit.rescaled:
        notes.append(f"Scores of {', '.join(fit.rescaled)} were mapped onto 0–1 by their "
                     "observed range before fitting.")
    if not fit.converged:
        notes.append(f"The fit stopped after {fit.iterations} iterations without meeting its "
                     "tolerance: read the abilities as approximate.")
    return notes


def joint_document(fit: JointFit, *, left_out: Sequence[str] = ()) -> dict[str, Any]:
    """The JSON of ``sigboard overall --model irt`` and the page's download."""
    systems = []
    for r in fit.table.to_dict("records"):
        row = {"system": r["system"], "ability": r["ability"], "ability_low": r["ability_low"],
               "ability_high": r["ability_high"], "theta": r["theta"], "se": r["se"],
               "rank": int(r["rank"]), "rank_set_low": int(r["rank_set_low"]),
               "rank_set_high": int(r["rank_set_high"]), "in_best_set": bool(r["in_best_set"]),
               "benchmarks_run": int(r["benchmarks_run"]),
               "coverage": fit.coverage(str(r["system"]))}
        systems.append(row)
    fit_rows = [{"benchmark": b["benchmark"], "systems": int(b["systems"]),
                 "difficulty": float(b["difficulty"]),
                 "discrimination": float(b["discrimination"]),
                 "rmse_points": float(b["rmse_points"]), "rms_z": float(b["rms_z"]),
                 "fits_badly": bool(b["fits_badly"])}
                for b in fit.benchmark_fit.to_dict("records")]
    return {"model": "irt", "form": fit.model, "benchmarks": list(fit.benchmarks),
            "left_out": list(left_out), "headline": joint_headline(fit),
            "cells_missing": fit.cells_missing, "cells_total": fit.cells_total,
            "alpha": fit.alpha, "scale": SCALE_TEXT, "systems": systems,
            "few_benchmarks": list(fit.few_benchmarks),
            "fit": {"benchmarks": fit_rows, "worst_benchmark": fit.worst_benchmark,
                    "badly_fitting": list(fit.badly_fitting), "converged": fit.converged,
                    "iterations": fit.iterations, "ridge": fit.ridge,
                    "reference_difficulty": fit.reference_difficulty},
            "notes": joint_notes(fit, left_out)}
