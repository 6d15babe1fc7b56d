"""AppTests of the Conditions page (issue #18 item 4) and its URL check (app/url.py).

Data: CRUXEval-input as bundled in ``data/cruxeval_input.jsonl.gz`` (Eval-Arena, MIT; see
``data/README.md``): 37 systems × 800 examples. Its only system setting,
``hyperparams``, has one value, so two settings are *derived from the system names*
for these tests: ``model`` (the name without ``+cot``) and ``prompting`` ("chain of
thought" for names ending in ``+cot``, else "direct"). Eight models appear both with and
without ``+cot`` (claude-3-opus, codellama 7b/13b/34b, gpt-3.5-turbo, gpt-4, gpt-4-turbo,
gpt-4o: listed from the file), so ``prompting`` has eight matched pairs.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest
from apptest_support import app, no_exception, params
from pages_data_support import XSS, store_env

from app.components.conditions_table import pairs_table
from app.url import View, check_conditions, held
from engine import condition_and_compare, read_results

PAGE = "views/conditions.py"
ROOT = Path(__file__).resolve().parents[2]
COT_MODELS = {"claude-3-opus-20240229", "codellama-13b", "codellama-34b", "codellama-7b",
              "gpt-3.5-turbo-0613", "gpt-4-0613", "gpt-4-turbo-2024-04-09", "gpt-4o"}


def crux_frame() -> pd.DataFrame:
    """CRUXEval-input with ``model`` and ``prompting`` derived from the system names."""
    df = read_results(ROOT / "data" / "cruxeval_input.jsonl.gz")
    df["model"] = df["system"].str.removesuffix("+cot")
    df["prompting"] = df["system"].str.endswith("+cot").map(
        {True: "chain of thought", False: "direct"})
    return df


def hostile_frame() -> pd.DataFrame:
    """Synthetic: 2 templates (one named like an HTML tag) × 2 families, 40 examples each."""
    rows = []
    for t, template in enumerate(("plain", XSS)):
        for family in ("x", "y"):
            rows += [("syn", f"{family}-{t}", f"e{i}", "pass1", float((i + t) % 3 != 0),
                      template, family) for i in range(40)]
    return pd.DataFrame(rows, columns=["benchmark", "system", "example_id", "metric", "value",
                                       "template", "family"])


@pytest.fixture(scope="module")
def crux(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    with store_env(tmp_path_factory.mktemp("cond") / "sigboard.db", crux_frame()) as path:
        yield path


@pytest.mark.slow
def test_prompting_compared_on_the_eight_matched_models(crux: Path) -> None:
    at = app(PAGE, benchmark="CRUXEval-input")
    no_exception(at)
    assert at.selectbox(key="conditions_factor").value == "prompting", "fewest levels first"
    assert at.multiselect(key="conditions_hold").value == ["hyperparams", "model"]
    shown = at.dataframe[0].value
    assert len(shown) == 8 and set(shown["model"]) == COT_MODELS
    # reference: the engine on the same data with the page's (default) options
    ref = condition_and_compare(crux_frame(), factor="prompting",
                                benchmark="CRUXEval-input", metric="pass1")
    summary = " ".join(m.value for m in at.markdown)
    assert summary.replace("\\", "") == "- " + ref.summary()[0]
    assert "of 8 matched configurations" in ref.summary()[0]
    expected = pairs_table(ref, binary=False)
    assert list(shown["verdict"]) == list(expected["verdict"])
    assert list(shown["adjusted p"]) == list(expected["adjusted p"])
    assert {m.label: m.value for m in at.metric}["significant"] == str(
        int(ref.table["significant"].sum()))
    better = shown["verdict"] != "no clear difference"
    assert (shown.loc[better, "verdict"] == "prompting = chain of thought better").all()


@pytest.mark.slow
def test_choices_go_to_the_address_bar_and_stay(crux: Path) -> None:
    at = app(PAGE, benchmark="CRUXEval-input")
    at.selectbox(key="conditions_factor").set_value("model").run()
    no_exception(at)
    assert params(at)["factor"] == "model" and "hold" not in params(at)
    at.multiselect(key="conditions_hold").set_value([]).run()
    no_exception(at)
    assert params(at)["factor"] == "model" and params(at)["hold"] == ""
    # nothing held: the 8 models with two systems are left out (a note says so); the other
    # 37 - 16 = 21 models, one system each, make 21 * 20 / 2 pairs
    assert len(at.dataframe[0].value) == 210
    assert any("left out" in c.value for c in at.caption)
    at.run()  # a rerun keeps the choice
    assert at.selectbox(key="conditions_factor").value == "model"
    assert at.multiselect(key="conditions_hold").value == []


@pytest.mark.slow
def test_a_fresh_link_opens_the_same_choice(crux: Path) -> None:
    at = app(PAGE, benchmark="CRUXEval-input", factor="model", hold="hyperparams")
    assert at.selectbox(key="conditions_factor").value == "model"
    assert at.multiselect(key="conditions_hold").value == ["hyperparams"]


@pytest.mark.slow
def test_demo_data_says_plainly_that_there_is_nothing_to_compare(db: Path) -> None:
    at = app(PAGE, benchmark="humaneval")
    no_exception(at)
    assert "carry no settings" in at.info[0].value
    at = app(PAGE, benchmark="CRUXEval-input")
    no_exception(at)
    assert "every system has the same value" in at.info[0].value
    assert any("No bundled demo benchmark has" in c.value for c in at.caption)


@pytest.mark.slow
def test_names_from_the_upload_stay_text(tmp_path: Path) -> None:
    with store_env(tmp_path / "sigboard.db", hostile_frame()):
        at = app(PAGE, benchmark="syn")
        no_exception(at)
        assert at.selectbox(key="conditions_factor").value == "family"
        at.selectbox(key="conditions_factor").set_value("template").run()
        no_exception(at)
        markdown = " ".join(m.value for m in [*at.markdown, *at.caption])
        assert "\\<img src\\=x onerror\\=alert\\(1\\)\\>" in markdown
        assert not re.search(r"(?<!\\)<", markdown), "every < escaped"
        assert (at.dataframe[0].value["compared"] == f"plain vs {XSS}").all(), "as text"
        assert all(XSS not in h.proto.body for h in at.get("html"))


# ----------------------------------------------------------------- the URL check (pure)


def test_check_keeps_valid_choices() -> None:
    view = View(factor="template", hold=("family", "family", "temperature"))
    checked, problems = check_conditions(view, ["template", "temperature"],
                                         ["template", "temperature", "family"])
    assert (checked.factor, held(checked)) == ("template", ("family", "temperature"))
    assert not problems
    assert checked.params("conditions") == {"factor": "template",
                                            "hold": ["family", "temperature"]}


def test_check_explains_and_falls_back() -> None:
    checked, problems = check_conditions(View(factor="colour", hold=("template", "x")),
                                         ["template", "family"])
    assert (checked.factor, held(checked)) == ("template", ()), "hold given: only its valid values"
    assert len(problems) == 2
    assert "`factor`" in problems[0] and "Showing" in problems[0]
    assert "`hold`" in problems[1] and "ignored" in problems[1]
    none, problems = check_conditions(View(factor="t"), [])
    assert (none.factor, held(none)) == ("", None) and "no settings" in problems[0]


def test_check_empty_hold_holds_nothing_and_absent_hold_is_the_default() -> None:
    nothing = check_conditions(View(hold=("",)), ["t"])[0]
    assert (nothing.factor, held(nothing)) == ("t", ())
    assert nothing.params("conditions") == {"factor": "t", "hold": [""]}
    assert held(check_conditions(View(), ["t"])[0]) is None
    long = "x" * 500
    checked, problems = check_conditions(View(hold=(long,)), ["t"], ["t", long])
    assert held(checked) == () and problems, "over-long values are refused"


ALPACA = ROOT / "tests" / "data" / "alpaca-eval" / "alpaca_eval2_weighted_gpt4_turbo_long.jsonl.gz"


@pytest.fixture(scope="module")
def alpaca(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """AlpacaEval 2.0 (tests/data/README.md): 60 systems x 805 instructions, with the
    system columns ``generator_1`` (the reference, one value) and ``generator_2`` (the
    system's own name for 57 systems; its suffix cut for 2, "example" for NullModel)."""
    with store_env(tmp_path_factory.mktemp("cond-alpaca") / "sigboard.db",
                   read_results(ALPACA)) as path:
        yield path


@pytest.mark.slow
def test_alpaca_offers_no_setting_that_names_the_system(alpaca: Path) -> None:
    # issue #27: generator_2 was offered as a "setting" (58 levels, 1,540 "matched pairs")
    at = app(PAGE, benchmark="alpaca_eval2_weighted_gpt4_turbo")
    no_exception(at)
    offered = [o for box in at.selectbox for o in box.options]
    offered += [o for box in at.multiselect for o in box.options]
    assert "generator_2" not in offered and "system" not in offered
    assert not at.get("dataframe") or "level_a" not in table_columns(at)
    shown = (" ".join(c.value for c in at.caption) + " ".join(i.value for i in at.info)
             ).replace("\\_", "_")  # markdown escapes
    assert "generator_2" in shown, "the page says why it is not offered"
    assert "two levels" in shown, "and what it needs"


def table_columns(at: object) -> list[str]:
    return [c for frame in at.dataframe for c in frame.value.columns]  # type: ignore[attr-defined]


def test_system_identifiers_by_rule() -> None:
    from engine.app_support import system_identifiers

    meta = pd.DataFrame({"system": ["m-7b", "M-13B/run", "x", "y"],
                         "gen": ["m-7b", "m-13b", "x", "y"],  # the name (cut at "/")
                         "size": ["7b", "13b", "7b", "13b"],  # a real setting
                         "family": ["m", "m", "x", "y"]})  # 3 levels for 4 systems
    assert system_identifiers(meta) == ["gen"]
    crux = crux_frame().drop_duplicates("system")[["system", "model", "prompting"]]
    assert system_identifiers(crux) == [], "a model name without +cot is a real setting"
