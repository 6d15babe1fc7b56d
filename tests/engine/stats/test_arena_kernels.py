"""Issue #19, second pass: each faster kernel gives the answer of a reference.

Groups: the letters' cover is checked against networkx (every letter a maximal clique of
the non-significance graph, ``nx.find_cliques`` for interval structures) and against the
definition of a compact letter display (Piepho 2004), not against a copy of earlier code.
Bradley–Terry: the resampled battles against the comparison indicators of every pair (the
code at commit 255bb2d, kept below because no library counts weighted battles). Hypothesis
draws the inputs (near-interval significance structures with random flips, interval ones,
and score matrices with and without NaN).
"""

from __future__ import annotations

import itertools
import re

import networkx as nx
import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from threadpoolctl import threadpool_limits  # type: ignore[import-untyped]

from engine.cli._json import leaderboard_json
from engine.ranking import _bradley_terry as r
from engine.ranking import _bt_bootstrap as bb
from engine.ranking import _letters as g
from engine.ranking._groups import find_groups

# ------------------------------------------------------------------ references


def _graph(adj: np.ndarray) -> nx.Graph:
    return nx.from_numpy_array(adj.astype(int))


def _maximal_cliques(adj: np.ndarray) -> set[tuple[int, ...]]:
    """networkx's maximal cliques (isolated vertices alone), as sorted tuples."""
    return {tuple(sorted(int(v) for v in c)) for c in nx.find_cliques(_graph(adj))}


def _covered_pairs(columns: list[np.ndarray], n: int) -> np.ndarray:
    """shared[a, b]: a and b share a column (the diagonal: a is in one)."""
    shared = np.zeros((n, n), dtype=bool)
    for members in columns:
        shared[np.ix_(members, members)] = True
    return shared


