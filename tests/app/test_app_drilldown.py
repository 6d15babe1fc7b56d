"""AppTests of the example drill-down on the Examples page (issue #18 item 5).

Data: the demo store's humaneval (``data/humaneval*.jsonl.gz``, Eval-Arena, MIT; see
``data/README.md``: 78 systems × 164 examples); reference values come from the engine
(:func:`engine.benchmark_health` for the suspects and their tau, the score matrix for
who solved an example). Texts: a small synthetic benchmark whose prompt and reference
hold HTML, and an engine drill-down whose outputs hold ``<script>``.
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import parse_qs

import pandas as pd
import pytest
from apptest_support import app, html_frame, html_links, no_exception, other_html, params, pictures
from pages_data_support import XSS, store_env
from streamlit.testing.v1 import AppTest

from app.components.example_drilldown import PREVIEW_CHARS, VIEW_CHARS
from app.url import View, check_example
from engine import benchmark_health, build_matrix, read_results

#: The drill-down's table of every system's score on the example (static HTML).
SCORES = "scores on this example"

PAGE = "views/examples.py"
ROOT = Path(__file__).resolve().parents[2]
SCRIPT = "<script>alert('owned')</script>"


def _humaneval() -> pd.DataFrame:
    return pd.concat([read_results(ROOT / "data" / "humaneval.jsonl.gz"),
                      read_results(ROOT / "data" / "humaneval_hf.jsonl.gz")], ignore_index=True)


def _figures(at: AppTest) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


@pytest.mark.slow
def test_first_suspect_shown_with_every_system_best_first(db: Path) -> None:
    at = app(PAGE, benchmark="humaneval")
    no_exception(at)
    matrix = build_matrix(_humaneval())
    health = benchmark_health(matrix)
    first = str(health.suspects["example_id"].iloc[0])
    assert at.selectbox(key="examples_ex").value == first
    assert params(at)["ex"] == first, "the choice is in the address bar"
    scores = html_frame(at, SCORES)
    ranks = scores["rank"].astype(int).tolist()
    assert len(scores) == 78 and ranks == sorted(ranks)
    solved = matrix.values[:, matrix.examples.index(first)] == 1
    assert _figures(at)["solved by"] == f"{int(solved.sum())} of 78"
    tau = float(health.suspects["tau"].iloc[0])
    assert _figures(at)["agreement"] == f"{tau:+.2f}" and tau < 0
    assert set(scores.loc[scores["solved"] == "yes", "system"]) == {
        s for s, ok in zip(matrix.systems, solved, strict=True) if ok}
    assert any("check its reference" in i.value for i in at.info) and not at.warning


@pytest.mark.slow
def test_another_example_from_the_selectbox_or_the_suspects_table(db: Path) -> None:
    at = app(PAGE, benchmark="humaneval")
    at.selectbox(key="examples_ex").set_value("HumanEval/10").run()
    no_exception(at)
    assert params(at)["ex"] == "HumanEval/10"
    assert at.selectbox(key="examples_ex").value == "HumanEval/10"
    at.run()  # a rerun keeps it
    assert at.selectbox(key="examples_ex").value == "HumanEval/10"
    solved = build_matrix(_humaneval()).values
    column = build_matrix(_humaneval()).examples.index("HumanEval/10")
    assert _figures(at)["solved by"] == f"{int((solved[:, column] == 1).sum())} of 78"


@pytest.mark.slow
def test_each_suspect_links_to_itself_in_detail(db: Path) -> None:
    at = app(PAGE, benchmark="humaneval", alpha="0.01")
    no_exception(at)
    links = html_links(at, "suspect examples")
    suspects = html_frame(at, "suspect examples")["example"].tolist()
    assert suspects and sorted(links) == sorted(suspects)
    for example, href in links.items():
        path, _, query = href.partition("?")
        fields = parse_qs(query)
        assert path == "examples" and fields["ex"] == [example]
        assert fields["benchmark"] == ["humaneval"] and fields["alpha"] == ["0.01"], \
            "the link keeps the view"
    second = suspects[1]
    at = app(PAGE, **{k: v[0] for k, v in parse_qs(links[second].partition("?")[2]).items()})
    no_exception(at)
    assert at.selectbox(key="examples_ex").value == second


@pytest.mark.slow
def test_a_fresh_link_opens_the_example(db: Path) -> None:
    at = app(PAGE, benchmark="humaneval", ex="HumanEval/10")
    assert at.selectbox(key="examples_ex").value == "HumanEval/10"


def _text_frame() -> pd.DataFrame:
    """Synthetic: 4 systems × 30 examples; each example has a prompt and a reference."""
    rows = [("txt", f"s{k}", f"e{i}", "pass1", float((i * (k + 1)) % 4 != 0),
             f"prompt {i} {SCRIPT}", f"reference {i} {XSS}") for k in range(4) for i in range(30)]
    return pd.DataFrame(rows, columns=["benchmark", "system", "example_id", "metric", "value",
                                       "prompt", "reference"])



def _no_raw_tags(at: AppTest) -> str:
    """No raw tag in any markdown element except the server's own SVG charts (which carry
    no uploaded text); returns the text of those elements."""
    drawn = pictures(at)
    assert drawn and all("<script" not in p for p in drawn)
    shown = " ".join(m.value for m in [*at.markdown, *at.caption, *at.warning])
    assert not re.search(r"(?<!\\)<", shown), "no raw tag in any markdown element"
    return shown

@pytest.mark.slow
def test_prompt_and_reference_are_shown_as_literal_text(tmp_path: Path) -> None:
    with store_env(tmp_path / "sigboard.db", _text_frame()):
        at = app(PAGE, benchmark="txt")
        no_exception(at)
        at.selectbox(key="examples_ex").set_value("e7").run()
        no_exception(at)
        codes = [c.value for c in at.code]
        assert f"prompt 7 {SCRIPT}" in codes and f"reference 7 {XSS}" in codes
        assert [e.label for e in at.expander][:2] == ["prompt", "reference"]
        _no_raw_tags(at)
        assert all("<script" not in body for body in other_html(at) + pictures(at))


def _output_frame() -> pd.DataFrame:
    """Synthetic: 4 systems × 30 examples with a prompt and each system's ``output``; s2's
    output on e7 is a script, s0's is longer than the view shows at once."""
    frame = _text_frame()
    frame["output"] = [f"{s} answers {e}" for s, e in zip(frame["system"], frame["example_id"],
                                                          strict=True)]
    at = (frame["example_id"] == "e7")
    frame.loc[at & (frame["system"] == "s2"), "output"] = "<script>alert(1)</script>"
    frame.loc[at & (frame["system"] == "s0"), "output"] = "x" * 5000 + " end"
    return frame


