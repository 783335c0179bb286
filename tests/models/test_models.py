"""PyMC models against the closed form and against simulated truth (seeded, small).

Tolerances: NUTS estimates are compared with the closed form in units of their Monte Carlo
standard error (|z| < 4: a |z| of 4 has probability 6e-5 under a correct sampler, and the
threshold held across 40 seeds when it was chosen); recovery checks use the models' own 95%
intervals. Convergence is checked with what holds on any machine and BLAS build: a
divergence rate of at most 0.5% of the draws, r-hat and bulk-ESS bounds (see
``_assert_converged``), never an exact zero. PyMC's own thresholds (r-hat 1.01, ESS 100 per
chain), which :func:`sample` warns about, are asserted on the easy matching-model fits only;
the short hierarchical, crossed and power-prior runs here can cross them (e.g. the crossed
model's r-hat 1.011), so their :class:`ConvergenceWarning` is silenced and the documented
bounds of ``_assert_converged`` apply instead.
"""

from __future__ import annotations

import json
import os
import re
import warnings

import numpy as np
import pymc as pm
import pytest
from scipy import stats
from scipy.special import expit

import bayes_eval as be
from bayes_eval.models import (
    ConvergenceWarning,
    Diagnostics,
    crosscheck,
    crossed_model,
    diagnostics,
    hierarchical_model,
    load,
    matching_model,
    model_info,
    power_prior_model,
    prior_sensitivity,
    sample,
    save,
)
from bayes_eval.models.sampling import ESS_PER_CHAIN_MIN, RHAT_MAX, usable_cpus
from bayes_eval.models.sensitivity import plot_prior_sensitivity
from bayes_eval.nuts import NutsSettings

pytestmark = [
    pytest.mark.pymc,
    pytest.mark.slow,
    pytest.mark.filterwarnings("ignore::bayes_eval.models.ConvergenceWarning"),
]

DRAWS = dict(draws=1000, tune=600, chains=2, seed=3)
R_CAT = np.array([[0, 1, 2, 2, 1], [1, 1, 0, 2, 2]])
W_CAT = [0, 0.5, 1]
# the worked examples of scorio's documentation and of the Bayes@N project page, batched:
# model 0 without R0, model 1 with the greedy run. The fits on these data (2 models x 2
# questions x 3 categories) share one compiled graph: PyTensor's cache is per shape.
R_SEED = np.stack([R_CAT, R_CAT])
R0_SEED = np.ma.masked_array(
    np.stack([[[0], [0]], [[2], [1]]]), np.array([[[True], [True]], [[False], [False]]])
)


def _seed_model():
    return matching_model(R_SEED, W_CAT, R0_SEED)


def _assert_converged(idata, *, max_divergence_rate=0.005, max_rhat=1.05, min_ess=100):
    """Divergences at most 0.5% of the post-warm-up draws; r-hat and bulk ESS of every element
    of the low-dimensional posterior variables (all but the per-question ones: hyperparameters,
    per-model abilities, ``pi_bar``) within bounds.

    The bounds hold with the draws used here (2 chains x 800-1000) on any machine: over 6-18
    sampler seeds per test the worst r-hat was 1.017 and the least ESS 257, except the crossed
    model's ``sigma_b`` (bulk ESS down to 140, r-hat up to 1.031; 1.047 on other data of the
    same generator; see the crossed model's docstring). A chain pair that has not mixed gives
    r-hat well above 1.05 or ESS in the tens.
    """
    import arviz as az

    stats_ = idata["sample_stats"]
    n_draws = stats_["diverging"].size
    n_div = int(stats_["diverging"].sum())
    assert n_div <= max_divergence_rate * n_draws, (n_div, n_draws)
    post = idata["posterior"].to_dataset()
    names = [v for v in post.data_vars if "question" not in post[v].dims]
    assert names, "no low-dimensional posterior variable to check"
    rhat = az.rhat(post[names])
    ess = az.ess(post[names], method="bulk")
    for v in names:
        assert float(rhat[v].max()) <= max_rhat, (v, rhat[v].values)
        assert float(ess[v].min()) >= min_ess, (v, ess[v].values)


