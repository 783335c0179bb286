r"""Per-question lattice laws of the exact posterior of pi-bar (linear binning).

Steps 1 and 3 of :mod:`bayes_eval.exact_posterior` (Hariri et al., "Don't Pass@k: A Bayesian
Framework for Large Language Model Evaluation", Appendix A, gives the per-question Dirichlet
posteriors). Questions are merged into groups of identical ones (:func:`_questions`), each
in the form :math:`X = s\,w\cdot\pi + t` with :math:`s > 0` (:class:`_Question`). A question
is discretised on a lattice of step ``h`` by linear binning: the mass at :math:`y` between
lattice points :math:`x_j < y < x_{j+1}` is split in proportion
:math:`(x_{j+1} - y) : (y - x_j)`, so that :math:`E[\tilde X \mid X] = X`
(:func:`_lattice_pmf`, over the window of :func:`_window`); :func:`_near_pmf` bins the
distance from the most probable level for the refinements at the spike.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from bayes_eval.exact_imhof import _cell_means, _dist_cdf, _dist_ppf, _imhof_exact

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
        """Index of the most probable level (largest concentration): the only level where the
        density can be infinite when every question has a trial (its exponent is below 1)."""
        return int(np.argmax(self.beta))

    def end_form(self, end: int) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """Levels and concentrations of the distance of ``w.pi`` from its lower (``end=0``) or
        upper (``end=1``) end: ``c`` ascending with ``c[0] = 0``."""
        if end == 0:
            return self.levels - self.levels[0], self.beta
        return self.levels[-1] - self.levels[::-1], self.beta[::-1]


def _window(q: _Question, h: float) -> tuple[float, float]:
    """Distances from the lower end covering all but 2e-14 of the question's mass: the mean
    +- 20 sd, widened to the 1e-14 and 1 - 1e-14 quantiles where those lie outside, by at
    most ``_MAX_WIDENING`` cells (only reached for concentrations far below 0.05)."""
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
    """Linear binning, on the points ``j step`` (``|j| <= n``, units of the result), of the
    distance ``D`` of one question from its anchor level, truncated to ``|D| <= n step``
    (a sub-probability). Returns the first index and the masses."""
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


def _questions(levels, beta, scale, shift, m) -> tuple[tuple[_Question, ...], float]:
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
