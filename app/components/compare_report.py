"""The A/B comparison as one self-contained HTML file (pure: no Streamlit).

Verdict, difference with its interval, the model and why, descriptive
statistics, effect size, outliers, variance decomposition, the models side by
side and the power figures, with the charts inline as SVG drawn on the server:
no script, no stylesheet or font from elsewhere — it opens offline in any
browser and prints as it looks. Every name is escaped.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

import pandas as pd

from app.charts.compare import COMPONENT_NAMES, model_label
from engine.app_support import compare_headline, html_text
from engine.results import ABComparison, PowerAnalysis

_CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1f2933;
  max-width:980px;margin:2rem auto;padding:0 1rem;line-height:1.45}
h1{font-size:1.5rem;margin-bottom:.2rem}h2{font-size:1.15rem;margin-top:1.8rem}
.verdict{font-size:1.2rem;font-weight:600;padding:.7rem 1rem;border-radius:.5rem;margin:1rem 0}
.better{background:#e3f1e6}.worse{background:#fbe4e4}.none{background:#eef1f5}
table{border-collapse:collapse;font-size:.88rem;font-variant-numeric:tabular-nums;margin:.4rem 0}
th,td{padding:.3rem .6rem;border-bottom:1px solid #dde2e8;text-align:right}
th:first-child,td:first-child{text-align:left}th{background:#f3f4f6}
.muted{color:#616d7e;font-size:.85rem}figure{margin:1rem 0}figure svg{max-width:100%;height:auto}
"""
_XML_HEADER = re.compile(r"^\s*<\?xml[^>]*>\s*")
#: The power panel's tests (engine.POWER_TESTS) in plain words (Compare and Plan pages) and
#: by name (their tooltips).
POWER_TEST_NAMES = {"paired-t": "mean of the per-example differences",
                    "unpaired-t": "the two means, runs stacked",
                    "mcnemar": "examples only one system solves",
                    "sign": "which system wins each example",
                    "wilcoxon": "ranked per-example differences",
                    "bootstrap": "resampled examples (an interval)"}
POWER_TEST_TECHNICAL = {"paired-t": "paired t", "unpaired-t": "unpaired t",
                        "mcnemar": "exact McNemar (0/1 scores only)", "sign": "sign test",
                        "wilcoxon": "Wilcoxon signed-rank", "bootstrap": "bootstrap interval"}
POWER_TEST_HELP = ("The test run on each simulated comparison: " + "; ".join(
    f"{POWER_TEST_NAMES[k]} = {POWER_TEST_TECHNICAL[k]}" for k in POWER_TEST_NAMES)
    + " (Methods explains each)")
#: The power table's other columns explained (Compare and Plan pages).
POWER_HELP = {"power": "Share of the simulated comparisons in which the test found the "
                       "difference (percent); — does not apply to these scores",
              "±": "Simulation error of that share: its standard error (percentage points)"}


def _fmt(value: object) -> str:
    if isinstance(value, bool) or value is None:
        return "" if value is None else ("yes" if value else "no")
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        if math.isnan(value):
            return ""
        if math.isinf(value):
            return "∞" if value > 0 else "−∞"
        return f"{value:.4g}"
    return str(value)


def table_html(frame: pd.DataFrame, *, label: str) -> str:
    """A frame as an escaped HTML table (numbers to 4 significant digits)."""
    head = "".join(f"<th>{html_text(c)}</th>" for c in frame.columns)
    rows = "".join("<tr>" + "".join(f"<td>{html_text(_fmt(v))}</td>" for v in record) + "</tr>"
                   for record in frame.itertuples(index=False, name=None))
    return (f'<table aria-label="{html_text(label)}"><thead><tr>{head}</tr></thead>'
            f"<tbody>{rows}</tbody></table>")


def _verdict_class(ab: ABComparison) -> str:
    return next((word for word in ("better", "worse") if ab.verdict.endswith(word)), "none")


