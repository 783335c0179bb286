"""``bayes-eval plan A B --estimand new-questions``: more questions, the number `pairs` prints,
its JSON, and the options it refuses."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from bayes_eval.cli import main


@pytest.fixture
def board(tmp_path):
    """Three models, 40 questions, one trial: c leads b on new questions without a claim."""
    rng = np.random.default_rng(2)
    p = rng.random(40)
    rows = [
        {"model": m, "question": q, "trial": 0, "score": int(rng.random() < min(1, p[q] + g))}
        for m, g in (("a", 0.0), ("b", 0.1), ("c", 0.2))
        for q in range(40)
    ]
    path = tmp_path / "runs.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    return str(path)


def _pairs_number(board, capsys, leader, other):
    assert main(["pairs", board, "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    i, j = doc["models"].index(leader), doc["models"].index(other)
    return doc["paired"][i][j], doc["prior_detail"]["paired"]


def test_plan_of_more_questions_states_the_pairs_number(board, capsys):
    argv = ["plan", board, "b", "c", "--estimand", "new-questions", "--simulations", "500"]
    assert main([*argv, "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["estimand"] == "new questions" and doc["m_now"] == 40
    other = "b" if doc["leader"] == "c" else "c"
    prob, prior = _pairs_number(board, capsys, doc["leader"], other)
    assert doc["prob_leader_better"] == pytest.approx(prob, abs=1e-12)
    assert doc["prior"] == prior and doc["decision"] == "exact (Beta)"
    if doc["m_required"] is not None:
        assert doc["m_required"] == 40 + doc["extra_questions"]
        assert doc["assurance_at_required"] >= 0.8
    else:
        assert doc["reason"]
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert "estimand: new questions" in text and f"P({doc['leader']} better)" in text


def test_fdr_plans_the_claim_at_one_minus_q(board, capsys):
    argv = ["plan", board, "b", "c", "--estimand", "new-questions", "--simulations", "300"]
    assert main([*argv, "--fdr", "0.1", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["confidence"] == pytest.approx(0.9) and doc["fdr"] == 0.1


@pytest.mark.parametrize(
    ("extra", "match"),
    [
        (["--max-questions", "50"], "--max-questions does nothing without --estimand"),
        (["--estimand", "new-questions", "--top", "3"], "--top is 3; expected 1 to 2"),
        (["--estimand", "new-questions", "--top", "1", "--max-trials", "9"], "--max-trials"),
        (["--estimand", "new-questions", "--top", "1", "--confidence", "0.9"], "--fdr"),
        (["--estimand", "new-questions", "--top", "1", "--assurance", "1.5"], "--assurance is"),
        (
            ["--estimand", "new-questions", "--max-questions", "40", "--assurance", "0.6"],
            "--max-questions is 40",
        ),
        (["--estimand", "new-questions", "--max-trials", "50"], "--max-trials does nothing"),
        (["--estimand", "new-questions", "--fdr", "0.49", "--confidence", "0.9"], "not both"),
    ],
)
def test_options_that_plan_nothing_are_refused(board, capsys, extra, match):
    argv = ["plan", board] + ([] if "--top" in extra else ["b", "c"])
    assert main([*argv, *extra]) == 2
    assert match in capsys.readouterr().err


def test_earlier_runs_of_these_questions_are_refused(board, capsys):
    """--prior-file holds earlier runs of these questions: nothing about new ones."""
    argv = ["plan", board, "b", "c", "--estimand", "new-questions", "--prior-file", board]
    assert main(argv) == 2
    assert "drop --prior-file" in capsys.readouterr().err


def test_top_set_plan_of_more_questions(board, capsys):
    """--top K --estimand new-questions: the claims of `pairs` on new questions, their set."""
    argv = ["plan", board, "--top", "1", "--estimand", "new-questions", "--simulations", "500"]
    assert main([*argv, "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["estimand"] == "new questions" and doc["top"] == 1 and doc["fdr"] == 0.05
    assert doc["members"] == ["c"] and doc["m_now"] == 40 and doc["simulations"] == 500
    _, prior = _pairs_number(board, capsys, "c", "b")
    assert doc["prior"] == prior
    # c leads without a claim over b: a plan of some hundreds of questions (498 at seed 0)
    assert not doc["claimed_now"] and 100 < doc["m_required"] < 3000
    assert doc["m_required"] == 40 + doc["extra_questions"]
    assert doc["assurance_at_required"] >= 0.8 and 0.5 < doc["prob_top_set"] < 1.0
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert "estimand: new questions" in text and "the top 1 by mean score: c" in text
    assert f"needs {doc['m_required']} questions ({doc['extra_questions']} more)" in text
    assert main([*argv, "--prior-file", board]) == 2
    assert "drop --prior-file" in capsys.readouterr().err


def test_top_set_plan_needs_every_answer(tmp_path, capsys):
    """A model without an answer to a question: refused in one line, --questions common keeps
    the questions every model answered."""
    rows = [
        {"model": m, "question": q, "trial": 0, "score": int((q + i) % 3 == 0)}
        for i, m in enumerate("abc")
        for q in range(30)
        if not (m == "a" and q == 0)
    ]
    path = tmp_path / "gaps.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    argv = ["plan", str(path), "--top", "1", "--estimand", "new-questions"]
    assert main([*argv, "--questions", "all"]) == 2
    err = capsys.readouterr().err
    assert "every model on every question" in err and "--questions common" in err
    assert main([*argv, "--questions", "common", "--max-questions", "20"]) == 2
    assert "--max-questions is 20" in capsys.readouterr().err
    assert main([*argv, "--questions", "common", "--simulations", "300", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["m_now"] == 29


def test_top_set_plan_of_graded_scores_and_its_outcomes(tmp_path, capsys):
    """Graded scores rounded to levels (--score-levels), a set claimed already, and a board of
    identical models that no number of questions separates: each said in words."""
    rng = np.random.default_rng(4)
    p = rng.random(30)
    rows = [
        {"model": m, "question": q, "trial": 0, "score": round(min(1.0, p[q] + g), 1)}
        for m, g in (("a", 0.0), ("b", 0.3), ("c", 0.6))
        for q in range(30)
    ]
    path = tmp_path / "graded.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    argv = ["plan", str(path), "--top", "1", "--estimand", "new-questions", "--score-levels"]
    assert main([*argv, "11", "--simulations", "300"]) == 0
    assert "already reached: the claims at FDR 0.05 on new questions" in capsys.readouterr().out
    same = pd.DataFrame(
        [
            {"model": m, "question": q, "trial": 0, "score": int(q % 3 == 0)}
            for m in "ab"
            for q in range(20)
        ]
    )
    same.to_csv(tmp_path / "same.csv", index=False)
    argv = ["plan", str(tmp_path / "same.csv"), "--top", "1", "--estimand", "new-questions"]
    assert main([*argv, "--max-questions", "100", "--simulations", "200"]) == 0
    assert "no plan reaches assurance 0.8: even 100 questions" in capsys.readouterr().out