def _assert_pymc_thresholds(idata):
    """The stored diagnostics are those of :func:`diagnostics`, and an easy matching-model fit
    meets PyMC's r-hat and ESS thresholds: over 20 sampler seeds of each of the three matching
    models sampled here (2 chains x 1000 draws), the worst r-hat was 1.0068 and the least tail
    ESS 839 (4x the threshold of 200); divergences are held to the 0.5% rate of
    ``_assert_converged``, not to an exact zero."""
    d = diagnostics(idata)
    assert Diagnostics.from_attrs(idata.attrs) == d
    chains = idata["posterior"].sizes["chain"]
    assert d.max_rhat <= RHAT_MAX, d.messages
    assert min(d.min_ess_bulk, d.min_ess_tail) >= ESS_PER_CHAIN_MIN * chains, d.messages
    assert d.divergence_rate <= 0.005
    assert d.converged == (d.divergences == 0)


def _within_mcse(idata, tol=4.0):
    import arviz as az

    post = idata["posterior"].to_dataset()
    closed = idata["closed_form"].to_dataset()
    mean = post["pi_bar"].mean(("chain", "draw")).values
    sd = post["pi_bar"].std(("chain", "draw")).values
    se_mean = az.mcse(post[["pi_bar"]], method="mean")["pi_bar"].values
    se_sd = az.mcse(post[["pi_bar"]], method="sd")["pi_bar"].values
    np.testing.assert_array_less(np.abs(mean - closed["mu"].values), tol * se_mean)
    np.testing.assert_array_less(np.abs(sd - closed["sigma"].values), tol * se_sd)
    _assert_converged(idata)
    _assert_pymc_thresholds(idata)


def test_extras_installed():
    import arviz
    import h5netcdf
    import nutpie

    assert int(pm.__version__.split(".")[0]) >= 6 and int(arviz.__version__.split(".")[0]) >= 1
    assert h5netcdf and nutpie


def test_matching_model_structure():
    model = matching_model(R_CAT, [0, 0.5, 1], models=["x"])
    assert model.coords["model"] == ("x",) and len(model.coords["category"]) == 3
    assert {v.name for v in model.free_RVs} == {"pi"}
    assert "pi_bar" in model.named_vars
    assert model.named_vars_to_dims["pi"] == ("model", "question", "category")


def test_model_info_is_read_from_the_model():
    """Every builder's model describes itself (coords, named pm.Data, free variables):
    ``model_info`` derives the kind, data and closed-form reference from it, nothing is stored
    on the model object, and data set later with ``pm.set_data`` are what it reads."""
    from bayes_eval.models.model_data import model_data
    from bayes_eval.models.sampling import closed_form_dataset

    rng = np.random.default_rng(0)
    R = rng.integers(0, 3, size=(2, 5, 4))
    R0 = rng.integers(0, 3, size=(2, 5, 2))
    w = [0.0, 0.5, 1.0]
    want = model_data(R, w, R0, alpha0=0.5)
    base = want.alpha0 + want.counts
    models = {
        "matching": matching_model(R, w, R0, alpha0=0.5),
        "fixed": power_prior_model(R, w, R0, alpha0=0.5, a0=0.25),
        "learned": power_prior_model(R, w, R0, alpha0=0.5),
        "hierarchical": hierarchical_model(R, w),
        "crossed": crossed_model(R.clip(0, 1)),
    }
    info = {k: model_info(m) for k, m in models.items()}
    assert {k: i.kind for k, i in info.items()} == {
        "matching": "matching",
        "fixed": "power_prior",
        "learned": "power_prior",
        "hierarchical": "hierarchical",
        "crossed": "crossed",
    }
    for key in ("matching", "fixed", "learned"):
        for name in ("counts", "n_trials", "prior_counts", "w", "alpha0"):
            np.testing.assert_array_equal(getattr(info[key].data, name), getattr(want, name))
        assert info[key].data.coords == want.coords
    np.testing.assert_array_equal(info["matching"].reference[""], base + want.prior_counts)
    np.testing.assert_array_equal(info["fixed"].reference[""], base + 0.25 * want.prior_counts)
    assert "a0 = 0.25" in info["fixed"].reference_note
    assert set(info["learned"].reference) == {"", "without_R0"}
    assert info["learned"].conditional is not None and info["matching"].conditional is None
    hier = info["hierarchical"]
    np.testing.assert_array_equal(hier.data.counts, want.counts)
    np.testing.assert_array_equal(hier.reference[""], 1.0 + want.counts)
    np.testing.assert_array_equal(hier.data.w, w)
    assert hier.conditional is not None and hier.target_accept == 0.8
    binary = model_data(R.clip(0, 1))
    np.testing.assert_array_equal(info["crossed"].data.counts, binary.counts)
    np.testing.assert_array_equal(info["crossed"].data.w, [0.0, 1.0])
    assert info["crossed"].target_accept == 0.95
    assert not any(hasattr(m, "bayes_eval_info") for m in models.values())
    # the info follows the data of the model
    R2 = rng.integers(0, 3, size=(2, 5, 4))
    model = models["matching"]
    with model:
        pm.set_data({"count_data": model_data(R2, w).counts})
    closed = closed_form_dataset(model_info(model))
    np.testing.assert_allclose(closed["mu"], be.bayes(R2, w, R0, alpha0=0.5)[0], atol=1e-14)


