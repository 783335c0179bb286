r"""The learned normal prior on a pair's difference of population means.

The new-questions comparisons of :mod:`bayes_eval.ranking.paired` whose likelihood has no
learned prior of its own (clustered questions; graded scores and means of several trials)
put :math:`\delta_{AB} \sim N(0, \tau^2)` on every pair's difference of mean scores on new
questions, with :math:`\tau`, the spread of the differences between the board's models,
learned over the board's pairs. Given :math:`\tau`, a pair's flat-prior posterior of
:math:`\delta` (Student's t for clusters, the normal law of the mean difference otherwise) is
multiplied by the prior; each pair's marginal likelihood :math:`m_{AB}(\tau)` enters

.. math:: p(\tau \mid R) \propto \tau^{a} \prod_{A < B} m_{AB}(\tau)^{2/L}
          \quad \text{on } (0, 1],

the power :math:`2/L` making the product of the :math:`L(L-1)/2` correlated pairs the exact
likelihood of the :math:`L - 1` contrasts when every pair's standard error is the same, and
:math:`a` = :data:`DIFFERENCE_TAU_POWER`. :math:`\tau` is integrated out by Simpson's rule on
log-spaced nodes (``"empirical-plugin"``: plugged in at its posterior mode). A flat prior on
a pair's difference overstates the differences between close models; the hyperprior's power
1/4 lies between uniform on :math:`\tau` (recommended for a hierarchical sd by Gelman, "Prior
distributions for variance parameters in hierarchical models", 2006; it shrinks too much where
the models are spread) and uniform on :math:`\tau^2` (too little for close models), chosen
among the powers 0, 1/4 and 1/2 by ``bayes-eval validate pairs`` and ``bayes-eval validate
clusters`` (the documentation's Validation page gives the comparison).
This is the empirical-Bayes shrinkage of Efron and Morris ("Stein's estimation rule and its
competitors -- an empirical Bayes approach", 1973) with the hyperparameter integrated out.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray
from scipy.special import logsumexp, ndtr
from scipy.stats import gamma

#: The hyperprior's power; the engines below serve :mod:`bayes_eval.ranking.paired` and
#: :mod:`bayes_eval.ranking.questions_plan`.
__all__ = ["DIFFERENCE_TAU_POWER"]

#: Power ``a`` of the hyperprior :math:`p(\tau) \propto \tau^a` on ``(0, 1]`` of the sd of a
#: pair's difference.
DIFFERENCE_TAU_POWER = 0.25
TAU_NODES = np.geomspace(1e-4, 1.0, 241)  # the sd tau of a pair's difference, log spaced
_Y_NODES = 161  # Simpson nodes (log spaced) of the Gamma variable of the cluster-level sd
_PAIR_CHUNK = 32  # pairs per block of the (tau, y, pair) arrays (10 MB each)


def tau_posterior(logm: NDArray, n_models: int, plugin: bool) -> tuple[NDArray, float]:
    """Weights of :data:`TAU_NODES` given the pairs' log marginal likelihoods ``(tau, pair)``.

    Returns the weights (summing to 1; one node with ``plugin``) and tau's posterior median
    (its mode with ``plugin``).
    """
    tau = TAU_NODES
    simpson = np.r_[1.0, np.tile([4.0, 2.0], (tau.size - 3) // 2), 4.0, 1.0]
    dtau = simpson * tau  # Simpson's rule in log tau (dtau = tau dlog tau), equal steps
    log_post = DIFFERENCE_TAU_POWER * np.log(tau) + (2.0 / n_models) * logm.sum(axis=1)
    density = np.exp(log_post - log_post.max())
    if plugin:
        k = int(np.argmax(density))
        weight = np.zeros_like(density)
        weight[k] = 1.0
        return weight, float(tau[k])
    weight = density * dtau
    weight /= weight.sum()
    smooth = np.cumsum(density * np.gradient(tau))  # the median from a cdf that is not jagged
    return weight, float(tau[np.searchsorted(smooth / smooth[-1], 0.5)])


def shrunk_t(
    mean: NDArray, scale: NDArray, df: NDArray, n_models: int, plugin: bool
) -> tuple[NDArray, NDArray, float | None]:
    r"""``P(delta > 0)`` per pair of Student-t likelihoods under the learned normal prior.

    Each pair's cluster values are :math:`N(\delta, \sigma^2)` with the Jeffreys prior on
    :math:`\sigma`: :math:`\mathrm{se}^2 = \sigma^2/G = \mathrm{scale}^2\,\nu / (2y)` with
    :math:`y \sim \mathrm{Gamma}(\nu/2)`, so that
    :math:`m(\tau) = E_y[N(\bar d; 0, \tau^2 + \mathrm{se}^2)]` and
    :math:`P(\delta > 0 \mid \tau) = E_y[N(\cdot)\,\Phi(\bar d\,\tau /
    (\mathrm{se}\sqrt{\tau^2 + \mathrm{se}^2}))] / m(\tau)`. The expectations are Simpson's
    rule on 161 log-spaced nodes of y, from the Gamma's 1e-12 quantile (lower
    still where a pair's :math:`|t| = |\bar d|/\mathrm{scale}` is large: the prior then
    pulls the posterior of :math:`\sigma` up, to y near :math:`\nu/(2t^2)`) to its
    :math:`1 - 10^{-12}` quantile, in logs (no underflow). Pairs without a clear scale
    (:math:`\mathrm{scale} \le 10^{-12}\,\max(1, |\bar d|)`: every cluster says the same)
    are left out (``ok`` False): the caller keeps their flat-prior values; when no pair is
    left the summary is None. Returns the probabilities, ``ok`` and tau's summary
    (:func:`tau_posterior`).
    """
    ok = np.isfinite(scale) & np.isfinite(mean) & (scale > 1e-12 * np.maximum(1.0, np.abs(mean)))
    p = np.full(mean.shape, 0.5)
    if not ok.any():
        return p, ok, None
    logm = np.zeros((TAU_NODES.size, mean.size))
    p_tau = np.full((TAU_NODES.size, mean.size), 0.5)
    v = (TAU_NODES**2)[:, None, None]
    for nu in np.unique(df[ok]):
        rows = np.flatnonzero(ok & (df == nu))
        t_max = float(np.max(np.abs(mean[rows] / scale[rows])))
        y, log_w = _gamma_nodes(nu, t_max)
        for start in range(0, rows.size, _PAIR_CHUNK):
            r = rows[start : start + _PAIR_CHUNK]
            se2 = (scale[r] ** 2)[None, None] * (nu / (2.0 * y))[None, :, None]  # (1, K, P)
            tot = v + se2
            log_dens = log_w[None, :, None] - 0.5 * mean[r] ** 2 / tot - 0.5 * np.log(tot)
            logm[:, r] = logsumexp(log_dens, axis=1)
            share = np.exp(log_dens - logm[:, None, r])  # (T, K, P), sums to 1 over K
            p_tau[:, r] = (share * ndtr(mean[r] * np.sqrt(v) / np.sqrt(se2 * tot))).sum(1)
    weight, summary = tau_posterior(logm[:, ok], n_models, plugin)
    return np.clip(0.5 + weight @ (p_tau - 0.5), 0.0, 1.0), ok, summary


def _gamma_nodes(nu: float, t_max: float) -> tuple[NDArray, NDArray]:
    """Log-spaced nodes y of Gamma(nu / 2) and the logs of their Simpson weights.

    The weights are the density times dy = y dlog y, normalised to sum 1 (:func:`shrunk_t`).
    """
    a = nu / 2.0
    lo = min(float(gamma.ppf(1e-12, a)), 1e-3 * nu / (2.0 * (1.0 + t_max**2)))
    y = np.geomspace(lo, float(gamma.isf(1e-12, a)), _Y_NODES)
    simpson = np.r_[1.0, np.tile([4.0, 2.0], (_Y_NODES - 3) // 2), 4.0, 1.0]
    log_w = np.log(simpson) + gamma.logpdf(y, a) + np.log(y)
    return y, log_w - logsumexp(log_w)


def normal_logm(mean: NDArray, var: NDArray) -> NDArray:
    r"""``log m(tau)`` of normal likelihoods :math:`N(\delta; \bar d, V)`, shape ``(tau, pair)``.

    :math:`m(\tau) = N(\bar d; 0, \tau^2 + V)` up to a constant.
    """
    tot = (TAU_NODES**2)[:, None] + var[None]
    return -0.5 * np.log(tot) - 0.5 * mean[None] ** 2 / tot


def shrink_z(z: NDArray, var: NDArray, weight: NDArray) -> NDArray:
    r"""``P(delta > 0)`` under the prior from a flat-prior normal quantile ``z``.

    For a normal likelihood :math:`N(\bar d, V)`, :math:`z = \bar d/\sqrt V` becomes
    :math:`z\,\tau/\sqrt{\tau^2 + V}` under :math:`N(0, \tau^2)`; averaged over tau's
    ``weight`` (the nodes of :data:`TAU_NODES`). ``z`` and ``var`` broadcast together.
    """
    factor = TAU_NODES / np.sqrt(TAU_NODES**2 + np.asarray(var)[..., None])
    p = 0.5 + (ndtr(np.asarray(z)[..., None] * factor) - 0.5) @ weight  # z = 0: exactly 1/2
    return np.clip(p, 0.0, 1.0)
