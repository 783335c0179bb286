r"""avg@N: the naive weighted average, with an interval for the quantity it estimates.

Hariri et al., "Don't Pass@k: A Bayesian Framework for Large Language Model Evaluation",
Appendix B (eqs. 16-20). The average of the observed scores is

.. math:: a = \frac{1}{MN}\sum_{\alpha, i} w_{R_{\alpha i}}
          = \frac1M\sum_\alpha \sum_j w_j \frac{n_{\alpha j}}{N}   \qquad\text{(eq. 18)}

and it estimates :math:`\bar\pi = \frac1M\sum_\alpha w\cdot\pi_\alpha`, the same quantity as
Bayes@N. Under a prior without ``R0`` (:math:`\nu_{\alpha k} = \alpha_{0k} + n_{\alpha k}`) the
Bayes@N posterior mean is an increasing affine map of it, :math:`\mu = A + \frac{N}{T}a`
(eq. 19), so the two rank models identically (§2.6), and the paper carries the posterior sd
to the scale of the average as :math:`\sigma_a = \frac{T}{N}\sigma` (eq. 20).

**What the interval of** :func:`avg_ci` **is about.** :math:`\sigma_a` is the sd of the
*latent* quantity :math:`\frac1M\sum_\alpha \frac{T_\alpha}{N_\alpha}\big(w\cdot\pi_\alpha -
\sum_j \alpha_{0j}w_j/T_\alpha\big)`, whose posterior mean is ``a``; it is not an interval
for :math:`\bar\pi`. For M = N = 1 and a correct answer, :math:`a \mp z\sigma_a` is
[-0.39, 2.39]: the latent quantity ranges over [-1, 2]. Over questions drawn from the prior
it covers :math:`\bar\pi` far more often than stated (0.999 for a 95% interval in the
audit, at about three times the width of :func:`bayes_eval.bayes_ci`), because
:math:`T/N > 1` inflates it.

Decision: :func:`avg_ci` returns the avg@N point estimate ``a`` (eq. 18, unchanged) with the
posterior sd and a credible interval of :math:`\bar\pi` itself under the stated prior: the
posterior of :func:`bayes_eval.bayes_ci` (``prior=``, ``pool=``, ``interval=`` as there). The
interval is then about the quantity users mean, lies within :math:`[\min w, \max w]`, and
covers :math:`\bar\pi` at the stated rate when the prior is right (tested by simulation).
The paper's latent interval (scorio 0.2.3's ``avg_ci``, kept for parity) is
``scale="latent"``.

With missing trials each question has its own map:
:math:`a_\alpha = \sum_j w_j n_{\alpha j}/N_\alpha`
is :math:`(T_\alpha/N_\alpha)\,E[w\cdot\pi_\alpha] - \sum_j \alpha_{0j}w_j/N_\alpha`, so

.. math:: a = \frac1M\sum_\alpha a_\alpha, \qquad
          \sigma_a^2 = \frac{1}{M^2}\sum_\alpha \Big(\frac{T_\alpha}{N_\alpha}\Big)^2
          \mathrm{Var}[w\cdot\pi_\alpha \mid R],

which reduces to eq. 20 when every question has N trials.
"""

from __future__ import annotations

from typing import Literal, NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from bayes_eval.inputs import check_bounds, check_confidence, shown
from bayes_eval.metrics.bayes import prior_of
from bayes_eval.posteriors.exact import exact_interval
from bayes_eval.posteriors.intervals import Estimate, as_estimate, clip_interval, normal_interval
from bayes_eval.posteriors.posterior import (
    DirichletPosterior,
    Interval,
    Posterior,
    check_interval,
    posterior,
)
from bayes_eval.posteriors.priors import Pool, Prior, PriorSpec

__all__ = ["AvgCIResult", "AvgResult", "avg", "avg_ci", "avg_interval", "avg_posterior"]


Scale = Literal["pi_bar", "latent"]


