"""Coverage harness (tiny seeded grid, Dask LocalCluster of 2 workers on loopback, resume after
an interruption) and prior elicitation."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import warnings

import numpy as np
import pytest
from scipy import special
from scipy.stats import beta as beta_dist

import bayes_eval as be
from bayes_eval.validation import coverage, elicitation


def _config(**kw):
    base = dict(
        M=[5, 30],
        N=[1, 4],
        C=[1],
        scenarios=["uniform", "anchored"],
        replicates=400,
        exact_replicates=400,
        bootstrap_resamples=100,
        empirical_exact_replicates=0,  # off unless a test asks for it
        seed=1,
    )
    base.update(kw)
    return coverage.CoverageConfig(**base)


@pytest.mark.slow
def test_cell_well_specified_bayes_covers():
    """Under the uniform prior the exact credible interval has exact frequentist coverage;
    with 4000 replicates its MC error is 0.34 points, so +-1.5 points is over 4 SE."""
    cfg = _config(replicates=4000, exact_replicates=4000, empirical_exact_replicates=1)
    ds = coverage.run_cell(("uniform", 1, 5, 1), cfg).squeeze(drop=True)
    cov = ds["coverage"]
    assert abs(float(cov.sel(interval="uniform_exact")) - 0.95) < 0.015
    assert abs(float(cov.sel(interval="uniform")) - 0.95) < 0.02
    # the CLT interval over questions undercovers at M = 5 (Bowyer et al.)
    assert float(cov.sel(interval="wald")) < 0.95 - 4 * float(
        ds["coverage_mc_se"].sel(interval="wald")
    )
    assert set(cov["interval"].values) >= {
        "wilson",
        "clopper_pearson",
        "bootstrap",
        "peer_clipped",
        "jeffreys",
        "empirical",
        "empirical_plugin",
        "empirical_exact",
    }
    assert 0.0 <= float(ds["claim_error_bayes"]) <= 0.2


def test_rubric_cells_take_the_exact_learned_prior_interval():
    """Three categories: the exact learned-prior interval (one shared lattice, milliseconds a
    model) is in the table beside the normal one; on the same 60 replicates the two agree
    on coverage to within a few replicates (their endpoints differ by a share of an sd)."""
    cfg = _config(
        C=[2],
        scenarios=["beta_mixture"],
        replicates=60,
        exact_replicates=0,
        bootstrap_resamples=0,
        empirical_exact_replicates=60,
    )
    ds = coverage.run_cell(("beta_mixture", 2, 15, 2), cfg).squeeze(drop=True)
    cov = ds["coverage"]
    exact, normal = float(cov.sel(interval="empirical_exact")), float(cov.sel(interval="empirical"))
    assert 0.8 <= exact <= 1.0 and abs(exact - normal) <= 4 / 60
    assert np.isfinite(float(ds["sd_over_rmse"].sel(interval="empirical_exact")))


def test_report_separates_under_and_over_coverage():
    # a synthetic result: one method undercovers at M = 30, another overcovers at M = 15;
    # M = 5 is outside the report's M >= 15 target and never counted
    import xarray as xr

    cov = np.array([[[0.80, 0.95], [0.95, 0.99], [0.95, 0.951]]])  # (N, M, interval)
    ds = xr.Dataset(
        {
            "coverage": (("N", "M", "interval"), cov),
            "coverage_mc_se": (("N", "M", "interval"), np.full(cov.shape, 0.003)),
            "sd_over_rmse": (
                ("N", "M", "interval"),
                np.array([[[0.7, 1.0], [1.1, 1.6], [1.0, 1.3]]]),
            ),
            "claim_error_bayes": ((), 0.01),
            "claim_error_wald": ((), 0.02),
        },
        coords={"N": [4], "M": [5, 15, 30], "interval": ["a", "b"]},
    ).expand_dims(scenario=["anchored"], C=[1])
    rep = coverage.summary(ds)
    a, b = (rep["headline"]["anchored"][k] for k in ("a", "b"))
    assert a["under_pp"] == 0.0 and a["over_pp"] == 0.0 and a["within_2pp"]
    assert b["under_pp"] == 0.0 and b["over_pp"] == 4.0 and not b["within_2pp"]
    assert b["misses"] == [[1, 15, 4, 0.99]]
    assert coverage.table(ds, "anchored", ["b", "a"]).columns.tolist() == ["b", "a"]
    # the human-readable report: an aligned row per method, coverage per M, misses counted
    lines = coverage.report_lines(rep)
    head = lines.index("scenario anchored (headline: real or misspecified rates)")
    # sd/RMSE: the range over the cells with M >= 15 (M = 5's 0.7 is outside)
    assert a["sd_over_rmse"] == [1.0, 1.1] and b["sd_over_rmse"] == [1.3, 1.6]
    head_row = ["method", "M=5", "M=15", "M=30", "under", "over", "misses", "sd/RMSE"]
    assert lines[head + 1].split() == head_row
    row_a = ["a", "0.800", "0.950", "0.950", "0.0", "0.0", "0/2", "1.00-1.10"]
    row_b = ["b", "0.950", "0.990", "0.951", "0.0", "4.0", "1/2", "1.30-1.60"]
    assert lines[head + 2].split() == row_a
    assert lines[head + 3].split() == row_b
    assert all(len(line) < 200 for line in lines)


def test_categorical_cell_and_scenarios():
    cfg = _config(C=[2], scenarios=["dirichlet", "beta_mixture"], replicates=300)
    for scenario in ("dirichlet", "beta_mixture"):
        ds = coverage.run_cell((scenario, 2, 15, 4), cfg)
        assert "wilson" not in ds["interval"].values  # binary-only methods are absent for C > 1
        assert "uniform_exact" not in ds["interval"].values  # exact_categorical is off
        assert np.isfinite(ds["coverage"]).all()


@pytest.mark.slow
def test_study_resumes_after_interruption_on_a_local_cluster(tmp_path):
    cfg = _config(replicates=200, exact_replicates=200)
    out = tmp_path / "study"
    _partial, info = coverage.run_grid(cfg, out, n_workers=2, max_cells=3, progress=False)
    assert len(info["computed"]) == 3 and info["pending"] == len(cfg.cells()) - 3
    assert not (out / "coverage.nc").exists()  # incomplete studies are not merged to the final file
    first = {p.name: p.stat().st_mtime_ns for p in (out / "cells").glob("*.nc")}
    ds, info2 = coverage.run_grid(cfg, out, n_workers=2, progress=False)
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
        coverage.run_grid(
            _config(replicates=201, exact_replicates=200), out, n_workers=1, progress=False
        )


def test_config_validation(tmp_path):
    path = tmp_path / "c.toml"
    path.write_text("M = [5]\nbogus = 1\n")
    with pytest.raises(ValueError, match="unknown keys"):
        coverage.load_config(path)
    path.write_text('M = [5]\nscenarios = ["nope"]\n')
    with pytest.raises(ValueError, match="unknown"):
        coverage.load_config(path)
    path.write_text("M = [5, 15]\nN = [2]\nreplicates = 50\n")
    assert coverage.load_config(path).M == [5, 15]


def _elicit(*args, **kw):
    """elicit_beta with the warning silenced (tests of the warning use pytest.warns)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", elicitation.ElicitationWarning)
        return elicitation.elicit_beta(*args, **kw)


