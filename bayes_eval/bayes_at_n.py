r"""Bayes@N: the closed-form Dirichlet-multinomial posterior of a weighted rubric score.

Seed 000 (Hariri et al., "Don't Pass@k"), §2.2-2.4, Algorithm 1 and Appendix A. For question
:math:`\alpha` with category probabilities :math:`\pi_\alpha` on the simplex, the target is

.. math:: \bar\pi = \frac{1}{M}\sum_{\alpha=1}^{M}\sum_{k=0}^{C} w_k\,\pi_{\alpha k}.

With the prior :math:`\mathrm{Dir}(\alpha_0 + n^0_\alpha)` (``alpha0 = 1``: the paper's uniform
prior; :math:`n^0_{\alpha k}` the counts of the prior runs ``R0``) and the counts
:math:`n_{\alpha k}` of ``R``, the posterior of each question is
:math:`\mathrm{Dir}(\nu_\alpha)`,
:math:`\nu_{\alpha k} = \alpha_{0k} + n^0_{\alpha k} + n_{\alpha k}`,
:math:`T_\alpha = \sum_k \nu_{\alpha k} = \sum_k\alpha_{0k} + D_\alpha + N_\alpha`
(``= 1 + C + D + N`` in the paper). The questions are independent a posteriori, so

.. math::
    \mu = w_0 + \frac{1}{M}\sum_\alpha \sum_j \frac{\nu_{\alpha j}}{T_\alpha}(w_j - w_0),
    \qquad
    \sigma^2 = \frac{1}{M^2}\sum_\alpha \frac{1}{T_\alpha + 1}
      \Big\{\sum_j \frac{\nu_{\alpha j}}{T_\alpha}(w_j-w_0)^2
      - \Big(\sum_j \frac{\nu_{\alpha j}}{T_\alpha}(w_j-w_0)\Big)^2\Big\}

which is eq. 15 of Appendix A with a per-question :math:`T_\alpha` (missing trials) and a
general concentration ``alpha0``. The inner variance is evaluated in the centred form
:math:`\sum_j p_j (d_j - \bar d)^2` (no cancellation).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from bayes_eval.credible_interval import clip_interval, normal_interval
from bayes_eval.inputs import (
    Tally,
    check_alpha0,
    check_bounds,
    check_confidence,
    prior_counts,
    tally,
)

__all__ = ["DirichletPosterior", "bayes", "bayes_ci", "dirichlet_posterior"]

Interval = Literal["normal", "exact"]
#: A float for one model, an array of shape ``(L,)`` for a batch of L models.
Estimate = float | NDArray[np.float64]


@dataclass(frozen=True, slots=True)
class DirichletPosterior:
    """Per-question Dirichlet posteriors of one results array (or a batch of L of them).

    Attributes
    ----------
    nu : ndarray, shape ``(..., M, C + 1)``
        Posterior concentrations :math:`\\nu_{\\alpha k}`.
    w : ndarray, shape ``(C + 1,)``
        Rubric weights.
    tally : Tally
        The counts of ``R`` the posterior was built from.
    """

    nu: NDArray[np.float64]
    w: NDArray[np.float64]
    tally: Tally

    @property
    def total(self) -> NDArray[np.float64]:
        """:math:`T_\\alpha = \\sum_k \\nu_{\\alpha k}`, shape ``(..., M)``."""
        return self.nu.sum(axis=-1)

    def question_moments(self) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """Posterior mean and variance of :math:`w\\cdot\\pi_\\alpha` per question.

        Returns the means *relative to* ``w[0]`` (``sum_j p_j (w_j - w_0)``) and the variances.
        """
        d = self.w - self.w[0]
        total = self.total
        if d.size == 2:  # Beta posterior: mean d1 p1, variance d1^2 p1 (1 - p1) / (T + 1)
            p1 = self.nu[..., 1] / total
            return d[1] * p1, d[1] ** 2 * p1 * (self.nu[..., 0] / total) / (total + 1.0)
        # loop over the (few) categories: contiguous slices beat a (..., K) @ (K,) product
        nu = np.moveaxis(self.nu, -1, 0)
        mean = sum(nu[k] * d[k] for k in range(d.size) if d[k] != 0.0) / total
        var = sum(nu[k] * (d[k] - mean) ** 2 for k in range(d.size)) / (total * (total + 1.0))
        return mean, var

    def moments(self) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """Posterior mean ``mu`` and standard deviation ``sigma`` of pi-bar (eq. 15)."""
        mean, var = self.question_moments()
        m = mean.shape[-1]
        mu = self.w[0] + mean.mean(axis=-1)
        sigma = np.sqrt(var.sum(axis=-1)) / m
        return mu, sigma


def dirichlet_posterior(
    R: ArrayLike,
    w: ArrayLike | None = None,
    R0: ArrayLike | None = None,
    *,
    alpha0: ArrayLike = 1.0,
    mask: ArrayLike | None = None,
    R0_mask: ArrayLike | None = None,
) -> DirichletPosterior:
    """Validate the inputs and build the per-question posteriors ``Dir(nu_alpha)``.

    See :func:`bayes` for the parameters.
    """
    t, weights = tally(R, w, mask=mask)
    n0 = prior_counts(R0, t, mask=R0_mask)
    a0 = check_alpha0(alpha0, t.n_categories)
    nu = t.counts + n0 + a0
    return DirichletPosterior(nu=nu.astype(np.float64), w=weights, tally=t)


def _out(x: ArrayLike) -> Estimate:
    """Python float for one model, ndarray of length L for a batch."""
    x = np.asarray(x, dtype=float)
    return float(x) if x.ndim == 0 else x


def bayes(
    R: ArrayLike,
    w: ArrayLike | None = None,
    R0: ArrayLike | None = None,
    *,
    alpha0: ArrayLike = 1.0,
    mask: ArrayLike | None = None,
    R0_mask: ArrayLike | None = None,
) -> tuple[Estimate, Estimate]:
    r"""Bayes@N posterior mean and standard deviation of the weighted score pi-bar.

    Implements Algorithm 1 / eq. 15 of seed 000 (Appendix A), extended to missing trials
    (per-question :math:`T_\alpha`) and a general Dirichlet concentration ``alpha0``.

    Parameters
    ----------
    R : array_like of int, shape ``(M, N)`` or ``(L, M, N)``
        Category labels ``0..C`` of N trials of M questions (for L models). Boolean arrays
        count as 0/1; a ``numpy.ma.MaskedArray`` marks missing trials.
    w : array_like of float, shape ``(C + 1,)``, optional
        Rubric weights :math:`(w_0, \dots, w_C)`. ``None``: binary results, ``w = (0, 1)``.
    R0 : array_like of int, shape ``(M, D)`` or ``(L, M, D)``, optional
        Prior runs on the same questions (eq. 6); their counts are added to the prior.
    alpha0 : float or array_like of shape ``(C + 1,)``, keyword-only
        Dirichlet prior concentration; 1 is the paper's uniform prior.
    mask, R0_mask : array_like of bool, keyword-only
        ``True`` where a trial of ``R`` (``R0``) is missing.

    Returns
    -------
    mu, sigma : float, or ndarray of shape ``(L,)`` for batched input
        :math:`\mu = E[\bar\pi \mid R]` and :math:`\sigma = \mathrm{sd}[\bar\pi \mid R]`.

    Examples
    --------
    >>> import numpy as np
    >>> R = np.array([[0, 1, 2, 2, 1], [1, 1, 0, 2, 2]])
    >>> mu, sigma = bayes(R, [0.0, 0.5, 1.0])
    >>> round(mu, 6), round(sigma, 6)
    (0.5625, 0.091998)
    """
    post = dirichlet_posterior(R, w, R0, alpha0=alpha0, mask=mask, R0_mask=R0_mask)
    mu, sigma = post.moments()
    return _out(mu), _out(sigma)


def bayes_ci(
    R: ArrayLike,
    w: ArrayLike | None = None,
    R0: ArrayLike | None = None,
    *,
    confidence: float = 0.95,
    bounds: tuple[float, float] | None = None,
    interval: Interval = "normal",
    alpha0: ArrayLike = 1.0,
    mask: ArrayLike | None = None,
    R0_mask: ArrayLike | None = None,
) -> tuple[Estimate, Estimate, Estimate, Estimate]:
    r"""Bayes@N with a central credible interval.

    ``interval="normal"`` (default, as the paper and scorio): ``mu -/+ z sigma`` with
    ``z = Phi^{-1}(1/2 + confidence/2)`` (seed 000, §2.5). ``interval="exact"``: the
    equal-tailed interval of the exact posterior of pi-bar, the mean of M independent linear
    functionals of Dirichlet vectors, computed numerically by
    :func:`bayes_eval.exact_posterior.exact_posterior` (accurate to about 1e-3 posterior sd).
    Both are clipped into ``bounds`` when given (both endpoints, as scorio does).

    Parameters
    ----------
    R, w, R0, alpha0, mask, R0_mask
        As in :func:`bayes`.
    confidence : float, keyword-only
        Credibility level in ``(0, 1)``.
    bounds : (float, float), optional, keyword-only
        Clip both endpoints into ``[lo, hi]``; default no clipping.
    interval : {"normal", "exact"}, keyword-only

    Returns
    -------
    mu, sigma, lo, hi : float, or ndarrays of shape ``(L,)`` for batched input

    Notes
    -----
    Unlike scorio 0.2.3, ``confidence`` and ``bounds`` are keyword-only.
    """
    confidence = check_confidence(confidence)
    bounds = check_bounds(bounds)
    post = dirichlet_posterior(R, w, R0, alpha0=alpha0, mask=mask, R0_mask=R0_mask)
    mu, sigma = post.moments()
    if interval == "normal":
        lo, hi = normal_interval(mu, sigma, confidence, bounds)
    elif interval == "exact":
        from bayes_eval.exact_posterior import exact_interval

        lo, hi = clip_interval(*exact_interval(post.nu, post.w, confidence), bounds)
    else:
        raise ValueError(f"interval is {interval!r}; expected 'normal' or 'exact'.")
    return _out(mu), _out(sigma), _out(lo), _out(hi)
