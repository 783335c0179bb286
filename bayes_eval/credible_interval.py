r"""Normal-approximation credible intervals and clipping.

Hariri et al., "Don't Pass@k: A Bayesian Framework for Large Language Model Evaluation",
§2.5: for large M the posterior of pi-bar is approximately :math:`N(\mu, \sigma^2)`, so the
central ``confidence`` interval is :math:`\mu \mp z\sigma` with
:math:`z = \Phi^{-1}(1/2 + \mathrm{confidence}/2)`. This is the interval of the peer package
scorio, which clips both endpoints into optional ``bounds``
(``lo = min(max(lo, b_lo), b_hi)``, ``hi`` likewise) so an interval can never be inverted.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.special import ndtri

__all__ = ["CredibleInterval", "clip_interval", "normal_interval", "two_sided_z"]


class CredibleInterval(NamedTuple):
    """Endpoints of a credible interval; unpacks as ``lo, hi``.

    Returned by :func:`normal_interval`, :func:`clip_interval` and
    :func:`bayes_eval.exact_posterior.exact_interval`.

    Attributes
    ----------
    lo : float or ndarray
        Lower endpoint (one per model of a batch).
    hi : float or ndarray
        Upper endpoint.
    """

    lo: float | NDArray[np.float64]
    hi: float | NDArray[np.float64]


def two_sided_z(confidence: float) -> float:
    r"""``z`` of a central interval, :math:`\Phi^{-1}(1/2 + \mathrm{confidence}/2)`.

    Hariri et al., "Don't Pass@k: A Bayesian Framework for Large Language Model Evaluation",
    §2.5.

    Parameters
    ----------
    confidence : float
        Credibility level in (0, 1).

    Returns
    -------
    float
        1.959964 for 0.95.
    """
    return float(ndtri(0.5 + 0.5 * confidence))


def clip_interval(
    lo: ArrayLike, hi: ArrayLike, bounds: tuple[float, float] | None
) -> CredibleInterval:
    """Clip both endpoints into ``[b_lo, b_hi]`` (scorio's rule), so no interval is inverted.

    Parameters
    ----------
    lo, hi : float or array_like
        Endpoints.
    bounds : (float, float) or None
        ``(b_lo, b_hi)``; ``None`` leaves the endpoints unchanged.

    Returns
    -------
    CredibleInterval
        ``(lo, hi)`` with ``lo = min(max(lo, b_lo), b_hi)`` and ``hi`` likewise.
    """
    if bounds is None:
        return CredibleInterval(lo, hi)
    b_lo, b_hi = bounds
    return CredibleInterval(
        np.minimum(np.maximum(lo, b_lo), b_hi), np.minimum(np.maximum(hi, b_lo), b_hi)
    )


def normal_interval(
    mu: ArrayLike, sigma: ArrayLike, confidence: float, bounds: tuple[float, float] | None = None
) -> CredibleInterval:
    r"""Central normal-approximation credible interval.

    Hariri et al., "Don't Pass@k: A Bayesian Framework for Large Language Model Evaluation",
    §2.5:

    .. math:: [\mathrm{lo}, \mathrm{hi}] = \mu \mp z\,\sigma, \qquad
              z = \Phi^{-1}\!\left(\tfrac{1}{2} + \tfrac{\gamma}{2}\right)

    with :math:`\gamma` the ``confidence``, then clipped into ``bounds`` when given.

    Parameters
    ----------
    mu, sigma : float or array_like
        Posterior mean and standard deviation.
    confidence : float
        Credibility level in (0, 1).
    bounds : (float, float) or None, optional
        Clip both endpoints (:func:`clip_interval`).

    Returns
    -------
    CredibleInterval
        ``(lo, hi)``.
    """
    z = two_sided_z(confidence)
    mu = np.asarray(mu, dtype=float)
    sigma = np.asarray(sigma, dtype=float)
    return clip_interval(mu - z * sigma, mu + z * sigma, bounds)
