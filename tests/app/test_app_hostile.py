"""Hostile names (issue #17, display side): stored and URL text renders as text everywhere.

A corpus of names — markdown links and images, HTML, Streamlit directives, formula
prefixes, a right-to-left override, a quote in a metadata column — goes into one
benchmark of the test's own store; every page must show them inert: no live link
and no image address in any markdown element, isolates around names, neutralised
CSV downloads, the interactive graph's labels escaped once.
"""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pandas as pd
import pytest
from apptest_support import app, html_frame, no_exception, pictures

from app.downloads import FORMULA_START, safe_csv
from engine._text import ISOLATE, JOINER, POP
from engine.app_support import html_text, md_isolated
from engine.store import open_store

PHISH = "[Session expired…](http://evil)![px](http://evil/u.png)"
RTL = "safe\u202eevil"
HOSTILE_SYSTEMS = [PHISH, "<img src=x onerror=alert(1)>", "=HYPERLINK(\"http://evil\")",
                   "+1", "-2", "@SUM(1)", "\ttab-model", "\rcr-model", RTL, ":red[alert] $x$ **b**",
                   "www.evil.com", "plain-model"]
BENCH = PHISH
METRIC = "[m](http://evil)"
META = "o'brien"
#: A live markdown link or image, or raw HTML that markdown would render.
LIVE = re.compile(r"(?<!\\)\[[^\]]*(?<!\\)\]\((?:https?:)?//|(?<!\\)<img|(?<!\\)<a ",
                  re.IGNORECASE)


def hostile_frame() -> pd.DataFrame:
    return pd.DataFrame([
        {"benchmark": BENCH, "system": s, "example_id": f"ex{j}", "metric": METRIC,
         "value": float((j + 3 * i) % 4 != 0), META: f"group {i % 2}"}
        for i, s in enumerate(HOSTILE_SYSTEMS) for j in range(24)])


@pytest.fixture
def hostile_db(db: Path) -> Path:
    store = open_store(f"sqlite:///{db}")
    store.import_frame(hostile_frame(), filename="[upload](http://evil).csv")
    store.close()
    return db


def markdown_texts(at) -> list[str]:  # noqa: ANN001
    """Everything the page sends through the markdown renderer."""
    texts = [e.value for kind in ("title", "header", "subheader", "markdown", "caption",
                                  "warning", "error", "info", "success")
             for e in at.get(kind)]
    texts += [p.proto.label for p in at.get("page_link")]
    texts += [w.label for w in at.selectbox] + [w.label for w in at.multiselect]
    texts += [e.label for e in at.expander] + [t.label for t in at.tabs]
    return texts


def assert_inert(at) -> None:  # noqa: ANN001
    no_exception(at)
    for text in markdown_texts(at):
        assert not LIVE.search(text), text
        assert "\u202e" not in text or f"{ISOLATE}" in text, text


def test_plain_escapes_markdown_html_and_isolates() -> None:
    out = md_isolated(PHISH)
    assert out.startswith(ISOLATE) and out.endswith(POP)
    assert not LIVE.search(out)
    assert "\\[" in out and "\\(" in out and "\\!" in out
    assert "\n" not in md_isolated("a\n# heading")


@pytest.mark.slow
@pytest.mark.parametrize("page", ["views/leaderboard.py", "views/pairwise.py",
                                  "views/distributions.py", "views/examples.py",
                                  "views/benchmarks.py"])
def test_every_page_shows_hostile_names_as_text(hostile_db: Path, page: str) -> None:
    at = app(page, benchmark=BENCH, boot="200")
    assert_inert(at)
    assert at.title, "the page drew its title"
    if page != "views/benchmarks.py":
        assert md_isolated(BENCH) in at.title[0].value


@pytest.mark.slow
def test_crafted_benchmark_in_the_url_is_inert(db: Path) -> None:
    at = app("views/leaderboard.py", benchmark=PHISH)
    assert_inert(at)
    assert any("benchmark" in w.value for w in at.warning), "the bad parameter is reported"


