r"""Per-question lattice laws of pi-bar, and the law of their sum by FFT.

Steps 1, 3 and 4 of :mod:`bayes_eval.posteriors.exact`. Questions are merged into groups of
identical ones (``_questions``; categories of equal weight merged into levels by ``_group``),
each in the form :math:`X = s\,w\cdot\pi + t` with :math:`s > 0` (``_Question``). A question
is discretised on a lattice of step ``h`` by linear binning: the mass at :math:`y` between
lattice points :math:`x_j < y < x_{j+1}` is split in proportion
:math:`(x_{j+1} - y) : (y - x_j)`, so that :math:`E[\tilde X \mid X] = X` (``_lattice_pmf``,
over the window of ``_window``); ``_near_pmf`` bins the distance from the most probable level
for the refinements at the spike. The groups' lattice laws are convolved by one FFT, each
transform raised to its group's multiplicity (``_sum_pmf``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray
from scipy import fft as sfft

from bayes_eval.posteriors.imhof import _cell_means, _dist_cdf, _dist_ppf, _imhof_exact

#: Private engines only: the public names live in the modules that use them.
__all__: list[str] = []

_NO_WRAP_CELLS = 2**15  # up to this length the sum is computed over all its lattice points
_SD_WINDOW = 20.0  # per-question window, in posterior sd (widened if it leaves out mass)
_NEGLIGIBLE = 1e-14  # mass a per-question window may leave out
_MAX_WIDENING = 2**14  # cells by which a window may be widened beyond mean +- 20 sd


@dataclass(frozen=True)
class _Question:
    """A group of ``count`` identical questions ``X = slope * w.pi + intercept`` (slope > 0).

    ``levels`` are ascending and ``beta`` the aggregated concentrations.
    """

    levels: NDArray[np.float64]
    beta: NDArray[np.float64]
    slope: float
    intercept: float
    count: int

    @property
    def lo(self) -> float:
        return self.slope * self.levels[0] + self.intercept

    @property
    def hi(self) -> float:
        return self.slope * self.levels[-1] + self.intercept

    def moments(self) -> tuple[float, float]:
        """Mean and sd of X."""
        total = self.beta.sum()
        p = self.beta / total
        mean = float(p @ self.levels)
        var = float((p * (self.levels - mean) ** 2).sum() / (total + 1.0))
        return self.slope * mean + self.intercept, self.slope * np.sqrt(var)

    @property
    def anchor(self) -> int:
        """Index of the most probable level (largest concentration).

        The only level where the density can be infinite when every question has a trial (its
        exponent is below 1).
        """
        return int(np.argmax(self.beta))

    def end_form(self, end: int) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """Levels and concentrations of the distance of ``w.pi`` from one end.

        The lower (``end=0``) or upper (``end=1``) end: ``c`` ascending with ``c[0] = 0``.
        """
        if end == 0:
            return self.levels - self.levels[0], self.beta
        return self.levels[-1] - self.levels[::-1], self.beta[::-1]


def _window(q: _Question, h: float) -> tuple[float, float]:
    """Distances from the lower end covering all but 2e-14 of the question's mass.

    The mean +- 20 sd, widened to the 1e-14 and 1 - 1e-14 quantiles where those lie outside,
    by at most ``_MAX_WIDENING`` cells (only reached for concentrations far below 0.05).
    """
    c, b = q.end_form(0)
    mean, sd = q.moments()
    m_d = (mean - q.lo) / q.slope
    s_d = sd / q.slope
    lo = max(0.0, m_d - _SD_WINDOW * s_d)
    hi = min(float(c[-1]), m_d + _SD_WINDOW * s_d)
    f_lo, f_hi = _dist_cdf(np.array([lo, hi]), c, b)
    widen = _MAX_WIDENING * h / q.slope
    if f_lo > _NEGLIGIBLE:
        lo = max(_dist_ppf(_NEGLIGIBLE, c, b), lo - widen)
    if 1.0 - f_hi > _NEGLIGIBLE:
        c_up, b_up = q.end_form(1)
        hi = min(float(c[-1]) - _dist_ppf(_NEGLIGIBLE, c_up, b_up), hi + widen)
    return lo, hi


def _lattice_pmf(q: _Question, h: float) -> tuple[int, float, NDArray]:
    """Linear binning of one question on the points ``(j + frac) h``.

    Returns the first index ``j0``, ``frac`` in [0, 1) (the most probable level is a lattice
    point) and the masses of the points ``j0, j0 + 1, ...``.
    """
    c, b = q.end_form(0)
    anchor = q.lo + q.slope * c[int(np.argmax(b))]
    frac = anchor / h - np.floor(anchor / h)
    lo, hi = _window(q, h)
    j0 = int(np.floor((q.lo + q.slope * lo) / h - frac))
    j1 = int(np.ceil((q.lo + q.slope * hi) / h - frac))
    j1 = max(j1, j0 + 1)
    points = (np.arange(j0, j1 + 1) + frac) * h
    cum = _cell_means((points - q.lo) / q.slope, c, b, (lo, hi))  # CDF at cells j0..j1-1
    pmf = np.diff(np.concatenate([[0.0], cum, [1.0]]))
    return j0, float(frac), np.clip(pmf, 0.0, None)


def _near_pmf(q: _Question, n: int, step: float) -> tuple[int, NDArray]:
    """Linear binning of the distance ``D`` of one question from its anchor level.

    The points are ``j step`` (``|j| <= n``, units of the result), and the distance is
    truncated to ``|D| <= n step`` (a sub-probability). Returns the first index and the
    masses.
    """
    k = q.anchor
    s_y = step / q.slope
    if k in (0, q.levels.size - 1):  # one-sided: distance from an end
        c, b = q.end_form(0 if k == 0 else 1)
        edges = np.arange(n + 1) * s_y
        cum = _cell_means(edges, c, b, (0.0, min(float(c[-1]), edges[-1])))
        f_hi = _dist_cdf(edges[-1:], c, b)[0]
        pmf = np.clip(np.diff(np.concatenate([[0.0], cum, [f_hi]])), 0.0, None)
        return (0, pmf) if k == 0 else (-n, pmf[::-1])
    c = q.levels - q.levels[k]  # two-sided: an interior level (three or more levels)
    edges = np.arange(-n, n + 1) * s_y
    window = (max(float(c[0]), edges[0]), min(float(c[-1]), edges[-1]))
    cum = _cell_means(edges, c, q.beta, window)
    f_lo, f_hi = _imhof_exact(edges[[0, -1]], c, q.beta)
    return -n, np.clip(np.diff(np.concatenate([[f_lo], cum, [f_hi]])), 0.0, None)


def _group(nu: NDArray, w: NDArray) -> tuple[NDArray, NDArray]:
    levels, inverse = np.unique(w, return_inverse=True)
    beta = np.zeros((nu.shape[0], levels.size))
    for j, g in enumerate(inverse):
        beta[:, g] += nu[:, j]
    return levels, beta


def _question_moments(
    levels: NDArray, beta: NDArray, scale: NDArray, shift: NDArray, m: int
) -> tuple[NDArray, NDArray]:
    total = beta.sum(axis=1)
    p = beta / total[:, None]
    mean = p @ levels
    var = (p * (levels[None, :] - mean[:, None]) ** 2).sum(axis=1) / (total + 1.0)
    return (scale * mean + shift) / m, np.abs(scale) * np.sqrt(var) / m


def _questions(
    levels: NDArray, beta: NDArray, scale: NDArray, shift: NDArray, m: int
) -> tuple[tuple[_Question, ...], float]:
    """Groups of identical questions in the form ``slope > 0``, and the constant part."""
    keys = np.column_stack([beta, scale, shift])
    _, first, mult = np.unique(keys, axis=0, return_index=True, return_counts=True)
    out, const = [], 0.0
    for idx, k in zip(first, mult, strict=True):
        s, t = scale[idx] / m, shift[idx] / m
        if s == 0.0:
            const += k * t
        elif s > 0:
            out.append(_Question(levels, beta[idx], float(s), float(t), int(k)))
        else:  # s w.pi + t = |s| (-w).pi + t
            out.append(_Question(-levels[::-1], beta[idx, ::-1], float(-s), float(t), int(k)))
    return tuple(out), const


def _sum_pmf(
    pmfs: list[NDArray], mult: NDArray, half: int, centre: float
) -> tuple[NDArray, NDArray]:
    """The lattice law of the sum of the groups' lattice laws, by FFT (step 4).

    ``pmfs[i]`` are the masses of group ``i`` at consecutive lattice points (relative index 0
    at the sum of the groups' first points), counted ``mult[i]`` times. The product of their
    transforms, each raised to its multiplicity in polar form (a zero stays a zero), is taken
    over all the points of the sum when they fit in ``2 half + 1`` points or number at most
    ``_NO_WRAP_CELLS``; otherwise the circular convolution over ``2 half + 1`` points is
    unwrapped around the relative index ``centre`` (the known mean). Returns the relative
    indices (ascending, as floats) and their masses, not normalised.
    """
    total_len = int(sum(k * (p.size - 1) for p, k in zip(pmfs, mult, strict=True))) + 1
    n_fft = max(2 * half + 1, max(p.size for p in pmfs))
    wrap = total_len > max(n_fft, _NO_WRAP_CELLS)
    n_fft = sfft.next_fast_len(n_fft if wrap else total_len, real=True)
    # product of spectra raised to the multiplicities, in polar form (a zero stays a zero)
    log_abs = np.zeros(n_fft // 2 + 1)
    phase = np.zeros(n_fft // 2 + 1)
    with np.errstate(divide="ignore"):
        for p, k in zip(pmfs, mult, strict=True):
            spec = sfft.rfft(p, n_fft)
            log_abs += k * np.log(np.abs(spec))
            phase += k * np.angle(spec)
    pmf = np.clip(sfft.irfft(np.exp(log_abs) * np.exp(1j * phase), n_fft), 0.0, None)
    index = np.arange(n_fft, dtype=float)
    if wrap:  # residue r stands for index r + n_fft * round((centre - r) / n_fft)
        index = index + n_fft * np.round((centre - index) / n_fft)
        order = np.argsort(index)
        index, pmf = index[order], pmf[order]
    return index, pmf
