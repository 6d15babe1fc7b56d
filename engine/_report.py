"""Reports for a pull request or a stakeholder: the A/B comparison and the leaderboard as one
self-contained HTML file (charts drawn here as inline SVG) or as Markdown.

Pure functions over the engine's results (:class:`engine.ABResult`,
:class:`engine.Leaderboard`): no plotting library, no script, no stylesheet,
font or image from elsewhere — the HTML opens offline and prints as it looks.
Every user string (system, benchmark, metric names, reasons quoting them) is
HTML-escaped in HTML and made inert in Markdown (``|`` cannot break a table).

Chain: result → figures (numbers as text) → tables and charts → one document.
"""

from __future__ import annotations

import html
import math
import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike
from scipy import stats

if TYPE_CHECKING:
    from ._ab import ABResult
    from ._leaderboard import Leaderboard

__all__ = ["REPORT_FORMATS", "compare_report", "histogram_svg", "interval_svg",
           "leaderboard_report", "markdown_text", "report_format"]

#: file suffix → report format
REPORT_FORMATS = {".html": "html", ".htm": "html", ".md": "markdown", ".markdown": "markdown"}
_CONTROL = re.compile(r"[\x00-\x1f\x7f\u2028\u2029]")
_MD_PUNCT = re.compile(r"([\\`*_\[\]#|~$])")
_CSS = ("body{font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;color:#1f2933;"
        "max-width:980px;margin:2rem auto;padding:0 1rem;line-height:1.45}"
        "h1{font-size:1.5rem}h2{font-size:1.15rem;margin-top:1.8rem}"
        ".verdict{font-size:1.15rem;font-weight:600;padding:.7rem 1rem;border-radius:.5rem}"
        ".pass{background:#e3f1e6}.fail{background:#fbe4e4}.none{background:#eef1f5}"
        "table{border-collapse:collapse;font-size:.88rem;font-variant-numeric:tabular-nums}"
        "th,td{padding:.3rem .6rem;border-bottom:1px solid #dde2e8;text-align:right}"
        "th:first-child,td:first-child{text-align:left}th{background:#f3f4f6}"
        ".muted{color:#616d7e;font-size:.85rem}svg{max-width:100%;height:auto}")
_LABEL_CHARS = 36  # a system name on a chart's axis is cut here (tables show it whole)


def report_format(path: str) -> str:
    """``"html"`` or ``"markdown"`` from a file name's suffix (``out.html``, ``out.md``)."""
    suffix = "." + path.rsplit(".", 1)[-1].lower() if "." in path else ""
    if suffix not in REPORT_FORMATS:
        raise ValueError(f"report: the file name must end in .html or .md; got {path!r}")
    return REPORT_FORMATS[suffix]


# ---------------------------------------------------------------- text


def _h(text: object) -> str:
    return html.escape(_CONTROL.sub(" ", str(text)), quote=True)


def markdown_text(text: object) -> str:
    """``text`` inert in Markdown (also in a table cell): ``&<>`` as entities, markdown
    punctuation and ``|`` backslash-escaped, line breaks as spaces."""
    plain = html.escape(_CONTROL.sub(" ", str(text)), quote=False)
    return _MD_PUNCT.sub(r"\\\1", plain)


def _num(value: Any, digits: int = 4) -> str:
    if value is None or isinstance(value, str):
        return "" if value is None else value
    if isinstance(value, bool | np.bool_):
        return "yes" if value else "no"
    if isinstance(value, int | np.integer):
        return f"{int(value):,}"
    x = float(value)
    if math.isnan(x):
        return "—"
    if math.isinf(x):
        return "∞" if x > 0 else "−∞"
    return f"{x:.{digits}g}"


def _signed(x: float) -> str:
    return f"{x:+.4f}" if math.isfinite(x) else _num(x)


def _cells(frame: pd.DataFrame) -> list[list[str]]:
    return [[_num(v) if not isinstance(v, str) else v for v in row]
            for row in frame.itertuples(index=False, name=None)]


