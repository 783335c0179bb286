r"""Posterior of a Pass family metric: moments, normal intervals, dispatch to exact ones.

Hariri et al., "Don't Pass@k: A Bayesian Framework for Large Language Model Evaluation",
Appendix H. Each question's success probability has the posterior
:math:`\mathrm{Beta}(a_1 + c_\alpha, a_0 + N_\alpha - c_\alpha)` (per node of a learned prior,
:mod:`bayes_eval.priors`); the posterior of :math:`\bar g = \frac1M\sum_\alpha g(p_\alpha)`
has :math:`\mu = \frac1M\sum_\alpha E[g_\alpha]` and
:math:`\sigma = \frac1M\sqrt{\sum_\alpha \mathrm{Var}[g_\alpha]}` (mixed over nodes by the
law of total variance), the normal interval :math:`\mu \mp z\sigma` (scorio 0.2.3's) or the
exact one of :mod:`bayes_eval.pass_exact`. The public functions are in
:mod:`bayes_eval.pass_family`.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from bayes_eval.bayes_at_n import Estimate, _out
from bayes_eval.credible_interval import clip_interval, normal_interval
from bayes_eval.inputs import check_beta_prior, check_bounds, check_confidence, check_k, shown
from bayes_eval.pass_exact import _exact_quantiles
from bayes_eval.pass_metric import _metric, _moments
from bayes_eval.pass_point import _aggregate, _binary, _states
from bayes_eval.priors import (
    FittedPrior,
    PriorSpec,
    mixture_moments,
    mixture_support,
    resolve_prior,
)

__all__ = ["PassPosterior"]


class PassPosterior(NamedTuple):
    """Posterior of a Pass family metric; unpacks as ``mu, sigma, lo, hi`` (scorio's order).

    Attributes
    ----------
    posterior_mean : float or ndarray
        Posterior mean of the latent metric under the stated prior. Not the unbiased
        estimate of :func:`~bayes_eval.pass_family.pass_at_k` and friends, from which it can
        differ by several posterior sd (see :mod:`bayes_eval.pass_family`).
    sigma : float or ndarray
        Posterior standard deviation.
    lo, hi : float or ndarray
        Credible interval.
    """

    posterior_mean: Estimate
    sigma: Estimate
    lo: Estimate
    hi: Estimate


def _prior_spec(prior: PriorSpec, alpha0, beta0) -> PriorSpec:
    """``alpha0``/``beta0`` (scorio's Beta prior) as a Dirichlet vector over (fail, success)."""
    if alpha0 is None and beta0 is None:
        return prior
    if not (isinstance(prior, str) and prior == "uniform"):
        raise ValueError(
            f"both prior={shown(prior)} and alpha0/beta0 were given; alpha0 and beta0 are the "
            "older way to give a fixed Beta prior: pass prior= only (prior=[beta0, alpha0], the "
            "categories being (fail, success))."
        )
    a0, b0 = check_beta_prior(1.0 if alpha0 is None else alpha0, 1.0 if beta0 is None else beta0)
    return np.array([b0, a0])


def _check_options(confidence, bounds, interval, pool):
    confidence = check_confidence(confidence)
    bounds = check_bounds(bounds)
    if interval not in ("normal", "exact"):
        raise ValueError(f"interval is {shown(interval)}; expected 'normal' or 'exact'.")
    if pool not in ("model", "benchmark"):
        raise ValueError(f"pool is {shown(pool)}; expected 'model' or 'benchmark'.")
    return confidence, bounds


def _posterior(
    R, k, kind, tau, *, confidence, bounds, interval, prior, pool, alpha0, beta0, mask
) -> PassPosterior:
    confidence, bounds = _check_options(confidence, bounds, interval, pool)
    spec = _prior_spec(prior, alpha0, beta0)
    t = _binary(R, mask)
    n, c = t.n_trials, t.counts[..., 1]
    k = check_k(k, n)
    metric = _metric(kind, k, tau)
    fitted: FittedPrior = resolve_prior(spec, t.counts.astype(float), pool=pool)
    un, uc, inv = _states(n, c)
    nodes = fitted.nodes  # (J, G, 2): Dirichlet parameters of (fail, success)
    a = nodes[..., 1:2] + uc.astype(float)  # (J, G, S): Beta(a, b) per node, group, state
    b = nodes[..., 0:1] + (un - uc).astype(float)
    mean, var = _moments(metric, a.ravel(), b.ravel())
    mean, var = mean.reshape(a.shape), var.reshape(a.shape)
    m = n.shape[-1]
    shape = n.shape[:-1]
    inv2 = inv.reshape(-1, m)
    n_models = inv2.shape[0]
    g_of = np.arange(n_models) if nodes.shape[1] == n_models else np.zeros(n_models, int)
    counts = np.zeros((n_models, un.size))
    np.add.at(counts, (np.repeat(np.arange(n_models), m), inv2.ravel()), 1.0)
    wts = fitted.weights[:, g_of]  # (J, L)
    if nodes.shape[0] == 1 and nodes.shape[1] == 1:  # a fixed prior: scorio's arithmetic
        mu = _aggregate(mean[0, 0], inv)
        sigma = np.sqrt(var[0, 0][inv].sum(axis=-1)) / m
        mu_j = np.asarray(mu, dtype=float).reshape(1, -1)
        sd_j = np.asarray(sigma, dtype=float).reshape(1, -1)
    else:  # a learned prior: moments per node, mixed by the law of total variance
        mu_j = np.einsum("jls,ls->jl", mean[:, g_of], counts) / m
        sd_j = np.sqrt(np.einsum("jls,ls->jl", var[:, g_of], counts)) / m
        mu, sigma = mixture_moments(mu_j, sd_j, wts)
        mu, sigma = mu.reshape(shape), sigma.reshape(shape)
    if interval == "normal":
        lo, hi = normal_interval(mu, sigma, confidence, bounds)
        return PassPosterior(_out(mu), _out(sigma), _out(lo), _out(hi))
    lo = np.empty(n_models)
    hi = np.empty(n_models)
    for i in range(n_models):
        used = np.flatnonzero(counts[i])
        keep = mixture_support(wts[:, i])
        lo[i], hi[i] = _exact_quantiles(
            metric,
            a[keep, g_of[i]][:, used],
            b[keep, g_of[i]][:, used],
            counts[i, used].astype(np.int64),
            wts[keep, i],
            mu_j[keep, i],
            sd_j[keep, i],
            confidence,
        )
    lo, hi = np.clip(lo, 0.0, metric.gmax), np.clip(hi, 0.0, metric.gmax)
    lo, hi = clip_interval(lo.reshape(shape), hi.reshape(shape), bounds)
    return PassPosterior(_out(mu), _out(sigma), _out(lo), _out(hi))
