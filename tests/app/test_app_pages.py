"""AppTest tests of the Streamlit app: every page renders, main interactions, uploads, URL state.

Each test gets its own SQLite store (``db``, tests/app/conftest.py), so nothing
touches ``var/``.
"""

from __future__ import annotations

import io
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import pytest
from apptest_support import (
    MAIN,
    TIMEOUT,
    app,
    html_frame,
    no_exception,
    params,
    pictures,
    ranked,
    table,
)
from streamlit.testing.v1 import AppTest

from engine.store import open_store

PAGES = ["views/benchmarks.py", "views/leaderboard.py", "views/pairwise.py",
         "views/distributions.py", "views/examples.py", "views/upload.py", "views/methods.py"]

GOOD_CSV = (b"benchmark,system,example_id,metric,value\n"
            + b"".join(f"humaneval,brand-new-model,HumanEval/{i},pass1,{i % 2}\n".encode()
                       for i in range(164)))
BAD_CSV = (b"benchmark,system,example_id,metric,value\n"
           b"humaneval,broken-model,HumanEval/0,pass1,1\n"
           b"humaneval,broken-model,HumanEval/1,pass1,not-a-number\n"
           b"humaneval,,HumanEval/2,pass1,1\n")


@pytest.mark.slow
@pytest.mark.parametrize("page", PAGES)
def test_every_page_renders_with_the_demo_data(db: Path, page: str) -> None:
    at = app(page, benchmark="humaneval")
    no_exception(at)
    assert at.title, "every page has a title"
    assert not at.warning


@pytest.mark.slow
@pytest.mark.parametrize("graph", ["ranks", "static", "interactive", "groups"])
def test_every_leaderboard_chart_tab_renders(db: Path, graph: str) -> None:
    at = app("views/leaderboard.py", benchmark="humaneval", graph=graph)
    no_exception(at)
    # the default view is not written to the URL (links carry only what differs)
    assert params(at).get("graph", "ranks") == graph
    charts = at.get("arrow_vega_lite_chart") or at.get("vega_lite_chart")
    # the rank/CI plot and the static graph are SVG pictures; the cliques view is Vega-Lite
    drawn_svg = pictures(at)
    drawn = {"ranks": drawn_svg, "static": drawn_svg, "interactive": at.get("iframe"),
             "groups": charts}[graph]
    assert drawn, "the open view draws its chart"
    assert len(drawn_svg) == (1 if graph in ("ranks", "static") else 0), "only the open tab"
    assert len(charts) == (1 if graph == "groups" else 0), "only the open view is drawn"
    if graph == "ranks":
        assert "rank range" in drawn_svg[0]
    if graph == "static":
        assert "rank range" not in drawn_svg[0], "the graph, not the rank/CI plot"
    if graph == "groups":
        assert any('aria-label="groups"' in h.proto.body for h in at.get("html"))


@pytest.mark.slow
@pytest.mark.parametrize("panel", ["pvalues", "effects", "pwpp", "metrics", "table"])
def test_every_all_pairs_panel_renders(db: Path, panel: str) -> None:
    at = app("views/pairwise.py", benchmark="humaneval", panel=panel)
    no_exception(at)
    assert params(at).get("panel", "pvalues") == panel


@pytest.mark.slow
def test_the_landing_page_is_the_overall_leaderboard(db: Path) -> None:
    # issue #15: "Overall", the new landing page, with the per-benchmark overview one click away
    at = app()
    no_exception(at)
    assert [t.value for t in at.title] == ["Overall"]
    links = {p.proto.label: p.proto.page for p in at.sidebar.get("page_link")}
    assert links["Benchmarks"] == "benchmarks"  # the link opens /benchmarks


def test_overview_lists_benchmarks_with_sizes_and_links(db: Path) -> None:
    at = app("views/benchmarks.py")
    no_exception(at)
    overview = html_frame(at, "benchmarks")  # a static table (#27: no data-grid code)
    assert {"humaneval"} <= set(overview["benchmark"])
    # sizes from the catalog only: the Overview runs no pairwise tests (issue #17)
    assert {"systems", "examples"} <= set(overview.columns)
    assert not {"p5_min", "p5_max", "suspects"} & set(overview.columns)
    row = overview[overview["benchmark"] == "humaneval"].iloc[0]
    assert int(row["systems"]) == 78 and int(row["examples"]) == 164
    links = [p.proto.query_string for p in at.main.get("page_link")]
    assert any("benchmark=humaneval" in q for q in links)


