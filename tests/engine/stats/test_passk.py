"""pass@k / pass^k over repeated tries (engine.stats._passk, engine.stats._passk_reliability).

References: the issue's exact values (n = 8, c = 6, k = 4 → pass^k = C(6,4)/C(8,4) = 15/70;
n = 10, c = 3, k = 5 → pass@k = 1 − C(7,5)/C(10,5) = 1 − 21/252), checked against
``math.comb`` in exact rationals; the numerically stable product form of Chen et al. (2021,
"Evaluating Large Language Models Trained on Code", arXiv:2107.03374, the ``pass_at_k``
function of §2.1 / Figure 3); scipy.stats.binomtest's exact interval; scipy.stats.ttest_rel
per pair; engine.stats._clusters (CR2, Bell–McCaffrey) for the clustered paths; HAL's
outcome-consistency formula (Rabanser et al. 2026, arXiv:2602.16666: per task
1 − s²/(p̂(1−p̂) + ε), clipped to [0, 1], averaged).
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy import stats

from engine._options import TestOptions
from engine.stats._clusters import (
    ClusterDesign,
    _bell_mccaffrey_df,
    clustered_mean_se,
    clustered_pairs,
)
from engine.stats._passk import (
    TryCounts,
    _bm_df,
    _pair_diffs,
    korn_graubard,
    pass_at_k,
    pass_hat_k,
    pass_k_curves,
    pass_k_estimates,
    pass_k_pairs,
    try_counts,
)
from engine.stats._passk_reliability import (
    flaky_tasks,
    outcome_consistency,
    pass_k_gate,
    reliability,
    task_gate,
)


def chen_pass_at_k(n: int, c: int, k: int) -> float:
    """Chen et al. (2021), Figure 3: the numerically stable unbiased estimator."""
    if n - c < k:
        return 1.0
    return float(1.0 - np.prod(1.0 - k / np.arange(n - c + 1, n + 1)))


def long_table(successes: np.ndarray, tries: int | np.ndarray, *, seed: int = 0,
               cluster: np.ndarray | None = None) -> pd.DataFrame:
    """One 0/1 row per try of systems × tasks with the given success counts (order of the
    passes within a task shuffled: the estimators depend on the counts only)."""
    rng = np.random.default_rng(seed)
    s, t = successes.shape
    n = np.broadcast_to(np.asarray(tries), successes.shape)
    rows = []
    for i in range(s):
        for j in range(t):
            outcome = np.zeros(int(n[i, j]), dtype=int)
            outcome[: int(successes[i, j])] = 1
            rng.shuffle(outcome)
            for r, v in enumerate(outcome):
                row = {"benchmark": "b", "metric": "m", "system": f"s{i}",
                       "example_id": f"t{j:03d}", "run": r, "value": int(v)}
                if cluster is not None:
                    row["family"] = f"f{cluster[j]}"
                rows.append(row)
    return pd.DataFrame(rows)


# ---------------------------------------------------------------- exact values


def test_issue_exact_values() -> None:
    # n = 8, c = 6, k = 4: pass^k = C(6,4)/C(8,4) = 15/70; pass@k = 1 (only 2 failures < k)
    assert Fraction(math.comb(6, 4), math.comb(8, 4)) == Fraction(15, 70)
    assert float(pass_hat_k(8, 6, 4)) == pytest.approx(15 / 70, abs=1e-15)
    assert float(pass_at_k(8, 6, 4)) == 1.0
    # n = 10, c = 3, k = 5: pass@k = 1 − C(7,5)/C(10,5) = 1 − 21/252 = 0.9167
    assert Fraction(math.comb(7, 5), math.comb(10, 5)) == Fraction(21, 252)
    assert float(pass_at_k(10, 3, 5)) == pytest.approx(1 - 21 / 252, abs=1e-15)
    assert round(float(pass_at_k(10, 3, 5)), 4) == 0.9167


@pytest.mark.slow
def test_chen_product_form_equals_binomial_form() -> None:
    rng = np.random.default_rng(20210707)
    n = rng.integers(1, 1001, 400)
    c = rng.integers(0, n + 1)
    k = rng.integers(1, n + 1)
    ours = np.array([float(pass_at_k(int(a), int(b), int(kk)))
                     for a, b, kk in zip(n, c, k, strict=True)])
    chen = np.array([chen_pass_at_k(int(a), int(b), int(kk)) for a, b, kk in
                     zip(n, c, k, strict=True)])
    exact = np.array([float(1 - Fraction(math.comb(int(a - b), int(kk)),
                                         math.comb(int(a), int(kk))))
                      for a, b, kk in zip(n, c, k, strict=True)])
    assert np.max(np.abs(chen - exact)) < 1e-12
    assert np.max(np.abs(ours - exact)) < 1e-12
    assert np.max(np.abs(ours - chen)) < 1e-12


def test_pass_hat_k_stable_at_a_thousand_tries() -> None:
    # exact rationals from math.comb: no factorial overflow at n = 1,000
    for n, c, k in [(1000, 999, 500), (1000, 900, 10), (1000, 1000, 1000), (1000, 3, 2),
                    (1000, 500, 250), (997, 996, 996)]:
        exact = float(Fraction(math.comb(c, k), math.comb(n, k)))
        assert float(pass_hat_k(n, c, k)) == pytest.approx(exact, rel=1e-10, abs=1e-300)


def test_vectorised_and_fewer_than_k_tries_are_nan() -> None:
    n = np.array([[8, 3], [10, 8]])
    c = np.array([[6, 3], [3, 8]])
    got = pass_hat_k(n, c, 4)
    assert np.isnan(got[0, 1])  # 3 tries < k = 4
    assert got[0, 0] == pytest.approx(15 / 70)
    assert got[1, 1] == 1.0
    with pytest.raises(ValueError, match="k:"):
        pass_at_k(8, 3, 0)


# ---------------------------------------------------------------- counts and estimates


def test_try_counts_and_the_exclusion_rule() -> None:
    wins = np.array([[6, 2, 0], [8, 1, 3]])
    df = long_table(wins, np.array([[8, 8, 3], [8, 8, 8]]))
    counts = try_counts(df)
    assert counts.tries.tolist() == [[8, 8, 3], [8, 8, 8]]
    assert counts.successes.tolist() == wins.tolist()
    est = pass_k_estimates(counts, 4)
    assert est.tasks.tolist() == [2, 3]
    assert est.excluded.tolist() == [1, 0]
    assert "1 system × task cell(s) dropped" in est.rule()
    # mean over the tasks with ≥ 4 tries of C(c,4)/C(8,4)
    assert est.pass_hat_k[0] == pytest.approx((15 / 70 + 0) / 2)
    assert est.pass_hat_k[1] == pytest.approx((1 + 0 + 0) / 3)


def test_values_must_be_zero_or_one() -> None:
    df = long_table(np.array([[3, 5]]), 8).astype({"value": float})
    df.loc[0, "value"] = 0.5
    with pytest.raises(ValueError, match=r"column 'value' .* must be 0 or 1 .* 1 = pass"):
        try_counts(df)


def test_korn_graubard_is_clopper_pearson_for_bernoulli_tasks() -> None:
    # tasks with 0/1 values: n* = m(1−m)/(s²/n) = n(n−1)/n·… ; with var = m(1−m)/n exactly,
    # the interval is Clopper–Pearson of x successes in n trials (scipy's exact interval)
    n, x = 30, 7
    m = x / n
    low, high = korn_graubard(m, m * (1 - m) / n, n, n - 1, 0.05)
    ci = stats.binomtest(x, n).proportion_ci(0.95, method="exact")
    assert float(low) == pytest.approx(ci.low, rel=1e-9)
    assert float(high) == pytest.approx(ci.high, rel=1e-9)
    # no variance, all pass: the tasks as trials, [(α/2)^(1/n), 1]
    low, high = korn_graubard(1.0, 0.0, 20, 19, 0.05)
    assert float(low) == pytest.approx(0.025 ** (1 / 20)) and float(high) == 1.0


def test_bell_mccaffrey_closed_form_matches_the_matrix_form() -> None:
    rng = np.random.default_rng(3)
    for _ in range(20):
        sizes = rng.integers(1, 12, rng.integers(2, 15)).astype(float)
        assert float(_bm_df(sizes)) == pytest.approx(_bell_mccaffrey_df(sizes), rel=1e-10)
    assert np.isnan(_bm_df(np.array([5.0, 0.0])))  # one cluster present: no df


# ---------------------------------------------------------------- pairs


def _random_counts(rng: np.random.Generator, systems: int, tasks: int, tries: int = 8,
                   missing: float = 0.0) -> TryCounts:
    p = rng.beta(0.5, 0.5, (1, tasks)) * rng.uniform(0.6, 1.0, (systems, 1))
    n = np.full((systems, tasks), tries)
    n[rng.random((systems, tasks)) < missing] = 0
    c = rng.binomial(n, p)
    return TryCounts("b", "m", tuple(f"s{i}" for i in range(systems)),
                     tuple(f"t{j}" for j in range(tasks)), n, c)


def mover(xa: np.ndarray, xb: np.ndarray, blocks_a: np.ndarray, blocks_b: np.ndarray
          ) -> tuple[float, float]:
    """Zou & Donner (2008) MOVER for a paired difference of means, written out for one pair:
    L = d − √((m_a − l_a)² − 2ρ(m_a − l_a)(u_b − m_b) + (u_b − m_b)²), U likewise, with each
    side's Korn–Graubard interval and ρ the correlation of the paired values."""
    n = len(xa)
    ma, mb = xa.mean(), xb.mean()
    la, ua = korn_graubard(ma, xa.var(ddof=1) / n, n, n - 1, 0.05, blocks_a.sum())
    lb, ub = korn_graubard(mb, xb.var(ddof=1) / n, n, n - 1, 0.05, blocks_b.sum())
    rho = float(np.corrcoef(xa, xb)[0, 1]) if xa.std() > 0 and xb.std() > 0 else 0.0
    d = ma - mb
    low = d - math.sqrt((ma - la) ** 2 - 2 * rho * (ma - la) * (ub - mb) + (ub - mb) ** 2)
    high = d + math.sqrt((ua - ma) ** 2 - 2 * rho * (ua - ma) * (mb - lb) + (mb - lb) ** 2)
    return max(low, -1.0), min(high, 1.0)


