"""Hardening III (issue 39): writing files safely, degenerate settings, odd log folders and
messages in the user's words. Each case of the issue is reproduced on a small file made in the
test's folder: an output that names an input (data loss), OS errors while writing (no space,
a name too long), a half-written file, degenerate study settings and draws, intervals the
data cannot give, and messages that named internal objects."""

from __future__ import annotations

import errno
import json
import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from one_line import one_line_error, small_board

from bayes_eval.cli import main

LONG = "x" * 300


def _board(models=("a", "b", "c"), questions=8, trials=2, seed=0):
    return small_board(models, questions, trials, seed)


@pytest.fixture
def board(tmp_path) -> Path:
    path = tmp_path / "board.csv"
    _board().to_csv(path, index=False)
    return path


# 1. an output never overwrites an input


@pytest.mark.parametrize(
    "argv",
    [
        ["report", "{b}", "--html", "{b}"],
        ["rank", "{b}", "--plot", "{b}"],
        ["pairs", "{b}", "--plot", "{link}"],
        ["rank", "{b}", "--plot", "{dots}"],
    ],
    ids=["report-html", "rank-plot", "symlink", "dot-dot"],
)
def test_an_output_that_names_an_input_is_refused_and_the_input_kept(argv, board, capsys):
    link = board.parent / "link.csv"
    link.symlink_to(board.name)
    dots = board.parent / "sub" / ".." / board.name
    (board.parent / "sub").mkdir()
    before = board.read_bytes()
    words = [w.format(b=board, link=link, dots=dots) for w in argv]
    assert main(words) == 2
    line = one_line_error(capsys)
    assert "is the input file" in line and "destroy the input" in line
    assert board.read_bytes() == before


def test_a_prior_file_is_an_input_too(board, tmp_path, capsys):
    prior = tmp_path / "prior.csv"
    _board(seed=3).to_csv(prior, index=False)
    before = prior.read_bytes()
    assert main(["rank", str(board), "--prior-file", str(prior), "--plot", str(prior)]) == 2
    assert "--plot" in one_line_error(capsys)
    assert prior.read_bytes() == before


# 2. OS errors while writing: one line naming the option, nothing half-written


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full (Linux)")
@pytest.mark.parametrize(
    ("argv", "option"),
    [(["report", "{b}", "--html"], "--html"), (["rank", "{b}", "--plot"], "--plot")],
    ids=["html", "plot"],
)
def test_no_space_left_is_one_line_naming_the_option(argv, option, board, capsys):
    assert main([*(w.format(b=board) for w in argv), "/dev/full"]) == 2
    line = one_line_error(capsys)
    assert f"{option} '/dev/full'" in line and "no space left" in line
    assert Path("/dev/full").is_char_device()  # written in place, never replaced


@pytest.mark.parametrize(
    "argv",
    [
        ["report", "{b}", "--html", "{long}.html"],
        ["rank", "{b}", "--plot", "{long}.png"],
        ["priors", "{b}", "--netcdf", "{long}.nc"],
        ["validate", "convergence", "{b}", "--out", "{long}"],
        ["datasets", "matharena_aime25_i", "--export", "{long}.csv"],
        ["report", "{b}", "--html", "{long}/page.html"],
    ],
    ids=["html", "plot", "netcdf", "out", "export", "folder-part"],
)
def test_a_file_name_too_long_is_refused_before_the_work(argv, board, capsys):
    words = [w.format(b=board, long=board.parent / LONG) for w in argv]
    assert main(words) == 2
    line = one_line_error(capsys)
    assert "bytes long; the file system allows" in line
    assert " characters)" in line and LONG not in line  # the path is shortened in the message


@pytest.mark.parametrize(
    ("value", "says"),
    [("", "is empty; expected a file name"), (".", "is a folder; expected a file name")],
    ids=["empty", "folder"],
)
def test_an_empty_or_folder_html_name_says_so(value, says, board, capsys):
    assert main(["report", str(board), "--html", value]) == 2
    assert says in one_line_error(capsys)


