r"""Bayes@N under the names of the peer package scorio: thin wrappers over the posterior.

Hariri et al., "Don't Pass@k: A Bayesian Framework for Large Language Model Evaluation",
§2.2-2.5, Algorithm 1 and Appendix A: the posterior mean :math:`\mu` and sd :math:`\sigma`
of the weighted score :math:`\bar\pi = \frac1M\sum_\alpha w\cdot\pi_\alpha` (eq. 15, formulas
in :mod:`bayes_eval.posteriors.posterior`), and a credible interval. :func:`bayes` and
:func:`bayes_ci` keep scorio's names, argument order and return conventions
(``from bayes_eval import bayes_ci`` replaces ``from scorio.eval import bayes_ci``); every
number comes from :func:`bayes_eval.posterior`, which they build and ask.
"""

from __future__ import annotations

from typing import Literal, NamedTuple, cast

import numpy as np
from numpy.typing import ArrayLike

from bayes_eval.inputs import check_bounds, check_confidence, labels, shown
from bayes_eval.posteriors.intervals import Estimate, as_estimate, normal_interval
from bayes_eval.posteriors.onepass import one_pass_moments
from bayes_eval.posteriors.posterior import (
    BayesResult,
    DirichletPosterior,
    Interval,
    check_interval,
    posterior,
)
from bayes_eval.posteriors.priors import DEFAULT_PRIOR, Pool, Prior, PriorSpec

__all__ = ["BayesCIResult", "bayes", "bayes_ci", "dirichlet_posterior", "prior_of"]


class BayesCIResult(NamedTuple):
    """Posterior mean, sd and credible interval of pi-bar; unpacks as ``mu, sigma, lo, hi``.

    Attributes
    ----------
    mu, sigma : float or ndarray
        As in :class:`~bayes_eval.posteriors.posterior.BayesResult`.
    lo, hi : float or ndarray
        Credible interval of pi-bar (normal or exact, see :func:`bayes_ci`).

    Examples
    --------
    >>> import numpy as np
    >>> res = bayes_ci(np.array([[0, 1, 1, 0, 1], [1, 1, 0, 1, 1]]), prior="uniform")
    >>> res._fields
    ('mu', 'sigma', 'lo', 'hi')
    >>> mu, sigma, lo, hi = res
    >>> round(mu, 4), round(sigma, 4), round(lo, 4), round(hi, 4)
    (0.6429, 0.1185, 0.398, 0.8559)
    """

    mu: Estimate
    sigma: Estimate
    lo: Estimate
    hi: Estimate


#: The named priors of the scorio-named functions, built once.
_NAMED = {name: Prior.parse(name) for name in ("uniform", "jeffreys", DEFAULT_PRIOR)}


def prior_of(
    prior: PriorSpec | Prior | None = None,
    *,
    pool: Pool | None = None,
    alpha0: ArrayLike | None = None,
    R0: ArrayLike | None = None,
    R0_mask: ArrayLike | None = None,
) -> Prior:
    """The :class:`~bayes_eval.posteriors.priors.Prior` of the scorio-style arguments.

    The arguments are ``prior`` (None: the default,
    :data:`~bayes_eval.posteriors.priors.DEFAULT_PRIOR`, the learned prior) and ``pool``,
    ``alpha0`` (the older name of a fixed prior) and the earlier runs ``R0`` (with
    ``R0_mask``).

    Parameters
    ----------
    prior : Prior, str, float or array_like, optional
        As in :func:`bayes_eval.bayes`; None (default) is ``"empirical"`` unless ``alpha0``
        is given.
    pool : {"board", "model", "benchmark"}, optional, keyword-only
        How a learned prior is pooled across models (default ``"board"``).
    alpha0 : float or array_like of shape ``(C + 1,)``, optional, keyword-only
        Older name of a fixed prior; only with ``prior`` None or ``"uniform"``.
    R0 : array_like of int, shape ``(M, D)`` or ``(L, M, D)``, optional, keyword-only
        Earlier runs on the same questions, whose counts are added to the prior.
    R0_mask : array_like of bool, optional, keyword-only
        ``True`` where a trial of ``R0`` is missing.

    Returns
    -------
    Prior
        The parsed prior; the named priors without options are built once and shared.

    Raises
    ------
    ValueError
        Both ``alpha0`` and a ``prior`` other than ``"uniform"``.

    Examples
    --------
    >>> prior_of().kind
    'empirical'
    >>> prior_of("uniform").learned
    False
    >>> prior_of(alpha0=2.0).kind
    'fixed'
    """
    if alpha0 is None and prior is None:
        prior = DEFAULT_PRIOR
    if (  # the named priors without options, built once
        type(prior) is str
        and prior in _NAMED
        and alpha0 is None
        and pool is None
        and R0 is None
        and R0_mask is None
    ):
        return _NAMED[prior]
    if alpha0 is not None:
        if prior is not None and not (isinstance(prior, str) and prior == "uniform"):
            raise ValueError(
                f"both prior={shown(prior)} and alpha0={shown(alpha0)} were given; alpha0 is "
                "the older name of a fixed prior: pass prior= only."
            )
        return Prior.parse(
            Prior.parse(alpha0, name="alpha0"), pool=pool, runs=R0, runs_mask=R0_mask
        )
    return Prior.parse(prior, pool=pool, runs=R0, runs_mask=R0_mask)


