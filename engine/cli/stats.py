"""Commands ``leaderboard``, ``pairwise`` (also ``--across``), ``compare`` and ``overall``."""

from __future__ import annotations

import argparse
import sys
from dataclasses import fields, replace
from typing import TYPE_CHECKING, Any

from .._options import ALL_TESTS, ALTERNATIVES, COMPARISONS, CORRECTIONS, CRITERIA, TestOptions
from ._common import Loaded, add_data_options, closest, emit, load_data
from ._lists import LIST_HELP
from ._lists import floats as _floats
from ._lists import names as _names
from ._text import fmt_number, interval
from .judge import add_judge_options

if TYPE_CHECKING:
    from collections.abc import Sequence

    import pandas as pd

    from .._matrix import ScoreMatrix
    from ..stats._ab import ABResult
    from ..stats._clusters import ClusterDesign
    from ..stats._pairwise import PairwiseResult

__all__ = ["register"]

_PAIRED = {"auto": None, "yes": True, "no": False}
SORTS = ("pvalue", "pair", "effect")


def _matrix(args: argparse.Namespace, loaded: Loaded | None = None) -> ScoreMatrix:
    """The matrix DATA asks for; --lower-is-better overrides the declared direction."""
    loaded = loaded if loaded is not None else load_data(args.data)
    return loaded.matrix(args.benchmark, args.metric, lower_is_better=args.lower_is_better)


def _options(args: argparse.Namespace) -> TestOptions:
    """The :class:`TestOptions` the flags ask for (validated there, once)."""
    given = {f.name: getattr(args, f.name) for f in fields(TestOptions) if hasattr(args, f.name)}
    if "paired" in given:
        given["paired"] = _PAIRED[given["paired"]]
    return TestOptions(**given)


def _add_test_options(p: argparse.ArgumentParser) -> None:
    # Defaults come from TestOptions: the parser states none of its own (argparse.SUPPRESS
    # leaves a flag that was not given out of the namespace).
    d = TestOptions()
    p.add_argument("--alpha", type=float, default=argparse.SUPPRESS,
                   help=f"significance level (default {d.alpha})")
    p.add_argument("--correction", choices=CORRECTIONS, default=argparse.SUPPRESS,
                   help=f"multiplicity correction (default {d.correction})")
    p.add_argument("--test", choices=ALL_TESTS, default=argparse.SUPPRESS,
                   help="default: auto, chosen from the data")
    p.add_argument("--criterion", choices=CRITERIA, default=argparse.SUPPRESS,
                   help="significant by adjusted p-value (default) or also by effect size "
                   "small/medium/large")
    p.add_argument("--paired", choices=list(_PAIRED), default=argparse.SUPPRESS,
                   help="default auto")
    p.add_argument("--lower-is-better", action="store_true", help="metric direction")
    p.add_argument("--n-resamples", type=int, default=argparse.SUPPRESS,
                   help=f"permutation test resamples (default {d.n_resamples})")
    p.add_argument("--seed", type=int, default=argparse.SUPPRESS,
                   help=f"seed of random procedures (default {d.seed})")


# ---------------------------------------------------------------- leaderboard


#: cliques printed under the leaderboard table (JSON lists them all)
SHOWN_CLIQUES = 10


def _leaderboard_rows(table: pd.DataFrame) -> pd.DataFrame:
    """The leaderboard for reading: intervals in brackets next to their estimates."""
    import pandas as pd

    shown = pd.DataFrame({c: table[c] for c in ("system", "rank", "rank_low", "rank_high",
                                                "group", "mean")})
    shown["ci"] = [interval(lo, hi) for lo, hi in zip(table["ci_low"], table["ci_high"],
                                                      strict=True)]
    for c in ("n", "runs", "win_rate", "bt_strength"):
        shown[c] = table[c]
    if "bt_low" in table.columns:
        shown["bt_ci"] = [interval(lo, hi) for lo, hi in zip(table["bt_low"], table["bt_high"],
                                                             strict=True)]
    shown["elo"] = table["elo"].round(0)
    return shown


def _write_report(path: str, text: str) -> None:
    """Write a report file (UTF-8); say where on stderr, so stdout stays the table or JSON."""
    with open(path, "w", encoding="utf-8") as out:
        out.write(text)
    print(f"report written to {path}", file=sys.stderr)