def test_pairs_equal_a_loop_of_paired_t_tests() -> None:
    rng = np.random.default_rng(11)
    counts = _random_counts(rng, 5, 40, missing=0.15)
    res = pass_k_pairs(counts, 4)
    x = pass_hat_k(counts.tries, counts.successes, 4)
    y = pass_at_k(counts.tries, counts.successes, 4)
    for row in res.table.itertuples():
        a, b = counts.systems.index(row.system_a), counts.systems.index(row.system_b)
        both = ~np.isnan(x[a]) & ~np.isnan(x[b])
        d = x[a, both] - x[b, both]
        ref = stats.ttest_rel(x[a, both], x[b, both])
        assert row.tasks == both.sum()
        assert row.diff_pass_hat_k == pytest.approx(d.mean(), abs=1e-12)
        assert row.pvalue == pytest.approx(ref.pvalue, rel=1e-8)
        low, high = mover(x[a, both], x[b, both], counts.tries[a, both] // 4,
                          counts.tries[b, both] // 4)
        assert row.diff_pass_hat_k_low == pytest.approx(low, abs=1e-10)
        assert row.diff_pass_hat_k_high == pytest.approx(high, abs=1e-10)
        assert row.diff_pass_hat_k_low <= row.diff_pass_hat_k <= row.diff_pass_hat_k_high
        ref_at = stats.ttest_rel(y[a, both], y[b, both])
        assert row.pvalue_pass_at_k == pytest.approx(ref_at.pvalue, rel=1e-8)
    # Holm–Šidák over the pairs, pass^k's p-values
    from engine.stats._multitest import adjust_pvalues

    assert np.allclose(res.table["pvalue_adj"],
                       adjust_pvalues(res.table["pvalue"], method="holm-sidak"))
    sq = res.matrix()
    assert sq.loc["s1", "s0"] == pytest.approx(-sq.loc["s0", "s1"])


def test_clustered_pairs_equal_cr2() -> None:
    rng = np.random.default_rng(5)
    counts = _random_counts(rng, 4, 36)
    design = ClusterDesign.from_codes(np.arange(36) % 7, "family")
    clustered = TryCounts(counts.benchmark, counts.metric, counts.systems, counts.examples,
                          counts.tries, counts.successes, design)
    res = pass_k_pairs(clustered, 2).table
    x = pass_hat_k(counts.tries, counts.successes, 2)
    ia, ja = np.triu_indices(4, 1)
    ref = clustered_pairs(x, design, ia, ja, "two-sided")
    assert np.allclose(res["diff_pass_hat_k"], ref.diff, atol=1e-12)
    assert np.allclose(res["pvalue"], ref.pvalue, rtol=1e-8)
    # each side's CR2 variance (the MOVER's inputs) is clustered_mean_se's
    d = _pair_diffs(x, np.ones_like(x, dtype=bool), ia, ja, design)
    assert np.allclose(np.sqrt(d.var_a), clustered_mean_se(x, design)[ia], rtol=1e-10)
    assert np.allclose(d.se, ref.se, rtol=1e-10)
    assert ((res["diff_pass_hat_k_low"] <= res["diff_pass_hat_k"])
            & (res["diff_pass_hat_k"] <= res["diff_pass_hat_k_high"])).all()


def test_identical_systems_are_not_different() -> None:
    counts = _random_counts(np.random.default_rng(2), 1, 25)
    twice = TryCounts("b", "m", ("a", "b"), counts.examples,
                      np.vstack([counts.tries] * 2), np.vstack([counts.successes] * 2))
    row = pass_k_pairs(twice, 4).table.iloc[0]
    assert row["diff_pass_hat_k"] == 0 and row["pvalue"] == 1.0 and not row["significant"]


# ---------------------------------------------------------------- properties


@pytest.mark.slow
@settings(max_examples=30, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), systems=st.integers(2, 5), tasks=st.integers(3, 12),
       k=st.integers(1, 4))