def _battles_before(x: np.ndarray, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    s = x.shape[0]
    gt = (x[:, None, :] > x[None]).astype(float)
    eq = (x[:, None, :] == x[None]).astype(float)
    off = ~np.eye(s, dtype=bool)
    return np.einsum("ije,be->bij", gt, weights) * off, np.einsum("ije,be->bij", eq, weights) * off


# ------------------------------------------------------------------ inputs


@st.composite
def near_interval(draw: st.DrawFn) -> np.ndarray:
    """Adjacency, best first, of 'close in quality = not significant', with random flips."""
    n = draw(st.integers(1, 40))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    quality = np.sort(rng.normal(size=n))[::-1]
    width = draw(st.floats(0.0, 2.0))
    adj = np.abs(quality[:, None] - quality[None]) <= width
    flips = draw(st.floats(0.0, 0.3))
    flip = np.triu(rng.random((n, n)) < flips, 1)
    adj ^= flip | flip.T
    np.fill_diagonal(adj, False)
    return adj


def _interval(n: int, width: float, seed: int) -> np.ndarray:
    quality = np.sort(np.random.default_rng(seed).normal(size=n))[::-1]
    adj = np.abs(quality[:, None] - quality[None]) <= width
    np.fill_diagonal(adj, False)
    return adj


# ------------------------------------------------------------------ groups


@pytest.mark.slow
@settings(max_examples=120, suppress_health_check=[HealthCheck.too_slow])
@given(adj=near_interval())
def test_cover_is_maximal_cliques_covering_every_pair(adj: np.ndarray) -> None:
    n = len(adj)
    cliques = _maximal_cliques(adj)
    covered = g._cover(adj)
    assert all(tuple(m.tolist()) in cliques for m in covered)  # each letter a maximal clique
    want = adj | np.eye(n, dtype=bool)  # every non-significant pair and every system
    np.testing.assert_array_equal(_covered_pairs(covered, n), want)
    kept = g._drop_redundant(covered, n)
    np.testing.assert_array_equal(_covered_pairs(kept, n), want)  # the sweep keeps the cover
    for i in range(len(kept)):  # and leaves no letter whose pairs others all hold
        others = _covered_pairs(kept[:i] + kept[i + 1:], n)
        assert not others[np.ix_(kept[i], kept[i])].all()


@settings(max_examples=80)
@given(n=st.integers(0, 60), width=st.floats(0.0, 3.0), seed=st.integers(0, 2**32 - 1))
def test_interval_cover_is_the_list_of_maximal_cliques(n: int, width: float, seed: int) -> None:
    adj = _interval(n, width, seed)
    reach = g._interval_reach(adj)
    assert reach is not None  # |q_i − q_j| ≤ w in quality order is a proper interval graph
    runs = [m.tolist() for m in g._interval_cover(reach)]
    assert runs == [m.tolist() for m in g._cover(adj)]  # what the sweep would grow
    assert {tuple(m) for m in runs} == (_maximal_cliques(adj) if n else set())
    assert len(runs) == len(set(map(tuple, runs)))


@settings(max_examples=80, suppress_health_check=[HealthCheck.too_slow])
@given(adj=near_interval())
def test_interval_test_agrees_with_its_definition(adj: np.ndarray) -> None:
    # proper interval in this order: i < j < k and i ~ k imply i ~ j and j ~ k
    n = len(adj)
    ok = all(adj[i, j] and adj[j, k] for i, j, k in itertools.combinations(range(n), 3)
             if adj[i, k])
    assert (g._interval_reach(adj) is not None) == ok


@settings(max_examples=100)
@given(n=st.integers(1, 30), data=st.data())
def test_blocks_equal_ix(n: int, data: st.DataObject) -> None:
    idx = np.array(sorted(data.draw(st.sets(st.integers(0, n - 1), min_size=1))), dtype=np.intp)
    mat = np.random.default_rng(n).random((n, n)) < 0.5
    np.testing.assert_array_equal(g._block(mat, idx), mat[np.ix_(idx, idx)])
    cleared, want = mat.copy(), mat.copy()
    g._clear(cleared, idx)
    want[np.ix_(idx, idx)] = False
    np.testing.assert_array_equal(cleared, want)


@settings(max_examples=60, suppress_health_check=[HealthCheck.too_slow])
@given(adj=near_interval(), ties=st.booleans())
def test_letters_are_a_compact_letter_display(adj: np.ndarray, ties: bool) -> None:
    # Piepho (2004): two systems share a letter exactly when they are not significantly
    # different; every letter is needed; letters go best first ("a" holds the best system)
    n = len(adj)
    names = [f"s{i:02d}" for i in range(n)]
    score = np.round(np.linspace(1, 0, n), 1 if ties else 9)  # ties: equal scores and means
    ia, ja = np.triu_indices(n, 1)
    pairs = pd.DataFrame({"system_a": [names[i] for i in ia], "system_b": [names[j] for j in ja],
                          "pvalue_adj": np.where(adj[ia, ja], 0.5, 0.001),
                          "significant": ~adj[ia, ja], "a_better": True})
    got = find_groups(names, score.tolist(), pairs)
    tokens = {s: set(re.findall(r"[a-zA-Z][0-9]*", got.letters[s])) for s in names}
    for i, j in itertools.combinations(range(n), 2):
        assert bool(tokens[names[i]] & tokens[names[j]]) == bool(adj[i, j])
    used = set().union(*tokens.values()) if n else set()
    for token in used:
        members = [k for k in range(n) if token in tokens[names[k]]]
        alone = [(a, b) for a, b in itertools.combinations(members, 2)
                 if tokens[names[a]] & tokens[names[b]] == {token}]
        singleton = len(members) == 1 and tokens[names[members[0]]] == {token}
        assert alone or singleton, f"letter {token} is not needed"
    holders = [k for k in range(n) if "a" in tokens[names[k]]]
    assert not n or score[holders].max() == score.max()  # "a" holds a best-scoring system


def test_many_columns_use_separated_tokens() -> None:
    columns = [np.array([i]) for i in range(60)]
    text = g._letter_strings(columns, list(range(60)), 60)
    assert text[0] == "a" and text[52] == "a1" and len(set(text)) == 60


def test_cliques_are_listed_only_when_asked() -> None:
    # a non-interval structure: listing would run Bron–Kerbosch
    adj = np.ones((6, 6), dtype=bool)
    for a, b in ((0, 1), (2, 3), (4, 5)):
        adj[a, b] = adj[b, a] = False
    np.fill_diagonal(adj, False)
    names = [f"s{i}" for i in range(6)]
    ia, ja = np.triu_indices(6, 1)
    pairs = pd.DataFrame({"system_a": [names[i] for i in ia], "system_b": [names[j] for j in ja],
                          "pvalue_adj": 0.5, "significant": ~adj[ia, ja], "a_better": True})
    groups = find_groups(names, [6, 5, 4, 3, 2, 1], pairs)
    assert "_listed" not in groups.__dict__  # letters and ranks did not list cliques
    assert len(groups.cliques) == 8 and groups.complete and groups.n_cliques == 8
    assert "_listed" in groups.__dict__


def test_leaderboard_does_not_list_cliques() -> None:
    from engine import ScoreMatrix, leaderboard

    rng = np.random.default_rng(0)
    m = ScoreMatrix.from_array((rng.random((12, 60)) < np.linspace(0.2, 0.8, 12)[:, None])
                               .astype(float), systems=[f"s{i:02d}" for i in range(12)])
    lb = leaderboard(m, bt_resamples=0)
    assert "_listed" not in lb.groups.__dict__
    assert lb.cliques == lb.groups.cliques and leaderboard_json(lb, [])["cliques"]


# ------------------------------------------------------------------ Bradley–Terry


@settings(max_examples=40)
@given(s=st.integers(2, 7), e=st.integers(1, 30), kind=st.sampled_from(["binary", "levels",
                                                                         "nan"]),
       seed=st.integers(0, 2**32 - 1))
def test_resampled_battles_equal_the_indicator_products(s: int, e: int, kind: str,
                                                        seed: int) -> None:
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 2 if kind == "binary" else 4, size=(s, e)).astype(float)
    if kind == "nan":
        x[rng.random((s, e)) < 0.2] = np.nan
    weights = np.vstack([np.ones(e), rng.multinomial(e, np.full(e, 1 / e), size=5)]).astype(float)
    wins, tied = bb._weighted_battles(x, weights)
    want_wins, want_tied = _battles_before(x, weights)
    np.testing.assert_array_equal(wins, want_wins)
    np.testing.assert_array_equal(tied, want_tied)