@pytest.mark.slow
def test_stored_outputs_are_shown_as_literal_text_beside_the_scores(tmp_path: Path) -> None:
    frame = _output_frame()
    with store_env(tmp_path / "sigboard.db", frame):
        at = app(PAGE, benchmark="txt", ex="e7")
        no_exception(at)
        assert at.selectbox(key="examples_ex").value == "e7"
        table = html_frame(at, SCORES)
        scores = frame[frame["example_id"] == "e7"].set_index("system")["value"]
        assert dict(zip(table["system"], table["score"], strict=True)) == {
            s: f"{v:.4g}" for s, v in scores.items()}, "the numbers are unchanged"
        cells = dict(zip(table["system"], table["output"], strict=True))
        assert cells["s2"] == "<script>alert(1)</script>" and cells["s1"] == "s1 answers e7"
        assert cells["s0"].endswith("…") and len(cells["s0"]) == PREVIEW_CHARS  # the start only
        picker = at.selectbox(key="drilldown_output_system")
        first = str(table["system"].iloc[0])
        assert picker.value == first
        picker.set_value("s2").run()
        no_exception(at)
        assert "<script>alert(1)</script>" in [c.value for c in at.code]
        assert "s2 answers e7" not in [c.value for c in at.code]
        shown = _no_raw_tags(at)
        assert all("<script" not in body for body in other_html(at) + pictures(at))
        assert "No system's output" not in shown
        at.selectbox(key="drilldown_output_system").set_value("s0").run()
        codes = [c.value for c in at.code]
        assert "x" * VIEW_CHARS in codes and "x" * 5000 + " end" in codes  # start, then whole
        assert any(f"first {VIEW_CHARS:,} of 5,004 characters" in c.value for c in at.caption)


@pytest.mark.slow
def test_without_outputs_the_page_says_so(tmp_path: Path) -> None:
    with store_env(tmp_path / "sigboard.db", _text_frame()):
        at = app(PAGE, benchmark="txt", ex="e7")
        no_exception(at)
        assert any("No system's output was uploaded" in c.value for c in at.caption)
        assert "output" not in html_frame(at, SCORES).columns


def _outputs_script() -> None:
    """The drill-down component alone, on an engine drill-down with per-system outputs."""
    import pandas as pd

    from app.components import example_drilldown
    from engine import example_drilldown as drill

    df = pd.DataFrame({"benchmark": "b", "metric": "m", "system": ["A"] * 3 + ["B"] * 3,
                       "example_id": ["1", "2", "3"] * 2, "value": [1.0, 1, 0, 0, 1, 1],
                       "output": ["ok", "ok", "<script>alert('owned')</script>", "x", "y",
                                  "<b>bold</b>"]})
    example_drilldown.show(drill(df, example_id="3"), percent=True)


