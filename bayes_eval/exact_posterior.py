r"""The exact posterior distribution of pi-bar, not only its first two moments.

Under the Bayes@N posterior (seed 000, Appendix A) pi-bar is the mean of M independent
random variables :math:`Y_\alpha = w\cdot\pi_\alpha`,
:math:`\pi_\alpha \sim \mathrm{Dir}(\nu_\alpha)`.
The paper approximates its law by :math:`N(\mu, \sigma^2)` (§2.5); this module computes it:

1. Categories with equal weight are merged (aggregation property of the Dirichlet), leaving
   levels :math:`v_0 < \dots < v_K`.
2. The CDF of each :math:`Y_\alpha` is exact: a scaled Beta CDF when :math:`K = 1`; for
   :math:`K \ge 2`, :math:`P(Y \le y) = P(\sum_k (v_k - y) G_k \le 0)` with independent
   :math:`G_k \sim \mathrm{Gamma}(\nu_k)` (Dirichlet as normalised Gammas), evaluated by the
   Gil-Pelaez/Imhof inversion
   :math:`P(X \le 0) = \tfrac12 - \tfrac1\pi\int_0^\infty \sin\theta(t)/(t\rho(t))\,dt`,
   :math:`\theta = \sum_k \nu_k \arctan(c_k t)`, :math:`\rho = \prod_k (1 + c_k^2 t^2)^{\nu_k/2}`,
   integrated by the trapezoidal rule in :math:`\log t` (spectrally accurate here).
3. Each :math:`Y_\alpha/M` is discretised on a common lattice of step ``h`` (default: the
   root-mean-square posterior sd of the :math:`Y_\alpha/M` divided by 40) with exact cell
   probabilities; identical questions are grouped, and the M laws are convolved by FFT
   (a power of the transform for each group). The circular convolution is unwrapped around
   the known mean, so the FFT length only has to cover ±25 posterior sd of pi-bar.
4. The lattice law is finally shifted and scaled to the exact mean and variance (eq. 15),
   which removes the first-order discretisation error (Sheppard's correction).

Checked in the tests against 10^6 exact Dirichlet draws (quantile errors well below the Monte
Carlo error of about 3e-3 posterior sd).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import fft as sfft
from scipy.special import betainc

__all__ = [
    "ExactPosterior",
    "dirichlet_functional_cdf",
    "exact_interval",
    "exact_posterior",
    "lattice_step",
    "prob_greater",
]

_SD_WINDOW = 20.0  # per-question window, in posterior sd
_SUM_WINDOW = 25.0  # half-width of the unwrapped window of the sum, in posterior sd
_CELLS_PER_SD = 40.0
_LOG_T = np.arange(-22.0, 40.0, 0.08)  # trapezoid nodes in log t (scaled by the sd of X)


@dataclass(frozen=True)
class ExactPosterior:
    """A lattice representation of the exact posterior of pi-bar.

    Attributes
    ----------
    x : ndarray
        Lattice points (ascending), in units of pi-bar.
    pmf : ndarray
        Probability of each lattice cell (sums to 1).
    step : float
        Cell width after moment matching.
    mean, sd : float
        Exact posterior mean and standard deviation (eq. 15).
    """

    x: NDArray[np.float64]
    pmf: NDArray[np.float64]
    step: float
    mean: float
    sd: float

    def cdf(self, value: ArrayLike) -> NDArray[np.float64]:
        """``P(pi-bar <= value)``, linear within cells."""
        edges = np.concatenate([[self.x[0] - self.step / 2], self.x + self.step / 2])
        cum = np.concatenate([[0.0], np.cumsum(self.pmf)])
        return np.interp(value, edges, np.minimum(cum, 1.0))

    def ppf(self, q: ArrayLike) -> NDArray[np.float64]:
        """Quantile function (inverse of :meth:`cdf`)."""
        q = np.asarray(q, dtype=float)
        edges = np.concatenate([[self.x[0] - self.step / 2], self.x + self.step / 2])
        cum = np.concatenate([[0.0], np.cumsum(self.pmf)])
        cum = np.minimum(cum / cum[-1], 1.0)
        keep = np.concatenate([[True], np.diff(cum) > 0])  # strictly increasing for interp
        return np.interp(q, cum[keep], edges[keep])


_MAX_INVERSIONS = 256  # CDF points computed by inversion per question type; PCHIP in between


def _imhof_cdf(y: NDArray, levels: NDArray, nu: NDArray) -> NDArray:
    """``P(sum_k levels_k pi_k <= y)`` for ``pi ~ Dir(nu)`` and a vector of ``y`` (K >= 2).

    Long vectors are evaluated exactly at ``_MAX_INVERSIONS`` points and interpolated with a
    monotone cubic (PCHIP) in between (the CDF is smooth; error ~1e-6, see the tests).
    """
    if y.size > _MAX_INVERSIONS and np.all(np.diff(y) > 0):
        from scipy.interpolate import PchipInterpolator

        # Chebyshev-Lobatto knots: denser near the ends, where a CDF can behave like y^a
        u = 0.5 - 0.5 * np.cos(np.linspace(0.0, np.pi, _MAX_INVERSIONS))
        knots = y[0] + (y[-1] - y[0]) * u
        return np.clip(PchipInterpolator(knots, _imhof_exact(knots, levels, nu))(y), 0.0, 1.0)
    return _imhof_exact(y, levels, nu)


def _imhof_exact(y: NDArray, levels: NDArray, nu: NDArray) -> NDArray:
    out = np.empty(y.shape)
    below = y <= levels[0]
    above = y >= levels[-1]
    out[below] = 0.0
    out[above] = 1.0
    inner = ~(below | above)
    if not inner.any():
        return out
    c = levels[None, :] - y[inner, None]  # (G, K)
    scale = 1.0 / np.sqrt((nu * c * c).sum(axis=1))  # 1 / sd of X = sum c_k G_k
    # the integrand decays like prod (t |c_k|)^(-nu_k) at large t and like t at small t: the
    # upper end of the log-t range grows with the spread of |c_k| scale (rows near a level)
    step = _LOG_T[1] - _LOG_T[0]
    total = float(nu.sum())
    res = np.empty(c.shape[0])
    for start in range(0, c.shape[0], 256):
        cc = c[start : start + 256, None, :]
        ac = np.abs(cc[:, 0, :]) * scale[start : start + 256, None]
        small = np.where(ac > 0, ac, np.inf).min()
        s_max = min(40.0, 30.0 / total + 4.0 + max(0.0, -np.log(max(small, 1e-300))))
        log_t = _LOG_T[_LOG_T <= s_max]
        t = (scale[start : start + 256, None] * np.exp(log_t)[None, :])[..., None]  # (g, Q, 1)
        ct = cc * t
        theta = (nu * np.arctan(ct)).sum(axis=-1)
        log_rho = (0.5 * nu * np.log1p(ct * ct)).sum(axis=-1)
        integrand = np.sin(theta) * np.exp(-log_rho)  # sin(theta)/(t rho) * dt/dlog t
        res[start : start + 256] = integrand.sum(axis=-1) * step
    out[inner] = np.clip(0.5 - res / np.pi, 0.0, 1.0)
    return out


def dirichlet_functional_cdf(y: ArrayLike, nu: ArrayLike, w: ArrayLike) -> NDArray[np.float64]:
    r"""Exact CDF of :math:`w\cdot\pi` for :math:`\pi \sim \mathrm{Dir}(\nu)`.

    Parameters
    ----------
    y : array_like
        Points at which to evaluate :math:`P(w\cdot\pi \le y)`.
    nu : array_like, shape ``(K,)``
        Dirichlet concentrations (> 0).
    w : array_like, shape ``(K,)``
        Weights.
    """
    y = np.asarray(y, dtype=float)
    nu = np.asarray(nu, dtype=float)
    w = np.asarray(w, dtype=float)
    levels, inverse = np.unique(w, return_inverse=True)
    beta = np.zeros(levels.size)
    np.add.at(beta, inverse, nu)
    return _level_cdf(y.ravel(), levels, beta).reshape(y.shape)


def _level_cdf(y: NDArray, levels: NDArray, beta: NDArray) -> NDArray:
    if levels.size == 1:
        return (y >= levels[0]).astype(float)
    if levels.size == 2:
        z = np.clip((y - levels[0]) / (levels[1] - levels[0]), 0.0, 1.0)
        return betainc(beta[1], beta[0], z)
    return _imhof_cdf(y, levels, beta)


def _group(nu: NDArray, w: NDArray):
    levels, inverse = np.unique(w, return_inverse=True)
    beta = np.zeros((nu.shape[0], levels.size))
    for j, g in enumerate(inverse):
        beta[:, g] += nu[:, j]
    return levels, beta


def _question_moments(levels, beta, scale, shift, m):
    total = beta.sum(axis=1)
    p = beta / total[:, None]
    mean = p @ levels
    var = (p * (levels[None, :] - mean[:, None]) ** 2).sum(axis=1) / (total + 1.0)
    return (scale * mean + shift) / m, np.abs(scale) * np.sqrt(var) / m


def exact_posterior(
    nu: ArrayLike,
    w: ArrayLike,
    *,
    scale: ArrayLike | None = None,
    shift: ArrayLike | None = None,
    step: float | None = None,
) -> ExactPosterior:
    r"""Exact posterior of :math:`\frac1M\sum_\alpha (s_\alpha\, w\cdot\pi_\alpha + t_\alpha)`.

    Parameters
    ----------
    nu : array_like, shape ``(M, C + 1)``
        Posterior Dirichlet concentrations per question.
    w : array_like, shape ``(C + 1,)``
        Rubric weights.
    scale, shift : array_like, shape ``(M,)``, optional
        Per-question affine map (default 1 and 0: pi-bar itself). avg@N uses
        :math:`s_\alpha = T_\alpha/N_\alpha` (eq. 20).
    step : float, optional
        Lattice step in units of the result; default ``rms(sd_alpha/M) / 40``.

    Returns
    -------
    ExactPosterior
    """
    nu = np.asarray(nu, dtype=float)
    w = np.asarray(w, dtype=float)
    m = nu.shape[0]
    scale = np.ones(m) if scale is None else np.asarray(scale, dtype=float)
    shift = np.zeros(m) if shift is None else np.asarray(shift, dtype=float)
    levels, beta = _group(nu, w)
    q_mean, q_sd = _question_moments(levels, beta, scale, shift, m)
    mean = float(q_mean.sum())
    sd = float(np.sqrt((q_sd**2).sum()))
    if sd == 0.0 or levels.size == 1:
        return ExactPosterior(np.array([mean]), np.array([1.0]), 0.0, mean, 0.0)
    h = float(np.sqrt(np.mean(q_sd**2)) / _CELLS_PER_SD) if step is None else float(step)

    keys = np.column_stack([beta, scale, shift])
    _, first, mult = np.unique(keys, axis=0, return_index=True, return_counts=True)
    pmfs, starts = [], []
    for idx in first:
        lo_sup = (scale[idx] * (levels[0] if scale[idx] > 0 else levels[-1]) + shift[idx]) / m
        hi_sup = (scale[idx] * (levels[-1] if scale[idx] > 0 else levels[0]) + shift[idx]) / m
        lo = max(lo_sup, q_mean[idx] - _SD_WINDOW * q_sd[idx])
        hi = min(hi_sup, q_mean[idx] + _SD_WINDOW * q_sd[idx])
        j0 = int(np.floor(lo / h + 0.5))
        j1 = int(np.floor(hi / h + 0.5))
        edges = (np.arange(j0, j1 + 2) - 0.5) * h  # edges of cells j0..j1
        # P(Y/M <= e)  <=>  P(w.pi <= (e M - t)/s)  (s > 0)
        cdf = _level_cdf((edges * m - shift[idx]) / scale[idx], levels, beta[idx])
        cdf[0], cdf[-1] = 0.0, 1.0
        pmfs.append(np.diff(cdf))
        starts.append(j0)
    starts = np.asarray(starts)
    offset = int((starts * mult).sum())  # lattice index of the sum when every cell index is 0
    centre = mean / h - offset  # expected index of the sum relative to ``offset``
    half = int(np.ceil(_SUM_WINDOW * sd / h)) + 2
    n_fft = sfft.next_fast_len(max(2 * half, max(p.size for p in pmfs)) + 1, real=True)
    # product of spectra raised to the multiplicities, in polar form (a zero stays a zero)
    log_abs = np.zeros(n_fft // 2 + 1)
    phase = np.zeros(n_fft // 2 + 1)
    with np.errstate(divide="ignore"):
        for p, k in zip(pmfs, mult, strict=True):
            spec = sfft.rfft(p, n_fft)
            log_abs += k * np.log(np.abs(spec))
            phase += k * np.angle(spec)
    pmf = sfft.irfft(np.exp(log_abs) * np.exp(1j * phase), n_fft)
    pmf = np.clip(pmf, 0.0, None)
    # unwrap: residue r stands for index r + n_fft * round((centre - r) / n_fft)
    r = np.arange(n_fft)
    true_index = r + n_fft * np.round((centre - r) / n_fft)
    order = np.argsort(true_index)
    x = (true_index[order] + offset) * h
    pmf = pmf[order]
    pmf /= pmf.sum()
    # moment matching to the exact mean and sd (first-order discretisation correction)
    g_mean = float(pmf @ x)
    g_sd = float(np.sqrt(pmf @ (x - g_mean) ** 2))
    factor = sd / g_sd if g_sd > 0 else 1.0
    x = mean + (x - g_mean) * factor
    return ExactPosterior(x=x, pmf=pmf, step=h * factor, mean=mean, sd=sd)


def lattice_step(nus, w: ArrayLike) -> float | None:
    """One lattice step fine enough for every posterior in ``nus`` (each ``(M, C + 1)``):
    the smallest ``rms(sd_alpha / M) / 40`` among them, so that convolving or comparing them
    (:func:`prob_greater`) keeps the default accuracy. ``None`` if all are point masses."""
    w = np.asarray(w, dtype=float)
    steps = []
    for nu in nus:
        nu = np.asarray(nu, dtype=float)
        levels, beta = _group(nu, w)
        m = nu.shape[0]
        _, q_sd = _question_moments(levels, beta, np.ones(m), np.zeros(m), m)
        rms = float(np.sqrt(np.mean(q_sd**2)))
        if rms > 0:
            steps.append(rms / _CELLS_PER_SD)
    return min(steps) if steps else None


def prob_greater(a: ExactPosterior, b: ExactPosterior) -> float:
    """Exact ``P(pi-bar_a > pi-bar_b)`` for independent posteriors on the same lattice step.

    Build both with the same ``step`` (see :func:`bayes_eval.ranking.prob_better`).
    """
    if a.sd == 0.0 and b.sd == 0.0:
        return float(a.mean > b.mean) + 0.5 * float(a.mean == b.mean)
    if a.sd == 0.0 or b.sd == 0.0:
        point, other, sign = (a, b, 1.0) if a.sd == 0.0 else (b, a, -1.0)
        below = float(other.cdf(point.mean))
        return below if sign > 0 else 1.0 - below
    # D = A - B on a common grid of step h = mean of the two steps (they agree to ~1e-3)
    h = 0.5 * (a.step + b.step)
    xa = np.round((a.x - a.x[0]) / h).astype(int)
    xb = np.round((b.x - b.x[0]) / h).astype(int)
    pa = np.bincount(xa, weights=a.pmf)
    pb = np.bincount(xb, weights=b.pmf)
    n = sfft.next_fast_len(pa.size + pb.size, real=True)
    pd = sfft.irfft(sfft.rfft(pa, n) * sfft.rfft(pb[::-1], n), n)[: pa.size + pb.size - 1]
    pd = np.clip(pd, 0.0, None)
    pd /= pd.sum()
    d = a.x[0] - b.x[-1] + np.arange(pd.size) * h
    # shift to the exact mean of the difference, then split the cell containing 0
    d += (a.mean - b.mean) - float(pd @ d)
    upper = d + h / 2
    lower = d - h / 2
    frac_above = np.clip(upper / h, 0.0, 1.0)
    frac_above[lower >= 0] = 1.0
    return float(pd @ frac_above)


def exact_interval(
    nu: ArrayLike,
    w: ArrayLike,
    confidence: float,
    *,
    scale: ArrayLike | None = None,
    shift: ArrayLike | None = None,
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Equal-tailed ``confidence`` interval of the exact posterior, for each model of a batch.

    ``nu`` has shape ``(..., M, C + 1)``; ``scale``/``shift`` (optional) shape ``(..., M)``.
    Returns ``lo, hi`` with the leading shape of ``nu``.
    """
    nu = np.asarray(nu, dtype=float)
    tail = 0.5 * (1.0 - confidence)
    m, k = nu.shape[-2:]
    batch = nu.reshape(-1, m, k)
    scales = None if scale is None else np.broadcast_to(scale, nu.shape[:-1]).reshape(-1, m)
    shifts = None if shift is None else np.broadcast_to(shift, nu.shape[:-1]).reshape(-1, m)
    lo = np.empty(batch.shape[0])
    hi = np.empty(batch.shape[0])
    for i, nu_i in enumerate(batch):
        dist = exact_posterior(
            nu_i,
            w,
            scale=None if scales is None else scales[i],
            shift=None if shifts is None else shifts[i],
        )
        lo[i], hi[i] = dist.ppf([tail, 1.0 - tail])
    return lo.reshape(nu.shape[:-2]), hi.reshape(nu.shape[:-2])