def _leaderboard(args: argparse.Namespace) -> int:
    from ..products._leaderboard import leaderboard
    from ..report._reports import leaderboard_report, report_format

    if args.judge or args.human:  # a judge metric with human labels: PPI++ (#31)
        from .judge import judge_leaderboard

        if not args.judge:
            raise ValueError("--human: needs --judge (the judge metric it labels)")
        return judge_leaderboard(args)
    fmt = report_format(args.report) if args.report else None  # a bad name fails before the work
    if args.bt_resamples is not None and args.bt_resamples < 0:
        raise ValueError(f"--bt-resamples: must be 0 or more; got {args.bt_resamples}")
    loaded = load_data(args.data)
    matrix = _matrix(args, loaded)
    design = _cluster_design(args, loaded, matrix)
    lb = leaderboard(matrix, _options(args), min_clique_size=args.min_clique_size,
                     anchor=args.anchor, bt_resamples=args.bt_resamples, cluster=design)
    if args.report and fmt is not None:
        _write_report(args.report, leaderboard_report(lb, fmt=fmt))
    payload = {**lb.to_dict(), **_cluster_fields(lb.pairwise)}
    if lb.pairwise.resolution is not None:  # can any pair be significant (issue #26 item 5)
        payload["resolution"] = lb.pairwise.resolution.to_dict()
    warnings = _missing_warnings(matrix)
    if lb.pairwise.resolution is not None and not lb.pairwise.resolution.can_separate:
        warnings.append(lb.pairwise.resolution.message)
    payload["warnings"] = list(payload.get("warnings", [])) + warnings  # type: ignore[call-overload]
    if args.format == "json":
        emit(payload, None, "json")
        return 0
    emit(payload, _leaderboard_rows(lb.table), "table")
    for warning in warnings:  # right under the table
        if warning not in lb.notes:  # the cannot-separate sentence is also a note below
            print(f"warning: {warning}")
    print(f"\n{lb.benchmark} / {lb.metric}: {lb.pairwise.reason}; "
          f"{lb.pairwise.correction} at alpha {lb.pairwise.alpha}")
    if lb.cliques:
        print(f"Systems that cannot be told apart ({len(lb.cliques)} maximal group(s) of "
              f"≥ {args.min_clique_size}):")
        for i, clique in enumerate(lb.cliques[:SHOWN_CLIQUES]):
            print(f"  {i + 1}. {', '.join(clique)}")
        if len(lb.cliques) > SHOWN_CLIQUES:
            more = "" if lb.groups.complete else " or more"
            print(f"  … {len(lb.cliques) - SHOWN_CLIQUES}{more} more (--format json lists "
                  f"{'them all' if lb.groups.complete else 'the first ' + str(len(lb.cliques))})")
    else:
        print("Every pair of systems differs significantly: no group of indistinguishable "
              "systems.")
    for note in (*lb.notes, *lb.groups.notes):  # a capped clique list is noted in groups
        print(f"note: {note}")
    return 0


# ---------------------------------------------------------------- pairwise


def _cluster_design(args: argparse.Namespace, loaded: Loaded, matrix: ScoreMatrix
                    ) -> ClusterDesign | None:
    """--cluster COL: the cluster of each example of the matrix (issue #26 item 1)."""
    if getattr(args, "cluster", None) is None:
        return None
    from ..stats._clusters import ClusterDesign, cluster_codes

    frame = loaded.frame
    part = frame[(frame["benchmark"] == matrix.benchmark) & (frame["metric"] == matrix.metric)]
    return ClusterDesign.from_codes(cluster_codes(part, args.cluster, matrix.examples),
                                    args.cluster)


def _cluster_fields(res: PairwiseResult) -> dict[str, Any]:
    """JSON n_clusters and design_effect (median over pairs) when clusters were given."""
    import numpy as np

    if res.clusters is None:
        return {}
    deff = res.table["design_effect"].to_numpy(float)
    deff = deff[np.isfinite(deff)]
    return {"cluster": res.clusters.name, "n_clusters": res.clusters.n_clusters,
            "cluster_df": res.clusters.df,
            "design_effect": float(np.median(deff)) if deff.size else None}