def _html_table(frame: pd.DataFrame, label: str) -> str:
    head = "".join(f"<th>{_h(c)}</th>" for c in frame.columns)
    body = "".join("<tr>" + "".join(f"<td>{_h(c)}</td>" for c in row) + "</tr>"
                   for row in _cells(frame))
    return (f'<table aria-label="{_h(label)}"><thead><tr>{head}</tr></thead>'
            f"<tbody>{body}</tbody></table>")


def _md_table(frame: pd.DataFrame) -> str:
    head = "| " + " | ".join(markdown_text(c) for c in frame.columns) + " |"
    rule = "|" + "|".join("---" for _ in frame.columns) + "|"
    rows = ["| " + " | ".join(markdown_text(c) for c in row) + " |" for row in _cells(frame)]
    return "\n".join([head, rule, *rows])


def _heading(fmt: str, title: str, meta: str, created: str) -> list[str]:
    """A report's first lines in ``fmt`` ("html" or "markdown"): the title, then the line
    that says what the report is of (``created`` appended when given)."""
    if fmt not in ("html", "markdown"):
        raise ValueError(f"fmt: must be 'html' or 'markdown'; got {fmt!r}")
    meta += f" · created {created}" if created else ""
    if fmt == "markdown":
        return [f"# {markdown_text(title)}", "", markdown_text(meta), ""]
    return [f"<h1>{_h(title)}</h1>", f'<p class="muted">{_h(meta)}</p>']


def _document(title: str, body: Sequence[str]) -> str:
    return (f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{_h(title)}'
            f"</title><style>{_CSS}</style></head><body>{''.join(body)}</body></html>\n")


# ---------------------------------------------------------------- charts


def _ticks(low: float, high: float, count: int = 5) -> np.ndarray:
    """Round tick values covering [low, high] (1, 2, 2.5 or 5 × a power of ten apart)."""
    if not high > low:
        low, high = low - 0.5, high + 0.5
    raw = (high - low) / count
    power = 10.0 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 2.5, 5, 10) if m * power >= raw)
    return np.arange(math.ceil(low / step) * step, high + step * 1e-9, step)


def _cut(text: str) -> str:
    return text if len(text) <= _LABEL_CHARS else text[:_LABEL_CHARS - 1] + "…"


def _linear(d0: float, d1: float, r0: float, r1: float) -> Callable[[float], float]:
    """The map of data range [d0, d1] onto pixels [r0, r1]."""
    def scale(v: float) -> float:
        return r0 + (float(v) - d0) / (d1 - d0) * (r1 - r0)
    return scale


def _x_axis(scale: Callable[[float], float], lo: float, hi: float, left: float, bottom: float, right: float,
            label: str) -> list[str]:
    out = [f'<line x1="{left}" y1="{bottom}" x2="{right}" y2="{bottom}" stroke="#444"/>']
    for t in _ticks(lo, hi):
        x = scale(t)
        out.append(f'<line x1="{x:.1f}" y1="{bottom}" x2="{x:.1f}" y2="{bottom + 4}" '
                   f'stroke="#444"/><text x="{x:.1f}" y="{bottom + 16}" font-size="11" '
                   f'text-anchor="middle">{_h(_num(round(float(t), 12), 3))}</text>')
    out.append(f'<text x="{(left + right) / 2:.1f}" y="{bottom + 34}" font-size="12" '
               f'text-anchor="middle" class="axis-label">{_h(label)}</text>')
    return out