def test_relabelling_systems_and_reordering_tasks(seed: int, systems: int, tasks: int,
                                                  k: int) -> None:
    rng = np.random.default_rng(seed)
    wins = rng.integers(0, 5, (systems, tasks))
    df = long_table(wins, 4, seed=seed)
    base = reliability(df, k=k)
    # relabel systems (a permutation of the names) and rename + shuffle the tasks
    perm = rng.permutation(systems)
    names = {f"s{i}": f"z{perm[i]}" for i in range(systems)}
    task_perm = rng.permutation(tasks)
    renamed = df.assign(system=df["system"].map(names),
                        example_id=df["example_id"].map(
                            {f"t{j:03d}": f"u{task_perm[j]:03d}" for j in range(tasks)}))
    renamed = renamed.sample(frac=1.0, random_state=seed % 1000).reset_index(drop=True)
    other = reliability(renamed, k=k, systems=[names[s] for s in base.estimates.systems])
    a, b = base.estimates.table, other.estimates.table
    cols = [c for c in a.columns if c != "system"]
    pd.testing.assert_frame_equal(a[cols], b[cols], check_exact=False, rtol=1e-12)
    assert list(b["system"]) == [names[s] for s in a["system"]]
    pa, pb = base.pairs.table, other.pairs.table
    assert list(pb["system_a"]) == [names[s] for s in pa["system_a"]]
    num = [c for c in pa.columns if c not in ("system_a", "system_b")]
    pd.testing.assert_frame_equal(pa[num], pb[num], check_exact=False, rtol=1e-10)
    assert base.flaky.counts.tolist() == other.flaky.counts.tolist()
    assert np.allclose(base.consistency.c_out, other.consistency.c_out, equal_nan=True)


