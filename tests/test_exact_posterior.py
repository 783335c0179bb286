"""The exact posterior of pi-bar against 10^6 exact Dirichlet draws and closed forms.

Tolerances: with n = 10^6 draws, the Monte Carlo error of an empirical CDF value F is
sqrt(F(1-F)/n) <= 5e-4; we allow 4 standard errors plus 2e-4 for the lattice. The quantile
tolerance is derived from the same CDF tolerance divided by the density.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats
from scipy.special import betainc

import bayes_eval as be
from bayes_eval.exact_posterior import (
    _imhof_cdf,
    _imhof_exact,
    dirichlet_functional_cdf,
    exact_posterior,
)
from bayes_eval.ranking import prob_better

N_DRAWS = 1_000_000


def _draw_pi_bar(nu, w, rng, n=N_DRAWS, chunk=200_000):
    out = []
    for start in range(0, n, chunk):
        g = rng.gamma(nu[None], size=(min(chunk, n - start), *nu.shape))
        out.append(((g / g.sum(-1, keepdims=True)) @ w).mean(-1))
    return np.concatenate(out)


def _check_against_draws(dist, draws):
    xs = np.quantile(draws, [0.005, 0.025, 0.1, 0.3, 0.5, 0.7, 0.9, 0.975, 0.995])
    emp = np.searchsorted(np.sort(draws), xs, side="right") / draws.size
    se = np.sqrt(emp * (1 - emp) / draws.size)
    np.testing.assert_array_less(np.abs(dist.cdf(xs) - emp), 4 * se + 2e-4)
    assert abs(dist.mean - draws.mean()) < 5 * draws.std() / np.sqrt(draws.size)
    assert abs(dist.sd / draws.std() - 1) < 5 * np.sqrt(2 / draws.size)


def test_imhof_inversion_matches_beta_cdf():
    """Two weight levels: the Gil-Pelaez integral reproduces the regularised beta (1e-9), and
    the interpolated path used on long lattices (256 inversions over +-20 sd, PCHIP between)
    stays within 2e-5."""
    y = np.linspace(0.001, 0.999, 201)
    for a, b in [(1.0, 1.0), (2.0, 7.0), (40.0, 3.0), (0.5, 0.7), (81.0, 1.0)]:
        got = _imhof_exact(y, np.array([0.0, 1.0]), np.array([b, a]))
        np.testing.assert_allclose(got, betainc(a, b, y), atol=1e-9)
        mean, sd = a / (a + b), np.sqrt(a * b / ((a + b) ** 2 * (a + b + 1)))
        window = np.linspace(max(mean - 20 * sd, 1e-6), min(mean + 20 * sd, 1 - 1e-6), 1600)
        got = _imhof_cdf(window, np.array([0.0, 1.0]), np.array([b, a]))
        np.testing.assert_allclose(got, betainc(a, b, window), atol=2e-5)


def test_binary_exact_posterior_against_draws(rng):
    R = (rng.random((12, 6)) < rng.random((12, 1))).astype(int)
    post = be.dirichlet_posterior(R)
    dist = exact_posterior(post.nu, post.w)
    _check_against_draws(dist, _draw_pi_bar(post.nu, post.w, rng))
    mu, sigma = be.bayes(R)
    assert dist.mean == pytest.approx(mu, abs=1e-14)
    assert dist.sd == pytest.approx(sigma, abs=1e-14)


def test_categorical_exact_posterior_against_draws(rng):
    R = rng.integers(0, 4, size=(8, 5))
    w = np.array([0.0, 0.2, 0.7, 1.0])
    post = be.dirichlet_posterior(R, w)
    dist = exact_posterior(post.nu, post.w)
    draws = _draw_pi_bar(post.nu, w, rng)
    _check_against_draws(dist, draws)
    lo, hi = be.bayes_ci(R, w, interval="exact")[2:]
    # quantile tolerance: CDF tolerance / density at the quantile (~ 0.058 / sd at 2.5%)
    q_tol = (4 * np.sqrt(0.025 * 0.975 / N_DRAWS) + 2e-4) / (0.058 / dist.sd)
    assert lo == pytest.approx(np.quantile(draws, 0.025), abs=q_tol)
    assert hi == pytest.approx(np.quantile(draws, 0.975), abs=q_tol)


def test_exact_interval_is_skewed_near_the_boundary(rng):
    """Few questions near 100%: the exact interval is asymmetric and stays below 1,
    where the normal interval overshoots."""
    R = np.ones((3, 4), dtype=int)
    R[0, 0] = 0
    mu, _sigma, _lo_n, hi_n = be.bayes_ci(R, confidence=0.99)
    _, _, lo_e, hi_e = be.bayes_ci(R, confidence=0.99, interval="exact")
    assert hi_e < 1.0 < hi_n + 0.05
    assert (hi_e - mu) < (mu - lo_e)
    post = be.dirichlet_posterior(R)
    draws = _draw_pi_bar(post.nu, post.w, rng)
    np.testing.assert_allclose([lo_e, hi_e], np.quantile(draws, [0.005, 0.995]), atol=4e-3)


def test_functional_cdf_three_levels_against_draws(rng):
    nu = np.array([2.0, 3.0, 1.5, 4.0])
    w = np.array([0.0, 0.5, 0.5, 1.0])  # repeated weight: categories 1 and 2 merge
    g = rng.gamma(nu, size=(N_DRAWS, 4))
    y = (g / g.sum(1, keepdims=True)) @ w
    xs = np.linspace(0.2, 0.9, 15)
    emp = (y[:, None] <= xs).mean(0)
    np.testing.assert_array_less(
        np.abs(dirichlet_functional_cdf(xs, nu, w) - emp),
        4 * np.sqrt(emp * (1 - emp) / N_DRAWS) + 1e-6,
    )


def test_exact_avg_interval_with_missing_trials(rng):
    R = rng.integers(0, 2, size=(10, 8))
    mask = rng.random(R.shape) < 0.3
    mask[:, 0] = False
    a, sa, lo, hi = be.avg_ci(R, mask=mask, interval="exact")
    post = be.dirichlet_posterior(R, mask=mask)
    n = post.tally.n_trials
    t = post.total
    g = rng.gamma(post.nu[None], size=(400_000, *post.nu.shape))
    y = (g / g.sum(-1, keepdims=True)) @ post.w
    latent = ((t / n) * y - 1.0 / n).mean(-1)  # sum_j alpha0_j w_j = 1 for w = (0, 1)
    assert latent.mean() == pytest.approx(a, abs=5 * latent.std() / np.sqrt(latent.size))
    # 4e5 draws: quantile Monte Carlo error ~ 0.004 sd
    np.testing.assert_allclose([lo, hi], np.quantile(latent, [0.025, 0.975]), atol=0.015 * sa)


def test_prob_better_exact_against_draws_and_normal(rng):
    Ra = (rng.random((15, 10)) < 0.55).astype(int)
    Rb = (rng.random((15, 10)) < 0.5).astype(int)
    exact = prob_better(Ra, Rb)
    normal = prob_better(Ra, Rb, method="normal")
    pa, pb = be.dirichlet_posterior(Ra), be.dirichlet_posterior(Rb)
    da = _draw_pi_bar(pa.nu, pa.w, rng)
    db = _draw_pi_bar(pb.nu, pb.w, rng)
    mc = float((da > db).mean())
    assert exact == pytest.approx(mc, abs=4 * np.sqrt(mc * (1 - mc) / N_DRAWS) + 5e-4)
    mu_a, s_a = be.bayes(Ra)
    mu_b, s_b = be.bayes(Rb)
    assert normal == pytest.approx(stats.norm.cdf((mu_a - mu_b) / np.hypot(s_a, s_b)), abs=1e-14)
    # symmetry
    assert prob_better(Rb, Ra) == pytest.approx(1 - exact, abs=1e-6)