def test_seed_examples_with_and_without_prior():
    """Worked examples of scorio's documentation and of the Bayes@N project page, batched:
    model 0 without R0, model 1 with the greedy run."""
    from bayes_eval.models.model_data import model_data

    data = model_data(R_SEED, W_CAT, R0_SEED)
    assert data.prior_counts[0].sum() == 0 and data.prior_counts[1].sum() == 2
    idata = sample(_seed_model(), **DRAWS)
    np.testing.assert_allclose(idata["closed_form"]["mu"].values, [0.5625, 0.583333], atol=1e-6)
    np.testing.assert_allclose(
        idata["closed_form"]["sigma"].values, [0.091998, 0.085165], atol=1e-6
    )
    _within_mcse(idata)


def test_seed_examples_binary_top_p():
    top_p = np.array(
        [
            [1, 1, 1, 1, 0, 1, 1],
            [1, 0, 0, 1, 0, 0, 1],
            [0, 0, 0, 0, 1, 0, 0],
            [1, 1, 1, 0, 1, 1, 0],
            [0, 0, 1, 0, 0, 0, 0],
        ]
    )
    idata = sample(matching_model(top_p, R0=np.array([[1], [1], [0], [1], [0]])), **DRAWS)
    assert idata["closed_form"]["mu"].item() == pytest.approx(0.48, abs=5e-5)
    _within_mcse(idata)


def test_crosscheck_ten_question_categorical(tmp_path):
    rng = np.random.default_rng(5)
    R = rng.integers(0, 4, size=(3, 10, 6))
    R[0][R[0] == 0] = 3  # make the first model better
    w = [0.0, 0.2, 0.6, 1.0]
    result = crosscheck(R, w, models=["a", "b", "c"], mc_draws=100_000, nuts=NutsSettings(**DRAWS))
    rows = result.models
    assert result.passed, rows[
        ["z_mean", "z_sd", "z_mc_mean", "r_hat", "ess_bulk", "failed_checks"]
    ]
    # crosscheck's default prior is the paper's uniform one
    np.testing.assert_allclose(rows["mu"], be.bayes(R, w, prior="uniform")[0], atol=1e-14)
    pairs = result.pairs
    # the Gaussian rho is close to the exact probability here (M = 10 questions of 3 categories)
    off = ~np.eye(3, dtype=bool)
    assert np.abs(pairs["normal_minus_exact"].values[off]).max() < 0.02
    sym = pairs["p_exact"].values + pairs["p_exact"].values.T
    np.testing.assert_allclose(sym[off], 1.0, atol=1e-3)
    # the whole result round-trips through NetCDF
    path = save(result.idata, tmp_path / "cc.nc")
    back = load(path)
    assert {
        "posterior",
        "sample_stats",
        "observed_data",
        "closed_form",
        "crosscheck_models",
        "crosscheck_pairs",
    } <= set(back.children)
    np.testing.assert_array_equal(
        back["posterior"]["pi_bar"].values, result.idata["posterior"]["pi_bar"].values
    )
    assert back["crosscheck_models"]["failed_checks"].values.tolist() == ["", "", ""]
    json.dumps(result.to_dict())