def test_elicit_beta_hits_the_statement():
    prior = _elicit(0.3, 0.6, 0.9, level="question", n_questions=30)
    b, a = prior.alpha
    np.testing.assert_allclose(beta_dist.ppf([0.05, 0.95], a, b), [0.3, 0.6], atol=1e-8)
    assert prior.depth == pytest.approx(a + b - 2)
    wide = _elicit(0.025, 0.975, 0.95, level="question", n_questions=1)  # ~ uniform: depth ~ 0
    assert abs(wide.depth) < 0.1
    bench = elicitation.elicit_beta(0.3, 0.6, 0.9, level="benchmark", n_questions=30)
    np.testing.assert_allclose(bench.hyper_alpha, prior.alpha)  # the same Beta, on m
    assert bench.alpha is None and bench.concentration == elicitation.DEFAULT_CONCENTRATION


def test_elicitation_warning_on_the_audit_example():
    """'Accuracy in [0.3, 0.6] with probability 0.9' read per question: Beta(12.9, 15.9) on
    every question, worth 26.8 trials, implies pi-bar in [0.420, 0.475] at M = 30."""
    with pytest.warns(elicitation.ElicitationWarning, match=r"5\.5 times narrower") as rec:
        prior = elicitation.elicit_beta(0.3, 0.6, 0.9, level="question", n_questions=30)
    msg = str(rec[0].message)
    assert "[0.421, 0.475]" in msg and "0.182" in msg and "level='benchmark'" in msg
    assert issubclass(elicitation.ElicitationWarning, UserWarning)
    np.testing.assert_allclose(prior.alpha, [15.92, 12.92], atol=0.01)
    assert prior.depth == pytest.approx(26.84, abs=0.01)
    np.testing.assert_allclose(prior.implied, [0.4206, 0.4753], atol=5e-4)
    np.testing.assert_allclose(prior.stated, [0.3, 0.6])
    assert 1 / prior.width_ratio == pytest.approx(5.49, abs=0.02)
    # exact lattice vs Monte Carlo (20 000 draws of 30 questions)
    draws = np.random.default_rng(0).beta(12.92, 15.92, size=(20_000, 30)).mean(-1)
    np.testing.assert_allclose(np.quantile(draws, [0.05, 0.95]), prior.implied, atol=2e-3)
    # one question: the statement itself, no warning; the threshold is a keyword
    with warnings.catch_warnings():
        warnings.simplefilter("error", elicitation.ElicitationWarning)
        one = elicitation.elicit_beta(0.3, 0.6, 0.9, level="question", n_questions=1)
        np.testing.assert_allclose(one.implied, [0.3, 0.6], atol=1e-4)
        elicitation.elicit_beta(0.3, 0.6, 0.9, level="question", n_questions=30, warn_ratio=0.1)


