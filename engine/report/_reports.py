"""Reports for a pull request or a stakeholder: the A/B comparison and the leaderboard as one
self-contained HTML file (charts drawn here as inline SVG) or as Markdown.

Pure functions over the engine's results (:class:`engine.ABComparison`,
:class:`engine.Leaderboard`): no plotting library, no script, no stylesheet,
font or image from elsewhere — the HTML opens offline and prints as it looks.
Every user string (system, benchmark, metric names, reasons quoting them) is
HTML-escaped in HTML and made inert in Markdown (``|`` cannot break a table).

Chain: result → figures (numbers as text) → tables and charts → one document. Text,
numbers and tables are written by :mod:`engine.report._text`, charts by
:mod:`engine.report._svg`; this module puts the documents together.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from scipy import stats

from ._passk_report import reliability_section
from ._svg import histogram_svg, interval_svg
from ._text import h, html_table, markdown_text, md_table, signed

if TYPE_CHECKING:
    from ..products._leaderboard import Leaderboard
    from ..stats._ab import ABComparison
    from ..stats._passk import PassKCurves
    from ..stats._passk_reliability import Reliability

__all__ = ["REPORT_FORMATS", "compare_report", "histogram_svg", "interval_svg",
           "leaderboard_report", "markdown_text", "report_format"]

#: file suffix → report format
REPORT_FORMATS = {".html": "html", ".htm": "html", ".md": "markdown", ".markdown": "markdown"}
_CSS = ("body{font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;color:#1f2933;"
        "max-width:980px;margin:2rem auto;padding:0 1rem;line-height:1.45}"
        "h1{font-size:1.5rem}h2{font-size:1.15rem;margin-top:1.8rem}"
        ".verdict{font-size:1.15rem;font-weight:600;padding:.7rem 1rem;border-radius:.5rem}"
        ".pass{background:#e3f1e6}.fail{background:#fbe4e4}.none{background:#eef1f5}"
        "table{border-collapse:collapse;font-size:.88rem;font-variant-numeric:tabular-nums}"
        "th,td{padding:.3rem .6rem;border-bottom:1px solid #dde2e8;text-align:right}"
        "th:first-child,td:first-child{text-align:left}th{background:#f3f4f6}"
        ".muted{color:#616d7e;font-size:.85rem}svg{max-width:100%;height:auto}")


def report_format(path: str) -> str:
    """``"html"`` or ``"markdown"`` from a file name's suffix (``out.html``, ``out.md``)."""
    suffix = "." + path.rsplit(".", 1)[-1].lower() if "." in path else ""
    if suffix not in REPORT_FORMATS:
        raise ValueError(f"report: the file name must end in .html or .md; got {path!r}")
    return REPORT_FORMATS[suffix]


def _heading(fmt: str, title: str, meta: str, created: str) -> list[str]:
    """A report's first lines in ``fmt`` ("html" or "markdown"): the title, then the line
    that says what the report is of (``created`` appended when given)."""
    if fmt not in ("html", "markdown"):
        raise ValueError(f"fmt: must be 'html' or 'markdown'; got {fmt!r}")
    meta += f" · created {created}" if created else ""
    if fmt == "markdown":
        return [f"# {markdown_text(title)}", "", markdown_text(meta), ""]
    return [f"<h1>{h(title)}</h1>", f'<p class="muted">{h(meta)}</p>']


def _document(title: str, body: Sequence[str]) -> str:
    return (f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{h(title)}'
            f"</title><style>{_CSS}</style></head><body>{''.join(body)}</body></html>\n")


# ---------------------------------------------------------------- A/B comparison


def _system_intervals(ab: ABComparison) -> pd.DataFrame:
    """Each system's mean of per-example means with a t interval at ``1 − alpha``."""
    d = ab.descriptives
    n = d["n"].to_numpy(float)
    half = stats.t.ppf(1 - ab.options.alpha / 2, np.maximum(n - 1, 1)) * d["sd"] / np.sqrt(n)
    return pd.DataFrame({"system": d["system"], "mean": d["mean"], "low": d["mean"] - half,
                         "high": d["mean"] + half})


def _ab_sentences(ab: ABComparison) -> dict[str, str]:
    t = ab.test
    level = f"{1 - ab.options.alpha:.0%}"
    out = {"difference": (f"Difference (candidate − baseline, positive = candidate better): "
                          f"{signed(t.estimate)}, {level} interval [{signed(t.ci_low)}, "
                          f"{signed(t.ci_high)}], p = {t.pvalue:.3g} ({t.alternative}, "
                          f"alpha = {ab.options.alpha:g})."),
           "model": f"Model: {t.model} — {t.reason}.",
           "effect": (f"Effect size (paired d_z): {ab.effect_size:+.3f}, {level} interval "
                      f"[{ab.effect_ci[0]:+.3f}, {ab.effect_ci[1]:+.3f}].")}
    ni = ab.noninferiority
    if ni is not None:
        out["margin"] = (f"Non-inferiority margin {ni.margin:g}: {ni.hypothesis()}; t = "
                         f"{ni.statistic:.3g}, p = {ni.pvalue:.3g}; one-sided "
                         f"{1 - ni.alpha:.0%} lower bound of the difference "
                         f"{signed(ni.lower)}.")
    return out


