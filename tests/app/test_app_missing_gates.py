"""The Watch page and A/B compare on a judge metric when one system lacks examples the other
has: the same "cannot decide" as ``sigboard watch`` / ``sigboard compare`` (exit 2), with the
same sentence, beside the result.

The data: the two uploads of tests/engine/stats/test_watch_missing.py (baseline, then a
candidate whose harness dropped 60 of its 150 failures, no true difference) and the judged
table of tests/engine/products/test_judge_missing.py (the candidate drops about half the
examples its judge scored below 60). Reference: the engine's bounds on the same tables
(:func:`engine.watch_board`, :func:`engine.app_support.judge_gate_bounds`), as the command
line computes them.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from apptest_support import app, no_exception

from engine import judge_board, judge_gate, open_store, watch_board
from engine.app_support import judge_gate_bounds, md_text

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent / "engine" / "stats"), str(HERE.parent / "engine" / "products")]
from test_judge import long_of  # noqa: E402
from test_judge_missing import _complete, _dropped  # type: ignore[import-not-found]  # noqa: E402
from test_watch_missing import _streams  # type: ignore[import-not-found]  # noqa: E402

# every test here takes seconds: ./scripts/test.sh --fast leaves them out
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    path = tmp_path_factory.mktemp("gates") / "sigboard.db"
    one, two, keep = _streams()
    wide = _complete()
    judged = long_of(wide[~_dropped(wide)]).assign(benchmark="judged")
    s = open_store(f"sqlite:///{path}")
    s.import_frame(one.drop(columns="batch"), filename="base.csv")
    s.import_frame(two[keep].drop(columns="batch"), filename="cand.csv")
    s.import_frame(judged, filename="judged.csv")
    s.close()
    with pytest.MonkeyPatch.context() as mp:
        for name in ("SIGBOARD_DB_URL", "SIGBOARD_UPLOAD_TOKEN", "SIGBOARD_UPLOAD_ALLOW"):
            mp.delenv(name, raising=False)
        mp.setenv("SIGBOARD_DB_PATH", str(path))
        yield path


def test_watch_page_cannot_decide_the_challenger(store: Path) -> None:
    ref = watch_board(open_store(f"sqlite:///{store}"), "b", "acc", champion="base",
                      keep=False)
    assert [b.candidate for b in ref.undecided] == ["cand"]
    at = app("views/watch.py", benchmark="b", base="base")
    no_exception(at)
    warnings = [w.value for w in at.warning]
    sentence = md_text(ref.undecided[0].sentence(flag=None))
    assert any("`watch` exits 2" in w and sentence in w for w in warnings), warnings
    assert "**0 of 1**" in " ".join(m.value for m in at.markdown)  # not counted as found


def test_compare_page_judge_gate_cannot_decide(store: Path) -> None:
    frame = open_store(f"sqlite:///{store}").load_frame("judged")
    board = judge_board(frame, judge="judge_score", human="human_score")
    gate = judge_gate(board, baseline="s0", candidate="s1", benchmark="judged",
                      judge="judge_score", human="human_score")
    bounds = judge_gate_bounds(frame, gate)
    assert gate.verdict == "candidate is significantly better" and not bounds.decided
    at = app("views/compare.py", benchmark="judged", metric="judge_score", base="s0",
             cand="s1")
    no_exception(at)
    assert "Cannot decide (the gate exits 2):" in " ".join(m.value for m in at.markdown)
    sentence = md_text(bounds.sentence(flag=None))
    assert any(sentence in w.value for w in at.warning), [w.value for w in at.warning]
    assert not at.success  # no green "significantly better" box
