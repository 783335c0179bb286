r"""The learned normal prior on a pair's difference of population means.

The new-questions comparisons of :mod:`bayes_eval.ranking.paired` whose likelihood has no
learned prior of its own (clustered questions; graded scores and means of several trials)
put :math:`\delta_{AB} \sim N(0, \tau^2)` on every pair's difference of mean scores on new
questions, with :math:`\tau`, the spread of the differences between the board's models,
learned over the board's pairs. Given :math:`\tau`, a pair's flat-prior posterior of
:math:`\delta` (Student's t for clusters, the Bayesian bootstrap's normal law otherwise) is
multiplied by the prior; each pair's marginal likelihood :math:`m_{AB}(\tau)` enters

.. math:: p(\tau \mid R) \propto \tau^{a} \prod_{A < B} m_{AB}(\tau)^{2/L}
          \quad \text{on } (0, 1],

the power :math:`2/L` making the product of the :math:`L(L-1)/2` correlated pairs the exact
likelihood of the :math:`L - 1` contrasts when every pair's standard error is the same, and
:math:`a` = :data:`DIFFERENCE_TAU_POWER`. :math:`\tau` is integrated out by Simpson's rule on
log-spaced nodes (``"empirical-plugin"``: plugged in at its posterior mode). A flat prior on
a pair's difference overstates the differences between close models; the hyperprior's power
1/2 lies between uniform on :math:`\tau` (which shrinks too much where the models are spread)
and uniform on :math:`\tau^2` (too little for close models), both measured by ``bayes-eval
validate clusters`` and ``bayes-eval validate pairs`` (the documentation's Validation page).
This is the empirical-Bayes shrinkage of Efron and Morris ("Stein's estimation rule and its
competitors -- an empirical Bayes approach", 1973) with the hyperparameter integrated out.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray
from scipy.special import ndtr, ndtri, roots_genlaguerre

#: The hyperprior's power; the engines below serve :mod:`bayes_eval.ranking.paired` and
#: :mod:`bayes_eval.ranking.questions_plan`.
__all__ = ["DIFFERENCE_TAU_POWER"]

#: Power ``a`` of the hyperprior :math:`p(\tau) \propto \tau^a` on ``(0, 1]`` of the sd of a
#: pair's difference.
DIFFERENCE_TAU_POWER = 0.5
TAU_NODES = np.geomspace(1e-4, 1.0, 241)  # the sd tau of a pair's difference, log spaced
_CHI_NODES = 48  # generalised Gauss-Laguerre nodes of the chi-square of the cluster-level sd
_PAIR_CHUNK = 512  # pairs per block of the (tau, chi-square, pair) arrays
_EDGE = 1e-16  # a flat probability is read in (EDGE, 1 - EDGE) before its normal quantile


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
    return weight, float(tau[np.searchsorted(np.cumsum(weight), 0.5)])


def shrunk_t(
    mean: NDArray, scale: NDArray, df: NDArray, n_models: int, plugin: bool
) -> tuple[NDArray, NDArray, float]:
    r"""``P(delta > 0)`` per pair of Student-t likelihoods under the learned normal prior.

    Each pair's cluster values are :math:`N(\delta, \sigma^2)` with the Jeffreys prior on
    :math:`\sigma`: :math:`\mathrm{se}^2 = \sigma^2/G = \mathrm{scale}^2\,\nu / X` with
    :math:`X \sim \chi^2_\nu` (generalised Gauss-Laguerre nodes), so that
    :math:`m(\tau) = E_X[N(\bar d; 0, \tau^2 + \mathrm{se}^2)]` and
    :math:`P(\delta > 0 \mid \tau) = E_X[N(\cdot)\,\Phi(\bar d\,\tau /
    (\mathrm{se}\sqrt{\tau^2 + \mathrm{se}^2}))] / m(\tau)`. Pairs without a positive scale
    are left out (``ok`` False): the caller keeps their flat-prior values. Returns the
    probabilities, ``ok`` and tau's summary (:func:`tau_posterior`).
    """
    ok = np.isfinite(scale) & (scale > 0) & np.isfinite(mean)
    logm = np.zeros((TAU_NODES.size, mean.size))
    p_tau = np.full((TAU_NODES.size, mean.size), 0.5)
    v = (TAU_NODES**2)[:, None, None]
    for nu in np.unique(df[ok]):
        x, wq = roots_genlaguerre(_CHI_NODES, nu / 2.0 - 1.0)  # X / 2 ~ Gamma(nu / 2)
        wq = (wq / wq.sum())[None, :, None]
        rows = np.flatnonzero(ok & (df == nu))
        for start in range(0, rows.size, _PAIR_CHUNK):
            r = rows[start : start + _PAIR_CHUNK]
            se2 = (scale[r] ** 2)[None, None] * (nu / (2.0 * x))[None, :, None]  # (1, K, P)
            tot = v + se2
            dens = wq * np.exp(-0.5 * mean[r] ** 2 / tot) / np.sqrt(tot)  # (T, K, P)
            m = dens.sum(axis=1)
            logm[:, r] = np.log(m)
            p_tau[:, r] = (dens * ndtr(mean[r] * np.sqrt(v) / np.sqrt(se2 * tot))).sum(1) / m
    weight, summary = tau_posterior(logm[:, ok], n_models, plugin)
    return np.clip(0.5 + weight @ (p_tau - 0.5), 0.0, 1.0), ok, summary


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


def flat_quantile(p: NDArray) -> NDArray:
    """The normal quantile of a flat-prior probability, read in ``(1e-16, 1 - 1e-16)``."""
    return ndtri(np.clip(p, _EDGE, 1.0 - _EDGE))