def test_an_export_onto_a_folder_names_the_folder_not_a_temporary_file(tmp_path, capsys):
    folder = tmp_path / "out.csv"
    folder.mkdir()
    assert main(["datasets", "matharena_aime25_i", "--export", str(folder)]) == 2
    line = one_line_error(capsys)
    assert f"--export '{folder}' is a folder" in line and ".part" not in line
    assert list(tmp_path.iterdir()) == [folder]


def test_a_failed_write_leaves_the_old_file_and_no_temporary(board, tmp_path, monkeypatch, capsys):
    from bayes_eval import files

    page = tmp_path / "page.html"
    page.write_text("the old page")

    def full(self, *args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device", str(self))

    monkeypatch.setattr(Path, "write_text", full)
    assert main(["report", str(board), "--html", str(page)]) == 2
    monkeypatch.undo()
    assert "--html" in one_line_error(capsys)
    assert page.read_text() == "the old page"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["board.csv", "page.html"]
    assert files.write_file(page, lambda t: t.write_text("new")) == page
    assert page.read_text() == "new"


def test_an_export_named_tsv_csv_is_a_csv_that_reads_back(tmp_path, capsys):
    path = tmp_path / "ex.tsv.csv"
    assert main(["datasets", "matharena_aime25_i", "--export", str(path)]) == 0
    capsys.readouterr()
    assert path.read_text().splitlines()[0].startswith("model,task,question")
    assert main(["rank", str(path), "--json"]) == 0
    assert len(json.loads(capsys.readouterr().out)["models"]) == 16


def test_a_config_nested_too_deep_is_one_line(tmp_path, capsys):
    deep = tmp_path / "deep.toml"
    deep.write_text("M = " + "[" * 20_000 + "]" * 20_000 + "\n")
    assert main(["validate", "coverage", "--config", str(deep), "--out", str(tmp_path)]) == 2
    assert "nested too deeply" in one_line_error(capsys)


# 3. degenerate settings: refused with the option and the reason, or a right answer


def test_new_questions_with_too_few_draws_is_refused(board, capsys):
    assert main(["rank", str(board), "--estimand", "new-questions", "--draws", "1"]) == 2
    line = one_line_error(capsys)
    assert "--draws is 1" in line and "at least 400" in line


def test_a_flat_cluster_model_gets_no_interval_in_words(tmp_path, capsys):
    rng = np.random.default_rng(1)
    rows = [
        (m, f"q{q}", 0, (q % 2) if m == "A" else int(rng.random() < 0.6), f"c{q % 3}")
        for m in ("A", "B", "C")
        for q in range(12)
    ]
    path = tmp_path / "clusters.csv"
    pd.DataFrame(rows, columns=["model", "question", "trial", "score", "cluster"]).to_csv(
        path, index=False
    )
    argv = ["rank", str(path), "--estimand", "new-questions", "--cluster", "cluster"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if line.startswith("A "))
    assert "none" in row and "[0.5000, 0.5000]" not in row
    assert "CI none: A: every cluster mean of the model is the same" in out
    assert "sigma inf: with two or three clusters" in out
    assert main([*argv, "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    a = next(r for r in doc["models"] if r["model"] == "A")
    assert a["lo"] is None and a["hi"] is None and a["sigma"] is None


def test_models_that_share_no_question_get_no_probability_in_words(tmp_path, capsys):
    rows = [
        (m, f"q{q}", t, (q + t) % 2)
        for m, qs in (("A", range(0, 10)), ("B", range(10, 20)), ("C", range(0, 20)))
        for q in qs
        for t in range(2)
    ]
    path = tmp_path / "disjoint.csv"
    pd.DataFrame(rows, columns=["model", "question", "trial", "score"]).to_csv(path, index=False)
    argv = ["rank", str(path), "--questions", "all", "--estimand", "new-questions"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert " nan " not in out and "n/a" in out
    assert "P(> next) n/a: the two models share no question" in out


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["pairs", "--ability-sd", "inf"], "--ability-sd is inf; expected finite"),
        (["board", "--difficulty-sd", "inf"], "--difficulty-sd is inf; expected finite"),
        (["clusters", "--question-sd", "inf"], "--question-sd is inf; expected finite"),
    ],
    ids=["pairs", "board", "clusters"],
)
def test_study_settings_must_be_finite(argv, says, tmp_path, capsys):
    assert main(["validate", *argv, "--out", str(tmp_path)]) == 2
    assert says in one_line_error(capsys)


def test_convergence_of_one_model_is_refused(tmp_path, capsys):
    path = tmp_path / "one.csv"
    _board(models=("a",)).to_csv(path, index=False)
    assert main(["validate", "convergence", str(path), "--out", str(tmp_path / "o")]) == 2
    assert "1 model; convergence@n follows a ranking of two or more" in one_line_error(capsys)


def test_a_short_distinguishability_study_prints_words_not_sentinels(tmp_path, capsys):
    argv = ["validate", "distinguishability", "--n-max", "1", "--replicates", "20", "--json"]
    assert main([*argv, "--out", str(tmp_path)]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["n_expected_z_1.645"] == "none up to N = 1"
    assert doc["p_correct"] and set(doc["p_correct"]) == {"1"}
    numbers = [v for v in doc.values() if isinstance(v, (int, float))]
    assert -1 not in numbers


def test_a_long_model_name_keeps_the_figures_small(tmp_path):
    from PIL import Image

    path = tmp_path / "long.csv"
    _board(models=("M" * 3000, "b", "c")).to_csv(path, index=False)
    assert main(["rank", str(path), "--plot", str(tmp_path / "f.png")]) == 0
    assert main(["pairs", str(path), "--plot", str(tmp_path / "p.png")]) == 0
    for name in ("f.png", "p.png"):
        width, height = Image.open(tmp_path / name).size
        assert width < 3000 and height < 2000


# 4. messages in the user's words


def test_a_prior_file_is_named_as_the_option_not_r0(board, tmp_path, capsys):
    bad = _board(seed=2)
    bad.loc[0, "score"] = 2
    prior = tmp_path / "prior.csv"
    bad.to_csv(prior, index=False)
    assert main(["rank", str(board), "--prior-file", str(prior)]) == 2
    line = one_line_error(capsys)
    assert f"--prior-file {prior}" in line and "R0" not in line and " w)" not in line


def test_a_refused_float_is_shown_with_all_its_digits(board, capsys):
    argv = ["rank", str(board), "--prior-file", str(board), "--prior-discount"]
    assert main([*argv, "1.0000000000000002"]) == 2
    assert "--prior-discount is 1.0000000000000002" in one_line_error(capsys)


def test_a_lone_surrogate_in_a_name_names_the_file(tmp_path, capsys):
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "logs"))
    from test_logs_as_they_are import _inspect_copy

    path = _inspect_copy(tmp_path / "s.eval", eval={"model": "openai/gpt\ud800x"})
    assert main(["rank", str(path)]) == 2
    line = one_line_error(capsys)
    assert str(path) in line and "lone surrogate" in line and "'\\ud800'" in line


