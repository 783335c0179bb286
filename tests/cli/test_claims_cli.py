"""The board's claims on every surface (issue 41): ``rank --json`` and ``pairs --json`` carry
the same claims at the posterior expected FDR, P(best), P(top k), expected ranks and
simultaneous rank intervals; the printed table shows them; bad values are one-line errors."""

from __future__ import annotations

import json

import numpy as np
import pytest
from one_line import one_line_error

from bayes_eval.cli import main

BOARD = "dataset:matharena_aime25_i"


@pytest.fixture(scope="module")
def docs():
    """``rank --json`` and ``pairs --json`` of the MathArena board, --top 3."""
    out = {}
    for command in ("rank", "pairs"):
        import contextlib
        import io

        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            assert main([command, BOARD, "--json", "--top", "3"]) == 0
        out[command] = json.loads(buf.getvalue())
    return out


def test_rank_json_carries_the_claims(docs):
    doc = docs["rank"]
    assert doc["fdr"] == 0.05 and doc["claims_estimand"] == "these questions"
    claims = doc["claims"]
    assert claims and all(set(c) == {"better", "worse", "prob"} for c in claims)
    prob = np.array([c["prob"] for c in claims])
    assert np.all(prob >= 0.5) and np.all(np.diff(prob) <= 0)
    assert doc["claims_expected_fdr"] == pytest.approx(np.mean(1 - prob))
    assert doc["claims_expected_fdr"] <= 0.05
    models = doc["models"]
    assert sum(m["p_best"] for m in models) == pytest.approx(1.0)
    assert sum(m["p_top"] for m in models) == pytest.approx(3.0)
    n = len(models)
    assert sum(m["expected_rank"] for m in models) == pytest.approx(n * (n + 1) / 2)
    assert all(1 <= m["rank_joint"][0] <= m["rank_joint"][1] <= n for m in models)
    # every pair the rank ranges separate (P >= 0.95) is among the claims
    names = doc["prob_better"]["models"]
    rows = np.array(doc["prob_better"]["rows"], dtype=float)
    claimed = {(c["better"], c["worse"]) for c in claims}
    for i, a in enumerate(names):
        for j, b in enumerate(names):
            if i != j and rows[i, j] >= 0.95:
                assert (a, b) in claimed
    # the tie groups partition the models
    assert sorted(m for g in doc["tie_groups"] for m in g) == sorted(m["model"] for m in models)


def test_pairs_states_the_same_claims_as_rank(docs):
    """One question, one number: the same claims, P(best), P(top 3) and joint rank
    intervals from ``pairs`` as from ``rank``."""
    rank, pairs = docs["rank"], docs["pairs"]
    assert pairs["claims"] == rank["claims"]
    assert pairs["tie_groups"] == rank["tie_groups"]
    for m in rank["models"]:
        assert pairs["p_best"][m["model"]] == m["p_best"]
        assert pairs["p_top"][m["model"]] == m["p_top"]
        assert pairs["rank_joint"][m["model"]] == m["rank_joint"]


def test_a_smaller_fdr_claims_a_subset(capsys):
    assert main(["rank", BOARD, "--json", "--fdr", "0.01"]) == 0
    strict = json.loads(capsys.readouterr().out)
    assert main(["rank", BOARD, "--json"]) == 0
    loose = json.loads(capsys.readouterr().out)
    pair = lambda c: (c["better"], c["worse"])  # noqa: E731
    assert {pair(c) for c in strict["claims"]} < {pair(c) for c in loose["claims"]}
    assert strict["claims_expected_fdr"] <= 0.01


def test_the_table_shows_the_claims(capsys):
    assert main(["rank", BOARD, "--top", "2"]) == 0
    out = capsys.readouterr().out
    assert "P(best)" in out and "P(top 2)" in out and "joint 95% ranks" in out
    assert "posterior expected FDR" in out and "tie groups" in out


@pytest.mark.parametrize(
    ("argv", "phrase"),
    [
        (["rank", BOARD, "--fdr", "1.5"], "--fdr"),
        (["rank", BOARD, "--fdr", "0"], "--fdr"),
        (["rank", BOARD, "--top", "17"], "top is 17"),
        (["pairs", BOARD, "--top", "0"], "--top"),
    ],
)
def test_bad_claims_options_are_one_line(capsys, argv, phrase):
    assert main(argv) == 2
    assert phrase in one_line_error(capsys)


def test_rank_and_pairs_list_the_same_tie_groups(tmp_path, capsys):
    """A board whose claims leave a group of two or more: the same groups, in the same
    order, member by member (each listed by expected rank) from ``rank`` and ``pairs``."""
    import pandas as pd

    rng = np.random.default_rng(0)
    rows = [
        (f"m{m}", f"q{q}", 0, round(float(rng.beta(2 + 0.3 * m, 3)), 3))
        for m in range(4)
        for q in range(25)
    ]
    path = tmp_path / "graded.csv"
    pd.DataFrame(rows, columns=["model", "question", "trial", "score"]).to_csv(path, index=False)
    docs = {}
    for command in ("rank", "pairs"):
        assert main([command, str(path), "--fractional", "--json"]) == 0
        docs[command] = json.loads(capsys.readouterr().out)
    assert docs["rank"]["tie_groups"] == docs["pairs"]["tie_groups"]
    assert max(len(g) for g in docs["rank"]["tie_groups"]) >= 2
