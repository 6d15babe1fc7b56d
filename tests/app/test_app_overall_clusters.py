"""Overall groups each benchmark by the cluster column declared for it on upload (issue #26
item 1): the page's answer is the engine's ``overall(..., cluster=COL)``, and a note says
"clustered by COL" (synthetic: 3 systems × 40 questions in 8 passages on qa, a second
benchmark without passages, which stays unclustered)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from apptest_support import app, no_exception
from pages_data_support import store_env

from engine import overall
from engine.app_support import benchmark_part, md_text, overall_headline
from engine.store import open_store


def _frame() -> pd.DataFrame:
    """qa: numeric scores with a system × passage effect (SD 0.1); mc: 0/1, no passages."""
    g = np.random.default_rng(11)
    level, by_passage = g.normal(0.5, 0.15, 40), g.normal(0, 0.1, (3, 8))
    systems = (("base", 0.0), ("cand", 0.06), ("other", -0.04))
    qa = [("qa", s, f"q{i}", "score", float(level[i] + shift + by_passage[k, i % 8]
                                              + g.normal(0, 0.1)), f"passage-{i % 8}")
          for k, (s, shift) in enumerate(systems) for i in range(40)]
    mc = [("mc", s, f"m{i}", "acc", float(g.random() < 0.5 + shift), None)
          for s, shift in systems for i in range(60)]
    return pd.DataFrame(qa + mc, columns=["benchmark", "system", "example_id", "metric",
                                         "value", "passage"])


def _notes(at: object) -> str:
    """The captions as read (notes are shown escaped and isolated: inert text)."""
    text = " ".join(c.value for c in at.caption)  # type: ignore[attr-defined]
    return text.replace("\\", "").replace("\u2068", "").replace("\u2069", "")


@pytest.mark.slow
def test_overall_uses_each_benchmarks_declared_cluster(tmp_path: Path) -> None:
    frame = _frame()
    with store_env(tmp_path / "sigboard.db", frame) as path:
        at = app("views/overall.py", bench=["qa", "mc"])  # type: ignore[arg-type]
        no_exception(at)
        assert "clustered by" not in _notes(at)

        open_store(f"sqlite:///{path}").set_benchmark_cluster("qa", "passage")
        at = app("views/overall.py", bench=["qa", "mc"])  # type: ignore[arg-type]
        no_exception(at)
        # reference: the engine's Overall with qa's passages (mc has none: unclustered)
        expected = overall(frame, benchmarks=["qa", "mc"], cluster="passage")
        assert at.markdown[0].value == f"**{md_text(overall_headline(expected))}**"
        part = benchmark_part(frame, "qa", metrics=["score"], cluster="passage")
        assert part.pairwise is not None
        deff = float(np.median(part.pairwise.table["design_effect"]))
        assert (f"qa: clustered by passage (declared on upload): 8 clusters of examples; "
                f"intervals {'widened' if deff >= 1 else 'narrowed'} by the design effect "
                f"{deff:.2f}.") in _notes(at)
        assert "Bell–McCaffrey" not in _notes(at), "the engine's note with test names is left out"
        assert "mc: clustered" not in _notes(at)
        no_exception(app("views/overall.py", bench=["qa", "mc"], otab="pairs"))  # type: ignore[arg-type]