# ---------------------------------------------------------------- flaky, consistency, curves


def test_flaky_interval_is_binomtest_exact() -> None:
    n = np.repeat(np.arange(1, 13), 13)
    c = np.tile(np.arange(13), 12)
    keep = c <= n
    n, c = n[keep], c[keep]
    counts = TryCounts("b", "m", ("s",), tuple(f"t{i}" for i in range(len(n))),
                       n[None, :], c[None, :])
    res = flaky_tasks(counts)
    for row in res.table.itertuples():
        ci = stats.binomtest(int(row.successes), int(row.tries)).proportion_ci(
            0.95, method="exact")
        assert row.low == pytest.approx(ci.low, abs=1e-12)
        assert row.high == pytest.approx(ci.high, abs=1e-12)
        # the rule: the interval excludes 0 and 1 ⇔ the tries disagree
        assert row.flaky == (0 < row.successes < row.tries)
    assert res.counts[0] == int(((c > 0) & (c < n)).sum())
    strict = flaky_tasks(counts, margin=0.1)
    assert strict.counts[0] < res.counts[0]


def test_outcome_consistency_is_hals_formula() -> None:
    rng = np.random.default_rng(9)
    counts = _random_counts(rng, 3, 30)
    res = outcome_consistency(counts)
    for s in range(3):
        per = []
        for n, c in zip(counts.tries[s], counts.successes[s], strict=True):
            y = np.r_[np.ones(c), np.zeros(n - c)]
            p = y.mean()
            per.append(min(1.0, max(0.0, 1 - y.var(ddof=1) / (p * (1 - p) + 1e-8))))
        assert res.c_out[s] == pytest.approx(np.mean(per), abs=1e-12)
        assert res.low[s] <= res.c_out[s] <= res.high[s]