@pytest.mark.slow
def test_pair_sentence_and_two_by_two_are_inert(hostile_db: Path) -> None:
    at = app("views/pairwise.py", benchmark=BENCH, a=PHISH, b=RTL)
    assert_inert(at)
    sentence = next(m.value for m in at.markdown if "beats" in m.value or "tie" in m.value)
    assert md_isolated(PHISH) in sentence and md_isolated(RTL) in sentence
    body = next(h.proto.body for h in at.get("html") if 'aria-label="2×2 table"' in h.proto.body)
    assert not LIVE.search(body.split("</style>")[-1]), "no live markup from a name"
    cells = html_frame(at, "2×2 table")
    assert cells.columns[1] == f"\u2068{RTL}\u2069 solved", "shown as itself, isolated"
    # a WORD JOINER inside "://" keeps the bare URL from becoming a link (invisible)
    assert cells.iloc[1, 0].replace(JOINER, "") == f"\u2068{PHISH}\u2069 failed"


@pytest.mark.slow
def test_rtl_names_are_isolated_in_the_ranked_table(hostile_db: Path) -> None:
    at = app("views/leaderboard.py", benchmark=BENCH)
    no_exception(at)
    body = next(h.proto.body for h in at.get("html") if 'aria-label="leaderboard"' in h.proto.body)
    assert "<bdi>safe\u202eevil</bdi>" in body
    assert "<img" not in body.replace("&lt;img", "")


@pytest.mark.slow
def test_interactive_graph_labels_are_escaped_once(hostile_db: Path) -> None:
    at = app("views/leaderboard.py", benchmark=BENCH, graph="interactive")
    no_exception(at)
    page = at.get("iframe")[0].proto.srcdoc
    nodes = json.loads(re.search(r"nodes = new vis\.DataSet\((\[.*?\])\);", page, re.S).group(1))
    labels = {n["label"].strip(ISOLATE + POP) for n in nodes}
    assert "<img src=x onerror=alert(1)>" in labels, "shown as itself, not &lt;img"
    assert not any("&lt;" in label or "&amp;" in label for label in labels)
    assert "<img src=x" not in page.split("nodes = new vis.DataSet", 1)[1][:20000].replace(
        "\\u003c", "")


@pytest.mark.slow
def test_quote_in_a_metadata_column_does_not_break_the_distributions_chart(
        hostile_db: Path) -> None:
    at = app("views/distributions.py", benchmark=BENCH, color=META, boot="200")
    no_exception(at)
    assert not at.error
    drawn = pictures(at)
    assert len(drawn) == 1, "the open tab's boxplots, drawn on the server"
    svg = drawn[0]
    assert "<script" not in svg and "<img" not in svg, "names are text, never markup"
    assert html_text(META) in svg, "the column is shown as text (the legend's title), escaped"


def test_every_download_is_neutralised() -> None:
    frame = pd.DataFrame({"system": HOSTILE_SYSTEMS, "value": range(len(HOSTILE_SYSTEMS)),
                          "=cmd": ["-x"] * len(HOSTILE_SYSTEMS)})
    text = safe_csv(frame).decode()
    for line in pd.read_csv(io.StringIO(text), dtype=str, keep_default_na=False).to_numpy().ravel():
        assert not str(line).startswith(FORMULA_START), line


def test_builtin_dataframe_download_is_off() -> None:
    config = (Path(__file__).resolve().parents[2] / ".streamlit" / "config.toml").read_text()
    assert re.search(r"^disableDataExport\s*=\s*true", config, re.M)


def test_download_file_names_are_plain() -> None:
    from app.downloads import file_name
    assert file_name(PHISH, METRIC, "leaderboard") == re.sub(r"[^A-Za-z0-9._-]", "",
                                                              file_name(PHISH, METRIC,
                                                                        "leaderboard"))
    assert "/" not in file_name("../../etc/passwd")


# ------------------------------------------------ issue #33 item 5: bare links, line separators

#: remark-gfm's autolink literals, matched on text after escapes are resolved (as it does).
BARE_LINK = re.compile(r"https?://|www(?=\.)|[-.\w+]+@[-\w]+(?:\.[-\w]+)+",
                       re.IGNORECASE | re.ASCII)
EVIL_URL = "https://evil.example/login"
SEPARATED = ["line\u2028sep-model", "para\u2029sep-model", f"visit {EVIL_URL}",
             "img src=http://evil.example/x.png", "nel\x85model", "plain-model"]
SEP_BENCH = "sep\u2028bench"
ALL_PAGES = ["views/overall.py", "views/leaderboard.py", "views/benchmarks.py",
             "views/pairwise.py", "views/compare.py", "views/examples.py",
             "views/distributions.py", "views/mechanisms.py", "views/slices.py",
             "views/conditions.py", "views/plan.py", "views/watch.py", "views/upload.py",
             "views/methods.py"]


