r"""Fitting a Beta or Dirichlet prior to a statement, with scipy or PreliZ (:mod:`.elicitation`).

Equal-tailed Beta: the two quantile equations :math:`F(lo) = (1-p)/2`,
:math:`F(hi) = (1+p)/2` solved for :math:`(a, b)` on the log scale (scipy least squares).
Rubric Dirichlet: least squares on the quantiles of the Beta marginals
:math:`\mathrm{Beta}(\alpha_k, A - \alpha_k)`, :math:`A = \sum_k \alpha_k`. PreliZ (imported
lazily): ``preliz.maxent`` (maximum-entropy Beta with mass p in [lo, hi]),
``preliz.quartile`` and ``preliz.dirichlet_mode`` (Michael et al.'s mode-and-mass method),
each fit checked against the statement.
"""

from __future__ import annotations

import warnings

import numpy as np
from numpy.typing import NDArray
from scipy import optimize
from scipy.stats import beta as beta_dist

__all__ = []

#: largest relative error of a PreliZ fit (mass or quartile probabilities) that is accepted
_TOLERANCE = 1e-3


def _tails(prob: float) -> NDArray[np.float64]:
    return np.array([(1 - prob) / 2, (1 + prob) / 2])


def _fit_beta(lo: float, hi: float, prob: float) -> tuple[float, float]:
    """Equal-tailed Beta: ``F(lo) = (1 - prob) / 2``, ``F(hi) = (1 + prob) / 2`` (scipy)."""
    q = _tails(prob)

    def eqs(x):
        a, b = np.exp(x)
        return beta_dist.ppf(q, a, b) - np.array([lo, hi])

    mid = 0.5 * (lo + hi)
    # start from the Beta with the moments of a uniform-ish guess on [lo, hi]
    var = ((hi - lo) / 3.3) ** 2
    k = max(mid * (1 - mid) / var - 1, 0.5)
    sol = optimize.least_squares(eqs, np.log([mid * k, (1 - mid) * k]), xtol=1e-14, ftol=1e-14)
    a, b = np.exp(sol.x)
    achieved = beta_dist.ppf(q, a, b)
    if np.max(np.abs(achieved - [lo, hi])) > 1e-6:
        raise ValueError(
            f"no Beta prior has [{lo}, {hi}] as its central {prob:.0%} interval (closest: "
            f"[{achieved[0]:.4f}, {achieved[1]:.4f}]); widen the interval or lower the probability."
        )
    return float(a), float(b)


def _marginal_intervals(alpha: NDArray, prob: float) -> NDArray[np.float64]:
    """Central ``prob`` interval of each Beta marginal ``Beta(alpha_k, A - alpha_k)``."""
    q = _tails(prob)
    return np.array([beta_dist.ppf(q, a, alpha.sum() - a) for a in alpha])


def _fit_dirichlet(iv: NDArray, prob: float) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Dirichlet whose Beta marginals have the intervals ``iv`` (least squares), and theirs."""
    q = _tails(prob)

    def resid(x):
        alpha = np.exp(x)
        total = alpha.sum()
        return np.concatenate(
            [beta_dist.ppf(q, a, total - a) - row for a, row in zip(alpha, iv, strict=True)]
        )

    mids = iv.mean(1)
    start = np.log(mids / mids.sum() * 10)
    sol = optimize.least_squares(resid, start, xtol=1e-12, ftol=1e-12)
    alpha = np.exp(sol.x)
    return alpha, _marginal_intervals(alpha, prob)


def _preliz():
    import preliz as pz

    return pz


def _maxent(lo: float, hi: float, prob: float) -> tuple[float, float]:
    """``preliz.maxent`` Beta with mass ``prob`` in ``[lo, hi]``, its mass checked."""
    pz = _preliz()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # checked below, with a clearer message
        dist = pz.maxent(pz.Beta(), lo, hi, mass=prob, plot=False)
    a, b = float(dist.alpha), float(dist.beta)
    mass = beta_dist.cdf(hi, a, b) - beta_dist.cdf(lo, a, b)
    if abs(mass - prob) > _TOLERANCE:
        raise ValueError(
            f"preliz.maxent found no Beta with mass {prob} in [{lo}, {hi}] (closest: "
            f"{mass:.4f}); widen the interval or lower the probability."
        )
    return a, b


def _quartile(q1: float, q2: float, q3: float) -> tuple[float, float]:
    """``preliz.quartile`` Beta with quartiles ``q1 < q2 < q3``, its CDF there checked."""
    pz = _preliz()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        dist = pz.quartile(pz.Beta(), q1, q2, q3, plot=False)
    a, b = float(dist.alpha), float(dist.beta)
    q = np.array([q1, q2, q3], dtype=float)
    cdf = beta_dist.cdf(q, a, b)
    if np.abs(cdf - [0.25, 0.5, 0.75]).max() > 0.01:
        raise ValueError(
            f"no Beta has quartiles {q.tolist()}: the closest, Beta({a:.3g}, {b:.3g}), puts "
            f"{np.round(cdf, 3).tolist()} below them (expected 0.25, 0.5, 0.75). A Beta's "
            "median lies between its quartiles in a way fixed by its two parameters; restate."
        )
    return a, b


def _dirichlet_mode(m: NDArray, mass: float, bound: float) -> NDArray[np.float64]:
    """Concentration of ``preliz.dirichlet_mode`` for checked inputs."""
    pz = _preliz()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _, dist = pz.dirichlet_mode(list(m), mass=mass, bound=bound, plot=False)
    return np.asarray(dist.alpha, dtype=float)
