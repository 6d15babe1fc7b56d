"""``sigboard overall --model irt``: every system ranked by a joint model of the results matrix.

The benchmarks: ``--benchmarks`` as given (refused, with the reason, when the model cannot
place every system on one scale), else the largest part of the matrix it can
(:func:`engine.across._joint_cells.connected_selection`), the others named as left out.
"""

from __future__ import annotations

import argparse
from dataclasses import replace

from ._common import emit, load_data, wants_json
from ._lists import names
from ._stats_common import test_options

__all__ = ["overall_joint"]


def overall_joint(args: argparse.Namespace) -> int:
    """Fit, then write the JSON document or the text table (see the module's notes)."""
    import pandas as pd

    from ..across._joint import joint_model
    from ..across._joint_cells import connected_selection
    from ..across._joint_words import SCALE_TEXT, joint_document

    loaded = load_data(args.data)
    specs = loaded.all_specs()
    if args.lower_is_better:
        specs = {k: replace(v, higher_is_better=False) for k, v in specs.items()}
    benchmarks = names(args.benchmarks, "--benchmarks")
    left_out: tuple[str, ...] = ()
    if benchmarks is None:
        kept, left_out = connected_selection(loaded.frame)
        benchmarks = list(kept)
        if not benchmarks:
            raise ValueError("DATA: no benchmark was run by 3 or more systems; the joint model "
                             "has nothing to place the systems on")
    opts = test_options(args)
    fit = joint_model(loaded.frame, benchmarks=benchmarks, metrics=names(args.metrics, "--metrics"),
                      specs=specs, alpha=opts.alpha, seed=opts.seed)
    payload = joint_document(fit, left_out=left_out)
    if wants_json(args):
        emit(payload, None, "json")
        return 0
    rows = pd.DataFrame({
        "system": fit.table["system"], "rank": fit.table["rank"],
        "rank_low": fit.table["rank_set_low"], "rank_high": fit.table["rank_set_high"],
        "ability": [f"{a:.1f}%" for a in fit.table["ability"]],
        "ci": [f"[{lo:.1f}%, {hi:.1f}%]" for lo, hi in zip(fit.table["ability_low"],
                                                          fit.table["ability_high"], strict=True)],
        "benchmarks_run": fit.table["benchmarks_run"]})
    print(f"{payload['headline']}\n")
    emit(payload, rows, "table")
    print(f"\n{SCALE_TEXT}")
    print(f"benchmarks: {', '.join(fit.benchmarks)}"
          + ("" if args.benchmarks else " — default: the largest part of the matrix the model "
             "can place on one scale (--benchmarks to choose)"))
    fit_rows = fit.benchmark_fit.assign(
        difficulty=fit.benchmark_fit["difficulty"].round(2),
        discrimination=fit.benchmark_fit["discrimination"].round(2),
        rmse_points=fit.benchmark_fit["rmse_points"].round(1),
        rms_z=fit.benchmark_fit["rms_z"].round(1))
    print("\nFit per benchmark (residuals: observed − predicted mean):")
    emit(payload, fit_rows, "table")
    for note in payload["notes"]:
        print(f"note: {note}")
    return 0
