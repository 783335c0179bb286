"""The coverage study's interval table reads every prior's moments from one set of sums per
replicate (issue 28): each against the package's posterior built the way ``bayes_ci``
builds it, replicate by replicate."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.special import ndtri

from bayes_eval.inputs import Tally
from bayes_eval.posteriors.posterior import DirichletPosterior, Posterior
from bayes_eval.posteriors.priors import Prior
from bayes_eval.validation.coverage import CoverageConfig
from bayes_eval.validation.coverage_methods import _interval_table


@pytest.mark.parametrize(("c", "n", "prior"), [(1, 3, 1.0), (2, 4, 0.5)])
def test_interval_table_moments_are_the_posteriors(c, n, prior):
    # the sums regroup eq. 15's terms, and the learned fits are the same fits: 1e-12 relative
    rng = np.random.default_rng(c)
    reps, m = 12, 25
    w = np.linspace(0.0, 1.0, c + 1)
    counts = rng.multinomial(n, rng.dirichlet(np.full(c + 1, 0.5), size=(reps, m)))
    before = counts.copy()
    config = CoverageConfig(bootstrap_resamples=0, empirical_exact_replicates=0)
    table, mu, sigma = _interval_table(counts, w, n, config, prior, rng, 0)
    np.testing.assert_array_equal(counts, before)  # the counts are not modified
    z = float(ndtri(0.5 + config.confidence / 2))

    def check(name, ref_mu, ref_sd):
        lo, hi = table[name]
        np.testing.assert_allclose((lo + hi) / 2, ref_mu, rtol=1e-12)
        np.testing.assert_allclose((hi - lo) / (2 * z), ref_sd, rtol=1e-10)

    for name, alpha0 in (("uniform", 1.0), ("jeffreys", 0.5), ("oracle", prior)):
        if name in table:
            ref = DirichletPosterior(nu=counts + alpha0, w=w, tally=None).moments()
            check(name, *ref)
    np.testing.assert_allclose(mu, DirichletPosterior(counts + 1.0, w, None).moments()[0])
    assert ("oracle" in table) == (prior != 1.0)
    tally = Tally(counts, counts.sum(-1), c + 1, True)
    for name, kind in (("empirical", "empirical"), ("empirical_plugin", "empirical-plugin")):
        post = Posterior.from_tally(tally, w, prior=Prior.parse(kind, pool="model"))
        check(name, post.mean, post.sd)
    assert sigma.shape == (reps,)
