"""Closed-form results are named tuples that unpack as before (same order, same arity), and
the split modules keep their public names importable from the original module paths."""

from __future__ import annotations

import importlib

import numpy as np
import pytest

import bayes_eval as be
from bayes_eval.metrics.avg import AvgCIResult, AvgResult
from bayes_eval.metrics.bayes import BayesCIResult
from bayes_eval.posteriors.exact import exact_interval
from bayes_eval.posteriors.intervals import CredibleInterval, clip_interval, normal_interval
from bayes_eval.posteriors.latent_pass import PassPosterior
from bayes_eval.posteriors.posterior import BayesResult, QuestionMoments, posterior
from bayes_eval.ranking.convergence import (
    ConvergencePMF,
    TauInterval,
    convergence_pmf,
    tau_interval,
)

R = np.array([[0, 1, 1, 0, 1], [1, 1, 0, 1, 1]])
R_CAT = np.array([[0, 1, 2, 2, 1], [1, 1, 0, 2, 2]])
W3 = [0.0, 0.5, 1.0]


def _check(result, cls, fields):
    assert isinstance(result, cls) and isinstance(result, tuple)
    assert cls._fields == fields
    assert len(result) == len(fields)
    unpacked = tuple(result)
    for name, value in zip(fields, unpacked, strict=True):
        assert getattr(result, name) is value


def test_bayes_and_avg_results():
    res = be.bayes(R_CAT, W3, prior="uniform")  # the paper's example and prior
    _check(res, BayesResult, ("mu", "sigma"))
    mu, sigma = res
    assert (round(mu, 6), round(sigma, 6)) == (0.5625, 0.091998)
    _check(be.bayes(R_CAT, W3), BayesResult, ("mu", "sigma"))  # the default, learned prior
    res = be.bayes_ci(R_CAT, W3)
    _check(res, BayesCIResult, ("mu", "sigma", "lo", "hi"))
    _check(be.avg(R), AvgResult, ("a", "sigma_a"))
    _check(be.avg_ci(R), AvgCIResult, ("a", "sigma", "lo", "hi"))


@pytest.mark.parametrize(
    "fn, args",
    [
        (be.pass_at_k_ci, (2,)),
        (be.pass_hat_k_ci, (2,)),
        (be.g_pass_at_k_ci, (2,)),
        (be.g_pass_at_k_tau_ci, (2, 0.5)),
        (be.mg_pass_at_k_ci, (3,)),
    ],
)
def test_pass_family_results(fn, args):
    res = fn(R, *args)
    _check(res, PassPosterior, ("posterior_mean", "sigma", "lo", "hi"))
    mu, sigma, lo, hi = res  # scorio's order
    assert lo <= mu <= hi and sigma > 0


def test_posterior_moments_are_named():
    post = posterior(R_CAT, W3, prior="uniform")  # one Dirichlet per question
    qm = post.question_moments()
    _check(qm, QuestionMoments, ("mean", "var"))
    assert qm.mean.shape == qm.var.shape == (2,)
    mom = post.moments()
    _check(mom, BayesResult, ("mu", "sigma"))
    np.testing.assert_allclose(tuple(mom), tuple(be.bayes(R_CAT, W3, prior="uniform")), rtol=1e-14)
    learned = posterior(R_CAT, W3, prior="empirical").moments()
    _check(learned, BayesResult, ("mu", "sigma"))


def test_intervals_are_named():
    _check(normal_interval(0.5, 0.1, 0.95), CredibleInterval, ("lo", "hi"))
    lo, hi = normal_interval(0.5, 0.1, 0.95, (0.0, 0.6))
    assert hi == 0.6 and lo < 0.5
    _check(clip_interval(-0.1, 1.2, None), CredibleInterval, ("lo", "hi"))
    assert tuple(clip_interval(-0.1, 1.2, (0.0, 1.0))) == (0.0, 1.0)
    post = posterior(R_CAT, W3, prior="uniform")  # one Dirichlet per question
    res = exact_interval(post.nu, post.w, 0.95)
    _check(res, CredibleInterval, ("lo", "hi"))
    lo, hi = res
    assert lo.shape == hi.shape == () and 0.0 < lo < hi < 1.0


def test_convergence_results_are_named():
    res = convergence_pmf(np.array([1, 2, 2, -1]), 3)
    _check(res, ConvergencePMF, ("pmf", "no_convergence"))
    pmf, none = res
    np.testing.assert_allclose(pmf, [0.25, 0.5, 0.0])
    assert none == 0.25
    res = tau_interval(np.array([[[0.1], [0.5], [0.9]]]), 0.5)
    _check(res, TauInterval, ("lo", "hi"))


@pytest.mark.parametrize(
    "module",
    [
        "bayes_eval.metrics.passk",
        "bayes_eval.posteriors.exact",
        "bayes_eval.ranking.sample_size",
        "bayes_eval.ranking.convergence",
        "bayes_eval.metrics.bayes",
        "bayes_eval.metrics.avg",
        "bayes_eval.posteriors.posterior",
    ],
)
def test_public_names_stay_at_the_original_paths(module):
    mod = importlib.import_module(module)
    for name in mod.__all__:
        assert getattr(mod, name) is not None, f"{module}.{name}"


def test_public_names_are_the_defining_objects():
    import bayes_eval.metrics.avg as avg
    import bayes_eval.metrics.bayes as bayes
    import bayes_eval.metrics.passk as passk
    import bayes_eval.posteriors.posterior as post
    import bayes_eval.posteriors.priors as priors

    assert be.posterior is post.posterior and be.Posterior is post.Posterior
    assert be.Prior is priors.Prior
    assert be.bayes_ci is bayes.bayes_ci and be.avg_ci is avg.avg_ci
    assert be.pass_at_k is passk.pass_at_k and be.pass_at_k_ci is passk.pass_at_k_ci
    assert set(be.__all__) >= {"posterior", "Posterior", "Prior", "bayes_ci", "pass_at_k_ci"}