class AvgResult(NamedTuple):
    r"""avg@N and the paper's sd on the average's scale; unpacks as ``a, sigma_a``.

    Attributes
    ----------
    a : float or ndarray
        The avg@N estimate (eq. 18).
    sigma_a : float or ndarray
        :math:`\sigma_a = \frac{T}{N}\sigma` (eq. 20), the sd of the latent quantity of
        the module docstring (not of pi-bar).

    Examples
    --------
    >>> import numpy as np
    >>> res = avg(np.array([[0, 1, 1, 0, 1], [1, 1, 0, 1, 1]]))
    >>> type(res).__name__, res._fields
    ('AvgResult', ('a', 'sigma_a'))
    >>> round(res.a, 4), round(res.sigma_a, 4)
    (0.7, 0.1658)
    """

    a: Estimate
    sigma_a: Estimate


class AvgCIResult(NamedTuple):
    r"""avg@N with an interval; unpacks as ``a, sigma, lo, hi`` (scorio's order).

    Attributes
    ----------
    a : float or ndarray
        The avg@N estimate (eq. 18), whatever the scale.
    sigma : float or ndarray
        ``scale="pi_bar"``: the posterior sd of pi-bar. ``scale="latent"``: eq. 20's
        :math:`\sigma_a`.
    lo, hi : float or ndarray
        Credible interval of pi-bar, or of the latent quantity.

    Examples
    --------
    >>> import numpy as np
    >>> res = avg_ci(np.array([[0, 1, 1, 0, 1], [1, 1, 0, 1, 1]]), prior="uniform")
    >>> res._fields
    ('a', 'sigma', 'lo', 'hi')
    >>> [round(x, 4) for x in res]
    [0.7, 0.1185, 0.398, 0.8559]
    """

    a: Estimate
    sigma: Estimate
    lo: Estimate
    hi: Estimate


def _latent_moments(post: DirichletPosterior) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r"""``a``, :math:`\sigma_a` and the per-question factor :math:`T_\alpha / N_\alpha`."""
    n = post.tally.n_trials.astype(float)
    d = post.w - post.w[0]
    m = n.shape[-1]
    a = post.w[0] + ((post.tally.counts @ d) / n).mean(axis=-1)
    _, var = post.question_moments()
    factor = post.total / n
    sigma = np.sqrt((factor**2 * var).sum(axis=-1)) / m
    return a, sigma, factor


def avg(
    R: ArrayLike,
    w: ArrayLike | None = None,
    *,
    alpha0: ArrayLike = 1.0,
    mask: ArrayLike | None = None,
) -> AvgResult:
    r"""Weighted average avg@N and the paper's sd on its scale (Hariri et al., App. B).

    Parameters
    ----------
    R : array_like of int, shape ``(M, N)`` or ``(L, M, N)``
        Category labels (see :func:`bayes_eval.bayes`).
    w : array_like, optional
        Rubric weights; ``None`` for binary results.
    alpha0 : float or array_like, keyword-only
        Dirichlet prior concentration used for the sd (1: the paper's uniform prior).
    mask : array_like of bool, keyword-only
        ``True`` where a trial is missing; each question is then averaged over its own trials.

    Returns
    -------
    AvgResult
        ``(a, sigma_a)``: :math:`a = \frac{1}{MN}\sum_{\alpha,j} w_j n_{\alpha j}` (eq. 18) and
        :math:`\sigma_a = \frac{T}{N}\sigma` (eq. 20), the sd of the latent quantity of the
        module docstring (not of pi-bar: see :func:`avg_ci`). Floats, or arrays of shape
        ``(L,)``.

    Examples
    --------
    >>> import numpy as np
    >>> a, s = avg(np.array([[0, 1, 1, 0, 1], [1, 1, 0, 1, 1]]))
    >>> round(a, 6), round(s, 6)
    (0.7, 0.165831)
    """
    post = posterior(R, w, prior=prior_of(alpha0), mask=mask).dirichlet
    a, sigma, _ = _latent_moments(post)
    return AvgResult(as_estimate(a), as_estimate(sigma))


