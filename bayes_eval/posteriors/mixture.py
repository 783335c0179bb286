r"""The two parts of the law of pi-bar under a prior integrated over its hyperparameters.

The pieces of :func:`~bayes_eval.posteriors.exact.mixture_interval`: the smooth part, a
mixture of Beta laws with the exact conditional means and variances of pi-bar (eq. 15 of
Hariri et al., "Don't Pass@k: A Bayesian Framework for Large Language Model Evaluation";
``_BetaMixture``, ``_mixture_moments``), and the correction at the heaviest nodes from their
lattice laws on one shared lattice (``_lattice_correction``): each distinct count row's law
binned linearly in closed form, by stick-breaking for three or more levels (``_level_pmf``,
``_beta_excess``), and the rows convolved by one batched FFT. ``_mixture_roots`` solves for
the quantiles of their sum.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray
from scipy import fft as sfft
from scipy.special import betainc, betaln, ndtri, xlog1py, xlogy

from bayes_eval.posteriors.lattice import _group

#: Private engines only: the public names live in the modules that use them.
__all__: list[str] = []

_BINARY_CELLS = 50.0  # lattice cells per posterior sd of pi-bar (at least 16 per question)
_BINARY_MAX_CELLS = 4096  # at most this many cells per question
_RESOLVED = 4.0  # a node's law enters the correction when its sd spans this many cells
_BINARY_WINDOW = 30.0  # the shared lattice covers every node's mean +- this many sd
_NEGLIGIBLE_MASS = 1e-11  # lattice masses below this are left out of a product stage


def _lattice_correction(
    rows: NDArray,
    mult: NDArray,
    w: NDArray,
    nodes: NDArray,
    corr_w: NDArray,
    sd: float,
    cells: float = _BINARY_CELLS,
) -> Callable[[NDArray], NDArray]:
    r"""The correction :math:`\sum_j \tilde\omega_j (F(x\mid a_j) - B_j(x))` on one lattice.

    ``rows`` (distinct count rows, multiplicities ``mult``) and ``nodes`` are in categories
    of ``w``; ``sd`` is the posterior sd of pi-bar. The lattice laws of all nodes share the
    points :math:`i h` of :math:`S = \sum_\alpha Y_\alpha`, :math:`Y_\alpha` the score of
    question :math:`\alpha` mapped to ``[0, 1]`` (:func:`_level_pmf`; see
    :func:`mixture_interval`); returns the correction as a function of pi-bar (vectorised).
    """
    levels, beta = _group(rows, w)
    lo, width = float(levels[0]), float(levels[-1] - levels[0])
    c = (levels - lo) / width
    par = beta[None, :, :] + _group(nodes, w)[1][:, None, :]  # (J, T, levels)
    total = par.sum(axis=-1)
    p = par / total[..., None]
    mu = p @ c
    m = float(mult.sum())
    mean_s = mu @ mult
    sd_s = np.sqrt(((p @ (c * c) - mu * mu) / (total + 1.0)) @ mult)
    per_q = int(np.clip(np.ceil(cells / (m * sd / width)), 16, _BINARY_MAX_CELLS))
    per_q = max(per_q, int(np.ceil(1.0 / np.diff(c).min() - 1e-9)))  # h <= every level gap
    h = 1.0 / per_q
    pmf = _level_pmf(par.reshape(-1, c.size), c, per_q).reshape(*par.shape[:2], per_q + 1)
    # the sum over the rows: over all its points, or (circular) over every node's mean +- 30 sd
    size = int(mult.sum()) * per_q + 1
    first = int(np.floor(max(0.0, float((mean_s - _BINARY_WINDOW * sd_s).min())) / h))
    last = int(np.ceil(min(m, float((mean_s + _BINARY_WINDOW * sd_s).max())) / h))
    n_fft = sfft.next_fast_len(max(last - first + 1, per_q + 1), real=True)
    if n_fft >= size:
        first, n_fft = 0, sfft.next_fast_len(size, real=True)
    # the product of the transforms raised to the multiplicities (by repeated squaring: ten
    # times faster than the complex logarithm, and a zero stays a zero)
    spec = sfft.rfft(pmf, n_fft, axis=-1)
    product = np.ones((spec.shape[0], spec.shape[2]), dtype=complex)
    for row, k in enumerate(mult):
        product *= _int_power(spec[:, row], int(k))
    law = sfft.irfft(product, n_fft, axis=-1)
    law = np.clip(np.roll(law, -(first % n_fft), axis=-1)[:, : min(n_fft, size - first)], 0, None)
    law /= law.sum(axis=1, keepdims=True)
    x = (first + np.arange(law.shape[1])) * h
    g_mean = law @ x
    g_var = law @ x**2 - g_mean**2 + h * h / 12.0  # the CDF is linear across each cell
    factor = sd_s / np.sqrt(np.maximum(g_var, sd_s**2))  # Sheppard: to the exact variance
    cum = np.concatenate([np.zeros((law.shape[0], 1)), np.cumsum(law, axis=1)], axis=1)
    cells = law.shape[1]
    weight = np.where(sd_s >= _RESOLVED * h, corr_w, 0.0)
    betas = _BetaMixture(lo + width * mean_s / m, width * sd_s / m, weight, lo, width)

    def correction(value: NDArray) -> NDArray:
        value = np.asarray(value, dtype=float)
        s = (value - lo) / width * m
        # lattice CDF of each node at s, scaled about its mean to the exact variance
        u = (g_mean[:, None] + (s[None, :] - mean_s[:, None]) / factor[:, None]) / h
        u = u - first + 0.5  # in units of cells from the first cell's lower edge
        k = np.clip(np.floor(u).astype(int), 0, cells - 1)
        frac = np.clip(u - k, 0.0, 1.0)
        f = np.take_along_axis(cum, k, 1) * (1.0 - frac) + np.take_along_axis(cum, k + 1, 1) * frac
        f = np.where(s[None, :] <= 0.0, 0.0, np.where(s[None, :] >= m, 1.0, f))
        return weight @ f - betas.cdf(value)

    return correction


def _beta_excess(a: NDArray, b: NDArray, s: NDArray) -> NDArray:
    r""":math:`G(s) = E[(s - V)_+]` for :math:`V \sim \mathrm{Beta}(a, b)` and any real ``s``.

    :math:`G(s) = (s - \mu) I_s(a, b) + s^a (1 - s)^b / ((a + b) B(a, b))` on ``[0, 1]``
    (:math:`\mu = a/(a+b)`; from :math:`I_s(a + 1, b) = I_s(a, b) - s^a (1 - s)^b / (a B(a,
    b))`, Abramowitz and Stegun, "Handbook of Mathematical Functions", §26.5), 0 below and
    :math:`s - \mu` above (broadcast).
    """
    z = np.clip(s, 0.0, 1.0)
    with np.errstate(divide="ignore"):
        kernel = xlogy(a, z) + xlog1py(b, -z) - np.log(a + b) - betaln(a, b)
    return (s - a / (a + b)) * betainc(a, b, z) + np.exp(kernel)


def _level_pmf(par: NDArray, c: NDArray, n: int) -> NDArray:
    r"""Linear binning of :math:`Y = c\cdot\pi`, :math:`\pi \sim \mathrm{Dir}(\nu)`.

    The points are :math:`i/n`, :math:`i = 0, \dots, n` (one row of ``par`` per law; ``c``
    ascending from 0 to 1, every gap at least :math:`1/n`).

    By stick-breaking from the lowest level, :math:`Y = c_0 + U_0 (Z_1 - c_0)` with
    :math:`U_0 = 1 - \pi_0 \sim \mathrm{Beta}(\sum_{k>0}\nu_k, \nu_0)` independent of
    :math:`Z_1 = \sum_{k\ge1} c_k \pi_k / U_0`, which has the same form over the levels above
    (the Dirichlet is neutral: Connor and Mosimann, "Concepts of independence for proportions
    with a generalization of the Dirichlet distribution"); the top two levels are a scaled
    Beta. Each Beta is binned linearly in closed form (second differences of
    :func:`_beta_excess`), and each stage from the binned :math:`\tilde U` and
    :math:`\tilde Z`: every point :math:`c + u_l (z_i - c)` with mass :math:`r_l q_i` is
    split between its two neighbours on the lattice. The binnings are independent with
    :math:`E[\tilde U\mid U] = U` and :math:`E[\tilde Z\mid Z] = Z`, so :math:`E[\tilde
    Y\mid\pi] = Y` at every stage: the lattice law has the exact mean, and its variance
    exceeds the exact one by at most :math:`h^2/4` per binning (removed by the scaling of the
    sum to its exact variance). Masses below 1e-11 are left out.
    """
    k_top = c.size - 1
    h = 1.0 / n
    t = np.arange(-1, n + 2) * h  # G at the points -1 .. n + 1: masses at 0 .. n

    def binned_beta(a: NDArray, b: NDArray, base: float, d: float) -> NDArray:
        g = d * _beta_excess(a[:, None], b[:, None], (t[None, :] - base) / d)
        return np.clip((g[:, 2:] - 2.0 * g[:, 1:-1] + g[:, :-2]) / h, 0.0, None)

    q = binned_beta(par[:, k_top], par[:, k_top - 1], float(c[k_top - 1]), 1.0 - c[k_top - 1])
    laws = np.arange(par.shape[0])
    for k in range(k_top - 2, -1, -1):
        r = binned_beta(par[:, k + 1 :].sum(axis=1), par[:, k], 0.0, 1.0)
        base = float(c[k])
        r_law, r_at = np.nonzero(r > _NEGLIGIBLE_MASS)
        q_law, q_at = np.nonzero(q > _NEGLIGIBLE_MASS)
        q_count = np.bincount(q_law, minlength=laws.size)
        q_start = np.cumsum(q_count) - q_count
        count = q_count[r_law]  # every U point of a law meets every Z point of it
        owner = np.repeat(np.arange(r_law.size), count)
        pair = (
            q_start[r_law[owner]]
            + np.arange(owner.size)
            - np.repeat(np.cumsum(count) - count, count)
        )
        law = r_law[owner]
        mass = r[law, r_at[owner]] * q[law, q_at[pair]]
        y = (base + r_at[owner] * h * (q_at[pair] * h - base)) / h
        j = np.clip(np.floor(y).astype(int), 0, n)
        frac = y - j
        size = laws.size * (n + 2)
        q = np.bincount(law * (n + 2) + j, mass * (1.0 - frac), size)
        q += np.bincount(law * (n + 2) + j + 1, mass * frac, size)
        q = q.reshape(laws.size, n + 2)[:, : n + 1]
    return q


def _int_power(z: NDArray, k: int) -> NDArray:
    """``z ** k`` (element-wise, integer ``k >= 1``) by repeated squaring."""
    out: NDArray | None = None
    base = z
    while k:
        if k & 1:
            out = base.copy() if out is None else out * base
        k >>= 1
        if k:
            base = base * base
    assert out is not None  # k >= 1
    return out


def _mixture_moments(
    rows: NDArray, mult: NDArray, nodes: NDArray, w: NDArray
) -> tuple[NDArray, NDArray]:
    """Mean and sd of pi-bar under each node (eq. 15), from the distinct count rows."""
    levels, beta = _group(rows, w)
    nu = beta[None] + _group(nodes, w)[1][:, None, :]  # (J, T, levels)
    total = nu.sum(axis=-1)
    p = nu / total[..., None]
    q_mean = p @ levels
    q_var = (p * (levels - q_mean[..., None]) ** 2).sum(axis=-1) / (total + 1.0)
    m = float(mult.sum())
    return q_mean @ mult / m, np.sqrt(q_var @ mult) / m


@dataclass(frozen=True)
class _BetaMixture:
    """Mixture of Beta laws on ``[lo, lo + width]`` with the given means and sds."""

    mean: NDArray
    sd: NDArray
    weights: NDArray
    lo: float
    width: float
    a: NDArray = field(init=False)
    b: NDArray = field(init=False)
    log_norm: NDArray = field(init=False)

    def __post_init__(self) -> None:
        m = np.clip((self.mean - self.lo) / self.width, 1e-300, 1.0 - 1e-16)
        v = np.maximum((self.sd / self.width) ** 2, 1e-300)
        t = np.maximum(m * (1.0 - m) / v - 1.0, 1e-12)
        object.__setattr__(self, "a", m * t)
        object.__setattr__(self, "b", (1.0 - m) * t)
        object.__setattr__(self, "log_norm", betaln(self.a, self.b) + np.log(self.width))

    def cdf(self, x: NDArray) -> NDArray:
        z = np.clip((x - self.lo) / self.width, 0.0, 1.0)
        return self.weights @ betainc(self.a[:, None], self.b[:, None], z[None, :])

    def pdf(self, x: NDArray) -> NDArray:
        z = np.clip((x - self.lo) / self.width, 1e-300, 1.0 - 1e-16)[None, :]
        a, b = self.a[:, None], self.b[:, None]
        with np.errstate(over="ignore"):
            dens = np.exp(xlogy(a - 1.0, z) + xlog1py(b - 1.0, -z) - self.log_norm[:, None])
        return self.weights @ dens


def _mixture_roots(
    cdf: Callable[[NDArray], NDArray],
    pdf: Callable[[NDArray], NDArray],
    p: NDArray,
    mean: float,
    sd: float,
    lo: float,
    hi: float,
    *,
    start: NDArray | None = None,
    tol: float = 1e-6,
) -> NDArray:
    """Roots of ``cdf(x) = p`` in ``[lo, hi]`` (vectorised over ``p``), to ``tol`` sd.

    A Newton step on ``pdf`` from ``start`` (default: the normal quantiles of ``mean``,
    ``sd``), then secant steps through the last two points, kept inside a shrinking bracket
    (bisection when a step leaves it). A root within ``tol`` sd of an end is that end.
    """
    p = np.clip(p, 1e-15, 1.0 - 1e-15)
    tol = tol * sd
    # a root within tol of an end is that end (bisecting towards it would take ~20 steps)
    ends = cdf(np.array([lo + tol, hi - tol]))
    at_lo, at_hi = ends[0] >= p, ends[1] < p
    a = np.where(at_lo, lo, lo + tol)
    b = np.where(at_hi, hi, hi - tol)
    x = np.clip(mean + sd * ndtri(p), lo + 1e-3 * (hi - lo), hi - 1e-3 * (hi - lo))
    if start is not None:
        x = np.clip(start, lo + tol, hi - tol)
    x = np.where(at_lo, lo, np.where(at_hi, hi, x))
    done = at_lo | at_hi
    x_old = f_old = None
    for _ in range(100):
        if done.all():
            break
        f = cdf(x) - p
        a = np.where(done | (f >= 0), a, x)
        b = np.where(done | (f < 0), b, x)
        done |= (np.abs(f) < 1e-12) | (b - a < tol)
        if done.all():
            break
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            if x_old is None:
                step = x - f / pdf(x)
            else:
                step = x - f * (x - x_old) / (f - f_old)
        inside = np.isfinite(step) & (step > a) & (step < b)
        step = np.where(inside, step, 0.5 * (a + b))
        x_old, f_old = x, f
        done |= np.abs(step - x) < tol
        x = np.where(done, x, step)
    return np.clip(x, lo, hi)