@pytest.mark.parametrize("ties", ["half", "davidson"])
def test_warm_started_resamples_equal_cold_fits(ties: str) -> None:
    # Resample fits start from the point fit; fitting each resample alone from 0 gives the
    # same strengths (both stop at the score-equation tolerance).
    rng = np.random.default_rng(5)
    x = (rng.random((8, 80)) < np.linspace(0.3, 0.7, 8)[:, None]).astype(float)
    res = bb.bt_bootstrap(x, n_resamples=20, rng=2, ties=ties)
    counts = np.random.default_rng(2).multinomial(80, np.full(80, 1 / 80), size=20)
    strengths = []
    for c in counts.astype(float):
        wins, tied = bb._weighted_battles(x, c[None])
        fit = r.bradley_terry(wins[0], None, tie_counts=tied[0], ties=ties)
        strengths.append(fit.strength)
    low, high = np.quantile(np.array(strengths), [0.025, 0.975], axis=0)
    np.testing.assert_allclose(res.strength_low, low, rtol=1e-7)
    np.testing.assert_allclose(res.strength_high, high, rtol=1e-7)


def _blas_threads() -> list[int]:
    from threadpoolctl import threadpool_info  # type: ignore[import-untyped]

    return [lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"]


def test_fits_leave_the_blas_thread_count_alone() -> None:
    before = _blas_threads()
    r.bradley_terry(np.array([[0, 3], [1, 0]]), 4)
    assert _blas_threads() == before


def test_overlapping_fits_restore_the_first_count() -> None:
    # two sessions of one server: A enters, B enters, A leaves (B still limited), B leaves;
    # BLAS on two threads first, so the restored count differs from the limit (on a runner
    # whose BLAS already ran on one thread the test could not fail otherwise)
    with threadpool_limits(limits=2, user_api="blas"):
        before = _blas_threads()
        assert any(n > 1 for n in before), "BLAS on two threads before the fits"
        a, b = r._one_blas_thread(), r._one_blas_thread()
        a.__enter__()
        b.__enter__()
        assert all(n == 1 for n in _blas_threads())
        a.__exit__(None, None, None)
        assert all(n == 1 for n in _blas_threads())
        b.__exit__(None, None, None)
        assert _blas_threads() == before


@settings(max_examples=30)
@given(s=st.integers(2, 12), e=st.integers(1, 40), sparse=st.booleans(),
       ties=st.sampled_from(["half", "davidson"]), seed=st.integers(0, 2**32 - 1))
def test_conjugate_gradient_steps_give_the_direct_solves_fit(s: int, e: int, sparse: bool,
                                                             ties: str, seed: int) -> None:
    # Many systems take Newton steps by conjugate gradients (falling back to the direct solve
    # when they stall): the fit is the direct solve's to the score-equation tolerance.
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 3, size=(s, e)).astype(float)
    if sparse:  # pairs sharing few examples: a badly conditioned Hessian
        x[rng.random((s, e)) < 0.7] = np.nan
    wins, tied = bb._weighted_battles(x, np.ones((1, e)))
    direct = r.bradley_terry(wins[0], None, tie_counts=tied[0], ties=ties)
    old = r._CG_SYSTEMS
    try:
        r._CG_SYSTEMS = 1
        cg = r.bradley_terry(wins[0], None, tie_counts=tied[0], ties=ties)
    finally:
        r._CG_SYSTEMS = old
    assert cg.converged == direct.converged
    if direct.converged:
        np.testing.assert_allclose(cg.strength, direct.strength, rtol=1e-6, atol=1e-12)


