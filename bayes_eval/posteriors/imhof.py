r"""The exact CDF of one question's score :math:`w\cdot\pi`, :math:`\pi \sim \mathrm{Dir}(\nu)`.

Step 2 of :mod:`bayes_eval.posteriors.exact`. With the categories of equal weight merged into
levels :math:`v_0 < \dots < v_K`:

* :math:`K = 1`: a scaled Beta CDF;
* :math:`K \ge 2`: :math:`P(Y \le y) = P(\sum_k (v_k - y) G_k \le 0)` with independent
  :math:`G_k \sim \mathrm{Gamma}(\nu_k)` (the Dirichlet as normalised Gammas), by the
  inversion formula of Gil-Pelaez, "Note on the inversion theorem", in the form of Imhof,
  "Computing the distribution of quadratic forms in normal variables":
  :math:`P(X \le 0) = \tfrac12 - \tfrac1\pi\int_0^\infty \sin\theta(t)/(t\rho(t))\,dt`,
  :math:`\theta = \sum_k \nu_k \arctan(c_k t)`,
  :math:`\rho = \prod_k (1 + c_k^2 t^2)^{\nu_k/2}`, integrated by the trapezoidal rule in
  :math:`\log t` on the nodes :data:`IMHOF_LOG_T` (``_imhof_exact``; absolute error below
  1e-9).

Long vectors of points use a cubic spline through exact values (``_interpolant``), and
cell averages of the CDF (the lattice CDF under linear binning) the antiderivative of that
spline or, for two levels, a closed form (``_cell_means``). ``_dist_cdf`` and ``_dist_ppf``
are the exact CDF and quantile of the distance of :math:`w\cdot\pi` from the lower end of its
support.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray
from scipy.special import betainc, betaincinv

if TYPE_CHECKING:
    from scipy.interpolate import CubicSpline

__all__ = ["IMHOF_LOG_T"]

#: trapezoid nodes in log t (scaled by the sd of X) of the Gil-Pelaez/Imhof integral
IMHOF_LOG_T = np.arange(-22.0, 700.0, 0.08)
_MAX_INVERSIONS = 256  # Chebyshev points per window where the CDF is inverted exactly


def _imhof_exact(y: NDArray, levels: NDArray, nu: NDArray) -> NDArray:
    """``P(sum_k levels_k pi_k <= y)`` for ``pi ~ Dir(nu)``, ``levels`` ascending (K >= 2)."""
    y = np.asarray(y, dtype=float)
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
    # upper end of the log-t range grows with the spread of |c_k| scale (rows near a level);
    # rows are sorted by it so that a block does not inherit a long range from one row
    ac = np.abs(c) * scale[:, None]
    small = np.where(ac > 0, ac, np.inf).min(axis=1)
    s_need = 30.0 / float(nu.sum()) + 4.0 + np.maximum(0.0, -np.log(np.maximum(small, 1e-300)))
    order = np.argsort(s_need)
    step = IMHOF_LOG_T[1] - IMHOF_LOG_T[0]
    res = np.empty(c.shape[0])
    for start in range(0, c.shape[0], 256):
        rows = order[start : start + 256]
        log_t = IMHOF_LOG_T[IMHOF_LOG_T <= min(IMHOF_LOG_T[-1], s_need[rows].max())]
        t = scale[rows, None] * np.exp(log_t)[None, :]  # (g, Q)
        theta = np.zeros(t.shape)
        log_rho = np.zeros(t.shape)  # 2 log rho
        for k in range(levels.size):  # 2-d temporaries, one level at a time (K is small)
            x = c[rows, k, None] * t
            theta += nu[k] * np.arctan(x)
            if np.abs(x).max() >= 1e150:  # log(1 + x^2) = 2 log m + log(1 + (x/m^2)^2)
                m = np.maximum(np.abs(x), 1.0)
                x = np.abs(x) / m / m
                x *= x
                np.log1p(x, out=x)
                x += 2.0 * np.log(m)
            else:
                x *= x
                np.log1p(x, out=x)
            log_rho += nu[k] * x
        integrand = np.sin(theta) * np.exp(-0.5 * log_rho)  # sin(theta)/(t rho) * dt/dlog t
        res[rows] = integrand.sum(axis=-1) * step
    out[inner] = np.clip(0.5 - res / np.pi, 0.0, 1.0)
    return out


def _knots(lo: float, hi: float, levels: NDArray, h: float, n_cheb: int) -> NDArray:
    """Interpolation knots on ``[lo, hi]``.

    Chebyshev-Lobatto points (dense at the ends, where a CDF can behave like y^a) and, around
    every level, points graded geometrically (distances ``h 2^(k/2)`` from ``h / 4096`` to
    ``h``, then ``h 2^(k/3)`` up to the window width), where the density can be infinite or
    kinked. A knot much closer to its left neighbour than to its right one (a near-coincidence
    of the two families) is dropped: a spline through CDF values with 1e-10 noise would wiggle
    there.
    """
    cheb = lo + (hi - lo) * (0.5 - 0.5 * np.cos(np.linspace(0.0, np.pi, n_cheb)))
    octaves = np.log2(max(hi - lo, h) / h)
    offsets = h * 2.0 ** np.concatenate(
        [np.arange(-12.0, 0.0, 0.5), np.arange(0.0, octaves + 0.4, 1 / 3)]
    )
    near = (levels[:, None] + np.concatenate([-offsets, [0.0], offsets])[None, :]).ravel()
    knots = np.concatenate([cheb, near, [lo, hi]])
    knots = np.unique(knots[(knots >= lo) & (knots <= hi)])
    fixed = np.isin(knots, levels) | (knots == lo) | (knots == hi)
    for _ in range(3):
        gap = np.diff(knots)
        crowded = np.concatenate([[False], gap[:-1] < 0.2 * gap[1:], [False]]) & ~fixed
        if not crowded.any():
            break
        knots, fixed = knots[~crowded], fixed[~crowded]
    return knots


def _interpolant(
    lo: float, hi: float, levels: NDArray, nu: NDArray, h: float, n_cheb: int = _MAX_INVERSIONS
) -> CubicSpline:
    """Cubic spline (not-a-knot) through exact CDF values at :func:`_knots`.

    Measured against exact values: cell-averaged CDF errors of 1e-8 for smooth laws and up to
    1e-5 within a few cells of a level where the density is infinite (concentrations 0.05); a
    monotone (PCHIP) interpolant was 10-100 times less accurate.
    """
    knots = _knots(lo, hi, levels, h, n_cheb)
    from scipy.interpolate import CubicSpline  # imported here: 0.3 s at startup otherwise

    return CubicSpline(knots, np.maximum.accumulate(_imhof_exact(knots, levels, nu)))


def _imhof_cdf(y: NDArray, levels: NDArray, nu: NDArray) -> NDArray:
    """``P(sum_k levels_k pi_k <= y)`` for ``pi ~ Dir(nu)`` and a vector of ``y`` (K >= 2).

    Long increasing vectors are evaluated exactly at ``_MAX_INVERSIONS`` Chebyshev points, the
    levels and points graded around them, and interpolated by a cubic spline in between
    (:func:`_interpolant`), made monotone.
    """
    if y.size > _MAX_INVERSIONS and np.all(np.diff(y) > 0):
        spline = _interpolant(y[0], y[-1], levels, nu, (y[-1] - y[0]) / y.size)
        return np.maximum.accumulate(np.clip(spline(y), 0.0, 1.0))
    return _imhof_exact(y, levels, nu)


def _dist_cdf(d: NDArray, c: NDArray, b: NDArray) -> NDArray:
    """``P(c.pi <= d)`` for ``pi ~ Dir(b)``, ``c`` ascending with ``c[0] = 0`` (exact)."""
    d = np.asarray(d, dtype=float)
    if c.size == 2:
        return betainc(b[1], b[0], np.clip(d / c[1], 0.0, 1.0))
    return _imhof_exact(d, c, b)


def _dist_ppf(p: float, c: NDArray, b: NDArray) -> float:
    """The ``p`` quantile of ``c.pi`` (``c[0] = 0``): exact inversion."""
    if p <= 0.0:
        return 0.0
    if p >= 1.0:
        return float(c[-1])
    if c.size == 2:
        return float(c[1] * betaincinv(b[1], b[0], p))
    # root in log d: the quantile can be 1e-30 c[-1] and beyond (CDF ~ d^a, a small)
    lo = np.log(c[-1]) - 690.0
    if _imhof_exact(np.array([np.exp(lo)]), c, b)[0] >= p:
        return float(np.exp(lo))

    def f(u: float) -> float:
        return float(_imhof_exact(np.array([np.exp(u)]), c, b)[0]) - p

    from scipy.optimize import brentq  # imported here: 0.3 s at startup otherwise

    return float(np.exp(brentq(f, lo, np.log(c[-1]), xtol=1e-13, rtol=1e-13)))


def _cell_means(
    edges: NDArray, c: NDArray, b: NDArray, window: tuple[float, float], n_cheb: int = 192
) -> NDArray:
    r"""Mean of ``F(d) = P(c.pi <= d)`` over each cell ``[edges[i], edges[i + 1]]``.

    ``F`` averaged over a cell is the lattice CDF at the cell's left point under linear binning.
    Computed as differences of :math:`G(d) = \int_{-\infty}^d F`: in closed form for two levels;
    otherwise the antiderivative of a cubic spline through exact values on ``window`` (outside
    it ``F`` is taken as its value at the window's end, which leaves out at most 1e-14).
    """
    width = float(c[-1])
    if c.size == 2:
        a, bb = b[1], b[0]
        z = np.clip(edges / width, 0.0, 1.0)
        # E[(z - pi)_+] = z I_z(a, b) - a/(a+b) I_z(a+1, b), linear beyond the support
        f = betainc(a, bb, z)
        g = width * (z * f - a / (a + bb) * betainc(a + 1.0, bb, z)) + (edges - width * z) * f
    else:
        lo, hi = window
        h = float(np.median(np.diff(edges))) if edges.size > 1 else hi - lo
        spline = _interpolant(lo, hi, c, b, h, n_cheb)
        anti = spline.antiderivative()
        inside = np.clip(edges, lo, hi)
        g = anti(inside) + (edges - inside) * np.clip(spline(inside), 0.0, 1.0)
    dg = np.diff(g)
    return np.clip(dg / np.diff(edges), 0.0, 1.0)


def _level_cdf(y: NDArray, levels: NDArray, beta: NDArray) -> NDArray:
    if levels.size == 1:
        return (y >= levels[0]).astype(float)
    if levels.size == 2:
        z = np.clip((y - levels[0]) / (levels[1] - levels[0]), 0.0, 1.0)
        return betainc(beta[1], beta[0], z)
    return _imhof_cdf(y, levels, beta)
