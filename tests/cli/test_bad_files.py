"""Malformed input FILES, one per case in ``tests/data/bad/``, through the command that reads
them: each is refused with one line on stderr (exit status 2) naming what is wrong, with no
traceback and no numpy repr; the cases that are accepted say what they did (not silent)."""

from __future__ import annotations

import json
import re
import zipfile
from pathlib import Path

import pytest

from bayes_eval.cli import main

BAD = Path(__file__).parents[1] / "data" / "bad"
MMLU = ["adaptive", "simulate", "--dataset", "mmlu", "--subject", "anatomy"]
NUMPY_REPR = re.compile(r"np\.(str_|float64|int64)\(")


def _coverage(name: str) -> list[str]:
    return ["validate", "coverage", "--config", f"{{bad}}/{name}", "--out", "{tmp}/coverage"]


# (id, argv with {bad} for tests/data/bad and {tmp} for the test's folder, a phrase)
CASES = [
    # long tables (CSV)
    ("score-true-false", ["rank", "{bad}/score_bool.csv"], "line 2: column 'score' has the"),
    ("model-empty", ["rank", "{bad}/model_empty.csv"], "line 3: the model cell is empty"),
    ("extra-field", ["rank", "{bad}/extra_field.csv"], "line 3"),
    ("header-only", ["rank", "{bad}/header_only.csv"], "the table has no rows"),
    # Inspect logs (zipped in the fixture from inspect_header_list/)
    ("inspect-header-list", ["rank", "{tmp}/header_list.eval"], "header.json holds a list"),
    # coverage TOML: the key is named
    ("coverage-M-scalar", _coverage("coverage_M.toml"), "M must be a list"),
    ("coverage-replicates-word", _coverage("coverage_replicates.toml"), "replicates must be an"),
    ("coverage-confidence-word", _coverage("coverage_confidence.toml"), "confidence must be"),
    ("coverage-unknown-key", _coverage("coverage_unknown_key.toml"), "unknown keys ['foo']"),
    ("coverage-syntax", _coverage("coverage_syntax.toml"), "cannot read the coverage config"),
    # adaptive
    ("meta-no-tasks", [*MMLU, "--meta", "{bad}/meta_no_tasks.json"], "a 'tasks' list"),
    (
        "matrix-word",
        ["adaptive", "simulate", "--dataset", "matrix", "--matrix", "{bad}/matrix_word.csv"],
        "could not read a numeric matrix",
    ),
    (
        "arms-no-price",
        ["adaptive", "simulate", "--dataset", "gsm8k", "--arms", "{bad}/arms_no_price.csv"],
        "expected columns",
    ),
    # judges: counts are non-negative integers, never truncated
    (
        "judges-truth-missing",
        ["judges", "{bad}/judge_counts_ok.csv", "--truth", "{tmp}/no.csv"],
        "no.csv: no such file",
    ),
    ("judges-count-2.5", ["judges", "{bad}/judge_count_fraction.csv"], "row 3 has count '2.5'"),
    ("judges-count-negative", ["judges", "{bad}/judge_count_negative.csv"], "count '-1'"),
    ("judges-count-empty", ["judges", "{bad}/judge_count_empty.csv"], "row 2 has an empty count"),
    ("judges-score-0", ["judges", "{bad}/judge_count_score0.csv"], "scores must lie in 1..2"),
    ("judges-score-word", ["judges", "{bad}/judge_score_word.csv"], "line 2: the score 'good'"),
    (
        "judges-truth-no-score",
        ["judges", "{bad}/judge_counts_ok.csv", "--truth", "{bad}/truth_no_score.csv"],
        "expected columns candidate, score",
    ),
    (
        "judges-truth-word",
        ["judges", "{bad}/judge_counts_ok.csv", "--truth", "{bad}/truth_word.csv"],
        "line 2: the score 'high' is not a number",
    ),
]


@pytest.fixture
def tmp(tmp_path):
    """The test's folder, with the Inspect log zipped from its text sources."""
    src = BAD / "inspect_header_list"
    with zipfile.ZipFile(tmp_path / "header_list.eval", "w") as zf:
        for f in sorted(src.rglob("*.json")):
            zf.write(f, f.relative_to(src).as_posix())
    return tmp_path


def _stderr_lines(capsys) -> list[str]:
    """stderr without progress bars; no traceback, no numpy repr."""
    err = capsys.readouterr().err
    assert "Traceback" not in err, err
    assert not NUMPY_REPR.search(err), err
    return [x for x in err.strip().splitlines() if x.strip() and "\r" not in x and "%|" not in x]


@pytest.mark.parametrize(("argv", "phrase"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_bad_file_is_one_line_and_status_2(argv, phrase, tmp, capsys):
    argv = [a.format(bad=BAD, tmp=tmp) for a in argv]
    if argv[:2] == ["adaptive", "simulate"]:
        argv += ["--out", f"{tmp}/adaptive"]
    assert main(argv) == 2
    lines = _stderr_lines(capsys)
    assert len(lines) == 1, lines
    assert lines[0].startswith("bayes-eval: error: "), lines
    assert phrase.format(tmp=tmp) in lines[0]


def _rank_json(file: str, capsys) -> dict:
    assert main(["rank", str(BAD / file), "--json"]) == 0
    out = capsys.readouterr()
    assert not NUMPY_REPR.search(out.err + out.out)
    return json.loads(out.out)


# Files that are read, and say what they did (not silent).


def test_model_names_are_stripped_with_a_warning(capsys):
    with pytest.warns(UserWarning, match=r"1 model label\(s\) had leading or trailing spaces"):
        result = _rank_json("model_trailing_space.csv", capsys)
    assert [m["model"] for m in result["models"]] == ["a"]
    assert result["log"]["models"] == 1


def test_a_model_named_NA_stays_a_label(capsys):
    result = _rank_json("model_na.csv", capsys)
    assert sorted(m["model"] for m in result["models"]) == ["NA", "b"]


def test_question_ids_2_1_and_2_10_stay_two_questions(capsys):
    result = _rank_json("question_ids_decimal.csv", capsys)
    assert result["questions"] == 2


def test_a_fractional_judge_count_is_refused_by_the_library():
    from bayes_eval.judges.data import from_count_table

    with pytest.raises(ValueError, match=r"row 3 has count '2\.5'; expected a non-negative"):
        from_count_table(BAD / "judge_count_fraction.csv")


@pytest.mark.slow
def test_the_program_prints_a_warning_as_one_line(tmp_path):
    # the console script (bayes_eval.cli:run) shows warnings as `bayes-eval: warning: ...`,
    # not Python's two lines with a source path; run as `python -m bayes_eval.cli`, which
    # this also checks works
    import subprocess
    import sys

    src = BAD / "model_trailing_space.csv"
    proc = subprocess.run(
        [sys.executable, "-m", "bayes_eval.cli", "rank", str(src), "--prior-kind", "uniform"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert lines == [lines[0]] and lines[0].startswith("bayes-eval: warning: ")
    assert "leading or trailing spaces" in lines[0] and "UserWarning" not in proc.stderr
    assert "prior: " in proc.stdout  # the table was printed
