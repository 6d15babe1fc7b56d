"""PPI++ logistic regression: coefficients of P(y = 1 | x) = expit(x theta) for human labels
y seen on a random subset, rectifying a judge's labels yhat seen everywhere.

The rectified loss over n labelled rows L and N unlabelled rows U (logistic loss l),

    L(theta) = lam / N sum_U l(x theta, yhat) - lam / n sum_L l(x theta, yhat)
               + 1 / n sum_L l(x theta, y),

is convex for lam in [0, 1] (its Hessian, lam/N sum_U + (1 - lam)/n sum_L of
mu (1 - mu) x x', does not involve the labels), so Newton's method finds its minimum to
rounding. The covariance is the sandwich H^-1 (n/N Var(lam g_hat_U) + Var(g - lam g_hat_L))
H^-1 / n with the per-row gradients g = x (mu - y) and the Hessian averaged over all n + N
rows; lam minimises the trace of that covariance (clipped to [0, 1]). Labels may be
fractional (a tie as 1/2: the logistic quasi-likelihood).

References: Angelopoulos, Duchi & Zrnic (2023), "PPI++: Efficient Prediction-Powered
Inference", arXiv:2311.01453; Boyeau, Angelopoulos, Yosef, Malik & Jordan (2024), "AutoEval
done right: using synthetic data for model evaluation", arXiv:2403.07008 (Bradley-Terry
coefficients of Chatbot Arena). The statistics follow the authors' package ``ppi_py``
(``ppi_logistic_ci`` with ``lam=None``: lambda tuned at the lam = 1 fit, refitted, tuned
again at that fit and refitted; the second lambda is the one reported), tested equal to it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import expit

from ._ppi import _check_alpha, _quantile

__all__ = ["PPILogistic", "ppi_logistic"]

_NEWTON_STEPS = 100


@dataclass(frozen=True)
class PPILogistic:
    """Coefficients ``coef`` with covariance ``cov``, standard errors ``se`` and the
    1 - alpha normal intervals ``low``/``high``; ``lam``; ``n`` labelled, ``n_unlabelled``."""

    coef: np.ndarray
    cov: np.ndarray
    se: np.ndarray
    low: np.ndarray
    high: np.ndarray
    lam: float
    n: int
    n_unlabelled: int
    alpha: float


def _loss(theta: np.ndarray, x_u: np.ndarray, yhat_u: np.ndarray, x: np.ndarray,
          y: np.ndarray, yhat: np.ndarray, lam: float) -> float:
    def mean_loss(a: np.ndarray, t: np.ndarray) -> float:
        z = a @ theta
        return float(np.mean(np.logaddexp(0.0, z) - t * z)) if len(t) else 0.0
    return lam * mean_loss(x_u, yhat_u) - lam * mean_loss(x, yhat) + mean_loss(x, y)


def _fit(x_u: np.ndarray, yhat_u: np.ndarray, x: np.ndarray, y: np.ndarray,
         yhat: np.ndarray, lam: float) -> np.ndarray:
    """The minimiser of the rectified loss: damped Newton from 0 (convex; see docstring)."""
    n, big_n = len(y), max(len(yhat_u), 1)
    theta = np.zeros(x.shape[1])
    loss = _loss(theta, x_u, yhat_u, x, y, yhat, lam)
    for _ in range(_NEWTON_STEPS):
        mu_u, mu = expit(x_u @ theta), expit(x @ theta)
        grad = (lam / big_n * x_u.T @ (mu_u - yhat_u) - lam / n * x.T @ (mu - yhat)
                + x.T @ (mu - y) / n)
        hess = (lam / big_n * (x_u.T * (mu_u * (1 - mu_u))) @ x_u
                + (1 - lam) / n * (x.T * (mu * (1 - mu))) @ x)
        step = np.linalg.lstsq(hess, grad, rcond=None)[0]
        t = 1.0
        while t > 1e-10:  # halve the step until the loss does not rise (rounding aside)
            trial = theta - t * step
            new = _loss(trial, x_u, yhat_u, x, y, yhat, lam)
            if new <= loss + 1e-15 * abs(loss):
                break
            t /= 2
        theta, loss = trial, new
        if np.max(np.abs(t * step)) < 1e-13 * max(1.0, float(np.max(np.abs(theta)))):
            break
    return theta


def _stats(theta: np.ndarray, x_u: np.ndarray, yhat_u: np.ndarray, x: np.ndarray,
           y: np.ndarray, yhat: np.ndarray, use_unlabelled: bool,
           ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per-row gradients (labelled: human, judge; unlabelled: judge) and the inverse
    Hessian, averaged over every row (or the labelled ones when U is not used, lam = 0)."""
    mu_u, mu = expit(x_u @ theta), expit(x @ theta)
    hess = (x.T * (mu * (1 - mu))) @ x
    if use_unlabelled:
        hess = (hess + (x_u.T * (mu_u * (1 - mu_u))) @ x_u) / (len(y) + len(yhat_u))
    else:
        hess = hess / len(y)
    return (x * (mu - y)[:, None], x * (mu - yhat)[:, None], x_u * (mu_u - yhat_u)[:, None],
            np.linalg.inv(hess))


