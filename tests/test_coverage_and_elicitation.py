"""Coverage harness (tiny seeded grid, Dask LocalCluster of 2 workers on loopback, resume after
an interruption) and prior elicitation."""

from __future__ import annotations

import json

import numpy as np
import pytest
from scipy.stats import beta as beta_dist

import bayes_eval as be
from bayes_eval.validation import coverage, elicitation


def _config(**kw):
    base = dict(
        M=[5, 30],
        N=[1, 4],
        C=[1],
        scenarios=["uniform", "anchored"],
        reps=400,
        exact_reps=400,
        bootstrap_resamples=100,
        seed=1,
    )
    base.update(kw)
    return coverage.CoverageConfig(**base)


@pytest.mark.slow
def test_cell_well_specified_bayes_covers():
    """Under the uniform prior the exact credible interval has exact frequentist coverage;
    with 4000 replicates its MC error is 0.34 points, so +-1.5 points is over 4 SE."""
    cfg = _config(reps=4000, exact_reps=4000)
    ds = coverage.run_cell(("uniform", 1, 5, 1), cfg).squeeze(drop=True)
    cov = ds["coverage"]
    assert abs(float(cov.sel(interval="bayes_exact")) - 0.95) < 0.015
    assert abs(float(cov.sel(interval="bayes_normal")) - 0.95) < 0.02
    # the CLT interval over questions undercovers at M = 5 (Bowyer et al.)
    assert float(cov.sel(interval="wald")) < 0.95 - 4 * float(
        ds["coverage_mc_se"].sel(interval="wald")
    )
    assert set(cov["interval"].values) >= {"wilson", "clopper_pearson", "bootstrap", "peer_clipped"}
    assert 0.0 <= float(ds["claim_error_bayes"]) <= 0.2


def test_categorical_cell_and_scenarios():
    cfg = _config(C=[2], scenarios=["dirichlet", "beta_mixture"], reps=300)
    for scenario in ("dirichlet", "beta_mixture"):
        ds = coverage.run_cell((scenario, 2, 15, 4), cfg)
        assert "wilson" not in ds["interval"].values  # binary-only methods are absent for C > 1
        assert "bayes_exact" not in ds["interval"].values  # exact_categorical is off
        assert np.isfinite(ds["coverage"]).all()


@pytest.mark.slow
def test_study_resumes_after_interruption_on_a_local_cluster(tmp_path):
    cfg = _config(reps=200, exact_reps=200)
    out = tmp_path / "study"
    _partial, info = coverage.run_study(cfg, out, n_workers=2, max_cells=3, progress=False)
    assert len(info["computed"]) == 3 and info["pending"] == len(cfg.cells()) - 3
    assert not (out / "coverage.nc").exists()  # incomplete studies are not merged to the final file
    first = {p.name: p.stat().st_mtime_ns for p in (out / "cells").glob("*.nc")}
    ds, info2 = coverage.run_study(cfg, out, n_workers=2, progress=False)
    assert len(info2["skipped"]) == 3 and len(info2["computed"]) == len(cfg.cells()) - 3
    for name, mtime in first.items():  # finished cells are neither recomputed nor rewritten
        assert (out / "cells" / name).stat().st_mtime_ns == mtime
    assert (out / "coverage.nc").exists()
    assert (
        ds.sizes["M"] == 2
        and ds.sizes["N"] == 2
        and set(ds["scenario"].values) == {"uniform", "anchored"}
    )
    # same cell, same seed: identical to a direct computation
    direct = coverage.run_cell(("uniform", 1, 5, 4), cfg).squeeze(drop=True)
    np.testing.assert_array_equal(
        ds["coverage"]
        .sel(scenario="uniform", C=1, M=5, N=4)
        .sel(interval=direct["interval"])
        .values,
        direct["coverage"].values,
    )
    json.dumps(coverage.summary(ds), default=float)
    assert coverage.plot(ds, tmp_path / "c.png").stat().st_size > 10_000
    with pytest.raises(ValueError, match="another configuration"):
        coverage.run_study(_config(reps=201), out, n_workers=1, progress=False)


