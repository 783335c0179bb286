r"""The posterior of a latent Pass family metric: credits, moments, normal and exact intervals.

Hariri et al., "Don't Pass@k: A Bayesian Framework for Large Language Model Evaluation",
Appendix H. Each question's success probability has the posterior
:math:`\mathrm{Beta}(a_1 + c_\alpha, a_0 + N_\alpha - c_\alpha)` (per node of a learned prior,
:mod:`bayes_eval.posteriors.priors`); the posterior of
:math:`\bar g = \frac1M\sum_\alpha g(p_\alpha)` has :math:`\mu = \frac1M\sum_\alpha E[g_\alpha]` and
:math:`\sigma = \frac1M\sqrt{\sum_\alpha \mathrm{Var}[g_\alpha]}` (mixed over nodes by the
law of total variance), the normal interval :math:`\mu \mp z\sigma` (scorio 0.2.3's) or the
exact one below (:func:`pass_law`, asked by :meth:`Posterior.pass_metric
<bayes_eval.posteriors.posterior.Posterior.pass_metric>`; the scorio-named functions are in
:mod:`bayes_eval.metrics.passk`).

**The latent metric.** For a question with success probability :math:`p` the k-attempt metric is

.. math:: g(p) = \sum_j A_j \binom{k}{j}p^j(1-p)^{k-j}
          = \sum_{j \ge 1} (A_j - A_{j-1})\, I_p(j, k - j + 1),

nondecreasing in p for all four members (``_Metric``, with the inverses that
``interval="exact"`` needs). Under :math:`p \sim \mathrm{Beta}(a, b)`:
:math:`E[g] = \sum_j A_j\,\mathrm{BB}(j; k, a, b)` and
:math:`\mathrm{Var}[g] = \sum_t h_t\,\mathrm{BB}(t; 2k, a, b)` with :math:`h` the degree-2k
Bernstein coefficients of :math:`(g - E g)^2` (``_bernstein_moments``); for Pass@k and
Pass^k the closed forms :math:`E[(1-p)^k] = \prod_{i<k}\frac{b+i}{a+b+i}` and
:math:`E[(1-p)^{2k}]/E[(1-p)^k]^2 = \prod_{i<k}\big(1 + \frac{ak}{(a+b+k+i)(b+i)}\big)`
(``_log_power_moment``). See :mod:`bayes_eval.metrics.passk` for the whole method.

Exact credible intervals of a Pass family metric (``interval="exact"``).

Equal-tailed quantiles of the posterior of :math:`\bar g = \frac1M\sum_\alpha g(p_\alpha)`,
:math:`p_\alpha \sim \mathrm{Beta}(a_\alpha, b_\alpha)` (a mixture over the nodes of a learned
prior), for the Pass family of Hariri et al., "Don't Pass@k: A Bayesian Framework for Large
Language Model Evaluation", Appendix H. The method (module docstring of
:mod:`bayes_eval.metrics.passk`, *Intervals*):

* one question: :math:`g` of the Beta (mixture) quantiles (``_beta_mixture_quantile``);
* a coarse lattice of 200 cells per posterior sd from exact cell probabilities
  :math:`P(g(p) \le y) = I_{g^{-1}(y)}(a, b)` (``_side_cdf``, ``_cell_cdf``),
  identical questions convolved by FFT in a circular window sized by a Chernoff bound
  (``_chernoff_window``, ``_coarse_bin``) and moment matched;
* near either bound, nested finer lattices of the truncated laws (``_ladder``), joined
  to the coarse one (``_combine``, ``_join``), so that tails piled up against a
  bound keep their mass;
* the (mixture) CDF inverted by bisection in :math:`\log s` (``_solve_tail``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple, cast

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import fft as sfft
from scipy.special import betainc, betaincinv, betaln, gammaln

from bayes_eval.inputs import BINARY_HINT, Tally, check_k, distinct_states, tally
from bayes_eval.posteriors.intervals import (
    Estimate,
    as_estimate,
    clip_interval,
    mixture_moments,
    mixture_support,
    normal_interval,
)
from bayes_eval.posteriors.priors import FittedPrior

__all__ = [
    "PassPosterior",
    "binary_tally",
    "mg_credit",
    "pass_law",
    "tau_threshold",
    "threshold_credit",
]


_CHUNK = 2**21  # elements per chunk of (states x terms) work arrays
#: a lattice law of the mean: its points, their masses and the step between them
_Law = tuple[NDArray, NDArray, float]
#: a piecewise-linear CDF: its knots and its values there
_Cdf = tuple[NDArray, NDArray]
#: a nested fine lattice near a bound: its CDF's knots and values, and where it stops being valid
_Level = tuple[NDArray, NDArray, float]


# --------------------------------------------------------------------------- credits


def tau_threshold(tau: float, k: int) -> int:
    r"""Smallest success count ``j0 = max(1, ceil(tau k))`` of G-Pass@k_tau.

    Hariri et al., "Don't Pass@k: A Bayesian Framework for Large Language Model Evaluation",
    App. H eq. 23. The ceiling is taken on the *intended* rational: when ``tau`` is the float
    nearest to ``j/k`` (``0.28 * 25 = 7.000000000000001`` in floating point) the threshold is
    ``j``, not ``j + 1``. scorio 0.2.3 uses the same rule; earlier scorio used
    ``math.ceil(tau * k)``.

    Parameters
    ----------
    tau : float
        Threshold in (0, 1].
    k : int
        Attempts, ``k >= 1``.

    Returns
    -------
    int
        ``j0`` in ``1..k``.

    Examples
    --------
    >>> tau_threshold(0.5, 3), tau_threshold(1.0, 4)
    (2, 4)
    >>> tau_threshold(0.28, 25)  # 0.28 * 25 is 7.000000000000001 in floating point
    7
    """
    j = math.ceil(tau * k)
    if j > 1 and (j - 1) / k >= tau:
        j -= 1
    elif j / k < tau:
        j += 1
    return max(1, min(j, k))


def threshold_credit(k: int, j0: int) -> NDArray[np.float64]:
    """Credit ``A_j = 1[j >= j0]``, ``j = 0..k`` (Pass@k: j0 = 1, Pass^k: j0 = k; eqs. 21-23).

    Parameters
    ----------
    k : int
        Attempts, ``k >= 1``.
    j0 : int
        Smallest number of successes that earns the credit, in ``0..k``
        (:func:`tau_threshold` for G-Pass@k_tau).

    Returns
    -------
    numpy.ndarray of shape (k + 1,)
        ``A_j`` for ``j = 0..k``: 0 below ``j0``, 1 from it on.

    Examples
    --------
    >>> threshold_credit(4, 1).tolist()  # Pass@4
    [0.0, 1.0, 1.0, 1.0, 1.0]
    >>> threshold_credit(4, 4).tolist()  # Pass^4
    [0.0, 0.0, 0.0, 0.0, 1.0]
    """
    credit = np.zeros(k + 1)
    credit[j0:] = 1.0
    return credit


def mg_credit(k: int) -> NDArray[np.float64]:
    """Credit ``A_j = (2/k) max(j - m, 0)``, ``m = ceil(k/2)``, of mG-Pass@k (eq. 24).

    Parameters
    ----------
    k : int
        Attempts, ``k >= 1``.

    Returns
    -------
    numpy.ndarray of shape (k + 1,)
        ``A_j`` for ``j = 0..k``, nondecreasing, from 0 to ``2 (k - m) / k``.

    Examples
    --------
    >>> mg_credit(4).tolist()
    [0.0, 0.0, 0.0, 0.5, 1.0]
    """
    m = (k + 1) // 2
    return (2.0 / k) * np.maximum(np.arange(k + 1) - m, 0.0)


# --------------------------------------------------------------------------- data


def binary_tally(R: ArrayLike, mask: ArrayLike | None = None) -> Tally:
    """Tally of binary results (labels 0/1 only), as the Pass family needs.

    Parameters
    ----------
    R : array_like of {0, 1}, shape ``(M, N)`` or ``(L, M, N)``
        Binary results; a ``numpy.ma.MaskedArray`` marks missing trials.
    mask : array_like of bool, optional
        ``True`` where a trial is missing.

    Returns
    -------
    Tally
        The (fail, success) ``counts`` of shape ``(..., M, 2)`` and the ``n_trials`` of
        each question (:class:`bayes_eval.inputs.Tally`).

    Raises
    ------
    ValueError
        A label other than 0 or 1.

    Examples
    --------
    >>> import numpy as np
    >>> t = binary_tally(np.array([[1, 1, 1, 0], [0, 1, 0, 0]]))
    >>> t.counts.tolist(), t.n_trials.tolist()
    ([[1, 3], [3, 1]], [4, 4])
    """
    t, _ = tally(R, mask=mask, n_categories=2, label_hint=BINARY_HINT)
    return t


# --------------------------------------------------------------------------- point estimates


class PassPosterior(NamedTuple):
    """Posterior of a Pass family metric; unpacks as ``mu, sigma, lo, hi`` (scorio's order).

    Attributes
    ----------
    posterior_mean : float or ndarray
        Posterior mean of the latent metric under the stated prior. Not the unbiased
        estimate of :func:`~bayes_eval.metrics.passk.pass_at_k` and friends, from which it can
        differ by several posterior sd (see :mod:`bayes_eval.metrics.passk`).
    sigma : float or ndarray
        Posterior standard deviation.
    lo, hi : float or ndarray
        Credible interval.

    Examples
    --------
    >>> import numpy as np
    >>> from bayes_eval.metrics.passk import pass_at_k_ci
    >>> res = pass_at_k_ci(np.array([[1, 1, 1, 0], [0, 1, 0, 0]]), 2, prior="uniform")
    >>> type(res).__name__, res._fields
    ('PassPosterior', ('posterior_mean', 'sigma', 'lo', 'hi'))
    >>> mu, sigma, lo, hi = res
    >>> round(mu, 4), round(lo, 4), round(hi, 4)
    (0.6905, 0.4307, 0.9503)
    """

    posterior_mean: Estimate
    sigma: Estimate
    lo: Estimate
    hi: Estimate


def pass_law(
    data: NDArray[np.float64],
    n_trials: NDArray[np.int64],
    fitted: FittedPrior,
    kind: str,
    k: int,
    tau: float | None,
    *,
    confidence: float,
    bounds: tuple[float, float] | None,
    interval: str,
) -> PassPosterior:
    """Posterior of a latent Pass family metric from binary counts and a resolved prior.

    Parameters
    ----------
    data : ndarray, shape ``(..., M, 2)``
        (fail, success) counts per question, those of earlier runs included.
    n_trials : ndarray of int, shape ``(..., M)``
        Trials of the results themselves (``k`` may not exceed them).
    fitted : FittedPrior
        Nodes ``(J, G, 2)`` of the prior on (fail, success) and their weights.
    kind : {"pass", "hat", "threshold", "mg"}
        The metric: Pass@k, Pass^k, G-Pass@k_tau (``tau`` required) or mG-Pass@k.
    k, tau
        Attempts and G-Pass threshold (``tau`` None but for ``"threshold"``).
    confidence, bounds, interval
        Checked by the caller (``interval`` ``"normal"`` or ``"exact"``).

    Returns
    -------
    PassPosterior
        ``(posterior_mean, sigma, lo, hi)``: floats, or arrays of the leading shape of
        ``data``.

    Examples
    --------
    Pass@2 of two questions under the uniform prior, as
    :func:`bayes_eval.metrics.passk.pass_at_k_ci` computes it:

    >>> import numpy as np
    >>> from bayes_eval.posteriors.priors import Prior
    >>> t = binary_tally(np.array([[1, 1, 1, 0], [0, 1, 0, 0]]))
    >>> fitted = Prior.parse("uniform").fit(t.counts)
    >>> res = pass_law(
    ...     t.counts.astype(float), t.n_trials, fitted, "pass", 2, None,
    ...     confidence=0.95, bounds=(0.0, 1.0), interval="normal",
    ... )
    >>> [round(x, 4) for x in res]
    [0.6905, 0.1326, 0.4307, 0.9503]
    """
    k = check_k(k, n_trials)
    metric = _metric(kind, k, tau)
    shape, m = data.shape[:-2], data.shape[-2]
    if np.array_equal(data, np.round(data)):  # integer counts: states by an integer key
        un, uc, inv = distinct_states(
            data.sum(axis=-1).astype(np.int64), data[..., 1].astype(np.int64)
        )
        succ, fail = uc.astype(float), (un - uc).astype(float)
    else:  # discounted earlier runs or graded counts
        states, inv = np.unique(data.reshape(-1, 2), axis=0, return_inverse=True)
        fail, succ, inv = states[:, 0], states[:, 1], inv.reshape(data.shape[:-1])
    nodes = fitted.nodes  # (J, G, 2): Dirichlet parameters of (fail, success)
    a = nodes[..., 1:2] + succ  # (J, G, S): Beta(a, b) per node, group, state
    b = nodes[..., 0:1] + fail
    mean, var = _moments(metric, a.ravel(), b.ravel())
    mean, var = mean.reshape(a.shape), var.reshape(a.shape)
    inv2 = inv.reshape(-1, m)
    n_models = inv2.shape[0]
    g_of = np.arange(n_models) if nodes.shape[1] == n_models else np.zeros(n_models, int)
    counts = np.zeros((n_models, succ.size))
    np.add.at(counts, (np.repeat(np.arange(n_models), m), inv2.ravel()), 1.0)
    wts = fitted.weights[:, g_of]  # (J, L)
    if nodes.shape[0] == 1 and nodes.shape[1] == 1:  # a fixed prior: scorio's arithmetic
        mu = mean[0, 0][inv].mean(axis=-1)
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
        return PassPosterior(as_estimate(mu), as_estimate(sigma), as_estimate(lo), as_estimate(hi))
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
    return PassPosterior(as_estimate(mu), as_estimate(sigma), as_estimate(lo), as_estimate(hi))


# --------------------------------------------------------------------------- the latent metric


@dataclass(frozen=True)
class _Metric:
    r"""The latent metric :math:`g(p) = \sum_i c_i I_p(j_i, k - j_i + 1)`.

    ``jumps`` are the success counts where the credit increases and ``steps`` the increases
    (all positive: every metric of the family has a nondecreasing credit, so g is
    nondecreasing). ``g(0) = 0`` and ``g(1) = gmax`` (``(k - 1)/k`` for mG-Pass with odd k).
    """

    kind: str  # "pass", "hat" (closed-form moments), "threshold", "mg"
    k: int
    credit: NDArray[np.float64]

    @property
    def jumps(self) -> NDArray[np.int64]:
        return np.flatnonzero(np.diff(self.credit) > 0) + 1

    @property
    def steps(self) -> NDArray[np.float64]:
        return np.diff(self.credit)[self.jumps - 1]

    @property
    def gmax(self) -> float:
        return float(self.credit[-1] - self.credit[0])

    def _single(self) -> tuple[int, float] | None:
        j = self.jumps
        return (int(j[0]), float(self.steps[0])) if j.size == 1 else None

    def lower(self, x: NDArray) -> NDArray:
        """``g(x)``, accurate in relative terms for small x."""
        with np.errstate(divide="ignore"):
            return self._lower(np.asarray(x, dtype=float))

    def _lower(self, x: NDArray) -> NDArray:
        k = self.k
        one = self._single()
        if one is not None:
            j, c = one
            if j == 1:
                return c * -np.expm1(k * np.log1p(-x))
            if j == k:
                return c * x**k
            return c * betainc(j, k - j + 1, x)
        return sum(
            c * betainc(j, k - j + 1, x) for j, c in zip(self.jumps, self.steps, strict=True)
        )

    def upper(self, xb: NDArray) -> NDArray:
        """``gmax - g(1 - xb)``, accurate in relative terms for small xb."""
        with np.errstate(divide="ignore"):
            return self._upper(np.asarray(xb, dtype=float))

    def _upper(self, xb: NDArray) -> NDArray:
        k = self.k
        one = self._single()
        if one is not None:
            j, c = one
            if j == k:
                return c * -np.expm1(k * np.log1p(-xb))
            if j == 1:
                return c * xb**k
            return c * betainc(k - j + 1, j, xb)
        return sum(
            c * betainc(k - j + 1, j, xb) for j, c in zip(self.jumps, self.steps, strict=True)
        )

    def lower_inv(self, u: NDArray) -> NDArray:
        """``x`` with ``g(x) = u`` for ``0 <= u <= gmax``."""
        return self._inverse(np.asarray(u, dtype=float), upper=False)

    def upper_inv(self, v: NDArray) -> NDArray:
        """``xb`` with ``gmax - g(1 - xb) = v`` for ``0 <= v <= gmax``."""
        return self._inverse(np.asarray(v, dtype=float), upper=True)

    def _inverse(self, u: NDArray, upper: bool) -> NDArray:
        k = self.k
        u = np.clip(u, 0.0, self.gmax)
        one = self._single()
        if one is not None:
            j, c = one
            r = np.clip(u / c, 0.0, 1.0)
            if (j == 1 and not upper) or (j == k and upper):
                with np.errstate(divide="ignore"):
                    return -np.expm1(np.log1p(-r) / k)
            if (j == k and not upper) or (j == 1 and upper):
                return r ** (1.0 / k)
        # G-Pass and mG-Pass (scipy's betaincinv returns nan below ~1e-200: not used)
        return self._newton_inverse(u, upper)

    def _newton_inverse(self, u: NDArray, upper: bool) -> NDArray:
        """Solve ``sum_i c_i I_x(al_i, be_i) = u`` for ``x``.

        By interpolation on a log grid and Newton's method in ``log x`` (smooth and increasing
        in ``log x``; used for ``u <= gmax / 2``, where it converges to ~1e-14 relative).
        """
        k = self.k
        j = self.jumps.astype(float)
        al, be = (k - j + 1, j) if upper else (j, k - j + 1)
        c = self.steps
        log_b = betaln(al, be)

        def f(x: NDArray) -> NDArray:
            return sum(ci * betainc(a, b, x) for ci, a, b in zip(c, al, be, strict=True))

        def xdf(x: NDArray) -> NDArray:  # x f'(x)
            lx, l1x = np.log(x), np.log1p(-x)
            return sum(
                ci * np.exp(a * lx + (b - 1) * l1x - lb)
                for ci, a, b, lb in zip(c, al, be, log_b, strict=True)
            )

        out = np.zeros(u.shape)
        out[u >= self.gmax] = 1.0
        inner = (u > 0) & (u < self.gmax)
        if not inner.any():
            return out
        target = np.log(u[inner])
        z = np.linspace(-700.0, 0.0, 1401)[:-1]
        fz = f(np.exp(z))
        ok = fz > 0
        lz = np.interp(target, np.log(fz[ok]), z[ok])
        # below the grid: the leading power x^al_min
        low = target < np.log(fz[ok][0])
        lz[low] = z[ok][0] + (target[low] - np.log(fz[ok][0])) / al.min()
        for _ in range(6):
            x = np.exp(lz)
            fx = f(x)
            slope = xdf(x) / np.maximum(fx, 1e-300)
            step = (np.log(np.maximum(fx, 1e-300)) - target) / np.maximum(slope, 1e-300)
            lz = np.minimum(lz - np.clip(step, -50.0, 50.0), -1e-17)
        out[inner] = np.exp(lz)
        return out


def _metric(kind: str, k: int, tau: float | None) -> _Metric:
    if kind == "threshold":
        assert tau is not None  # a threshold metric has its tau
        j0 = tau_threshold(tau, k)
        kind = "pass" if j0 == 1 else ("hat" if j0 == k else kind)
    else:
        j0 = {"pass": 1, "hat": k}.get(kind, 0)
    credit = mg_credit(k) if kind == "mg" else threshold_credit(k, j0)
    return _Metric(kind, k, credit)


# --------------------------------------------------------------------------- moments


def _log_power_moment(a: NDArray, b: NDArray, k: int) -> tuple[NDArray, NDArray]:
    """``log E[(1-p)^k]`` and ``log(E[(1-p)^{2k}] / E[(1-p)^k]^2)`` for ``p ~ Beta(a, b)``."""
    i = np.arange(k, dtype=float)
    log_m1 = np.zeros(a.size)
    log_ratio = np.zeros(a.size)
    step = max(1, _CHUNK // k)
    for s in range(0, a.size, step):
        aa = a[s : s + step, None]
        bb = b[s : s + step, None]
        log_m1[s : s + step] = np.log1p(-aa / (aa + bb + i)).sum(axis=1)
        log_ratio[s : s + step] = np.log1p(aa * k / ((aa + bb + k + i) * (bb + i))).sum(axis=1)
    return log_m1, log_ratio


def _log_betabinom(t: NDArray, n: int, a: NDArray, b: NDArray) -> NDArray:
    """``log BB(t; n, a, b)`` for states ``a, b`` (column vectors) and counts ``t`` (row)."""
    return (
        gammaln(n + 1.0)
        - gammaln(t + 1.0)
        - gammaln(n - t + 1.0)
        + gammaln(t + a)
        + gammaln(n - t + b)
        - gammaln(n + a + b)
        - (gammaln(a) + gammaln(b) - gammaln(a + b))
    )


def _bernstein_moments(credit: NDArray, a: NDArray, b: NDArray) -> tuple[NDArray, NDArray]:
    """Posterior mean and centred variance of ``g(p) = sum_j credit_j B_{j,k}(p)``."""
    k = credit.size - 1
    j = np.arange(k + 1, dtype=float)
    t2 = np.arange(2 * k + 1, dtype=float)
    # weights of the degree-2k product: C(k, j) C(k, t - j) / C(2k, t), zero outside 0..k
    jj = j[None, :]
    tt = t2[:, None]
    valid = (tt - jj >= 0) & (tt - jj <= k)
    log_w = (
        gammaln(k + 1.0) * 2
        - gammaln(jj + 1.0)
        - gammaln(k - jj + 1.0)
        - gammaln(np.where(valid, tt - jj, 0) + 1.0)
        - gammaln(np.where(valid, k - tt + jj, 0) + 1.0)
        - (gammaln(2 * k + 1.0) - gammaln(tt + 1.0) - gammaln(2 * k - tt + 1.0))
    )
    weight = np.where(valid, np.exp(log_w), 0.0)  # (2k+1, k+1)
    partner = np.where(valid, tt - jj, 0).astype(int)
    mean = np.empty(a.size)
    var = np.empty(a.size)
    step = max(1, _CHUNK // ((2 * k + 1) * (k + 1)))
    for s in range(0, a.size, step):
        aa = a[s : s + step, None]
        bb = b[s : s + step, None]
        bb1 = np.exp(_log_betabinom(j[None, :], k, aa, bb))
        m = (bb1 @ credit) / bb1.sum(axis=1)
        x = credit[None, :] - m[:, None]  # centred credit, (S, k+1)
        h = np.einsum("tj,stj->st", weight, x[:, None, :] * x[:, partner])  # (S, 2k+1)
        bb2 = np.exp(_log_betabinom(t2[None, :], 2 * k, aa, bb))
        mean[s : s + step] = m
        var[s : s + step] = np.maximum((h * bb2).sum(axis=1) / bb2.sum(axis=1), 0.0)
    return mean, var


def _moments(metric: _Metric, a: NDArray, b: NDArray) -> tuple[NDArray, NDArray]:
    """Posterior mean and variance of ``g(p)``, ``p ~ Beta(a, b)`` (flat arrays)."""
    k = metric.k
    if metric.kind in ("pass", "hat"):
        # pass: g = 1 - (1-p)^k ; hat: g = p^k = the same form with a and b swapped
        x, y = (a, b) if metric.kind == "pass" else (b, a)
        log_m1, log_ratio = _log_power_moment(x, y, k)
        mean = -np.expm1(log_m1) if metric.kind == "pass" else np.exp(log_m1)
        var = np.exp(2.0 * log_m1) * np.expm1(log_ratio)
        return mean, var
    return _bernstein_moments(metric.credit, a, b)


_CELLS_PER_SD = 200.0  # coarse lattice: cells per posterior sd of the mean
_MAX_STATE_CELLS = 2**16  # at most this many cells per question window
_EXACT_EDGES = 4096  # longer windows: exact CDF on ~2048 knots, PCHIP in between
_TAIL_EPS = 1e-13  # per-question window: quantiles eps and 1 - eps
_WINDOW_LOG = 30.0  # circular window: mass outside it below exp(-30) (Chernoff bound)
_MAX_CELLS = 2**23  # nodes x FFT length per chunk
_LADDER_CELLS = 8192  # cells per nested fine lattice near a bound
_LADDER_RATIO = 8.0  # each nested lattice covers 1/8 of the previous one
_LADDER_START = 2048.0  # nested lattices replace the coarse one within this many cells
_MAX_LEVELS = 40  # nested lattices per bound at most


def _side_cdf(metric: _Metric, a: NDArray, b: NDArray, y: NDArray, upper: bool) -> NDArray:
    """``P(g(p) <= y)`` (``upper=False``) or ``P(gmax - g(p) <= y)`` (``upper=True``).

    For ``p ~ Beta(a, b)``; ``a, b`` of shape ``(J,)``, ``y`` of shape ``(E,)``; result
    ``(J, E)``.

    Each half of the range uses the form that is accurate in relative terms near its end.
    """
    gmax = metric.gmax
    y = np.asarray(y, dtype=float)
    out = np.empty((a.size, y.size))
    aa, bb = (b, a) if upper else (a, b)
    near = y <= 0.5 * gmax
    if near.any():
        inv = metric.upper_inv if upper else metric.lower_inv
        x = inv(np.maximum(y[near], 0.0))
        out[:, near] = betainc(aa[:, None], bb[:, None], x[None, :])
        out[:, near & (y <= 0.0)] = 0.0
    far = ~near
    if far.any():
        inv = metric.lower_inv if upper else metric.upper_inv
        x = inv(np.maximum(gmax - y[far], 0.0))
        out[:, far] = 1.0 - betainc(bb[:, None], aa[:, None], x[None, :])
        out[:, far & (y >= gmax)] = 1.0
    return out


def _coarse(
    metric: _Metric, a: NDArray, b: NDArray, mult: NDArray, mu: NDArray, sd: NDArray
) -> tuple[list[_Law], float]:
    """Lattice laws of the mean for every node: a list of ``(x, pmf, step)``, and the finest step.

    Nodes are binned by posterior sd (within a factor 1.5) and each bin shares a lattice, so
    the inverse of g and the per-state windows are computed once per bin.
    """
    order = np.argsort(sd, kind="stable")
    out: list[_Law | None] = [None] * sd.size
    steps = []
    first = 0
    while first < order.size:
        last = first
        while last + 1 < order.size and sd[order[last + 1]] <= 1.5 * sd[order[first]]:
            last += 1
        sel = order[first : last + 1]
        laws, h = _coarse_bin(metric, a[sel], b[sel], mult, mu[sel], sd[sel])
        for node, law in zip(sel, laws, strict=True):
            out[node] = law
        steps.append(h)
        first = last + 1
    return cast("list[_Law]", out), min(steps)  # every node is in one bin


def _cell_cdf(metric: _Metric, a: NDArray, b: NDArray, edges_g: NDArray) -> NDArray:
    """``P(g(p) <= e)`` at cell edges (units of g) for nodes ``a, b`` of shape ``(J,)``.

    Long windows are evaluated exactly on their first and last 64 edges and on every
    ``ceil(E / 2048)``-th edge in between, and by monotone cubic (PCHIP) interpolation
    elsewhere: the CDF is smooth on that scale (a few hundredths of a question's sd).
    """
    n_edges = edges_g.size
    if n_edges <= _EXACT_EDGES:
        return _side_cdf(metric, a, b, edges_g, upper=False)
    from scipy.interpolate import PchipInterpolator

    step = -(-n_edges // (_EXACT_EDGES // 2))
    knots = np.unique(
        np.concatenate(
            [np.arange(64), np.arange(64, n_edges - 64, step), np.arange(n_edges - 64, n_edges)]
        )
    )
    at_knots = _side_cdf(metric, a, b, edges_g[knots], upper=False)
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        out = PchipInterpolator(edges_g[knots], at_knots, axis=1)(edges_g)
    out[:, knots] = at_knots
    return np.clip(out, 0.0, 1.0)


def _chernoff_window(
    pmfs: list[NDArray], starts: NDArray, mult: NDArray, h: float
) -> tuple[NDArray, NDArray]:
    """Lattice mean of the sum and the half-widths outside which it has mass below ``e^-30``.

    The half-widths are below and above, in units of the mean. Chernoff's bound
    ``min_theta K(theta) - theta t`` with the cumulant generating function K of the lattice
    laws, each coarsened to at most 256 blocks with the mass at the block end that keeps the
    bound conservative.
    """
    n_nodes = pmfs[0].shape[0]
    mean = np.zeros(n_nodes)
    var = np.zeros(n_nodes)
    blocks = []
    for p, j0, k in zip(pmfs, starts, mult, strict=True):
        x = (j0 + np.arange(p.shape[1])) * h
        m = p @ x / p.sum(axis=1)
        mean += k * m
        var += k * (p @ x**2 / p.sum(axis=1) - m**2)
        size = -(-p.shape[1] // 256)
        pad = np.pad(p, ((0, 0), (0, size * -(-p.shape[1] // size) - p.shape[1])))
        mass = pad.reshape(n_nodes, -1, size).sum(axis=2)
        first = (j0 + np.arange(mass.shape[1]) * size) * h
        blocks.append((mass, first - m[:, None], first + (size - 1) * h - m[:, None], k))
    sd = np.sqrt(np.maximum(var, 0.0)) + h
    theta = np.geomspace(0.05, 5000.0, 32)[None, :, None] / sd[:, None, None]
    out = np.empty((2, n_nodes))
    for side, sign in enumerate((-1.0, 1.0)):
        cgf = np.zeros((n_nodes, theta.shape[1]))
        for mass, lo, hi, k in blocks:
            z = (lo if sign < 0 else hi)[:, None, :]
            with np.errstate(divide="ignore"):
                e = np.log(mass)[:, None, :] + sign * theta * z
            top = e.max(axis=2, keepdims=True)
            cgf += k * (top[..., 0] + np.log(np.exp(e - top).sum(axis=2)))
        out[side] = np.maximum(((cgf + _WINDOW_LOG) / theta[..., 0]).min(axis=1), 0.0)
    return mean, out


def _coarse_bin(
    metric: _Metric, a: NDArray, b: NDArray, mult: NDArray, mu: NDArray, sd: NDArray
) -> tuple[list[_Law], float]:
    """One lattice (step ``sd.min() / 400``) for nodes of similar sd.

    Exact cell probabilities, grouped FFT convolution, moment matching.
    """
    m = int(mult.sum())
    gmax = metric.gmax
    n_nodes, n_states = a.shape
    h = float(sd.min()) / _CELLS_PER_SD
    # per-state window (units of the mean): quantiles eps and 1 - eps over the bin's nodes
    x_lo = np.nan_to_num(betaincinv(a, b, _TAIL_EPS), nan=0.0)  # nan: start at the bound
    xb_hi = np.nan_to_num(betaincinv(b, a, _TAIL_EPS), nan=0.0)
    y_lo = metric.lower(x_lo).min(axis=0) / m
    y_hi = (gmax - metric.upper(xb_hi)).max(axis=0) / m
    y_hi = np.maximum(y_hi, y_lo)
    h = max(h, float((y_hi - y_lo).max()) / _MAX_STATE_CELLS)
    j0 = np.floor(y_lo / h + 0.5).astype(np.int64)
    j1 = np.floor(y_hi / h + 0.5).astype(np.int64)
    pmfs = []
    for s in range(n_states):
        edges_g = (np.arange(j0[s], j1[s] + 2) - 0.5) * h * m
        cdf = _cell_cdf(metric, a[:, s], b[:, s], edges_g)
        cdf[:, 0], cdf[:, -1] = 0.0, 1.0
        pmfs.append(np.clip(np.diff(cdf, axis=1), 0.0, None))
    full = int((mult * (j1 - j0)).sum()) + 1
    lat_mean, (below, above) = _chernoff_window(pmfs, j0, mult, h)
    lo_idx = np.floor((lat_mean - below) / h).astype(np.int64) - 2
    hi_idx = np.ceil((lat_mean + above) / h).astype(np.int64) + 2
    offset = int((mult * j0).sum())
    need = max(int((hi_idx - lo_idx).max()) + 1, int((j1 - j0).max()) + 1)
    wrap = need < full
    n_fft = sfft.next_fast_len(need if wrap else full, real=True)
    chunk = max(1, _MAX_CELLS // n_fft)
    out = []
    r = np.arange(n_fft)
    for c0 in range(0, n_nodes, chunk):
        sl = slice(c0, min(n_nodes, c0 + chunk))
        nj = sl.stop - sl.start
        log_abs = np.zeros((nj, n_fft // 2 + 1))
        phase = np.zeros((nj, n_fft // 2 + 1))
        for s in range(n_states):
            spec = sfft.rfft(pmfs[s][sl], n_fft, axis=1)
            log_abs += mult[s] * np.log(np.abs(spec) + 1e-300)
            phase += mult[s] * np.angle(spec)
        pmf = sfft.irfft(np.exp(log_abs + 1j * phase), n_fft, axis=1)
        pmf = np.clip(pmf, 0.0, None)
        for i in range(nj):
            node = sl.start + i
            if wrap:  # residue r stands for the index in [lo_idx, lo_idx + n_fft)
                start = int(lo_idx[node]) - offset
                x = (start + r + offset) * h
                p = np.roll(pmf[i], -(start % n_fft))
            else:
                x, p = (r + offset) * h, pmf[i]
            p = p / p.sum()
            g_mean = float(p @ x)
            g_sd = float(np.sqrt(p @ (x - g_mean) ** 2))
            factor = sd[node] / g_sd if g_sd > 0 else 1.0
            out.append((mu[node] + (x - g_mean) * factor, p, h * factor))
    return out, h


def _truncated_power_product(pmfs: list[NDArray], mult: NDArray, n: int) -> NDArray | None:
    """Law of the sum of cell indices, truncated to ``0..n-1``.

    The sum is over ``mult[s]`` copies of each ``pmfs[s]`` (shape ``(J, n)``): exact truncated
    convolutions by FFT (squaring).
    """
    n_fft = sfft.next_fast_len(2 * n, real=True)

    def mul(x: NDArray, y: NDArray) -> NDArray:
        z = sfft.irfft(sfft.rfft(x, n_fft, axis=1) * sfft.rfft(y, n_fft, axis=1), n_fft, axis=1)
        return np.clip(z[:, :n], 0.0, None)

    acc = None
    for base, e in zip(pmfs, mult, strict=True):
        e = int(e)
        while e:
            if e & 1:
                acc = base if acc is None else mul(acc, base)
            e >>= 1
            if e:
                base = mul(base, base)
    return acc


def _ladder(
    metric: _Metric,
    a: NDArray,
    b: NDArray,
    mult: NDArray,
    weights: NDArray,
    start: float,
    tail: float,
    upper: bool,
) -> list[list[_Level]]:
    """Nested fine lattices near 0 (``upper=False``) or near gmax (``upper=True``).

    The lattices are in the distance from that bound.

    ``P(S <= d)`` depends only on each question's law on ``[0, d]`` (the terms are >= 0), so
    each level discretises the questions on ``[0, d]`` alone (n cells, each question rounded
    to the nearest lattice point, a spike at the bound staying at 0) and convolves the
    truncated laws exactly. The next level covers ``[0, d / r]``: r = 8, or more where the
    CDF is flat in ``log s`` (a steep pile-up against the bound). Returns, per node, a list of
    ``(knots, cdf, lower validity limit)``, coarsest first.
    """
    m = int(mult.sum())
    n = min(max(_LADDER_CELLS, 1 << math.ceil(math.log2(64 * m))), 2**17)
    levels: list[list[_Level]] = [[] for _ in range(a.shape[0])]
    d = start
    active = np.ones(a.shape[0], dtype=bool)
    for _ in range(_MAX_LEVELS):
        h = d / (n - 0.5)
        edges = np.concatenate([[0.0], (np.arange(1, n + 1) - 0.5) * h]) * m  # units of g
        # a node matters only if every question can be this close to the bound
        near = np.stack(
            [
                _side_cdf(metric, a[:, s], b[:, s], edges[-1:], upper)[:, 0]
                for s in range(a.shape[1])
            ],
            axis=1,
        )
        bound = np.exp((mult * np.log(np.maximum(near, 1e-300))).sum(axis=1))
        active &= weights * bound > 1e-6 * tail
        if not active.any():
            break
        idx = np.flatnonzero(active)
        pmfs = [
            np.clip(np.diff(_side_cdf(metric, a[idx, s], b[idx, s], edges, upper), axis=1), 0, None)
            for s in range(a.shape[1])
        ]
        law = _truncated_power_product(pmfs, mult, n)
        assert law is not None  # questions in some state
        # the sum's mass at index i sits at i h; the CDF is linear within [i - 1/2, i + 1/2] h
        knots = np.concatenate([[0.0], (np.arange(1, n + 1) - 0.5) * h])
        cum = np.concatenate([np.zeros((idx.size, 1)), np.cumsum(law, axis=1)], axis=1)
        mix = weights[idx] @ cum
        # next ratio: 8, or enough that the CDF drops by about a factor 8 (power-law tails)
        i8 = int(n / _LADDER_RATIO)
        slope = math.log(max(mix[-1], 1e-300) / max(mix[i8], 1e-300)) / math.log(_LADDER_RATIO)
        ratio = (
            _LADDER_RATIO
            if slope > 1.0 / 8
            else min(_LADDER_RATIO ** (1.0 / (8 * max(slope, 1e-3))), n / 32)
        )
        lower_limit = d / ratio
        for i, node in enumerate(idx):
            levels[node].append((knots, cum[i], lower_limit))
        if float(np.interp(lower_limit, knots, mix)) < 1e-4 * tail:
            break
        d = lower_limit
    return levels


def _combine(
    coarse_knots: NDArray, coarse_cdf: NDArray, levels: list[_Level], start: float
) -> _Cdf:
    """One piecewise-linear CDF from the coarse lattice and the nested levels.

    The coarse lattice above ``start``, then each nested level on its own range (the finest
    one down to the bound).
    """
    if not levels:
        return coarse_knots, coarse_cdf
    xs = [coarse_knots[coarse_knots > start]]
    fs = [coarse_cdf[coarse_knots > start]]
    top = start
    for i, (knots, cdf, low) in enumerate(levels):  # coarsest first
        sel = knots <= top
        if i < len(levels) - 1:
            sel &= knots > low
        xs.append(knots[sel])
        fs.append(cdf[sel])
        top = low
    x = np.concatenate(xs[::-1])
    f = np.concatenate(fs[::-1])
    order = np.argsort(x, kind="stable")
    return x[order], np.maximum.accumulate(f[order])


def _mixture_cdf(comps: Sequence[_Cdf], weights: NDArray, s: float) -> float:
    """The mixture CDF ``sum_j w_j F_j(s)`` of piecewise-linear CDFs."""
    return sum(w * np.interp(s, x, f) for w, (x, f) in zip(weights, comps, strict=True))


def _solve_tail(comps: Sequence[_Cdf], weights: NDArray, tail: float, gmax: float) -> float:
    """Smallest ``s`` in [0, gmax] with mixture CDF ``tail``, by bisection in ``log s``."""
    tiny = 1e-300
    if _mixture_cdf(comps, weights, tiny) >= tail:
        return 0.0
    if _mixture_cdf(comps, weights, gmax) < tail:
        return gmax
    lo, hi = math.log(tiny), math.log(gmax)
    for _ in range(120):
        mid = 0.5 * (lo + hi)
        if _mixture_cdf(comps, weights, math.exp(mid)) < tail:
            lo = mid
        else:
            hi = mid
    return math.exp(0.5 * (lo + hi))


def _beta_mixture_quantile(a: NDArray, b: NDArray, weights: NDArray, q: float) -> float:
    """``x`` with ``sum_j w_j I_x(a_j, b_j) = q``, by bisection in ``log x``."""
    lo, hi = -745.0, 0.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if float(weights @ betainc(a, b, math.exp(mid))) < q:
            lo = mid
        else:
            hi = mid
    return math.exp(0.5 * (lo + hi))


def _exact_quantiles(
    metric: _Metric,
    a: NDArray,
    b: NDArray,
    mult: NDArray,
    weights: NDArray,
    mu: NDArray,
    sd: NDArray,
    confidence: float,
) -> tuple[float, float]:
    """Equal-tailed interval of the (mixture) posterior of the mean of g over questions.

    ``a, b``: ``(J, S)`` Beta parameters per node and distinct state; ``mult``: ``(S,)``
    question counts; ``weights, mu, sd``: ``(J,)`` node weights, means and sds.
    """
    tail = 0.5 * (1.0 - confidence)
    gmax = metric.gmax
    if gmax == 0.0:
        return 0.0, 0.0
    weights = weights / weights.sum()
    if int(mult.sum()) == 1:  # one question: invert the Beta CDF itself
        x_q = _beta_mixture_quantile(a[:, 0], b[:, 0], weights, tail)
        xb_q = _beta_mixture_quantile(b[:, 0], a[:, 0], weights, tail)
        return float(metric.lower(np.array(x_q))), gmax - float(metric.upper(np.array(xb_q)))
    laws, h = _coarse(metric, a, b, mult, mu, sd)
    lower, upper = [], []
    for x, p, step in laws:
        knots = np.concatenate([[x[0] - step / 2], x + step / 2])
        cum = np.minimum(np.concatenate([[0.0], np.cumsum(p)]), 1.0)
        lower.append((knots, cum))
        upper.append((gmax - knots[::-1], 1.0 - cum[::-1]))
    start = _LADDER_START * h
    fine = []  # per side: accurate near its own bound, coarse elsewhere
    for comps, is_upper in ((lower, False), (upper, True)):
        if _mixture_cdf(comps, weights, start) >= 1e-3 * tail:
            levels = _ladder(metric, a, b, mult, weights, start, tail, is_upper)
            comps = [_combine(x, f, lv, start) for (x, f), lv in zip(comps, levels, strict=True)]
            fine.append((comps, start))
        else:
            fine.append((comps, -np.inf))  # nothing near this bound: no replacement
    # each side's CDF takes the other side's fine lattices near the far bound, so a lower
    # quantile close to gmax (or an upper one close to 0) is as accurate as a near one
    (low, low_start), (up, up_start) = fine
    lower = [_join(lw, uw, up_start, gmax) for lw, uw in zip(low, up, strict=True)]
    upper = [_join(uw, lw, low_start, gmax) for lw, uw in zip(low, up, strict=True)]
    lo = _solve_tail(lower, weights, tail, gmax)
    hi = gmax - _solve_tail(upper, weights, tail, gmax)
    return lo, hi


def _join(near: _Cdf, far: _Cdf, far_start: float, gmax: float) -> _Cdf:
    """``P(X <= s)`` from this side's CDF ``near`` and the other side's CDF ``far``.

    Within ``far_start`` of the other bound, ``1 - P(gmax - X < gmax - s)`` from ``far``.
    """
    if not np.isfinite(far_start):
        return near
    x, f = near
    fx, ff = far
    sel = x < gmax - far_start
    other = fx <= far_start
    xs = np.concatenate([x[sel], (gmax - fx[other])[::-1]])
    fs = np.concatenate([f[sel], (1.0 - ff[other])[::-1]])
    order = np.argsort(xs, kind="stable")
    return xs[order], np.maximum.accumulate(np.clip(fs[order], 0.0, 1.0))
