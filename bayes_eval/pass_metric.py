r"""The latent Pass family metric :math:`g(p)` of one question and its posterior moments.

Hariri et al., "Don't Pass@k: A Bayesian Framework for Large Language Model Evaluation",
Appendix H. For a question with success probability :math:`p` the k-attempt metric is

.. math:: g(p) = \sum_j A_j \binom{k}{j}p^j(1-p)^{k-j}
          = \sum_{j \ge 1} (A_j - A_{j-1})\, I_p(j, k - j + 1),

nondecreasing in p for all four members (:class:`_Metric`, with the inverses that
``interval="exact"`` needs). Under :math:`p \sim \mathrm{Beta}(a, b)`:
:math:`E[g] = \sum_j A_j\,\mathrm{BB}(j; k, a, b)` and
:math:`\mathrm{Var}[g] = \sum_t h_t\,\mathrm{BB}(t; 2k, a, b)` with :math:`h` the degree-2k
Bernstein coefficients of :math:`(g - E g)^2` (:func:`_bernstein_moments`); for Pass@k and
Pass^k the closed forms :math:`E[(1-p)^k] = \prod_{i<k}\frac{b+i}{a+b+i}` and
:math:`E[(1-p)^{2k}]/E[(1-p)^k]^2 = \prod_{i<k}\big(1 + \frac{ak}{(a+b+k+i)(b+i)}\big)`
(:func:`_log_power_moment`). See :mod:`bayes_eval.pass_family` for the whole method.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray
from scipy.special import betainc, betaln, gammaln

from bayes_eval.pass_point import _CHUNK, _mg_credit, _threshold_credit, tau_threshold

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
        """Solve ``sum_i c_i I_x(al_i, be_i) = u`` by interpolation on a log grid and Newton's
        method in ``log x`` (smooth and increasing in ``log x``; used for ``u <= gmax / 2``,
        where it converges to ~1e-14 relative)."""
        k = self.k
        j = self.jumps.astype(float)
        al, be = (k - j + 1, j) if upper else (j, k - j + 1)
        c = self.steps
        log_b = betaln(al, be)

        def f(x):
            return sum(ci * betainc(a, b, x) for ci, a, b in zip(c, al, be, strict=True))

        def xdf(x):  # x f'(x)
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
        j0 = tau_threshold(tau, k)
        kind = "pass" if j0 == 1 else ("hat" if j0 == k else kind)
    else:
        j0 = {"pass": 1, "hat": k}.get(kind, 0)
    credit = _mg_credit(k) if kind == "mg" else _threshold_credit(k, j0)
    return _Metric(kind, k, credit)


# --------------------------------------------------------------------------- moments


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


def _moments(metric: _Metric, a: NDArray, b: NDArray):
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