def dirichlet_posterior(
    R: ArrayLike,
    w: ArrayLike | None = None,
    R0: ArrayLike | None = None,
    *,
    alpha0: ArrayLike = 1.0,
    mask: ArrayLike | None = None,
    R0_mask: ArrayLike | None = None,
) -> DirichletPosterior:
    """The per-question posteriors ``Dir(nu_alpha)`` under the fixed Dirichlet prior ``alpha0``.

    They are ``posterior(R, w, prior=...).dirichlet`` (Hariri et al., "Don't Pass@k", §2.3 and
    Appendix A).

    Parameters
    ----------
    R, w, R0, alpha0, mask, R0_mask
        As in :func:`bayes`.

    Returns
    -------
    DirichletPosterior
        The Dirichlet parameters ``nu`` of shape ``(M, C + 1)`` (or ``(L, M, C + 1)``), the
        weights ``w`` and the tally they come from.

    Examples
    --------
    >>> import numpy as np
    >>> post = dirichlet_posterior(np.array([[1, 1, 1, 0], [0, 1, 0, 0]]), alpha0=1.0)
    >>> post.nu.tolist()
    [[2.0, 4.0], [4.0, 2.0]]
    >>> mu, sigma = post.moments()
    >>> round(float(mu), 4), round(float(sigma), 4)
    (0.5, 0.126)
    """
    prior = prior_of(alpha0, R0=R0, R0_mask=R0_mask)
    return posterior(R, w, prior=prior, mask=mask).dirichlet


