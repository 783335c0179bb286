"""Pointwise log-likelihood, exact and PSIS LOO, model comparison and ``bayes-eval compare``.

Independent computations: SciPy's multinomial, Dirichlet-multinomial and binomial pmfs at a
fixed parameter draw (tolerance 1e-9: the same numbers in double precision); the exact
matching ELPD against SciPy's ``dirichlet_multinomial`` and its in-sample lpd against
numerical integration over the Beta posterior (``quad``, tolerance 1e-8). The sampler runs
assert only what holds on any machine (shapes, counts, the exact ELPD of a known dataset).
"""

from __future__ import annotations

import json
import warnings

import numpy as np
import pandas as pd
import pytest
import xarray as xr
from scipy import integrate, stats
from scipy.special import expit

from bayes_eval.models import (
    add_log_likelihood,
    add_log_prior,
    compare_models,
    crossed_model,
    exact_matching_loo,
    hierarchical_model,
    loo,
    matching_model,
)
from bayes_eval.nuts import NutsSettings
from bayes_eval.posteriors.priors import KAPPA_PRIOR

R = np.array(  # 2 LLMs x 3 questions x 4 trials, binary
    [[[1, 1, 0, 1], [0, 0, 0, 0], [1, 1, 1, 1]], [[1, 0, 0, 1], [0, 1, 0, 0], [1, 1, 1, 0]]]
)
S = R.sum(-1)  # successes (2, 3)
N = 4


def _posterior(**values) -> xr.DataTree:
    """A one-chain posterior holding the given draws (leading dims chain, draw)."""
    ds = xr.Dataset({k: (("chain", "draw", *dims), v) for k, (dims, v) in values.items()})
    return xr.DataTree.from_dict({"posterior": ds})


@pytest.mark.pymc
@pytest.mark.slow
def test_pointwise_log_likelihood_against_scipy():
    rng = np.random.default_rng(0)
    # matching: Multinomial(N, pi) of the count vector
    pi = rng.dirichlet([1, 1], size=(1, 2, 2, 3))  # chain, draw, model, question
    idata = _posterior(pi=(("model", "question", "category"), pi))
    ll = add_log_likelihood(idata, matching_model(R))["log_likelihood"]["counts"]
    assert "log_likelihood" not in idata.children  # input unchanged
    counts = np.stack([N - S, S], -1)
    want = stats.multinomial.logpmf(counts[None, None], N, pi)
    np.testing.assert_allclose(ll.transpose("chain", "draw", "model", "question"), want, atol=1e-9)
    np.testing.assert_allclose(  # binary: the same as the binomial pmf of the successes
        want, stats.binom.logpmf(S[None, None], N, pi[..., 1]), atol=1e-9
    )
    # hierarchical: DirichletMultinomial(N, kappa beta), pi integrated out
    top, log_kappa = np.array([[[0.3, 0.8]]]), np.array([[[0.5, 2.0]]])
    idata = _posterior(beta_top=(("model",), top), log_kappa=(("model",), log_kappa))
    ll = add_log_likelihood(idata, hierarchical_model(R))["log_likelihood"]["counts"]
    kappa = np.exp(log_kappa[0, 0])
    alpha = np.stack([kappa * (1 - top[0, 0]), kappa * top[0, 0]], -1)  # (model, category)
    want = np.array(
        [
            [stats.dirichlet_multinomial.logpmf(counts[m, q], alpha[m], N) for q in range(3)]
            for m in range(2)
        ]
    )
    np.testing.assert_allclose(ll.isel(chain=0, draw=0).transpose("model", "question"), want)
    # crossed: Binomial(N, invlogit(theta - b))
    z_b = np.array([[[0.7, -0.2, -0.5]]])  # sums to zero, as a ZeroSumNormal draw
    idata = _posterior(
        mu_theta=((), np.array([[0.4]])),
        sigma_theta=((), np.array([[0.9]])),
        sigma_b=((), np.array([[1.3]])),
        z_theta=(("model",), np.array([[[0.5, -1.0]]])),
        z_b=(("question",), z_b),
    )
    ll = add_log_likelihood(idata, crossed_model(R))["log_likelihood"]["successes_obs"]
    theta = 0.4 + 0.9 * np.array([0.5, -1.0])
    p = expit(theta[:, None] - 1.3 * z_b[0, 0][None, :])
    np.testing.assert_allclose(
        ll.isel(chain=0, draw=0).transpose("model", "question"), stats.binom.logpmf(S, N, p)
    )


@pytest.mark.pymc
def test_log_prior_group():
    idata = _posterior(beta_top=(("model",), [[[0.3, 0.8]]]), log_kappa=(("model",), [[[0, 1]]]))
    out = add_log_prior(idata, hierarchical_model(R))
    assert "log_prior" not in idata.children
    lp = out["log_prior"]["log_kappa"].isel(chain=0, draw=0)
    med, sd = KAPPA_PRIOR  # the default kappa prior
    want = stats.norm.logpdf([0, 1], np.log(med), sd)
    np.testing.assert_allclose(lp, want, atol=1e-9)