def avg_ci(
    R: ArrayLike,
    w: ArrayLike | None = None,
    *,
    confidence: float = 0.95,
    bounds: tuple[float, float] | None = None,
    interval: Interval = "auto",
    scale: Scale = "pi_bar",
    prior: PriorSpec | Prior | None = None,
    pool: Pool | None = None,
    alpha0: ArrayLike | None = None,
    mask: ArrayLike | None = None,
) -> AvgCIResult:
    r"""avg@N with a credible interval for pi-bar (default) or for the paper's latent quantity.

    ``scale="pi_bar"`` (default): ``a`` (eq. 18) with the posterior sd and the credible
    interval of :math:`\bar\pi = \frac1M\sum_\alpha w\cdot\pi_\alpha` under ``prior``, exactly
    those of :func:`bayes_eval.bayes_ci` (``interval="normal"``: :math:`\mu \mp z\sigma`;
    ``"exact"``: equal-tailed quantiles of the exact posterior), always clipped into
    :math:`[\min_j w_j, \max_j w_j]`, the range of :math:`\bar\pi`. The interval is centred
    on the posterior mean :math:`\mu = A + \frac{N}{T}a` (eq. 19), not on ``a``: with few
    trials per question the prior pulls :math:`\mu` toward the middle and ``a`` may lie
    outside the interval (M = N = 1, one correct answer: ``a = 1``, 95% interval under the
    uniform prior [0.205, 1] normal or [0.158, 0.987] exact).

    ``scale="latent"``: the interval of Hariri et al., App. B eq. 20 and of scorio 0.2.3's
    ``avg_ci``: :math:`a \mp z\sigma_a` (``"normal"``) or the exact equal-tailed interval
    of the latent quantity
    :math:`\frac1M\sum_\alpha (T_\alpha/N_\alpha)(w\cdot\pi_\alpha -
    \sum_j\alpha_{0j}w_j/T_\alpha)` (``"exact"``), whose posterior mean is ``a``. It is *not*
    an interval for :math:`\bar\pi` (it ranges over :math:`[-1, 2]` for M = N = 1, binary;
    module docstring) and needs a fixed prior.

    Parameters
    ----------
    R, w
        As in :func:`bayes_eval.bayes`.
    confidence : float, keyword-only
        Credibility level in ``(0, 1)``.
    bounds : (float, float), optional, keyword-only
        Clip both endpoints into ``[lo, hi]`` (default: none beyond the range of pi-bar).
    interval : {"auto", "normal", "exact"}, keyword-only
        As in :func:`bayes_eval.bayes_ci` (default ``"auto"``: the posterior's own law; the
        latent scale reads it as ``"normal"``, the paper's eq. 20).
    scale : {"pi_bar", "latent"}, keyword-only
    prior, pool, alpha0
        As in :func:`bayes_eval.bayes_ci` (``alpha0`` is the older name of a fixed prior;
        the latent scale's default is the paper's uniform prior).
    mask : array_like of bool, keyword-only
        ``True`` where a trial is missing; each question is then averaged over its own trials.

    Returns
    -------
    AvgCIResult
        ``(a, sigma, lo, hi)``: floats, or arrays of shape ``(L,)``.

    Examples
    --------
    >>> import numpy as np
    >>> R = np.array([[1]])
    >>> [round(x, 3) for x in avg_ci(R, prior="uniform", interval="normal")]
    [1.0, 0.236, 0.205, 1.0]
    >>> [round(x, 3) for x in avg_ci(R, scale="latent")]
    [1.0, 0.707, -0.386, 2.386]
    """
    confidence = check_confidence(confidence)
    bounds = check_bounds(bounds)
    check_interval(interval)
    post = avg_posterior(R, w, scale=scale, prior=prior, pool=pool, alpha0=alpha0, mask=mask)
    return avg_interval(post, confidence=confidence, bounds=bounds, interval=interval, scale=scale)


def _check_scale(scale: object) -> None:
    if scale not in ("pi_bar", "latent"):
        raise ValueError(f"scale is {shown(scale)}; expected 'pi_bar' or 'latent'.")


