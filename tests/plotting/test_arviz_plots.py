"""arviz-plots figures for the closed form (exact draws) and a NUTS fit: each writes a PNG."""

from __future__ import annotations

import numpy as np
import pytest

from bayes_eval import xr as bxr
from bayes_eval.plotting import arviz as bplt

pytest.importorskip("arviz_plots")
PNG = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def results():
    return np.random.default_rng(2).integers(0, 2, size=(3, 12, 4))


@pytest.fixture(scope="module")
def closed(results):
    # the paper's uniform prior: a fixed prior has a prior group to draw (a learned one has not)
    return bxr.posterior_tree(results, models=["a", "b", "c"], draws=300, chains=2, prior="uniform")


def _is_png(path):
    data = path.read_bytes()
    return data[:8] == PNG and len(data) > 2000


@pytest.mark.parametrize(
    "fn", [bplt.plot_forest, bplt.plot_trace, bplt.plot_rank, bplt.plot_prior_posterior]
)
def test_closed_form_figures(closed, fn, tmp_path):
    assert _is_png(fn(closed, tmp_path / "f.png"))


def test_summary_applies_to_closed_form(closed, results):
    """arviz-stats' summary works on the exact draws; means match Bayes@N within 4 MC se."""
    from arviz_stats import summary

    import bayes_eval as be

    table = summary(closed, var_names=["pi_bar"], kind="stats")
    mu, sigma = be.bayes(results, prior="uniform")
    np.testing.assert_array_less(np.abs(table["mean"].values - mu), 4 * sigma / np.sqrt(600))


def test_bad_trees(closed, tmp_path):
    with pytest.raises(ValueError, match="missing"):
        bplt.plot_ppc(closed, tmp_path / "p.png")
    with pytest.raises(ValueError, match="DataTree"):
        bplt.plot_trace(closed["posterior"].to_dataset(), tmp_path / "t.png")
    with pytest.raises(ValueError, match="ci_prob"):
        bplt.plot_forest(closed, tmp_path / "f.png", ci_prob=1.5)


@pytest.mark.pymc
@pytest.mark.slow
def test_both_paths_and_ppc(results, closed, tmp_path):
    import pymc as pm

    from bayes_eval.models import matching_model, sample

    model = matching_model(results, models=["a", "b", "c"])
    idata = sample(model, draws=300, tune=300, chains=2, seed=0, warn=False)
    out = bplt.plot_forest({"closed form": closed, "NUTS": idata}, tmp_path / "both.png")
    assert _is_png(out)
    assert _is_png(bplt.plot_rank(idata, tmp_path / "rank.png"))
    pp = pm.sample_posterior_predictive(idata, model=model, random_seed=0, progressbar=False)
    idata["posterior_predictive"] = pp["posterior_predictive"]
    idata["observed_data"] = pp["observed_data"]
    assert _is_png(bplt.plot_ppc(idata, tmp_path / "ppc.png"))


def test_compared_fits_are_thinned_to_one_draw_count(results):
    # arviz-plots aligns compared fits on (chain, draw); a fit with fewer draws would be
    # padded with NaN and silently not drawn. Every fit is combined and thinned evenly.
    from bayes_eval.plotting.arviz import _thinned

    big = bxr.posterior_tree(results, draws=300, chains=4, seed=1)["posterior"].to_dataset()
    small = bxr.posterior_tree(results, draws=100, chains=2, seed=2)["posterior"].to_dataset()
    n = 200
    a, b = _thinned(big[["pi_bar"]], n), _thinned(small[["pi_bar"]], n)
    for t in (a, b):
        da = t["posterior"]["pi_bar"]
        assert dict(da.sizes) == {"chain": 1, "draw": n, "model": 3}
        assert np.isfinite(da.values).all()
    # thinning keeps the posterior: mean within 4 Monte Carlo se of the full draws
    full = big["pi_bar"].stack(s=("chain", "draw"))
    se = full.std("s") / np.sqrt(n)
    assert (abs(a["posterior"]["pi_bar"].mean(("chain", "draw")) - full.mean("s")) < 4 * se).all()