def test_an_empty_metric_list_is_named(tmp_path, capsys):
    folder = tmp_path / "org__m"
    folder.mkdir()
    rec = {"doc_id": 0, "filter": "none", "metrics": ["acc"], "acc": []}
    (folder / "samples_t_2025-01-01T00-00-00.jsonl").write_text(json.dumps(rec) + "\n")
    assert main(["rank", str(folder)]) == 2
    assert "metric 'acc' holds an empty list" in one_line_error(capsys)


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["rank", "{b}", "--estimand", "new-questions", "--draws", "1e12"], "--draws 10000000"),
        (["validate", "board", "--replicates", "1e12"], "--replicates 1000000000000 with"),
        (["validate", "clusters", "--replicates", "1e12"], "--replicates 1000000000000 with"),
        (["validate", "graded", "--n-questions", "1e12"], "--n-questions 1000000000000"),
    ],
    ids=["new-questions-draws", "board", "clusters", "graded"],
)
def test_sizes_are_checked_before_allocating(argv, says, board, tmp_path, capsys):
    words = [w.format(b=board) for w in argv]
    if words[0] == "validate":
        words += ["--out", str(tmp_path / "o")]
    assert main(words) == 2
    line = one_line_error(capsys)
    assert says in line and "of memory, above the limit" in line
