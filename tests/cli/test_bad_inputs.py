"""Every expected error of the command line is one line on stderr and exit status 2 (130 for
Ctrl-C), with no traceback; genuine bugs keep theirs. Each case fails before any sampling."""

from __future__ import annotations

import json

import numpy as np
import pytest

from bayes_eval.cli import main

AIME = "dataset:phi4_aime25"
MTBENCH = "dataset:mtbench_judges"
MMLU = ["adaptive", "simulate", "--dataset", "mmlu", "--subject", "anatomy"]
MATRIX = ["adaptive", "simulate", "--dataset", "matrix", "--matrix", "{tmp}/m.csv", "--costs"]

# (id, argv with {tmp} for the test's folder, a phrase of the message)
CASES = [
    # output paths, checked before the work
    ("plot-no-folder", ["rank", AIME, "--plot", "{tmp}/no/x.png"], "'{tmp}/no' does not exist"),
    ("plot-is-folder", ["rank", AIME, "--plot", "{tmp}"], "is a folder; expected a file"),
    ("out-no-folder", ["priors", AIME, "--netcdf", "{tmp}/no/x.nc"], "does not exist"),
    ("out-folder-is-file", [*MMLU, "--out", "{tmp}/a_file/sub"], "is a file, not a folder"),
    ("crosscheck-out", ["crosscheck", AIME, "--netcdf", "{tmp}/no/x.nc"], "does not exist"),
    ("judges-plot", ["judges", MTBENCH, "--plot", "{tmp}/no/x.png"], "does not exist"),
    # missing or malformed input files
    ("results-missing", ["rank", "{tmp}/missing.csv"], "missing.csv: no such file"),
    ("truth-missing", ["judges", MTBENCH, "--truth", "{tmp}/missing.csv"], "no such file"),
    (
        "arms-missing",
        ["adaptive", "simulate", "--dataset", "gsm8k", "--arms", "{tmp}/x.csv"],
        "x.csv: no such file",
    ),
    ("meta-missing", [*MMLU, "--meta", "{tmp}/missing.json"], "cannot read the MMLU metadata"),
    ("meta-no-tasks", [*MMLU, "--meta", "{tmp}/no_tasks.json"], "'tasks'"),
    ("meta-no-models", [*MMLU, "--meta", "{tmp}/no_models.json"], "no key 'models_in_row"),
    ("costs-missing", [*MATRIX, "{tmp}/c.csv"], "c.csv: no such file"),
    ("costs-malformed", [*MATRIX, "{tmp}/bad.csv"], "could not read the per-arm costs"),
    # counts: integers of at least 1 (tune: 0), never truncated
    ("chains-0", ["judges", MTBENCH, "--chains", "0"], "--chains: '0' is not a positive integer"),
    ("draws-1.5", ["judges", MTBENCH, "--draws", "1.5"], "'1.5' is not a positive integer"),
    ("tune-negative", ["priors", AIME, "--tune", "-1"], "is not a non-negative integer"),
    ("mc-draws-0", ["crosscheck", AIME, "--mc-draws", "0"], "--mc-draws: '0' is not a positive"),
    ("depth-1.5", ["priors", AIME, "--depth-grid", "0,1.5"], "--depth-grid: 1.5 is not an integer"),
    ("depth-word", ["priors", AIME, "--depth-grid", "1,x"], "is not a list of numbers"),
    ("replicates-0", [*MMLU, "--replicates", "0"], "--replicates: '0' is not a positive integer"),
    ("seeds-0", [*MMLU, "--seeds", "0"], "'0' is not a positive integer"),
    ("examples-0", [*MMLU, "--examples", "0"], "--examples: '0' is not a positive integer"),
    ("batch-2.5", ["adaptive", "roots", "--batch", "2.5"], "'2.5' is not a positive integer"),
    ("horizon-0", ["adaptive", "roots", "--horizon", "0", "--tau2", "1"], "positive integer"),
    ("trials-1.5", ["demo", "--trials", "1.5"], "--trials: '1.5' is not a positive integer"),
    ("questions-0", ["demo", "--n-questions", "0"], "'0' is not a positive integer"),
    ("plan-draws-0", ["plan", AIME, "a", "b", "--draws", "0"], "--draws: '0' is not a positive"),
    ("levels-0", ["judges", MTBENCH, "--levels", "0"], "--levels: '0' is not a positive"),
]


@pytest.fixture
def tmp(tmp_path):
    (tmp_path / "a_file").write_text("not a folder")
    (tmp_path / "no_tasks.json").write_text(json.dumps({"subjects": []}))
    (tmp_path / "no_models.json").write_text(json.dumps({"tasks": [["anatomy", 5, 0, 0.5, 0.1]]}))
    np.savetxt(tmp_path / "m.csv", np.eye(3), delimiter=",")
    (tmp_path / "bad.csv").write_text("one,two,three\n")
    return tmp_path