def test_benchmark_level_matches_the_statement_without_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error", elicitation.ElicitationWarning)
        prior = elicitation.elicit_beta(0.3, 0.6, 0.9, level="benchmark", n_questions=30)
        big = elicitation.elicit_beta(0.3, 0.6, 0.9, level="benchmark", n_questions=5000)
    # pi-bar is a finite average around m: a little wider than the statement, not narrower
    assert 1.0 < prior.width_ratio < 1.4
    assert prior.implied[0] < 0.3 and prior.implied[1] > 0.6
    assert np.abs(prior.implied - [0.3, 0.6]).max() < 0.05
    np.testing.assert_allclose(big.implied, [0.3, 0.6], atol=0.005)  # M -> inf: m itself
    assert prior.depth == pytest.approx(-1.0)  # Beta(m, 1 - m) per question: s - 2
    np.testing.assert_allclose(prior.per_question_alpha(0.25), [0.75, 0.25])
    d = prior.as_dict()
    assert d["level"] == "benchmark" and d["implied_pi_bar"] == prior.implied.tolist()
    json.dumps(d)
    # few questions: pi-bar scatters around m, much wider than the statement
    with pytest.warns(elicitation.ElicitationWarning, match="wider"):
        elicitation.elicit_beta(0.3, 0.6, 0.9, level="benchmark", n_questions=2)


def test_hyper_grid_integrates_the_beta_hyperprior():
    prior = elicitation.elicit_beta(0.3, 0.6, 0.9, level="benchmark", n_questions=30)
    b, a = prior.hyper_alpha
    s = prior.concentration
    for rule, n, tol in [("gauss-jacobi", 16, 1e-12), ("quantile", 400, 1e-4)]:
        nodes, log_w = prior.hyper_grid(n, rule=rule)
        assert nodes.shape == (n, 2) and log_w.shape == (n,)
        wts = np.exp(log_w)
        assert wts.sum() == pytest.approx(1.0, abs=1e-12)
        np.testing.assert_allclose(nodes.sum(1), s)
        m = nodes[:, 1] / s
        mean = wts @ m
        assert mean == pytest.approx(beta_dist.mean(a, b), abs=tol)
        assert wts @ (m - mean) ** 2 == pytest.approx(beta_dist.var(a, b), rel=100 * tol)
    # a non-polynomial moment, E[log m] = digamma(a) - digamma(a + b)
    nodes, log_w = prior.hyper_grid(32)
    expected = special.digamma(a) - special.digamma(a + b)
    assert np.exp(log_w) @ np.log(nodes[:, 1] / s) == pytest.approx(expected, abs=1e-10)
    q = _elicit(0.3, 0.6, 0.9, level="question", n_questions=30)  # degenerate grid: one node
    nodes, log_w = q.hyper_grid(8)
    np.testing.assert_array_equal(nodes, q.alpha[None])
    np.testing.assert_array_equal(log_w, [0.0])