@pytest.mark.slow
def test_leaderboard_table_and_settings_change(db: Path) -> None:
    at = app("views/leaderboard.py", benchmark="humaneval")
    no_exception(at)
    board, _ = ranked(at)
    assert len(board) == 78
    assert {"rank", "rank range", "group", "mean", "CI", "win rate", "Elo"} <= set(board.columns)
    assert list(board["rank"][:3]) == ["1", "2", "3"] and board["win rate"][0].endswith("%")
    groups_before = list(board["group"])
    at.number_input(key="url_alpha").set_value(0.2).run()
    no_exception(at)
    assert params(at)["alpha"] == "0.2"
    assert list(ranked(at)[0]["group"]) != groups_before, "a larger alpha splits more groups"
    at.selectbox(key="url_correction").set_value("bonferroni").run()
    assert params(at)["correction"] == "bonferroni"


@pytest.mark.slow
def test_leaderboard_search_filters_rows_and_is_in_the_url(db: Path) -> None:
    at = app("views/leaderboard.py", benchmark="humaneval")
    at.text_input(key="url_q").input("claude").run()
    no_exception(at)
    shown, _ = ranked(at)
    assert len(shown) >= 1 and shown["system"].str.contains("claude", case=False).all()
    assert params(at)["q"] == "claude"


@pytest.mark.slow
def test_ranked_rows_link_to_the_pair_with_the_best_system(db: Path) -> None:
    at = app("views/leaderboard.py", benchmark="humaneval", alpha="0.01")
    board, links = ranked(at)
    best, second = board["system"][0], board["system"][1]
    assert set(links) == set(board["system"])
    for system, other in ((second, best), (best, second)):
        url = urlparse(links[system])
        query = parse_qs(url.query)
        assert url.path == "pairwise"
        assert query["a"] == [system] and query["b"] == [other]
        assert query["alpha"] == ["0.01"] and query["benchmark"] == ["humaneval"]


def test_grid_view_sorts_and_selects(db: Path) -> None:
    at = app("views/leaderboard.py", benchmark="humaneval", table="grid", q="gpt")
    no_exception(at)
    assert params(at)["table"] == "grid"
    grid = table(at)
    assert len(grid) >= 1 and grid["system"].str.contains("gpt", case=False).all()
    assert not [h for h in at.get("html") if 'aria-label="leaderboard"' in h.proto.body], \
        "one view at a time"
    captions = " ".join(c.value for c in at.caption)
    assert "Select one or two rows" in captions


@pytest.mark.slow
def test_grid_writes_percents_as_the_ranked_table_does(db: Path) -> None:
    """A 0/1 metric's mean: the grid's figure, one decimal, is the ranked table's text (#27:
    the grid showed 80.81% beside the table's 80.8%)."""
    shown, _ = ranked(app("views/leaderboard.py", benchmark="humaneval"))
    grid = table(app("views/leaderboard.py", benchmark="humaneval", table="grid"))
    texts = dict(zip(shown["system"], shown["mean"], strict=True))
    assert [f"{v:.1f}%" for v in grid["mean"]] == [texts[s] for s in grid["system"]]


@pytest.mark.slow
def test_leaderboard_offers_a_csv_download(db: Path) -> None:
    at = app("views/leaderboard.py", benchmark="humaneval")
    assert at.get("download_button"), "the table can be downloaded"


@pytest.mark.slow
def test_pairwise_pair_from_url_and_changed_by_widget(db: Path) -> None:
    at = app("views/pairwise.py", benchmark="humaneval", a="gpt-3.5-turbo",
             b="claude-3-opus-20240229")
    no_exception(at)
    assert at.selectbox(key="url_a").value == "gpt-3.5-turbo"
    assert at.selectbox(key="url_b").value == "claude-3-opus-20240229"
    text = " ".join(m.value for m in at.markdown)
    assert "after correcting for the other pairs" in text and "gpt\\-3\\.5\\-turbo" in text
    assert any('aria-label="2×2 table"' in h.proto.body for h in at.get("html")), \
        "binary metric: the 2x2 table is shown"
    at.selectbox(key="url_b").set_value("openchat").run()
    no_exception(at)
    assert params(at)["b"] == "openchat"


@pytest.mark.slow
def test_examples_page_shows_suspects_and_health(db: Path) -> None:
    at = app("views/examples.py", benchmark="humaneval")
    no_exception(at)
    labels = {m.label for m in at.metric}
    assert {"smallest significant gap", "largest gap not significant",
            "suspect examples"} <= labels
    suspects = html_frame(at, "suspect examples")
    agreement = suspects["agreement"].astype(float).tolist()
    assert agreement == sorted(agreement) and all(a < 0 for a in agreement)


def test_query_parameters_restore_a_view(db: Path) -> None:
    at = app("views/leaderboard.py", benchmark="humaneval", alpha="0.01",
             correction="bonferroni", compare="all", criterion="medium", seed="7", q="deepseek")
    no_exception(at)
    assert not at.warning
    assert at.number_input(key="url_alpha").value == pytest.approx(0.01)
    assert at.selectbox(key="url_correction").value == "bonferroni"
    assert at.selectbox(key="url_criterion").value == "medium"
    assert at.number_input(key="url_seed").value == 7
    assert ranked(at)[0]["system"].str.contains("deepseek", case=False).all()