def test_outputs_are_shown_as_literal_text() -> None:
    at = AppTest.from_function(_outputs_script).run()
    assert not at.exception
    table = html_frame(at, SCORES)
    assert list(table["system"]) == ["A", "B"] and list(table["output"]) == [SCRIPT, "<b>bold</b>"]
    assert at.selectbox(key="drilldown_output_system").value == "A"
    assert SCRIPT in [c.value for c in at.code]
    at.selectbox(key="drilldown_output_system").set_value("B").run()
    assert "<b>bold</b>" in [c.value for c in at.code]
    assert all("<script" not in m.value for m in [*at.markdown, *at.caption])


def test_numeric_metric_without_threshold_says_so_plainly() -> None:
    def script() -> None:
        import pandas as pd

        from app.components import example_drilldown
        from engine import example_drilldown as drill

        df = pd.DataFrame({"benchmark": "b", "metric": "m", "system": ["A"] * 2 + ["B"] * 2,
                           "example_id": ["1", "2"] * 2, "value": [0.2, 0.9, 0.4, 0.3]})
        example_drilldown.show(drill(df, example_id="1"), percent=False)

    at = AppTest.from_function(script).run()
    assert not at.exception
    assert {m.label: m.value for m in at.metric}["solved by"] == "—"
    captions = " ".join(c.value for c in at.caption)
    assert "no threshold" in captions and "tau" not in captions


def test_example_parameter_is_checked() -> None:
    examples = ["HumanEval/3", "HumanEval/4"]
    assert check_example(View(), examples, "HumanEval/4") == (View(ex="HumanEval/4"), [])
    shown, problems = check_example(View(ex="<b>x</b>"), examples, "HumanEval/4")
    assert shown.ex == "HumanEval/4" and "`ex`" in problems[0] and "<b>" not in problems[0]


@pytest.mark.slow
def test_an_uploaded_output_column_reaches_the_drilldown(db: Path) -> None:
    """Through the Upload page: one system per file (so ``output`` is constant within each
    example of a file), then the Examples page shows each system's output literally."""
    for system in ("one", "two"):
        frame = pd.DataFrame({"benchmark": "outs", "system": system,
                              "example_id": [f"q{i}" for i in range(20)], "metric": "acc",
                              "value": [float(i % 3 == 0) for i in range(20)],
                              "output": [f"{system} says {i}" for i in range(20)]})
        if system == "two":
            frame.loc[3, "output"] = "<script>alert(1)</script>"
        at = app("views/upload.py")
        at.file_uploader(key="upload_files").upload(f"{system}.csv",
                                                    frame.to_csv(index=False).encode(),
                                                    "text/csv").run()
        no_exception(at)
        [b for b in at.get("form_submit_button") if "Commit" in b.proto.label][0].click().run()
        no_exception(at)
        assert any("stored as upload" in s.value for s in at.success)
    at = app(PAGE, benchmark="outs", ex="q3")
    no_exception(at)
    table = html_frame(at, SCORES)
    assert dict(zip(table["system"], table["output"], strict=True)) == {
        "one": "one says 3", "two": "<script>alert(1)</script>"}
    assert dict(zip(table["system"], table["score"], strict=True)) == {"one": "1", "two": "1"}
    at.selectbox(key="drilldown_output_system").set_value("two").run()
    assert "<script>alert(1)</script>" in [c.value for c in at.code]
    assert all("<script" not in body for body in other_html(at) + pictures(at))
    assert not any(e.label == "output" for e in at.expander), "not per-example text"


@pytest.mark.slow
def test_quality_of_a_repeated_zero_one_metric_reads_in_percent(tmp_path: Path) -> None:
    # Two runs of a 0/1 metric per example: the cells are fractions (0.5), yet the metric is
    # 0/1, so a system's quality is a share, written as the Leaderboard writes it.
    rows = [{"benchmark": "tries", "metric": "pass", "system": s, "example_id": f"e{i}",
             "run": r, "value": float((i + r) % k == 0)}
            for s, k in (("often", 1), ("half", 2)) for i in range(12) for r in range(2)]
    with store_env(tmp_path / "sigboard.db", pd.DataFrame(rows)):
        at = app(PAGE, benchmark="tries", ex="e0")
        no_exception(at)
        quality = dict(zip(*(html_frame(at, SCORES)[c] for c in ("system", "quality")),
                           strict=True))
    # reference: the mean of each system's runs (12 examples × 2 runs, by the rule above)
    assert quality == {"often": "100.0%", "half": "50.0%"}
