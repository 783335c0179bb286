"""The xarray front end: labels in, labels out, same numbers as the array layer."""

from __future__ import annotations

import numpy as np
import pytest
import xarray as xr
from scipy import stats

import bayes_eval as be
from bayes_eval import Prior
from bayes_eval import xr as bxr
from bayes_eval.posteriors.posterior import JOINT_PRIOR
from bayes_eval.ranking.leaderboard import rank_table


@pytest.fixture
def labelled(rng):
    R = rng.integers(0, 3, size=(4, 6, 8))
    da = bxr.results_array(R, models=["a", "b", "c", "d"], questions=[f"q{i}" for i in range(6)])
    return R, da


def test_bayes_ci_dataset(labelled):
    R, da = labelled
    ds = bxr.bayes_ci(da, [0, 0.5, 1], confidence=0.9)
    assert set(ds.data_vars) == {"mu", "sigma", "lo", "hi"}
    assert ds["mu"].dims == ("model",) and list(ds["model"].values) == ["a", "b", "c", "d"]
    # the core's defaults: the learned prior, the "auto" interval
    ref = be.bayes_ci(R, [0, 0.5, 1], confidence=0.9)
    for name in ("mu", "sigma", "lo", "hi"):
        np.testing.assert_allclose(ds[name], getattr(ref, name), atol=1e-14)
    assert ds.attrs["interval"] == "auto" and ds.attrs["prior"] == Prior.parse("empirical").label
    # dim order does not matter
    ds2 = bxr.bayes_ci(da.transpose("trial", "model", "question"), [0, 0.5, 1], confidence=0.9)
    xr.testing.assert_allclose(ds, ds2)


def test_a_binary_board_names_the_joint_posterior(rng):
    # binary results of several models on shared questions: the numbers, and the prior the
    # attrs name, are the board's joint posterior's; prior_table gives each model's own prior
    R = (rng.random((3, 10, 2)) < 0.6).astype(int)
    da = bxr.results_array(R, models=["a", "b", "c"])
    ds = bxr.bayes_ci(da)
    post = be.posterior(R)
    assert post.has_board and ds.attrs["prior"] == post.prior_label == JOINT_PRIOR
    np.testing.assert_allclose(ds["mu"], post.mean, rtol=1e-14)
    np.testing.assert_allclose([ds["lo"], ds["hi"]], post.interval(), rtol=1e-14)
    table = bxr.prior_table(da)
    assert (table["prior"] == "empirical (per model, board-informed, integrated)").all()
    np.testing.assert_allclose(table["prior_kappa"], post.closed_form.fitted.alpha.sum(-1))


def test_prior_alignment_by_label(labelled, rng):
    R, da = labelled
    R0 = rng.integers(0, 3, size=(4, 6, 2))
    da0 = bxr.results_array(R0, models=["a", "b", "c", "d"], questions=[f"q{i}" for i in range(6)])
    shuffled = da0.isel(model=[2, 0, 3, 1], question=[5, 4, 3, 2, 1, 0])
    ds = bxr.bayes(da, [0, 0.5, 1], shuffled)
    np.testing.assert_allclose(ds["mu"], be.bayes(R, [0, 0.5, 1], R0)[0], atol=1e-14)
    with pytest.raises(ValueError, match="questions that R does not have"):
        bxr.bayes(da, [0, 0.5, 1], da0.assign_coords(question=[f"x{i}" for i in range(6)]))


def test_nan_needs_skipna(labelled):
    R, da = labelled
    da = da.astype(float)
    da[0, 0, 0] = np.nan
    with pytest.raises(ValueError, match="skipna=True"):
        bxr.bayes_ci(da, [0, 0.5, 1])
    ds = bxr.bayes_ci(da, [0, 0.5, 1], skipna=True)
    mask = np.zeros(R.shape, bool)
    mask[0, 0, 0] = True
    np.testing.assert_allclose(ds["sigma"], be.bayes_ci(R, [0, 0.5, 1], mask=mask)[1], atol=1e-14)


@pytest.mark.slow  # about 2 s: the quick tier stays under a minute
def test_pass_family_over_k(rng):
    R = (rng.random((3, 10, 8)) < 0.6).astype(int)
    da = bxr.results_array(R, models=["x", "y", "z"])
    ds = bxr.pass_family_ci(da, [1, 2, 4], metric="g_pass_at_k_tau", tau=0.5)
    assert ds["posterior_mean"].dims == ("model", "k")
    np.testing.assert_allclose(ds["estimate"].sel(k=4), be.g_pass_at_k_tau(R, 4, 0.5), atol=1e-14)
    ref = be.g_pass_at_k_tau_ci(R, 2, 0.5)
    np.testing.assert_allclose(ds["posterior_mean"].sel(k=2), ref.posterior_mean, atol=1e-14)
    # the learned prior and exact intervals pass through
    emp = bxr.pass_family_ci(da, 2, metric="pass_at_k", prior="empirical", interval="exact")
    ref = be.pass_at_k_ci(R, 2, prior="empirical", interval="exact")
    np.testing.assert_allclose(emp["lo"].sel(k=2), ref.lo, atol=1e-14)
    with pytest.raises(ValueError, match="needs tau"):
        bxr.pass_family_ci(da, 2, metric="g_pass_at_k_tau")