def bayes(
    R: ArrayLike,
    w: ArrayLike | None = None,
    R0: ArrayLike | None = None,
    *,
    prior: PriorSpec | Prior | None = None,
    pool: Pool | None = None,
    alpha0: ArrayLike | None = None,
    mask: ArrayLike | None = None,
    R0_mask: ArrayLike | None = None,
    fractional: bool = False,
    answered_only: bool = False,
) -> BayesResult:
    r"""Bayes@N posterior mean and standard deviation of the weighted score pi-bar.

    Implements Algorithm 1 / eq. 15 of Hariri et al., "Don't Pass@k" (Appendix A), extended
    to missing trials (per-question :math:`T_\alpha`), any Dirichlet prior and a prior
    learned from the questions: ``posterior(R, w, prior=...).moments()``
    (:func:`bayes_eval.posterior`).

    Parameters
    ----------
    R : array_like of int, shape ``(M, N)`` or ``(L, M, N)``
        Category labels ``0..C`` of N trials of M questions (for L models). Boolean arrays
        count as 0/1; a ``numpy.ma.MaskedArray`` marks missing trials.
    w : array_like of float, shape ``(C + 1,)``, optional
        Rubric weights :math:`(w_0, \dots, w_C)`. ``None``: binary results, ``w = (0, 1)``.
    R0 : array_like of int, shape ``(M, D)`` or ``(L, M, D)``, optional
        Prior runs on the same questions (eq. 6); their counts are added to the prior.
    prior : Prior, str, float or array_like, keyword-only
        ``"empirical"`` (the default, also when None: the per-question prior learned from
        the data and integrated over its uncertainty, calibrated on real benchmarks; on a
        board of binary results the joint posterior of the board model,
        :mod:`bayes_eval.posteriors.joint`), ``"uniform"`` (Dirichlet(1, ..., 1), the
        paper's and scorio's), ``"jeffreys"`` (Dirichlet(1/2, ..., 1/2)),
        ``"empirical-plugin"`` (learned, plugged in), a positive number, a vector of C + 1
        positive numbers, or a :class:`~bayes_eval.posteriors.priors.Prior`.
    pool : {"board", "model", "benchmark"}, keyword-only
        Learned priors: the board (``"board"``, default: the joint posterior of the board
        model on binary results of several models; rubric and graded results: one prior per
        model with its concentration informed by the other models of ``R``,
        :mod:`bayes_eval.posteriors.board`), one per model from its own results only, or one
        shared by all models of ``R``.
    alpha0 : float or array_like of shape ``(C + 1,)``, keyword-only
        Older name of a fixed ``prior`` (``alpha0=1`` is ``prior="uniform"``).
    mask, R0_mask : array_like of bool, keyword-only
        ``True`` where a trial of ``R`` (``R0``) is missing.
    fractional : bool, keyword-only
        ``R`` holds graded scores in ``[0, 1]`` (NaN = missing trial): each adds ``s`` to the
        correct and ``1 - s`` to the wrong count, a quasi-likelihood; ``w`` must be left out.
    answered_only : bool, keyword-only
        Score each model on the questions it has at least one trial of (an incomplete
        design; the models are then not on the same question set). By default a question
        without any trial is an error.

    Returns
    -------
    BayesResult
        ``(mu, sigma)``: :math:`\mu = E[\bar\pi \mid R]` and
        :math:`\sigma = \mathrm{sd}[\bar\pi \mid R]`; floats, or arrays of shape ``(L,)``.

    Examples
    --------
    >>> import numpy as np
    >>> R = np.array([[0, 1, 2, 2, 1], [1, 1, 0, 2, 2]])
    >>> mu, sigma = bayes(R, [0.0, 0.5, 1.0], prior="uniform")  # the paper's prior
    >>> round(mu, 6), round(sigma, 6)
    (0.5625, 0.091998)
    """
    spec = prior_of(prior, pool=pool, alpha0=alpha0, R0=R0, R0_mask=R0_mask)
    quick = _one_pass(R, w, spec, mask, fractional, answered_only)
    if quick is not None:
        return quick[0]
    post = posterior(
        R, w, prior=spec, mask=mask, fractional=fractional, answered_only=answered_only
    )
    return post.moments()


def _one_pass(
    R: ArrayLike,
    w: ArrayLike | None,
    spec: Prior,
    mask: ArrayLike | None,
    fractional: bool,
    answered_only: bool,
) -> tuple[BayesResult, np.ndarray] | None:
    """``(moments, weights)`` of :func:`bayes` in one pass over validated labels, or None.

    The pass is that of :mod:`bayes_eval.posteriors.onepass`. None where it does not apply: a
    learned prior, earlier runs, missing trials, graded scores, or weights not affine in the
    category (the posterior's general path then).
    """
    if (
        spec.learned
        or spec.runs is not None
        or mask is not None
        or fractional
        or answered_only
        or isinstance(R, np.ma.MaskedArray)
    ):
        return None
    values, weights, top = labels(R, w)
    moments = one_pass_moments(values, weights, _fixed_alpha(spec, weights.size), top)
    return None if moments is None else (moments, weights)


#: The Dirichlet parameter of the named fixed priors by (kind, C + 1), asked on every call.
_NAMED_ALPHA: dict[tuple[str, int], np.ndarray] = {}


def _fixed_alpha(spec: Prior, k: int) -> np.ndarray:
    """The Dirichlet parameter (shape ``(k,)``) of the fixed prior ``spec`` for ``k`` categories.

    It is ``spec.fit(...).alpha[0]``, kept for the named priors.
    """
    key = (spec.kind, k)
    alpha = _NAMED_ALPHA.get(key)
    if alpha is None:
        alpha = spec.fit(np.zeros((1, k))).alpha[0]
        if spec.kind in ("uniform", "jeffreys"):  # read-only: shared by every call
            _NAMED_ALPHA[key] = alpha
    return alpha


