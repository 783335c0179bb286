"""The plan study (``bayes-eval validate plan``): a small run end to end, and its config."""

from __future__ import annotations

import json

import numpy as np
import pytest

from bayes_eval.cli import main
from bayes_eval.validation.registry import make_config


def test_a_small_study_runs_end_to_end(tmp_path, capsys):
    argv = ["validate", "plan", "--replicates", "6", "--N", "4", "--simulations", "200"]
    assert main([*argv, "--json", "--out", str(tmp_path)]) == 0
    doc = json.loads(capsys.readouterr().out)
    cell = doc["cells"]["N=4"]
    assert cell["plans"] <= 6 and isinstance(doc["verdict"]["promise_kept"], bool)
    if cell["plans"]:
        assert 0.0 <= cell["kept"] <= 1.0 and 0.8 <= cell["promised"] <= 1.0
    assert (tmp_path / "plan.nc").exists() and (tmp_path / "plan.png").exists()
    import xarray as xr

    ds = xr.open_dataset(tmp_path / "plan.nc")
    planned = ds["planned"].values
    assert np.all(ds["n_required"].values[planned] > 4)
    # the probability the plans start from, stated and true, over the planned boards
    true_now = ds["true_now"].values.astype(bool)
    assert not true_now[~planned].any()
    if cell["plans"]:
        assert cell["true_now"] == pytest.approx(true_now[planned].mean(), abs=1e-4)
        assert cell["prob_now"] == pytest.approx(ds["prob_now"].values[planned].mean(), abs=1e-4)
        assert 0.5 <= cell["prob_now"] <= 1.0
    # where the true gap sits in the posterior the plan starts from: on every planned board
    gap_z = ds["gap_z"].values
    assert np.all(np.isfinite(gap_z) == planned)
    if cell["plans"]:
        assert cell["gap_z"] == pytest.approx(gap_z[planned].mean(), abs=1e-3)


@pytest.mark.parametrize(
    "boards", [["--ability-from-prior"], ["--rates", "matharena"], ["--rates", "prior"]]
)
def test_plans_run_on_the_hyperprior_and_on_real_rates(boards, tmp_path, capsys):
    # 12 boards of seed 0 give one plan on the real rates, two on the hyperprior's boards and
    # four on the board model's prior
    argv = ["validate", "plan", *boards, "--replicates", "12", "--N", "2"]
    assert main([*argv, "--simulations", "200", "--json", "--out", str(tmp_path)]) == 0
    doc = json.loads(capsys.readouterr().out)
    rates, from_prior = (boards[1], 0) if len(boards) == 2 else ("rasch", 1)
    assert doc["settings"]["rates"] == rates
    assert doc["settings"]["ability_from_prior"] == from_prior
    cell = doc["cells"]["N=2"]
    assert 1 <= cell["plans"] <= 12
    assert 0.8 <= cell["promised"] <= 1.0 and np.isfinite(cell["gap_z"])


def test_config_refuses_bad_values():
    with pytest.raises(ValueError, match="max_trials"):
        make_config("plan", N=(4,), max_trials=4)
    with pytest.raises(ValueError, match="confidence"):
        make_config("plan", confidence=0.4)
    with pytest.raises(ValueError, match="assurance"):
        make_config("plan", assurance=1.5)
    with pytest.raises(ValueError, match="16 models"):
        make_config("plan", rates="matharena", n_models=20)
    with pytest.raises(ValueError, match="rates"):
        make_config("plan", rates="uniform")
    with pytest.raises(ValueError, match="ability_from_prior applies to rates rasch"):
        make_config("plan", rates="matharena", ability_from_prior=True)
    with pytest.raises(ValueError, match="rates prior draws one board"):
        make_config("plan", rates="prior", target="questions")