def test_same_seed_same_draws():
    # two models built from the same data (the seed examples': their graph is compiled once)
    a = sample(_seed_model(), draws=100, tune=100, chains=1, seed=9, warn=False)
    b = sample(_seed_model(), draws=100, tune=100, chains=1, seed=9, warn=False)
    np.testing.assert_array_equal(a["posterior"]["pi"].values, b["posterior"]["pi"].values)


def test_hierarchical_recovers_kappa_and_beta(tmp_path):
    rng = np.random.default_rng(0)
    kappa, beta = 8.0, np.array([0.2, 0.3, 0.5])
    pi = rng.dirichlet(kappa * beta, size=60)
    R = np.stack([rng.choice(3, size=10, p=p) for p in pi])
    idata = sample(hierarchical_model(R, [0, 0.5, 1]), draws=800, tune=800, chains=2, seed=1)
    post = idata["posterior"].to_dataset()
    lo, hi = post["kappa"].quantile([0.025, 0.975], dim=("chain", "draw")).values.ravel()
    assert lo < kappa < hi
    q = post["beta"].quantile([0.025, 0.975], dim=("chain", "draw")).values[:, 0, :]
    assert ((q[0] < beta) & (beta < q[1])).all()
    _assert_converged(idata)
    # pi is drawn exactly from its conditional: pi_bar is the mean of w . pi
    np.testing.assert_allclose(
        post["pi_bar"].values, (post["pi"].values @ np.array([0, 0.5, 1])).mean(-1)
    )
    true_pi_bar = (pi @ np.array([0, 0.5, 1])).mean()
    lo, hi = post["pi_bar"].quantile([0.025, 0.975], dim=("chain", "draw")).values.ravel()
    assert lo < true_pi_bar < hi
    back = load(save(idata, tmp_path / "h.nc"))
    np.testing.assert_array_equal(back["posterior"]["kappa"].values, post["kappa"].values)
    # the diagnostics survive NetCDF: stored attrs, and recomputed on the loaded draws
    d = diagnostics(idata)
    assert Diagnostics.from_attrs(back.attrs) == d == diagnostics(back)
    assert np.isfinite([d.max_rhat, d.min_ess_bulk, d.min_ess_tail]).all()


def test_crossed_model_recovers_abilities():
    rng = np.random.default_rng(4)
    theta = np.array([1.2, 0.6, 0.0, -0.5, -1.0])
    b = rng.normal(0.0, 1.5, size=30)
    p = expit(theta[:, None] - b[None, :])
    R = (rng.random((5, 30, 8)) < p[..., None]).astype(int)
    idata = sample(crossed_model(R), draws=800, tune=800, chains=2, seed=2)
    assert idata.attrs["target_accept"] == 0.95  # the crossed model's own default
    post = idata["posterior"].to_dataset()
    q = post["pi_bar"].quantile([0.025, 0.975], dim=("chain", "draw")).values
    truth = p.mean(axis=1)
    assert ((q[0] < truth) & (truth < q[1])).all()
    order = np.argsort(-post["theta"].mean(("chain", "draw")).values)
    assert stats.kendalltau(order, np.arange(5)).statistic >= 0.6
    _assert_converged(idata)
    # the mean difficulty is 0 in every draw (zero-sum), so theta is each model's mean logit
    np.testing.assert_allclose(post["b"].sum("question").values, 0.0, atol=1e-10)
    logit = np.log(post["p"] / (1 - post["p"])).mean("question")
    np.testing.assert_allclose(logit.values, post["theta"].values, atol=1e-9)
    with pytest.raises(ValueError, match="binary"):
        crossed_model(np.array([[0, 2], [1, 1]]))