def test_config_validation(tmp_path):
    path = tmp_path / "c.toml"
    path.write_text("M = [5]\nbogus = 1\n")
    with pytest.raises(ValueError, match="unknown keys"):
        coverage.load_config(path)
    path.write_text('M = [5]\nscenarios = ["nope"]\n')
    with pytest.raises(ValueError, match="unknown"):
        coverage.load_config(path)
    path.write_text("M = [5, 15]\nN = [2]\nreps = 50\n")
    assert coverage.load_config(path).M == [5, 15]


def test_elicit_beta_hits_the_statement():
    prior = elicitation.elicit_beta(0.3, 0.6, 0.9)
    b, a = prior.alpha
    np.testing.assert_allclose(beta_dist.ppf([0.05, 0.95], a, b), [0.3, 0.6], atol=1e-8)
    assert prior.depth == pytest.approx(a + b - 2)
    wide = elicitation.elicit_beta(0.025, 0.975, 0.95)  # ~ the uniform prior: depth ~ 0
    assert abs(wide.depth) < 0.1
    with pytest.raises(ValueError, match="0 < lo < hi < 1"):
        elicitation.elicit_beta(0.6, 0.3)


def test_elicit_dirichlet_and_prior_predictive_and_sensitivity(rng):
    prior = elicitation.elicit_dirichlet([[0.1, 0.4], [0.1, 0.3], [0.4, 0.7]], 0.9)
    assert prior.alpha.shape == (3,) and np.all(prior.alpha > 0)
    assert np.abs(prior.achieved - [[0.1, 0.4], [0.1, 0.3], [0.4, 0.7]]).max() < 0.05
    pp = elicitation.prior_predictive(prior, [0, 0.5, 1], n_questions=30, draws=4000)
    mean_w = (prior.alpha / prior.alpha.sum()) @ [0, 0.5, 1]
    assert pp["pi_bar_mean"] == pytest.approx(mean_w, abs=0.01)
    R = rng.integers(0, 3, size=(3, 10, 4))
    ds = elicitation.sensitivity(R, prior, [0, 0.5, 1])
    np.testing.assert_allclose(
        ds["mu"].sel(prior="elicited"), be.bayes(R, [0, 0.5, 1], alpha0=prior.alpha)[0]
    )
    with pytest.raises(ValueError, match="sum to 1"):
        elicitation.elicit_dirichlet([[0.6, 0.7], [0.6, 0.7]], 0.9)


def test_cli_elicit(capsys, tmp_path):
    from bayes_eval.cli import main

    assert (
        main(["validate", "elicit", "--lo", "0.3", "--hi", "0.6", "--prob", "0.9", "--json"]) == 0
    )
    out = json.loads(capsys.readouterr().out)
    assert out["prior"]["depth"] > 0 and "pi_bar_quantiles" in out["prior_predictive"]
    assert main(["validate", "elicit"]) == 2


@pytest.mark.pymc
@pytest.mark.slow
def test_hierarchical_nuts_rows_on_a_sub_grid():
    cfg = _config(
        reps=50,
        exact_reps=50,
        nuts_cells=[["uniform", 1, 5, 4]],
        nuts_reps=3,
        nuts_draws=150,
    )
    ds = coverage.run_cell(("uniform", 1, 5, 4), cfg).squeeze(drop=True)
    assert int(ds["n_reps"].sel(interval="hierarchical_nuts")) == 3
    assert 0.0 < float(ds["width"].sel(interval="hierarchical_nuts")) < 1.0
    other = coverage.run_cell(("uniform", 1, 30, 4), cfg)
    assert "hierarchical_nuts" not in other["interval"].values


@pytest.mark.slow
def test_study_on_an_existing_scheduler_address(tmp_path):
    """--scheduler tcp://HOST:PORT: the same study submitted to a running cluster (loopback)."""
    from dask.distributed import LocalCluster

    cfg = _config(M=[5], N=[2], scenarios=["uniform"], reps=100, exact_reps=100)
    with LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None, host="127.0.0.1"
    ) as cluster:
        assert cluster.scheduler_address.startswith("tcp://127.0.0.1:")
        ds, info = coverage.run_study(
            cfg, tmp_path / "s", scheduler=cluster.scheduler_address, progress=False
        )
    assert len(info["computed"]) == 1 and (tmp_path / "s" / "coverage.nc").exists()
    assert float(ds["coverage"].sel(interval="bayes_exact").squeeze()) > 0.8
