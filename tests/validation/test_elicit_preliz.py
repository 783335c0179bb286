"""PreliZ elicitation against the hand-written solvers, and one elicited prior on both paths.

Tolerances: the PreliZ and scipy Beta fits agree to 1e-3 relative in (a, b) where their
criteria coincide (intervals symmetric about 1/2); elsewhere the test states the difference
the criteria imply. The NUTS check allows 5 Monte Carlo standard errors on mu.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy.stats import beta as beta_dist
from scipy.stats import dirichlet

import bayes_eval as be
from bayes_eval.validation.elicitation import (
    ElicitationWarning,
    beta_fits,
    dirichlet_mode_alpha,
    elicit_beta,
    elicit_dirichlet,
    elicit_dirichlet_mode,
    elicit_quantiles,
    quartile_beta,
)


@pytest.fixture(scope="module", autouse=True)
def _preliz_imported():
    """Import PreliZ (and matplotlib) once, outside the timed tests."""
    pytest.importorskip("preliz")


@pytest.mark.parametrize(("lo", "hi", "prob"), [(0.3, 0.7, 0.9), (0.2, 0.8, 0.95), (0.4, 0.6, 0.5)])
def test_maxent_equals_equal_tailed_on_symmetric_intervals(lo, hi, prob):
    fits = beta_fits(lo, hi, prob)
    assert fits.max_relative_difference < 1e-3
    np.testing.assert_allclose(fits.tails_maxent, (1 - prob) / 2, atol=1e-4)


@pytest.mark.parametrize(("lo", "hi", "prob"), [(0.3, 0.6, 0.9), (0.05, 0.2, 0.9), (0.6, 0.9, 0.5)])
def test_maxent_on_asymmetric_intervals(lo, hi, prob):
    """Both put mass prob in [lo, hi]; only the equal-tailed fit has equal tails, and maxent
    has the larger entropy (the criterion it optimises)."""
    fits = beta_fits(lo, hi, prob)
    for ab in (fits.equal_tailed, fits.maxent):
        mass = beta_dist.cdf(hi, *ab) - beta_dist.cdf(lo, *ab)
        assert mass == pytest.approx(prob, abs=1e-4)
    np.testing.assert_allclose(fits.tails_equal_tailed, (1 - prob) / 2, atol=1e-6)
    assert beta_dist.entropy(*fits.maxent) >= beta_dist.entropy(*fits.equal_tailed) - 1e-9
    assert abs(fits.tails_maxent[0] - fits.tails_maxent[1]) > 1e-3


def test_elicit_beta_maxent_route():
    et = elicit_beta(0.3, 0.7, 0.9, level="benchmark", n_questions=100)
    me = elicit_beta(0.3, 0.7, 0.9, level="benchmark", n_questions=100, method="maxent")
    np.testing.assert_allclose(me.hyper_alpha, et.hyper_alpha, rtol=1e-3)
    np.testing.assert_allclose(me.implied, et.implied, atol=2e-3)  # same draws up to (a, b)
    assert "preliz.maxent" in me.fit and "equal-tailed" in et.fit
    with pytest.raises(ValueError, match="method"):
        elicit_beta(0.3, 0.7, level="question", n_questions=10, method="mode")


def test_quartiles():
    """preliz.quartile reproduces the quartiles of a known Beta(3, 7)."""
    q = beta_dist.ppf([0.25, 0.5, 0.75], 3.0, 7.0)
    np.testing.assert_allclose(quartile_beta(*q), (3.0, 7.0), rtol=1e-3)
    p = elicit_quantiles(*q, level="benchmark", n_questions=200)
    np.testing.assert_allclose(p.hyper_alpha, (7.0, 3.0), rtol=1e-3)
    assert p.prob == 0.5 and p.stated.tolist() == [q[0], q[2]]
    assert p.implied[0] < q[0] < q[2] < p.implied[1]  # pi-bar is a little wider than m
    with pytest.warns(ElicitationWarning, match="narrower"):
        elicit_quantiles(*q, level="question", n_questions=200)
    with pytest.raises(ValueError, match="no Beta has quartiles"):
        quartile_beta(0.1, 0.5, 0.52)
    with pytest.raises(ValueError, match="0 < q1 < q2 < q3 < 1"):
        quartile_beta(0.3, 0.2, 0.5)


@pytest.mark.slow
def test_dirichlet_mode_against_least_squares():
    """PreliZ: alpha = 1 + tau mode, with the mean lower-tail mass (1 - p) / 2; the mode is
    exact. Our least-squares solver on [mode - bound, mode + bound] fits both tails of every
    marginal instead: same order of concentration, not the same alpha."""
    mode, mass, bound = np.array([0.2, 0.3, 0.5]), 0.9, 0.1
    alpha = dirichlet_mode_alpha(mode, mass, bound)
    np.testing.assert_allclose((alpha - 1) / (alpha.sum() - alpha.size), mode, atol=1e-9)
    lower = [beta_dist.cdf(m - bound, a, alpha.sum() - a) for m, a in zip(mode, alpha, strict=True)]
    assert np.mean(lower) == pytest.approx((1 - mass) / 2, abs=1e-4)
    p = elicit_dirichlet_mode(
        mode, mass, bound=bound, level="question", n_questions=20, warn_ratio=0
    )
    np.testing.assert_array_equal(p.alpha, alpha)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ElicitationWarning)
        ls = elicit_dirichlet(
            np.stack([mode - bound, mode + bound], 1), mass, level="question", n_questions=20
        )
    assert 0.5 < ls.alpha.sum() / alpha.sum() < 2
    with pytest.raises(ValueError, match="sum to 1"):
        dirichlet_mode_alpha([0.2, 0.3], 0.9)
    with pytest.raises(ValueError, match="level='question'"):
        elicit_dirichlet_mode(mode, level="benchmark", n_questions=20)


def test_to_closed_form_is_the_prior_argument():
    p = elicit_beta(0.3, 0.7, 0.9, level="question", n_questions=30, warn_ratio=0)
    R = np.random.default_rng(0).integers(0, 2, size=(30, 4))
    a = p.to_closed_form()
    assert be.bayes(R, prior=a) == be.bayes(R, alpha0=p.alpha)
    a[0] = -1  # a copy: the prior is not mutated
    assert p.alpha[0] > 0
    with pytest.raises(ValueError, match="mixture over the benchmark mean"):
        elicit_beta(0.3, 0.7, level="benchmark", n_questions=30).to_closed_form()


def test_to_pymc_log_density():
    """The PyMC variable has the Dirichlet density of the elicited alpha (scipy)."""
    pm = pytest.importorskip("pymc")
    p = elicit_dirichlet_mode(
        [0.2, 0.3, 0.5], 0.9, bound=0.1, level="question", n_questions=5, warn_ratio=0
    )
    x = np.array([0.1, 0.3, 0.6])
    with pm.Model(coords={"category": [0, 1, 2]}):
        rv = p.to_pymc("pi", dims="category")
    assert float(pm.logp(rv, x).eval()) == pytest.approx(dirichlet.logpdf(x, p.alpha), rel=1e-10)
    b = elicit_beta(0.3, 0.7, level="benchmark", n_questions=5, concentration=2.0)
    with pm.Model(coords={"model": ["a"], "question": range(5), "category": [0, 1]}) as model:
        b.to_pymc("pi", dims=("model", "question", "category"))
    assert set(model.named_vars) >= {"pi", "pi_m"}
    assert model["pi_m"].owner.op.name == "beta"
    with pm.Model(), pytest.raises(ValueError, match="question, category"):
        b.to_pymc("pi", dims="category")


@pytest.mark.pymc
@pytest.mark.slow
def test_elicited_prior_on_both_paths():
    """Closed form under the elicited prior vs NUTS of the matching model with that alpha0."""
    from bayes_eval.models import matching_model, sample

    p = elicit_beta(0.3, 0.6, 0.9, level="question", n_questions=8, warn_ratio=0)
    R = np.random.default_rng(3).integers(0, 2, size=(2, 8, 5))
    mu, sigma = be.bayes(R, prior=p.to_closed_form())
    from arviz_stats import ess, rhat

    idata = sample(
        matching_model(R, alpha0=p.to_closed_form()), draws=1000, tune=500, chains=2, seed=1
    )
    draws = idata["posterior"]["pi_bar"]
    assert float(rhat(draws).max()) < 1.02  # max over 2 models of 2 x 1000 draws
    n_eff = float(ess(draws).min())
    np.testing.assert_array_less(
        np.abs(draws.mean(("chain", "draw")).values - mu), 5 * sigma / np.sqrt(n_eff)
    )
    np.testing.assert_allclose(draws.std(("chain", "draw")).values, sigma, rtol=0.15)
