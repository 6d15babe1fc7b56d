"""adjust_pvalues: Holm, Holm–Šidák, Bonferroni and Benjamini–Hochberg without statsmodels'
garbage collection; every expected value is statsmodels' ``multipletests`` on the same input."""

from __future__ import annotations

import gc

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from statsmodels.stats.multitest import multipletests

from engine.stats._multitest import ADJUST_METHODS, adjust_pvalues

METHODS = [m for m in ADJUST_METHODS if m != "none"]


def _statsmodels(p: np.ndarray, method: str) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):  # p = 1 makes Šidák take log(0)
        adjusted = multipletests(p, alpha=0.05, method=method)[1]
    return np.asarray(np.maximum(adjusted, p), dtype=float)  # as engine.stats._pairwise._adjust


@pytest.mark.slow
@pytest.mark.parametrize("method", METHODS)
def test_matches_statsmodels_on_random_inputs_with_ties_and_edges(method: str) -> None:
    rng = np.random.default_rng(7)
    for size in (1, 2, 3, 10, 100, 2_000):
        p = rng.uniform(size=size) ** 3  # many small p-values, as in a real leaderboard
        # ties (rounded values, repeated), exact 0 and exact 1
        p = np.round(p, 3)
        p[rng.integers(0, size, size // 5 + 1)] = 0.0
        p[rng.integers(0, size, size // 5 + 1)] = 1.0
        np.testing.assert_allclose(adjust_pvalues(p, method=method), _statsmodels(p, method),
                                   rtol=1e-15, atol=0)


@pytest.mark.slow
@settings(max_examples=100)
@given(p=st.lists(st.sampled_from([0.0, 1e-300, 1e-12, 0.001, 0.01, 0.02, 0.049, 0.05, 0.3, 0.5,
                                   0.999, 1.0]) | st.floats(0, 1), min_size=1, max_size=40),
       method=st.sampled_from(METHODS))
def test_property_equals_statsmodels_and_is_at_least_raw(p: list[float], method: str) -> None:
    raw = np.array(p)
    adj = adjust_pvalues(raw, method=method)
    np.testing.assert_allclose(adj, _statsmodels(raw, method), rtol=1e-15, atol=0)
    assert ((adj >= raw) & (adj <= 1.0)).all()
    # permuting the input permutes the output
    perm = np.random.default_rng(len(p)).permutation(len(p))
    np.testing.assert_array_equal(adjust_pvalues(raw[perm], method=method), adj[perm])
    # a larger raw p never gets a smaller adjusted p (monotone in the raw order)
    order = np.argsort(raw, kind="stable")
    assert (np.diff(adj[order]) >= 0).all()


@pytest.mark.parametrize("method", ADJUST_METHODS)
def test_empty_input_gives_empty_output(method: str) -> None:
    out = adjust_pvalues(np.array([]), method=method)
    assert out.shape == (0,) and out.dtype == float


def test_none_returns_a_copy() -> None:
    p = np.array([0.2, 0.01])
    out = adjust_pvalues(p, method="none")
    np.testing.assert_array_equal(out, p)
    assert out is not p


def test_docstring_values() -> None:
    # Holm by hand: sorted 0.01, 0.03, 0.04 → 3·0.01, max(0.03, 2·0.03), max(0.06, 1·0.04)
    np.testing.assert_allclose(adjust_pvalues([0.01, 0.04, 0.03], method="holm"),
                               [0.03, 0.06, 0.06])
    # BH by hand: 3·0.01/1, min(3·0.03/2, 3·0.04/3) = 0.04, 0.04
    np.testing.assert_allclose(adjust_pvalues([0.01, 0.04, 0.03], method="fdr_bh"),
                               [0.03, 0.04, 0.04])


@pytest.mark.parametrize("method", METHODS)
def test_no_garbage_collection(method: str) -> None:
    calls: list[str] = []

    def note(phase: str, info: dict[str, int]) -> None:
        calls.append(phase)

    gc.callbacks.append(note)
    try:
        gc_enabled = gc.isenabled()
        gc.disable()  # only an explicit gc.collect() could fire now
        adjust_pvalues(np.linspace(0, 1, 50), method=method)
    finally:
        if gc_enabled:
            gc.enable()
        gc.callbacks.remove(note)
    assert calls == []


def test_errors_name_the_argument() -> None:
    with pytest.raises(ValueError, match="method: must be one of .*got 'hochberg'"):
        adjust_pvalues([0.1], method="hochberg")
    with pytest.raises(ValueError, match="alpha: must be strictly between 0 and 1; got 2"):
        adjust_pvalues([0.1], method="holm", alpha=2)
    with pytest.raises(ValueError, match=r"p: every p-value must be in \[0, 1\]; got 1.5"):
        adjust_pvalues([0.1, 1.5], method="holm")
    with pytest.raises(ValueError, match="p: every p-value"):
        adjust_pvalues([np.nan], method="holm")
    with pytest.raises(ValueError, match="p: must be one-dimensional"):
        adjust_pvalues(np.zeros((2, 2)), method="holm")
