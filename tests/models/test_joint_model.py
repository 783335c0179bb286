"""The joint posterior of a board (bayes_eval.posteriors.joint) against NUTS on the same
model (bayes_eval.models.joint): the closed form's Laplace and quadrature approximations
checked by sampling, hyperparameters included."""

import numpy as np
import pytest
import xarray as xr
from scipy.special import expit

from bayes_eval.posteriors.joint import joint_posterior

pytestmark = [pytest.mark.pymc, pytest.mark.slow]


@pytest.fixture(scope="module")
def fit():
    import pymc as pm

    from bayes_eval.models.joint import joint_model, joint_pi_bar

    rng = np.random.default_rng(21)
    theta = rng.normal(0, 0.8, 5)
    p = expit(theta[:, None] - rng.normal(0, 1.5, 16)[None] + rng.normal(0, 0.7, (5, 16)))
    k = rng.binomial(2, p)
    counts = np.stack([2 - k, k], -1)
    with joint_model(counts):
        idata = pm.sample(
            draws=1500,
            tune=1500,
            chains=4,
            cores=2,
            random_seed=3,
            progressbar=False,
            target_accept=0.95,
        )
    bar = joint_pi_bar(idata.posterior, counts, seed=4)
    return counts, idata, bar


def test_nuts_agrees_with_the_joint_posterior(fit):
    # NUTS (4 x 1500 draws) against the closed form: r-hat and ESS first, then every model's
    # mean within 4 Monte Carlo errors plus 0.1 posterior sd (the Laplace and skewness
    # approximations: 0.04 sd measured against importance sampling given the hyperparameters),
    # sds within 12%, pairwise P within 0.06 (the normal law of the differences)
    import arviz_stats as azs

    counts, idata, bar = fit
    summary = azs.summary(bar.to_dataset(), kind="diagnostics")
    assert float(summary["r_hat"].max()) <= 1.01
    assert float(summary["ess_bulk"].min()) >= 400
    assert int(idata.sample_stats["diverging"].sum()) == 0
    jp = joint_posterior(counts)
    draws = bar.values.reshape(-1, bar.sizes["model"])
    mean, sd = draws.mean(0), draws.std(0)
    mcse = sd / np.sqrt(summary["ess_bulk"].values)
    assert np.all(np.abs(jp.mean - mean) <= 4 * mcse + 0.1 * sd), (jp.mean, mean)
    np.testing.assert_allclose(jp.sd, sd, rtol=0.12)
    emp = (draws[:, :, None] > draws[:, None, :]).mean(0)
    i, j = np.triu_indices(5, 1)
    np.testing.assert_allclose(jp.prob_better()[i, j], emp[i, j], atol=0.06)


@pytest.mark.parametrize(
    ("counts", "answered", "message"),
    [
        (np.array([[[1, 2], [0, 3]], [[0, 0], [0, 0]]]), None, "model 1 has no question"),
        (np.array([[[1, 2], [0, 3]], [[1, 1], [2, 1]]]), np.ones((2, 3)), "expected non-neg"),
        (np.array([[[1, 2], [0, 3]], [[1, 1], [2, 1]]]), -np.ones((2, 2)), "expected non-neg"),
    ],
)
def test_joint_pi_bar_refuses_a_model_without_questions(counts, answered, message):
    from bayes_eval.models import joint_pi_bar

    rng = np.random.default_rng(0)
    posterior = xr.Dataset(
        {
            "theta": (("chain", "draw", "model"), rng.normal(size=(1, 3, 2))),
            "b": (("chain", "draw", "question"), rng.normal(size=(1, 3, 2))),
            "kappa": (("chain", "draw"), np.full((1, 3), 10.0)),
        },
        coords={"model": ["a", "b"]},
    )
    with pytest.raises(ValueError, match=message):
        joint_pi_bar(posterior, counts, answered=answered)
