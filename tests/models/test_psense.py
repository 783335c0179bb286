"""Power-scaling sensitivity (arviz-stats psense) of the models' fits.

Independent checks: the uniform Dirichlet prior is flat, so its prior sensitivity is exactly
0; the matching model's psense on NUTS draws agrees with psense on exact closed-form draws
(:func:`bayes_eval.xr.posterior_tree`) whose log densities are computed with scipy; a strong
prior against the data is flagged as a prior-data conflict, a strong prior with little data as
a strong prior / weak likelihood.
"""

from __future__ import annotations

import numpy as np
import pytest
import xarray as xr
from scipy.stats import binom

from bayes_eval import xr as bxr
from bayes_eval.models import crossed_model, hierarchical_model, matching_model, sample
from bayes_eval.models.psense import DIAGNOSES, power_scale_sensitivity
from bayes_eval.models.sensitivity import plot_prior_sensitivity, sensitivity_report

pytestmark = [
    pytest.mark.pymc,
    pytest.mark.slow,
    pytest.mark.filterwarnings("ignore::bayes_eval.models.ConvergenceWarning"),
]

RUN = {"draws": 1000, "tune": 500, "chains": 2, "seed": 0}


@pytest.fixture(scope="module")
def results():
    rng = np.random.default_rng(11)
    p = np.array([[0.2], [0.9]]) * np.ones((2, 6))
    return (rng.random((2, 6, 4)) < p[..., None]).astype(int)


def test_uniform_prior_is_flat(results):
    model = matching_model(results, models=["low", "high"])
    ps = power_scale_sensitivity(sample(model, **RUN), model)
    assert ps["pi_bar"].dims == ("component", "model")
    np.testing.assert_array_equal(ps["pi_bar"].sel(component="prior"), 0.0)
    assert (ps["pi_bar"].sel(component="likelihood") > 0.05).all()
    assert set(ps["pi_bar_diagnosis"].values) == {DIAGNOSES[2]}
    assert ps.attrs["per_model"] == 1 and ps.attrs["model_kind"] == "matching"


def _exact_psense(R, alpha):
    """psense on exact draws of Dir(alpha + n) with scipy log densities (binary results)."""
    dt = bxr.posterior_tree(
        R,
        prior=alpha,
        models=["low", "high"],
        draws=1000,
        chains=2,
        include_pi=True,
        include_prior=False,
        seed=5,
    )
    p1 = dt["posterior"]["pi"].sel(category=1)
    k = xr.DataArray(R.sum(-1), dims=("model", "question"))
    n = R.shape[-1]
    log_prior = (alpha[1] - 1) * np.log(p1) + (alpha[0] - 1) * np.log1p(-p1)
    log_lik = xr.apply_ufunc(binom.logpmf, k, n, p1)
    tree = xr.DataTree.from_dict(
        {
            "posterior": dt["posterior"].to_dataset(),
            "log_prior": xr.Dataset({"pi": log_prior}),
            "log_likelihood": xr.Dataset({"counts": log_lik}),
        }
    )
    return power_scale_sensitivity(tree)


def test_strong_prior_against_the_data(results):
    """Dir(30, 30) (pi near 1/2) against 4 trials: the 0.9 model conflicts with it; psense on
    NUTS draws agrees with psense on exact draws (both estimates carry Monte Carlo error
    from 2000 draws; 0.03 absolute is about 3 times their spread over seeds)."""
    alpha = np.array([30.0, 30.0])
    model = matching_model(results, alpha0=alpha, models=["low", "high"])
    ps = power_scale_sensitivity(sample(model, **RUN), model)
    exact = _exact_psense(results, alpha)
    np.testing.assert_allclose(ps["pi_bar"], exact["pi_bar"], atol=0.03)
    assert (ps["pi_bar"].sel(component="prior") > 0.05).all()
    assert str(ps["pi_bar_diagnosis"].sel(model="high").values) in DIAGNOSES[:2]


def test_hierarchical_and_crossed(results):
    model = hierarchical_model(results, models=["low", "high"])
    ps = power_scale_sensitivity(sample(model, **RUN), model, var_names=("pi_bar", "kappa"))
    assert ps.attrs["per_model"] == 1 and ps.attrs["model_kind"] == "hierarchical"
    assert np.isfinite(ps["kappa"]).all() and (ps["pi_bar"] >= 0).all()
    crossed = crossed_model(results, models=["low", "high"])
    idata = sample(crossed, **RUN)
    ps = power_scale_sensitivity(idata, crossed, var_names=("pi_bar", "sigma_b"))
    assert ps.attrs["per_model"] == 0  # shared difficulties: joint
    assert ps["pi_bar"].dims == ("component", "model") and ps["sigma_b"].dims == ("component",)
    with pytest.raises(ValueError, match="per_model=True"):
        power_scale_sensitivity(idata, crossed, per_model=True)
    assert "log_prior" not in idata.children  # the input is not extended


def test_bad_input(results):
    model = matching_model(results)
    idata = sample(model, draws=100, tune=100, chains=2, seed=0, warn=False)
    with pytest.raises(ValueError, match="not in the posterior"):
        power_scale_sensitivity(idata, model, var_names=("theta",))
    with pytest.raises(ValueError, match=r"pass the pm\.Model"):
        power_scale_sensitivity(idata)


def test_report_beside_the_grid(results, tmp_path):
    rep = sensitivity_report(results, models=["low", "high"], alpha0=[5.0, 5.0], **RUN)
    assert "mu_alpha0" in rep.grid
    assert rep.psense["pi_bar"].dims == ("fit", "component", "model")
    assert list(rep.psense["fit"].values) == ["matching", "hierarchical"]
    out = plot_prior_sensitivity(rep, tmp_path / "s.png")
    assert out.stat().st_size > 1000
