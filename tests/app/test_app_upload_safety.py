"""AppTests of the Upload page's data safety (issues #13, #14 item 4, #17).

Each test fails on the page before this change: deletes confirmed once stayed
confirmed, conflicts appeared only after Commit, names were rendered as Markdown,
harness logs could not be uploaded, token guesses were not throttled. Frames are built
in the tests; harness fixtures are tests/data/harness-logs/<format>/ with their
expected_long.csv (FORMATS.md there cites each harness's source).
"""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from apptest_support import app, no_exception
from streamlit.testing.v1 import AppTest

from engine._contract import USAGE_METRICS
from engine.store import open_store

ROOT = Path(__file__).resolve().parents[2]
LOGS = ROOT / "tests" / "data" / "harness-logs"
FOLDERS = ["helm", "inspect", "lighteval", "lm_eval", "openai_evals", "promptfoo"]
EVIL = "[Session expired](http://evil)![x](http://evil/u.png)"


def csv(systems: list[str], examples: int, *, bench: str = "safety", seed: int = 0) -> bytes:
    rng = np.random.default_rng(seed)
    rows = [(bench, s, f"q{e}", "acc", float(rng.random() < 0.5))
            for s in systems for e in range(examples)]
    frame = pd.DataFrame(rows, columns=["benchmark", "system", "example_id", "metric", "value"])
    return frame.to_csv(index=False).encode()


def upload(at: AppTest, *files: tuple[str, bytes]) -> AppTest:
    uploader = at.file_uploader(key="upload_files")
    for name, data in files:
        uploader.upload(name, data, "application/octet-stream")
    return at.run()


def commit(at: AppTest, policy: str | None = None) -> AppTest:
    if policy is not None:
        [r for r in at.radio if r.key and r.key.startswith("conflict-")][0].set_value(policy)
    [b for b in at.get("form_submit_button") if "Commit" in b.proto.label][0].click()
    return at.run()


def texts(at: AppTest) -> list[str]:
    """Every Markdown body and widget label on the page (where Markdown is rendered)."""
    out = [m.value for m in at.markdown] + [c.value for c in at.caption]
    out += [e.value for e in (*at.success, *at.info, *at.warning, *at.error)]
    for kind in ("radio", "selectbox", "text_input", "checkbox", "button"):
        out += [str(w.label) for w in at.get(kind)]
    return out


@pytest.mark.slow
def test_each_delete_needs_its_own_typed_confirmation(db: Path) -> None:
    store = open_store(f"sqlite:///{db}")
    first = store.import_frame(pd.read_csv(io.BytesIO(csv(["A", "B"], 5))),
                               filename="one.csv").upload_id
    second = store.import_frame(pd.read_csv(io.BytesIO(csv(["C"], 5, bench="other"))),
                                filename="two.csv").upload_id
    at = app("views/upload.py")
    assert at.selectbox(key="delete-which").value == second
    assert any("removes 5 rows" in t.value for t in at.text)  # says what goes, first
    at.button(key="delete-button").click().run()  # no confirmation typed
    no_exception(at)
    assert any("nothing was deleted" in w.value for w in at.warning)
    assert second in store.uploads()["upload_id"].tolist()
    at.text_input(key=f"confirm-delete-{second}").input(str(second)).run()
    at.button(key="delete-button").click().run()
    no_exception(at)
    assert second not in store.uploads()["upload_id"].tolist()
    # the selector moves on; one more click without a new confirmation deletes nothing
    assert at.selectbox(key="delete-which").value == first
    at.button(key="delete-button").click().run()
    assert first in store.uploads()["upload_id"].tolist()
    # and the delete is undoable
    at.selectbox(key="restore-which").set_value(second).run()
    at.button(key="restore-button").click().run()
    no_exception(at)
    assert second in store.uploads()["upload_id"].tolist()


@pytest.mark.slow
def test_preview_shows_conflicts_and_what_was_found_before_commit(db: Path) -> None:
    at = upload(app("views/upload.py"), ("one.csv", csv(["A", "B"], 6)))
    no_exception(at)
    assert any("No conflicts" in i.value for i in at.info)
    found = " ".join(t.value for t in at.text)
    assert "2 systems" in found and "1 benchmarks" in found and "1 run(s)" in found
    commit(at)
    assert any("stored as upload" in s.value for s in at.success)
    uploaded = [d.value for d in at.dataframe if "filename" in d.value.columns]
    assert uploaded and uploaded[0]["filename"].iloc[0] == "one.csv"  # refreshed at once
    assert "+00:00" not in str(uploaded[0]["uploaded"].iloc[0])  # local, readable
    # a second file with a gap and a collision: both shown before anything is stored
    clash = pd.read_csv(io.BytesIO(csv(["B", "C"], 6, seed=3)))
    clash = clash[~((clash["system"] == "C") & (clash["example_id"] == "q5"))]
    at2 = upload(app("views/upload.py"), ("two.csv", clash.to_csv(index=False).encode()))
    no_exception(at2)
    assert any("6 rows collide" in w.value for w in at2.warning)
    gaps = [d.value for d in at2.dataframe if "missing examples" in d.value.columns]
    assert gaps and gaps[0][["system", "first missing"]].values.tolist() == [["C", "q5"]]


@pytest.mark.slow
def test_user_strings_render_inert(db: Path) -> None:
    at = upload(app("views/upload.py"), (f"{EVIL}.csv", csv([EVIL, "B"], 4, bench=EVIL)))
    no_exception(at)
    commit(at)
    no_exception(at)
    for body in texts(at):
        assert "](http" not in body and "<img" not in body, body


