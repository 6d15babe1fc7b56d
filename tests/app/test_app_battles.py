"""AppTest of a battle list end to end (issue #32, item 4): uploaded on the Upload page,
committed to the store, its arena leaderboard on the Leaderboard page and its win rates
on Mechanisms. Expected values: the engine's arena_ratings / win_rate_matrix of the same
battles (those are tested against FastChat's computation in tests/engine/ranking/test_battles.py).
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from apptest_support import app, no_exception
from streamlit.testing.v1 import AppTest

from engine import arena_ratings, read_battles
from engine.app_support import win_rate_matrix

MODELS = ["gpt-4-turbo", "claude-3-opus", "<b>mixtral</b>", "llama-3-70b-instruct", "gemini-pro"]


def _battles_csv(n: int = 600, seed: int = 4) -> bytes:
    """A battle list in LMArena's format (winner model_a / model_b / tie / tie (bothbad))."""
    rng = np.random.default_rng(seed)
    skill = np.linspace(1.0, -1.0, len(MODELS))
    a = rng.integers(0, len(MODELS), n)
    b = (a + rng.integers(1, len(MODELS), n)) % len(MODELS)
    p = 1 / (1 + np.exp(skill[b] - skill[a]))
    u = rng.random(n)
    winner = np.where(u < 0.85 * p, "model_a",
                      np.where(u > 1 - 0.85 * (1 - p), "model_b", "tie (bothbad)"))
    names = np.asarray(MODELS)
    frame = pd.DataFrame({"model_a": names[a], "model_b": names[b], "winner": winner})
    return frame.to_csv(index=False).encode()


def _uploaded(name: str, content: bytes, mime: str = "application/octet-stream") -> AppTest:
    """The Upload page after ``content`` was uploaded as ``name``, without an exception."""
    at = app("views/upload.py")
    at.file_uploader(key="upload_files").upload(name, content, mime)
    at.run()
    no_exception(at)
    return at


def _commit_buttons(at: AppTest) -> list[Any]:
    return [b for b in at.get("form_submit_button") if "Commit battles" in b.proto.label]


def _commit(at: AppTest) -> None:
    """Click the battle list's commit button and run the page, without an exception."""
    _commit_buttons(at)[0].click()
    at.run()
    no_exception(at)


@pytest.mark.slow
def test_battles_upload_commit_and_arena_pages(db: Path) -> None:
    content = _battles_csv()
    at = _uploaded("chatbot-arena.csv", content)
    assert any("600 battles among 5 models" in s.value for s in at.success)
    _commit(at)
    assert any("600 battles stored as upload" in s.value and "chatbot" in s.value
               for s in at.success)  # names are Markdown-escaped: chatbot\-arena

    want = arena_ratings(read_battles(io.BytesIO(content), name="chatbot-arena.csv")).table
    board = app("views/leaderboard.py")
    no_exception(board)
    shown = [d.value for d in board.dataframe if "Rating" in d.value.columns]
    assert len(shown) == 1
    got = shown[0]
    assert got["Model"].tolist() == want["system"].tolist()  # names verbatim, rating order
    np.testing.assert_allclose(got["Rating"], want["rating"], rtol=0, atol=1e-9)
    np.testing.assert_allclose(got["Low"], want["rating_low"], rtol=0, atol=1e-9)

    mech = app("views/mechanisms.py")
    no_exception(mech)
    rates = [d.value for d in mech.dataframe if "<b>mixtral</b>" in list(d.value.columns)]
    assert len(rates) == 1
    counts = arena_ratings(read_battles(io.BytesIO(content), name="x.csv")).counts
    full = pd.DataFrame(win_rate_matrix(counts), index=list(counts.systems),
                        columns=list(counts.systems))
    order = want["system"].tolist()
    np.testing.assert_allclose(rates[0].to_numpy(float), full.loc[order, order].to_numpy(),
                               rtol=0, atol=1e-12)