def _ab_tables(ab: ABComparison) -> dict[str, pd.DataFrame]:
    tables = {"Descriptive statistics (per-example means)": ab.descriptives,
              "Models side by side": ab.models, "Variance decomposition": ab.variance}
    if len(ab.outliers):
        tables[f"Outlier examples (|z| > 3): {len(ab.outliers)}"] = ab.outliers
    return tables


def _ab_class(ab: ABComparison) -> str:
    if ab.exit_code == 1:
        return "fail"
    return "pass" if ab.noninferiority is not None or "better" in ab.verdict else "none"


def compare_report(ab: ABComparison, *, fmt: str = "html", created: str = "") -> str:
    """The A/B comparison as a report: ``fmt`` "html" (charts inline) or "markdown".

    Parameters
    ----------
    ab : ABComparison
        From :func:`engine.compare_ab`.
    fmt : {"html", "markdown"}
    created : str, optional
        A timestamp to print (left out when empty, so the output is reproducible).

    Returns
    -------
    str
        HTML: verdict, difference with its interval, p, the model and why, the
        non-inferiority test when a margin was set, the effect size, an interval
        chart (each system's mean and the difference, with intervals) and a
        histogram of per-example differences as inline SVG, then descriptive
        statistics, models, variance and outliers as tables. Markdown: the same
        text and tables, no charts.

    Examples
    --------
    >>> import pandas as pd
    >>> from engine.stats._ab import compare_ab
    >>> df = pd.DataFrame({"benchmark": "b", "metric": "acc", "system": ["A"] * 6 + ["B"] * 6,
    ...     "example_id": [f"e{i}" for i in range(6)] * 2,
    ...     "value": [1., 0., 1., 0., 1., 0., 1., 1., 1., 1., 1., 0.]})
    >>> md = compare_report(compare_ab(df, baseline="A", candidate="B"), fmt="markdown")
    >>> md.splitlines()[0]
    '# A/B comparison: B vs A'
    """
    t = ab.test
    title = f"A/B comparison: {ab.candidate} vs {ab.baseline}"
    head = _heading(fmt, title, f"Benchmark {ab.benchmark}, metric {ab.metric} "
                    f"({'higher' if ab.higher_is_better else 'lower'} is better) · {t.n} shared "
                    f"examples · runs {t.runs[0]} (baseline) and {t.runs[1]} (candidate)",
                    created)
    sentences = _ab_sentences(ab)
    tables = _ab_tables(ab)
    if fmt == "markdown":
        lines = [*head, f"**Verdict: {markdown_text(ab.verdict)}** (exit code {ab.exit_code})",
                 ""]
        lines += [markdown_text(s) + "\n" for s in sentences.values()]
        lines.append(md_table(_summary_frame(ab)) + "\n")
        for heading, frame in tables.items():
            lines += [f"## {markdown_text(heading)}", "", md_table(frame), ""]
        return "\n".join(lines)
    level = f"{1 - ab.options.alpha:.0%}"
    sys_ci = _system_intervals(ab)
    unit = f"{ab.metric} ({'higher' if ab.higher_is_better else 'lower'} is better)"
    charts = [
        interval_svg(list(sys_ci["system"]), sys_ci["mean"], sys_ci["low"], sys_ci["high"],
                     x_label=f"mean {unit}, {level} interval", title="Each system's mean"),
        interval_svg(["candidate − baseline"], [t.estimate], [t.ci_low], [t.ci_high],
                     x_label=f"difference in {ab.metric}, {level} interval (positive = "
                     "candidate better)", title="The difference", reference=0.0),
        histogram_svg(ab.differences, x_label=f"per-example difference in {ab.metric} "
                      "(candidate − baseline)", title="Per-example differences",
                      marks={"0": 0.0, "mean": t.estimate}),
    ]
    body = [*head, f'<p class="verdict {_ab_class(ab)}" id="verdict">Verdict: {h(ab.verdict)} '
            f"(exit code {ab.exit_code})</p>",
            *(f"<p>{h(s)}</p>" for s in sentences.values()),
            *(f"<figure>{svg}</figure>" for svg in charts)]
    for heading, frame in tables.items():
        body += [f"<h2>{h(heading)}</h2>", html_table(frame, heading)]
    return _document(f"{title} — sigboard report", body)