def report_html(ab: ABComparison, power: PowerAnalysis | None, charts: Sequence[str], *,
                created: str, link: str = "") -> str:
    """The whole report as one HTML document; ``charts`` are SVG documents to embed."""
    t = ab.test
    level = f"{1 - ab.options.alpha:.0%}"
    name = f"{ab.candidate} vs {ab.baseline}"
    figures = "".join(f"<figure>{_XML_HEADER.sub('', svg)}</figure>" for svg in charts)
    parts = [
        f"<h1>A/B comparison: {html_text(name)}</h1>",
        f'<p class="headline"><b>{html_text(compare_headline(ab, binary=ab.binary))}</b></p>',
        f'<p class="muted">Benchmark {html_text(ab.benchmark)}, metric {html_text(ab.metric)} '
        f"({'higher' if ab.higher_is_better else 'lower'} is better) · {t.n} shared examples · "
        f"runs {t.runs[0]} (baseline) and {t.runs[1]} (candidate) · created {html_text(created)}"
        "</p>",
        f'<p class="verdict {_verdict_class(ab)}" id="verdict">Verdict: '
        f"{html_text(ab.verdict)}</p>",
        f"<p>Difference (candidate − baseline, positive = candidate better): "
        f"<b>{t.estimate:+.4f}</b>, {level} interval [{t.ci_low:+.4f}, {t.ci_high:+.4f}], "
        f"p = {t.pvalue:.3g} ({html_text(t.alternative)}, alpha = {ab.options.alpha:g}).</p>",
        f"<p>Model: <b>{html_text(t.model)}</b> — {html_text(t.reason)}.</p>",
        f"<p>{html_text(ab.note)}</p>" if ab.note else "",
        f"<p>Effect size (paired d<sub>z</sub>): {ab.effect_size:+.3f}, {level} interval "
        f"[{ab.effect_ci[0]:+.3f}, {ab.effect_ci[1]:+.3f}].</p>",
        figures,
        "<h2>Descriptive statistics (per-example means)</h2>",
        table_html(ab.descriptives, label="descriptive statistics"),
        "<h2>Models side by side</h2>",
        table_html(ab.models.assign(model=[model_label(m) for m in ab.models["model"]]),
                   label="models"),
        "<h2>Variance decomposition</h2>",
        table_html(ab.variance.assign(component=[COMPONENT_NAMES.get(c, c)
                                                 for c in ab.variance["component"]]),
                   label="variance"),
        f"<h2>Outlier examples (|z| &gt; 3 on the difference): {len(ab.outliers)}</h2>",
        table_html(ab.outliers, label="outliers") if len(ab.outliers) else "<p>None.</p>",
    ]
    if power is not None:
        rates = pd.DataFrame({"test": list(power.power),
                              "power": [power.power[k] for k in power.power],
                              "± (Monte Carlo)": [power.mc_se[k] for k in power.power]})
        needed = power.examples_needed if power.examples_needed is not None else "no number suffices"
        runs = power.runs_needed if power.runs_needed is not None else "not identified"
        parts += [
            "<h2>Power</h2>",
            f"<p>Smallest difference detectable with {power.target_power:.0%} power at alpha "
            f"{power.alpha:g} with {power.examples} examples and {power.runs} run(s): "
            f"<b>{power.mdd:.4f}</b>. To detect {power.difference:.4f}: examples needed "
            f"{html_text(_fmt(needed))}, runs needed {html_text(_fmt(runs))}.</p>",
            table_html(rates, label="power"),
            f'<p class="muted">{power.n_sim} simulated comparisons per test.</p>',
        ]
    if link:
        parts.append(f'<p class="muted">View in sigboard: {html_text(link)}</p>')
    return (f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
            f"<title>{html_text(name)} — sigboard A/B report</title><style>{_CSS}</style></head>"
            f"<body>{''.join(parts)}</body></html>")
