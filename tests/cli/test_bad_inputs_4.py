"""Hardening II (issue 27), a fourth sweep of bad inputs (334 fresh inputs, /tmp/be27d): the
cases that ended in a traceback (NUTS draws and tuning steps of a memory-bomb size), a silent
number (a one-arm bandit matrix, a plan at confidence 0.5), a message in internal words
(integer scores above 1 read as "R contains category 2 ... w", "batch_size is 4", "z_target is
0.0") or a misleading warning (the log's own weights reported as the user's --weights), and
look-alike labels kept apart without a word. Each is reproduced on a small file made in the
test's folder."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from one_line import one_line_error, small_board

from bayes_eval.adaptive.synthetic import from_matrix
from bayes_eval.cli import main
from bayes_eval.logs import read_eval_log


def _board(models=("a", "b"), questions=6, trials=2, seed=0):
    return small_board(models, questions, trials, seed)


@pytest.fixture
def board(tmp_path) -> str:
    path = tmp_path / "board.csv"
    _board().to_csv(path, index=False)
    return str(path)


# 1. integer scores above 1 without weights: the file, the score and --weights are named


@pytest.mark.parametrize(
    ("score", "says"),
    [
        (2, "a score is 2, but with no --weights the scores must be 0/1"),
        (100, "a score is 100 (a 0-100 scale? divide the scores by 100"),
    ],
    ids=["category-2", "percent-scale"],
)
def test_integer_scores_above_one_name_the_weights_option(score, says, tmp_path, capsys):
    df = _board()
    df.loc[3, "score"] = score
    path = tmp_path / "s.csv"
    df.to_csv(path, index=False)
    assert main(["rank", str(path)]) == 2
    line = one_line_error(capsys)
    assert f"{path}: {says}" in line
    assert f"(--weights w0,..,w{score})" in line
    assert "R contains" not in line and " w=" not in line


@pytest.mark.slow
def test_the_logs_own_weights_are_not_reported_as_the_users(capsys):
    # one Inspect sample, scored wrong: the log's default weights (0, 1) meet category 0 only
    assert main(["rank", "dataset:inspect_mmlu_log", "--prior-kind", "uniform"]) == 0
    assert "--weights" not in capsys.readouterr().err


# 2. labels that differ only by case or Unicode compatibility forms: kept apart, one warning


@pytest.mark.parametrize(
    ("second", "shown"),
    [("A B", "'A B'"), ("\uff41 b", "'\\uff41 b'"), ("a\u00a0b", "'a\\xa0b'")],
    ids=["case-only", "full-width", "no-break-space"],
)
def test_look_alike_labels_are_kept_apart_with_one_warning(second, shown, tmp_path):
    df = _board(models=("a b", "c"))
    df["model"] = df.model.replace("c", second)
    path = tmp_path / "names.csv"
    df.to_csv(path, index=False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        R = read_eval_log(path).results()
    assert sorted(R["model"].values) == sorted(["a b", second])  # two models, not merged
    texts = [str(w.message) for w in caught]
    assert len(texts) == 1, texts
    assert shown in texts[0] and "'a b'" in texts[0]
    assert "differ only by letter case or Unicode compatibility forms" in texts[0]
    assert "kept apart as two models" in texts[0]


def test_distinct_labels_raise_no_look_alike_warning(board):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert read_eval_log(board).results().sizes["model"] == 2


# 3. adaptive: a one-arm matrix, and a batch larger than the examples


def test_a_one_arm_matrix_is_refused(tmp_path):
    path = tmp_path / "one_arm.npy"
    np.save(path, np.ones((1, 5)))
    with pytest.raises(ValueError, match=r"the matrix has 1 arm .* expected 2 or more arms"):
        from_matrix(path)
    np.save(path, np.ones((2, 5)))
    assert from_matrix(path).matrix.shape == (2, 5)


def test_a_batch_larger_than_the_examples_is_refused_before_the_bar(tmp_path, capsys):
    path = tmp_path / "m.npy"
    np.save(path, np.eye(3)[:, :1])  # 3 arms x 1 example
    argv = ["adaptive", "simulate", "--dataset", "matrix", "--matrix", str(path)]
    assert main([*argv, "--replicates", "1", "--out", str(tmp_path / "o")]) == 2
    line = one_line_error(capsys)  # one line: no progress bar was started
    assert "--batch is 4, more than the 1 example(s) per arm of m; expected a batch of 1..1" in line


# 4. plan: a ranking confidence of 0.5 or below is no target


@pytest.mark.parametrize("confidence", ["0.5", "0.3"])
def test_plan_confidence_at_or_below_one_half_is_refused(confidence, board, capsys):
    assert main(["plan", board, "a", "b", "--confidence", confidence]) == 2
    line = one_line_error(capsys)
    assert f"confidence is {float(confidence)}; expected a ranking confidence in (0.5, 1)" in line
    assert "z_target" not in line


# 5. NUTS draws and tuning steps of a memory-bomb size, refused before sampling


@pytest.mark.pymc  # builds a PyMC model; nothing is compiled or sampled
@pytest.mark.parametrize(
    ("draws", "tune", "chains", "says"),
    [
        (10**12, 20, 1, r"of NUTS needs about .* above the limit of 4 GiB"),
        (20, 10**12, 1, r"of NUTS needs about .* above the limit of 4 GiB"),
        (20, 20, 10**6, r"--chains is 1000000; expected at most 64"),
    ],
)
def test_nuts_memory_and_time_bombs_are_refused_before_sampling(draws, tune, chains, says):
    from bayes_eval.models import matching_model
    from bayes_eval.models.sampling import MAX_CHAINS, check_trace_memory, sample

    model = matching_model(np.ones((2, 6, 2), dtype=int))
    with pytest.raises(ValueError, match=says):
        sample(model, draws=draws, tune=tune, chains=chains)
    check_trace_memory(model, draws=1000, tune=1000, chains=MAX_CHAINS)  # the limit passes


@pytest.mark.pymc
@pytest.mark.slow
@pytest.mark.parametrize("command", ["crosscheck", "compare"])
def test_nuts_memory_bomb_is_one_line_on_the_command_line(command, board, capsys):
    argv = [command, board, "--draws", "100", "--tune", "1000000000000", "--chains", "1"]
    assert main([*argv, "--no-progress"]) == 2
    line = one_line_error(capsys)
    assert "--draws 100 and --tune 1000000000000 x --chains 1 of NUTS needs about" in line


# 6. --prior-file of other models, --weights that are not finite or far too many


def test_a_prior_file_of_other_models_is_refused(board, tmp_path, capsys):
    other = tmp_path / "other.csv"
    _board(models=("x", "y")).to_csv(other, index=False)
    assert main(["rank", board, "--prior-file", str(other)]) == 2
    line = one_line_error(capsys)
    assert f"{other} (--prior-file) has model(s) ['x', 'y'] that the results do not have" in line
    assert "(0 in common); expected earlier runs of the same models" in line


def test_a_prior_file_of_some_of_the_models_and_questions_is_read(board, tmp_path, capsys):
    earlier = tmp_path / "earlier.csv"
    _board(models=("a",), questions=3, seed=1).to_csv(earlier, index=False)
    assert main(["rank", board, "--prior-file", str(earlier), "--prior-kind", "uniform"]) == 0
    assert f"+ earlier runs ({earlier})" in capsys.readouterr().out


def test_a_graded_prior_file_for_binary_results_is_refused(board, tmp_path, capsys):
    earlier = tmp_path / "graded.csv"
    _board().astype({"score": float}).assign(score=0.25).to_csv(earlier, index=False)
    assert main(["rank", board, "--prior-file", str(earlier)]) == 2
    line = one_line_error(capsys)
    assert f"{earlier} (--prior-file): the scores are graded, but those of {board}" in line
    assert "R0" not in line


@pytest.mark.parametrize(
    ("weights", "says"),
    [
        ("0,nan", "--weights has nan; expected finite numbers, one weight per category"),
        (",".join(["0.5"] * 20000), "--weights with 20000 weights on 2 models x 6 questions needs"),
    ],
    ids=["nan", "20000-weights"],
)
def test_weights_are_checked_before_anything_is_allocated(weights, says, board, capsys):
    assert main(["rank", board, "--weights", weights]) == 2
    line = one_line_error(capsys)
    assert says in line and " w " not in line


# 7. adaptive roots and simulate: stages, batch and belief in the options' words


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["--horizon", "1000000000", "--tau2", "1"], "1000000000 stages (--horizon) x 16384 grid"),
        (["--examples", "100000000000"], "(--examples with --batch and --granularity)"),
        (["--horizon", "20", "--tau2", "1", "--grid", "100000000"], "expected at most 2 stages"),
        (["--examples", "10", "--batch", "1000"], "--batch is 1000, more than the 10 examples"),
    ],
    ids=["horizon", "examples", "grid", "batch"],
)
def test_roots_work_is_bounded_before_it_starts(argv, says, capsys):
    assert main(["adaptive", "roots", *argv]) == 2
    line = one_line_error(capsys)
    assert says in line and "batch_size" not in line


def test_roots_at_the_work_limit_is_allowed():
    from bayes_eval.adaptive.runs import ROOTS_WORK_LIMIT, root_table

    with pytest.raises(ValueError, match="above the limit of H x grid = 2"):
        root_table(tau2=1.0, horizon=ROOTS_WORK_LIMIT // 128 + 1, grid=128)
    assert len(root_table(tau2=1.0, horizon=3, grid=128).roots) == 3


@pytest.mark.parametrize("mean", ["2", "-0.1", "nan"])
def test_simulate_belief_mean_is_an_accuracy(mean, tmp_path, capsys):
    path = tmp_path / "m.npy"
    np.save(path, np.eye(3))
    argv = ["adaptive", "simulate", "--dataset", "matrix", "--matrix", str(path)]
    assert main([*argv, "--belief-mean", mean, "--out", str(tmp_path / "o")]) == 2
    assert f"--belief-mean is {float(mean):g}; expected an accuracy in [0, 1]" in one_line_error(
        capsys
    )


# 8. compare: too few draws for PSIS-LOO, one cell; plan with fractional counts


@pytest.mark.pymc  # imports PyMC; refused before any model is built
@pytest.mark.parametrize(
    ("name", "argv", "says"),
    [
        ("board", ["--draws", "20"], "--draws 20 x --chains 1 is 20 posterior draws; PSIS-LOO"),
        ("cell", ["--draws", "100"], "the results have 1 (model, question) cell; leave-one-out"),
    ],
    ids=["too-few-draws", "one-cell"],
)
def test_compare_refuses_what_loo_cannot_do(name, argv, says, board, tmp_path, capsys):
    path = board
    if name == "cell":
        path = tmp_path / "cell.csv"
        _board(models=("a",), questions=1, trials=1).to_csv(path, index=False)
    assert main(["compare", str(path), *argv, "--tune", "20", "--chains", "1"]) == 2
    assert says in one_line_error(capsys)


def test_plan_refuses_fractional_counts_in_its_words(tmp_path, capsys):
    df = _board().astype({"score": float})
    df.loc[::3, "score"] = 0.5
    path = tmp_path / "graded.csv"
    df.to_csv(path, index=False)
    assert main(["plan", str(path), "a", "b", "--fractional"]) == 2
    line = one_line_error(capsys)
    assert "(--fractional) have none: use --score-levels K instead" in line
    assert "R contains" not in line


@pytest.mark.pymc
@pytest.mark.slow
def test_judges_draws_memory_bomb_is_refused_before_sampling(capsys):
    argv = ["judges", "dataset:mtbench_judges", "--draws", "1000000000000", "--tune", "20"]
    assert main([*argv, "--chains", "1", "--no-progress"]) == 2
    assert "--draws 1000000000000 and --tune 20 x --chains 1 of NUTS" in one_line_error(capsys)