def test_invalid_parameters_fall_back_with_a_note(db: Path) -> None:
    at = app("views/leaderboard.py", benchmark="no-such-benchmark", alpha="lots",
             correction="magic", seed="-3")
    no_exception(at)
    notes = " ".join(w.value for w in at.warning)
    for name in ("benchmark", "alpha", "correction", "seed"):
        assert f"`{name}`" in notes
    current = params(at)
    # the defaults they fall back to are not written to the URL
    assert "alpha" not in current and "correction" not in current
    assert at.number_input(key="url_alpha").value == pytest.approx(0.05)


def test_links_between_pages_carry_the_view(db: Path) -> None:
    at = app("views/leaderboard.py", benchmark="humaneval", alpha="0.01")
    links = {p.value: parse_qs(p.proto.query_string) for p in at.sidebar.get("page_link")}
    assert links["Pairwise"]["alpha"] == ["0.01"]
    assert links["Pairwise"]["benchmark"] == ["humaneval"]


@pytest.mark.slow
def test_bad_upload_shows_every_problem_and_stores_nothing(db: Path) -> None:
    before = open_store(f"sqlite:///{db}").dump()
    at = app("views/upload.py")
    at.file_uploader(key="upload_files").upload("bad.csv", BAD_CSV, "text/csv").run()
    no_exception(at)
    assert at.error, "the problems are announced"
    # issue #27: every problem written out in full (not cut at a grid column's width)
    written = "\n".join(m.value for m in at.main.markdown if "*Fix:*" in m.value)
    written = written.replace("\\", "")  # markdown escapes
    assert written.count("- **bad.csv") >= 2 and "column value" in written
    assert "'not-a-number'" in written and "give every row a system" in written
    assert not at.get("form_submit_button") or all(
        "Commit" not in b.proto.label for b in at.get("form_submit_button"))
    assert open_store(f"sqlite:///{db}").dump() == before


@pytest.mark.slow
def test_good_upload_appears_on_the_leaderboard(db: Path) -> None:
    at = app("views/upload.py")
    at.file_uploader(key="upload_files").upload("new.csv", GOOD_CSV, "text/csv").run()
    no_exception(at)
    commit = [b for b in at.get("form_submit_button") if "Commit" in b.proto.label]
    commit[0].click().run()
    no_exception(at)
    assert any("stored as upload" in s.value for s in at.success)
    board = app("views/leaderboard.py", benchmark="humaneval")
    shown, _ = ranked(board)
    assert "brand-new-model" in set(shown["system"]) and len(shown) == 79


