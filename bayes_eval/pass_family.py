r"""The Pass@k family: unbiased point estimates and Beta-posterior intervals (seed 000, App. H).

Every member scores a question by a *credit* :math:`A_j` for exactly ``j`` successes among ``k``
attempts, for ``j = 0..k``:

============================  ===========================================  ==========
metric                        credit :math:`A_j`                           seed 000
============================  ===========================================  ==========
Pass@k                        :math:`1[j \ge 1]`                           eq. 21
Pass^k                        :math:`1[j = k]`                             eq. 22
G-Pass@k_tau                  :math:`1[j \ge \lceil \tau k \rceil]`        eq. 23
mG-Pass@k                     :math:`\frac{2}{k}\max(j - m, 0)`, m = ceil(k/2)  eq. 24
============================  ===========================================  ==========

**Point estimates** (unbiased, from N trials with c successes): :math:`\sum_j A_j\,
\mathrm{Hyp}(j; N, c, k)` per question (drawing k of the N trials without replacement),
averaged over questions.

**Posterior** (``*_ci``): each question's success probability has the posterior
:math:`p_\alpha \sim \mathrm{Beta}(\alpha_0 + c_\alpha, \beta_0 + N_\alpha - c_\alpha)`
and the latent
metric is :math:`g(p) = \sum_j A_j \binom{k}{j}p^j(1-p)^{k-j}` (k i.i.d. attempts). Its moments
are Beta-binomial sums: :math:`E[g] = \sum_j A_j\,\mathrm{BB}(j; k, a, b)` and
:math:`\mathrm{Var}[g] = \sum_t h_t\,\mathrm{BB}(t; 2k, a, b)` where :math:`h` are the degree-2k
Bernstein coefficients of :math:`(g - E g)^2` (centred, so no cancellation). For Pass@k and
Pass^k the closed forms :math:`E[(1-p)^k] = \prod_{i<k}\frac{b+i}{a+b+i}` and
:math:`E[(1-p)^{2k}]/E[(1-p)^k]^2 = \prod_{i<k}\big(1 + \frac{ak}{(a+b+k+i)(b+i)}\big)` are used.
The dataset level is :math:`\mu = \frac1M\sum_\alpha E[g_\alpha]`,
:math:`\sigma = \frac1M\sqrt{\sum_\alpha \mathrm{Var}[g_\alpha]}`; the interval is
:math:`\mu \mp z\sigma` clipped into ``bounds`` (default (0, 1)), as in scorio 0.2.3.

Work is done once per distinct ``(N_alpha, c_alpha)`` state and gathered back, so batches of
models and bootstrap replicates cost little more than their number of distinct states.

Differences from scorio 0.2.3 (deliberate): ``tau`` must lie in (0, 1] (seed 000 eq. 23
defines tau in (0, 1]; scorio also accepts 0 as Pass@k); ``confidence``/``bounds``/priors are
keyword-only; ``R`` may be batched ``(L, M, N)`` and may have masked (missing) trials.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.special import gammaln
from scipy.stats import hypergeom

from bayes_eval.bayes_at_n import Estimate, _out
from bayes_eval.credible_interval import normal_interval
from bayes_eval.inputs import (
    BINARY_HINT,
    check_beta_prior,
    check_bounds,
    check_confidence,
    check_k,
    check_tau,
    tally,
)

__all__ = [
    "g_pass_at_k",
    "g_pass_at_k_ci",
    "g_pass_at_k_tau",
    "g_pass_at_k_tau_ci",
    "mg_pass_at_k",
    "mg_pass_at_k_ci",
    "pass_at_k",
    "pass_at_k_ci",
    "pass_hat_k",
    "pass_hat_k_ci",
    "tau_threshold",
]

_CHUNK = 2**21  # elements per chunk of (states x terms) work arrays


# --------------------------------------------------------------------------- credits


def tau_threshold(tau: float, k: int) -> int:
    r"""Smallest success count ``j0 = max(1, ceil(tau k))`` of G-Pass@k_tau (eq. 23).

    The ceiling is taken on the *intended* rational: when ``tau`` is the float nearest to
    ``j/k`` (``0.28 * 25 = 7.000000000000001`` in floating point) the threshold is ``j``, not
    ``j + 1``. scorio 0.2.3 uses the same rule; earlier scorio used ``math.ceil(tau * k)``.
    """
    j = math.ceil(tau * k)
    if j > 1 and (j - 1) / k >= tau:
        j -= 1
    elif j / k < tau:
        j += 1
    return max(1, min(j, k))


def _threshold_credit(k: int, j0: int) -> NDArray[np.float64]:
    credit = np.zeros(k + 1)
    credit[j0:] = 1.0
    return credit


def _mg_credit(k: int) -> NDArray[np.float64]:
    m = (k + 1) // 2
    return (2.0 / k) * np.maximum(np.arange(k + 1) - m, 0.0)


# --------------------------------------------------------------------------- data


def _binary(R, mask):
    t, _ = tally(R, mask=mask, n_categories=2, label_hint=BINARY_HINT)
    return t.n_trials, t.counts[..., 1]


def _states(n: NDArray, c: NDArray):
    """Distinct ``(N_alpha, c_alpha)`` pairs and the inverse index."""
    key = n.astype(np.int64) * (int(n.max()) + 1) + c
    uniq, inverse = np.unique(key.ravel(), return_inverse=True)
    un = uniq // (int(n.max()) + 1)
    uc = uniq % (int(n.max()) + 1)
    return un, uc, inverse.reshape(n.shape)


def _aggregate(values: NDArray, inverse: NDArray):
    """Mean over questions (last axis) of per-state values."""
    return values[inverse].mean(axis=-1)


# --------------------------------------------------------------------------- point estimates


def _point(R, k, credit_fn, mask):
    n, c = _binary(R, mask)
    k = check_k(k, n)
    credit = credit_fn(k)
    un, uc, inv = _states(n, c)
    nz = np.flatnonzero(credit)
    if nz.size and np.all(credit[nz[0] :] == 1.0):
        values = hypergeom.sf(nz[0] - 1, un, uc, k)  # P(X >= j0)
    else:
        j = np.arange(k + 1)
        values = np.empty(un.size)
        step = max(1, _CHUNK // (k + 1))
        for s in range(0, un.size, step):
            pmf = hypergeom.pmf(j[None, :], un[s : s + step, None], uc[s : s + step, None], k)
            values[s : s + step] = pmf @ credit
    return _out(_aggregate(np.asarray(values, dtype=float), inv))


def pass_at_k(R: ArrayLike, k: int, *, mask: ArrayLike | None = None) -> Estimate:
    r"""Unbiased Pass@k (seed 000, eq. 21; Chen et al. 2021).

    .. math:: \mathrm{Pass@}k = \frac1M\sum_\alpha 1 - \binom{N-c_\alpha}{k}\Big/\binom{N}{k}

    Parameters
    ----------
    R : array_like of {0, 1}, shape ``(M, N)`` or ``(L, M, N)``
    k : int
        ``1 <= k <= N`` (the smallest per-question trial count when trials are masked).
    mask : array_like of bool, optional, keyword-only
        ``True`` where a trial is missing.

    Returns
    -------
    float, or ndarray of shape ``(L,)``

    Examples
    --------
    >>> import numpy as np
    >>> round(pass_at_k(np.array([[0, 1, 1, 0, 1], [1, 1, 0, 1, 1]]), 2), 6)
    0.95
    """
    return _point(R, k, lambda kk: _threshold_credit(kk, 1), mask)


def pass_hat_k(R: ArrayLike, k: int, *, mask: ArrayLike | None = None) -> Estimate:
    r"""Pass^k, the probability that k attempts all succeed (seed 000, eq. 22; Yao et al. 2024).

    .. math:: \mathrm{Pass}^k = \frac1M\sum_\alpha \binom{c_\alpha}{k}\Big/\binom{N}{k}

    Same parameters and returns as :func:`pass_at_k`.
    """
    return _point(R, k, lambda kk: _threshold_credit(kk, kk), mask)


def g_pass_at_k(R: ArrayLike, k: int, *, mask: ArrayLike | None = None) -> Estimate:
    """G-Pass@k, the tau = 1 member: identical to :func:`pass_hat_k` (scorio's alias)."""
    return pass_hat_k(R, k, mask=mask)


def g_pass_at_k_tau(R: ArrayLike, k: int, tau: float, *, mask: ArrayLike | None = None) -> Estimate:
    r"""G-Pass@k_tau (seed 000, eq. 23; Liu et al. 2025).

    .. math:: \frac1M\sum_\alpha \sum_{j=j_0}^{k}
              \frac{\binom{c_\alpha}{j}\binom{N-c_\alpha}{k-j}}{\binom{N}{k}},
              \qquad j_0 = \max(1, \lceil \tau k\rceil)

    ``tau`` in (0, 1]; see :func:`tau_threshold` for the exact ceiling.
    """
    tau = check_tau(tau)
    return _point(R, k, lambda kk: _threshold_credit(kk, tau_threshold(tau, kk)), mask)


def mg_pass_at_k(R: ArrayLike, k: int, *, mask: ArrayLike | None = None) -> Estimate:
    r"""mG-Pass@k (seed 000, eq. 24): the discrete area of G-Pass@k_tau over tau in [0.5, 1].

    .. math:: \frac{2}{k}\sum_{i=m+1}^{k}\mathrm{G\text{-}Pass@}k_{i/k}
              = \frac1M\sum_\alpha \sum_j \frac{2}{k}\max(j-m, 0)\,\mathrm{Hyp}(j; N, c_\alpha, k),
              \qquad m = \lceil k/2\rceil
    """
    return _point(R, k, _mg_credit, mask)


# --------------------------------------------------------------------------- posteriors


def _log_power_moment(a: NDArray, b: NDArray, k: int):
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


def _bernstein_moments(credit: NDArray, a: NDArray, b: NDArray):
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


def _posterior(R, k, kind, tau, confidence, bounds, alpha0, beta0, mask):
    confidence = check_confidence(confidence)
    bounds = check_bounds(bounds)
    alpha0, beta0 = check_beta_prior(alpha0, beta0)
    n, c = _binary(R, mask)
    k = check_k(k, n)
    un, uc, inv = _states(n, c)
    a = alpha0 + uc.astype(float)
    b = beta0 + (un - uc).astype(float)
    if kind == "threshold":
        j0 = tau_threshold(tau, k)
        kind = "pass" if j0 == 1 else ("hat" if j0 == k else kind)
    if kind in ("pass", "hat"):
        # pass: g = 1 - (1-p)^k ; hat: g = p^k = 1 - (1 - q)^k... use the (1-p) form with swap
        x, y = (a, b) if kind == "pass" else (b, a)
        log_m1, log_ratio = _log_power_moment(x, y, k)
        mean = -np.expm1(log_m1) if kind == "pass" else np.exp(log_m1)
        var = np.exp(2.0 * log_m1) * np.expm1(log_ratio)
    else:
        credit = _threshold_credit(k, j0) if kind == "threshold" else _mg_credit(k)
        mean, var = _bernstein_moments(credit, a, b)
    m = n.shape[-1]
    mu = _aggregate(mean, inv)
    sigma = np.sqrt(var[inv].sum(axis=-1)) / m
    lo, hi = normal_interval(mu, sigma, confidence, bounds)
    return _out(mu), _out(sigma), _out(lo), _out(hi)


def _ci_doc(name: str, eq: str) -> str:
    return f"""Posterior mean, sd and credible interval of the latent {name} (seed 000, {eq}).

    Each question's success probability has the posterior
    ``Beta(alpha0 + c, beta0 + N - c)``; the latent metric is the i.i.d. version of {name}
    for k attempts. See the module docstring for the moments.

    Parameters
    ----------
    R : array_like of {{0, 1}}, shape ``(M, N)`` or ``(L, M, N)``
    k : int
        ``1 <= k <= N``.
    confidence : float, keyword-only
        Credibility level in (0, 1).
    bounds : (float, float) or None, keyword-only
        Clip both endpoints (default ``(0, 1)``, as scorio).
    alpha0, beta0 : float, keyword-only
        Beta prior (default 1, 1).
    mask : array_like of bool, keyword-only
        ``True`` where a trial is missing.

    Returns
    -------
    mu, sigma, lo, hi : float, or ndarrays of shape ``(L,)``
    """


def pass_at_k_ci(
    R: ArrayLike,
    k: int,
    *,
    confidence: float = 0.95,
    bounds: tuple[float, float] | None = (0.0, 1.0),
    alpha0: float = 1.0,
    beta0: float = 1.0,
    mask: ArrayLike | None = None,
) -> tuple[Estimate, Estimate, Estimate, Estimate]:
    return _posterior(R, k, "pass", None, confidence, bounds, alpha0, beta0, mask)


def pass_hat_k_ci(
    R: ArrayLike,
    k: int,
    *,
    confidence: float = 0.95,
    bounds: tuple[float, float] | None = (0.0, 1.0),
    alpha0: float = 1.0,
    beta0: float = 1.0,
    mask: ArrayLike | None = None,
) -> tuple[Estimate, Estimate, Estimate, Estimate]:
    return _posterior(R, k, "hat", None, confidence, bounds, alpha0, beta0, mask)


def g_pass_at_k_ci(
    R: ArrayLike,
    k: int,
    *,
    confidence: float = 0.95,
    bounds: tuple[float, float] | None = (0.0, 1.0),
    alpha0: float = 1.0,
    beta0: float = 1.0,
    mask: ArrayLike | None = None,
) -> tuple[Estimate, Estimate, Estimate, Estimate]:
    return _posterior(R, k, "hat", None, confidence, bounds, alpha0, beta0, mask)


def g_pass_at_k_tau_ci(
    R: ArrayLike,
    k: int,
    tau: float,
    *,
    confidence: float = 0.95,
    bounds: tuple[float, float] | None = (0.0, 1.0),
    alpha0: float = 1.0,
    beta0: float = 1.0,
    mask: ArrayLike | None = None,
) -> tuple[Estimate, Estimate, Estimate, Estimate]:
    tau = check_tau(tau)
    return _posterior(R, k, "threshold", tau, confidence, bounds, alpha0, beta0, mask)


def mg_pass_at_k_ci(
    R: ArrayLike,
    k: int,
    *,
    confidence: float = 0.95,
    bounds: tuple[float, float] | None = (0.0, 1.0),
    alpha0: float = 1.0,
    beta0: float = 1.0,
    mask: ArrayLike | None = None,
) -> tuple[Estimate, Estimate, Estimate, Estimate]:
    return _posterior(R, k, "mg", None, confidence, bounds, alpha0, beta0, mask)


pass_at_k_ci.__doc__ = _ci_doc("Pass@k, g(p) = 1 - (1 - p)^k", "eq. 21")
pass_hat_k_ci.__doc__ = _ci_doc("Pass^k, g(p) = p^k", "eq. 22")
g_pass_at_k_ci.__doc__ = _ci_doc("G-Pass@k (tau = 1, the same as Pass^k)", "eq. 23")
g_pass_at_k_tau_ci.__doc__ = _ci_doc(
    "G-Pass@k_tau, g(p) = P(Binomial(k, p) >= max(1, ceil(tau k)))", "eq. 23"
).replace("``1 <= k <= N``.", "``1 <= k <= N``.\n    tau : float\n        Threshold in (0, 1].")
mg_pass_at_k_ci.__doc__ = _ci_doc("mG-Pass@k", "eq. 24")
