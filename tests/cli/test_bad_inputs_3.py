"""Hardening II (issue 27), a third sweep of bad inputs: the cases of a fresh sweep of 343
inputs that ended in a traceback (memory bombs of plan, crosscheck, demo, biased-coin,
prior-benefit and validate pairs; a NaN judge prior strength) or a silent number (negative
arm costs). Each is refused in one line, before anything large is allocated."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from one_line import one_line_error

from bayes_eval.adaptive.synthetic import from_matrix
from bayes_eval.cli import main
from bayes_eval.synthetic.biased_coin import mimic_probabilities, simulate_results
from bayes_eval.validation.study_configs import PairsConfig, PriorBenefitConfig

_one_line_error = one_line_error


@pytest.fixture
def board(tmp_path) -> str:
    rng = np.random.default_rng(0)
    rows = [
        (m, f"q{q}", t, int(rng.uniform() < 0.5)) for m in "ab" for q in range(8) for t in (0, 1)
    ]
    path = tmp_path / "board.csv"
    pd.DataFrame(rows, columns=["model", "question", "trial", "score"]).to_csv(path, index=False)
    return str(path)


def test_plan_simulations_memory_bomb(board, capsys):
    assert main(["plan", board, "a", "b", "--simulations", "1000000000"]) == 2
    line = _one_line_error(capsys)
    assert "1000000000 simulations on 2 models x 8 questions needs about" in line
    assert "above the limit of 4 GiB; expected fewer simulations" in line


@pytest.mark.parametrize("flag", ["--beta-max", "--omega"])
@pytest.mark.parametrize("value", ["nan", "inf", "-1"])
def test_judges_prior_strength_must_be_finite(flag, value, capsys):
    argv = ["judges", "dataset:mtbench_judges", flag, value, "--no-progress"]
    assert main(argv) == 2
    assert f"{flag} is {float(value)}; expected a finite number >= 0." in _one_line_error(capsys)


@pytest.mark.parametrize("cost", ["-2", "0", "nan"])
def test_adaptive_costs_must_be_positive(tmp_path, cost):
    matrix = tmp_path / "m.npy"
    np.save(matrix, np.ones((3, 5)))
    with pytest.raises(ValueError, match=r"expected finite costs > 0, one per arm"):
        from_matrix(matrix, costs=np.array([1.0, float(cost), 3.0]))
    assert from_matrix(matrix, costs=np.array([1.0, 2.0, 3.0])).costs.tolist() == [1, 2, 3]


def test_mimics_memory_bombs_are_refused_before_allocating():
    with pytest.raises(ValueError, match=r"1000000000 questions for each of 11 mimics needs about"):
        mimic_probabilities(n_questions=1_000_000_000)
    p = mimic_probabilities(n_questions=3)
    with pytest.raises(
        ValueError, match=r"1000000000 trials per question on 33 \(model, question\) cells"
    ):
        simulate_results(p, 1_000_000_000)
    assert simulate_results(p, 2).shape == (11, 3, 2)


def test_demo_memory_bomb_names_the_request(capsys):
    assert main(["demo", "--trials", "1000000000"]) == 2
    assert "1000000000 trials per question on 330 (model, question) cells" in _one_line_error(
        capsys
    )


def test_study_config_memory_bombs():
    with pytest.raises(ValueError, match=r"n_max 1000000000 with 6 depths .* above the limit"):
        PriorBenefitConfig(n_max=1_000_000_000)
    with pytest.raises(ValueError, match=r"n_models 100000 \(4999950000 pairs\) .* above the"):
        PairsConfig(n_models=100_000, n_questions=100_000)
    PairsConfig(n_models=8, n_questions=30)  # the defaults still pass
    PriorBenefitConfig()


@pytest.mark.pymc
@pytest.mark.slow
def test_crosscheck_mc_draws_memory_bomb_before_sampling(board, capsys):
    argv = ["crosscheck", board, "--mc-draws", "100000000000", "--no-progress"]
    assert main([*argv, "--draws", "5", "--tune", "5", "--chains", "1"]) == 2
    line = _one_line_error(capsys)
    assert "--mc-draws 100000000000 on 2 model(s) needs about" in line


def test_a_metric_needing_more_trials_than_n_max_is_refused(capsys):
    assert (
        main(["validate", "biased-coin", "--methods", "bayes,pass_at_k:1000", "--n-max", "80"]) == 2
    )
    line = one_line_error(capsys)
    assert "pass_at_k:1000 needs k = 1000" in line and "--n-max = 80" in line


@pytest.mark.parametrize(
    ("option", "value", "says"),
    [
        ("--budget", "0", "--budget is 0; expected a fraction in (0, 1]"),
        ("--budget", "1.5", "--budget is 1.5"),
        ("--belief-var", "-1", "--belief-var is -1; expected a variance > 0"),
    ],
)
def test_adaptive_checks_its_numbers_before_any_progress_bar(option, value, says, capsys):
    assert main(["adaptive", "simulate", option, value]) == 2
    assert says in one_line_error(capsys)  # one line: no bar was started


@pytest.mark.pymc  # imports PyMC, samples nothing
def test_crossed_draws_memory_bomb_is_refused_before_sampling(capsys):
    argv = ["rank", "dataset:matharena_aime25_i", "--estimator", "crossed", "--draws", "100000000"]
    assert main(argv) == 2
    line = one_line_error(capsys)
    assert "--draws 100000000 x --chains" in line and "above the limit" in line


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["validate", "pairs", "--n-models", "20", "--rates", "matharena"], "--n-models is 20"),
        (["validate", "prior-benefit", "--n-max", "100000000"], "--n-max 100000000 with 6"),
        (["validate", "sbc", "--n-models", "100000"], "--n-questions 30 with --n-models 100000"),
    ],
)
def test_validate_messages_name_the_options_not_the_config_fields(argv, words, capsys):
    """A study's check speaks of its config's fields (``n_models``); the command line's
    message names the option the user typed (``--n-models``)."""
    assert main(argv) == 2
    line = _one_line_error(capsys)
    assert words in line and "n_models" not in line and "n_max" not in line, line