def _sorted_pairs(table: pd.DataFrame, sort: str) -> pd.DataFrame:
    if sort == "pair":
        return table
    if sort == "effect":
        key = table["effect_size"].abs()
        return table.assign(_k=key).sort_values("_k", ascending=False, kind="stable",
                                               na_position="last").drop(columns="_k")
    return table.sort_values(["pvalue_adj", "pvalue"], kind="stable", na_position="last")


def _pair_rows(table: pd.DataFrame) -> pd.DataFrame:
    """The columns a reader needs: n, difference with its interval, test, p-values, effect."""
    import pandas as pd

    return pd.DataFrame({
        "system_a": table["system_a"], "system_b": table["system_b"], "n": table["n"],
        "paired": table["paired"], "difference": table["difference"],
        "ci": [interval(lo, hi) for lo, hi in zip(table["ci_low"], table["ci_high"], strict=True)],
        "test": table["test"], "pvalue": table["pvalue"], "pvalue_adj": table["pvalue_adj"],
        "effect_size": table["effect_size"], "effect": table["effect_name"],
        "significant": table["significant"],
    })


def _pairwise(args: argparse.Namespace) -> int:
    if args.across is not None:
        return _pairwise_across(args)
    from ..stats._pairwise import pairwise_tests

    loaded = load_data(args.data)
    matrix = _matrix(args, loaded)
    res = pairwise_tests(matrix, _options(args), cluster=_cluster_design(args, loaded, matrix))
    table = res.table
    if args.sort is not None or args.format == "table":
        table = _sorted_pairs(table, args.sort or "pvalue")
    payload = {"benchmark": res.benchmark, "metric": res.metric, "paired": res.paired,
               "test": res.test, "reason": res.reason, "alpha": res.alpha,
               "correction": res.correction, "compare": res.compare,
               "alternative": res.alternative, "notes": list(res.notes),
               "resolution": None if res.resolution is None else res.resolution.to_dict(),
               **_cluster_fields(res),
               "pairs": table.to_dict(orient="records")}
    if args.format == "json":
        emit(payload, None, "json")
        return 0
    emit(payload, _pair_rows(table), "table")
    print(f"\n{res.benchmark} / {res.metric}: {res.reason}; {res.correction} at alpha "
          f"{res.alpha}; difference = system_a − system_b (positive = system_a better), "
          f"interval at {1 - res.alpha:.0%}")
    for note in res.notes:
        print(f"note: {note}")
    return 0


def _across_results(loaded: Loaded, args: argparse.Namespace,
                    options: TestOptions) -> list[PairwiseResult]:
    """One pairwise result per metric of the benchmark, or per benchmark."""
    from .._matrix import build_matrix, pick_slice
    from ..stats._pairwise import pairwise_tests

    df = loaded.frame
    if args.across == "metrics":
        benches = [str(b) for b in df["benchmark"].unique()]
        bench = args.benchmark or (benches[0] if len(benches) == 1 else None)
        if bench is None or bench not in benches:
            raise ValueError(f"--benchmark: --across metrics combines the metrics of one "
                             f"benchmark; choose one of {len(benches)} "
                             f"({', '.join(benches[:5])}{', …' if len(benches) > 5 else ''})"
                             + (f"; got {bench!r}" if bench is not None else ""))
        metrics = _names(args.metrics, "--metrics") or [
            str(m) for m in df.loc[df["benchmark"] == bench, "metric"].unique()]
        slices = [(bench, m) for m in metrics]
    else:
        benches = _names(args.benchmarks, "--benchmarks") or [
            str(b) for b in df["benchmark"].unique()]
        slices = [pick_slice(df, b, args.metric) for b in benches]
    if len(slices) < 2:
        raise ValueError(f"--across {args.across}: DATA has one {args.across[:-1]} here "
                         f"({slices[0][0]}/{slices[0][1]}); drop --across")
    results = []
    for bench, met in slices:
        spec = loaded.spec(bench, met)
        if args.lower_is_better:
            spec = replace(spec, higher_is_better=False)
        results.append(pairwise_tests(build_matrix(df, benchmark=bench, metric=met, spec=spec),
                                      options))
    return results


