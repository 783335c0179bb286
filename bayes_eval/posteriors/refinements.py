r"""Refinements of the lattice law of pi-bar near the ends of its support and at its spike.

Steps 6-8 of :mod:`bayes_eval.posteriors.exact`.
:class:`~bayes_eval.posteriors.exact.ExactPosterior` interpolates its lattice; a value within
512 cells of an end is recomputed from that end on lattices of distances
(``_LatticeLaw.end_cdf``: each question's law truncated there, exact truncated products of
transforms), a value within 64 cells of the sum of the most probable levels on nested finer
lattices (``_LatticeLaw.spike_cdf``), and with one question the exact CDF is inverted directly
(``_single_ppf``, ``_single_cdf``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray
from scipy import fft as sfft

from bayes_eval.posteriors.imhof import _cell_means, _dist_cdf, _dist_ppf
from bayes_eval.posteriors.lattice import _near_pmf, _Question

#: Private engines only: the public names live in the modules that use them.
__all__: list[str] = []

_ZOOM_CELLS = 4096  # cells of the lattice of distances from an end of the support
_ZOOM_TRIGGER = 512  # quantiles closer than this many cells to an end are recomputed there
_SPIKE_CELLS = 64  # quantiles closer than this many cells to the spike are recomputed there


def _full_product(a: NDArray, p: NDArray, k: int) -> NDArray:
    """``a`` convolved with ``k`` copies of ``p`` (no truncation)."""
    size = a.size + k * (p.size - 1)
    n_fft = sfft.next_fast_len(size, real=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        spec = sfft.rfft(a, n_fft) * np.exp(k * np.log(sfft.rfft(p, n_fft).astype(complex)))
    return np.clip(sfft.irfft(np.nan_to_num(spec), n_fft)[:size], 0.0, None)


#: pieces ``(sign, edges, cdf)`` whose sum is the CDF of ``pi-bar - spike``
_Pieces = list[tuple[float, NDArray, NDArray]]


@dataclass(frozen=True)
class _LatticeLaw:
    """What the refinements of :class:`ExactPosterior` need.

    The question groups, the support of the sum and the point where its law can concentrate.
    """

    questions: tuple[_Question, ...]
    const: float  # sum of the questions with zero slope
    lower: float
    upper: float
    step: float
    # the lattice before Sheppard's correction, and the sum of the anchor levels ``spike``,
    # where the law can concentrate (None when it cannot: exponents summing to 2 or more)
    raw: tuple[NDArray, NDArray] | None = None
    spike: float | None = None

    @property
    def n_random(self) -> int:
        return sum(q.count for q in self.questions)

    def end_cdf(self, end: int, r_max: float) -> tuple[NDArray, NDArray]:
        """CDF of the distance of pi-bar from its lower (``end=0``) or upper end.

        On ``[0, r_max]``: edges ``(j + 1/2) r_max / n`` and the CDF there.

        Exact truncation: a distance ``<= r`` needs every question within ``r`` of its end, so
        each question's law is needed only there (linear binning, lattice point 0 at the end).
        """
        n = _ZOOM_CELLS
        hz = r_max / n
        total = np.zeros(n)
        total[0] = 1.0
        for q in self.questions:
            c, b = q.end_form(end)
            edges = np.arange(n + 1) * (hz / q.slope)
            cum = _cell_means(edges, c, b, (0.0, min(float(c[-1]), edges[-1])))
            pmf = np.clip(np.diff(np.concatenate([[0.0], cum])), 0.0, None)  # points 0..n-1
            total = _truncated_product(total, _truncated_power(pmf, q.count))
        cdf = np.minimum(np.cumsum(total), 1.0)
        return (np.arange(n) + 0.5) * hz, cdf

    def end_quantile(self, p: float, end: int, guess: float) -> float:
        """Distance ``r`` from the end with ``P(distance <= r) = p``, on shrinking scales."""
        width = self.upper - self.lower
        r_max = min(width, max(guess, 8.0 * self.step))
        for _ in range(200):
            edges, cdf = self.end_cdf(end, r_max)
            hz = r_max / _ZOOM_CELLS
            if cdf[-2] < p and r_max < width:
                r_max = min(width, 4.0 * r_max)
                continue
            keep = np.concatenate([[True], np.diff(cdf) > 0])
            r = float(np.interp(p, cdf[keep], edges[keep]))
            if p <= cdf[0]:  # within the first cell: only r < hz / 2 is known
                r_max = 4.0 * hz
                continue
            if r >= r_max / 8.0 or r_max >= width:
                return max(r, 0.0)
            r_max = 2.0 * r
        return max(r, 0.0)  # pragma: no cover - the scale shrinks by >= 4 per pass

    def near_sum(self, n: int, step: float) -> tuple[NDArray, NDArray]:
        """Edges and CDF of the sum of the questions' distances from their anchors.

        Each distance is truncated to ``n`` cells of ``step`` (lattice point 0 at
        :attr:`spike`).
        """
        first, total = 0, np.array([1.0])
        for q in self.questions:
            j0, pmf = _near_pmf(q, n, step)
            first += q.count * j0
            total = _full_product(total, pmf, q.count)
        edges = (first - 0.5 + np.arange(total.size + 1)) * step
        return edges, np.concatenate([[0.0], np.cumsum(total)])

    def _spike_start(self) -> tuple[_Pieces, float]:
        assert self.raw is not None and self.spike is not None  # called only at a spike
        edges_raw, cum_raw = self.raw
        return [(1.0, edges_raw - self.spike, cum_raw)], float(edges_raw[1] - edges_raw[0])

    def _spike_refine(self, pieces: _Pieces, h: float) -> tuple[_Pieces, float]:
        """One level finer around the spike.

        Every question's law is split into its part within ``delta = 4 Z h`` of its anchor and
        the rest (``Z = _SPIKE_CELLS``). The sum with some question beyond ``delta`` has a
        density smooth on that scale and is kept from the previous level (step ``h``); the sum
        of the truncated laws, whose density can be infinite at 0, is recomputed with step
        ``h / 8``: ``F_new = F - N(delta, h) + N(delta, h / 8)``, valid for ``|x| <= Z h``.
        ``pieces`` are ``(sign, edges, cdf)`` whose sum is the CDF of ``pi-bar - spike``.
        """
        n = 4 * _SPIKE_CELLS
        coarse = (-1.0, *self.near_sum(n, h))
        fine = (1.0, *self.near_sum(8 * n, h / 8))
        return [*pieces, coarse, fine], h / 8

    def spike_cdf(self, x: NDArray) -> NDArray:
        """``P(pi-bar - spike <= x)`` for ``|x|`` below ``_SPIKE_CELLS`` lattice cells.

        Each value comes from the first level whose step ``h`` has ``Z h <= |x|`` (at most 20
        levels).
        """
        pieces, h = self._spike_start()
        out = np.empty(x.size)
        todo = np.ones(x.size, dtype=bool)
        for level in range(20):
            pieces, h = self._spike_refine(pieces, h)
            now = todo if level == 19 else todo & (np.abs(x) >= _SPIKE_CELLS * h)
            out[now] = sum(sg * np.interp(x[now], e, c) for sg, e, c in pieces)
            todo &= ~now
            if not todo.any():
                break
        return np.clip(out, 0.0, 1.0)

    def spike_quantile(self, p: float, guess: float) -> float:
        """``x`` with ``P(pi-bar - spike <= x) = p``, refining until ``|x| >= Z h``."""
        pieces, h = self._spike_start()
        x = guess
        for _ in range(20):
            if abs(x) >= _SPIKE_CELLS * h:
                break
            pieces, h = self._spike_refine(pieces, h)
            grid = (np.arange(-8 * _SPIKE_CELLS, 8 * _SPIKE_CELLS) + 0.5) * h
            cdf = sum(sg * np.interp(grid, e, c) for sg, e, c in pieces)
            cdf = np.maximum.accumulate(np.clip(cdf, 0.0, 1.0))
            if not cdf[0] <= p <= cdf[-1]:
                break
            keep = np.concatenate([[True], np.diff(cdf) > 0])
            x = float(np.interp(p, cdf[keep], grid[keep]))
        return x

    def end_cdf_many(self, dist: NDArray, end: int) -> NDArray:
        """``P(distance from the end <= dist)`` for an array of small positive ``dist``.

        One lattice of distances per factor 8 of ``dist`` (each value at >= 256 of its cells).
        """
        out = np.zeros(dist.size)
        remaining = np.argsort(dist)[::-1]  # largest first
        while remaining.size:
            r_max = 2.0 * dist[remaining[0]]
            edges, cdf = self.end_cdf(end, r_max)
            done = dist[remaining] >= r_max / 16.0
            idx = remaining[done]
            out[idx] = np.interp(dist[idx], np.r_[0.0, edges], np.r_[0.0, cdf])
            remaining = remaining[~done]
        return out


def _truncated_product(a: NDArray, b: NDArray) -> NDArray:
    n = a.size
    size = sfft.next_fast_len(2 * n - 1, real=True)
    out = sfft.irfft(sfft.rfft(a, size) * sfft.rfft(b, size), size)[:n]
    return np.clip(out, 0.0, None)


def _truncated_power(p: NDArray, k: int) -> NDArray:
    result = None
    base = p
    while k:
        if k & 1:
            result = base if result is None else _truncated_product(result, base)
        k >>= 1
        if k:
            base = _truncated_product(base, base)
    assert result is not None  # k >= 1
    return result


def _single_ppf(law: _LatticeLaw, p: float) -> float:
    (q,) = law.questions
    if p <= 0.5:
        c, b = q.end_form(0)
        return q.lo + law.const + q.slope * _dist_ppf(p, c, b)
    c, b = q.end_form(1)
    return q.hi + law.const - q.slope * _dist_ppf(1.0 - p, c, b)


def _single_cdf(law: _LatticeLaw, values: NDArray) -> NDArray:
    (q,) = law.questions
    v = values - law.const
    out = np.empty(v.shape)
    low = v - q.lo <= q.hi - v  # from the nearer end, for precision
    c, b = q.end_form(0)
    out[low] = _dist_cdf((v[low] - q.lo) / q.slope, c, b)
    c, b = q.end_form(1)
    out[~low] = 1.0 - _dist_cdf((q.hi - v[~low]) / q.slope, c, b)
    return out
