"""A joint model of the whole results matrix: every system ranked, missing cells allowed.

The two-parameter logistic (2PL) item-response form at the level of benchmarks, as the
Epoch Capabilities Index fits it (Ho, Denain, Atanasov, Albanie & Shah 2025, "A Rosetta
Stone for AI Benchmarks", arXiv:2512.00193): system s's expected score on benchmark b is

    p_sb = σ(a_b (θ_s − d_b)),   a_b = exp(λ_b),

with ability θ_s, difficulty d_b and discrimination a_b. Chain of named steps:

cells (:mod:`._joint_cells`: each cell's example scores in [0, 1]) → identifiability
(connected, every benchmark run by ≥ 3 systems; else refuse, naming who and why) →
maximum (quasi-)likelihood over the observed cells → sandwich covariance clustered by
example id → abilities on a readable scale with intervals → simultaneous rank sets from
the abilities and their covariance (:func:`engine.ranking._rank_sets.rank_sets`) →
per-benchmark residuals.

*Likelihood.* Cell (s, b) holds y_sb = Σ_e x_sbe over the n_sb examples s scored. For 0/1
scores this is a binomial count and the log-likelihood Σ y log p + (n − y) log(1 − p) is
exact; for scores in [0, 1] (a fraction of samples, a rescaled metric) the same function is
the quasi-likelihood of a mean with variance function μ(1 − μ) (Wedderburn 1974; McCullagh
& Nelder 1989, §9.2): its estimating equations Σ ∂η/∂φ (y − n p) = 0 are unbiased whatever
the dispersion, and the sandwich below gives the variance without assuming it. Using the
counts weights a benchmark by its examples, unlike a least-squares fit to the cell means.

*Identifiability.* θ → cθ + k, d → cd + k, a → a/c leaves every p unchanged; the fit is
made unique by Σ_s θ_s = 0 and Σ_b λ_b = 0 (mean log-discrimination 0), imposed by
optimising in an orthonormal (Helmert) basis of each constraint's null space, with a light
ridge ρ/2 ‖φ‖² on the free coordinates (ECI's 0.1), which keeps a system that solved every
example (or a benchmark all solve) finite.

*Uncertainty.* The examples are the randomisation unit: the covariance of the estimate is
the sandwich H⁻¹ M H⁻¹ with H the (penalised) Fisher information and M = Σ_e g_e g_eᵀ the
outer products of each example's score contribution summed over every system and every
benchmark holding that example id (C/(C − 1) small-sample factor) — the linearisation of
the bootstrap that resamples examples within benchmarks, shared ids together (the
infinitesimal jackknife; Efron 1982, §6), one matrix product instead of refits. It is
robust to the examples' varying difficulty (the binomial variance is not assumed) and to
benchmarks that share examples. Its coverage is checked by ``benchmarks/calibrate_joint.py``.

*Readable scale.* Ability is reported as the predicted score, in percent, on a reference
benchmark of median difficulty and discrimination 1 (geometric mean of the a_b):
100 σ(θ_s − median d), a monotone map, so intervals map endpoint by endpoint.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
import pandas as pd
from scipy import optimize, special, stats

from .._contract import MetricSpec
from ..ranking._rank_sets import RankSets, rank_sets
from ._joint_cells import Cells, identifiability, joint_cells

__all__ = ["JointFit", "JOINT_MODELS", "fit_cells", "joint_model"]

JointForm = Literal["2pl", "rasch"]
JOINT_MODELS: tuple[JointForm, ...] = ("2pl", "rasch")
#: A benchmark fits badly when its residuals are this many times the median benchmark's.
BAD_FIT_RATIO = 2.0


@dataclass(frozen=True)
class JointFit:
    """The joint model's abilities, rank sets and fit diagnostics.

    ``table`` (best first): system, ability (predicted % on the reference benchmark),
    ability_low, ability_high (1 − alpha, pointwise), theta, se (logit scale), rank,
    rank_set_low, rank_set_high (simultaneous 1 − alpha rank sets), in_best_set,
    benchmarks_run. ``benchmark_fit`` (data order): benchmark, systems, difficulty,
    discrimination, rmse_points (root mean square of observed − predicted mean, in
    percentage points), rms_z (the same residuals over each cell's own standard error),
    fits_badly. ``cov``: the abilities' covariance (logit scale), rows in ``systems`` order;
    ``ran``: (systems, benchmarks) whether each system has a score there.
    """

    table: pd.DataFrame
    benchmark_fit: pd.DataFrame
    systems: tuple[str, ...]
    benchmarks: tuple[str, ...]
    theta: np.ndarray
    cov: np.ndarray
    rank_sets: RankSets
    cells_observed: int
    cells_total: int
    few_benchmarks: tuple[str, ...]
    worst_benchmark: str
    badly_fitting: tuple[str, ...]
    reference_difficulty: float
    model: JointForm
    ridge: float
    alpha: float
    converged: bool
    iterations: int
    rescaled: tuple[str, ...]
    ran: np.ndarray

    def coverage(self, system: str) -> list[str]:
        """The benchmarks ``system`` ran, in the selection's order."""
        i = self.systems.index(system)
        return [b for b, r in zip(self.benchmarks, self.ran[i], strict=True) if r]

    @property
    def cells_missing(self) -> int:
        """How many (system, benchmark) cells of the selection have no score."""
        return self.cells_total - self.cells_observed


def _helmert(k: int) -> np.ndarray:
    """Orthonormal basis (k × (k − 1)) of the vectors summing to 0."""
    if k < 2:
        return np.zeros((k, 0))
    q, _ = np.linalg.qr(np.eye(k) - 1.0 / k)
    return np.asarray(q[:, : k - 1], dtype=float)


@dataclass(frozen=True)
class _Design:
    s: np.ndarray  # system index of each observed cell
    b: np.ndarray  # benchmark index of each observed cell
    y: np.ndarray  # sum of scores
    n: np.ndarray  # examples scored
    n_sys: int
    n_bench: int
    rasch: bool

    @property
    def basis(self) -> np.ndarray:
        """Full parameters φ = (θ, d[, λ]) = Z q, q free."""
        blocks = [_helmert(self.n_sys), np.eye(self.n_bench)]
        if not self.rasch:
            blocks.append(_helmert(self.n_bench))
        rows = sum(b.shape[0] for b in blocks)
        z = np.zeros((rows, sum(b.shape[1] for b in blocks)))
        r = c = 0
        for blk in blocks:
            z[r:r + blk.shape[0], c:c + blk.shape[1]] = blk
            r, c = r + blk.shape[0], c + blk.shape[1]
        return z

    def unpack(self, phi: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        s, b = self.n_sys, self.n_bench
        lam = np.zeros(b) if self.rasch else phi[s + b:]
        return phi[:s], phi[s:s + b], lam


def _eta(d: _Design, phi: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    theta, diff, lam = d.unpack(phi)
    a = np.exp(lam)[d.b]
    gap = theta[d.s] - diff[d.b]
    return a * gap, a, gap


def _objective(q: np.ndarray, d: _Design, z: np.ndarray, ridge: float, scale: float
               ) -> tuple[float, np.ndarray]:
    """−(log quasi-likelihood) + ridge/2 ‖q‖², over ``scale``, and its gradient in q."""
    phi = z @ q
    eta, a, gap = _eta(d, phi)
    ll = float(np.sum(d.y * eta - d.n * np.logaddexp(0.0, eta)))
    r = d.y - d.n * special.expit(eta)
    g = [np.bincount(d.s, r * a, d.n_sys), np.bincount(d.b, -r * a, d.n_bench)]
    if not d.rasch:
        g.append(np.bincount(d.b, r * eta, d.n_bench))
    grad = -(z.T @ np.concatenate(g)) + ridge * q
    return (-ll + 0.5 * ridge * float(q @ q)) / scale, grad / scale


def _fisher(d: _Design, phi: np.ndarray) -> np.ndarray:
    """Σ_cells n p (1 − p) J Jᵀ, J = ∂η/∂φ (θ: a, d: −a, λ: η), as one dense matrix."""
    eta, a, _ = _eta(d, phi)
    p = special.expit(eta)
    w = d.n * p * (1 - p)
    s, b = d.n_sys, d.n_bench
    size = s + b + (0 if d.rasch else b)
    h = np.zeros((size, size))
    wa2 = w * a * a
    h[np.arange(s), np.arange(s)] = np.bincount(d.s, wa2, s)
    h[d.s, s + d.b] = -wa2
    h[s + np.arange(b), s + np.arange(b)] = np.bincount(d.b, wa2, b)
    if not d.rasch:
        h[d.s, s + b + d.b] = w * a * eta
        h[s + np.arange(b), s + b + np.arange(b)] = np.bincount(d.b, -w * a * eta, b)
        h[s + b + np.arange(b), s + b + np.arange(b)] = np.bincount(d.b, w * eta * eta, b)
    upper = np.triu(h, 1)
    return np.asarray(np.triu(h) + upper.T, dtype=float)


def _meat(cells: Cells, d: _Design, phi: np.ndarray) -> np.ndarray:
    """Σ_e g_e g_eᵀ over example ids e, g_e the example's score contribution to every
    parameter, summed over the systems and the benchmarks holding id e."""
    theta, diff, lam = d.unpack(phi)
    s, b = d.n_sys, d.n_bench
    codes, at = pd.factorize(np.concatenate(cells.example_ids))
    size = s + b + (0 if d.rasch else b)
    g = np.zeros((len(at), size))
    start = 0
    for j, x in enumerate(cells.scores):
        idx = codes[start:start + x.shape[1]]
        start += x.shape[1]
        a = float(np.exp(lam[j]))
        gap = theta - diff[j]
        r = np.where(np.isnan(x), 0.0, x - special.expit(a * gap)[:, None])
        g[idx, :s] += a * r.T
        g[idx, s + j] += -a * r.sum(axis=0)
        if not d.rasch:
            g[idx, s + b + j] += a * (gap @ r)
    m = g.T @ g
    return np.asarray(m * len(at) / max(len(at) - 1, 1), dtype=float)


def _separated(cells: Cells) -> np.ndarray:
    """Systems whose every score is 1, or every score 0 (their ability is only bounded)."""
    lo = np.nanmin(np.column_stack([np.where(np.isnan(x), np.inf, x).min(axis=1)
                                    for x in cells.scores]), axis=1)
    hi = np.nanmax(np.column_stack([np.where(np.isnan(x), -np.inf, x).max(axis=1)
                                    for x in cells.scores]), axis=1)
    return np.asarray((lo == hi) & ((hi == 0) | (hi == 1)))


def _design(cells: Cells, rasch: bool) -> _Design:
    ran = cells.ran
    ss, bb, yy, nn = [], [], [], []
    for j, x in enumerate(cells.scores):
        rows = np.flatnonzero(ran[:, j])
        ss.append(rows)
        bb.append(np.full(len(rows), j))
        yy.append(np.nansum(x[rows], axis=1))
        nn.append((~np.isnan(x[rows])).sum(axis=1).astype(float))
    return _Design(np.concatenate(ss), np.concatenate(bb), np.concatenate(yy),
                   np.concatenate(nn), len(cells.systems), len(cells.benchmarks), rasch)


def _start(d: _Design, z: np.ndarray) -> np.ndarray:
    """θ and d from the cells' logits (η = θ − d with a = 1), projected on the basis."""
    p = np.clip((d.y + 0.5) / (d.n + 1.0), 1e-3, 1 - 1e-3)
    logit = special.logit(p)
    diff = -np.bincount(d.b, logit, d.n_bench) / np.bincount(d.b, minlength=d.n_bench)
    theta = np.bincount(d.s, logit + diff[d.b], d.n_sys) / np.bincount(d.s, minlength=d.n_sys)
    theta = theta - theta.mean()
    phi = np.concatenate([theta, diff] + ([] if d.rasch else [np.zeros(d.n_bench)]))
    return np.asarray(z.T @ phi, dtype=float)


def fit_cells(cells: Cells, *, model: JointForm = "2pl", ridge: float = 0.1, alpha: float = 0.05,
              n_draws: int = 1_000, seed: int = 0, rank: bool = True) -> JointFit:
    """Fit the joint model to :class:`Cells`; see the module's notes.

    Parameters
    ----------
    cells : Cells
    model : {"2pl", "rasch"}
        "rasch" fixes every discrimination at 1 (the logistic GLM with system and
        benchmark effects).
    ridge : float
        ρ of the penalty ρ/2 ‖q‖² on the log-likelihood (0: plain maximum likelihood).
    alpha : float
        1 − coverage of the ability intervals and the rank sets.
    n_draws, seed
        Parametric draws of the rank sets and their seed.
    rank : bool
        False skips the rank sets (simulations of the intervals alone); the table's rank
        set columns are then the point ranks.

    Raises
    ------
    ValueError
        When a system cannot be placed on the common scale (the message names it and why).
    """
    if model not in JOINT_MODELS:
        raise ValueError(f"model: must be one of {list(JOINT_MODELS)}; got {model!r}")
    if not (ridge >= 0 and np.isfinite(ridge)):
        raise ValueError(f"ridge: must be a finite number ≥ 0; got {ridge}")
    if not 0 < alpha < 1:
        raise ValueError(f"alpha: must be strictly between 0 and 1; got {alpha}")
    if len(cells.systems) < 2:
        raise ValueError(f"systems: need at least 2 to rank; got {len(cells.systems)}")
    reasons = identifiability(cells)
    if reasons:
        raise ValueError("the joint model cannot place every system on one scale: "
                         + "; ".join(reasons))
    d = _design(cells, model == "rasch")
    z = d.basis
    scale = float(d.n.sum())
    res = optimize.minimize(_objective, _start(d, z), args=(d, z, ridge, scale), jac=True,
                            hess=lambda q, *a: (z.T @ _fisher(d, z @ q) @ z + ridge * np.eye(len(q)))
                            / scale,
                            method="trust-exact", options={"gtol": 1e-9, "maxiter": 500})
    phi = z @ res.x
    bread = np.linalg.inv(z.T @ _fisher(d, phi) @ z + ridge * np.eye(z.shape[1]))
    cov_q = bread @ (z.T @ _meat(cells, d, phi) @ z) @ bread
    cov_phi = z @ cov_q @ z.T
    theta, diff, lam = d.unpack(phi)
    cov = (cov_phi[: d.n_sys, : d.n_sys] + cov_phi[: d.n_sys, : d.n_sys].T) / 2
    # a system that solved every example it ran (or none) leaves no residual for the
    # sandwich to see: its variance is the model's, (penalised) Fisher, where that is larger
    model = (z @ bread @ z.T)[: d.n_sys, : d.n_sys]
    extra = np.where(_separated(cells), np.clip(np.diag(model) - np.diag(cov), 0, None), 0.0)
    cov = cov + np.diag(extra)
    return _result(cells, d, theta, diff, lam, cov, model, ridge, alpha, n_draws, seed, rank,
                   bool(res.success), int(res.nit))


def _benchmark_fit(cells: Cells, d: _Design, theta: np.ndarray, diff: np.ndarray,
                   lam: np.ndarray) -> pd.DataFrame:
    eta, _, _ = _eta(d, np.concatenate([theta, diff, lam]))
    pred = special.expit(eta)
    obs = d.y / d.n
    se = np.zeros(len(d.s))
    k = 0
    for j, x in enumerate(cells.scores):  # each cell's own standard error of its mean
        rows = np.flatnonzero(cells.ran[:, j])
        sd = np.nanstd(x[rows], axis=1, ddof=1) if x.shape[1] > 1 else np.zeros(len(rows))
        se[k:k + len(rows)] = np.nan_to_num(sd) / np.sqrt(d.n[k:k + len(rows)])
        k += len(rows)
    resid = obs - pred
    zres = np.where(se > 0, resid / np.where(se > 0, se, 1.0), 0.0)
    count = np.bincount(d.b, minlength=d.n_bench)
    rmse = 100 * np.sqrt(np.bincount(d.b, resid ** 2, d.n_bench) / count)
    rmsz = np.sqrt(np.bincount(d.b, zres ** 2, d.n_bench) / count)
    median = float(np.median(rmse))
    bad = (rmse > BAD_FIT_RATIO * median) & (rmsz > 2) if d.n_bench >= 3 else np.zeros(
        d.n_bench, dtype=bool)
    return pd.DataFrame({"benchmark": list(cells.benchmarks), "systems": count,
                         "difficulty": diff, "discrimination": np.exp(lam),
                         "rmse_points": rmse, "rms_z": rmsz, "fits_badly": bad})


def _result(cells: Cells, d: _Design, theta: np.ndarray, diff: np.ndarray, lam: np.ndarray,
            cov: np.ndarray, model: JointForm, ridge: float, alpha: float, n_draws: int,
            seed: int, rank: bool, converged: bool, iterations: int) -> JointFit:
    ref = float(np.median(diff))
    se = np.sqrt(np.clip(np.diag(cov), 0, None))
    half = stats.norm.isf(alpha / 2) * se
    ran = cells.ran
    run = ran.sum(axis=1)
    if rank:
        # Σθ = 0 makes cov singular (its eigenvectors, hence the draws, would turn with noise
        # in the last digits); a common shift c·11ᵀ leaves every difference θ_a − θ_b, all
        # the rank sets read, with the same law, and makes it positive definite (Cholesky)
        shifted = cov + float(np.mean(np.diag(cov))) * np.ones_like(cov)
        sets = rank_sets(theta, shifted, kind="simultaneous", alpha=alpha,
                         labels=cells.systems, n_draws=n_draws, rng=seed)
        by = sets.table.set_index("system")
    else:
        sets = None
    table = pd.DataFrame({
        "system": list(cells.systems), "ability": 100 * special.expit(theta - ref),
        "ability_low": 100 * special.expit(theta - half - ref),
        "ability_high": 100 * special.expit(theta + half - ref),
        "theta": theta, "se": se, "benchmarks_run": run})
    if sets is not None:
        for c in ("rank", "rank_set_low", "rank_set_high", "in_best_set"):
            table[c] = by.loc[table["system"], c].to_numpy()
    else:
        order = stats.rankdata(-theta, method="min").astype(int)
        table["rank"], table["rank_set_low"], table["rank_set_high"] = order, order, order
        table["in_best_set"] = order == 1
    table = table.sort_values(["rank", "theta", "system"], ascending=[True, False, True])
    cols = ["system", "ability", "ability_low", "ability_high", "theta", "se", "rank",
            "rank_set_low", "rank_set_high", "in_best_set", "benchmarks_run"]
    table = table[cols].reset_index(drop=True)
    fit = _benchmark_fit(cells, d, theta, diff, lam)
    few = max(1, len(cells.benchmarks) // 2)
    return JointFit(
        table=table, benchmark_fit=fit, systems=cells.systems, benchmarks=cells.benchmarks,
        theta=theta, cov=cov, rank_sets=sets if sets is not None else _no_sets(alpha),
        cells_observed=int(ran.sum()), cells_total=int(ran.size),
        few_benchmarks=tuple(s for s, r in zip(cells.systems, run, strict=True) if r < few
                             or (r == 1 and len(cells.benchmarks) > 1)),
        worst_benchmark=str(fit["benchmark"].to_numpy()[int(np.argmax(fit["rmse_points"]))]),
        badly_fitting=tuple(fit.loc[fit["fits_badly"], "benchmark"]),
        reference_difficulty=ref, model=model, ridge=ridge, alpha=alpha,
        converged=converged, iterations=iterations, rescaled=cells.rescaled, ran=ran)


def _no_sets(alpha: float) -> RankSets:
    return RankSets(pd.DataFrame(), "simultaneous", alpha, 1, 1, True, 0, None, 0, float("nan"))


def joint_model(df: pd.DataFrame, *, benchmarks: Sequence[str] | None = None,
                metrics: Sequence[str] | None = None,
                specs: Mapping[tuple[str, str], MetricSpec] | None = None,
                model: JointForm = "2pl", ridge: float = 0.1, alpha: float = 0.05,
                n_draws: int = 1_000, seed: int = 0) -> JointFit:
    """Rank every system of a long table by a joint model of the results matrix.

    Parameters
    ----------
    df : DataFrame
        Canonical long table; systems need not have run every benchmark.
    benchmarks, metrics, specs
        The selection (:func:`engine.across._joint_cells.joint_cells`).
    model, ridge, alpha, n_draws, seed
        As :func:`fit_cells`.

    Returns
    -------
    JointFit

    Examples
    --------
    >>> rng = np.random.default_rng(1)
    >>> rows = [("b%d" % j, "s%d" % i, f"e{k}", "acc", float(rng.random() < 0.2 + 0.15 * i))
    ...         for j in range(3) for i in range(5) for k in range(200) if (i, j) != (0, 2)]
    >>> long = pd.DataFrame(rows, columns=["benchmark", "system", "example_id", "metric", "value"])
    >>> fit = joint_model(long)
    >>> fit.table["system"].tolist(), fit.cells_missing
    (['s4', 's3', 's2', 's1', 's0'], 1)
    """
    cells = joint_cells(df, benchmarks=benchmarks, metrics=metrics, specs=specs)
    return fit_cells(cells, model=model, ridge=ridge, alpha=alpha, n_draws=n_draws, seed=seed)
