"""PPI++ means and paired differences (engine.stats._ppi) against the authors' package.

Reference: ``ppi_py`` 0.2.3 (Angelopoulos, Duchi & Zrnic; github aangelopoulos/ppi_py), a
test-only dependency (requirements-test.txt): ``ppi_mean_pointestimate``, ``ppi_mean_ci``,
``ppi_mean_pval`` and ``_calc_lam_glm(clip=True)``, on random inputs.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import TestOptions
from engine.stats._ppi import (
    ppi_labels_needed,
    ppi_mean,
    ppi_means,
    ppi_pairs,
    ppi_standard_error,
)

ppi_py = pytest.importorskip("ppi_py")
from ppi_py.ppi import _calc_lam_glm  # type: ignore[import-untyped]  # noqa: E402


def _ref(y: np.ndarray, f: np.ndarray, fu: np.ndarray, alpha: float) -> tuple[float, ...]:
    """ppi_py's estimate, interval and tuned lambda (its README's procedure)."""
    pe = float(np.squeeze(ppi_py.ppi_mean_pointestimate(y, f, fu)))
    lo, hi = (float(np.squeeze(v)) for v in ppi_py.ppi_mean_ci(y, f, fu, alpha=alpha))
    pe1 = ppi_py.ppi_mean_pointestimate(y, f, fu, lam=1)
    lam = float(_calc_lam_glm(y - pe1, f - pe1, fu - pe1, np.eye(1), clip=True))
    return pe, lo, hi, lam


def _random_case(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    n, nu = int(rng.integers(3, 300)), int(rng.integers(1, 3000))
    y = rng.normal(size=n) * rng.uniform(0.1, 5) + rng.normal() * 3
    f = y * rng.uniform(-1, 2) + rng.normal(size=n) * rng.uniform(0.01, 3) + rng.normal()
    fu = rng.normal(size=nu) * f.std() + f.mean()
    return y, f, fu


@pytest.mark.slow
def test_mean_and_lambda_equal_ppi_py_on_random_inputs() -> None:
    rng = np.random.default_rng(20231105)
    for _ in range(300):
        y, f, fu = _random_case(rng)
        alpha = float(rng.uniform(0.01, 0.3))
        pe, lo, hi, lam = _ref(y, f, fu, alpha)
        r = ppi_mean(y, f, fu, alpha=alpha)
        assert r.estimate == pytest.approx(pe, abs=1e-10)
        assert r.lam == pytest.approx(lam, abs=1e-10)
        assert (r.low, r.high) == (pytest.approx(lo, abs=1e-10), pytest.approx(hi, abs=1e-10))


def test_pvalue_equals_ppi_py_at_the_same_lambda() -> None:
    # ppi_mean_pval tunes lambda without the clip; at a given lambda both agree
    rng = np.random.default_rng(7)
    for _ in range(100):
        y, f, fu = _random_case(rng)
        r = ppi_mean(y, f, fu, null=0.3)
        ref = float(np.squeeze(ppi_py.ppi_mean_pval(y, f, fu, lam=r.lam, null=0.3)))
        assert r.pvalue == pytest.approx(ref, abs=1e-10)


def test_readme_procedure_on_synthetic_galaxies() -> None:
    # ppi_py README's mean example's procedure (n = 1,000 labelled, alpha = 0.1,
    # np.random.seed(0)) on galaxies-like synthetic data (binary Y, probability Yhat); the
    # real data: test_readme_galaxies_interval_reproduced
    gen = np.random.RandomState(0)
    y_total = (gen.rand(16_743) < 0.26).astype(float)
    yhat_total = np.clip(0.8 * y_total + 0.1 + 0.15 * gen.randn(16_743), 0, 1)
    np.random.seed(0)
    idx = np.random.permutation(y_total.shape[0])
    n = 1000
    y, f, fu = y_total[idx[:n]], yhat_total[idx[:n]], yhat_total[n:]
    lo, hi = ppi_py.ppi_mean_ci(y, f, fu, alpha=0.1)
    r = ppi_mean(y, f, fu, alpha=0.1)
    assert (r.low, r.high) == (pytest.approx(float(np.squeeze(lo)), abs=1e-10),
                               pytest.approx(float(np.squeeze(hi)), abs=1e-10))


GALAXIES = Path(__file__).resolve().parents[2] / "data" / "ppi-galaxies" / "galaxies.npz"


def test_readme_galaxies_interval_reproduced() -> None:
    # ppi_py README's mean example on its galaxies data (tests/data/README.md: the copy
    # committed by NUDTPingLuo/Fed_PPI): n = 1,000 labelled, alpha = 0.1, np.random.seed(0),
    # the README's PPI interval (0.2322, 0.2626), with its Yhat_total[n:] as the unlabelled set
    data = np.load(GALAXIES)
    y_total, yhat_total = data["Y"], data["Yhat"]
    assert y_total.shape == yhat_total.shape == (16_743,)
    np.random.seed(0)
    idx = np.random.permutation(y_total.shape[0])
    n = 1000
    r = ppi_mean(y_total[idx[:n]], yhat_total[idx[:n]], yhat_total[n:], alpha=0.1)
    assert (round(r.low, 4), round(r.high, 4)) == (0.2322, 0.2626)
    lo, hi = ppi_py.ppi_mean_ci(y_total[idx[:n]], yhat_total[idx[:n]], yhat_total[n:],
                                alpha=0.1)
    assert (r.low, r.high) == (pytest.approx(float(np.squeeze(lo)), abs=1e-10),
                               pytest.approx(float(np.squeeze(hi)), abs=1e-10))


def _matrices(rng: np.random.Generator, s: int = 5, e: int = 300, per_example: bool = False):
    h = rng.normal(size=(s, e)) + np.arange(s)[:, None]
    j = h + rng.normal(size=(s, e)) * 0.5 + rng.uniform(0, 1, s)[:, None]
    keep = (np.broadcast_to(rng.random(e) < 0.3, (s, e)) if per_example
            else rng.random((s, e)) < 0.4)
    j[0, :5] = np.nan  # the judge missed some examples
    return j, np.where(keep, h, np.nan)


def test_every_system_equals_one_at_a_time() -> None:
    rng = np.random.default_rng(3)
    j, h = _matrices(rng)
    res = ppi_means(j, h, alpha=0.1)
    for s in range(j.shape[0]):
        p = np.isfinite(j[s])
        lab = p & np.isfinite(h[s])
        pe, lo, hi, lam = _ref(h[s, lab], j[s, lab], j[s, p & ~lab], 0.1)
        assert res.estimate[s] == pytest.approx(pe, abs=1e-10)
        assert res.lam[s] == pytest.approx(lam, abs=1e-10)
        assert res.low[s] == pytest.approx(lo, abs=1e-10)
        assert res.n_labelled[s] == lab.sum()


@pytest.mark.parametrize("per_example", [False, True])
def test_every_pair_equals_ppi_py_on_the_differences(per_example: bool) -> None:
    rng = np.random.default_rng(11)
    j, h = _matrices(rng, per_example=per_example)
    names = tuple("abcde")
    res = ppi_pairs(j, h, names, options=TestOptions(alpha=0.1, correction="holm"))
    for row in res.table.itertuples():
        a, b = names.index(row.system_a), names.index(row.system_b)
        p = np.isfinite(j[a]) & np.isfinite(j[b])
        lab = p & np.isfinite(h[a]) & np.isfinite(h[b])
        d, dh = j[a] - j[b], h[a] - h[b]
        pe, lo, hi, lam = _ref(dh[lab], d[lab], d[p & ~lab], 0.1)
        assert row.estimate == pytest.approx(pe, abs=1e-10)
        assert row.lam == pytest.approx(lam, abs=1e-10)
        assert (row.low, row.high) == (pytest.approx(lo, abs=1e-10), pytest.approx(hi, abs=1e-10))
        assert row.n_both == lab.sum()
    from engine import adjust_pvalues  # multiplicity as for every other test

    assert np.allclose(res.table["p_adjusted"], adjust_pvalues(res.table["pvalue"], method="holm"))


@settings(max_examples=60)
@given(st.integers(0, 10_000), st.floats(0.0, 0.95))
def test_never_wider_than_human_only_in_expectation_closed_form(seed: int, rho: float) -> None:
    # the tuned-lambda standard error is at most the human-only one (lambda = 0 is allowed)
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 500))
    total = n + int(rng.integers(1, 5000))
    vy, vf = rng.uniform(0.1, 4, 2)
    se = ppi_standard_error(n, total, var_human=vy, var_judge=vf, cov=rho * np.sqrt(vy * vf))
    assert se <= np.sqrt(vy / n) + 1e-12


def test_labels_needed_inverts_the_standard_error() -> None:
    rng = np.random.default_rng(5)
    for _ in range(200):
        total = int(rng.integers(50, 5000))
        vy, vf = rng.uniform(0.2, 3, 2)
        cov = rng.uniform(0, 0.99) * np.sqrt(vy * vf)
        target = float(rng.uniform(0.02, 0.5))
        n = int(ppi_labels_needed(target, total, var_human=vy, var_judge=vf, cov=cov)[0])
        if n > total:  # out of reach: even every example labelled is not enough
            assert ppi_standard_error(total - 1, total, var_human=vy, var_judge=vf,
                                      cov=cov) > target
            continue
        assert ppi_standard_error(n, total, var_human=vy, var_judge=vf, cov=cov) <= target + 1e-12
        if n > 2:
            assert ppi_standard_error(n - 1, total, var_human=vy, var_judge=vf,
                                      cov=cov) > target - 1e-12


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"alpha": 1.5}, "alpha: must be strictly between 0 and 1"),
    ({"lam": 2.0}, "lam: must be in"),
])
def test_bad_options_are_named(kwargs: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        ppi_mean([1.0, 0.0], [0.5, 0.5], [0.2], **kwargs)


def test_mismatched_lengths_are_named() -> None:
    with pytest.raises(ValueError, match="yhat: must have one judge score per human label"):
        ppi_mean([1.0, 0.0, 1.0], [0.5, 0.5], [0.2])