def test_rank_table(labelled):
    R, da = labelled
    ds = rank_table(da, [0, 0.5, 1])
    assert ds["z"].dims == ("model", "model_bis")
    # a model is not compared with itself: the diagonal is empty; off it P(i > j) is the
    # ranking confidence of §2.5 (rubric results: no board), Phi(z) of the table's moments
    prob, z = ds["prob_better"].values, ds["z"].values
    assert np.isnan(np.diag(prob)).all() and np.isnan(np.diag(z)).all()
    mu, sd = ds["mu"].values, ds["sigma"].values
    ref = stats.norm.cdf((mu[:, None] - mu[None]) / np.hypot(sd[:, None], sd[None]))
    off = ~np.eye(mu.size, dtype=bool)
    np.testing.assert_allclose(prob[off], ref[off], atol=1e-12)
    np.testing.assert_allclose(z[off], stats.norm.ppf(ref[off]), atol=1e-9)
    assert ((ds["rank_lower"] <= ds["rank"]) & (ds["rank"] <= ds["rank_upper"])).all()
    assert ds.attrs["z_threshold"] == pytest.approx(1.6448536, abs=1e-6)
    ds_avg = bxr.avg_ci(da, [0, 0.5, 1])
    np.testing.assert_allclose(ds_avg["a"], be.avg(R, [0, 0.5, 1])[0], atol=1e-14)
    # the interval is the posterior of pi-bar, within [min w, max w]
    np.testing.assert_allclose(ds_avg["hi"], be.bayes_ci(R, [0, 0.5, 1]).hi, atol=1e-14)
    # rank_table's default prior is the learned one, and it says so
    assert ds.attrs["prior"] == "empirical (per model, board-informed, integrated)"
    assert (ds["prior_kappa"] > 0).all()


def test_rank_table_intervals_stay_in_the_support_of_pi_bar():
    """A model solving 2 of 60 attempts: mu - z sigma < 0 under its own learned prior, so
    the normal interval crosses 0: the leaderboard clips it into [min w, max w]; core
    bayes_ci clips only when asked. The default interval ("auto": the posterior's own law)
    never leaves the support and is never clipped."""
    from bayes_eval import datasets

    R = datasets.load("matharena_aime25_i")["results"]
    claude = "claude-3.5-sonnet"
    row = R.sel(model=claude).values.astype(int)
    raw = be.bayes_ci(row, prior="empirical", interval="normal")
    assert raw.lo < 0  # the unclipped normal interval crosses 0 here
    clipped = be.bayes_ci(row, prior="empirical", interval="normal", bounds="support")
    assert clipped.lo == 0.0 and clipped.hi == raw.hi and clipped.mu == raw.mu
    auto = be.bayes_ci(row, prior="empirical")  # near 0: the exact law, inside the support
    exact = be.bayes_ci(row, prior="empirical", interval="exact")
    assert (auto.lo, auto.hi) == (exact.lo, exact.hi) and 0.0 < auto.lo < auto.mu
    # each model's own prior, normal intervals: the leaderboard clips into the support
    own = rank_table(R, pool="model", interval="normal")
    assert float(own["lo"].min()) >= 0.0 and float(own["hi"].max()) <= 1.0
    assert float(own["lo"].sel(model=claude)) == 0.0
    assert float(own["hi"].sel(model=claude)) == pytest.approx(raw.hi, rel=1e-7)
    # the default table: the joint posterior's marginals, inside the support unclipped
    table = rank_table(R)
    assert (table["interval_kind"] == "joint").all()
    assert float(table["lo"].min()) > 0.0 and float(table["hi"].max()) < 1.0
    assert 0.0 < float(table["lo"].sel(model=claude)) < float(table["mu"].sel(model=claude))
    # rubric weights: the support is [min w, max w]
    Rw = np.array([[0, 0, 0, 1], [0, 0, 0, 0]])
    res = be.bayes_ci(Rw, np.array([0.2, 0.6, 1.0]), bounds="support")
    assert res.lo >= 0.2


def test_extra_dims_pass_through_the_labelled_layer():
    # dims other than question and trial are batch dims: the result comes back over them,
    # with their coordinates, and equals the numpy core on each slice
    rng = np.random.default_rng(5)
    values = (rng.random((2, 3, 8, 4)) < 0.6).astype(int)
    R = xr.DataArray(
        values,
        dims=("seed", "model", "question", "trial"),
        coords={"seed": [10, 20], "model": ["a", "b", "c"]},
    )
    ds = bxr.bayes_ci(R, confidence=0.9, prior="jeffreys")
    assert ds["mu"].dims == ("model", "seed")
    assert list(ds["seed"].values) == [10, 20] and list(ds["model"].values) == ["a", "b", "c"]
    for s, seed in enumerate((10, 20)):
        ref = be.bayes_ci(values[s], confidence=0.9, prior="jeffreys")
        np.testing.assert_allclose(ds["mu"].sel(seed=seed).values, ref.mu, rtol=1e-14)
        np.testing.assert_allclose(ds["hi"].sel(seed=seed).values, ref.hi, rtol=1e-14)
    assert ds.attrs["prior"] == "jeffreys" and ds.attrs["estimand"] == "these questions"
    one = bxr.bayes(R.isel(model=0, seed=0, drop=True))
    assert one["mu"].dims == () and float(one["mu"]) == pytest.approx(be.bayes(values[0, 0]).mu)


@pytest.mark.parametrize("pool", ["model", "benchmark", "board"])
def test_avg_ci_names_the_prior_it_used(pool):
    """avg@N's ``prior`` attribute is the label of the prior its numbers come from, pool
    included (the same label as Bayes@N's with the same options)."""
    rng = np.random.default_rng(0)
    R = xr.DataArray(
        rng.integers(0, 2, size=(3, 12, 2)),
        dims=("model", "question", "trial"),
        coords={"model": ["a", "b", "c"]},
    )
    assert bxr.avg_ci(R, pool=pool).attrs["prior"] == bxr.bayes(R, pool=pool).attrs["prior"]