def test_curves_at_k_equal_the_estimates() -> None:
    counts = _random_counts(np.random.default_rng(4), 3, 30)
    curves = pass_k_curves(counts)
    assert curves.ks.tolist() == list(range(1, 9))
    for k in (1, 3, 8):
        est = pass_k_estimates(counts, k)
        assert np.allclose(curves.pass_hat_k[:, k - 1], est.pass_hat_k)
        assert np.allclose(curves.pass_at_k_low[:, k - 1], est.pass_at_k_low)
        # the simultaneous band holds the pointwise interval
        assert (curves.pass_hat_k_band_low[:, k - 1] <= est.pass_hat_k_low + 1e-12).all()
    # pass@k rises and pass^k falls with k
    assert (np.diff(curves.pass_at_k, axis=1) >= -1e-12).all()
    assert (np.diff(curves.pass_hat_k, axis=1) <= 1e-12).all()
    assert len(curves.table) == 3 * 8


def test_gate_is_the_pair_difference() -> None:
    rng = np.random.default_rng(8)
    wins = np.vstack([rng.binomial(8, 0.9, 30), rng.binomial(8, 0.6, 30)])
    df = long_table(wins, 8)
    gate = pass_k_gate(df, baseline="s0", candidate="s1", k=4,
                       options=TestOptions(alpha=0.05))
    pair = pass_k_pairs(try_counts(df), 4).table.iloc[0]
    assert gate.diff == pytest.approx(-pair["diff_pass_hat_k"])
    assert gate.pvalue == pytest.approx(pair["pvalue"])
    assert gate.worse and not gate.better and gate.verdict().startswith("fail")
    with pytest.raises(ValueError, match="share 0 task"):
        pass_k_gate(df, baseline="s0", candidate="s1", k=9)


def test_clustered_reliability_runs_and_widens() -> None:
    rng = np.random.default_rng(1)
    fam = np.arange(40) // 4
    p = rng.beta(0.5, 0.5, 10)[fam]
    wins = rng.binomial(8, np.vstack([p, p * 0.9]))
    df = long_table(wins, 8, cluster=fam)
    plain = reliability(df, k=2)
    clustered = reliability(df, k=2, cluster="family")
    assert clustered.counts.clusters is not None
    assert np.allclose(plain.estimates.pass_hat_k, clustered.estimates.pass_hat_k)
    width = (clustered.estimates.pass_hat_k_high - clustered.estimates.pass_hat_k_low)
    assert (width > plain.estimates.pass_hat_k_high - plain.estimates.pass_hat_k_low).all()


# ---------------------------------------------------------------- per-task gates


def _two(base: list[tuple[int, int]], cand: list[tuple[int, int]]) -> TryCounts:
    """Counts of systems base, cand from (tries, successes) per task."""
    n = np.array([[t for t, _ in base], [t for t, _ in cand]])
    c = np.array([[s for _, s in base], [s for _, s in cand]])
    return TryCounts("b", "m", ("base", "cand"), tuple(f"t{i}" for i in range(n.shape[1])),
                     n, c)