@pytest.mark.pymc
@pytest.mark.parametrize("unit", ["cell", "question"])
def test_exact_matching_loo_against_scipy_and_quadrature(unit):
    R0 = np.array([[[1, 1], [0, 1], [1, 1]], [[0, 0], [0, 1], [1, 0]]])  # prior runs: 2 trials each
    a0, alpha0 = 0.5, 0.7
    res = exact_matching_loo(matching_model(R, None, R0, alpha0=alpha0, a0=a0), unit=unit)
    a = alpha0 + a0 * np.stack([2 - R0.sum(-1), R0.sum(-1)], -1)  # (model, question, 2)
    counts = np.stack([N - S, S], -1)
    elpd = np.array(
        [
            [stats.dirichlet_multinomial.logpmf(counts[m, q], a[m, q], N) for q in range(3)]
            for m in range(2)
        ]
    )

    def lpd_cell(m, q):  # log of the posterior mean of the binomial pmf, by quadrature
        post = stats.beta(a[m, q, 1] + S[m, q], a[m, q, 0] + N - S[m, q])
        value, _ = integrate.quad(lambda x: stats.binom.pmf(S[m, q], N, x) * post.pdf(x), 0, 1)
        return np.log(value)

    lpd = sum(lpd_cell(m, q) for m in range(2) for q in range(3))
    per_unit = elpd.sum(0) if unit == "question" else elpd.ravel()
    assert res.method == "exact" and res.n_units == per_unit.size
    np.testing.assert_allclose(res.elpd, elpd.sum(), atol=1e-9)
    np.testing.assert_allclose(res.elpd_data.elpd_i.values.ravel(), per_unit, atol=1e-9)
    np.testing.assert_allclose(res.se, np.sqrt(per_unit.size * np.var(per_unit, ddof=1)))
    np.testing.assert_allclose(res.p, lpd - elpd.sum(), atol=1e-8)
    with pytest.raises(ValueError, match="matching model"):
        exact_matching_loo(hierarchical_model(R))


def _grid_loo_binary(n: np.ndarray, trials: int, kappa_prior=None) -> np.ndarray:
    """Brute-force exact LOO of one LLM's cells under the hierarchical model (binary): the
    hyperposterior on a 801 x 801 grid over (logit beta, log kappa), prior density
    beta (1 - beta) N(log kappa; log median, sd^2) on that scale (the default hyperprior),
    scipy's Dirichlet-multinomial."""
    from scipy.special import logsumexp

    med, sd = kappa_prior or KAPPA_PRIOR
    u = np.linspace(-14, 14, 801)
    v = np.linspace(np.log(med) - 7 * sd, np.log(med) + 7 * sd, 801)
    U, V = np.meshgrid(u, v, indexing="ij")
    beta, kappa = expit(U), np.exp(V)
    a = np.stack([kappa * (1 - beta), kappa * beta], -1)
    log_prior = np.log(beta * (1 - beta)) + stats.norm.logpdf(V, np.log(med), sd)
    dm = np.stack([stats.dirichlet_multinomial.logpmf(c, a, trials) for c in n])
    full = log_prior + dm.sum(0)
    return np.array([logsumexp(full) - logsumexp(full - d) for d in dm])


@pytest.mark.pymc
def test_exact_hierarchical_loo_against_a_grid_and_a_refit():
    # 2 LLMs x 8 questions x 4 trials, with an all-correct and an all-wrong question. The
    # quadrature (reweighting the full hyperposterior's nodes) against a brute-force grid:
    # measured 2.6e-4 per cell at most, tolerance 1e-3; against refitting the learned prior
    # without the cell (its own quadrature of a 7-question posterior, the less accurate of
    # the two: 3.2e-3 from the grid), tolerance 6e-3.
    from bayes_eval.models.compare import exact_hierarchical_loo
    from bayes_eval.posteriors.priors import fit_prior

    rng = np.random.default_rng(3)
    p = rng.beta(0.6, 0.5, size=(2, 8, 1))
    Rh = (rng.random((2, 8, 4)) < p).astype(int)
    Rh[0, 0], Rh[1, 1] = 1, 0
    model = hierarchical_model(Rh)
    res = exact_hierarchical_loo(model)
    assert res.method == "exact" and res.n_units == 16
    n = np.stack([4 - Rh.sum(-1), Rh.sum(-1)], -1).astype(float)
    for m in range(2):
        grid = _grid_loo_binary(n[m], 4)
        np.testing.assert_allclose(res.elpd_data.elpd_i.values[m], grid, atol=1e-3)
        refit = []
        for q in range(8):
            fit = fit_prior(np.delete(n[m], q, axis=0))
            dm = stats.dirichlet_multinomial.logpmf(n[m, q], fit.nodes[:, 0], 4)
            refit.append(np.log(np.sum(fit.weights[:, 0] * np.exp(dm))))
        np.testing.assert_allclose(res.elpd_data.elpd_i.values[m], refit, atol=6e-3)
    # p: in-sample lpd (the posterior mean of each cell's pmf) minus elpd, positive
    assert 0 < res.p < 16
    by_question = exact_hierarchical_loo(model, unit="question")
    np.testing.assert_allclose(
        by_question.elpd_data.elpd_i.values, res.elpd_data.elpd_i.values.sum(0), atol=1e-12
    )
    with pytest.raises(ValueError, match="hierarchical model"):
        exact_hierarchical_loo(matching_model(Rh))


