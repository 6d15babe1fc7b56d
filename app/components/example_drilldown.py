"""One example in detail: every system's score (best system first), solved-by counts, tau and
the example's texts.

Uploaded text (prompt, reference, each system's output) is shown with ``st.code``:
as literal characters, never read as markdown or HTML and never executed, so
``<script>`` in an output shows as ``<script>``. Names in messages go through
:func:`engine.md_text`.
"""

from __future__ import annotations

import math

import pandas as pd
import streamlit as st

from app.ranked import MISSING, html_table
from engine.app_support import md_text, score_text
from engine.results import ExampleDrilldown

#: Columns of the engine's scores table that are not uploaded text.
_SCORE_COLUMNS = ("rank", "system", "quality", "score", "solved")
#: Characters of an output in a cell of the scores table (the whole text is below it).
PREVIEW_CHARS = 120
#: Characters of an output shown at once below the table (the rest in a closed expander).
VIEW_CHARS = 3_000


def preview(text: str, limit: int = PREVIEW_CHARS) -> str:
    """The start of a text on one line, for a table cell ("…" when cut).

    Examples
    --------
    >>> preview("<b>x</b>\\nnext line", limit=12)
    '<b>x</b> ne…'
    >>> preview("")
    ''
    """
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[:limit - 1] + "…"


#: Example texts shown first, in this order (the prompt opens first); others keep theirs.
TEXT_FIRST = ("prompt", "input", "question", "reference", "target", "answer")


def text_order(text: dict[str, str]) -> list[tuple[str, str]]:
    """An example's texts, the prompt and the reference first (the harness importers' names).

    Examples
    --------
    >>> [k for k, _ in text_order({"content_hash": "ab", "reference": "5", "prompt": "2+3?"})]
    ['prompt', 'reference', 'content_hash']
    """
    rank = {name: i for i, name in enumerate(TEXT_FIRST)}
    return sorted(text.items(), key=lambda item: rank.get(item[0].lower(), len(rank)))


def output_columns(d: ExampleDrilldown) -> list[str]:
    """The per-system text columns (e.g. each system's output) of a drill-down."""
    return [c for c in d.scores.columns if c not in _SCORE_COLUMNS]


def _solved(value: object) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return MISSING
    return "yes" if bool(value) else "no"


def scores_table(d: ExampleDrilldown, percent: bool) -> pd.DataFrame:
    """Display rows: rank, system, quality, score, solved, outputs.

    ``percent``: the metric is 0/1 (``engine.zero_one``, decided on the runs' own scores), so
    quality, the system's mean, reads as a share ("82.9%"), as on every page; otherwise four
    decimals (``engine._units``).

    Examples
    --------
    >>> from engine import example_drilldown
    >>> df = pd.DataFrame({"benchmark": "b", "metric": "m", "system": ["A"] * 2 + ["B"] * 2,
    ...                    "example_id": ["1", "2"] * 2, "value": [1.0, 1, 0, 1]})
    >>> scores_table(example_drilldown(df, example_id="1"), True)["solved"].tolist()
    ['yes', 'no']
    """
    s = d.scores
    out = pd.DataFrame({"rank": s["rank"], "system": s["system"].astype(str)})
    quality = s["quality"].to_numpy(float)
    out["quality"] = [score_text(q, percent=percent) for q in quality]
    out["score"] = [MISSING if math.isnan(v) else f"{v:.4g}" for v in s["score"].to_numpy(float)]
    out["solved"] = [_solved(v) for v in s["solved"]]
    for col in output_columns(d):
        out[col] = [preview(v) for v in s[col].astype(str)]
    return out


def tau_text(tau: float) -> str:
    """Kendall's tau as shown ("—" when not defined)."""
    return MISSING if math.isnan(tau) else f"{tau:+.2f}"


def show(d: ExampleDrilldown, *, percent: bool) -> None:
    """Draw one example's drill-down (figures, texts, every system's score)."""
    one, two, three = st.columns(3)
    one.metric("solved by", MISSING if d.n_solved is None else f"{d.n_solved} of {d.n_scored}",
               help=f"Systems that solve it ({md_text(d.solved_rule)}) of those that scored it."
               if d.solved_rule else "Solved is not defined for this metric.")
    two.metric("agreement", tau_text(d.tau),
               help="Kendall's tau between solving this example and the systems' quality: "
                    "below 0, weaker systems solve it more often than stronger ones (suspect).")
    three.metric("systems scored", d.n_scored)
    if d.tau < 0:
        st.info("Weaker systems solve this example more often than stronger ones: check its "
                "reference and tests.", icon=":material/report:")
    if d.solved_rule is None:
        st.caption(":material/info: This metric has no threshold for \"solved\" (its scores are "
                   "not just 0 or 1), so the solved-by count and the agreement are not shown.")
    for line in d.notes:
        if d.solved_rule is None and line.startswith("'solved' is not defined"):
            continue  # said above in plain words
        st.caption(f":material/info: {md_text(line)}")
    for i, (name, text) in enumerate(text_order(dict(d.text))):
        with st.expander(md_text(name), expanded=i == 0):
            st.code(text or MISSING, language=None, wrap_lines=True)
    if not d.text:
        st.caption("No text was uploaded for this example (per-example columns such as prompt "
                   "or reference are shown here when present).")
    table = scores_table(d, percent)
    # static HTML, not st.dataframe: the grid's code is ~1.7 MB to fetch and compile on a
    # first visit; every cell escaped
    st.html(html_table(table, label="scores on this example", help={
        "rank": "The system's place by quality.",
        "quality": "Mean score on the examples every system has.",
        "score": "Score on this example.",
        **{col: "The start of the system's text; pick the system below to read it whole."
           for col in output_columns(d)}}))
    outputs = output_columns(d)
    if outputs:
        _outputs(d, outputs, table)
    else:
        st.caption("No system's output was uploaded for this example (a text column such as "
                   "output, completion or response, one per system and example, is shown "
                   "here when present).")


def _outputs(d: ExampleDrilldown, outputs: list[str], table: pd.DataFrame) -> None:
    """One system's uploaded text columns in full (a cell of the table shows only its start),
    as literal text; a long one shows its start, the rest in a closed expander."""
    systems = d.scores["system"].astype(str).tolist()
    scores = dict(zip(table["system"], table["score"], strict=True))
    system = st.selectbox("Output of", systems, key="drilldown_output_system",
                          format_func=lambda s: f"{s} · score {scores.get(s, MISSING)}",
                          help="Systems in the table's order, best first.")
    row = d.scores.iloc[systems.index(system)]
    for col in outputs:
        text = str(row[col])
        st.caption(md_text(col))
        st.code(text[:VIEW_CHARS] or MISSING, language=None, wrap_lines=True)
        if len(text) > VIEW_CHARS:
            st.caption(f"The first {VIEW_CHARS:,} of {len(text):,} characters.")
            with st.expander(f"The whole {md_text(col)} ({len(text):,} characters)"):
                st.code(text, language=None, wrap_lines=True)