def test_broken_rule_fires_only_on_always_passed_then_always_failed() -> None:
    # t0: always passed on the baseline, failed every try of the candidate -> broken;
    # t1: always passed, candidate flaky (1 of 8) -> not; t2: baseline flaky, candidate 0/8
    # -> not; t3: both always pass -> not; t4: the candidate never ran it -> left out
    counts = _two([(8, 8), (8, 8), (8, 7), (8, 8), (8, 8)],
                  [(8, 0), (8, 1), (8, 0), (8, 8), (0, 0)])
    gate = task_gate(counts, baseline="base", candidate="cand", rule="broken")
    assert gate.failed
    assert gate.failing()["example_id"].tolist() == ["t0"]
    assert gate.table["example_id"].tolist() == ["t0", "t1", "t2", "t3"]
    # the Fisher exact p-value of each task = scipy.stats.fisher_exact one-sided
    for row in gate.table.itertuples():
        table = [[row.baseline_successes, row.baseline_tries - row.baseline_successes],
                 [row.successes, row.tries - row.successes]]
        assert row.pvalue == pytest.approx(
            stats.fisher_exact(table, alternative="greater").pvalue, rel=1e-12)
    assert gate.table["pvalue"].iloc[0] == pytest.approx(1 / math.comb(16, 8), rel=1e-12)
    # a flaky candidate with a far lower pass^k does not fail the broken rule
    calm = task_gate(_two([(8, 8)] * 4, [(8, 1)] * 4), baseline="base", candidate="cand",
                     rule="broken")
    assert not calm.failed


def test_pass_rate_rule_is_an_adjusted_exact_binomial_test() -> None:
    counts = _two([(8, 8)] * 4, [(20, 2), (20, 14), (20, 20), (4, 0)])
    gate = task_gate(counts, baseline="base", candidate="cand", rule="pass-rate",
                     threshold=0.8, alpha=0.05, correction="holm")
    want = [stats.binomtest(int(c), int(n), 0.8, alternative="less").pvalue
            for n, c in [(20, 2), (20, 14), (20, 20), (4, 0)]]
    np.testing.assert_allclose(gate.table["pvalue"], want, rtol=1e-10)
    from statsmodels.stats.multitest import multipletests

    np.testing.assert_allclose(gate.table["pvalue_adj"],
                               multipletests(want, method="holm")[1], rtol=1e-10)
    # 2 of 20 (p ~ 1e-11) and 0 of 4 (p = 0.2^4 = 0.0016, Holm × 3 = 0.0048) are shown below
    # 0.8; 14 of 20 (p = 0.196) and 20 of 20 are not
    assert gate.failing()["example_id"].tolist() == ["t0", "t3"]
    assert gate.failed
    # the interval beside each task is the exact (Clopper–Pearson) one of binomtest
    ci = stats.binomtest(2, 20).proportion_ci(0.95, method="exact")
    assert gate.table["low"].iloc[0] == pytest.approx(ci.low, rel=1e-10)
    assert gate.table["high"].iloc[0] == pytest.approx(ci.high, rel=1e-10)
    with pytest.raises(ValueError, match="threshold: the pass-rate rule needs"):
        task_gate(counts, baseline="base", candidate="cand", rule="pass-rate")
    with pytest.raises(ValueError, match="rule: one of"):
        task_gate(counts, baseline="base", candidate="cand", rule="nope")


def test_gate_with_a_task_rule_decides_on_the_rule() -> None:
    # the candidate's pass^4 is far lower (flaky everywhere) but no task that always passed
    # on the baseline fails every try: the difference says worse, the broken rule passes
    rng = np.random.default_rng(3)
    wins = np.vstack([np.full(30, 8), rng.binomial(8, 0.5, 30).clip(1, 7)])
    df = long_table(wins, 8)
    plain = pass_k_gate(df, baseline="s0", candidate="s1", k=4)
    assert plain.worse and plain.fails and plain.task is None
    tolerant = pass_k_gate(df, baseline="s0", candidate="s1", k=4, fail_on="broken")
    assert tolerant.worse and not tolerant.fails
    assert tolerant.verdict().startswith("pass: no task that always passed")
    assert tolerant.diff == plain.diff and tolerant.pvalue == plain.pvalue
    wins[1, 0] = 0  # one task now fails every try of the candidate
    broken = pass_k_gate(long_table(wins, 8), baseline="s0", candidate="s1", k=4,
                         fail_on="broken")
    assert broken.fails and broken.verdict().startswith("fail: 1 task(s)")
    with pytest.raises(ValueError, match="min_pass_rate: only with"):
        pass_k_gate(df, baseline="s0", candidate="s1", k=4, min_pass_rate=0.5)
    with pytest.raises(ValueError, match="fail_on: one of"):
        pass_k_gate(df, baseline="s0", candidate="s1", k=4, fail_on="never")
