"""The ``graded`` study (bayes_eval.validation.graded_study): the grades' variance share
against simulated grades, the study's numbers against a direct recomputation, and the
measured calibration of ``--fractional`` that the README quotes."""

from __future__ import annotations

import json

import numpy as np
import pytest

from bayes_eval import datasets
from bayes_eval.metrics.bayes import bayes_ci
from bayes_eval.synthetic.leaderboard import simulate_leaderboard
from bayes_eval.validation import registry
from bayes_eval.validation.graded_study import PRIORS, run, summary, variance_share
from bayes_eval.validation.pairs_study import prior_rates


@pytest.mark.parametrize("inflation", [1.0, 0.3, 0.0])
def test_variance_share_is_the_grades_variance_over_bernoullis(inflation):
    # Var(s | p) / (p (1 - p)) averaged over 200,000 grades of a big board: the formula
    # within 2% (Monte Carlo sd of the ratio ~0.5%; rounding to 0.001 adds ~1e-7 / p(1 - p))
    board = simulate_leaderboard(
        200, 1000, scores="graded", inflation=inflation, precision=8.0, seed=5
    )
    s, p = board.scores[..., 0], board.expected
    ratio = ((s - p) ** 2).sum() / (p * (1 - p)).sum()
    assert ratio == pytest.approx(variance_share(inflation, 8.0), rel=0.02)


def test_graded_study_numbers_are_the_calls_it_makes():
    cfg = registry.make_config(
        "graded", replicates=3, n_models=4, n_questions=30, inflation=(1.0, 0.0)
    )
    ds = run(cfg, progress=False)
    result_summary = summary(ds)
    assert dict(ds.sizes) == {"inflation": 2, "prior": 3, "board": 3, "model": 4}
    assert list(ds["prior"].values) == list(PRIORS)
    assert (ds["lo"] <= ds["hi"]).all() and (ds["sd"] > 0).all()
    assert result_summary["estimand"] == "these questions"
    # the first board of the binary cell, recomputed: same draws (seed [0, 0]), same numbers
    rng = np.random.default_rng([0, 0])
    board = simulate_leaderboard(4, 30, scores="graded", inflation=1.0, seed=rng)
    np.testing.assert_array_equal(ds["truth"].isel(inflation=0, board=0), board.true_mean)
    mu, sd, lo, hi = bayes_ci(board.scores, fractional=True, prior="empirical", pool="model")
    one = ds.isel(inflation=0, board=0).sel(prior="empirical pool=model")
    for name, value in zip(("mean", "sd", "lo", "hi"), (mu, sd, lo, hi), strict=True):
        np.testing.assert_array_equal(one[name], value)
    # coverage and sd/RMSE of a cell from the stored intervals
    cell = ds.sel(inflation=0.0, prior="uniform")
    hit = (cell["lo"] <= ds["truth"].sel(inflation=0.0)) & (
        ds["truth"].sel(inflation=0.0) <= cell["hi"]
    )
    row = result_summary["cells"]["inflation=0 uniform"]
    assert row["coverage"] == pytest.approx(float(hit.mean()), abs=5e-5)
    rmse = float(np.sqrt(((cell["mean"] - ds["truth"].sel(inflation=0.0)) ** 2).mean()))
    assert row["sd_over_rmse"] == pytest.approx(float(cell["sd"].mean()) / rmse, abs=5e-4)
    assert row["variance_share"] == pytest.approx(1 / 9, abs=5e-4)
    json.dumps(result_summary)


@pytest.mark.parametrize("rates", ["matharena", "prior"])
def test_graded_study_on_real_and_prior_rates_recomputes(rates):
    # the first board of a cell, recomputed from the same stream: the rates of the shipped
    # MathArena board (models without replacement, questions with) or of the board model's
    # own prior, graded by simulate_leaderboard, one model
    cfg = registry.make_config(
        "graded", replicates=2, n_models=1, n_questions=30, trials=2, inflation=(0.0,), rates=rates
    )
    ds = run(cfg, progress=False)
    assert ds.attrs["rates"] == rates and dict(ds.sizes)["model"] == 1
    rng = np.random.default_rng([0, 0])
    if rates == "matharena":
        real = np.nanmean(datasets.load("matharena_aime25_i")["results"].values, axis=-1)
        p = real[np.ix_(rng.choice(16, 1, replace=False), rng.integers(0, 15, 30))]
        assert set(np.round(p.ravel() * 4, 9)) <= {0.0, 1.0, 2.0, 3.0, 4.0}  # 4 runs each
    else:
        p = prior_rates(rng, n_models=1, n_questions=30)[1]
    board = simulate_leaderboard(
        1, 30, scores="graded", inflation=0.0, n_trials=2, expected=p, seed=rng
    )
    np.testing.assert_array_equal(ds["truth"].isel(inflation=0, board=0), p.mean(axis=1))
    mu, sd, lo, hi = bayes_ci(board.scores, fractional=True, prior="empirical", pool="model")
    one = ds.isel(inflation=0, board=0).sel(prior="empirical pool=model")
    for name, value in zip(("mean", "sd", "lo", "hi"), (mu, sd, lo, hi), strict=True):
        np.testing.assert_allclose(one[name], value, rtol=1e-12)