def interval_svg(labels: Sequence[str], estimates: ArrayLike, lows: ArrayLike,
                 highs: ArrayLike, *, x_label: str, title: str,
                 reference: float | None = None) -> str:
    """Each label's estimate (dot) with its interval (line), one row each, x axis labelled.

    ``reference`` draws a dashed vertical line (e.g. 0 for differences).
    """
    est, lo, hi = (np.asarray(v, dtype=float) for v in (estimates, lows, highs))
    finite = np.concatenate([est, lo, hi, [] if reference is None else [reference]])
    finite = finite[np.isfinite(finite)]
    vmin, vmax = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)
    pad = (vmax - vmin) * 0.05 or 0.5
    vmin, vmax = vmin - pad, vmax + pad
    ticks = _ticks(vmin, vmax)
    vmin, vmax = min(vmin, float(ticks[0])), max(vmax, float(ticks[-1]))
    row, left, width = 22, 24 + 7 * min(_LABEL_CHARS, max((len(s) for s in labels), default=4)), 640
    right, top = width - 20, 30
    bottom = top + row * len(labels) + 6
    scale = _linear(vmin, vmax, left, right)
    parts = [f'<text x="{left}" y="18" font-size="13" font-weight="600">{_h(title)}</text>']
    if reference is not None:
        x = scale(reference)
        parts.append(f'<line x1="{x:.1f}" y1="{top}" x2="{x:.1f}" y2="{bottom}" stroke="#999" '
                     'stroke-dasharray="4 3"/>')
    for i, name in enumerate(labels):
        y = top + row * i + row / 2
        parts.append(f'<text x="{left - 8}" y="{y + 4:.1f}" font-size="11" text-anchor="end">'
                     f"{_h(_cut(str(name)))}</text>")
        if np.isfinite(lo[i]) and np.isfinite(hi[i]):
            parts.append(f'<line x1="{scale(lo[i]):.1f}" y1="{y:.1f}" x2="{scale(hi[i]):.1f}" '
                         f'y2="{y:.1f}" stroke="#4c78a8" stroke-width="2"/>')
        if np.isfinite(est[i]):
            parts.append(f'<circle cx="{scale(est[i]):.1f}" cy="{y:.1f}" r="4" fill="#1f3b63"/>')
    parts += _x_axis(scale, vmin, vmax, left, bottom, right, x_label)
    height = bottom + 44
    return (f'<svg role="img" aria-label="{_h(title)}" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}">{"".join(parts)}</svg>')


def histogram_svg(values: ArrayLike, *, x_label: str, title: str,
                  y_label: str = "examples", marks: dict[str, float] | None = None) -> str:
    """Histogram of ``values`` (numpy's "auto" bins, at most 40) with labelled axes;
    ``marks`` draws named vertical lines (e.g. 0 and the mean)."""
    v = np.asarray(values, dtype=float)
    v = v[np.isfinite(v)]
    if v.size == 0:
        v = np.zeros(1)
    edges = np.histogram_bin_edges(v, bins="auto")
    if len(edges) > 41:
        edges = np.histogram_bin_edges(v, bins=40)
    counts, edges = np.histogram(v, bins=edges)
    lo, hi = float(edges[0]), float(edges[-1])
    for x in (marks or {}).values():
        lo, hi = min(lo, x), max(hi, x)
    if hi == lo:
        lo, hi = lo - 0.5, hi + 0.5
    width, height, left, top = 640, 280, 56, 30
    right, bottom = width - 20, height - 50
    scale = _linear(lo, hi, left, right)
    cmax = max(int(counts.max()), 1)
    yscale = _linear(0.0, cmax, bottom, top)
    parts = [f'<text x="{left}" y="18" font-size="13" font-weight="600">{_h(title)}</text>',
             f'<line x1="{left}" y1="{top}" x2="{left}" y2="{bottom}" stroke="#444"/>']
    for c in _ticks(0, cmax, 4):
        if c == int(c):
            parts.append(f'<text x="{left - 6}" y="{yscale(c) + 4:.1f}" font-size="11" '
                         f'text-anchor="end">{int(c)}</text>')
    parts.append(f'<text transform="translate(14 {(top + bottom) / 2:.1f}) rotate(-90)" '
                 f'font-size="12" text-anchor="middle" class="axis-label">{_h(y_label)}</text>')
    for c, a, b in zip(counts, edges[:-1], edges[1:], strict=True):
        x0, x1 = scale(a), scale(b)
        parts.append(f'<rect x="{x0:.1f}" y="{yscale(c):.1f}" width="{max(x1 - x0 - 1, 1):.1f}" '
                     f'height="{bottom - yscale(c):.1f}" fill="#9ecae9"><title>{int(c)} in '
                     f"[{_h(_num(a, 3))}, {_h(_num(b, 3))})</title></rect>")
    for name, x in (marks or {}).items():
        parts.append(f'<line x1="{scale(x):.1f}" y1="{top}" x2="{scale(x):.1f}" y2="{bottom}" '
                     f'stroke="#c0392b" stroke-dasharray="4 3"/><text x="{scale(x) + 4:.1f}" '
                     f'y="{top + 10}" font-size="11" fill="#c0392b">{_h(name)}</text>')
    parts += _x_axis(scale, lo, hi, left, bottom, right, x_label)
    return (f'<svg role="img" aria-label="{_h(title)}" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}">{"".join(parts)}</svg>')


