"""The learned prior's coarser atoms at the quadrature nodes (``prior_statistics._coarsen``): the dyadic
panels of graded counts below half the smallest node concentration merged into one, against the
sum over every question."""

from __future__ import annotations

import numpy as np
from scipy.special import gammaln

from bayes_eval.posteriors import prior_statistics
from bayes_eval.posteriors.prior_statistics import _compress


def _board(rng, g: int, m: int, grades: int) -> np.ndarray:
    """Fractional counts (1 - s, s) of g models on m questions, every score one of `grades`
    shared values (some tiny, so that the small dyadic panels are used), a fifth 0 or 1."""
    levels = np.concatenate([rng.beta(0.5, 0.5, grades - 6), 10.0 ** -np.arange(3.0, 9.0)])
    s = levels[rng.integers(0, levels.size, size=(g, m))]
    s[:, : m // 10] = 0.0
    s[:, m // 10 : m // 5] = 1.0
    return np.stack([1.0 - s, s], axis=-1)


def _sums(x, w, b):
    """sum_i w_i [log Gamma(b + x_i) - log Gamma(b)] per group and column, for each b."""
    return np.einsum("gka,jgka->jgk", w, gammaln(b[..., None] + x) - gammaln(b[..., None]))


def test_coarse_atoms_are_the_sums_over_questions_for_large_arguments():
    # for arguments b >= low the panels below low / 2 merge into one (prior_statistics._coarsen): far
    # fewer atoms, and the sums still those over every question (1e-7 absolute on sums of
    # size 1e3-1e4, as for the dyadic atoms: the merged panel's error bound is theirs)
    rng = np.random.default_rng(9)
    counts = _board(rng, 10, 800, 300)
    data = _compress(counts)
    low = np.full((10, 2), 0.2)
    coarse = prior_statistics._coarsen(data, low)
    assert coarse.x.shape[-1] < data.x.shape[-1] - 30
    b = low * np.exp(rng.uniform(0.0, np.log(5e4), size=(40, 10, 2)))  # from low to 1e4
    brute = (gammaln(b[..., None] + counts.transpose(0, 2, 1)) - gammaln(b[..., None])).sum(-1)
    np.testing.assert_allclose(_sums(coarse.x, coarse.mult, b), brute, rtol=0, atol=1e-7)
    np.testing.assert_allclose(_sums(data.x, data.mult, b), brute, rtol=0, atol=1e-7)
