"""Pairwise and A/B compare on repeated 0/1 tries: the pair's paired pass^k and pass@k
difference, under AppTest.

Data: ``reliability_support.tries_frame()`` (4 agents × 40 tasks × 8 tries, 0/1). The
reference numbers are the engine's (:func:`engine.app_support.reliability` at the default
k = 8, the common number of tries): the pair's row of its ``pairs`` table, oriented as the
page states it (Pairwise a − b, A/B candidate − baseline). The demo data (no repeated tries)
must not show the section.
"""

from __future__ import annotations

import html
from collections.abc import Iterator
from pathlib import Path

import pytest
from apptest_support import app, html_frame, no_exception
from pages_data_support import store_env
from reliability_support import BENCHMARK, TRIES, tries_frame  # type: ignore[import-not-found]

from engine.app_support import reliability

pytestmark = pytest.mark.slow

_INVISIBLE = dict.fromkeys(map(ord, "\u2060\u2066\u2067\u2068\u2069"))


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    with store_env(tmp_path_factory.mktemp("pair_rel") / "sigboard.db", tries_frame()) as p:
        yield p


def _clean(text: str) -> str:
    return html.unescape(text).translate(_INVISIBLE)


def _pair(a: str, b: str) -> dict[str, float]:
    """The engine's pass^k / pass@k difference a − b at k = TRIES (the default k)."""
    t = reliability(tries_frame(), k=TRIES).pairs.table
    hit = t[(t["system_a"] == a) & (t["system_b"] == b)]
    sign = 1.0
    if not len(hit):
        hit, sign = t[(t["system_a"] == b) & (t["system_b"] == a)], -1.0
    row = hit.iloc[0]
    out = {}
    for stat in ("diff_pass_hat_k", "diff_pass_at_k"):
        lo, hi = sorted((sign * row[f"{stat}_low"], sign * row[f"{stat}_high"]))
        out |= {stat: sign * row[stat], f"{stat}_low": lo, f"{stat}_high": hi}
    return out | {"p": row["pvalue_adj"], "p_at": row["pvalue_adj_pass_at_k"],
                  "significant": bool(row["significant"])}


def _check(at: object, a: str, b: str) -> None:
    no_exception(at)  # type: ignore[arg-type]
    want = _pair(a, b)
    frame = html_frame(at, "pair reliability")  # type: ignore[arg-type]
    frame.columns = [_clean(c) for c in frame.columns]
    rows = {_clean(r["measure"]): {k: _clean(v) for k, v in r.items()}
            for r in frame.to_dict("records")}
    k = TRIES
    hat, at_k = rows[f"pass^{k}"], rows[f"pass@{k}"]
    assert hat["difference (points)"] == f"{100 * want['diff_pass_hat_k']:+.1f}"
    assert hat["95% interval"] == (f"{100 * want['diff_pass_hat_k_low']:+.1f} to "
                                   f"{100 * want['diff_pass_hat_k_high']:+.1f}")
    assert at_k["difference (points)"] == f"{100 * want['diff_pass_at_k']:+.1f}"
    assert hat["p (adjusted)"] == f"{want['p']:.3g}"
    assert at_k["p (adjusted)"] == f"{want['p_at']:.3g}"
    assert hat["significant"] == ("yes" if want["significant"] else "no")
    said = " ".join(_clean(m.value) for m in at.markdown)  # type: ignore[attr-defined]
    assert f"= **{100 * want['diff_pass_hat_k']:+.1f} points**" in said


def test_pairwise_shows_the_pairs_pass_hat_k_difference(store: Path) -> None:
    a, b = "agent-steady", "agent-rough"
    at = app("views/pairwise.py", benchmark=BENCHMARK, a=a, b=b)
    _check(at, a, b)
    # the other orientation: the same pair, signs and interval ends swapped
    at = app("views/pairwise.py", benchmark=BENCHMARK, a=b, b=a)
    _check(at, b, a)


def test_ab_compare_shows_candidate_minus_baseline(store: Path) -> None:
    base, cand = "agent-base", "agent-bold"
    at = app("views/compare.py", benchmark=BENCHMARK, base=base, cand=cand)
    _check(at, cand, base)


def test_demo_data_has_no_pass_k_section(db: Path) -> None:
    at = app("views/pairwise.py", benchmark="humaneval")
    no_exception(at)
    assert not any("Repeated tries" in s.value for s in at.subheader)