def _summary_frame(ab: ABComparison) -> pd.DataFrame:
    t = ab.test
    return pd.DataFrame({"difference": [signed(t.estimate)], "ci_low": [signed(t.ci_low)],
                         "ci_high": [signed(t.ci_high)], "pvalue": [f"{t.pvalue:.3g}"],
                         "n": [t.n], "runs": [f"{t.runs[0]} / {t.runs[1]}"], "model": [t.model]})


# ---------------------------------------------------------------- leaderboard

_BOARD_COLUMNS = ("system", "rank", "rank_low", "rank_high", "group", "mean", "ci_low", "ci_high",
                  "n", "runs", "win_rate")


def _board_table(lb: Leaderboard) -> pd.DataFrame:
    t = lb.table
    out = pd.DataFrame({c: t[c] for c in _BOARD_COLUMNS if c in t.columns})
    low, high = t["rank_low"].to_numpy(), t["rank_high"].to_numpy()
    if lb.rank_sets is not None:  # the rank range the pages show: the rank set
        sets = lb.rank_sets.table.set_index("system")
        low = sets["rank_set_low"].reindex(t["system"]).to_numpy()
        high = sets["rank_set_high"].reindex(t["system"]).to_numpy()
    out["rank range"] = [f"{int(a)}–{int(b)}" if a != b else f"{int(a)}"
                         for a, b in zip(low, high, strict=True)]
    keep = ["rank", "system", "rank range", "group", "mean", "ci_low", "ci_high", "n", "runs",
            "win_rate"]
    return out[[c for c in keep if c in out.columns]]


def leaderboard_report(lb: Leaderboard, *, fmt: str = "html", created: str = "",
                       reliability: tuple[Reliability, PassKCurves] | None = None) -> str:
    """The leaderboard as a report: ranked table with rank ranges and groups, the test that
    grouped them, the groups of indistinguishable systems and (HTML) an interval chart;
    with ``reliability`` (repeated tries: the result at k and its k-curves) also pass^k and
    pass@k at k and the k-curve tables (:mod:`engine.report._passk_report`).

    Examples
    --------
    >>> import pandas as pd
    >>> from engine.products._leaderboard import leaderboard
    >>> from engine._matrix import build_matrix
    >>> df = pd.DataFrame({"benchmark": "b", "metric": "acc", "system": ["A"] * 6 + ["B"] * 6,
    ...     "example_id": [f"e{i}" for i in range(6)] * 2,
    ...     "value": [1., 0., 1., 0., 1., 0., 1., 1., 1., 1., 1., 0.]})
    >>> leaderboard_report(leaderboard(build_matrix(df)), fmt="markdown").splitlines()[0]
    '# Leaderboard: b / acc'
    """
    pw = lb.pairwise
    title = f"Leaderboard: {lb.benchmark} / {lb.metric}"
    # the rank range the table shows (_board_table): the rank sets, or without them the
    # pair tests' range
    ranks = (f"the simultaneous {1 - pw.alpha:.0%} confidence set for each rank (Mogstad et "
             "al. 2024)" if lb.rank_sets is not None else "from 1 + the systems significantly "
             "better to the systems not significantly worse, by the pair tests")
    head = _heading(fmt, title, f"{len(lb.table)} systems · "
                    f"{'higher' if lb.higher_is_better else 'lower'} is better · {pw.reason}; "
                    f"{pw.correction} correction at alpha {pw.alpha:g}; means with "
                    f"{1 - pw.alpha:.0%} intervals; rank range: {ranks}; "
                    "systems sharing a group letter do not differ significantly", created)
    table = _board_table(lb)
    cliques = [", ".join(c) for c in lb.cliques]
    if fmt == "markdown":
        lines = [*head, md_table(table), ""]
        if cliques:
            lines += ["## Systems that cannot be told apart", ""]
            lines += [f"{i + 1}. {markdown_text(c)}" for i, c in enumerate(cliques)]
        else:
            lines.append("Every pair of systems differs significantly.")
        lines += ["", *(f"> note: {markdown_text(n)}" for n in lb.notes)]
        if reliability is not None:
            lines += ["", *reliability_section(*reliability, fmt)]
        return "\n".join(lines).rstrip() + "\n"
    t = lb.table
    chart = interval_svg(list(t["system"]), t["mean"], t["ci_low"], t["ci_high"],
                         x_label=f"mean {lb.metric}, {1 - pw.alpha:.0%} interval",
                         title="Means with intervals, best first")
    body = [*head, f"<figure>{chart}</figure>", html_table(table, "leaderboard")]
    if cliques:
        body += ["<h2>Systems that cannot be told apart</h2>",
                 "<ol>" + "".join(f"<li>{h(c)}</li>" for c in cliques) + "</ol>"]
    body += [f'<p class="muted">note: {h(n)}</p>' for n in lb.notes]
    if reliability is not None:
        body += reliability_section(*reliability, fmt)
    return _document(f"{title} — sigboard report", body)
