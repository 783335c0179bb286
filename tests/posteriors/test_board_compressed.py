"""The board step on graded complete boards: the question totals compressed to Chebyshev
points per panel (bayes_eval.posteriors.board._chebyshev_panels), against the objective over
every distinct total."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.special import expit

from bayes_eval.posteriors import board as bd


def _rates(seed: int, n_models: int, m: int, difficulty_sd: float = 1.5) -> np.ndarray:
    """Graded rates y (L, M): Beta scores around a Rasch mean, a fifth full or no credit."""
    rng = np.random.default_rng(seed)
    p = expit(rng.normal(0.0, 0.8, n_models)[:, None] - rng.normal(0.0, difficulty_sd, m))
    y = rng.beta(4.0 * p + 1e-3, 4.0 * (1.0 - p) + 1e-3)
    ends = rng.random(y.shape) < 0.2
    y[ends] = (rng.random(int(ends.sum())) < p[ends]).astype(float)
    return y


def _totals(y):
    c_vals, c_mult = np.unique((1.0 - y).sum(axis=0), return_counts=True)
    return c_vals, c_mult.astype(float), (1.0 - y).sum(axis=1)


@pytest.mark.parametrize("s", [0.3, 1.0, 2.5])
def test_panels_reproduce_the_objective_and_its_derivatives(s):
    # the sums over ~800 distinct totals from far fewer atoms: value within 1e-9 relative,
    # gradient and Hessian within 1e-7 of the Hessian's largest entry (measured worst over
    # graded boards of 20-93 models: 7e-10 and 5e-8, module docstring of board), at
    # abilities off the optimum too
    y = _rates(1, 40, 800)
    c_vals, c_mult, miss = _totals(y)
    half = 2.0 ** np.floor(np.log2(bd._C_REACH / s))
    pts, wts = bd._chebyshev_panels(c_vals, c_mult, half)
    assert 2 * pts.size < c_vals.size
    assert wts.sum() == pytest.approx(c_mult.sum(), rel=1e-12)  # constants are exact
    rate = (y.sum(1) + 0.5) / (y.shape[1] + 1.0)
    for theta in (np.log(rate / (1 - rate)), np.linspace(-3.0, 3.0, 40)):
        v, g, h = bd._complete_objective(theta, s, c_vals, c_mult, miss)
        vi, gi, hi = bd._complete_objective(theta, s, pts, wts, miss)
        scale = np.abs(h).max()
        assert vi == pytest.approx(v, rel=1e-9)
        np.testing.assert_allclose(gi, g, rtol=0, atol=1e-7 * scale)
        np.testing.assert_allclose(hi, h, rtol=0, atol=1e-7 * scale)


def test_compressed_solver_reaches_the_exact_optimum():
    # the iterations on the compressed totals end with Newton steps on the exact objective:
    # the profile and the abilities are those of the exact solver (to its tolerance)
    y = _rates(2, 30, 600)
    exact = bd._complete_solver(y, compress=False)
    short = bd._complete_solver(y, compress=True)
    rate = (y.sum(1) + 0.5) / (y.shape[1] + 1.0)
    start = np.log(rate / (1 - rate))
    for s in (0.5, 1.2, 3.0):
        v0, t0, _ = exact(s, start)
        v1, t1, _ = short(s, start)
        assert v1 == pytest.approx(v0, rel=1e-11, abs=1e-8)
        np.testing.assert_allclose(t1, t0, atol=1e-5)


def test_binary_boards_are_not_compressed():
    # at most L + 1 distinct totals: nothing to gain, the exact objective throughout
    rng = np.random.default_rng(3)
    y = (rng.random((20, 500)) < 0.6).astype(float)
    c_vals, c_mult, _ = _totals(y)
    pts, _ = bd._chebyshev_panels(c_vals, c_mult, 0.5)
    assert pts.size == c_vals.size  # no panel holds more than _C_POINTS totals