@pytest.mark.pymc
def test_bad_input():
    with pytest.raises(ValueError, match="log_likelihood"):
        loo(_posterior(pi=(("model",), [[[0.5]]])))
    with pytest.raises(ValueError, match="estimators"):
        compare_models(R, ["matching", "bogus"])
    with pytest.raises(ValueError, match="unit"):
        compare_models(R, unit="llm")


@pytest.fixture(scope="module")
def aime_subset():
    """3 LLMs x 8 questions x 4 trials: the shape of the other fits of these models (the
    README's runs.csv, ``runs`` below), whose compiled graphs are shared."""
    from bayes_eval.datasets import load

    return load("matharena_aime25_i")["results"].isel(model=slice(0, 3), question=slice(0, 8))


@pytest.mark.pymc
@pytest.mark.slow
def test_compare_on_a_shipped_dataset(aime_subset):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        c = compare_models(
            aime_subset, nuts=NutsSettings(draws=300, tune=300, chains=2, seed=0, cores=1), ppc=True
        )
    t = c.table
    assert set(t.index) == {"matching", "hierarchical", "crossed"}
    assert t.loc["matching", "method"] == "exact" and t.loc["crossed", "method"] == "psis"
    assert t.loc["hierarchical", "method"] == "exact"
    assert c.exact["hierarchical"].elpd == t.loc["hierarchical", "elpd"]
    # PSIS estimates the same quantity from 600 draws: its Monte Carlo and importance-sampling
    # error over 24 cells is a few tenths (0.3 in one cell was seen); within 1 of the exact
    gap = abs(t.loc["hierarchical", "elpd_psis"] - t.loc["hierarchical", "elpd"])
    assert gap < 1.0, (t.loc["hierarchical", "elpd_psis"], t.loc["hierarchical", "elpd"])
    # uniform prior, binary, N = 4: every cell's LOO predictive is uniform on 0..4
    np.testing.assert_allclose(t.loc["matching", "elpd"], -24 * np.log(5), atol=1e-9)
    assert c.exact["matching"].elpd == t.loc["matching", "elpd"]
    assert c.loo["matching"].n_units == 24 and c.loo["matching"].method == "psis"
    # one parameter per cell: PSIS from posterior to prior shows high k (reported, not hidden)
    assert c.loo["matching"].n_k_bad >= 1 and t.loc["matching", "psis_k_bad"] >= 1
    assert t.iloc[0]["elpd_diff"] == 0 and (t["elpd_diff"] <= 0).all()
    assert t.index[0] in c.verdict and "SE" in c.verdict
    for name, fit in c.fits.items():
        assert "log_likelihood" in fit.children and "posterior_predictive" in fit.children
        assert fit.attrs["divergence_rate"] <= 0.01, name
        p = c.ppc[name]["p_value"].sel(statistic=["mean_score", "sd_score"])
        assert ((p >= 0) & (p <= 1)).all()


@pytest.fixture
def runs(tmp_path):
    rng = np.random.default_rng(4)
    rows = [  # 3 models x 8 questions x 4 trials, as aime_subset
        {"model": m, "question": q, "trial": t, "score": int(rng.random() < p)}
        for m, p in (("a", 0.7), ("b", 0.4), ("c", 0.55))
        for q in range(8)
        for t in range(4)
    ]
    pd.DataFrame(rows).to_csv(tmp_path / "runs.csv", index=False)
    return tmp_path / "runs.csv"


@pytest.mark.pymc
@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::bayes_eval.models.ConvergenceWarning")
def test_cli_compare(runs, tmp_path, capsys):
    from bayes_eval.cli import main

    argv = ["compare", str(runs), "--estimators", "matching,hierarchical,mixture", "--draws", "100"]
    argv += ["--tune", "100", "--chains", "2", "--no-progress", "--ppc"]
    assert main([*argv, "--plot", str(tmp_path / "ppc.png")]) == 0
    out = capsys.readouterr().out
    assert "elpd" in out and "matching" in out and "mid-p" in out
    assert (tmp_path / "ppc-matching.png").exists() and (tmp_path / "ppc-hierarchical.png").exists()
    assert (tmp_path / "ppc-mixture.png").exists()  # the mixture was fitted and checked
    assert main([*argv[:3], "matching", *argv[4:], "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["table"]["matching"]["method"] == "exact"
    assert out["psis"]["matching"]["n_units"] == 24 and out["exact"]["matching"]["unit"] == "cell"
    assert {r["statistic"] for r in out["ppc"]["matching"]} >= {"mean_score", "sd_score"}


def test_cli_compare_bad_estimator_exits_2_with_one_line(runs, capsys):
    from bayes_eval.cli import main

    assert main(["compare", str(runs), "--estimators", "matching,nope"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "nope" in err[0] and err[0].startswith("bayes-eval: error:")