def test_stalled_conjugate_gradients_fall_back_to_the_direct_solve() -> None:
    a = np.diag([1.0, 1e12])[None] + 1e-3  # condition ~1e12: no convergence in a few steps
    g = np.array([[1.0, 1.0]])
    old = r._CG_ITERATIONS
    try:
        r._CG_ITERATIONS = 1
        x, done = r._conjugate_gradients(a, g)
        assert not done.all()
        r._CG_SYSTEMS, before = 1, r._CG_SYSTEMS
        try:
            step = r._newton_step(a, g)
        finally:
            r._CG_SYSTEMS = before
    finally:
        r._CG_ITERATIONS = old
    np.testing.assert_allclose(step, np.linalg.solve(a, g[:, :, None])[:, :, 0], rtol=1e-12)


@pytest.mark.parametrize("compare", ["first", "successive"])
def test_untested_pairs_table_equals_the_row_by_row_one(compare: str) -> None:
    from engine import ScoreMatrix, pairwise_tests
    from engine.products._leaderboard import _pairs_for_groups

    rng = np.random.default_rng(7)
    m = ScoreMatrix.from_array((rng.random((9, 50)) < 0.5).astype(float),
                               systems=[f"s{i}" for i in range(9)])
    pw = pairwise_tests(m, compare=compare)
    table, notes = _pairs_for_groups(pw)
    # 255bb2d: one dict per untested pair, upper-triangle order
    names = list(pw.systems)
    tested = {frozenset(p) for p in zip(pw.table["system_a"], pw.table["system_b"], strict=True)}
    rows = [{"system_a": names[i], "system_b": names[j], "significant": False, "a_better": False}
            for i, j in itertools.combinations(range(len(names)), 2)
            if frozenset((names[i], names[j])) not in tested]
    want = pd.concat([pw.table, pd.DataFrame(rows)], ignore_index=True)
    pd.testing.assert_frame_equal(table, want, check_dtype=False)
    assert len(notes) == 1 and str(len(rows)) in notes[0]