# ---------------------------------------------------------------- A/B comparison


def _system_intervals(ab: ABResult) -> pd.DataFrame:
    """Each system's mean of per-example means with a t interval at ``1 − alpha``."""
    d = ab.descriptives
    n = d["n"].to_numpy(float)
    half = stats.t.ppf(1 - ab.options.alpha / 2, np.maximum(n - 1, 1)) * d["sd"] / np.sqrt(n)
    return pd.DataFrame({"system": d["system"], "mean": d["mean"], "low": d["mean"] - half,
                         "high": d["mean"] + half})


def _ab_sentences(ab: ABResult) -> dict[str, str]:
    t = ab.test
    level = f"{1 - ab.options.alpha:.0%}"
    out = {"difference": (f"Difference (candidate − baseline, positive = candidate better): "
                          f"{_signed(t.estimate)}, {level} interval [{_signed(t.ci_low)}, "
                          f"{_signed(t.ci_high)}], p = {t.pvalue:.3g} ({t.alternative}, "
                          f"alpha = {ab.options.alpha:g})."),
           "model": f"Model: {t.model} — {t.reason}.",
           "effect": (f"Effect size (paired d_z): {ab.effect_size:+.3f}, {level} interval "
                      f"[{ab.effect_ci[0]:+.3f}, {ab.effect_ci[1]:+.3f}].")}
    ni = ab.noninferiority
    if ni is not None:
        out["margin"] = (f"Non-inferiority margin {ni.margin:g}: {ni.hypothesis()}; t = "
                         f"{ni.statistic:.3g}, p = {ni.pvalue:.3g}; one-sided "
                         f"{1 - ni.alpha:.0%} lower bound of the difference "
                         f"{_signed(ni.lower)}.")
    return out


def _ab_tables(ab: ABResult) -> dict[str, pd.DataFrame]:
    tables = {"Descriptive statistics (per-example means)": ab.descriptives,
              "Models side by side": ab.models, "Variance decomposition": ab.variance}
    if len(ab.outliers):
        tables[f"Outlier examples (|z| > 3): {len(ab.outliers)}"] = ab.outliers
    return tables


def _ab_class(ab: ABResult) -> str:
    if ab.exit_code == 1:
        return "fail"
    return "pass" if ab.noninferiority is not None or "better" in ab.verdict else "none"