def _pairwise_across(args: argparse.Namespace) -> int:
    from ..across._pairs_across import pairs_across

    loaded = load_data(args.data)
    results = _across_results(loaded, args, _options(args))
    weights = _floats(args.weights, "--weights")
    pairs = pairs_across(results, across=args.across, weights=weights)
    if args.sort == "pair":
        order: dict[str, int] = {}
        for r in results:
            for name in r.systems:
                order.setdefault(name, len(order))
        pairs = pairs.assign(_a=pairs["system_a"].map(order), _b=pairs["system_b"].map(order)) \
            .sort_values(["_a", "_b"], kind="stable").drop(columns=["_a", "_b"])
    elif args.sort == "effect":
        pairs = pairs.assign(_k=pairs["effect"].abs()).sort_values(
            "_k", ascending=False, kind="stable", na_position="last").drop(columns="_k")
    units = [r.metric if args.across == "metrics" else r.benchmark for r in results]
    payload = {"across": args.across,
               "benchmarks": list(dict.fromkeys(r.benchmark for r in results)),
               "metrics": list(dict.fromkeys(r.metric for r in results)), "units": units,
               "alpha": results[0].alpha, "alternative": results[0].alternative,
               "pairs": pairs.to_dict(orient="records")}
    if args.format == "json":
        emit(payload, None, "json")
        return 0
    import pandas as pd

    shown = pd.DataFrame({
        "system_a": pairs["system_a"], "system_b": pairs["system_b"], "p_hmp": pairs["p_hmp"],
        "p_hmp_adj": pairs["p_hmp_adj"], "effect": pairs["effect"],
        "effect_ci": [interval(lo, hi) for lo, hi in zip(pairs["effect_ci_low"],
                                                         pairs["effect_ci_high"], strict=True)],
        "i2": pairs["i2"], "significant": pairs["significant"]})
    emit(payload, shown, "table")
    print(f"\nCombined across {args.across} ({', '.join(units)}): harmonic mean p (Landau-exact); "
          f"significant when p_hmp_adj < {results[0].alpha}; effect = pooled standardised "
          "difference, positive = system_a better")
    return 0


# ---------------------------------------------------------------- compare

COMPARE_EXIT_CODES = """exit codes:
  0  the candidate passes: not significantly worse (two-sided test at --alpha), or with
     --margin, shown non-inferior (H0 candidate − baseline ≤ −margin rejected, one-sided)
  1  the candidate fails: significantly worse, or with --margin, non-inferiority not shown
  2  bad input (unknown system, unreadable DATA, bad option); nothing is compared — or
     cannot decide: the baseline's or the candidate's missing scores are not missing at
     random (their examples harder or easier by the other systems' scores; --allow-missing
     decides anyway)"""


def _check_systems(loaded: Loaded, args: argparse.Namespace) -> tuple[str, str]:
    from .._matrix import pick_slice

    df = loaded.frame
    bench, met = pick_slice(df, args.benchmark, args.metric)
    present = df.loc[(df["benchmark"] == bench) & (df["metric"] == met), "system"].unique()
    known = {str(s) for s in present}
    for flag, name in (("baseline", args.baseline), ("candidate", args.candidate)):
        if name not in known:
            raise ValueError(closest(name, sorted(known), flag) + f" (on {bench}/{met})")
    return bench, met


def _units(loaded: Loaded, bench: str, met: str, binary: bool | None) -> tuple[float, str]:
    """How to show a difference: binary scores in percentage points, others as they are."""
    if binary is None:
        df = loaded.frame
        values = df.loc[(df["benchmark"] == bench) & (df["metric"] == met), "value"]
        binary = bool(values.isin([0.0, 1.0]).all())
    return (100.0, " points") if binary else (1.0, "")