def _in_format(kind: str, content: bytes) -> tuple[str, bytes]:
    """The same battle list as Parquet, a JSON array (pretty-printed, so no first line
    names the columns), gzipped JSON Lines, or a zip holding the Parquet file."""
    import gzip
    import zipfile

    frame = pd.read_csv(io.BytesIO(content))
    if kind == "parquet":
        buf = io.BytesIO()
        frame.to_parquet(buf)
        return "arena.parquet", buf.getvalue()
    if kind == "json":
        return "arena.json", frame.to_json(orient="records", indent=2).encode()
    if kind == "jsonl.gz":
        return "arena.jsonl.gz", gzip.compress(frame.to_json(orient="records", lines=True).encode())
    parquet = _in_format("parquet", content)[1]
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("exports/arena.parquet", parquet)
    return "arena.zip", buf.getvalue()


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["parquet", "json", "jsonl.gz", "zip"])
def test_battles_upload_in_every_format(db: Path, kind: str) -> None:
    """A battle list in Parquet, JSON, gzipped JSON Lines or a zip holding one (parsed in the
    capped child like any table) is recognised and committed; the stored battles are the
    CSV's (expected: read_battles of the CSV, the engine's reference reader)."""
    content = _battles_csv(n=300, seed=9)
    name, data = _in_format(kind, content)
    at = _uploaded(name, data)
    assert any("300 battles among 5 models" in s.value for s in at.success), \
        [e.value for e in at.error]
    _commit(at)
    assert any("300 battles stored as upload" in s.value for s in at.success)

    from engine.store import open_store

    stored = open_store(f"sqlite:///{db}").load_battles("arena")
    want = read_battles(io.BytesIO(content), name="arena.csv")
    for column in ("model_a", "model_b", "winner"):
        assert stored[column].tolist() == want[column].tolist()


@pytest.mark.slow
def test_battle_problems_in_json_are_the_battle_lists(db: Path) -> None:
    """A JSON battle list with a bad winner names that rule, not a harness
    log's or a results table's missing value column; nothing is stored."""
    frame = pd.read_csv(io.BytesIO(_battles_csv(n=20)))
    frame.loc[3, "winner"] = "nobody"
    at = _uploaded("arena.json", frame.to_json(orient="records").encode())
    shown = " ".join(m.value for m in at.markdown)
    assert "winner must be one of" in shown and "rows 4" in shown
    assert "value column" not in shown
    assert not _commit_buttons(at)


@pytest.mark.slow
def test_judged_battles_show_the_corrected_ratings(db: Path) -> None:
    # #31 (Boyeau et al.): a battle list with the judge's winner on every battle and human
    # verdicts on a random 20%; the Leaderboard shows the engine's PPI++ Bradley-Terry board
    from engine.app_support import judge_battle_board, judged_battles

    rng = np.random.default_rng(9)
    frame = pd.read_csv(io.BytesIO(_battles_csv(1500, 9)))
    human = frame["winner"].where(rng.random(len(frame)) < 0.8,
                                  np.where(rng.random(len(frame)) < 0.5, "model_a", "model_b"))
    frame["human_winner"] = np.where(rng.random(len(frame)) < 0.2, human, "")
    content = frame.to_csv(index=False).encode()
    at = _uploaded("judged.csv", content, "text/csv")
    assert any("have a human verdict" in i.value for i in at.info)
    _commit(at)
    want = judge_battle_board(judged_battles(pd.read_csv(io.BytesIO(content),
                                                         keep_default_na=False))).table
    board = app("views/leaderboard.py")
    no_exception(board)
    shown = [d.value for d in board.dataframe if "Corrected rating" in d.value.columns]
    assert len(shown) == 1
    assert shown[0]["Model"].tolist() == want["system"].tolist()
    np.testing.assert_allclose(shown[0]["Corrected rating"], want["ppi_rating"], atol=1e-9)
    np.testing.assert_allclose(shown[0]["Low"], want["ppi_low"], atol=1e-9)
    assert shown[0]["Human verdicts"].tolist() == want["n_human"].tolist()