def _one_line_error(capsys, prefix="bayes-eval: error: "):
    err = capsys.readouterr().err
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith(prefix), err
    return lines[0]


@pytest.mark.parametrize(("argv", "phrase"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_bad_input_is_one_line_and_status_2(argv, phrase, tmp, capsys):
    argv = [a.format(tmp=tmp) for a in argv]
    assert main(argv) == 2
    assert phrase.format(tmp=tmp) in _one_line_error(capsys)


def _raise(exc):
    def run(*args, **kwargs):
        raise exc

    return run


def test_interrupt_is_one_line_and_status_130(monkeypatch, capsys):
    monkeypatch.setattr("bayes_eval.datasets.list_datasets", _raise(KeyboardInterrupt()))
    assert main(["datasets"]) == 130
    assert _one_line_error(capsys, "bayes-eval: interrupted") == "bayes-eval: interrupted"


def test_an_interrupted_study_says_what_was_saved(monkeypatch, capsys):
    from bayes_eval.validation.cell_runner import StudyInterrupted

    line = "interrupted: 2 of 4 cells saved; run the same command again to resume"
    monkeypatch.setattr("bayes_eval.datasets.list_datasets", _raise(StudyInterrupted(line)))
    assert main(["datasets"]) == 130
    assert _one_line_error(capsys, "bayes-eval: interrupted") == f"bayes-eval: {line}"


@pytest.mark.parametrize(
    ("exc", "phrase"),
    [
        (PermissionError(13, "Permission denied", "runs.csv"), "runs.csv: permission denied."),
        (IsADirectoryError(21, "Is a directory", "runs"), "runs: is a directory."),
        (NotADirectoryError(20, "Not a directory", "a/b"), "a/b: not a directory."),
        (FileNotFoundError(2, "No such file or directory", "x.eval"), "x.eval: no such file"),
    ],
    ids=lambda x: type(x).__name__ if isinstance(x, OSError) else None,
)
def test_path_errors_are_one_line_naming_the_path(exc, phrase, monkeypatch, capsys):
    monkeypatch.setattr("bayes_eval.datasets.list_datasets", _raise(exc))
    assert main(["datasets"]) == 2
    assert phrase in _one_line_error(capsys)


def test_a_bug_keeps_its_traceback(monkeypatch):
    monkeypatch.setattr("bayes_eval.datasets.list_datasets", _raise(ZeroDivisionError("bug")))
    with pytest.raises(ZeroDivisionError):
        main(["datasets"])


def test_missing_parent_folders_of_an_output_folder_are_created(tmp_path):
    from bayes_eval.cli._types import writable_folder

    assert writable_folder(f"{tmp_path}/new/deeper") == f"{tmp_path}/new/deeper"


# The library raises ValueError with the same messages when called directly.


def test_library_counts_are_checked():
    from bayes_eval.adaptive.synthetic import logistic_matrix, mmlu_like

    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match=r"n_examples is 1\.5; expected a positive integer"):
        logistic_matrix([0.5], 1.5, rng=rng)
    with pytest.raises(ValueError, match="n_examples is 0"):
        mmlu_like(n_examples=0)


def test_library_replicates_and_out_are_checked(tmp_path):
    from bayes_eval.adaptive.runs import load_bandit, simulate_policies

    data = load_bandit("gsm8k", examples=20)
    with pytest.raises(ValueError, match="replicates is 0; expected a positive integer"):
        simulate_policies(data, out=tmp_path / "o", replicates=0)
    (tmp_path / "f").write_text("")
    with pytest.raises(ValueError, match="a file, not a folder"):
        simulate_policies(data, out=tmp_path / "f", replicates=1)


@pytest.mark.pymc  # imports PyMC (no model is compiled: the checks come first)
def test_library_fit_settings_and_crosscheck_are_checked():
    from bayes_eval.models import crosscheck
    from bayes_eval.nuts import NutsSettings

    with pytest.raises(ValueError, match="chains is 0; expected a positive integer"):
        NutsSettings(chains=0)
    with pytest.raises(ValueError, match=r"draws is 1\.5"):
        NutsSettings(draws=1.5)
    with pytest.raises(ValueError, match="tune is -1; expected a non-negative integer"):
        NutsSettings(tune=-1)
    with pytest.raises(ValueError, match="mc_draws is 0"):
        crosscheck(np.ones((1, 2, 3)), mc_draws=0)
