"""An aggregate metric across the metrics of one benchmark (Ackerman et al. 2025, §6.1), as long rows.

Chain of named steps: validate → one column per metric for each (system,
example[, run]) → standardise each metric by its pooled mean and SD → flip by
direction → weighted average per row → long rows of a new metric.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from .._contract import REQUIRED_COLUMNS, MetricSpec

__all__ = ["aggregate_metric", "metric_weights", "spec_of"]

Weights = Mapping[str, float] | Sequence[float] | None


def metric_weights(metrics: Sequence[str], weights: Weights) -> np.ndarray:
    """Weights aligned with ``metrics``, normalised to sum to 1 (equal by default).

    ``weights`` is a mapping metric → weight (metrics not named get 0) or a
    sequence in the order of ``metrics``.

    Examples
    --------
    >>> metric_weights(["a", "b"], {"a": 3, "b": 1}).tolist()
    [0.75, 0.25]
    """
    if weights is None:
        return np.full(len(metrics), 1.0 / len(metrics))
    if isinstance(weights, Mapping):
        unknown = sorted(set(weights) - set(metrics))
        if unknown:
            raise ValueError(f"weights: unknown name(s) {unknown!r}; known: {list(metrics)!r}")
        w = np.array([float(weights.get(m, 0.0)) for m in metrics])
    else:
        w = np.asarray(list(weights), dtype=float)
        if w.shape != (len(metrics),):
            raise ValueError(f"weights: need one weight per metric ({len(metrics)}); got {len(w)}")
    if not np.isfinite(w).all() or (w < 0).any() or w.sum() <= 0:
        raise ValueError(f"weights: must be finite, non-negative and not all zero; got {w.tolist()}")
    return np.asarray(w / w.sum(), dtype=float)


def spec_of(df: pd.DataFrame, benchmark: str, metric: str,
            specs: Mapping[tuple[str, str], MetricSpec] | None) -> MetricSpec:
    """The metric's definition: ``specs[(benchmark, metric)]``, else the one its reader or
    store recorded (``df.attrs["metric_specs"][metric]``), else higher is better."""
    if specs and (benchmark, metric) in specs:
        return specs[(benchmark, metric)]
    recorded = df.attrs.get("metric_specs") or {}
    spec = recorded.get(metric)
    return spec if isinstance(spec, MetricSpec) else MetricSpec()


def _validate(df: pd.DataFrame, benchmark: str, metrics: Sequence[str] | None, name: str
              ) -> tuple[pd.DataFrame, list[str]]:
    missing = [c for c in REQUIRED_COLUMNS if c not in df.columns]
    if missing:
        raise ValueError(f"df: must be a long table with columns {list(REQUIRED_COLUMNS)}; "
                         f"missing {missing}")
    part = df[df["benchmark"] == benchmark]
    if part.empty:
        known = list(pd.unique(df["benchmark"]))[:10]
        raise ValueError(f"benchmark: {benchmark!r} is not in the table; present: {known!r}")
    present = list(pd.unique(part["metric"]))
    chosen = present if metrics is None else list(metrics)
    unknown = [m for m in chosen if m not in present]
    if unknown:
        raise ValueError(f"metrics: {unknown!r} not measured on {benchmark!r}; present: {present!r}")
    if not chosen or len(set(chosen)) != len(chosen):
        raise ValueError(f"metrics: need at least one metric, each once; got {chosen!r}")
    if name in present:
        raise ValueError(f"name: {name!r} is already a metric of {benchmark!r}; choose another name")
    return part[part["metric"].isin(chosen)], chosen


def _standardize(wide: pd.DataFrame, directions: np.ndarray) -> pd.DataFrame:
    """z-score each column over all its cells, times ±1; a constant column becomes 0."""
    mean = wide.mean(axis=0)
    sd = wide.std(axis=0, ddof=1)
    z = (wide - mean) / sd.where(sd > 0)
    z.loc[:, ~(sd > 0).to_numpy()] = 0.0
    return z.where(wide.notna()) * directions


def aggregate_metric(
    df: pd.DataFrame,
    *,
    benchmark: str,
    metrics: Sequence[str] | None = None,
    weights: Weights = None,
    specs: Mapping[tuple[str, str], MetricSpec] | None = None,
    name: str = "aggregate",
) -> pd.DataFrame:
    """Aggregate several metrics of one benchmark into one, example by example.

    Parameters
    ----------
    df : DataFrame
        Canonical long table (:func:`engine.validate_long`).
    benchmark : str, keyword-only
        The benchmark whose metrics are aggregated (its examples are paired).
    metrics : sequence of str, optional
        Metrics to aggregate (default: every metric of the benchmark, in data order).
    weights : mapping metric → weight, or sequence aligned with ``metrics``, optional
        Importance of each metric; normalised to sum to 1. Default equal.
    specs : mapping (benchmark, metric) → MetricSpec, optional
        Metric directions; default: the spec recorded in ``df.attrs["metric_specs"]``,
        else higher is better.
    name : str, keyword-only
        Name of the new metric (must not already exist on the benchmark).

    Returns
    -------
    DataFrame
        Long rows ``benchmark, system, example_id, metric (= name), value`` (and
        ``run`` when the input has runs; metadata columns carried from the first
        input row of each system/example), higher = better.
        ``attrs["incomplete"]``: how many (system, example[, run]) were left out
        because a metric was missing; ``attrs["constant"]``: metrics with SD 0.

    Notes
    -----
    For metric k with pooled mean m_k and SD s_k (ddof 1) over every system's
    and example's score on the benchmark, and direction I_k = ±1, the
    aggregate of one system on one example is ``Σ_k w_k I_k (x_k − m_k)/s_k``.
    Repeated runs are aggregated run by run (each run scores every metric).
    A system that lacks a metric on an example gets no aggregate there: the
    example is missing for that system (never imputed, never reweighted over
    the metrics it has, which would mix scales), so pairing treats it like any
    missing example and the count is reported in ``attrs``. A constant metric
    (SD 0) cannot separate systems and contributes 0.

    References
    ----------
    Ackerman, Farchi, Raz & Toledo (2025). Statistical multi-metric evaluation
    and visualization of LLM system predictive performance. arXiv:2501.18243, §6.1
    (score sample aggregation).

    Examples
    --------
    >>> long = pd.DataFrame({"benchmark": "b", "system": ["x", "x", "y", "y"],
    ...                      "example_id": "e1", "metric": ["acc", "len", "acc", "len"],
    ...                      "value": [1.0, 10.0, 0.0, 30.0]})
    >>> spec = {("b", "len"): MetricSpec(higher_is_better=False)}
    >>> aggregate_metric(long, benchmark="b", specs=spec)[["system", "value"]].round(4)
      system   value
    0      x  0.7071
    1      y -0.7071
    """
    part, chosen = _validate(df, benchmark, metrics, name)
    w = metric_weights(chosen, weights)
    directions = np.array([1.0 if spec_of(df, benchmark, m, specs).higher_is_better else -1.0
                           for m in chosen])
    keys = ["system", "example_id"] + (["run"] if "run" in part.columns else [])
    wide = part.pivot_table(index=keys, columns="metric", values="value", aggfunc="mean",
                            sort=False, observed=True).reindex(columns=chosen)
    z = _standardize(wide, directions)
    complete = z.notna().all(axis=1)
    value = (z[complete].to_numpy(float) * w).sum(axis=1)
    out = z.index[complete.to_numpy()].to_frame(index=False)
    out.insert(0, "benchmark", benchmark)
    out.insert(3 if "run" not in keys else 4, "metric", name)
    out["value"] = value
    extra = [c for c in part.columns if c not in (*REQUIRED_COLUMNS, "run")]
    if extra:
        meta = part.groupby(keys, sort=False, observed=True)[extra].first().reset_index()
        out = out.merge(meta, on=keys, how="left")
    cols = ["benchmark", "system", "example_id", "metric", "value"] + keys[2:] + extra
    out = out[cols].reset_index(drop=True)
    out.attrs["incomplete"] = int((~complete).sum())
    out.attrs["constant"] = [m for m, s in zip(chosen, wide.std(axis=0, ddof=1), strict=True)
                             if not s > 0]
    return out
