"""Predictive checks: test statistics and mid-p values against a hand computation on tiny
data (exact: same arithmetic on a handful of numbers, tolerance 1e-12), and the PyMC paths
(prior and posterior predictive, the rootogram) on a tiny model."""

from __future__ import annotations

import statistics
import warnings

import numpy as np
import pytest
import xarray as xr

from bayes_eval.models.predictive import (
    STATISTICS,
    plot_ppc,
    posterior_predictive,
    ppc_statistics,
    prior_predictive,
)

N = 4
OBS = np.array([[0, 2, 4], [1, 4, 4]])  # successes of 2 LLMs on 3 questions out of 4
REP = np.array(  # (chain=1, draw=3, model, question)
    [[[[0, 1, 4], [1, 4, 4]], [[2, 2, 2], [0, 3, 4]], [[0, 2, 4], [4, 4, 4]]]]
)
MODELS, QUESTIONS = ["a", "b"], ["q1", "q2", "q3"]


def _tree(kind: str) -> xr.DataTree:
    """A DataTree as PyMC writes it: counts with categories, or successes with n_trials."""
    cells = {"model": MODELS, "question": QUESTIONS}
    sample = {"chain": [0], "draw": [0, 1, 2]}
    if kind == "counts":

        def counts(s):
            return np.stack([N - s, s], axis=-1)

        obs = xr.DataArray(counts(OBS), dims=("model", "question", "category"), coords=cells)
        rep = xr.DataArray(
            counts(REP),
            dims=("chain", "draw", "model", "question", "category"),
            coords={**sample, **cells},
        )
        const = xr.Dataset({"w": ("category", [0.0, 1.0])})
        return xr.DataTree.from_dict(
            {
                "observed_data": xr.Dataset({"counts": obs}),
                "posterior_predictive": xr.Dataset({"counts": rep}),
                "constant_data": const,
            }
        )
    obs = xr.DataArray(OBS, dims=("model", "question"), coords=cells)
    rep = xr.DataArray(REP, dims=("chain", "draw", "model", "question"), coords={**sample, **cells})
    const = xr.Dataset({"n_trials": (("model", "question"), np.full(OBS.shape, N))})
    return xr.DataTree.from_dict(
        {
            "observed_data": xr.Dataset({"successes_obs": obs}),
            "posterior_predictive": xr.Dataset({"successes_obs": rep}),
            "constant_data": const,
        }
    )


def _hand(s: np.ndarray) -> dict[str, list[float]]:
    """The statistics of one (model, question) array of successes, with plain Python."""
    out: dict[str, list[float]] = {k: [] for k in STATISTICS}
    for i in range(2):
        scores = [k / N for k in s[i]]
        other = [k / N for k in s[1 - i]]  # the mean over the one other LLM
        out["mean_score"].append(sum(scores) / 3)
        out["sd_score"].append(statistics.stdev(scores))
        out["frac_none"].append(sum(k == 0 for k in s[i]) / 3)
        out["frac_all"].append(sum(k == N for k in s[i]) / 3)
        if statistics.pstdev(scores) == 0 or statistics.pstdev(other) == 0:
            out["corr_others"].append(np.nan)
        else:
            out["corr_others"].append(statistics.correlation(scores, other))
    return out


def _mid_p(reps: list[float], obs: float) -> float:
    """Over the replicates where the statistic is defined."""
    reps = [r for r in reps if not np.isnan(r)]
    if np.isnan(obs) or not reps:
        return np.nan
    return (sum(r > obs for r in reps) + 0.5 * sum(r == obs for r in reps)) / len(reps)


@pytest.mark.parametrize("kind", ["counts", "successes"])
def test_statistics_match_hand_computation(kind):
    st = ppc_statistics(_tree(kind))
    obs = _hand(OBS)
    reps = [_hand(REP[0, d]) for d in range(3)]
    for name in STATISTICS:
        for i, m in enumerate(MODELS):
            got = st.sel(statistic=name, model=m)
            r = [rep[name][i] for rep in reps]
            np.testing.assert_allclose(float(got.observed), obs[name][i], atol=1e-12)
            np.testing.assert_allclose(float(got.rep_mean), np.nanmean(r), atol=1e-12)
            np.testing.assert_allclose(float(got.p_value), _mid_p(r, obs[name][i]), atol=1e-12)
    # histogram of correct counts 0..N, pooled over questions
    for i, m in enumerate(MODELS):
        h_obs = [sum(k == c for k in OBS[i]) for c in range(N + 1)]
        h_rep = [[sum(k == c for k in REP[0, d, i]) for c in range(N + 1)] for d in range(3)]
        np.testing.assert_array_equal(st.hist_observed.sel(model=m), h_obs)
        np.testing.assert_allclose(st.hist_rep_mean.sel(model=m), np.mean(h_rep, axis=0))
        p = [_mid_p([h[c] for h in h_rep], h_obs[c]) for c in range(N + 1)]
        np.testing.assert_allclose(st.hist_p_value.sel(model=m), p, atol=1e-12)


def test_mid_p_is_one_half_when_replicates_equal_the_data():
    tree = _tree("counts")
    same = xr.concat([tree["observed_data"]["counts"]] * 3, "draw").expand_dims(chain=1)
    tree["posterior_predictive"] = xr.Dataset({"counts": same})
    st = ppc_statistics(tree)
    finite = st.p_value.where(np.isfinite(st.observed)).values
    np.testing.assert_array_equal(finite[np.isfinite(finite)], 0.5)
    np.testing.assert_array_equal(st.hist_p_value, 0.5)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [({"group": "prior_predictive"}, "prior_predictive"), ({"prob": 1.5}, "prob")],
)
def test_bad_input(kwargs, match):
    with pytest.raises(ValueError, match=match):
        ppc_statistics(_tree("counts"), **kwargs)


@pytest.mark.pymc
@pytest.mark.slow
def test_pymc_predictive_paths(tmp_path):
    from bayes_eval.models import matching_model, sample

    # 3 LLMs x 8 questions x 4 trials: the shape of the matching fits of tests/models/
    # test_compare.py (and the README's runs.csv), whose compiled graphs are reused
    rng = np.random.default_rng(0)
    R = (rng.random((3, 8, 4)) < np.array([0.7, 0.4, 0.55])[:, None, None]).astype(int)
    model = matching_model(R)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = sample(model, draws=100, tune=100, chains=2, seed=1, cores=1, warn=False)
    pp = posterior_predictive(fit, model, seed=2)
    assert "posterior_predictive" not in fit.children  # input unchanged
    rep = pp["posterior_predictive"]["counts"]
    assert rep.sizes == {"chain": 2, "draw": 100, "model": 3, "question": 8, "category": 2}
    assert (rep.sum("category") == 4).all()
    st = ppc_statistics(pp)
    assert ((st.p_value >= 0) & (st.p_value <= 1)).sum() >= 8  # corr may be NaN
    prior = prior_predictive(model, draws=50, seed=3)
    assert prior["prior_predictive"]["counts"].sizes["draw"] == 50
    assert ppc_statistics(prior, group="prior_predictive").sizes["model"] == 3
    png = plot_ppc(pp, tmp_path / "ppc.png")
    assert png.read_bytes()[:4] == b"\x89PNG"
    with pytest.raises(ValueError, match="positive integer"):
        prior_predictive(model, draws=0)