def _row_moments_before(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    has = ~np.isnan(x)
    count = has.sum(axis=1).astype(float)
    centre = np.where(has, x, 0.0).sum(axis=1) / np.maximum(count, 1)
    sq = (np.where(has, x - centre[:, None], 0.0) ** 2).sum(axis=1)
    return count, centre, sq / np.maximum(count - 1, 1)


@settings(max_examples=60)
@given(s=st.integers(1, 6), e=st.integers(1, 300), nan=st.booleans(),
       seed=st.integers(0, 2**32 - 1))
def test_row_moments_without_nan_are_the_masked_ones_bit_for_bit(s: int, e: int, nan: bool,
                                                                 seed: int) -> None:
    from engine.stats import _kernels as k

    x = np.random.default_rng(seed).normal(size=(s, e)) * 10.0 ** np.arange(s)[:, None]
    if nan:
        x[0, 0] = np.nan
    for got, want in zip(k.row_moments(x), _row_moments_before(x), strict=True):
        np.testing.assert_array_equal(got, want)


@settings(max_examples=40)
@given(s=st.integers(1, 8), e=st.integers(1, 200), low=st.sampled_from([0.0, -1.5]),
       seed=st.integers(0, 2**32 - 1))
def test_two_level_win_counts_by_the_symmetric_product(s: int, e: int, low: float,
                                                       seed: int) -> None:
    from engine.stats import _kernels as k

    hits = np.random.default_rng(seed).random((s, e)) < 0.5
    x = np.where(hits, 1.0, low)
    want = (x[:, None, :] > x[None]).sum(axis=2)  # every pair, every example
    np.testing.assert_array_equal(k.win_matrix(x), want)


# ------------------------------------------------ issue #32: compiled numeric win counts


@settings(max_examples=60, suppress_health_check=[HealthCheck.too_slow])
@given(s=st.integers(1, 300), e=st.integers(1, 60), levels=st.sampled_from([0, 3, 7, 50]),
       tie_share=st.sampled_from([0.0, 0.3, 1.0]), seed=st.integers(0, 2**32 - 1))
def test_compiled_win_counts_equal_the_byte_lane_counts(s: int, e: int, levels: int,
                                                        tie_share: float, seed: int) -> None:
    """The compiled rank counts (upper triangle on tie-free examples) equal the numpy
    byte-lane counts they replace (the previous implementation, kept as the fallback),
    on continuous scores, few levels, and a mix of tied and tie-free examples."""
    from engine import _jit
    from engine.stats import _kernels as k

    _jit.kernels()  # loaded: the compiled counts run however small the input
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(s, e))
    tied = rng.random(e) < tie_share
    if levels:
        x[:, tied] = np.round(x[:, tied] * levels / 4)
    np.testing.assert_array_equal(k._rank_comparisons(x), k._rank_comparisons_numpy(x))


@pytest.mark.slow
@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(s=st.integers(1, 120), e=st.integers(1, 12),
       kind=st.sampled_from(["normal", "heavy", "levels", "zeros", "tiny", "inf"]),
       seed=st.integers(0, 2**32 - 1))
def test_compiled_bucket_ranks_equal_scipy_dense_ranks(s: int, e: int, kind: str,
                                                       seed: int) -> None:
    """The compiled bucket-sort dense ranks equal scipy.stats.rankdata(method='dense') − 1
    per example (the reference), and the tie-free flag equals 'all ranks distinct', on
    continuous, heavy-tailed (crowded buckets: the argsort fallback), few-level, ±0.0,
    sub-ulp spans and infinite scores."""
    from scipy.stats import rankdata

    from engine import _jit

    compiled = _jit.kernels()
    if compiled is None:
        pytest.skip("Numba not installed")
    rng = np.random.default_rng(seed)
    block = {"normal": lambda: rng.normal(size=(e, s)),
             "heavy": lambda: rng.standard_cauchy(size=(e, s)) ** 3,
             "levels": lambda: rng.integers(0, 4, size=(e, s)).astype(float),
             "zeros": lambda: np.where(rng.random((e, s)) < 0.5, 0.0, -0.0),
             "tiny": lambda: 1.0 + rng.integers(0, 3, size=(e, s)) * np.spacing(1.0),
             "inf": lambda: np.where(rng.random((e, s)) < 0.2, np.inf, rng.normal(size=(e, s))),
             }[kind]()
    ranks = np.empty(block.shape, dtype=np.int16)
    distinct = np.empty(e, dtype=np.bool_)
    compiled.dense_ranks(np.ascontiguousarray(block), ranks, distinct)
    want = rankdata(block, method="dense", axis=1) - 1
    np.testing.assert_array_equal(ranks, want)
    np.testing.assert_array_equal(distinct, want.max(axis=1) == s - 1)