def bayes_ci(
    R: ArrayLike,
    w: ArrayLike | None = None,
    R0: ArrayLike | None = None,
    *,
    confidence: float = 0.95,
    bounds: tuple[float, float] | Literal["support"] | None = None,
    interval: Interval = "auto",
    prior: PriorSpec | Prior | None = None,
    pool: Pool | None = None,
    alpha0: ArrayLike | None = None,
    mask: ArrayLike | None = None,
    R0_mask: ArrayLike | None = None,
    fractional: bool = False,
    answered_only: bool = False,
) -> BayesCIResult:
    r"""Bayes@N with a central credible interval.

    Both come from ``posterior(R, w, prior=...)``, asked for its moments and
    :meth:`~bayes_eval.posteriors.posterior.Posterior.interval`.

    ``interval="auto"`` (default): the posterior's own law, never outside the support
    (:meth:`~bayes_eval.posteriors.posterior.Posterior.interval`).
    ``interval="normal"`` (as the paper and scorio): ``mu -/+ z sigma`` with
    ``z = Phi^{-1}(1/2 + confidence/2)`` (Hariri et al., "Don't Pass@k", §2.5).
    ``interval="exact"``: the equal-tailed interval of the exact posterior of pi-bar
    (:mod:`bayes_eval.posteriors.exact`): for concentrations >= 0.05 (measured up to M = 30
    questions and N = 16 trials, binary or three-level rubrics) its endpoints are within 1e-4
    posterior sd of the exact quantiles, the mass beyond each is (1 - confidence)/2 within
    4e-6 at 95%, and they lie within [min w, max w] (for a learned prior, of the mixture of
    those posteriors over the heaviest 48 hyperparameter nodes). Both are clipped into
    ``bounds`` when given (both endpoints, as scorio does).

    Parameters
    ----------
    R, w, R0, prior, pool, alpha0, mask, R0_mask, fractional, answered_only
        As in :func:`bayes`.
    confidence : float, keyword-only
        Credibility level in ``(0, 1)``.
    bounds : (float, float) or "support", optional, keyword-only
        Clip both endpoints into ``[lo, hi]``; ``"support"`` clips into the support of
        pi-bar, ``[min w, max w]`` (the normal interval can cross it when mu is near an
        end). Default no clipping, as scorio.
    interval : {"auto", "normal", "exact"}, keyword-only

    Returns
    -------
    BayesCIResult
        ``(mu, sigma, lo, hi)``: floats, or arrays of shape ``(L,)`` for batched input.

    Notes
    -----
    Unlike scorio 0.2.3, ``confidence`` and ``bounds`` are keyword-only and the default prior
    is the learned one (scorio's numbers: ``prior="uniform", interval="normal"``). The uniform
    prior undercovers on real benchmarks (see the README's coverage section).

    Examples
    --------
    >>> import numpy as np
    >>> R = np.array([[1, 1, 1, 1], [0, 1, 1, 1]])
    >>> [round(x, 4) for x in bayes_ci(R, prior="uniform", interval="normal")]
    [0.75, 0.1136, 0.5274, 0.9726]
    >>> [round(x, 4) for x in bayes_ci(R, prior="uniform", interval="exact")]
    [0.75, 0.1136, 0.5029, 0.9362]
    """
    confidence = check_confidence(confidence)
    support = isinstance(bounds, str) and bounds == "support"
    # not "support" here: a tuple, None, or other text check_bounds refuses
    clip = None if support else check_bounds(cast("tuple[float, float] | None", bounds))
    check_interval(interval)
    spec = prior_of(prior, pool=pool, alpha0=alpha0, R0=R0, R0_mask=R0_mask)
    quick = _one_pass(R, w, spec, mask, fractional, answered_only) if interval == "normal" else None
    if quick is not None:
        (mu, sigma), weights = quick
        if support:  # [min w, max w]
            clip = (float(weights.min()), float(weights.max()))
        lo, hi = normal_interval(mu, sigma, confidence, clip)
        return BayesCIResult(mu, sigma, as_estimate(lo), as_estimate(hi))
    post = posterior(
        R, w, prior=spec, mask=mask, fractional=fractional, answered_only=answered_only
    )
    lo, hi = post.interval(confidence, kind=interval, bounds=bounds)
    return BayesCIResult(post.mean, post.sd, lo, hi)