def compare_report(ab: ABResult, *, fmt: str = "html", created: str = "") -> str:
    """The A/B comparison as a report: ``fmt`` "html" (charts inline) or "markdown".

    Parameters
    ----------
    ab : ABResult
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
    >>> from engine._ab import compare_ab
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
        lines.append(_md_table(_summary_frame(ab)) + "\n")
        for heading, frame in tables.items():
            lines += [f"## {markdown_text(heading)}", "", _md_table(frame), ""]
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
    body = [*head, f'<p class="verdict {_ab_class(ab)}" id="verdict">Verdict: {_h(ab.verdict)} '
            f"(exit code {ab.exit_code})</p>",
            *(f"<p>{_h(s)}</p>" for s in sentences.values()),
            *(f"<figure>{svg}</figure>" for svg in charts)]
    for heading, frame in tables.items():
        body += [f"<h2>{_h(heading)}</h2>", _html_table(frame, heading)]
    return _document(f"{title} — sigboard report", body)


def _summary_frame(ab: ABResult) -> pd.DataFrame:
    t = ab.test
    return pd.DataFrame({"difference": [_signed(t.estimate)], "ci_low": [_signed(t.ci_low)],
                         "ci_high": [_signed(t.ci_high)], "pvalue": [f"{t.pvalue:.3g}"],
                         "n": [t.n], "runs": [f"{t.runs[0]} / {t.runs[1]}"], "model": [t.model]})


# ---------------------------------------------------------------- leaderboard

_BOARD_COLUMNS = ("system", "rank", "rank_low", "rank_high", "group", "mean", "ci_low", "ci_high",
                  "n", "runs", "win_rate")


def _board_table(lb: Leaderboard) -> pd.DataFrame:
    t = lb.table
    out = pd.DataFrame({c: t[c] for c in _BOARD_COLUMNS if c in t.columns})
    out["rank range"] = [f"{int(a)}–{int(b)}" if a != b else f"{int(a)}"
                         for a, b in zip(t["rank_low"], t["rank_high"], strict=True)]
    keep = ["rank", "system", "rank range", "group", "mean", "ci_low", "ci_high", "n", "runs",
            "win_rate"]
    return out[[c for c in keep if c in out.columns]]


def leaderboard_report(lb: Leaderboard, *, fmt: str = "html", created: str = "") -> str:
    """The leaderboard as a report: ranked table with rank ranges and groups, the test that
    grouped them, the groups of indistinguishable systems and (HTML) an interval chart.

    Examples
    --------
    >>> import pandas as pd
    >>> from engine._leaderboard import leaderboard
    >>> from engine._matrix import build_matrix
    >>> df = pd.DataFrame({"benchmark": "b", "metric": "acc", "system": ["A"] * 6 + ["B"] * 6,
    ...     "example_id": [f"e{i}" for i in range(6)] * 2,
    ...     "value": [1., 0., 1., 0., 1., 0., 1., 1., 1., 1., 1., 0.]})
    >>> leaderboard_report(leaderboard(build_matrix(df)), fmt="markdown").splitlines()[0]
    '# Leaderboard: b / acc'
    """
    pw = lb.pairwise
    title = f"Leaderboard: {lb.benchmark} / {lb.metric}"
    head = _heading(fmt, title, f"{len(lb.table)} systems · "
                    f"{'higher' if lb.higher_is_better else 'lower'} is better · {pw.reason}; "
                    f"{pw.correction} correction at alpha {pw.alpha:g}; means with "
                    f"{1 - pw.alpha:.0%} intervals; systems sharing a group letter do not "
                    "differ significantly", created)
    table = _board_table(lb)
    cliques = [", ".join(c) for c in lb.cliques]
    if fmt == "markdown":
        lines = [*head, _md_table(table), ""]
        if cliques:
            lines += ["## Systems that cannot be told apart", ""]
            lines += [f"{i + 1}. {markdown_text(c)}" for i, c in enumerate(cliques)]
        else:
            lines.append("Every pair of systems differs significantly.")
        lines += ["", *(f"> note: {markdown_text(n)}" for n in lb.notes)]
        return "\n".join(lines).rstrip() + "\n"
    t = lb.table
    chart = interval_svg(list(t["system"]), t["mean"], t["ci_low"], t["ci_high"],
                         x_label=f"mean {lb.metric}, {1 - pw.alpha:.0%} interval",
                         title="Means with intervals, best first")
    body = [*head, f"<figure>{chart}</figure>", _html_table(table, "leaderboard")]
    if cliques:
        body += ["<h2>Systems that cannot be told apart</h2>",
                 "<ol>" + "".join(f"<li>{_h(c)}</li>" for c in cliques) + "</ol>"]
    body += [f'<p class="muted">note: {_h(n)}</p>' for n in lb.notes]
    return _document(f"{title} — sigboard report", body)