def test_compiled_win_counts_across_blocks_and_systems_past_256(monkeypatch: pytest.MonkeyPatch
                                                                ) -> None:
    """Many blocks of examples (block size shrunk) and int16 ranks (> 256 systems) give
    the brute-force counts over every pair and example."""
    from engine import _jit
    from engine.stats import _kernels as k

    monkeypatch.setattr(_jit, "_WORTH_LOADING_S", 0.0)  # the compiled counts on a small input
    monkeypatch.setattr(k, "_BLOCK_CELLS", 300 * 7)
    rng = np.random.default_rng(5)
    x = rng.normal(size=(300, 40))
    x[:, ::4] = np.round(x[:, ::4])
    want = (x[:, None, :] > x[None]).sum(axis=2)
    np.testing.assert_array_equal(k._rank_comparisons(x), want)


@pytest.mark.slow
@settings(max_examples=300)
@given(text=st.lists(st.sampled_from(list(b'[]{}"\\\na, 1')), max_size=80),
       cap=st.sampled_from([1, 3, 1_000]))
def test_compiled_json_depth_scan_equals_the_vectorised_scan(text: list[int], cap: int) -> None:
    """Issue #32 item 6: the one-pass compiled depth scan gives the vectorised scan's
    depth on any mix of brackets, quotes, backslash runs and newlines (and stops past
    ``stop_above`` as it does: both then return a depth above the cap)."""
    from engine import _jit
    from engine.io import _limits

    compiled = _jit.kernels()
    if compiled is None:
        pytest.skip("Numba is not installed")
    data = bytes(text)
    want = _limits.nesting_depth(data, stop_above=cap)  # short input: the numpy scan
    got = int(compiled.nesting_depth(np.frombuffer(data, np.uint8), cap))
    assert got == want or (got > cap and want > cap)


@settings(max_examples=60, suppress_health_check=[HealthCheck.too_slow])
@given(s=st.integers(1, 40), e=st.integers(1, 300), low=st.sampled_from([0.0, -1.5]),
       share=st.sampled_from([0.0, 0.1, 0.5, 1.0]), seed=st.integers(0, 2**32 - 1))
def test_two_level_popcounts_equal_the_brute_force_counts(s: int, e: int, low: float,
                                                          share: float, seed: int) -> None:
    """Issue #32: the bit-packed population counts of two-level scores (0/1 and another pair
    of levels) give the brute-force win counts over every pair and example (the reference:
    numpy's broadcast comparison) and the float32 product they replace, for example counts
    on and off the 8- and 64-bit word boundaries, all-0 and all-1 rows."""
    from engine import _jit
    from engine.stats import _kernels as k

    compiled = _jit.kernels()
    if compiled is None:
        pytest.skip("Numba not installed")
    hits = np.random.default_rng(seed).random((s, e)) < share
    x = np.where(hits, 1.0, low)
    want = (x[:, None, :] > x[None]).sum(axis=2)
    got = k._two_level_popcounts(x, 1.0, compiled)
    assert got.dtype == np.int64
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(k._level_products(x, np.array([low, 1.0])), want)


def test_binary_win_counts_by_popcount_past_the_loading_threshold(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """win_matrix of 0/1 scores takes the population counts once the kernels are worth
    loading, across several row blocks (block size shrunk), and gives the product's counts."""
    from engine import _jit
    from engine.stats import _kernels as k

    if _jit.kernels() is None:
        pytest.skip("Numba not installed")
    x = (np.random.default_rng(3).random((50, 1_000)) < 0.3).astype(float)
    with monkeypatch.context() as patch:  # the float32 product: no kernels
        patch.setattr(_jit, "kernels_for", lambda seconds: None)
        want = k.win_matrix(x, binary=True)
    calls = []
    original = k._two_level_popcounts
    monkeypatch.setattr(k, "_two_level_popcounts",
                        lambda *args: calls.append(1) or original(*args))
    monkeypatch.setattr(k, "_BLOCK_CELLS", 7 * 1_000)
    np.testing.assert_array_equal(k.win_matrix(x, binary=True), want)
    assert calls
    np.testing.assert_array_equal(want, (x[:, None, :] > x[None]).sum(axis=2))