def _lambda(g: np.ndarray, g_hat: np.ndarray, g_hat_u: np.ndarray,
            inv_h: np.ndarray) -> float:
    """The lambda minimising the trace of the covariance, clipped to [0, 1]."""
    n, big_n = len(g), len(g_hat_u)
    gc, hc = g - g.mean(0), g_hat - g_hat.mean(0)
    cov_g = (gc.T @ hc + hc.T @ gc) / n
    var_hat = np.atleast_2d(np.cov(np.concatenate([g_hat, g_hat_u]).T))
    num = np.trace(inv_h @ cov_g @ inv_h)
    den = 2 * (1 + n / big_n) * np.trace(inv_h @ var_hat @ inv_h)
    return float(np.clip(num / den, 0.0, 1.0)) if den > 0 else 0.0


def _check(x: np.ndarray, y: np.ndarray, yhat: np.ndarray, x_u: np.ndarray,
           yhat_u: np.ndarray) -> None:
    if x.ndim != 2 or x_u.ndim != 2 or x.shape[1] != x_u.shape[1]:
        raise ValueError(f"x, x_unlabelled: must be matrices with the same columns; got "
                         f"{x.shape} and {x_u.shape}")
    if not len(y) == len(yhat) == len(x) or len(yhat_u) != len(x_u):
        raise ValueError("y, yhat: one label and one judge label per row of x (and yhat_"
                         "unlabelled per row of x_unlabelled)")
    for name, a in (("y", y), ("yhat", yhat), ("yhat_unlabelled", yhat_u)):
        if not ((a >= 0) & (a <= 1)).all():
            raise ValueError(f"{name}: labels must be in [0, 1] (1 won, 0 lost, 1/2 tie)")
    if len(yhat_u) < 2:
        raise ValueError(f"yhat_unlabelled: needs at least 2 unlabelled rows; got {len(yhat_u)}")
    if len(y) <= x.shape[1]:
        raise ValueError(f"y: needs more labelled rows than coefficients ({x.shape[1]}); got "
                         f"{len(y)}")


def ppi_logistic(x: np.ndarray, y: np.ndarray, yhat: np.ndarray, x_unlabelled: np.ndarray,
                 yhat_unlabelled: np.ndarray, *, alpha: float = 0.05,
                 lam: float | None = None) -> PPILogistic:
    """PPI++ logistic regression of the human labels ``y`` (rows ``x``) rectifying the
    judge's labels ``yhat`` (same rows) and ``yhat_unlabelled`` (rows ``x_unlabelled``),
    with lambda tuned as ``ppi_py``'s ``ppi_logistic_ci`` (``lam=None``), or fixed: ``lam=0``
    is the human labels alone, ``lam=1`` plain PPI."""
    x, x_u = np.asarray(x, dtype=float), np.asarray(x_unlabelled, dtype=float)
    y, yhat, yhat_u = (np.asarray(a, dtype=float).ravel() for a in (y, yhat, yhat_unlabelled))
    _check(x, y, yhat, x_u, yhat_u)
    _check_alpha(alpha)
    if lam is None:  # ppi_py's two tuning rounds (module docstring)
        first = _fit(x_u, yhat_u, x, y, yhat, 1.0)
        lam_first = _lambda(*_stats(first, x_u, yhat_u, x, y, yhat, True))
        second = _fit(x_u, yhat_u, x, y, yhat, lam_first)
        lam = _lambda(*_stats(second, x_u, yhat_u, x, y, yhat, True))
    elif not 0 <= lam <= 1:
        raise ValueError(f"lam: must be in [0, 1] or None; got {lam!r}")
    theta = _fit(x_u, yhat_u, x, y, yhat, lam)
    g, g_hat, g_hat_u, inv_h = _stats(theta, x_u, yhat_u, x, y, yhat, lam != 0)
    n, big_n, d = len(y), len(yhat_u), x.shape[1]
    var_u = np.atleast_2d(np.cov((lam * g_hat_u).T)).reshape(d, d)
    var_l = np.atleast_2d(np.cov((g - lam * g_hat).T)).reshape(d, d)
    cov = inv_h @ (n / big_n * var_u + var_l) @ inv_h / n
    se = np.sqrt(np.diag(cov))
    z = _quantile(alpha, None)
    return PPILogistic(theta, cov, se, theta - z * se, theta + z * se, float(lam), n, big_n,
                       alpha)