def avg_posterior(
    R: ArrayLike,
    w: ArrayLike | None = None,
    *,
    scale: Scale = "pi_bar",
    prior: PriorSpec | Prior | None = None,
    pool: Pool | None = None,
    alpha0: ArrayLike | None = None,
    mask: ArrayLike | None = None,
) -> Posterior:
    """The posterior behind :func:`avg_ci`.

    It is that of :func:`bayes_eval.posterior` under the prior the options name, the paper's
    uniform prior by default on the latent scale.

    Its ``prior_label`` names the prior of :func:`avg_ci`'s numbers (on a board of binary
    results, the board's joint posterior).

    Parameters
    ----------
    R, w
        As in :func:`bayes_eval.bayes`.
    scale : {"pi_bar", "latent"}, keyword-only
        As in :func:`avg_ci` (default ``"pi_bar"``).
    prior, pool, alpha0
        As in :func:`bayes_eval.bayes_ci`.
    mask : array_like of bool, keyword-only
        ``True`` where a trial is missing.

    Returns
    -------
    Posterior
        The posterior of pi-bar.

    Examples
    --------
    >>> import numpy as np
    >>> R = np.array([[1, 0], [1, 1]])
    >>> avg_posterior(R, scale="latent").prior_label
    'uniform'
    """
    _check_scale(scale)
    if scale == "latent" and prior is None and alpha0 is None:
        prior = "uniform"  # the latent quantity needs a fixed prior: the paper's
    return posterior(R, w, prior=prior_of(prior, pool=pool, alpha0=alpha0), mask=mask)


def avg_interval(
    post: Posterior,
    *,
    confidence: float = 0.95,
    bounds: tuple[float, float] | None = None,
    interval: Interval = "auto",
    scale: Scale = "pi_bar",
) -> AvgCIResult:
    """avg@N and its interval read from the posterior of :func:`avg_posterior`.

    The computation of :func:`avg_ci` once its posterior is built (see there for the two
    scales).

    Parameters
    ----------
    post : Posterior
        From :func:`avg_posterior` with the same ``scale``.
    confidence, bounds, interval, scale : keyword-only
        As in :func:`avg_ci`.

    Returns
    -------
    AvgCIResult
        ``(a, sigma, lo, hi)``: floats, or arrays of shape ``(L,)``.

    Examples
    --------
    >>> import numpy as np
    >>> post = avg_posterior(np.array([[1]]), prior="uniform")
    >>> [round(x, 3) for x in avg_interval(post, interval="normal")]
    [1.0, 0.236, 0.205, 1.0]
    """
    confidence = check_confidence(confidence)
    bounds = check_bounds(bounds)
    check_interval(interval)
    _check_scale(scale)
    if scale == "pi_bar":
        t, weights = post.tally, post.w
        a = weights[0] + ((t.counts @ (weights - weights[0])) / t.n_trials).mean(axis=-1)
        lo, hi = post.interval(confidence, kind=interval, bounds="support")
        lo, hi = clip_interval(lo, hi, bounds)
        return AvgCIResult(as_estimate(a), post.sd, as_estimate(lo), as_estimate(hi))
    if post.n_nodes != 1 or post.prior.learned:
        raise ValueError(
            f"scale='latent' needs a fixed prior (the latent quantity is defined through it); "
            f"the prior, {post.prior.label}, is learned: use scale='pi_bar'."
        )
    dpost = post.dirichlet
    a, sigma, factor = _latent_moments(dpost)
    if interval in ("normal", "auto"):  # the latent scale has no support to respect
        lo, hi = normal_interval(a, sigma, confidence, bounds)
    else:
        prior_mass = (dpost.nu - dpost.tally.counts) @ dpost.w  # sum_j alpha0_j w_j
        shift = -prior_mass / dpost.tally.n_trials
        lo, hi = exact_interval(dpost.nu, dpost.w, confidence, scale=factor, shift=shift)
        lo, hi = clip_interval(lo, hi, bounds)
    return AvgCIResult(as_estimate(a), as_estimate(sigma), as_estimate(lo), as_estimate(hi))