def shown(text: str) -> str:
    """What the markdown renderer shows: backslash escapes and character references resolved."""
    import html
    return html.unescape(re.sub(r"\\(.)", r"\1", text))


def assert_no_bare_link(at) -> None:  # noqa: ANN001
    for text in markdown_texts(at):
        assert not BARE_LINK.search(shown(text)), text


@pytest.fixture
def separated_db(db: Path) -> Path:
    store = open_store(f"sqlite:///{db}")
    store.import_frame(pd.DataFrame([
        {"benchmark": SEP_BENCH, "system": s, "example_id": f"ex{j}", "metric": "acc",
         "value": float((7 * j + 3 * i) % 5 != 0), "family": f"f{i % 2}"}
        for i, s in enumerate(SEPARATED) for j in range(30)]), filename="sep.csv")
    store.close()
    return db


@pytest.mark.slow
@pytest.mark.parametrize("page", ["views/leaderboard.py", "views/pairwise.py", "views/methods.py"])
def test_url_in_alpha_is_plain_text(db: Path, page: str) -> None:
    at = app(page, alpha=f"0.05{EVIL_URL}")
    no_exception(at)
    warned = [w.value for w in at.warning if "alpha" in w.value]
    assert warned, "the bad parameter is reported"
    assert "evil" in shown(warned[0]), "shown as the text it is"
    assert_no_bare_link(at)


@pytest.mark.parametrize("page", ALL_PAGES)
@pytest.mark.slow
def test_line_separators_and_urls_in_names_render_every_page(separated_db: Path,
                                                             page: str) -> None:
    at = app(page, benchmark=SEP_BENCH, a=SEPARATED[0], b=SEPARATED[2], base=SEPARATED[0],
             cand=SEPARATED[1], boot="200", alpha=f"0.05{EVIL_URL}")
    no_exception(at)
    assert not [e.value for e in at.error if "chart" in e.value.lower()]
    assert_no_bare_link(at)


@pytest.mark.slow
def test_url_in_a_system_name_is_plain_in_the_pair_sentence(separated_db: Path) -> None:
    at = app("views/pairwise.py", benchmark=SEP_BENCH, a=SEPARATED[2], b=SEPARATED[0])
    no_exception(at)
    sentence = next(m.value for m in at.markdown if "beats" in m.value or "tie" in m.value)
    assert "evil" in shown(sentence)
    assert_no_bare_link(at)


@pytest.mark.slow
def test_line_separator_names_draw_the_mechanisms_charts(separated_db: Path) -> None:
    at = app("views/mechanisms.py", benchmark=SEP_BENCH)
    no_exception(at)
    drawn = pictures(at)
    assert drawn and all("\u2028" not in svg for svg in drawn)
    assert any("line sep-model" in svg for svg in drawn), "the name, its separator a space"


@pytest.mark.slow
def test_src_url_in_a_name_keeps_the_interactive_graph(separated_db: Path) -> None:
    at = app("views/leaderboard.py", benchmark=SEP_BENCH, graph="interactive")
    no_exception(at)
    frames = at.get("iframe")
    assert frames, "the interactive graph is drawn"
    page = frames[0].proto.srcdoc
    nodes = json.loads(re.search(r"nodes = new vis\.DataSet\((\[.*?\])\);", page, re.S).group(1))
    assert SEPARATED[3] in {n["label"] for n in nodes}, "the name as itself"


# ------------------------------------------------ issue #33 item 6: a store that cannot be used

