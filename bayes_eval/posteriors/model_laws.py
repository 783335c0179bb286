r"""The exact laws of each model's own posterior: its exact interval and its exact P(better).

Under one node :math:`a_j` of the prior, model :math:`l` has the per-question posteriors
:math:`\mathrm{Dir}(n_{l\alpha} + a_j)` over its answered questions, and the exact law of its
pi-bar is their lattice convolution (:func:`~bayes_eval.posteriors.exact.exact_posterior`).
Under a fixed or plug-in prior (one node) that law is the posterior; under a learned prior the
posterior is the mixture of the laws of the nodes with their weights :math:`\omega_j`, of
which the heaviest (at most ``_EXACT_NODES``, carrying all but 1e-4 of the weight) are
kept. :class:`~bayes_eval.posteriors.posterior.Posterior` keeps them once computed: its exact
intervals (``kind="exact"``, and ``"auto"`` near an end of the support, ``_near_end``) and
its exact :math:`P(\bar\pi_i > \bar\pi_j)` (:mod:`~bayes_eval.posteriors.comparisons`) share
them.
"""

from __future__ import annotations

from typing import Any, cast

import numpy as np
from numpy.typing import NDArray

from bayes_eval.posteriors.exact import (
    ExactPosterior,
    exact_interval,
    exact_posterior,
    lattice_step,
    mixture_interval,
)
from bayes_eval.posteriors.intervals import Estimate, mixture_support
from bayes_eval.posteriors.prior_fit import _fine_grid
from bayes_eval.posteriors.priors import FittedPrior

__all__: list[str] = []

#: Heaviest nodes of a learned prior used by the exact computations (worst case measured,
#: rubric M = 12, N = 3: quantiles within 0.01 posterior sd of those of all nodes)
_EXACT_NODES = 48
#: ``kind="auto"`` of a model's own posterior is exact when the mean lies within this many
#: posterior sd of an end of the support (the normal interval's error there is a sizeable
#: share of an sd: its law is skewed), normal elsewhere
_AUTO_EXACT_SDS = 6.0

#: the ends of an interval per model
Ends = tuple[NDArray[np.float64], NDArray[np.float64]]


def _near_end(
    mu: NDArray[np.float64], sd: NDArray[np.float64], support: tuple[float, float]
) -> NDArray[np.bool_]:
    """Whether each mean lies within :data:`_AUTO_EXACT_SDS` sd of an end of the support."""
    lo_s, hi_s = support
    return np.asarray((mu - _AUTO_EXACT_SDS * sd < lo_s) | (mu + _AUTO_EXACT_SDS * sd > hi_s))


def _rows(
    answered: NDArray[np.bool_] | None, n_questions: int, model: int
) -> slice | NDArray[np.bool_]:
    """The questions of ``model`` its pi-bar averages over (a mask, or every one)."""
    if answered is None:
        return slice(None)
    return answered.reshape(-1, n_questions)[model]


def _single_law(
    data: NDArray[np.float64],
    nodes: NDArray[np.float64],
    answered: NDArray[np.bool_] | None,
    model: int,
    node: int = 0,
) -> NDArray[np.float64]:
    """Posterior concentrations of one model (answered questions) under one node.

    ``data`` are the counts ``(..., M, C + 1)``, ``nodes`` the prior's ``(J, G, C + 1)``.
    """
    counts = data.reshape(-1, *data.shape[-2:])[model]
    g = model if nodes.shape[1] > 1 else 0
    nu = counts + nodes[node, g]
    if answered is not None:
        nu = nu[_rows(answered, data.shape[-2], model)]
    return nu


def _mixture_laws(
    data: NDArray[np.float64],
    nodes: NDArray[np.float64],
    weights: NDArray[np.float64],
    answered: NDArray[np.bool_] | None,
    w: NDArray[np.float64],
    model: int,
    limit: int = _EXACT_NODES,
) -> tuple[list[ExactPosterior], NDArray[np.float64]]:
    """Exact laws of the heaviest nodes of one model, and their weights.

    ``weights`` are the node weights ``(J, L)`` (``(J, 1)`` for one model).
    """
    nu = data.reshape(-1, *data.shape[-2:])[model]
    wts = weights[:, model]
    g = model if nodes.shape[1] > 1 else 0
    rows = _rows(answered, data.shape[-2], model)
    keep = mixture_support(wts, 1.0 - 1e-4)[:limit]
    laws = [exact_posterior(nu[rows] + nodes[j, g], w) for j in keep]
    return laws, wts[keep]


