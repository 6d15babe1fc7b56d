"""AppTest of a battle list end to end (issue #32, item 4): uploaded on the Upload page,
committed to the store, its arena leaderboard on the Leaderboard page and its win rates
on Mechanisms. Expected values: the engine's arena_ratings / win_rate_matrix of the same
battles (those are tested against FastChat's computation in tests/engine/test_battles.py).
"""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from apptest_support import app, no_exception

from engine import arena_ratings, read_battles, win_rate_matrix

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


@pytest.mark.slow
def test_battles_upload_commit_and_arena_pages(db: Path) -> None:
    content = _battles_csv()
    at = app("views/upload.py")
    at.file_uploader(key="upload_files").upload("chatbot-arena.csv", content,
                                                "application/octet-stream")
    at.run()
    no_exception(at)
    assert any("600 battles among 5 models" in s.value for s in at.success)
    [b for b in at.get("form_submit_button") if "Commit battles" in b.proto.label][0].click()
    at.run()
    no_exception(at)
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