def test_power_prior_endpoints_equal_fixed_counts_and_no_prior():
    rng = np.random.default_rng(1)
    R = rng.integers(0, 3, size=(2, 6, 5))
    R0 = rng.integers(0, 3, size=(2, 6, 3))
    w = [0.0, 0.5, 1.0]
    full = matching_model(R, w, R0)
    none = matching_model(R, w)
    one = power_prior_model(R, w, R0, a0=1.0)
    zero = power_prior_model(R, w, R0, a0=0.0)
    point = full.initial_point()
    fast = {"mode": "FAST_COMPILE"}  # PyTensor's Python mode: the same logp, no Numba compile
    for a, b in ((one, full), (zero, none)):
        assert a.compile_logp(**fast)(point) == pytest.approx(
            b.compile_logp(**fast)(point), abs=1e-10
        )
        np.testing.assert_array_equal(model_info(a).reference[""], model_info(b).reference[""])
    with pytest.raises(ValueError, match="needs the prior runs"):
        power_prior_model(R, w)
    with pytest.raises(ValueError, match=r"a0 is 1\.5"):
        power_prior_model(R, w, R0, a0=1.5)


def test_learned_power_prior_discounts_conflicting_runs():
    rng = np.random.default_rng(2)
    p = rng.beta(2, 2, size=40)
    R = (rng.random((2, 40, 6)) < p[None, :, None]).astype(int)
    agree = (rng.random((40, 8)) < p[:, None]).astype(int)
    conflict = (rng.random((40, 8)) < 1 - p[:, None]).astype(int)
    R0 = np.stack([agree, conflict])
    model = power_prior_model(R, None, R0)
    # the marginal likelihood is the Dirichlet-multinomial with alpha0 + a0 n0 (a0 = 0.5 here)
    logp = model.compile_logp(vars=model.observed_RVs, jacobian=False, mode="FAST_COMPILE")(
        {"a0_logodds__": np.zeros(2)}
    )
    data = model_info(model).data
    want = sum(
        stats.dirichlet_multinomial.logpmf(
            data.counts[m, a], 1.0 + 0.5 * data.prior_counts[m, a], data.n_trials[m, a]
        )
        for m in range(2)
        for a in range(40)
    )
    assert logp == pytest.approx(want, rel=1e-10)
    idata = sample(model, draws=800, tune=800, chains=2, seed=4)
    a0 = idata["posterior"]["a0"].mean(("chain", "draw")).values
    assert a0[0] > a0[1] + 0.2
    cf = idata["closed_form"].to_dataset()
    assert {"mu", "sigma", "mu_without_R0", "sigma_without_R0"} <= set(cf.data_vars)
    _assert_converged(idata)


def test_prior_sensitivity_closed_form_axes_and_kappa(tmp_path):
    rng = np.random.default_rng(3)
    R = (rng.random((3, 8, 6)) < np.array([0.7, 0.5, 0.3])[:, None, None]).astype(int)
    R0 = (rng.random((3, 8, 4)) < 0.5).astype(int)
    ds = prior_sensitivity(
        R, None, R0, kappa_grid=[2.0, 20.0], nuts=NutsSettings(draws=200, tune=200, chains=1)
    )
    np.testing.assert_allclose(
        ds["mu_alpha0"].sel(alpha0=0.5), be.bayes(R, alpha0=0.5)[0], atol=1e-14
    )
    # the a0 and depth grids discount the earlier runs of the paper's uniform prior
    uniform = {"prior": "uniform"}
    np.testing.assert_allclose(
        ds["sigma_a0"].sel(a0=1.0), be.bayes(R, None, R0, **uniform)[1], atol=1e-14
    )
    np.testing.assert_allclose(ds["mu_a0"].sel(a0=0.0), be.bayes(R, **uniform)[0], atol=1e-14)
    np.testing.assert_allclose(
        ds["mu_depth"].sel(depth=2), be.bayes(R, None, R0[..., :2], **uniform)[0], atol=1e-14
    )
    assert ds["rank_kappa"].sel(model="model_0").values.tolist() == [1, 1]
    assert np.isfinite(ds["mu_kappa"]).all()
    # every NUTS fit's diagnostics, as sample() stored them (one chain: never converged)
    assert ds["converged_kappa"].values.tolist() == [False, False]
    assert (ds["min_ess_bulk_kappa"] > 0).all() and "divergences_kappa" in ds
    png = plot_prior_sensitivity(ds, tmp_path / "s.png")
    assert png.stat().st_size > 10_000