@pytest.mark.slow
def test_metric_definition_editable_after_upload(db: Path) -> None:
    store = open_store(f"sqlite:///{db}")
    store.import_frame(pd.read_csv(io.BytesIO(csv(["A", "B"], 4))), filename="one.csv")
    at = app("views/upload.py")
    options = at.selectbox(key="edit-metric").options
    index = [i for i, o in enumerate(options) if o.startswith("safety")][0]
    at.selectbox(key="edit-metric").set_value(index).run()
    [r for r in at.radio if r.label == "Better is"][0].set_value("lower")
    [b for b in at.get("form_submit_button") if "Save" in b.proto.label][0].click()
    version = store.data_version()
    at.run()
    no_exception(at)
    assert store.metric_spec("safety", "acc").higher_is_better is False
    assert store.data_version() != version
    assert store.metric_history("safety", "acc")["reason"].tolist() == ["edited"]


@pytest.mark.slow
def test_a_staged_file_is_parsed_once(db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import app.components.upload_read as page

    calls: list[str] = []
    real = page.ingest  # the one read, in the capped child (engine.ingest)

    def counted(*args, **kwargs):  # type: ignore[no-untyped-def]
        calls.append(args[0][0])
        assert kwargs.get("limits") is not None
        return real(*args, **kwargs)

    monkeypatch.setattr(page, "ingest", counted)
    at = upload(app("views/upload.py"), ("one.csv", csv(["A", "B"], 4)))
    [r for r in at.radio if r.label.endswith("better is")][0].set_value("lower").run()
    at.text_input(key="upload_system").input("").run()
    no_exception(at)
    assert calls == ["one.csv"]


def _one_member_zip(name: str, data: bytes) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr(name, data)
    return buf.getvalue()


@pytest.mark.slow
@pytest.mark.parametrize("member", ["exports/one.csv", "arena.csv"])
def test_a_zip_of_one_table_is_parsed_once(db: Path, monkeypatch: pytest.MonkeyPatch,
                                           member: str) -> None:
    """A zip holding one results CSV or one battle list is parsed once, in the capped child
    (#27): that parse is the upload (a zipped results table used to be parsed twice and
    then refused as "a ZIP archive"); the results committed are the CSV's."""
    import subprocess

    import app.components.upload_read as page

    calls: list[str] = []
    real = page.ingest

    def counted(*args, **kwargs):  # type: ignore[no-untyped-def]
        calls.append(str(args[0][0]))
        return real(*args, **kwargs)

    children: list[str] = []

    class Child(subprocess.Popen):  # type: ignore[type-arg]
        def __init__(self, argv, *args, **kwargs):  # type: ignore[no-untyped-def]
            children.append(argv[2])
            super().__init__(argv, *args, **kwargs)

    monkeypatch.setattr(page, "ingest", counted)
    monkeypatch.setattr(subprocess, "Popen", Child)
    battles = member == "arena.csv"
    content = (b"model_a,model_b,winner\nA,B,model_a\nB,A,tie\n" if battles
               else csv(["A", "B"], 4, bench="zipped"))
    at = upload(app("views/upload.py"), ("results.zip", _one_member_zip(member, content)))
    no_exception(at)
    assert calls == ["results.zip"] and children == ["engine.intake._child"]
    if battles:
        assert any("2 battles among 2 models" in s.value for s in at.success)
        return
    commit(at)
    no_exception(at)
    stored = open_store(f"sqlite:///{db}").load_frame(benchmark="zipped")
    want = pd.read_csv(io.BytesIO(content))
    assert stored[["system", "example_id", "value"]].values.tolist() == \
        want[["system", "example_id", "value"]].values.tolist()


def test_token_guesses_are_throttled(db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SIGBOARD_UPLOAD_TOKEN", "s3cret-token")
    at = app("views/upload.py")
    field = "sigboard_upload_unlock_field"
    for i in range(3):
        at.text_input(key=field).input(f"guess-{i}").run()
    assert any("try again in 5 s" in e.value for e in at.error)
    at.text_input(key=field).input("s3cret-token").run()  # refused while waiting
    assert any("try again in" in e.value for e in at.error)
    assert not at.get("file_uploader")  # still locked


def _zip(folder: str) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for p in sorted((LOGS / folder).rglob("*")):
            if p.is_file() and p.name != "expected_long.csv":
                z.write(p, f"{folder}/{p.relative_to(LOGS / folder).as_posix()}")
    return buf.getvalue()


@pytest.mark.parametrize("folder", FOLDERS)
@pytest.mark.slow
def test_harness_folder_zip_stores_its_expected_long(db: Path, folder: str) -> None:
    want = pd.read_csv(LOGS / folder / "expected_long.csv", dtype=str, keep_default_na=False)
    at = upload(app("views/upload.py"), (f"{folder}.zip", _zip(folder)))
    no_exception(at)
    assert not at.error, [e.value for e in at.error]
    assert any(t.value.startswith("Format: ") for t in at.text)
    commit(at)
    no_exception(at)
    assert any("stored as upload" in s.value for s in at.success)
    store = open_store(f"sqlite:///{db}")
    got = pd.concat([store.load_frame(benchmark=b) for b in want["benchmark"].unique()])
    got = got[~got["metric"].isin(USAGE_METRICS)]  # the logs' usage is stored beside the scores
    keys = ["benchmark", "system", "example_id", "metric", "run"]
    want = want.assign(run=want["run"].replace("", "0").astype("int64"),
                       value=want["value"].astype(float))
    merged = want[[*keys, "value"]].merge(got[[*keys, "value"]], on=keys, how="outer",
                                          indicator=True)
    assert (merged["_merge"] == "both").all(), merged[merged["_merge"] != "both"].head()
    np.testing.assert_allclose(merged["value_x"], merged["value_y"], rtol=0, atol=1e-12)
    assert len(got) == len(want)