def _fixed_laws(
    nu: NDArray[np.float64], answered: NDArray[np.bool_] | None, w: NDArray[np.float64]
) -> list[ExactPosterior]:
    """Exact laws of every model on one lattice step (fixed or plug-in prior)."""
    flat = nu.reshape(-1, *nu.shape[-2:])
    rows: list[slice] | list[NDArray[np.bool_]] = [slice(None)] * len(flat)
    if answered is not None:
        rows = list(answered.reshape(len(flat), -1))
    step = lattice_step([flat[i][rows[i]] for i in range(len(flat))], w)
    return [exact_posterior(flat[i][rows[i]], w, step=step) for i in range(len(flat))]


def _exact_interval(
    nu: NDArray[np.float64],
    answered: NDArray[np.bool_] | None,
    w: NDArray[np.float64],
    confidence: float,
) -> tuple[Estimate, Estimate]:
    """Exact interval with one node, over each model's answered questions.

    It is :func:`~bayes_eval.posteriors.exact.exact_interval` of the concentrations ``nu``
    ``(..., M, C + 1)``: floats for one model, arrays of the leading shape for a batch.
    """
    if answered is None or answered.all():
        return exact_interval(nu, w, confidence)
    m, k = nu.shape[-2:]
    flat, ans = nu.reshape(-1, m, k), answered.reshape(-1, m)
    ends = [exact_interval(flat[i][ans[i]], w, confidence) for i in range(len(flat))]
    shape = nu.shape[:-2]
    lo, hi = (np.array([e[j] for e in ends], dtype=float).reshape(shape) for j in (0, 1))
    return lo, hi


def _exact_mixture_interval(
    data: NDArray[np.float64],
    w: NDArray[np.float64],
    confidence: float,
    fitted: FittedPrior,
    weights: NDArray[np.float64],
    given_hyperprior: tuple[float, float] | None,
    answered: NDArray[np.bool_] | None,
    cache: dict[Any, Any],
) -> Ends:
    """Equal-tailed interval under the learned prior, per model.

    It is :func:`~bayes_eval.posteriors.exact.mixture_interval` of each model's counts, node
    weights ``weights`` ``(J, L)``; with a fine grid of the hyperposterior when the prior was
    fitted to this model's counts alone (a prior per model, or one model). The grids are kept
    in ``cache`` (per group of the prior), ``given_hyperprior`` is the hyperprior the user gave
    (used when the fit recorded none).
    """
    flat = data.reshape(-1, *data.shape[-2:])
    n_models = flat.shape[0]
    per_group = fitted.nodes.shape[1] > 1
    ends = np.empty((n_models, 2))
    for i in range(n_models):
        g = i if per_group else 0
        key = ("fine", g)
        if key not in cache:
            fine = None
            # the hyperprior the fit used (per group when a board updated it)
            hyper = (
                given_hyperprior
                if fitted.kappa_prior is None
                else cast("tuple[float, float]", tuple(fitted.kappa_prior[g]))
            )
            if per_group or n_models == 1:
                # a learned prior's fit records its hyperprior (or the user gave one)
                hyper_used = cast("tuple[float, float]", hyper)
                fine = _fine_grid(flat[i], fitted.alpha[g], fitted.log_alpha_cov[g], hyper_used)
            cache[key] = fine
        ends[i] = mixture_interval(
            flat[i][_rows(answered, data.shape[-2], i)],
            w,
            confidence,
            fitted.nodes[:, g],
            weights[:, i],
            fine=cache[key],
        )
    shape = data.shape[:-2]
    return ends[:, 0].reshape(shape), ends[:, 1].reshape(shape)
