"""Clustered examples: cluster-robust paired tests and mean intervals.

Several questions per passage, several checks per agent task, several turns per
dialogue: examples of one cluster share its difficulty, so every per-example test and
interval is too narrow (family-wise false alarms 0.40 at a system × passage SD of 1).
Here every statistic works on cluster sums.

Chain: cluster codes (one per example) → per system, cluster sums of centred scores
``U`` (systems × clusters, one matrix product) → all pairs at once: the CR2 variance of
the mean difference from the Gram matrix ``U W Uᵀ`` → t with Bell–McCaffrey
(Satterthwaite) degrees of freedom → intervals, and the design effect (clustered over
independent variance) beside each.

The rule: CR2 ("bias-reduced linearisation", Bell & McCaffrey 2002) with the
Bell–McCaffrey degrees of freedom for every number of clusters ≥ 2; that df is the
small-sample correction (Imbens & Kolesár 2016; Pustejovsky & Tipton 2018), so no
bootstrap is needed for few clusters. For the mean of d (an intercept-only model) CR2
has a closed form: ``V = Σ_g S_g² / (n² (1 − n_g/n))`` with ``S_g`` the cluster sum of
``d − d̄``; with equal clusters its df is G − 1. Miller (2024, "Adding Error Bars to
Evals", arXiv:2411.00640, eq. 4 and Appendix A) and Inspect's ``stderr(cluster=...)``
use CR1-type ``G/(G−1) · Σ_g S_g² / n²`` (Inspect) or no factor (Miller);
:func:`clustered_se` reproduces both conventions.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from ._kernels import _p_from_t as t_pvalues

__all__ = ["ClusterDesign", "cluster_codes", "clustered_mean_intervals", "clustered_mean_se",
           "clustered_pairs", "clustered_se", "clustered_sign_pvalues", "design_where_given"]


@dataclass(frozen=True)
class ClusterDesign:
    """Cluster of each example (codes 0..G−1) and what follows from the sizes alone.

    ``weights``: the CR2 factor 1 / (1 − n_g/n) of each cluster; ``df``: the
    Bell–McCaffrey degrees of freedom of a mean (same for every pair and system on
    these examples).
    """

    name: str
    codes: np.ndarray
    sizes: np.ndarray
    weights: np.ndarray
    df: float

    @property
    def n_clusters(self) -> int:
        return len(self.sizes)

    def sentence(self, pairs: pd.DataFrame | None = None) -> str:
        """The design in words, with the pairs' median design effect when given (shown next
        to every clustered interval: Miller 2024 asks for the clustering to be reported)."""
        deff = np.array([]) if pairs is None or "design_effect" not in pairs.columns else \
            pairs["design_effect"].to_numpy(float)
        deff = deff[np.isfinite(deff)]
        effect = f", design effect {float(np.median(deff)):.2f} (median over pairs)" \
            if deff.size else ""
        return (f"clustered by {self.name}: {self.n_clusters} clusters, Bell–McCaffrey df "
                f"{self.df:.1f}{effect}; tests and intervals are cluster-robust (CR2)")

    @classmethod
    def from_codes(cls, codes: np.ndarray, name: str = "cluster") -> ClusterDesign:
        codes = np.asarray(codes)
        _, codes = np.unique(codes, return_inverse=True)
        sizes = np.bincount(codes).astype(float)
        if len(sizes) < 2:
            raise ValueError(f"cluster: {name!r} needs at least 2 clusters among the examples; "
                             f"got {len(sizes)}")
        n = sizes.sum()
        with np.errstate(divide="ignore"):
            weights = 1.0 / (1.0 - sizes / n)
        return cls(name, codes, sizes, weights, _bell_mccaffrey_df(sizes))


def _bell_mccaffrey_df(sizes: np.ndarray) -> float:
    """Satterthwaite df of the CR2 variance of a mean under a working model of
    independent, equal-variance errors: (tr Q)² / ‖Q‖²_F with
    ``Q_gh = c_g c_h (δ_gh n_g − n_g n_h / n)``, ``c_g = 1 / (n √(1 − n_g/n))``
    (the quadratic form's matrix in cluster terms; Bell & McCaffrey 2002, §3)."""
    n = sizes.sum()
    c = 1.0 / (n * np.sqrt(1.0 - sizes / n))
    q = np.outer(c, c) * (np.diag(sizes) - np.outer(sizes, sizes) / n)
    return float(np.trace(q) ** 2 / (q * q).sum())


def cluster_codes(frame: pd.DataFrame, column: str, examples: tuple[str, ...]) -> np.ndarray:
    """The cluster of each of ``examples`` from a long table's per-example ``column``.

    Errors name the column and the rule: it must exist and hold one value per example,
    and every example must have one.
    """
    if column not in frame.columns:
        raise ValueError(f"cluster: column {column!r} not in the data; columns: "
                         f"{list(frame.columns)!r}")
    labels = frame.groupby("example_id")[column].agg(["first", "nunique"])
    if (labels["nunique"] > 1).any():
        bad = labels.index[labels["nunique"] > 1][0]
        raise ValueError(f"cluster: column {column!r} must hold one value per example; example "
                         f"{bad!r} has {int(labels.loc[bad, 'nunique'])}")
    values = labels["first"].reindex(list(examples))
    if values.isna().any():
        bad = values.index[values.isna()][0]
        raise ValueError(f"cluster: example {bad!r} has no value in column {column!r}; give "
                         "every example a cluster")
    codes, _ = pd.factorize(values.astype("string"))
    return np.asarray(codes)


def design_where_given(frame: pd.DataFrame, column: str | None, examples: tuple[str, ...]
                       ) -> ClusterDesign | None:
    """The design of ``column`` on one benchmark's rows, or None where it gives none.

    For statistics over several benchmarks (Overall) or optional ones (health): a benchmark
    whose rows lack the column, leave an example without a value, or have fewer than 2
    clusters is analysed without clusters; one with two values for an example still fails
    (:func:`cluster_codes`' message), since that is a broken column, not an absent one.
    """
    if column is None or column not in frame.columns:
        return None
    rows = frame[frame["example_id"].isin(examples)]
    if rows[column].isna().any() or rows["example_id"].nunique() < len(examples):
        return None
    codes = cluster_codes(rows, column, examples)
    return ClusterDesign.from_codes(codes, column) if codes.max() >= 1 else None


def _cluster_sums(x: np.ndarray, design: ClusterDesign) -> np.ndarray:
    """Systems × clusters sums of each system's centred scores (one matrix product)."""
    centred = x - x.mean(axis=1, keepdims=True)
    member = np.zeros((x.shape[1], design.n_clusters))
    member[np.arange(x.shape[1]), design.codes] = 1.0
    return np.asarray(centred @ member)


@dataclass(frozen=True)
class ClusteredPairs:
    """Per pair: mean difference, CR2 standard error, df, t, p, design effect."""

    diff: np.ndarray
    se: np.ndarray
    df: np.ndarray
    statistic: np.ndarray
    pvalue: np.ndarray
    design_effect: np.ndarray


def clustered_pairs(x: np.ndarray, design: ClusterDesign, ia: np.ndarray, ja: np.ndarray,
                    alternative: str) -> ClusteredPairs:
    """Cluster-robust paired t of every pair (oriented scores, every system on every example).

    ``V_ab = (K_aa + K_bb − 2 K_ab) / n²`` with ``K = U diag(w) Uᵀ`` (``U``: cluster sums of
    centred scores, ``w``: CR2 weights): the CR2 variance of mean(x_a − x_b) for all pairs
    from one Gram matrix. Design effect = V_ab over the independent-examples variance
    s²_d / n (1 when clusters do not matter, NaN for identical systems).
    """
    n = x.shape[1]
    u = _cluster_sums(x, design)
    k = (u * design.weights[None, :]) @ u.T
    var = np.maximum(np.diag(k)[ia] + np.diag(k)[ja] - 2.0 * k[ia, ja], 0.0) / n**2
    means = x.mean(axis=1)
    diff = means[ia] - means[ja]
    centred = x - means[:, None]
    gram = centred @ centred.T
    iid = np.maximum(np.diag(gram)[ia] + np.diag(gram)[ja] - 2.0 * gram[ia, ja], 0.0) / (
        (n - 1) * n)
    se = np.sqrt(var)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(se > 0, diff / se, np.where(diff == 0, 0.0, np.copysign(np.inf, diff)))
        deff = np.where(iid > 0, var / iid, np.nan)
    df = np.full(len(ia), design.df)
    p = np.where((se == 0) & (diff == 0), 1.0, t_pvalues(t, df, alternative))
    return ClusteredPairs(diff, se, df, t, np.clip(p, 0.0, 1.0), deff)


def clustered_mean_se(values: np.ndarray, design: ClusterDesign) -> np.ndarray:
    """Each system's CR2 standard error of its mean, ``√(Σ_g w_g S_g²) / n``.

    ``values``: systems × examples, every system on every example (raw units).
    """
    u = _cluster_sums(values, design)
    return np.asarray(np.sqrt((u * u * design.weights[None, :]).sum(axis=1)) / values.shape[1])


def clustered_sign_pvalues(x: np.ndarray, design: ClusterDesign, ia: np.ndarray,
                           ja: np.ndarray) -> np.ndarray:
    """Two-sided cluster-robust sign test of every pair: the CR2 t (Bell–McCaffrey df) of
    the mean of ``sign(x_a − x_b)`` (wins +1, losses −1, ties 0) against 0, i.e. of
    P(a beats b) = P(b beats a) with the examples of a cluster free to win or lose together.

    ``x``: oriented systems × examples, every system on every example. Pairs go in chunks
    (each a pairs × examples block of signs).
    """
    n = x.shape[1]
    member = np.zeros((n, design.n_clusters))
    member[np.arange(n), design.codes] = 1.0
    out = np.empty(len(ia))
    chunk = max(1, 2_000_000 // max(n, 1))
    for start in range(0, len(ia), chunk):
        a, b = ia[start:start + chunk], ja[start:start + chunk]
        signs = np.sign(x[a] - x[b])
        mean = signs.mean(axis=1)
        sums = (signs - mean[:, None]) @ member
        se = np.sqrt((sums * sums * design.weights[None, :]).sum(axis=1)) / n
        with np.errstate(divide="ignore", invalid="ignore"):
            t = np.where(se > 0, mean / se, np.where(mean == 0, 0.0, np.inf))
        p = t_pvalues(t, design.df, "two-sided")
        out[start:start + len(a)] = np.where((se == 0) & (mean == 0), 1.0, p)
    return out


def clustered_mean_intervals(values: np.ndarray, design: ClusterDesign, level: float
                             ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each system's mean with a CR2 t interval (Bell–McCaffrey df) and its design effect.

    ``values``: systems × examples, every system on every example (raw units).
    """
    n = values.shape[1]
    var = clustered_mean_se(values, design) ** 2
    half = stats.t.ppf(0.5 + level / 2, design.df) * np.sqrt(var)
    mean = values.mean(axis=1)
    iid = values.var(axis=1, ddof=1) / n
    with np.errstate(divide="ignore", invalid="ignore"):
        deff = np.where(iid > 0, var / iid, np.nan)
    return mean - half, mean + half, deff


def clustered_se(values: np.ndarray, codes: np.ndarray, *, convention: str = "inspect") -> float:
    """Clustered standard error of a mean in the published conventions.

    ``inspect``: ``√(G/(G−1) · Σ_g S_g²) / n`` (Inspect's ``stderr(cluster=...)``, a finite
    cluster correction); ``miller``: ``√(Σ_g S_g²) / n`` (Miller 2024, eq. 4: the CLT
    variance plus the within-cluster cross products); ``cr2``: the CR2 form used by the
    tests here. ``S_g``: the cluster sum of ``values − mean``.
    """
    x = np.asarray(values, dtype=float)
    design = ClusterDesign.from_codes(np.asarray(codes))
    sums = np.bincount(design.codes, weights=x - x.mean(), minlength=design.n_clusters)
    g, n = design.n_clusters, len(x)
    if convention == "inspect":
        return float(np.sqrt(g / (g - 1) * (sums**2).sum()) / n)
    if convention == "miller":
        return float(np.sqrt((sums**2).sum()) / n)
    if convention == "cr2":
        return float(np.sqrt((design.weights * sums**2).sum()) / n)
    raise ValueError(f"convention: one of 'inspect', 'miller', 'cr2'; got {convention!r}")
