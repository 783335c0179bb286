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
        (["--estimand", "new-questions", "--top", "1"], "give one"),
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