@pytest.mark.slow
def test_one_model_graded_real_rates_cover():
    """One model of the MathArena board, grades of precision 8 graded two and four times: most
    questions always solved or always missed, so few show the grades' spread. The plug-in
    dispersion covered 0.89 at M = 30 with two grades (1,000 runs); widened by Student's t on
    its degrees of freedom, 0.957 (sd/RMSE 1.34) and 0.940-0.957 (0.97-1.01) at M = 100;
    these 300 runs 0.953 / 1.31 and 0.950 / 0.97. Held (coverage s.e. 0.013): coverage
    0.925-0.985, and sd/RMSE 0.85-1.15 at M = 100."""
    for M, N in ((30, 2), (100, 4)):
        cfg = registry.make_config(
            "graded",
            replicates=300,
            n_models=1,
            n_questions=M,
            trials=N,
            inflation=(0.0,),
            rates="matharena",
        )
        cell = summary(run(cfg, progress=False))["cells"]["inflation=0 empirical pool=model"]
        assert 0.925 <= cell["coverage"] <= 0.985, (M, N, cell)
        if M == 100:
            assert 0.85 <= cell["sd_over_rmse"] <= 1.15, (M, N, cell)


@pytest.mark.slow
def test_graded_real_rate_board_pools_its_graders_dispersion():
    """Twelve MathArena models on 30 questions, grades of precision 8 graded twice: each model
    alone shows its grades' spread on a few questions (the t on them gave sd/RMSE 1.46-1.55,
    300 boards); moderated towards the board's dispersion (Smyth's empirical Bayes), 0.959 /
    1.07 (pool model) and 0.967 / 1.11 (pool board); these 200 boards 0.948 / 0.98 and
    0.957 / 1.02. Held (2,400 intervals, correlated within a board): coverage 0.93-0.985,
    sd/RMSE 0.88-1.2."""
    cfg = registry.make_config(
        "graded",
        replicates=200,
        n_models=12,
        n_questions=30,
        trials=2,
        inflation=(0.0,),
        rates="matharena",
    )
    cells = summary(run(cfg, progress=False))["cells"]
    for pool in ("model", "board"):
        cell = cells[f"inflation=0 empirical pool={pool}"]
        assert 0.93 <= cell["coverage"] <= 0.985, (pool, cell)
        assert 0.88 <= cell["sd_over_rmse"] <= 1.2, (pool, cell)


@pytest.mark.slow
def test_graded_study_writes_its_files(tmp_path):
    result = registry.run_study(
        "graded", tmp_path, progress=False, replicates=2, n_models=3, n_questions=20
    )
    assert result.files["plot"].read_bytes()[:4] == b"\x89PNG"
    assert result.files["netcdf"].exists()
    assert set(result.summary["cells"]) == {
        f"inflation={x} {p}" for x in ("1", "0.3", "0") for p in PRIORS
    }


@pytest.mark.parametrize(
    ("options", "match"),
    [
        ({"inflation": (1.5,)}, r"inflation is 1.5; expected numbers in \[0, 1\]"),
        ({"inflation": ()}, r"inflation is empty"),
        ({"precision": 0.0}, r"precision is 0.0; expected a number > 0"),
        ({"n_models": 0}, r"n_models is 0; expected an integer >= 1"),
        ({"rates": "logit"}, r"rates is 'logit'"),
        ({"rates": "matharena", "n_models": 17}, r"the MathArena board has 16 models"),
        (
            {"rates": "prior", "interaction_sd": 0.5},
            r"interaction_sd is 0.5 with rates 'prior'; expected 0.0",
        ),
        (
            {"rates": "prior", "difficulty_sd": 3.0},
            r"difficulty_sd is 3.0 with rates 'prior'; expected 1.5",
        ),
    ],
)
def test_graded_config_refuses_bad_values(options, match):
    with pytest.raises(ValueError, match=match):
        registry.make_config("graded", **options)


@pytest.mark.slow
def test_measured_fractional_calibration():
    """The README's numbers at a third of the boards (35 per cell, 700 intervals, correlated
    within a board; measured with 100): with all-or-nothing grades the learned prior's 95%
    intervals are honest (coverage 0.95-0.96, sd/RMSE 0.98-1.02 measured), and with Beta
    grades too, each grade worth the trials its spread shows (0.95, 0.99-1.00 measured; one
    trial per grade gave sd/RMSE 1.9-3.2). Held: coverage in 0.91-0.99 and sd/RMSE in
    0.85-1.2 for both; the uniform prior below 0.4 (it pulls one grade two thirds of the way
    to 1/2)."""
    cfg = registry.make_config("graded", replicates=35, inflation=(1.0, 0.0))
    cells = summary(run(cfg, progress=False))["cells"]
    for pool in ("model", "board"):
        for grades in ("inflation=1", "inflation=0"):
            cell = cells[f"{grades} empirical pool={pool}"]
            assert 0.91 <= cell["coverage"] <= 0.99, (grades, pool, cell)
            assert 0.85 <= cell["sd_over_rmse"] <= 1.2, (grades, pool, cell)
    assert cells["inflation=1 uniform"]["coverage"] < 0.4
