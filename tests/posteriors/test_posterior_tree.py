"""Closed form -> DataTree: exact draws whose mean and sd are Bayes@N's mu and sigma."""

from __future__ import annotations

import numpy as np
import pytest
import xarray as xr

import bayes_eval as be
from bayes_eval import xr as bxr

W = [0.0, 0.5, 1.0]
N_DRAWS = 4 * 2000


@pytest.fixture(scope="module")
def results():
    return np.random.default_rng(7).integers(0, 3, size=(3, 20, 4))


def _check_moments(pi_bar: xr.DataArray, mu, sigma) -> None:
    """Mean within 4 Monte Carlo standard errors (sigma / sqrt(n)); sd within 4 standard
    errors of a sample sd (about sigma / sqrt(2 n) for these near-normal draws)."""
    m = pi_bar.mean(("chain", "draw")).values
    s = pi_bar.std(("chain", "draw")).values
    np.testing.assert_array_less(np.abs(m - mu), 4 * sigma / np.sqrt(N_DRAWS))
    np.testing.assert_array_less(np.abs(s / sigma - 1), 4 / np.sqrt(2 * N_DRAWS))


@pytest.mark.parametrize("prior", ["uniform", "jeffreys", [2.0, 1.0, 3.0], "empirical"])
def test_moments_match_closed_form(results, prior):
    dt = bxr.posterior_tree(results, W, prior=prior, models=list("abc"), draws=2000, seed=1)
    post = dt["posterior"]
    assert post["pi_bar"].dims == ("chain", "draw", "model")
    assert post.sizes["chain"] == 4 and post.sizes["draw"] == 2000
    assert list(post["model"].values) == list("abc")
    mu, sigma = be.bayes(results, W, prior=prior)
    _check_moments(post["pi_bar"], mu, sigma)
    assert ("prior" in dt.children) == (prior != "empirical")


def test_prior_group_and_pi(results):
    """Prior group of the uniform prior: Dir(1, 1, 1) per question, pi-bar has mean 1/2 and sd
    sqrt(Var(w.pi) / M) with Var(w.pi) = (E w^2 - (E w)^2) / (K + 1) = (5/12 - 1/4) / 4."""
    before = results.copy()
    dt = bxr.posterior_tree(
        results, W, prior="uniform", models=list("abc"), draws=2000, include_pi=True
    )
    np.testing.assert_array_equal(results, before)
    sd = np.sqrt((5 / 12 - 0.25) / 4 / 20)
    _check_moments(dt["prior"]["pi_bar"], np.full(3, 0.5), np.full(3, sd))
    pi = dt["posterior"]["pi"]
    assert pi.dims == ("chain", "draw", "model", "question", "category")
    np.testing.assert_allclose(pi.sum("category"), 1.0, atol=1e-12)
    np.testing.assert_allclose(
        (pi @ xr.DataArray(W, dims="category")).mean("question"),
        dt["posterior"]["pi_bar"],
        atol=1e-12,
    )


def test_labels_seed_and_one_model(results):
    da = bxr.results_array(results, models=list("xyz"))
    a = bxr.posterior_tree(da, W, draws=100, chains=2, seed=3)
    b = bxr.posterior_tree(da, W, draws=100, chains=2, seed=3)
    xr.testing.assert_identical(a["posterior"].to_dataset(), b["posterior"].to_dataset())
    assert list(a["posterior"]["model"].values) == list("xyz")
    one = bxr.posterior_tree(da.isel(model=0, drop=True), W, draws=100, chains=2)
    assert one["posterior"].sizes["model"] == 1


@pytest.mark.parametrize("bad", [{"draws": 0}, {"chains": 1.5}, {"draws": True}])
def test_bad_sizes(results, bad):
    with pytest.raises(ValueError, match="expected a positive integer"):
        bxr.posterior_tree(results, W, **bad)


def test_prior_runs_and_mask():
    """R0 counts join the prior (eq. 6), NaN trials are skipped: same moments as Bayes@N."""
    rng = np.random.default_rng(4)
    R = rng.integers(0, 2, size=(2, 15, 6)).astype(float)
    R[0, :3, 4:] = np.nan
    R0 = rng.integers(0, 2, size=(2, 15, 3))
    da = bxr.results_array(R, models=["a", "b"])
    da0 = bxr.results_array(R0, models=["a", "b"])
    dt = bxr.posterior_tree(da, None, da0, skipna=True, draws=2000, seed=2)
    mu, sigma = be.bayes(np.nan_to_num(R).astype(int), None, R0, mask=np.isnan(R))
    _check_moments(dt["posterior"]["pi_bar"], mu, sigma)
