"""SBC: the uniformity test is calibrated, the exact SBC of the matching model passes and its
mis-specified variant fails; the study runs from the registry and resumes."""

import numpy as np
import pytest
import xarray as xr

from bayes_eval.validation.sbc import (
    exact_sbc,
    exact_variables,
    randomised_rank,
    sbc_dataset,
    sbc_summary,
    uniformity_test,
)


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
    with pytest.raises(ValueError, match="bins is 0"):  # not taken for "the default"
        uniformity_test(np.arange(10), 10, bins=0)


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


@pytest.mark.slow
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


@pytest.mark.slow  # ~1 s; the fast tier keeps the passing exact SBC
def test_exact_sbc_misspecified_fails():
    # truth from Dir(1), posterior computed with the wrong prior Dir(5)
    ds = exact_sbc(30, 8, simulations=2000, posterior_alpha0=5.0, seed=0)
    p = ds["p_value"].sel(variable="pi_bar[model-0]")
    assert float(p) < 1e-6
    assert not ds.attrs["passed_all"]


@pytest.mark.slow
def test_exact_sbc_runs_the_package_posterior(monkeypatch):
    # the study draws from bayes_eval.posterior, the code bayes/bayes_ci and every command run,
    # not from a sampler of its own: a bug planted there (one pseudo-success too many in every
    # question's posterior, like an off-by-one tally) must fail it
    from bayes_eval.posteriors import posterior as pp

    real = pp.Posterior._draw_nu

    def off_by_one(self, n, rng):
        nu, per_draw = real(self, n, rng)
        return nu + np.eye(nu.shape[-1])[-1], per_draw

    monkeypatch.setattr(pp.Posterior, "_draw_nu", off_by_one)
    ds = exact_sbc(30, 8, simulations=1000, draws=50, seed=0)
    assert float(ds["p_value"].sel(variable="pi_bar[model-0]")) < 1e-6
    assert not ds.attrs["passed_all"]


def test_exact_sbc_checks_and_repeats():
    with pytest.raises(ValueError, match="M is 0"):
        exact_sbc(0, 8)
    with pytest.raises(ValueError, match="w has shape"):
        exact_sbc(5, 4, w=[0, 0.5, 1], simulations=10)
    a = exact_sbc(5, 4, simulations=50, draws=20, seed=7)
    b = exact_sbc(5, 4, simulations=50, draws=20, seed=7)
    xr.testing.assert_identical(a, b)


# ------------------------------------------------------------------ the study and the CLI


@pytest.mark.slow  # ~1 s; the fast tier keeps the passing exact SBC
def test_cli_validate_sbc_matching_exact(tmp_path, capsys):
    from bayes_eval.cli import main

    out = tmp_path / "sbc"
    args = ["validate", "sbc", "--estimator", "matching-exact", "--simulations", "400"]
    args += ["--n-questions", "10", "--trials", "4", "--draws", "40", "--out", str(out)]
    assert main(args) == 0
    text = capsys.readouterr().out
    assert "pi_bar[model-0]" in text and "PASS" in text and "Bonferroni" in text
    with xr.open_dataset(out / "sbc.nc") as ds:
        assert ds.sizes["simulation"] == 400 and ds.attrs["n_draws"] == 40
    assert (out / "sbc.png").exists()


@pytest.mark.slow  # three studies with their plots
def test_sbc_study_resumes_and_refuses_other_settings(tmp_path):
    from bayes_eval.validation import registry

    opts = dict(estimator="matching-exact", simulations=300, n_questions=5, trials=4, draws=20)
    first = registry.run_study("sbc", tmp_path, progress=False, block=100, max_cells=2, **opts)
    assert first.summary["cells_computed"] == 2 and first.summary["cells_pending"] == 1
    assert first.summary["netcdf"] is None
    second = registry.run_study("sbc", tmp_path, progress=False, block=100, **opts)
    assert second.summary["cells_resumed"] == 2 and second.summary["cells_computed"] == 1
    assert second.dataset.sizes["simulation"] == 300
    # the same ranks as one uninterrupted run
    whole = registry.run_study("sbc", tmp_path / "b", progress=False, block=100, **opts)
    np.testing.assert_array_equal(whole.dataset["rank"].values, second.dataset["rank"].values)
    with pytest.raises(ValueError, match="another configuration"):
        registry.run_study("sbc", tmp_path, progress=False, block=100, **(opts | {"seed": 1}))
    with pytest.raises(ValueError, match="posterior_alpha0"):
        registry.make_config("sbc", estimator="hierarchical", posterior_alpha0=5.0)


# ------------------------------------------------------------------ NUTS


