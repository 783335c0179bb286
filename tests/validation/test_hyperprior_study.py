"""The hyperprior study: per-unit likelihoods, the three-level meta-analysis, and the shipped
constant it produces."""

import numpy as np
import pytest
from scipy import integrate, stats
from scipy.special import betaln

from bayes_eval.posteriors.priors import META_KAPPA_PRIOR
from bayes_eval.validation import hyperprior_study as hs
from bayes_eval.validation.study_configs import HyperpriorConfig


def test_unit_likelihood_against_quadrature():
    # log L(kappa) = log int_0^1 prod_q BetaBin(k_q | n_q, kappa m, kappa (1 - m)) dm (up to the
    # binomial coefficients), by adaptive quadrature in m; differences of log L at three kappas
    # (the constant cancels) to 1e-5
    counts = np.array([[4, 0], [0, 4], [1, 3], [2, 2], [4, 0], [3, 1]], dtype=float)
    log_k = np.log([0.2, 1.0, 6.0])
    got = hs.unit_log_likelihood(counts, log_k)

    def brute(kappa):
        def f(m):
            a, b = kappa * m, kappa * (1 - m)
            return np.exp(np.sum(betaln(a + counts[:, 1], b + counts[:, 0]) - betaln(a, b)))

        return np.log(integrate.quad(f, 0, 1, limit=200, epsabs=0, epsrel=1e-10)[0])

    want = np.array([brute(k) for k in np.exp(log_k)])
    np.testing.assert_allclose(got - got[1], want - want[1], atol=1e-5)


@pytest.mark.slow
def test_meta_analysis_recovers_a_known_population():
    # 20 sources x 4 units whose log kappa are known exactly (sharp Gaussian likelihoods):
    # log kappa_u = mu + c_s + e_u with mu = -0.5, between-source sd 0.8, within-source sd
    # 0.3. The estimates match the drawn values within their sampling error (the posterior of
    # the mean to 0.3, the two sds within a factor 1.4 of the sds of the drawn effects)
    rng = np.random.default_rng(0)
    c = rng.normal(0, 0.8, 20)
    e = rng.normal(0, 0.3, (20, 4))
    truth = (-0.5 + c[:, None] + e).ravel()
    source = np.repeat(np.arange(20), 4)
    loglik = stats.norm.logpdf(hs.LOG_KAPPA[None, :], truth[:, None], 0.05)
    fit = hs.meta_analysis(loglik, source)
    assert abs(fit.mu - truth.mean()) < 0.3
    assert np.std(c, ddof=1) / 1.4 < fit.omega < np.std(c, ddof=1) * 1.4
    assert np.std(e, ddof=1) / 1.4 < fit.tau < np.std(e, ddof=1) * 1.4
    assert fit.log_sd > fit.omega and fit.units == 80 and fit.sources == 20


@pytest.mark.slow
def test_the_shipped_hyperprior_is_the_meta_analysis_of_the_shipped_data():
    units = hs.units()
    assert len(units) == 20 and len({u.source for u in units}) == 4
    loglik = np.stack([hs.unit_log_likelihood(u.counts) for u in units])
    fit = hs.meta_analysis(loglik, np.array([u.source for u in units]))
    assert fit.median == pytest.approx(META_KAPPA_PRIOR[0], abs=0.01)
    assert fit.log_sd == pytest.approx(META_KAPPA_PRIOR[1], abs=0.01)


def test_config_is_checked():
    with pytest.raises(ValueError, match="sources"):
        HyperpriorConfig(sources=("phi4_aime25",))
    with pytest.raises(ValueError, match="board_replicates"):
        HyperpriorConfig(board_replicates=-1)
