"""The Python API's edges (issue 39): the same checks as the module functions, sizes checked
before allocating, missing-everything refused, selections refused in our words (TypeError for
a wrong key type), and the core's safe file writing."""

from __future__ import annotations

import numpy as np
import pytest

import bayes_eval as be
from bayes_eval.files import OutputError, check_output, write_file
from bayes_eval.posteriors.priors import Prior


@pytest.fixture(scope="module")
def post():
    R = np.random.default_rng(0).integers(0, 2, (3, 10, 4))
    return be.posterior(R, models=["a", "b", "c"], prior="uniform")


def test_all_missing_graded_scores_are_refused_not_the_prior():
    X = np.full((5, 3), np.nan)
    with pytest.raises(ValueError, match="no observed score for question index"):
        be.posterior(X, fractional=True)
    with pytest.raises(ValueError, match="no observed trial at all"):
        be.posterior(X, fractional=True, answered_only=True)


def test_a_question_without_scores_is_kept_only_on_request():
    X = np.array([[0.5, 1.0], [np.nan, np.nan], [0.0, 0.25]])
    with pytest.raises(ValueError, match="question index \\(1,\\)"):
        be.posterior(X, fractional=True, prior="uniform")
    post = be.posterior(X, fractional=True, prior="uniform", answered_only=True)
    # the uniform prior's mean of the two answered questions: (1.5 + 1) / 4 and (0.25 + 1) / 4
    np.testing.assert_allclose(post.mean, np.mean([2.5 / 4, 1.25 / 4]), rtol=1e-12)


def test_the_method_checks_tau_as_the_module_function_does(post):
    with pytest.raises(ValueError, match=r"tau is 1.5; expected a number in \(0, 1\]"):
        post["a"].g_pass_at_k_tau(2, 1.5)
    with pytest.raises(ValueError, match=r"tau is 1.5; expected a number in \(0, 1\]"):
        be.g_pass_at_k_tau_ci(np.ones((3, 4), int), 2, 1.5)
    with pytest.raises(ValueError, match="only metric 'g_pass_at_k_tau' takes a threshold"):
        post.pass_metric("pass_at_k", 2, tau=0.5)


def test_weights_that_would_overflow_are_refused():
    R = np.random.default_rng(1).integers(0, 2, (10, 4))
    with pytest.raises(ValueError, match="overflows beyond 1e\\+150"):
        be.posterior(R, w=[0, 1e308])
    with pytest.raises(ValueError, match="overflows beyond 1e\\+150"):
        be.bayes(R, w=[0, 1e308])
    # the largest weights allowed give the scaled answer, finite
    big = be.posterior(R, w=[0, 1e150], prior="uniform")
    unit = be.posterior(R, w=[0, 1], prior="uniform")
    np.testing.assert_allclose(big.mean, 1e150 * unit.mean, rtol=1e-12)
    np.testing.assert_allclose(big.sd, 1e150 * unit.sd, rtol=1e-12)


@pytest.mark.parametrize("fractional", [False, True])
def test_a_one_dimensional_input_is_refused_with_both_readings(fractional):
    with pytest.raises(ValueError, match=r"R.reshape\(1, -1\).*R.reshape\(-1, 1\)"):
        be.posterior(np.array([0, 1, 1, 0]), fractional=fractional)


@pytest.mark.parametrize("spec", [True, False, [1, True], np.array([True, True])])
def test_a_boolean_is_no_prior(spec):
    with pytest.raises(ValueError, match="not True/False"):
        Prior.parse(spec)


def test_duplicate_model_names_are_refused():
    R = np.zeros((3, 4, 2), int)
    with pytest.raises(ValueError, match=r"models holds 'a' more than once \(positions \[0, 1\]\)"):
        be.posterior(R, models=["a", "a", "c"])


@pytest.mark.parametrize(
    ("models", "says"),
    [
        ([None, "b", "c"], "models holds None at position 0"),
        (["a", "", "c"], "models holds '' at position 1"),
        ([["a", "b", "c"]], "expected a list of names"),
        ("abc", "expected a list of names"),
    ],
    ids=["none", "empty", "nested", "string"],
)
def test_model_names_are_names(models, says):
    with pytest.raises(ValueError, match=says):
        be.posterior(np.zeros((3, 4, 2), int), models=models, prior="uniform")


def test_draws_too_many_for_the_memory_are_refused_before_allocating(post):
    with pytest.raises(ValueError, match=r"n = 1000000000000 draws needs about .* TiB"):
        post.draws(10**12)
    assert post.draws(7).shape == (7, 3)


@pytest.mark.parametrize(
    ("key", "error", "says"),
    [
        (1.5, TypeError, "got float 1.5"),
        (None, TypeError, "got NoneType None"),
        (True, TypeError, "got bool True"),
        (5, IndexError, "model position 5 is out of range for 3 models"),
        ("zz", ValueError, "model 'zz' is not one of"),
        (np.array([True, False]), IndexError, "expected \\(3,\\), one per model"),
    ],
    ids=["float", "none", "bool", "out-of-range", "unknown-name", "short-mask"],
)
def test_a_selection_is_refused_in_our_words(post, key, error, says):
    with pytest.raises(error, match=says):
        post[key]


def test_every_selection_kind_picks_the_same_models(post):
    want = post.mean[[0, 2]]
    for key in (["a", "c"], [0, 2], [0, -1], np.array([True, False, True]), slice(0, 3, 2)):
        np.testing.assert_array_equal(post[key].mean, want)
    np.testing.assert_array_equal(post[np.int64(1)].mean, post.mean[1])


# the core's file writing


def test_check_output_refuses_inputs_folders_and_long_names(tmp_path):
    src = tmp_path / "in.csv"
    src.write_text("x")
    with pytest.raises(OutputError, match="is the input file"):
        check_output(tmp_path / "." / "in.csv", option="--out", inputs=[src])
    with pytest.raises(OutputError, match="is a folder"):
        check_output(tmp_path, option="--html")
    with pytest.raises(OutputError, match="300 bytes long"):
        check_output(tmp_path / ("y" * 300), option="--plot")
    with pytest.raises(OutputError, match="does not exist"):
        check_output(tmp_path / "missing" / "a.png")
    assert check_output(tmp_path / "new" / "deeper", folder=True) == tmp_path / "new" / "deeper"


def test_write_file_is_whole_or_nothing(tmp_path):
    target = tmp_path / "t.txt"
    target.write_text("old")
    target.chmod(0o640)

    def broken(tmp):
        tmp.write_text("half")
        raise OSError(28, "No space left on device")

    with pytest.raises(OutputError, match="no space left on the device"):
        write_file(target, broken, option="--out")
    assert target.read_text() == "old" and [p.name for p in tmp_path.iterdir()] == ["t.txt"]
    with pytest.raises(KeyboardInterrupt):
        write_file(target, lambda tmp: (_ for _ in ()).throw(KeyboardInterrupt))
    assert target.read_text() == "old" and [p.name for p in tmp_path.iterdir()] == ["t.txt"]
    write_file(target, lambda tmp: tmp.write_text("new"))
    assert target.read_text() == "new" and (target.stat().st_mode & 0o777) == 0o640
    link = tmp_path / "link.txt"
    link.symlink_to(target.name)
    write_file(link, lambda tmp: tmp.write_text("via link"))
    assert link.is_symlink() and target.read_text() == "via link"
