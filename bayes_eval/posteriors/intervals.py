r"""Credible intervals: the normal approximation, clipping, and quantiles of mixtures.

Hariri et al., "Don't Pass@k: A Bayesian Framework for Large Language Model Evaluation",
§2.5: for large M the posterior of pi-bar is approximately :math:`N(\mu, \sigma^2)`, so the
central ``confidence`` interval is :math:`\mu \mp z\sigma` with
:math:`z = \Phi^{-1}(1/2 + \mathrm{confidence}/2)`. This is the interval of the peer package
scorio, which clips both endpoints into optional ``bounds``
(``lo = min(max(lo, b_lo), b_hi)``, ``hi`` likewise) so an interval can never be inverted.
The exact intervals are in :mod:`bayes_eval.posteriors.exact`; under a learned prior the
posterior is a mixture over the hyperparameter nodes, whose moments and quantiles are
:func:`mixture_moments` and :func:`mixture_quantiles`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple, Protocol, cast

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.special import ndtri

__all__ = [
    "CredibleInterval",
    "Estimate",
    "as_estimate",
    "clip_interval",
    "mixture_moments",
    "mixture_quantiles",
    "mixture_support",
    "normal_interval",
    "two_sided_z",
]

#: A float for one model, an array of shape ``(L,)`` for a batch of L models.
Estimate = float | NDArray[np.float64]


def as_estimate(x: ArrayLike) -> Estimate:
    """A Python float for one model, an ndarray of shape ``(L,)`` for a batch.

    Parameters
    ----------
    x : float or array_like
        An estimate: a scalar (0-d) for one model, shape ``(L,)`` for L models.

    Returns
    -------
    float or numpy.ndarray
        ``float(x)`` when ``x`` is 0-d, else ``x`` as a float array.

    Examples
    --------
    >>> import numpy as np
    >>> type(as_estimate(np.float64(0.5))).__name__
    'float'
    >>> as_estimate([0.1, 0.2]).tolist()
    [0.1, 0.2]
    """
    x = np.asarray(x, dtype=float)
    return float(x) if x.ndim == 0 else x


class CredibleInterval(NamedTuple):
    """Endpoints of a credible interval; unpacks as ``lo, hi``.

    Returned by :func:`normal_interval`, :func:`clip_interval` and
    :func:`bayes_eval.posteriors.exact.exact_interval`.

    Attributes
    ----------
    lo : float or ndarray
        Lower endpoint (one per model of a batch).
    hi : float or ndarray
        Upper endpoint.

    Examples
    --------
    >>> lo, hi = normal_interval(0.5, 0.1, 0.95)
    >>> round(float(lo), 4), round(float(hi), 4)
    (0.304, 0.696)
    """

    lo: float | NDArray[np.float64]
    hi: float | NDArray[np.float64]


#: ``two_sided_z`` of each level asked for (scipy's own value, computed once).
_Z: dict[float, float] = {}


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

    Examples
    --------
    >>> round(two_sided_z(0.95), 6), round(two_sided_z(0.9), 6)
    (1.959964, 1.644854)
    """
    if type(confidence) is not float:  # numpy scalars, 0-d arrays: not cached
        return float(ndtri(0.5 + 0.5 * confidence))
    z = _Z.get(confidence)
    if z is None:
        z = float(ndtri(0.5 + 0.5 * confidence))
        if len(_Z) < 256:  # the same few levels recur on every call: 0.95, 0.9, ...
            _Z[confidence] = z
    return z


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

    Examples
    --------
    >>> import numpy as np
    >>> lo, hi = clip_interval(np.array([-0.1, 0.3]), np.array([0.5, 1.2]), (0.0, 1.0))
    >>> lo.tolist(), hi.tolist()
    ([0.0, 0.3], [0.5, 1.0])
    """
    if bounds is None:
        # the endpoints pass through as given (floats or float arrays)
        return CredibleInterval(cast(Estimate, lo), cast(Estimate, hi))
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

    Examples
    --------
    Near the top of ``[0, 1]`` the upper endpoint is clipped:

    >>> lo, hi = normal_interval(0.9, 0.1, 0.95, bounds=(0.0, 1.0))
    >>> round(float(lo), 4), round(float(hi), 4)
    (0.704, 1.0)
    """
    z = two_sided_z(confidence)
    mu = np.asarray(mu, dtype=float)
    half = z * np.asarray(sigma, dtype=float)
    return clip_interval(mu - half, mu + half, bounds)


