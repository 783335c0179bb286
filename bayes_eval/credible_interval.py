"""Normal-approximation credible intervals and clipping (seed 000, §2.5).

For large M the posterior of pi-bar is approximately ``N(mu, sigma^2)`` (seed 000, §2.5), so
the central ``confidence`` interval is ``mu -/+ z sigma`` with
``z = Phi^{-1}(1/2 + confidence/2)``. This is the interval of the peer package scorio, which
clips both endpoints into optional ``bounds`` (``lo = min(max(lo, b_lo), b_hi)``, ``hi``
likewise) so an interval can never be inverted.
"""

from __future__ import annotations

import numpy as np
from scipy.special import ndtri

__all__ = ["clip_interval", "normal_interval", "two_sided_z"]


def two_sided_z(confidence: float) -> float:
    """``z`` of a central interval: ``Phi^{-1}(1/2 + confidence/2)`` (1.959964 for 0.95)."""
    return float(ndtri(0.5 + 0.5 * confidence))


def clip_interval(lo, hi, bounds: tuple[float, float] | None):
    """Clip both endpoints into ``[b_lo, b_hi]``; ``bounds=None`` leaves them unchanged."""
    if bounds is None:
        return lo, hi
    b_lo, b_hi = bounds
    return np.minimum(np.maximum(lo, b_lo), b_hi), np.minimum(np.maximum(hi, b_lo), b_hi)


def normal_interval(mu, sigma, confidence: float, bounds: tuple[float, float] | None = None):
    r"""Central normal-approximation credible interval.

    .. math:: [\mathrm{lo}, \mathrm{hi}] = \mu \mp z\,\sigma, \qquad
              z = \Phi^{-1}\!\left(\tfrac{1}{2} + \tfrac{\gamma}{2}\right)

    with :math:`\gamma` the ``confidence``, then clipped into ``bounds`` when given.
    """
    z = two_sided_z(confidence)
    mu = np.asarray(mu, dtype=float)
    sigma = np.asarray(sigma, dtype=float)
    return clip_interval(mu - z * sigma, mu + z * sigma, bounds)