def test_cli_crosscheck_and_priors(tmp_path, capsys):
    import pandas as pd

    from bayes_eval.cli import main

    rng = np.random.default_rng(8)
    # 3 models x 8 questions: the shape of the other hierarchical fits (prior sensitivity here,
    # tests/models/test_compare.py, the README's runs.csv), whose compiled graph is reused
    R = (rng.random((3, 8, 5)) < np.array([0.7, 0.4, 0.55])[:, None, None]).astype(int)
    rows = [
        {"model": f"m{m}", "question": q, "trial": t, "score": int(R[m, q, t])}
        for m in range(3)
        for q in range(8)
        for t in range(5)
    ]
    path = tmp_path / "runs.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    out = tmp_path / "cc.nc"
    code = main(
        [
            "crosscheck",
            str(path),
            "--draws",
            "1000",
            "--tune",
            "600",
            "--chains",
            "2",
            "--seed",
            "3",
            "--netcdf",
            str(out),
            "--json",
            "--mc-draws",
            "50000",
        ]
    )
    report = json.loads(capsys.readouterr().out)
    assert code == (0 if report["passed"] else 1)
    assert report["passed"], report
    # the CLI's default prior is the learned one: its PyMC model is the hierarchical model
    assert report["prior"] == "empirical (per model, board-informed, integrated)"
    assert report["pymc_model"] == "hierarchical" and report["estimand"] == "these questions"
    assert out.exists() and {r["model"] for r in report["models"]} == {"m0", "m1", "m2"}
    assert main(["priors", str(path), "--alpha0-grid", "0.5,1,2", "--json"]) == 0
    pri = json.loads(capsys.readouterr().out)
    assert pri["grids"]["alpha0"]["grid"] == [0.5, 1.0, 2.0]
    alpha0_1 = be.bayes(R[0], prior="uniform")[0]  # alpha0 = 1: the uniform prior
    assert pri["grids"]["alpha0"]["mu"]["m0"][1] == pytest.approx(alpha0_1, abs=1e-12)
    # the learned prior of every model, computed for all models at once as the command does
    # (one model alone differs in the 11th digit: the hyperparameter fit of a batch)
    assert pri["reference"]["m0"]["mu"] == pytest.approx(
        be.bayes(R, prior="empirical")[0][0], abs=1e-12
    )


def test_too_short_a_run_warns_naming_variable_value_and_threshold():
    """40 draws without tuning: the bulk ESS is at most 40 log10(40) < 72 (ArviZ's cap), below
    PyMC's 100 per chain on any machine; one chain leaves r-hat undefined."""
    model = _seed_model()  # the seed examples' data: their compiled graph is reused
    with pytest.warns(ConvergenceWarning) as record:
        idata = sample(model, draws=20, tune=0, chains=2, seed=1)
    [w] = [r for r in record if issubclass(r.category, ConvergenceWarning)]
    assert w.filename == __file__  # the caller's line, not bayes_eval's
    text = str(w.message)
    assert "20 draws per chain < 100: too few" in text
    assert re.search(r"bulk ESS of 'pi' is \d+ < 200 \(100 per chain x 2 chains\)", text)
    d = diagnostics(idata)
    assert not d.converged and d.min_ess_bulk < 72 and idata.attrs["converged"] == 0
    assert all(m in text for m in d.messages)
    assert idata.attrs["convergence_messages"].split("\n") == list(d.messages)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        quiet = sample(model, draws=20, tune=0, chains=1, seed=1, warn=False)
    q = Diagnostics.from_attrs(quiet.attrs)
    assert not q.converged and np.isnan(q.max_rhat) and q.messages[0].startswith("1 chain")