def _compare_text(res: ABResult, scale: float, unit: str) -> str:
    from ..stats._churn import churn_sentence

    t = res.test
    d, lo, hi = (t.estimate * scale, t.ci_low * scale, t.ci_high * scale)
    ci = f"[{fmt_number(lo, 3)}, {fmt_number(hi, 3)}]"
    level = f"{1 - res.options.alpha:.0%}"
    ni = res.noninferiority
    if ni is not None:
        head = f"{res.candidate} vs {res.baseline}: {fmt_number(d, 3)}{unit} {ci}"
    elif res.exit_code == 1:
        worse = f"[{fmt_number(-hi, 3)}, {fmt_number(-lo, 3)}]"
        head = f"{res.candidate} trails {res.baseline} by {fmt_number(-d, 3)}{unit} {worse}"
    elif "better" in res.verdict:
        head = f"{res.candidate} beats {res.baseline} by {fmt_number(d, 3)}{unit} {ci}"
    else:
        head = (f"{res.candidate} vs {res.baseline}: {fmt_number(d, 3)}{unit} {ci}")
    base_runs, cand_runs = t.runs
    runs = (f"{base_runs} run(s)" if base_runs == cand_runs else
            f"{base_runs}/{cand_runs} runs (baseline/candidate)")
    margin = "" if ni is None else (
        f"non-inferiority: {ni.hypothesis()} (margin in {res.metric} units); t = "
        f"{fmt_number(ni.statistic, 3)}, p = {fmt_number(ni.pvalue, 3)}; one-sided "
        f"{1 - ni.alpha:.0%} lower bound {fmt_number(ni.lower * scale, 3)}{unit}\n")
    return (f"{head} on {res.benchmark}/{res.metric}: {res.verdict}\n"
            f"difference = {res.candidate} − {res.baseline} (positive = candidate better), "
            f"{level} interval; p = {fmt_number(t.pvalue, 3)}; n = {t.n} examples, "
            f"{runs} per example\n"
            f"model: {t.model} ({t.reason})\n{margin}"
            + ("" if res.churn is None else churn_sentence(res.churn) + "\n")
            + ("" if res.equivalence is None else res.equivalence.sentence() + "\n")
            + (f"{res.note}\n" if res.note else ""))


def _missing_warnings(matrix: ScoreMatrix, systems: tuple[str, ...] | None = None) -> list[str]:
    """Informative missingness (issue #26 item 3): one sentence per system whose missing
    examples are harder or easier than its scored ones by the other systems' scores."""
    from ..stats._missing import missing_checks

    return [c.warning() for c in missing_checks(matrix, systems=systems) if c.informative]


def _overall_missing(loaded: Loaded, benchmarks: Sequence[str], metrics: list[str] | None,
                     lower_is_better: bool) -> list[str]:
    """Informative missingness on each benchmark and metric the Overall combines."""
    frame = loaded.frame
    out = []
    for bench in benchmarks:
        present = frame.loc[frame["benchmark"] == bench, "metric"].unique()
        for met in sorted(str(m) for m in present if metrics is None or m in metrics):
            matrix = loaded.matrix(bench, met, lower_is_better=lower_is_better)
            out += [f"{bench}/{met}: {w}" for w in _missing_warnings(matrix)]
    return out


def _compare(args: argparse.Namespace) -> int:
    from ..report._reports import compare_report, report_format
    from ..stats._ab import compare_ab

    fmt = report_format(args.report) if args.report else None  # a bad name fails before the work
    loaded = load_data(args.data)
    bench, met = _check_systems(loaded, args)
    spec = loaded.spec(bench, met)
    if args.lower_is_better:
        spec = replace(spec, higher_is_better=False)
    res = compare_ab(loaded.frame, baseline=args.baseline, candidate=args.candidate,
                     benchmark=bench, metric=met, spec=spec, options=_options(args),
                     cluster=args.cluster, margin=args.margin, equivalence=args.equivalence)
    if args.report and fmt is not None:
        _write_report(args.report, compare_report(res, fmt=fmt))
    # the two systems judged by every system of the file (issue #26 item 3)
    matrix = loaded.matrix(bench, met, lower_is_better=args.lower_is_better)
    warnings = _missing_warnings(matrix, (args.baseline, args.candidate))
    code = 2 if warnings and not args.allow_missing else res.exit_code
    if args.format == "json":
        emit({**res.to_dict(), "warnings": warnings, "exit_code": code}, None, "json")
    else:
        scale, unit = _units(loaded, bench, met, spec.binary)
        sys.stdout.write("".join(f"warning: {w}\n" for w in warnings)
                         + _compare_text(res, scale, unit))
    if code == 2:
        print(f"cannot decide: {warnings[0].split(' (')[0]}, so its missing scores are not "
              "missing at random; fix the harness or pass --allow-missing", file=sys.stderr)
    return code


