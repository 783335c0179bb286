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
        PairsConfig(n_models=100_000, n_questions=30)
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


BIG = "1000000000000"


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["distinguishability", "--n-max", BIG], "--n-max 1000000000000 needs about"),
        (["pairs", "--N", BIG, "--replicates", "2"], "--N up to 1000000000000 with"),
        (["clusters", "--draws", BIG, "--replicates", "2"], "--draws 1000000000000 and --trials"),
        (["hyperprior", "--M", BIG, "--replicates", "2"], "--M up to 1000000000000 with"),
        (["prior-benefit", "--depths", f"0,{BIG}"], "--depths up to 1000000000000 with"),
        (["judges-synthetic", "--n-questions", BIG], "--n-questions 1000000000000 with"),
        (["elicit", "--lo", "0.3", "--hi", "0.6", "--simulations", BIG], "--simulations 1000"),
        (["crossed", "--draws", BIG, "--replicates", "1"], "--draws 1000000000000 and --tune"),
    ],
)
def test_validate_memory_bombs_name_the_option(argv, words, tmp_path, capsys):
    """Each was a numpy allocation traceback (7 TiB - 5 PiB), or a Rust panic of nutpie
    (`crossed`), before the fourth sweep."""
    assert main(["validate", *argv, "--out", str(tmp_path / "out")]) == 2
    line = _one_line_error(capsys)
    assert words in line and "above the limit of 4 GiB" in line, line
    assert not (tmp_path / "out").exists()  # refused before the study starts


def test_validate_studies_refuse_data_of_the_wrong_kind(tmp_path, capsys):
    assert main(["validate", "hyperprior", "--sources", "phi4_aime25,mtbench_judges"]) == 2
    assert "'mtbench_judges' holds no results of models on questions" in _one_line_error(capsys)
    one = tmp_path / "one_trial.csv"
    rows = [(m, f"q{q}", 0, (q + len(m)) % 2) for m in ("a", "bb") for q in range(6)]
    pd.DataFrame(rows, columns=["model", "question", "trial", "score"]).to_csv(one, index=False)
    argv = ["validate", "convergence", str(one), "--replicates", "20", "--out", str(tmp_path)]
    assert main(argv) == 2
    assert "convergence@n compares the ranking after s trials" in _one_line_error(capsys)


def test_coverage_refuses_more_exact_replicates_than_replicates(tmp_path, capsys):
    """A value the user gave; the default (2000) above a small `replicates` means all."""
    config = tmp_path / "c.toml"
    config.write_text('M = [5]\nN = [1]\nC = [1]\nscenarios = ["uniform"]\nreplicates = 10\n')
    with config.open("a") as f:
        f.write("exact_replicates = 100\n")
    assert main(["validate", "coverage", "--config", str(config), "--out", str(tmp_path)]) == 2
    assert "exact_replicates is 100, more than replicates (10)" in _one_line_error(capsys)


def test_schemas_checks_confidence_first_and_says_briefly_why_none_applies(capsys):
    assert main(["schemas", "dataset:phi4_aime25", "--confidence", "2"]) == 2
    assert "confidence is 2.0" in _one_line_error(capsys)
    assert main(["schemas", "dataset:phi4_aime25"]) == 2
    line = _one_line_error(capsys)
    assert line.startswith("bayes-eval: error: none of the 12 schemata can be applied")
    assert "none (scores only)" in line and len(line) < 500, line


def test_an_allocation_no_check_foresaw_is_one_line(monkeypatch, capsys):
    """The backstop: numpy's MemoryError ends in one line and status 2, not a traceback."""
    import bayes_eval.cli.datasets as cmd

    def huge(args):
        raise MemoryError("Unable to allocate 7.28 TiB for an array with shape (10**12,)")

    monkeypatch.setattr(cmd, "run", huge)
    import bayes_eval.cli._program as program

    real = program.parser

    def patched(only=None):
        p = real(only)
        sub = next(a for a in p._actions if a.dest == "command")
        sub.choices["datasets"].set_defaults(func=huge)
        return p

    monkeypatch.setattr(program, "parser", patched)
    assert main(["datasets"]) == 2
    line = _one_line_error(capsys)
    assert "not enough memory for this request (Unable to allocate 7.28 TiB" in line