@pytest.mark.pymc
@pytest.mark.slow
@pytest.mark.xdist_group("sbc-hierarchical")  # with the README's `validate sbc` (its grid)
def test_nuts_sbc_of_hierarchical_on_a_tiny_grid():
    # 20 simulations, M = 5, N = 4, 2 chains x 200 draws (every 4th ranked: L = 100). Only
    # machine-independent checks: ranks in range, p-values in [0, 1], no absurd failure.
    from bayes_eval.validation.sbc_study import run_cell, sbc_result
    from bayes_eval.validation.study_configs import SbcConfig

    cfg = SbcConfig(
        estimator="hierarchical", simulations=20, n_questions=5, trials=4, draws=200, block=20
    )
    ds = sbc_result(run_cell(0, cfg), cfg)
    assert ds.attrs["n_draws"] == 100
    names = list(ds["variable"].values)
    assert {"kappa[model-0]", "beta_top[model-1]", "pi_bar[model-0]", "rank[model-1]"} <= set(names)
    r = ds["rank"].values
    assert r.shape == (20, len(names)) and r.min() >= 0 and r.max() <= 100
    p = ds["p_value"].values
    assert ((p >= 0) & (p <= 1)).all()
    assert (p > 1e-6).all(), dict(zip(names, p, strict=True))
    assert ds.attrs["divergent_share"] < 0.05


@pytest.mark.pymc
@pytest.mark.slow
def test_fast_path_ranks_agree_with_simuk():
    # matching model, 1 LLM x 2 questions x 3 trials. simuk refits a rebuilt model per
    # simulation (12 here, ~1.5 s each with PyMC's sampler once the graph is compiled: chains
    # in this process, no convergence report); the fast path reuses one compiled nutpie model
    # (120 simulations). Same test quantities, both thinned to L = 50 draws; the k-sample
    # Anderson-Darling test (ties allowed) must not reject that the two rank samples share one
    # distribution, and both must pass the uniformity test. With 12 simuk simulations this
    # detects only gross disagreement (a shifted or degenerate rank). The fast path's block is
    # also the matching case of test_nuts_sbc_runs_for_every_model (its checks are here).
    from scipy import stats

    from bayes_eval.validation.sbc import run_block, sbc_dataset, simuk_sbc

    kw = dict(n_models=1, draws=50, tune=100, chains=2, thin=2)
    pymc_nuts = {"nuts_sampler": "pymc", "cores": 1, "compute_convergence_checks": False}
    ref = simuk_sbc("matching", 2, 3, simulations=12, seed=3, sample_kwargs=pymc_nuts, **kw)
    block = run_block("matching", 2, 3, start=0, size=120, seed=4, **kw)
    assert block.attrs["n_draws"] == 50 and block["divergences"].sizes["simulation"] == 120
    assert block["rank"].values.min() >= 0 and block["rank"].values.max() <= 50
    fast = sbc_dataset(
        block["rank"].values, list(block["variable"].values), n_draws=50, estimator="m", seed=4
    )
    assert list(ref["variable"].values) == list(fast["variable"].values)
    for name in ref["variable"].values:
        a = ref["rank"].sel(variable=name).values
        b = fast["rank"].sel(variable=name).values
        res = stats.anderson_ksamp([a, b], method=stats.PermutationMethod(n_resamples=999))
        assert res.pvalue > 0.001, (name, res.pvalue)
    assert bool(ref["passed"].all()) and bool(fast["passed"].all())


@pytest.mark.pymc
@pytest.mark.slow
@pytest.mark.parametrize("estimator", ["crossed", "power-prior", "judges"])
def test_nuts_sbc_runs_for_every_model(estimator):
    # no crash, the test quantities of the module docstring, ranks in 0..L (one compile each);
    # matching: test_fast_path_ranks_agree_with_simuk, hierarchical: the tiny grid above
    from bayes_eval.validation.sbc import run_block

    ds = run_block(estimator, 4, 3, size=3, draws=60, tune=60, chains=2, thin=3, seed=1)
    names = list(ds["variable"].values)
    assert "rank[model-0]" in names and ds.attrs["n_draws"] == 40
    assert ds["rank"].values.min() >= 0 and ds["rank"].values.max() <= 40
    assert ds["divergences"].sizes["simulation"] == 3


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"estimator": "matching-exact", "chains": 4}, "chains set NUTS, but matching-exact"),
        ({"estimator": "matching-exact", "tune": 50, "thin": 2}, "tune, thin set NUTS"),
        ({"estimator": "hierarchical", "posterior_alpha0": 3.0}, "matching-exact only"),
        ({"estimator": "judges", "trials": 4}, "trials is not used by the judges estimator"),
    ],
)
def test_options_that_would_do_nothing_are_refused(options, message):
    from bayes_eval.validation.registry import make_config

    with pytest.raises(ValueError, match=message):
        make_config("sbc", **options)
    cfg = make_config("sbc", estimator="hierarchical")
    assert (cfg.n_tune, cfg.n_chains, cfg.n_thin, cfg.n_trials) == (200, 2, 4, 8)


@pytest.mark.slow
def test_pit_values_are_continuous_uniform_for_calibrated_ranks():
    # randomised PIT (rank + U) / (L + 1): no ties, uniform under a correct posterior, so the
    # ECDF plot's bands and arviz-stats' pot_c test apply (mid-points would tie in blocks)
    from scipy import stats

    from bayes_eval.validation.sbc import pit_values

    ds = exact_sbc(10, 4, simulations=4000, draws=49, seed=5)
    u = pit_values(ds)
    assert u.shape == (4000, ds.sizes["variable"]) and ((u > 0) & (u < 1)).all()
    assert np.unique(u[:, 0]).size == u.shape[0]
    assert min(stats.kstest(u[:, j], "uniform").pvalue for j in range(u.shape[1])) > 1e-3
    np.testing.assert_array_equal(np.floor(u * 50), ds["rank"].values)  # rank recovered