def test_benchmark_sensitivity_mixes_the_closed_form_posteriors(rng):
    """Against the integrated prior on a fine Gauss-Jacobi grid: weights proportional to the
    prior weight times the Dirichlet-multinomial likelihood, Bayes@N moments at each node."""
    prior = elicitation.elicit_beta(0.3, 0.6, 0.9, level="benchmark", n_questions=8)
    R = (rng.random((3, 8, 3)) < np.array([0.7, 0.4, 0.1])[:, None, None]).astype(int)
    ds = elicitation.sensitivity(R, prior, models=["a", "b", "c"])
    assert ds.attrs["level"] == "benchmark"
    np.testing.assert_allclose(ds["mu"].sel(prior="uniform"), be.bayes(R)[0])
    nodes, log_w = prior.hyper_grid(200)
    for i, name in enumerate("abc"):
        k = R[i].sum(1)
        loglik = np.array(
            [
                (special.betaln(a1 + k, a0 + 3 - k) - special.betaln(a1, a0)).sum()
                for a0, a1 in nodes
            ]
        )
        wts = np.exp(log_w + loglik - special.logsumexp(log_w + loglik))
        mus, sds = np.array([be.bayes(R[i], alpha0=al) for al in nodes]).T
        mu = wts @ mus
        sd = np.sqrt(wts @ (sds**2 + (mus - mu) ** 2))
        assert float(ds["mu"].sel(prior="elicited", model=name)) == pytest.approx(mu, abs=1e-10)
        assert float(ds["sigma"].sel(prior="elicited", model=name)) == pytest.approx(sd, abs=1e-10)
    pp = elicitation.prior_predictive(prior, draws=4000)
    assert pp["level"] == "benchmark" and pp["n_questions"] == 8
    b, a = prior.hyper_alpha
    assert pp["pi_bar_mean"] == pytest.approx(a / (a + b), abs=0.01)  # E[pi-bar] = E[m]


def test_elicitation_bad_input():
    with pytest.raises(ValueError, match="0 < lo < hi < 1"):
        elicitation.elicit_beta(0.6, 0.3, level="benchmark", n_questions=30)
    with pytest.raises(TypeError, match="level='benchmark'"):
        elicitation.elicit_beta(0.3, 0.6)
    with pytest.raises(TypeError, match="n_questions"):
        elicitation.elicit_beta(0.3, 0.6, level="benchmark")
    with pytest.raises(ValueError, match="level is 'model'"):
        elicitation.elicit_beta(0.3, 0.6, level="model", n_questions=30)
    with pytest.raises(ValueError, match="n_questions"):
        elicitation.elicit_beta(0.3, 0.6, level="benchmark", n_questions=0)
    with pytest.raises(ValueError, match="concentration"):
        elicitation.elicit_beta(0.3, 0.6, level="benchmark", n_questions=30, concentration=-1)
    with pytest.raises(ValueError, match="warn_ratio"):
        elicitation.elicit_beta(0.3, 0.6, level="benchmark", n_questions=30, warn_ratio=2)
    with pytest.raises(ValueError, match="binary accuracy only"):
        elicitation.elicit_dirichlet(
            [[0.1, 0.4], [0.1, 0.3], [0.4, 0.7]], level="benchmark", n_questions=30
        )
    bench = elicitation.elicit_beta(0.3, 0.6, level="benchmark", n_questions=30)
    with pytest.raises(ValueError, match="binary"):
        elicitation.sensitivity(np.tile([0, 1, 2], (2, 4, 1)), bench, [0, 0.5, 1])
    with pytest.raises(ValueError, match="rule"):
        bench.hyper_grid(8, rule="simpson")
    with pytest.raises(ValueError, match=r"\(0, 1\)"):
        bench.per_question_alpha(1.0)
    with pytest.raises(ValueError, match=r"use \.alpha"):
        _elicit(0.3, 0.6, level="question", n_questions=30).per_question_alpha(0.5)