@pytest.mark.slow
def test_plans_keep_their_promise_at_four_trials():
    """Plans carried out on 200 boards of 6 close models at N = 4: the share kept within
    three binomial standard errors of the assurance promised (600 boards: 0.79 +- 0.05
    kept against 0.81 promised; the closed form's plans kept 0.61 against 0.83)."""
    from bayes_eval.validation import plan_study

    config = make_config("plan", replicates=200, N=(4,), simulations=500)
    cell = plan_study.summary(plan_study.run(config, progress=False))["cells"]["N=4"]
    assert cell["plans"] >= 10, cell
    assert cell["kept"] >= cell["promised"] - 3 * cell["kept_se"], cell
    # the leader probability the plans start from is calibrated (three binomial se)
    p = cell["prob_now"]
    assert abs(cell["true_now"] - p) <= 3 * np.sqrt(p * (1 - p) / cell["plans"]) + 0.01, cell


def test_a_small_top_set_study_runs(tmp_path, capsys):
    argv = ["validate", "plan", "--target", "top", "--top", "2", "--replicates", "4"]
    assert main([*argv, "--N", "2", "--simulations", "200", "--json", "--out", str(tmp_path)]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["settings"]["target"] == "top" and doc["settings"]["top"] == 2
    cell = doc["cells"]["N=2"]
    assert cell["plans"] <= 4
    if cell["plans"]:
        assert 0.0 <= cell["kept"] <= 1.0 and 0.8 <= cell["promised"] <= 1.0
        assert 0.0 <= cell["true_now"] <= 1.0 and 0.0 <= cell["prob_now"] <= 1.0
        # the refitted boards placed in the plan's law: shares, a mean and a ratio
        assert 0.0 <= cell["margin_pit_below_10"] <= cell["margin_pit_below_20"] <= 1.0
        assert cell["move"] >= 0.0 and cell["cov_ratio"] > 0.0
    with pytest.raises(ValueError, match="top is 6"):
        make_config("plan", target="top", top=6)
    with pytest.raises(ValueError, match="target"):
        make_config("plan", target="all")
    with pytest.raises(ValueError, match="fdr"):
        make_config("plan", fdr=0.0)
    with pytest.raises(ValueError, match="refit law is for the plans of targets pair and top"):
        make_config("plan", target="questions", preposterior="refit")


@pytest.mark.slow
def test_the_refit_law_in_the_study(tmp_path, capsys):
    """``--refit-check`` records the refit law's assurance at each plan's N (beside whether it
    was kept) and ``--preposterior refit`` makes the plans under that law."""
    board = ["validate", "plan", "--target", "top", "--N", "1", "--n-models", "4"]
    board += ["--n-questions", "12", "--json"]
    argv = [*board, "--replicates", "6", "--simulations", "100", "--refit-check", "10"]
    assert main([*argv, "--out", str(tmp_path / "check")]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["settings"]["refit_check"] == 10 and doc["settings"]["preposterior"] == "normal"
    cell = doc["cells"]["N=1"]
    assert cell["plans"] >= 1, cell
    import xarray as xr

    ds = xr.open_dataset(tmp_path / "check" / "plan.nc")
    planned, refit = ds["planned"].values, ds["refit_assurance"].values
    # an assurance over 10 refitted boards on every planned board, NaN elsewhere
    assert np.all(np.isfinite(refit) == planned)
    assert np.allclose(refit[planned] * 10, np.round(refit[planned] * 10))
    assert cell["refit_assurance"] == pytest.approx(refit[planned].mean(), abs=1e-4)
    kept = ds["kept"].values[planned].astype(float)
    assert cell["kept_minus_refit"] == pytest.approx((kept - refit[planned]).mean(), abs=1e-4)
    assert cell["kept_minus_refit_se"] > 0.0
    # plans made under the refit law (separated models, so a plan is short)
    argv = [*board, "--replicates", "4", "--ability-sd", "2", "--simulations", "20"]
    argv += ["--preposterior", "refit", "--max-trials", "40"]
    assert main([*argv, "--out", str(tmp_path / "refit")]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["settings"]["preposterior"] == "refit"
    cell = doc["cells"]["N=1"]
    assert cell["plans"] >= 1 and 0.8 <= cell["promised"] <= 1.0, cell
    assert "refit_assurance" not in cell
    # pair plans made under the refit law (the two best of four models, 20 refitted boards)
    argv = ["validate", "plan", "--N", "1", "--n-models", "4", "--n-questions", "12", "--json"]
    argv += ["--replicates", "4", "--ability-sd", "1", "--simulations", "20"]
    argv += ["--preposterior", "refit", "--max-trials", "40"]
    assert main([*argv, "--out", str(tmp_path / "pair")]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["settings"]["preposterior"] == "refit" and doc["settings"]["target"] == "pair"
    cell = doc["cells"]["N=1"]
    assert cell["plans"] >= 1 and 0.8 <= cell["promised"] <= 1.0, cell
    # the promise is a share of 20 refitted boards
    ds = xr.open_dataset(tmp_path / "pair" / "plan.nc")
    promised = ds["promised"].values[ds["planned"].values]
    assert np.allclose(promised * 20, np.round(promised * 20))


@pytest.mark.slow
def test_top_set_plans_keep_their_promise():
    """Plans for the top model's claim at FDR 0.05 carried out on 60 boards of 6 close models
    at N = 2: the share kept within three binomial standard errors of the assurance promised
    (300 boards per N in the README: the share kept beside the promise at N = 1, 2, 4)."""
    from bayes_eval.validation import plan_study

    config = make_config("plan", target="top", replicates=60, N=(2,), simulations=500)
    cell = plan_study.summary(plan_study.run(config, progress=False))["cells"]["N=2"]
    assert cell["plans"] >= 25, cell
    assert cell["kept"] >= cell["promised"] - 3 * cell["kept_se"], cell


@pytest.mark.slow
def test_top_questions_plans_keep_their_promise():
    """Plans of more questions for the top model's claims on new questions, carried out on 80
    boards of 6 close models at N = 4: the share kept within three binomial standard errors of
    the assurance promised (here 62 plans: 0.87 +- 0.04 kept against 0.80; 600 boards of seed
    11, the Validation page: 0.815 +- 0.018 kept of 460 plans against 0.801)."""
    from bayes_eval.validation import plan_study

    config = make_config(
        "plan", target="top-questions", replicates=80, N=(4,), simulations=500, seed=2
    )
    cell = plan_study.summary(plan_study.run(config, progress=False))["cells"]["N=4"]
    assert cell["plans"] >= 30, cell
    assert cell["kept"] >= cell["promised"] - 3 * cell["kept_se"], cell


def test_a_small_questions_study_runs(tmp_path, capsys):
    """``--target questions``: plans of more questions carried out with new questions."""
    argv = ["validate", "plan", "--target", "questions", "--ability-sd", "1", "--N", "1,4"]
    argv += ["--replicates", "12", "--simulations", "200", "--json", "--out", str(tmp_path)]
    assert main(argv) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["settings"]["target"] == "questions" and doc["settings"]["pair"] == "top"
    assert doc["settings"]["max_questions"] == 3000
    import xarray as xr

    ds = xr.open_dataset(tmp_path / "plan.nc")
    planned = ds["planned"].values
    assert planned.any()
    # a plan asks for more than the board's 30 questions and at most --max-questions
    required = ds["n_required"].values[planned]
    assert np.all((required > 30) & (required <= 3000))
    assert np.all(np.isnan(ds["gap_z"].values))  # gap_z is the trials plans' (these questions)
    for n in ("N=1", "N=4"):
        cell = doc["cells"][n]
        assert "median_questions" in cell and "median_trials" not in cell
        if cell["plans"]:
            assert 0.8 <= cell["promised"] <= 1.0 and 0.5 <= cell["prob_now"] <= 1.0
    with pytest.raises(ValueError, match="a random pair is for plans of two models"):
        make_config("plan", target="top", pair="random")
    with pytest.raises(ValueError, match="max_questions"):
        make_config("plan", target="questions", max_questions=30)
    make_config("plan", n_questions=4000)  # max_questions is the questions target's alone
    with pytest.raises(ValueError, match="pair"):
        make_config("plan", pair="best")


def test_a_small_top_questions_study_runs(tmp_path, capsys):
    """``--target top-questions``: top-k plans of more questions, carried out and refitted."""
    argv = ["validate", "plan", "--target", "top-questions", "--ability-sd", "1", "--N", "1"]
    argv += ["--replicates", "6", "--simulations", "150", "--json", "--out", str(tmp_path)]
    assert main(argv) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["settings"]["target"] == "top-questions" and doc["settings"]["top"] == 1
    import xarray as xr

    ds = xr.open_dataset(tmp_path / "plan.nc")
    planned = ds["planned"].values
    assert planned.any()
    required = ds["n_required"].values[planned]
    assert np.all((required > 30) & (required <= 3000))
    cell = doc["cells"]["N=1"]
    assert "median_questions" in cell and 0.8 <= cell["promised"] <= 1.0
    assert 0.0 < cell["prob_now"] < 1.0  # P(today's set is the top set on new questions)
    with pytest.raises(ValueError, match="top-questions target needs a population"):
        make_config("plan", rates="prior", target="top-questions")
    with pytest.raises(ValueError, match="a random pair is for plans of two models"):
        make_config("plan", target="top-questions", pair="random")
    with pytest.raises(ValueError, match="max_questions"):
        make_config("plan", target="top-questions", max_questions=30)


@pytest.mark.slow
@pytest.mark.parametrize(("pair", "trials"), [("random", 1), ("top", 2)])
def test_questions_plans_keep_their_promise(pair, trials):
    """Plans of more questions carried out on 600 boards of 6 LLMs (logit ability sd 1): the
    share kept within three binomial standard errors of the assurance promised, for a pair fixed
    before the results from one trial and for the top two from two trials (2,500 boards in the
    docs' Validation page: 0.825 +- 0.017 and 0.804 +- 0.017 kept against 0.801)."""
    from bayes_eval.validation import plan_study

    config = make_config(
        "plan",
        target="questions",
        pair=pair,
        ability_sd=1.0,
        replicates=600,
        N=(trials,),
        simulations=500,
    )
    cell = plan_study.summary(plan_study.run(config, progress=False))["cells"][f"N={trials}"]
    assert cell["plans"] >= 60, cell
    assert cell["kept"] >= cell["promised"] - 3 * cell["kept_se"], cell


@pytest.mark.slow
def test_top_set_plans_from_one_trial_in_the_board_models_own_world():
    """Plans for the top model's claim from one trial, on boards drawn from the board model's
    own prior (every scale from its hyperprior): the share kept within three binomial standard
    errors of the assurance promised (here 62 plans: 0.85 +- 0.04 kept against 0.81; 2,000
    boards of seed 11: 0.782 +- 0.013 against 0.816, the Validation page)."""
    from bayes_eval.validation import plan_study

    config = make_config(
        "plan", target="top", rates="prior", replicates=120, N=(1,), simulations=500, seed=3
    )
    ds = plan_study.run(config, progress=False)
    cell = plan_study.summary(ds)["cells"]["N=1"]
    assert cell["plans"] >= 40, cell
    assert cell["kept"] >= cell["promised"] - 3 * cell["kept_se"], cell
    # the law's diagnostics on exactly the planned boards. Here (62 plans) the moves average
    # 0.93 +- 0.07 and the refit's gap variances are 0.935 +- 0.033 of C(n) (seed 13's 527
    # plans: 1.07 and 0.95, the Validation page). The moves are held within four standard
    # errors of what the law says (1); the ratio within four of the band 0.90-1.00 the page
    # measures in this world (the refit 3-9% surer than the law).
    planned = ds["planned"].values
    for key in ("margin_pit", "move", "cov_ratio"):
        values = ds[key].values
        assert np.isfinite(values[planned]).all() and np.isnan(values[~planned]).all()
    assert abs(cell["move"] - 1.0) <= 4 * cell["move_se"], cell
    assert abs(cell["cov_ratio"] - 0.95) <= 4 * cell["cov_ratio_se"] + 0.05, cell
    p = cell["prob_now"]
    assert abs(cell["true_now"] - p) <= 3 * np.sqrt(p * (1 - p) / cell["plans"]) + 0.01, cell