def test_unreachable_database_is_one_message_without_the_password(
        db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SIGBOARD_DB_URL", "postgresql://reader:s3cr:et@pw99@127.0.0.1:1/r")
    at = app()
    assert not at.exception, [e.value for e in at.exception]
    errors = [e.value for e in at.error]
    assert any("cannot use the results store" in e for e in errors), errors
    shown = " ".join(errors + markdown_texts(at))
    assert "s3cr" not in shown and "pw99" not in shown, shown


# ------------------------------------------------ issue #33 item 4: token guessing

def test_token_guesses_are_throttled_per_address_and_overall(
        caplog: pytest.LogCaptureFixture) -> None:
    from app import auth

    throttle, now = auth.Throttle(), 1000.0
    waits = [throttle.record_failure("10.0.0.1", now) for _ in range(6)]
    assert waits[:2] == [0.0, 0.0] and waits[2:] == [5.0, 10.0, 20.0, 40.0], "doubling"
    assert throttle.retry_in("10.0.0.1", now) == 40.0
    assert throttle.retry_in("10.0.0.2", now) == 0.0, "another address may still try"
    assert throttle.retry_in("10.0.0.1", now + auth.FORGET_AFTER + 41) == 0.0, "forgotten"
    many = auth.Throttle()
    for i in range(auth.GLOBAL_FREE_TRIES + 10):  # one guess from each of many addresses
        last = many.record_failure(f"10.1.{i // 250}.{i % 250}", now)
    assert many.retry_in("10.9.9.9", now) == last == auth.GLOBAL_MAX_WAIT, \
        "a fresh address waits too once all clients together guessed too often; capped"
    assert any("wrong upload token from 10.0.0.1" in r.getMessage() for r in caplog.records)


@pytest.mark.slow
def test_fresh_sessions_share_the_address_limit(db: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    from app import auth

    monkeypatch.setattr(auth, "GUESSES", auth.Throttle())
    monkeypatch.setenv("SIGBOARD_UPLOAD_TOKEN", "the-real-token")
    refused = []
    for i in range(auth.FREE_TRIES + 1):  # a new session (AppTest) for every guess
        at = app("views/upload.py")
        at.text_input(key="sigboard_upload_unlock_field").input(f"guess-{i}").run()
        refused.append(" ".join(e.value for e in at.error))
    assert "try again in" in refused[-1], refused
    at = app("views/upload.py")  # even the right token waits while the address is throttled
    at.text_input(key="sigboard_upload_unlock_field").input("the-real-token").run()
    assert not at.get("file_uploader") and "try again in" in " ".join(e.value for e in at.error)


# ------------------------------------------- issue #33 items 3 and 8: the server's own endpoints

def _asgi(guard_allowed: bool, path: str, method: str = "GET",
          metrics: str = "") -> tuple[int, bool]:
    """(status, whether the wrapped app was reached) of one request through the Guard."""
    import asyncio

    from app.fast_start import Guard

    reached: list[bool] = []
    sent: list[dict] = []

    async def inner(scope, receive, send):  # noqa: ANN001, ANN202
        reached.append(True)
        await send({"type": "http.response.start", "status": 200, "headers": []})

    async def send(message):  # noqa: ANN001, ANN202
        sent.append(message)

    async def receive():  # noqa: ANN202
        raise AssertionError("the body of a refused request is never read")

    guard = Guard(inner, base_path=lambda: "", allowed=lambda session: guard_allowed)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("SIGBOARD_METRICS", metrics)
        asyncio.run(guard({"type": "http", "method": method, "path": path}, receive, send))
    return int(sent[0]["status"]), bool(reached)


def test_metrics_endpoint_is_off_unless_asked_for() -> None:
    assert _asgi(True, "/_stcore/metrics") == (404, False)
    assert _asgi(True, "/_stcore/metrics", metrics="1") == (200, True)
    assert _asgi(True, "/_stcore/health") == (200, True)


def test_upload_endpoint_refuses_sessions_that_may_not_upload() -> None:
    assert _asgi(False, "/_stcore/upload_file/s1/f1", "PUT") == (403, False)
    assert _asgi(True, "/_stcore/upload_file/s1/f1", "PUT") == (200, True)
    assert _asgi(False, "/_stcore/upload_file/s1/f1", "DELETE") == (200, True), \
        "removing a staged file is harmless"
    assert _asgi(False, "/leaderboard") == (200, True)


def test_upload_session_allowed_follows_the_policy() -> None:
    from app import auth
    from app.config import Settings

    open_server = Settings(db_url="sqlite://")
    assert auth.upload_session_allowed("any", open_server)
    closed = Settings(db_url="sqlite://", upload_token="tok")
    assert not auth.upload_session_allowed("never-unlocked", closed)
    auth._UNLOCKED["unlocked-session"] = 0.0
    try:
        assert auth.upload_session_allowed("unlocked-session", closed)
    finally:
        del auth._UNLOCKED["unlocked-session"]


@pytest.mark.slow
def test_upload_flood_without_the_token_leaves_the_server_small(tmp_path: Path) -> None:
    """The report's attack on a real server (app/server.py): 40 MiB files PUT to the upload
    endpoint by sessions without the token (16 here; benchmarks/bench_hostile.py runs 80)."""
    import os
    import socket
    import subprocess
    import sys
    import time
    import urllib.error
    import urllib.request

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    root = Path(__file__).resolve().parents[2]
    env = {k: v for k, v in os.environ.items() if not k.startswith("SIGBOARD_")}
    env.update(SIGBOARD_DB_PATH=str(tmp_path / "s.db"), SIGBOARD_UPLOAD_TOKEN="tok",
               STREAMLIT_BROWSER_GATHER_USAGE_STATS="false")
    proc = subprocess.Popen([sys.executable, "-m", "streamlit", "run", "app/server.py",
                             "--server.address", "127.0.0.1", "--server.port", str(port),
                             "--server.headless", "true"], cwd=root, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(120):
            try:
                urllib.request.urlopen(f"{url}/_stcore/health", timeout=2).read()
                break
            except OSError:
                time.sleep(0.5)
        body = b"--b\r\nContent-Disposition: form-data; name=\"files[]\"; filename=\"x.csv\"\r\n" \
            b"\r\n" + b"0" * (40 << 20) + b"\r\n--b--\r\n"
        statuses = []
        for i in range(16):
            request = urllib.request.Request(
                f"{url}/_stcore/upload_file/s{i}/f{i}", data=body, method="PUT",
                headers={"Content-Type": "multipart/form-data; boundary=b"})
            try:
                statuses.append(urllib.request.urlopen(request, timeout=60).status)
            except urllib.error.HTTPError as exc:
                statuses.append(exc.code)
            except OSError:
                statuses.append(0)  # the server closed the socket on the unread body
        small = urllib.request.Request(f"{url}/_stcore/upload_file/s/f", data=b"x", method="PUT")
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(small, timeout=10)
        assert refused.value.code == 403
        with pytest.raises(urllib.error.HTTPError) as metrics:
            urllib.request.urlopen(f"{url}/_stcore/metrics", timeout=5)
        assert metrics.value.code == 404
        rss = int(next(line.split()[1] for line in Path(f"/proc/{proc.pid}/status").read_text()
                       .splitlines() if line.startswith("VmHWM")))
        assert proc.poll() is None, "the server is up"
        assert set(statuses) <= {403, 0}, statuses
        assert rss < (1 << 20), f"peak RSS {rss} kB"
    finally:
        proc.kill()
        proc.wait()


# ------------------------------------------- issue #33 item 3: byte budgets, token or not

def _budget_put(budget: object, session: str, size: int | None) -> tuple[int, bool]:
    """(status, whether the wrapped app answered) of one upload through UploadBudget."""
    import asyncio

    sent: list[dict] = []

    async def send(message):  # noqa: ANN001, ANN202
        sent.append(message)

    async def receive():  # noqa: ANN202
        raise AssertionError("the body of an upload is never read here")

    headers = [] if size is None else [(b"content-length", str(size).encode())]
    scope = {"type": "http", "method": "PUT", "path": f"/_stcore/upload_file/{session}/f",
             "headers": headers}
    asyncio.run(budget(scope, receive, send))  # type: ignore[operator]
    return int(sent[0]["status"]), sent[0].get("headers") == []  # [] only from _passing


def test_upload_budgets_per_session_and_for_the_server() -> None:
    from app.upload_budget import Budgets, UploadBudget

    held = {"a": 150 << 20, "b": 300 << 20}  # what Streamlit already holds, per session

    budget = UploadBudget(_passing, Budgets(session=200 << 20, server=512 << 20),
                          held=lambda: held, base_path=lambda: "")
    assert _budget_put(budget, "a", 40 << 20) == (204, True)  # 190 of 200 MiB, 490 of 512
    held["a"] += 40 << 20  # Streamlit now holds it
    assert _budget_put(budget, "a", 20 << 20) == (413, False)  # past the session's 200
    assert _budget_put(budget, "c", 30 << 20) == (503, False)  # past the server's 512
    assert _budget_put(budget, "c", 20 << 20) == (204, True)  # fits both
    budget.in_flight["d"] = 22 << 20  # an upload still arriving counts too
    assert _budget_put(budget, "c", 1 << 20) == (503, False)
    del budget.in_flight["d"]
    assert _budget_put(budget, "c", None) == (411, False)  # no Content-Length: size unknown
    assert budget.in_flight == {}, "a finished upload no longer counts as in flight"


async def _passing(scope, receive, send):  # noqa: ANN001, ANN202
    await send({"type": "http.response.start", "status": 204, "headers": []})


def test_upload_budgets_read_the_environment() -> None:
    from app.upload_budget import Budgets

    budgets = Budgets.from_env({"SIGBOARD_SESSION_UPLOAD_BUDGET": "64M",
                                "SIGBOARD_UPLOAD_BUDGET": "1G"})
    assert (budgets.session, budgets.server) == (64 << 20, 1 << 30)
    assert Budgets.from_env({}) == Budgets(session=200 << 20, server=384 << 20)


# ------------------------------------------- issue #33 item 7: the viewers' read-only connection

def _two_system_frame(names: tuple[str, str]) -> pd.DataFrame:
    return pd.DataFrame({"benchmark": "viewed", "metric": "acc", "system": [*names, *names],
                         "example_id": ["e1", "e1", "e2", "e2"], "value": [1.0, 0.0, 1.0, 1.0]})


@pytest.mark.slow
@pytest.mark.parametrize("backend", ["sqlite", pytest.param("postgres",
                                                            marks=pytest.mark.postgres)])
def test_pages_read_through_the_viewer_connection(tmp_path: Path, backend: str,
                                                  request: pytest.FixtureRequest) -> None:
    from apptest_support import ranked

    from app.config import Settings

    if backend == "sqlite":  # two files: the pages must show the viewer's, not the writer's
        writer_url, viewer_url = (f"sqlite:///{tmp_path / 'w.db'}",
                                  f"sqlite:///{tmp_path / 'v.db'}")
        open_store(viewer_url).import_frame(_two_system_frame(("viewer-A", "viewer-B")),
                                            filename="v.csv")
    else:  # one database: the viewer connection is read-only at the server
        writer_url = viewer_url = str(request.getfixturevalue("pg_url"))
        open_store(writer_url).import_frame(_two_system_frame(("viewer-A", "viewer-B")),
                                            filename="v.csv")
    with pytest.MonkeyPatch.context() as mp:
        for name in ("SIGBOARD_DB_PATH", "SIGBOARD_UPLOAD_TOKEN", "SIGBOARD_UPLOAD_ALLOW"):
            mp.delenv(name, raising=False)
        mp.setenv("SIGBOARD_DB_URL", writer_url)
        mp.setenv("SIGBOARD_VIEWER_DB_URL", viewer_url)
        at = app("views/leaderboard.py", benchmark="viewed", metric="acc")
        no_exception(at)
        board, _ = ranked(at)
        assert set(board["system"]) == {"viewer-A", "viewer-B"}
    settings = Settings.from_env({"SIGBOARD_DB_URL": writer_url,
                                  "SIGBOARD_VIEWER_DB_URL": viewer_url})
    assert settings.viewer_db_url == viewer_url and viewer_url not in repr(settings)


@pytest.mark.slow
def test_upload_flood_on_an_open_server_stays_within_the_budget(tmp_path: Path) -> None:
    """No token: 20 live sessions each PUT 40 MiB to a real server (app/server.py) under a
    120 MiB budget; 2 fit (a third's form data is past 120 MiB with the first two held), the
    rest are refused before their body is read, the server stays
    up and small (``benchmarks/bench_hostile.py --flood 80`` runs the report's 80)."""
    import asyncio
    import importlib.util

    root = Path(__file__).resolve().parents[2]
    spec = importlib.util.spec_from_file_location("bench_hostile_flood",
                                                  root / "benchmarks" / "bench_hostile.py")
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    proc, port = bench._serve(str(tmp_path), {"SIGBOARD_UPLOAD_BUDGET": "120M"})

    async def flood() -> list[int]:
        sockets, statuses = [], []
        for i in range(20):
            ws, session = await bench._live_session(port)
            sockets.append(ws)
            statuses.append(await asyncio.to_thread(bench._put, port, session, i, 40 << 20))
        for ws in sockets:
            await ws.close()
        return statuses

    try:
        statuses = asyncio.run(flood())
        peak_kb = bench._status_kb(proc.pid, "VmHWM")
        assert proc.poll() is None, "the server is up"
    finally:
        proc.kill()
        proc.wait()
    assert statuses.count(204) == 2 and set(statuses) <= {204, 503, 0}, statuses
    assert peak_kb < 700 << 10, f"peak RSS {peak_kb} kB"