def test_elicit_dirichlet_and_prior_predictive_and_sensitivity(rng):
    intervals = [[0.1, 0.4], [0.1, 0.3], [0.4, 0.7]]
    with pytest.warns(elicitation.ElicitationWarning, match="narrower"):
        prior = elicitation.elicit_dirichlet(intervals, 0.9, level="question", n_questions=30)
    assert prior.alpha.shape == (3,) and np.all(prior.alpha > 0)
    assert np.abs(prior.achieved - intervals).max() < 0.05
    assert prior.width_ratio < 0.5  # one question's score interval vs pi-bar's at M = 30
    pp = elicitation.prior_predictive(prior, [0, 0.5, 1], n_questions=30, draws=4000)
    mean_w = (prior.alpha / prior.alpha.sum()) @ [0, 0.5, 1]
    assert pp["pi_bar_mean"] == pytest.approx(mean_w, abs=0.01)
    R = rng.integers(0, 3, size=(3, 10, 4))
    ds = elicitation.sensitivity(R, prior, [0, 0.5, 1])
    np.testing.assert_allclose(
        ds["mu"].sel(prior="elicited"), be.bayes(R, [0, 0.5, 1], alpha0=prior.alpha)[0]
    )
    with pytest.raises(ValueError, match="sum to 1"):
        elicitation.elicit_dirichlet([[0.6, 0.7], [0.6, 0.7]], 0.9, level="question", n_questions=5)


@pytest.mark.filterwarnings("ignore:question-level prior")
def test_elicit_dirichlet_warns_when_the_category_statements_contradict_each_other():
    # two categories: share s in [0.5, 0.9] and 1 - s in [0.5, 0.9] with 90% each is
    # impossible (it needs P(s >= 0.5) and P(s <= 0.5) both >= 0.9); the fit is Dir(8, 8)
    with pytest.warns(elicitation.ElicitationWarning, match="do not hold together") as rec:
        prior = elicitation.elicit_dirichlet(
            [[0.5, 0.9], [0.5, 0.9]], 0.9, level="question", n_questions=30
        )
    msg = next(str(r.message) for r in rec if "hold together" in str(r.message))
    assert "category 1 in [0.100, 0.500]" in msg and "misses category" in msg
    assert np.abs(prior.achieved - [[0.5, 0.9], [0.5, 0.9]]).max() > 0.15
    # mirrored statements are consistent: no such warning, achieved to 1e-4
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        prior = elicitation.elicit_dirichlet(
            [[0.1, 0.5], [0.5, 0.9]], 0.9, level="question", n_questions=30
        )
    assert not any("hold together" in str(r.message) for r in rec)
    np.testing.assert_allclose(prior.achieved, [[0.1, 0.5], [0.5, 0.9]], atol=1e-4)