def mixture_moments(
    mean: ArrayLike, sd: ArrayLike, weights: ArrayLike
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    r"""Mean and sd of a mixture over the first axis (law of total variance).

    :math:`\mu = \sum_j\omega_j\mu_j`,
    :math:`\sigma^2 = \sum_j\omega_j\big(\sigma_j^2 + (\mu_j - \mu)^2\big)`.

    Parameters
    ----------
    mean, sd : array_like, shape ``(J, ...)``
        Mean and standard deviation of each of the J components (e.g. the posterior at each
        node of a learned prior), for any trailing shape.
    weights : array_like, shape ``(J,)`` or broadcastable to ``mean``
        Mixture weights :math:`\omega_j`, summing to 1.

    Returns
    -------
    mu, sigma : numpy.ndarray
        Mean and sd of the mixture, with the trailing shape of ``mean``.

    Examples
    --------
    >>> mu, sigma = mixture_moments([0.4, 0.6], [0.1, 0.1], [0.5, 0.5])
    >>> round(float(mu), 4), round(float(sigma), 4)
    (0.5, 0.1414)
    """
    mean = np.asarray(mean, dtype=float)
    sd = np.asarray(sd, dtype=float)
    wts = np.asarray(weights, dtype=float)
    mu = (wts * mean).sum(axis=0)
    var = (wts * (sd**2 + (mean - mu) ** 2)).sum(axis=0)
    return mu, np.sqrt(var)


def mixture_support(weights: ArrayLike, mass: float = 1.0 - 1e-6) -> NDArray[np.int64]:
    """Indices of the heaviest nodes that together hold ``mass`` of the weight.

    Parameters
    ----------
    weights : array_like, shape ``(J,)``
        Nonnegative node weights (need not sum to 1).
    mass : float, optional
        Fraction of the total weight to keep, default ``1 - 1e-6``.

    Returns
    -------
    numpy.ndarray of int
        Node indices, heaviest first (ties in index order).

    Examples
    --------
    >>> mixture_support([0.2, 0.7, 0.1], mass=0.85).tolist()
    [1, 0]
    >>> mixture_support([0.2, 0.7, 0.1]).tolist()
    [1, 0, 2]
    """
    wts = np.asarray(weights, dtype=float)
    order = np.argsort(-wts, kind="stable")
    cum = np.cumsum(wts[order])
    return order[: int(np.searchsorted(cum, mass * cum[-1])) + 1]


class _Law(Protocol):
    """A component of :func:`mixture_quantiles`: a lattice law with a CDF."""

    @property
    def x(self) -> NDArray[np.float64]: ...

    @property
    def step(self) -> float: ...

    def cdf(self, value: ArrayLike) -> NDArray[np.float64]: ...


def mixture_quantiles(
    dists: Sequence[_Law], weights: ArrayLike, q: ArrayLike
) -> NDArray[np.float64]:
    """Quantiles of a mixture of distributions with ``cdf`` methods.

    The components also have attributes ``x``, ``step`` and ``support`` (the lattice laws of
    :mod:`bayes_eval.posteriors.exact`).

    The mixture CDF is evaluated on 1025 points spanning every component (within the union
    of their supports), each quantile is bracketed there and found on a 257-point grid
    inside its bracket by linear interpolation; the result lies in the support.

    Parameters
    ----------
    dists : sequence of ExactPosterior
        The components: objects with a ``cdf`` method and attributes ``x`` (lattice
        points), ``step`` and optionally ``support``, such as
        :class:`~bayes_eval.posteriors.exact.ExactPosterior`.
    weights : array_like, shape ``(len(dists),)``
        Mixture weights (normalised here).
    q : float or array_like
        Probabilities in ``[0, 1]``.

    Returns
    -------
    numpy.ndarray
        The quantiles, of shape ``(len(q),)`` (at least 1-d).

    Examples
    --------
    An even mixture of two mirrored posteriors is symmetric about 1/2:

    >>> import numpy as np
    >>> from bayes_eval.posteriors.exact import exact_posterior
    >>> a = exact_posterior(np.array([[2.0, 4.0], [3.0, 3.0]]), [0.0, 1.0])
    >>> b = exact_posterior(np.array([[4.0, 2.0], [3.0, 3.0]]), [0.0, 1.0])
    >>> mixture_quantiles([a, b], [0.5, 0.5], [0.025, 0.5, 0.975]).round(4).tolist()
    [0.2065, 0.5, 0.7935]
    """
    wts = np.asarray(weights, dtype=float)
    wts = wts / wts.sum()
    q = np.atleast_1d(np.asarray(q, dtype=float))
    s_lo = min(float(getattr(d, "support", (-np.inf, np.inf))[0]) for d in dists)
    s_hi = max(float(getattr(d, "support", (-np.inf, np.inf))[1]) for d in dists)
    lo = max(min(float(d.x[0] - d.step) for d in dists), s_lo)
    hi = min(max(float(d.x[-1] + d.step) for d in dists), s_hi)
    if hi <= lo:
        return np.full(q.shape, lo)

    def cdf(x: NDArray[np.float64]) -> NDArray[np.float64]:
        return np.clip(sum(wt * d.cdf(x) for wt, d in zip(wts, dists, strict=True)), 0.0, 1.0)

    grid = np.linspace(lo, hi, 1025)
    values = np.maximum.accumulate(cdf(grid))
    out = np.empty(q.shape)
    for i, qi in enumerate(q):
        j = int(np.clip(np.searchsorted(values, qi), 1, grid.size - 1))
        fine = np.linspace(grid[j - 1], grid[j], 257)
        cf = np.maximum.accumulate(cdf(fine))
        keep = np.concatenate([[True], np.diff(cf) > 0])
        out[i] = np.interp(qi, cf[keep], fine[keep]) if keep.sum() > 1 else fine[0]
    return np.clip(out, lo, hi)
