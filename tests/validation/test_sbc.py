"""SBC: the uniformity test is calibrated, the exact SBC of the matching model passes and its
mis-specified variant fails; the study runs from the registry and resumes."""

import numpy as np
import pytest
import xarray as xr

from bayes_eval.validation.sbc import (
    randomised_rank,
    sbc_dataset,
    sbc_summary,
    uniformity_test,
)
from bayes_eval.validation.sbc_exact import exact_sbc, exact_variables


def test_uniformity_test_is_calibrated():
    # 2,000 replicates of 200 simulations of exactly uniform ranks on 0..100: the p-values
    # are ~ Uniform, so the rejection rate at 0.05 is 0.05 within MC error (sd 0.0049)
    rng = np.random.default_rng(1)
    ranks = rng.integers(0, 101, size=(200, 2000))
    p = uniformity_test(ranks, 100)
    assert p.shape == (2000,)
    assert abs((p < 0.05).mean() - 0.05) < 4 * np.sqrt(0.05 * 0.95 / 2000)
    assert abs((p < 0.25).mean() - 0.25) < 4 * np.sqrt(0.25 * 0.75 / 2000)
    # few rank values (L = 3): every value is a bin; still calibrated
    p = uniformity_test(rng.integers(0, 4, size=(100, 2000)), 3)
    assert abs((p < 0.05).mean() - 0.05) < 4 * np.sqrt(0.05 * 0.95 / 2000)


def test_uniformity_test_rejects_and_checks_input():
    rng = np.random.default_rng(2)
    skewed = np.minimum(rng.integers(0, 101, 500), rng.integers(0, 101, 500))
    assert uniformity_test(skewed, 100) < 1e-6
    with pytest.raises(ValueError, match=r"expected integers in 0\.\.10"):
        uniformity_test(np.array([0, 11]), 10)
    with pytest.raises(ValueError, match="bins"):
        uniformity_test(np.arange(10), 10, bins=12)


def test_randomised_rank_breaks_ties_uniformly():
    # truth 1 among draws [0, 1, 1, 2]: rank is 1 + U{0, 1, 2}, each with probability 1/3
    rng = np.random.default_rng(3)
    draws = np.broadcast_to(np.array([0, 1, 1, 2]), (30_000, 4))
    r = randomised_rank(np.ones(30_000), draws, rng)
    freq = np.bincount(r, minlength=5) / r.size
    np.testing.assert_allclose(freq, [0, 1 / 3, 1 / 3, 1 / 3, 0], atol=0.015)


def test_sbc_dataset_shape_and_threshold():
    ranks = np.tile(np.arange(11), 10)[:, None].repeat(2, axis=1)
    ranks[:, 1] = 0  # degenerate: fails
    ds = sbc_dataset(ranks, ["a", "b"], n_draws=10, estimator="x", seed=4)
    assert ds["rank"].dims == ("simulation", "variable")
    assert ds.attrs["n_draws"] == 10 and ds.attrs["threshold_per_variable"] == 0.005
    assert bool(ds["passed"].sel(variable="a")) and not bool(ds["passed"].sel(variable="b"))
    s = sbc_summary(ds)
    assert s["variables"]["b"]["result"] == "FAIL" and not s["passed_all"]
    with pytest.raises(ValueError, match="expected"):
        sbc_dataset(ranks, ["a"], n_draws=10, estimator="x", seed=0)


def test_exact_sbc_of_matching_passes():
    # 2,000 simulations (10,000 take ~5-8 s: benchmarks/bench_sbc.py), M = 30, N = 8
    ds = exact_sbc(30, 8, simulations=2000, draws=100, seed=0)
    assert list(ds["variable"].values) == exact_variables(30, 2)
    assert ds["rank"].values.min() >= 0 and ds["rank"].values.max() <= 100
    assert bool(ds["passed"].all()), ds["p_value"].values
    # the model-rank variable is discrete: ties randomised, still uniform
    assert float(ds["p_value"].sel(variable="rank[model-0]")) > 1e-3
    # three categories, a non-uniform prior
    ds = exact_sbc(10, 4, C=2, alpha0=[0.5, 1.0, 2.0], simulations=1000, draws=50, seed=1)
    assert bool(ds["passed"].all()), ds["p_value"].values


def test_exact_sbc_misspecified_fails():
    # truth from Dir(1), posterior computed with the wrong prior Dir(5)
    ds = exact_sbc(30, 8, simulations=2000, posterior_alpha0=5.0, seed=0)
    p = ds["p_value"].sel(variable="pi_bar[model-0]")
    assert float(p) < 1e-6
    assert not ds.attrs["passed_all"]


def test_exact_sbc_checks_and_repeats():
    with pytest.raises(ValueError, match="M is 0"):
        exact_sbc(0, 8)
    with pytest.raises(ValueError, match="w has shape"):
        exact_sbc(5, 4, w=[0, 0.5, 1], simulations=10)
    a = exact_sbc(5, 4, simulations=50, draws=20, seed=7)
    b = exact_sbc(5, 4, simulations=50, draws=20, seed=7)
    xr.testing.assert_identical(a, b)