# ---------------------------------------------------------------- overall


def _overall(args: argparse.Namespace) -> int:
    from ..across._coverage import coverage_groups, default_selection
    from ..across._overall import overall

    loaded = load_data(args.data)
    specs = loaded.all_specs()
    if args.lower_is_better:
        specs = {k: replace(v, higher_is_better=False) for k, v in specs.items()}
    benchmarks = _names(args.benchmarks, "--benchmarks")
    rule = None
    if benchmarks is None:  # the pages' first view: the largest complete block
        selection = default_selection(loaded.frame)
        benchmarks, rule = list(selection.benchmarks), selection.rule
    res = overall(loaded.frame, benchmarks=benchmarks,
                  metrics=_names(args.metrics, "--metrics"),
                  weights=_floats(args.weights, "--weights"), specs=specs,
                  options=_options(args), order=_names(args.order, "--order"))
    payload = res.to_dict()
    payload["selection_rule"] = rule
    payload["warnings"] = list(payload.get("warnings", [])) + _overall_missing(  # type: ignore[call-overload]
        loaded, res.benchmarks, _names(args.metrics, "--metrics"), args.lower_is_better)
    if args.format == "json":
        emit(payload, None, "json")
        return 0
    import pandas as pd

    rows = []
    for s in payload["systems"]:  # type: ignore[attr-defined]
        if s["rank"] is None:
            continue
        row = {"system": s["system"], "rank": s["rank"], "rank_low": s["rank_low"],
               "rank_high": s["rank_high"], "group": s["group"], res.scale.label: s["score"],
               "ci": interval(s["ci_low"], s["ci_high"])}
        for b, cell in s["cells"].items():
            row[b] = "" if cell["mean"] is None else f"{fmt_number(cell['mean'])} {cell['group']}"
        rows.append(row)
    print(f"{payload['headline']}\n")
    for warning in payload["warnings"]:  # type: ignore[attr-defined]
        print(f"warning: {warning}")
    emit(payload, pd.DataFrame(rows), "table")
    print(f"\n{res.scale.label}: {res.scale.explanation} Per-benchmark columns: the benchmark's "
          "own mean and group letters there.")
    if rule is not None:
        print(f"benchmarks: {', '.join(res.benchmarks)} — default selection: {rule} "
              "(--benchmarks to choose)")
    partial = {str(r["system"]): tuple(r["coverage"]) for r in res.unranked.to_dict("records")}
    for ran, systems in coverage_groups(partial, res.benchmarks):
        print(f"not ranked — ran {len(ran)} of {len(res.benchmarks)} ({', '.join(ran)}): "
              f"{', '.join(systems)}")
    for i, clique in enumerate(res.cliques[:SHOWN_CLIQUES]):
        print(f"  {i + 1}. {', '.join(clique)}")
    if len(res.cliques) > SHOWN_CLIQUES:
        print(f"  … {len(res.cliques) - SHOWN_CLIQUES} more (--format json lists them all)")
    for note in res.notes:
        print(f"note: {note}")
    return 0


# ---------------------------------------------------------------- parser