def test_upload_restricted_by_token(db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SIGBOARD_UPLOAD_TOKEN", "s3cret")
    at = app("views/upload.py")
    no_exception(at)
    assert not at.get("file_uploader"), "read-only without the token"
    assert not at.get("button") or all("Sign in" not in b.label for b in at.button), \
        "no login button without an [auth] secrets section"
    at.text_input(key="sigboard_upload_unlock_field").input("wrong").run()
    assert at.error
    at.text_input(key="sigboard_upload_unlock_field").input("s3cret").run()
    no_exception(at)
    assert at.get("file_uploader"), "the token unlocks uploading"


@pytest.mark.slow
def test_a_benchmark_change_forgets_the_choices_of_the_old_benchmark(db: Path) -> None:
    # an example id, slice or system setting of humaneval means nothing on mbpp
    at = app("views/examples.py", benchmark="humaneval", ex="HumanEval/10")
    assert params(at)["ex"] == "HumanEval/10"
    at.selectbox(key="url_benchmark").set_value("mbpp").run()
    no_exception(at)
    assert params(at).get("ex") != "HumanEval/10" and not at.warning


@pytest.mark.slow
def test_examples_page_follows_a_benchmark_change(db: Path) -> None:
    at = app("views/examples.py", benchmark="humaneval")
    at.selectbox(key="url_benchmark").set_value("mbpp").run()
    no_exception(at)
    assert params(at)["benchmark"] == "mbpp"
    assert at.title[0].value == "Examples · \u2068mbpp\u2069", "the name isolated"


@pytest.mark.slow
def test_upload_history_delete_removes_the_rows(db: Path) -> None:
    at = app("views/upload.py")
    at.file_uploader(key="upload_files").upload("new.csv", GOOD_CSV, "text/csv").run()
    [b for b in at.get("form_submit_button") if "Commit" in b.proto.label][0].click().run()
    newest = int(open_store(f"sqlite:///{db}").uploads()["upload_id"].iloc[0])
    at = app("views/upload.py")
    at.selectbox(key="delete-which").set_value(newest).run()
    at.text_input(key=f"confirm-delete-{newest}").input(str(newest)).run()  # typed, per upload
    at.button(key="delete-button").click().run()
    no_exception(at)
    assert newest not in set(open_store(f"sqlite:///{db}").uploads()["upload_id"])
    board, _ = ranked(app("views/leaderboard.py", benchmark="humaneval"))
    assert "brand-new-model" not in set(board["system"])


def test_allow_list_without_login_configured_is_read_only(db: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SIGBOARD_UPLOAD_ALLOW", "someone@example.org")
    at = app("views/upload.py")
    no_exception(at)
    assert not at.get("file_uploader")
    assert not [b for b in at.button if "Sign in" in b.label], "no [auth] secrets: no login"
    assert not [s for s in at.selectbox if s.label.startswith("Delete")], "no deleting either"


@pytest.mark.slow
def test_metadata_filter_from_the_url(db: Path) -> None:
    rows = "".join(f"meta-bench,{s},e{j},acc,{(j + k) % 2},{fam}\n"
                   for k, (s, fam) in enumerate([("m1", "llama"), ("m2", "llama"), ("m3", "gpt")])
                   for j in range(12))
    store = open_store(f"sqlite:///{db}")
    buffer = io.BytesIO(b"benchmark,system,example_id,metric,value,family\n" + rows.encode())
    buffer.name = "meta.csv"
    store.import_file(buffer)
    at = app("views/leaderboard.py", benchmark="meta-bench", fcol="family", fval="llama")
    no_exception(at)
    shown, _ = ranked(at)
    assert set(shown["system"]) == {"m1", "m2"} and set(shown["family"]) == {"llama"}
    # issue #27: without a filter, system metadata waits in the column chooser
    at = app("views/leaderboard.py", benchmark="meta-bench")
    no_exception(at)
    assert "family" not in ranked(at)[0].columns
    at = app("views/leaderboard.py", benchmark="meta-bench", cols="family")
    assert "family" in ranked(at)[0].columns


@pytest.mark.slow
def test_column_choice_is_a_repeated_url_parameter(db: Path) -> None:
    at = AppTest.from_file(MAIN, default_timeout=TIMEOUT)
    at.query_params["benchmark"] = "humaneval"
    at.query_params["cols"] = ["rank", "mean"]
    at.switch_page("views/leaderboard.py").run()
    no_exception(at)
    assert list(ranked(at)[0].columns) == ["system", "rank", "mean"]
    at.multiselect(key="url_cols").select("elo").run()
    assert list(ranked(at)[0].columns) == ["system", "rank", "mean", "Elo"]
    assert at.query_params["cols"] == ["rank", "mean", "elo"], "keys in the URL, not labels"


@pytest.mark.slow
def test_column_labels_from_older_links_still_work(db: Path) -> None:
    at = AppTest.from_file(MAIN, default_timeout=TIMEOUT)
    at.query_params["benchmark"] = "humaneval"
    at.query_params["cols"] = ["rank", "win rate", "BT strength"]
    at.switch_page("views/leaderboard.py").run()
    no_exception(at)
    assert not at.warning
    assert list(ranked(at)[0].columns) == ["system", "rank", "win rate", "strength (share)"]
    assert at.query_params["cols"] == ["rank", "win_rate", "bt_strength"]


def _commit(at: AppTest, name: str, content: bytes, choice: str | None = None) -> AppTest:
    at.file_uploader(key="upload_files").upload(name, content, "text/csv").run()
    if choice is not None:  # the conflict choice appears in the preview, before Commit
        [r for r in at.radio if r.key and r.key.startswith("conflict-")][0].set_value(choice)
    [b for b in at.get("form_submit_button") if "Commit" in b.proto.label][0].click().run()
    no_exception(at)
    return at


@pytest.mark.slow
def test_conflicting_upload_is_rejected_unless_added_as_a_run(db: Path) -> None:
    _commit(app("views/upload.py"), "new.csv", GOOD_CSV)
    changed = GOOD_CSV.replace(b",pass1,0\n", b",pass1,1\n")
    before = open_store(f"sqlite:///{db}").dump()
    rejected = _commit(app("views/upload.py"), "again.csv", changed, "reject")
    assert rejected.error and "nothing was stored" in rejected.error[0].value
    assert open_store(f"sqlite:///{db}").dump() == before
    added = _commit(app("views/upload.py"), "again.csv", changed, "add-run")
    assert any("stored as upload" in s.value for s in added.success)
    board, _ = ranked(app("views/leaderboard.py", benchmark="humaneval"))
    assert board.loc[board["system"] == "brand-new-model", "runs"].iloc[0] == "2"