@pytest.mark.slow
def test_cli_elicit_reports_inconsistent_categories(capsys, tmp_path):
    from bayes_eval.cli import main

    argv = ["validate", "elicit", "--categories", "0.5:0.9,0.5:0.9", "--level", "question"]
    assert main([*argv, "--simulations", "500", "--out", str(tmp_path), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert any("do not hold together" in w for w in out["warnings"])
    assert main([*argv, "--draws", "500", "--out", str(tmp_path)]) == 0
    text = capsys.readouterr().out
    assert "achieved 90% intervals of the category shares" in text
    assert "warning: the category statements do not hold together" in text


@pytest.mark.slow
def test_cli_elicit(capsys, tmp_path):
    from bayes_eval.cli import main

    argv = ["validate", "elicit", "--lo", "0.3", "--hi", "0.6", "--prob", "0.9"]
    assert main([*argv, "--out", str(tmp_path), "--json"]) == 0
    captured = capsys.readouterr()
    out = json.loads(captured.out)
    assert out["level"] == "benchmark" and "level: benchmark (default)" in captured.err
    assert out["warning"] is None and out["n_questions"] == 30
    assert out["stated"] == [0.3, 0.6] and 1.0 < out["width_ratio"] < 1.4
    assert "pi_bar_quantiles" in out["prior_predictive"]
    argv = ["validate", "elicit", "--lo", "0.3", "--hi", "0.6", "--level", "question"]
    argv += ["--out", str(tmp_path)]
    assert main([*argv, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["prior"]["depth"] > 0 and "5.5 times narrower" in out["warning"]
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert "implied 90% interval of pi-bar for M = 30 questions: [0.421, 0.475]" in text
    assert "warning: question-level prior" in text and "--level benchmark" in text
    assert main(["validate", "elicit"]) == 2
    assert main(["validate", "elicit", "--categories", "0.1:0.4,0.1:0.3,0.4:0.7"]) == 2
    assert "--level question" in capsys.readouterr().err


@pytest.mark.pymc
@pytest.mark.slow
def test_hierarchical_and_mixture_nuts_rows_on_a_sub_grid():
    cfg = _config(
        replicates=50,
        exact_replicates=50,
        nuts_cells=[["uniform", 1, 5, 4]],
        nuts_replicates=3,
        nuts_draws=150,
        nuts_models=["hierarchical", "mixture"],
    )
    ds = coverage.run_cell(("uniform", 1, 5, 4), cfg).squeeze(drop=True)
    for name in ("hierarchical_nuts", "mixture_nuts"):
        assert int(ds["n_reps"].sel(interval=name)) == 3
        assert 0.0 < float(ds["width"].sel(interval=name)) < 1.0
    assert {"nuts_max_rhat", "mixture_nuts_max_rhat", "mixture_nuts_divergences"} <= set(ds)
    other = coverage.run_cell(("uniform", 1, 30, 4), cfg)
    assert "hierarchical_nuts" not in other["interval"].values


def test_nuts_models_are_checked_and_the_default_keeps_old_digests():
    cells = [["uniform", 1, 5, 4]]
    for bad in (["crossed"], [], "mixture", ["mixture", "mixture"]):
        with pytest.raises(ValueError, match="nuts_models"):
            _config(nuts_models=bad, nuts_cells=cells).validate()
    with pytest.raises(ValueError, match="nuts_cells is empty"):
        _config(nuts_models=["mixture"]).validate()
    plain = _config()
    assert plain.nuts_models == ["hierarchical"]
    # the default is left out of the digest: a study started before the key still resumes
    former = {new: old for old, new in coverage.RENAMED_KEYS.items()}
    values = {former.get(k, k): v for k, v in dataclasses.asdict(plain).items()}
    del values["nuts_models"]
    want = hashlib.sha256(json.dumps(values, sort_keys=True).encode()).hexdigest()[:16]
    assert plain.digest() == want
    assert _config(nuts_models=("hierarchical",)).digest() == want
    assert _config(nuts_models=["hierarchical", "mixture"]).digest() != want


@pytest.mark.slow
def test_study_on_an_existing_scheduler_address(tmp_path):
    """--scheduler tcp://HOST:PORT: the same study submitted to a running cluster (loopback)."""
    from dask.distributed import LocalCluster

    cfg = _config(M=[5], N=[2], scenarios=["uniform"], replicates=100, exact_replicates=100)
    with LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None, host="127.0.0.1"
    ) as cluster:
        assert cluster.scheduler_address.startswith("tcp://127.0.0.1:")
        ds, info = coverage.run_grid(
            cfg, tmp_path / "s", scheduler=cluster.scheduler_address, progress=False
        )
    assert len(info["computed"]) == 1 and (tmp_path / "s" / "coverage.nc").exists()
    assert float(ds["coverage"].sel(interval="uniform_exact").squeeze()) > 0.8


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"format": "csv", "lo": 0.3, "hi": 0.6}, "no FILE is given"),
        ({"lo": 0.3, "hi": 0.6, "level": "question", "concentration": 2.0}, "drop --concentration"),
        (
            {"categories": ("0.1:0.5", "0.5:0.9"), "level": "question", "concentration": 2.0},
            "drop --concentration",
        ),
        ({"categories": ("0.1:0.5", "0.5:0.9"), "level": "question", "lo": 0.1}, "give one of"),
    ],
)
def test_elicit_options_that_would_do_nothing_are_refused(options, message):
    from bayes_eval.validation.registry import make_config

    with pytest.raises(ValueError, match=message):
        make_config("elicit", **options)
    # the benchmark-level spread is accepted where it acts
    assert make_config("elicit", lo=0.3, hi=0.6, concentration=3.0).concentration == 3.0


@pytest.mark.slow
def test_cli_elicit_method_maxent_is_preliz(capsys, tmp_path):
    from bayes_eval.cli import main
    from bayes_eval.validation.elicitation import maxent_beta

    argv = ["validate", "elicit", "--lo", "0.05", "--hi", "0.2", "--method", "maxent"]
    assert main([*argv, "--simulations", "500", "--out", str(tmp_path), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    b, a = out["prior"]["hyper_alpha"]  # (fail, pass) order, as the alpha of the prior
    np.testing.assert_allclose([a, b], maxent_beta(0.05, 0.2, 0.9), rtol=1e-6)
    with pytest.raises(ValueError, match="drop --method"):
        from bayes_eval.validation.registry import make_config

        make_config("elicit", categories=("0.1:0.5", "0.5:0.9"), level="question", method="maxent")