def register(sub: Any) -> None:
    """Add the statistics commands to the ``python -m engine`` parser."""
    p = sub.add_parser("leaderboard", help="ranked table with significance groups")
    add_data_options(p)
    _add_test_options(p)
    p.add_argument("--min-clique-size", type=int, default=2)
    p.add_argument("--anchor", help="system whose Elo rating is fixed at 1000")
    p.add_argument("--bt-resamples", type=int, default=None, metavar="N",
                   help="intervals of Bradley-Terry, Elo and win rate: by default sandwich "
                   "(one pass); N > 0 bootstraps N resamples (refits each), 0 leaves them out")
    p.add_argument("--report", metavar="FILE", help="also write a report: FILE.html "
                   "(self-contained, charts inline) or FILE.md (Markdown tables)")
    p.add_argument("--cluster", help="per-example column (e.g. passage, task family): "
                   "cluster-robust tests, intervals, groups and rank ranges (CR2, Bell-McCaffrey "
                   "df); JSON n_clusters and design_effect")
    add_judge_options(p)
    p.set_defaults(handler=_leaderboard)

    p = sub.add_parser("pairwise", help="tests for every pair of systems (or combined across "
                       "metrics/benchmarks with --across)")
    add_data_options(p)
    _add_test_options(p)
    p.add_argument("--compare", choices=COMPARISONS, default=argparse.SUPPRESS,
                   help="pairs to test (default all)")
    p.add_argument("--alternative", choices=ALTERNATIVES, default=argparse.SUPPRESS,
                   help="default two-sided")
    p.add_argument("--sort", choices=SORTS, default=None,
                   help="row order: adjusted p-value (the table's default), pair (system "
                   "order; JSON's default), or effect size (largest first)")
    p.add_argument("--across", choices=["metrics", "benchmarks"], default=None,
                   help="combine each pair's p-values across the metrics of one benchmark or "
                   "across benchmarks (harmonic mean p) and pool the effect sizes")
    p.add_argument("--metrics", action="append",
                   help="with --across metrics: metrics to combine, M1,M2,…" + LIST_HELP)
    p.add_argument("--benchmarks", action="append",
                   help="with --across benchmarks: benchmarks to combine, B1,B2,…" + LIST_HELP)
    p.add_argument("--weights", action="append",
                   help="with --across: weights of the metrics/benchmarks, w1,w2,…")
    p.add_argument("--cluster", help="per-example column (e.g. passage, task family): "
                   "cluster-robust paired t on every pair (CR2, Bell-McCaffrey df), 0/1 included; "
                   "JSON n_clusters and design_effect")
    p.set_defaults(handler=_pairwise)

    p = sub.add_parser("compare", help="A/B gate with repeated runs: exit 1 when the candidate "
                       "is significantly worse", epilog=COMPARE_EXIT_CODES,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    add_data_options(p)
    d = TestOptions()
    p.add_argument("--baseline", required=True)
    p.add_argument("--candidate", required=True)
    p.add_argument("--alpha", type=float, default=argparse.SUPPRESS,
                   help=f"level of the test and the interval (default {d.alpha})")
    p.add_argument("--alternative", choices=ALTERNATIVES, default=argparse.SUPPRESS,
                   help="two-sided (default), greater (candidate better) or less")
    p.add_argument("--cluster", help="per-example column (e.g. task family): cluster-robust "
                   "standard errors")
    p.add_argument("--lower-is-better", action="store_true", help="metric direction")
    p.add_argument("--allow-missing", action="store_true",
                   help="decide (exit 0/1) even when a system's missing scores are not missing "
                   "at random (harder or easier examples by the other systems' scores); "
                   "without it such data exits 2")
    p.add_argument("--margin", type=float, default=None,
                   help="non-inferiority margin (> 0, metric units): fail only when the "
                   "candidate may be worse by more than it (one-sided test of H0: candidate − "
                   "baseline ≤ −margin at --alpha)")
    p.add_argument("--equivalence", type=float, default=None, metavar="MARGIN",
                   help="equivalence margin (> 0, metric units): TOST of −MARGIN < candidate − "
                   "baseline < MARGIN, verdict equivalent / different / not shown (JSON "
                   "equivalence)")
    p.add_argument("--report", metavar="FILE", help="also write a report: FILE.html "
                   "(self-contained, charts inline) or FILE.md (Markdown tables)")
    p.set_defaults(handler=_compare)

    p = sub.add_parser("overall", help="one leaderboard across benchmarks and metrics")
    add_data_options(p)
    _add_test_options(p)
    p.add_argument("--compare", choices=COMPARISONS, default=argparse.SUPPRESS,
                   help="all pairs two-sided (default), or the set of --order one-sided")
    p.add_argument("--order", action="append", help="with --compare first|successive: the order "
                   "fixed before looking at the results, S1,S2,… (e.g. the champion first)" + LIST_HELP)
    p.add_argument("--benchmarks", action="append", help="benchmarks to combine, B1,B2,… (default: "
                   "the largest block of systems that ran all of them)" + LIST_HELP)
    p.add_argument("--metrics", action="append", help="metrics to aggregate on each benchmark, "
                   "M1,M2,… (default all)" + LIST_HELP)
    p.add_argument("--weights", action="append", help="weights of --metrics, w1,w2,… (default equal)")
    p.set_defaults(handler=_overall)
