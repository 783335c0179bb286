r"""avg@N with the Bayesian uncertainty of seed 000, Appendix B (eqs. 16-20).

Under a prior without ``R0`` (uniform in the paper,
:math:`\nu_{\alpha k} = \alpha_{0k} + n_{\alpha k}`)
the Bayes@N mean is an increasing affine map of the naive weighted average,
:math:`\mu = A + \frac{N}{T}a` (eq. 19), so the two give the same ranking (§2.6), and the
posterior sd of pi-bar carried to the avg scale is :math:`\sigma_a = \frac{T}{N}\sigma` (eq. 20).

With missing trials each question has its own map:
:math:`a_\alpha = \sum_j w_j n_{\alpha j}/N_\alpha`
is :math:`(T_\alpha/N_\alpha)\,E[w\cdot\pi_\alpha] - \sum_j \alpha_{0j}w_j/N_\alpha`, so

.. math:: a = \frac1M\sum_\alpha a_\alpha, \qquad
          \sigma_a^2 = \frac{1}{M^2}\sum_\alpha \Big(\frac{T_\alpha}{N_\alpha}\Big)^2
          \mathrm{Var}[w\cdot\pi_\alpha \mid R],

which reduces to eq. 20 when every question has N trials.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from bayes_eval.bayes_at_n import Estimate, Interval, _out, dirichlet_posterior
from bayes_eval.credible_interval import clip_interval, normal_interval
from bayes_eval.inputs import check_bounds, check_confidence

__all__ = ["avg", "avg_ci"]


def _avg_moments(R, w, alpha0, mask):
    post = dirichlet_posterior(R, w, None, alpha0=alpha0, mask=mask)
    n = post.tally.n_trials.astype(float)
    d = post.w - post.w[0]
    m = n.shape[-1]
    a = post.w[0] + ((post.tally.counts @ d) / n).mean(axis=-1)
    _, var = post.question_moments()
    factor = post.total / n
    sigma = np.sqrt((factor**2 * var).sum(axis=-1)) / m
    return post, a, sigma, factor


def avg(
    R: ArrayLike,
    w: ArrayLike | None = None,
    *,
    alpha0: ArrayLike = 1.0,
    mask: ArrayLike | None = None,
) -> tuple[Estimate, Estimate]:
    r"""Weighted average avg@N and its Bayesian standard deviation (seed 000, App. B).

    Parameters
    ----------
    R : array_like of int, shape ``(M, N)`` or ``(L, M, N)``
        Category labels (see :func:`bayes_eval.bayes`).
    w : array_like, optional
        Rubric weights; ``None`` for binary results.
    alpha0 : float or array_like, keyword-only
        Dirichlet prior concentration used for the uncertainty (1: the paper's uniform prior).
    mask : array_like of bool, keyword-only
        ``True`` where a trial is missing; each question is then averaged over its own trials.

    Returns
    -------
    a, sigma_a : float, or ndarrays of shape ``(L,)``
        :math:`a = \frac{1}{MN}\sum_{\alpha,j} w_j n_{\alpha j}` (eq. 18) and
        :math:`\sigma_a = \frac{T}{N}\sigma` (eq. 20).

    Examples
    --------
    >>> import numpy as np
    >>> a, s = avg(np.array([[0, 1, 1, 0, 1], [1, 1, 0, 1, 1]]))
    >>> round(a, 6), round(s, 6)
    (0.7, 0.165831)
    """
    _, a, sigma, _ = _avg_moments(R, w, alpha0, mask)
    return _out(a), _out(sigma)


def avg_ci(
    R: ArrayLike,
    w: ArrayLike | None = None,
    *,
    confidence: float = 0.95,
    bounds: tuple[float, float] | None = None,
    interval: Interval = "normal",
    alpha0: ArrayLike = 1.0,
    mask: ArrayLike | None = None,
) -> tuple[Estimate, Estimate, Estimate, Estimate]:
    r"""avg@N with a credible interval on the average's scale.

    ``interval="normal"``: :math:`a \mp z\sigma_a` as scorio. ``interval="exact"``: the
    equal-tailed interval of the exact posterior of
    :math:`\frac1M\sum_\alpha (T_\alpha/N_\alpha)
    (w\cdot\pi_\alpha - \sum_j\alpha_{0j}w_j/T_\alpha)`,
    the latent quantity whose posterior mean is ``a``.

    Returns
    -------
    a, sigma_a, lo, hi : float, or ndarrays of shape ``(L,)``
    """
    confidence = check_confidence(confidence)
    bounds = check_bounds(bounds)
    post, a, sigma, factor = _avg_moments(R, w, alpha0, mask)
    if interval == "normal":
        lo, hi = normal_interval(a, sigma, confidence, bounds)
    elif interval == "exact":
        prior_mass = (post.nu - post.tally.counts) @ post.w  # sum_j alpha0_j w_j per question
        shift = -prior_mass / post.tally.n_trials
        from bayes_eval.exact_posterior import exact_interval

        lo, hi = exact_interval(post.nu, post.w, confidence, scale=factor, shift=shift)
        lo, hi = clip_interval(lo, hi, bounds)
    else:
        raise ValueError(f"interval is {interval!r}; expected 'normal' or 'exact'.")
    return _out(a), _out(sigma), _out(lo), _out(hi)
