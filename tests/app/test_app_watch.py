"""AppTests of the Watch page (issue #30): the champion against every challenger as
confidence sequences over uploads, e-BH across them, a chart per sequence; and the one-look
note of the fixed-n pages when a metric's data came in several uploads. Synthetic store:
4 systems × 3 uploads of 150 examples (0/1 scores)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from apptest_support import app, no_exception, pictures

from engine import open_store, watch_board
from engine.stats._ebh import e_bh

PAGE = "views/watch.py"
RATES = {"champ": 0.8, "close": 0.78, "weak": 0.55, "weaker": 0.5}


def _uploads() -> list[pd.DataFrame]:
    rng = np.random.default_rng(12)
    out = []
    for k in range(3):
        ex = [f"e{i}" for i in range(k * 150, (k + 1) * 150)]
        out.append(pd.concat([pd.DataFrame({
            "benchmark": "arrive", "metric": "acc", "system": s, "example_id": ex,
            "value": rng.binomial(1, p, 150).astype(float)}) for s, p in RATES.items()]))
    return out


@contextmanager
def _env(path: Path, frames: list[pd.DataFrame]) -> Iterator[Path]:
    store = open_store(f"sqlite:///{path}")
    for i, frame in enumerate(frames):
        store.import_frame(frame, filename=f"batch{i}.csv")
    store.close()
    with pytest.MonkeyPatch.context() as mp:
        for name in ("SIGBOARD_DB_URL", "SIGBOARD_UPLOAD_TOKEN", "SIGBOARD_UPLOAD_ALLOW"):
            mp.delenv(name, raising=False)
        mp.setenv("SIGBOARD_DB_PATH", str(path))
        yield path


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    with _env(tmp_path_factory.mktemp("watch") / "sigboard.db", _uploads()) as path:
        yield path


@pytest.mark.slow
def test_the_board_matches_the_engine_and_draws_a_chart_per_challenger(store: Path) -> None:
    at = app(PAGE, benchmark="arrive")
    no_exception(at)
    assert at.title[0].value.startswith("Watch")
    ref = watch_board(open_store(f"sqlite:///{store}"), "arrive", "acc", keep=False)
    assert ref.champion == "champ" and at.selectbox(key="url_base").value == "champ"
    shown = at.dataframe[0].value
    assert shown["challenger"].tolist() == ref.table["challenger"].tolist()
    # 0/1 scores: the interval in percentage points, as on Pairwise and A/B compare
    np.testing.assert_allclose(shown["low (points)"], 100 * ref.table["cs_low"], rtol=1e-12)
    np.testing.assert_allclose(shown["high (points)"], 100 * ref.table["cs_high"], rtol=1e-12)
    assert shown["e-BH"].tolist() == e_bh(ref.table["e_value"], alpha=0.05).rejected.tolist()
    assert {"weak", "weaker"} <= set(shown.loc[shown["e-BH"], "challenger"])
    svgs = pictures(at)
    assert len(svgs) == len(at.expander) == 3, "a chart per challenger, each in an expander"
    assert all(svg.count("<rect") == 3 for svg in svgs), "one band per upload"
    assert "0 excluded at" in svgs[-1]
    assert any("e-BH caveat" in c.value for c in at.caption)
    # the page wrote nothing: a view must not change the data version
    assert open_store(f"sqlite:///{store}").watched().empty


@pytest.mark.slow
def test_the_champion_comes_from_the_url(store: Path) -> None:
    at = app(PAGE, benchmark="arrive", base="weak")
    no_exception(at)
    assert at.selectbox(key="url_base").value == "weak"
    assert "champ" in at.dataframe[0].value["challenger"].tolist()
    bad = app(PAGE, benchmark="arrive", base="nobody")
    no_exception(bad)
    assert bad.selectbox(key="url_base").value == "champ"


@pytest.mark.parametrize("page", ["views/leaderboard.py", "views/pairwise.py",
                                  "views/compare.py"])
@pytest.mark.slow
def test_fixed_n_pages_say_they_assume_one_look(store: Path, page: str) -> None:
    at = app(page, benchmark="arrive")
    no_exception(at)
    assert any("arrived in 3 uploads" in c.value for c in at.caption), page


def test_methods_explain_watching_and_the_e_bh_caveat(store: Path) -> None:
    at = app("views/methods.py")
    no_exception(at)
    text = "\n".join(m.value for m in at.markdown)
    assert "Watching as results arrive" in text and "e-BH" in text
    assert "not for everything ever" in text and "Waudby-Smith" in text
