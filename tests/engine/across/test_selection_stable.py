"""The Overall page's default selection: the exact largest complete block, stable as benchmarks
are added, and said on the page in the engine's own words.

Reference values: the rule itself, applied by brute force over every subset of benchmarks
(``_brute``: cells = systems that ran all of them × benchmarks, at least two systems; ties to
more benchmarks, then to the first positions in data order). The 15-benchmark store mirrors
the demo store with eight small made-up benchmarks added (seven real-like ones: one run by
every system, three run by half of them, three by a few others; eight run by two systems
each), on which the earlier greedy search (over 14 benchmarks) chose the one benchmark every
system ran (12 cells) over the four-benchmark block (24 cells).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from streamlit.testing.v1 import AppTest

from engine.across._coverage import (
    GREEDY_NOTE,
    SELECTION_RULE,
    default_selection,
    systems_by_benchmark,
)
from engine.store import open_store

COLUMNS = ["benchmark", "system", "example_id", "metric", "value"]
SYSTEMS = [f"s{i:02d}" for i in range(12)]


def _frame(ran: Mapping[str, Sequence[str]], examples: int = 1, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = [(b, s, f"e{e}", "acc", float(rng.random() < 0.5))
            for b, systems in ran.items() for s in systems for e in range(examples)]
    return pd.DataFrame(rows, columns=COLUMNS)


def _cells(df: pd.DataFrame, benchmarks: Sequence[str]) -> int:
    by = systems_by_benchmark(df)
    return len(frozenset.intersection(*(frozenset(by[b]) for b in benchmarks))) * len(benchmarks)


def _brute(df: pd.DataFrame) -> tuple[str, ...]:
    """The rule, literally: every subset scored, the best key kept."""
    by = systems_by_benchmark(df)
    names = list(by)
    best: tuple[int, int, tuple[int, ...]] | None = None
    for r in range(1, len(names) + 1):
        for subset in itertools.combinations(range(len(names)), r):
            systems = len(frozenset.intersection(*(frozenset(by[names[i]]) for i in subset)))
            if systems >= 2:
                key = (systems * r, r, tuple(-i for i in subset))
                best = key if best is None or key > best else best
    return tuple(names) if best is None else tuple(names[-i] for i in best[2])


def _fifteen() -> dict[str, list[str]]:
    ran = {"humaneval": SYSTEMS, "humaneval+": SYSTEMS[:6], "mbpp": SYSTEMS[:6],
           "mbpp+": SYSTEMS[:6], "gsm8k": SYSTEMS[6:9], "math": SYSTEMS[6:9],
           "arc": SYSTEMS[6:9]}
    for k in range(8):  # the made-up ones: two of the last three systems each
        ran[f"toy{k + 1}"] = [SYSTEMS[9 + k % 3], SYSTEMS[9 + (k + 1) % 3]]
    return ran


def test_fifteen_benchmarks_keep_the_four_benchmark_block() -> None:
    df = _frame(_fifteen())
    sel = default_selection(df)
    assert sel.benchmarks == ("humaneval", "humaneval+", "mbpp", "mbpp+") == _brute(df)
    assert sel.complete == tuple(SYSTEMS[:6])
    assert _cells(df, sel.benchmarks) == 24 > _cells(df, ["humaneval"]) == 12
    assert sel.rule == SELECTION_RULE
    seven = _frame({b: s for b, s in _fifteen().items() if not b.startswith("toy")})
    assert default_selection(seven).benchmarks == sel.benchmarks, \
        "the made-up benchmarks, run by none of the block, change nothing"


@st.composite
def _coverage(draw: st.DrawFn) -> dict[str, list[str]]:
    n_systems = draw(st.integers(2, 9))
    n_benchmarks = draw(st.integers(1, 8))
    systems = [f"s{i}" for i in range(n_systems)]
    ran = {}
    for b in range(n_benchmarks):
        who = draw(st.lists(st.sampled_from(systems), min_size=1, unique=True))
        ran[f"b{b}"] = who
    return ran


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(_coverage())
def test_exact_on_small_stores(ran: dict[str, list[str]]) -> None:
    df = _frame(ran)
    assert default_selection(df).benchmarks == _brute(df)


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(_coverage(), st.data())
def test_adding_a_benchmark_never_shrinks_the_block(ran: dict[str, list[str]],
                                                    data: st.DataObject) -> None:
    """A benchmark run by none of the block's systems (others, possibly new ones), or by
    every system, leaves at least as many complete cells."""
    df = _frame(ran)
    before = default_selection(df)
    cells = _cells(df, before.benchmarks) if len(before.complete) >= 2 else 0
    everyone = list(dict.fromkeys(df["system"]))
    outside = [s for s in everyone if s not in before.complete] + ["new1", "new2"]
    if cells:
        others = data.draw(st.lists(st.sampled_from(outside), min_size=1, unique=True))
        after = default_selection(_frame({**ran, "added": others}))
        assert after.benchmarks == _brute(_frame({**ran, "added": others}))
        assert _cells(_frame({**ran, "added": others}), after.benchmarks) >= cells
    position = data.draw(st.integers(0, len(ran)))
    items = list(ran.items())
    items.insert(position, ("all", everyone))
    grown = _frame(dict(items))
    after = default_selection(grown)
    assert _cells(grown, after.benchmarks) >= cells
    if cells:
        assert "all" in after.benchmarks, "a benchmark every system ran joins the block"


@pytest.mark.slow
def test_many_coverage_patterns_fall_back_to_greedy_and_say_so() -> None:
    """17 systems, each missing a different one of 17 benchmarks: 2^17 − 2 closed subsets
    (every subset is some systems' common set), over the exact search's cap."""
    names = [f"b{i:02d}" for i in range(17)]
    ran = {b: [f"s{j:02d}" for j in range(17) if j != i] for i, b in enumerate(names)}
    sel = default_selection(_frame(ran))
    assert sel.rule == SELECTION_RULE + GREEDY_NOTE
    # k benchmarks leave 17 − k systems: k(17 − k) ≤ 72, reached at k = 8 or 9
    assert len(sel.benchmarks) * len(sel.complete) == 72
    sixteen = {b: [s for s in ran[b] if s != "s16"] for b in names[:16]}
    assert default_selection(_frame(sixteen)).rule == SELECTION_RULE, \
        "with 16 benchmarks the search is always exact"


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    path = tmp_path / "sigboard.db"
    db = open_store(f"sqlite:///{path}")
    db.import_frame(_frame(_fifteen(), examples=6, seed=1), filename="fifteen.csv")
    db.close()
    for name in ("SIGBOARD_DB_URL", "SIGBOARD_UPLOAD_TOKEN", "SIGBOARD_UPLOAD_ALLOW"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("SIGBOARD_DB_PATH", str(path))
    yield path


@pytest.mark.slow
def test_overall_page_says_the_engines_rule_and_ranks_its_block(store: Path) -> None:
    main = Path(__file__).resolve().parents[3] / "app" / "main.py"
    at = AppTest.from_file(str(main), default_timeout=60)
    at.switch_page("views/overall.py")
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    box = next(m for m in at.multiselect if m.label == "Benchmarks")
    help_text = box.help.replace("\\", "")  # markdown escapes (md_text) removed
    assert help_text == f"Benchmarks to combine. None chosen: {SELECTION_RULE}."
    assert list(box.value) == ["humaneval", "humaneval+", "mbpp", "mbpp+"]
    caption = next(c.value for c in at.caption if "systems ranked" in c.value)
    assert caption.startswith("6 systems ranked") and "· 4 benchmarks ·" in caption