def test_diagnostics_of_synthetic_draws():
    """r-hat, ESS and divergence checks on fixed draws (no sampler)."""
    import xarray as xr

    rng = np.random.default_rng(0)
    good = rng.normal(size=(4, 500, 3))
    good[:, :, 2] = 0.5  # a fixed element: no r-hat, ignored
    stuck = rng.normal(size=(4, 500)) + np.array([0, 0, 0, 3.0])[:, None]  # one chain apart
    post = xr.Dataset(
        {
            "good": (("chain", "draw", "k"), good),
            "stuck": (("chain", "draw"), stuck),
            "label": (("chain", "draw"), np.full((4, 500), "x")),
        }
    )
    diverging = np.zeros((4, 500), bool)
    tree = xr.DataTree.from_dict(
        {
            "posterior": post,
            "sample_stats": xr.Dataset({"diverging": (("chain", "draw"), diverging)}),
        }
    )
    ok = diagnostics(tree, var_names=["good"])
    assert ok.converged and ok.messages == () and ok.max_rhat < 1.01 and ok.min_ess_tail > 400
    bad = diagnostics(tree)
    assert not bad.converged and bad.max_rhat > 1.4 and bad.min_ess_bulk < 20
    assert [m.split(" is ")[0] for m in bad.messages] == [
        "r-hat of 'stuck'",
        "bulk ESS of 'stuck'",
        "tail ESS of 'stuck'",
    ]
    assert bad.messages[0] == f"r-hat of 'stuck' is {bad.max_rhat:.3f} > 1.01"
    diverging[1, 7] = True
    tree["sample_stats"] = xr.DataTree(xr.Dataset({"diverging": (("chain", "draw"), diverging)}))
    one = diagnostics(tree, var_names=["good"])
    assert (one.divergences, one.divergence_rate, one.converged) == (1, 1 / 2000, False)
    assert one.messages == (
        "1 divergence after tuning (0.05% of 2000 draws) > 0: increase target_accept or "
        "reparametrise",
    )
    del tree["sample_stats"]
    assert diagnostics(tree, var_names=["good"]).messages == (
        "no sample_stats.diverging: divergences unknown",
    )
    with pytest.raises(ValueError, match=r"\['nope'\] are not in the posterior"):
        diagnostics(tree, var_names=["nope"])


def test_sample_rejects_foreign_models_and_bad_options():
    with pm.Model() as foreign:
        pm.Normal("x")
    with pytest.raises(ValueError, match=r"not built by bayes_eval\.models"):
        sample(foreign)
    model = matching_model(np.array([[0, 1]]))
    with pytest.raises(ValueError, match="sampler is 'stan'"):
        sample(model, sampler="stan")
    with pytest.raises(ValueError, match="draws is 0"):
        sample(model, draws=0)
    with pytest.raises(ValueError, match=r"target_accept is 1\.5; expected a number in \(0, 1\)"):
        sample(model, target_accept=1.5)
    with pytest.raises(ValueError, match="cores is 0; expected a positive integer"):
        sample(model, cores=0)


def test_usable_cpus_counts_this_process_cpus():
    assert 1 <= usable_cpus() <= (os.cpu_count() or 1)


def test_nutpie_sampler_matches_closed_form():
    """The nutpie path of `sample` (one compile, ~45 s cold) gives the same posterior."""
    idata = sample(matching_model(R_CAT, [0, 0.5, 1]), sampler="nutpie", **DRAWS)
    assert idata.attrs["sampler"] == "nutpie"
    # the sampler call's wall time, and the sampler's own time (no compilation) where PyMC's is
    sampling = idata["sample_stats"].attrs["sampling_time"]
    assert 0 < sampling < idata.attrs["sample_seconds"]
    _within_mcse(idata)


def test_crosscheck_exact_draws_in_chunks_are_one_stream():
    """The cross-check's exact draws run in chunks in a thread beside NUTS: under a fixed prior
    they are the draws of one call with the same generator, and a set stop flag ends them."""
    import threading

    from bayes_eval.models.crosscheck import _EXACT_CHUNK, _exact_draws

    post = be.posterior(np.stack([R_CAT, R_CAT[::-1]]), W_CAT, prior="uniform")
    n = 2 * _EXACT_CHUNK + 7
    got = _exact_draws(post, n, np.random.default_rng(5), threading.Event())
    want = np.asarray(post.draws(n, rng=np.random.default_rng(5))).T
    assert got.shape == (2, n)
    np.testing.assert_array_equal(got, want)
    stop = threading.Event()
    stop.set()
    assert _exact_draws(post, n, np.random.default_rng(5), stop) is None
