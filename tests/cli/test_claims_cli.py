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


def test_pairs_prints_the_claims_rank_prints(capsys):
    """The printed claims of ``pairs`` are ``rank``'s, from one formatter: the same count and
    expected FDR, the least certain claims with the same probabilities (a P of 0.500
    included), and the same tie groups."""
    assert main(["rank", BOARD]) == 0
    rank = capsys.readouterr().out.splitlines()
    assert main(["pairs", BOARD]) == 0
    pairs = capsys.readouterr().out.splitlines()

    def stated(lines: list[str]) -> tuple[str, str]:
        (i,) = [i for i, line in enumerate(lines) if line.startswith("claims (")]
        return lines[i], lines[i + 1]

    (rank_claims, rank_groups), (pairs_claims, pairs_groups) = stated(rank), stated(pairs)
    assert rank_claims.startswith("claims (these questions): 120 of 120 pairs ordered at ")
    assert pairs_claims == rank_claims.replace("(these questions)", "(these questions, as `rank`)")
    assert "expected FDR 0.047" in pairs_claims and "the 12 least certain: " in pairs_claims
    # two models tied to three decimals, claimed at P = 0.500 (either way: the last digits
    # decide), and the tie groups list the one claimed better first
    a, b = "o3-mini (low)", "DeepSeek-R1-Distill-Qwen-32B"
    first, second = (a, b) if f"{a} > {b} (0.500)" in pairs_claims else (b, a)
    assert f"{first} > {second} (0.500)" in pairs_claims
    assert rank_groups.index("{" + first + "}") < rank_groups.index("{" + second + "}")
    assert rank_groups.startswith("tie groups, best first")
    assert pairs_groups == rank_groups + " (--json: the claims, P(best), expected ranks)"


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


@pytest.fixture(scope="module")
def close_csv(tmp_path_factory):
    """Five binary models x 40 questions x 2 trials whose top model is not yet claimed."""
    import pandas as pd

    rng = np.random.default_rng(5)
    p = np.array([0.75, 0.66, 0.6, 0.55, 0.5])
    rows = [
        (f"m{m}", f"q{q}", t, int(rng.random() < p[m]))
        for m in range(5)
        for q in range(40)
        for t in range(2)
    ]
    path = tmp_path_factory.mktemp("plan") / "close.csv"
    pd.DataFrame(rows, columns=["model", "question", "trial", "score"]).to_csv(path, index=False)
    return str(path)


def test_plan_top_plans_the_claims_rank_makes(close_csv, capsys):
    """``plan --top K --json``: today's top set is ``rank``'s, and whether the claims name it
    now agrees with ``rank --fdr``'s claims; the plan asks for more trials when they don't."""
    assert main(["rank", close_csv, "--json"]) == 0
    rank = json.loads(capsys.readouterr().out)
    order = [m["model"] for m in sorted(rank["models"], key=lambda m: -m["mu"])]
    claimed = {(c["better"], c["worse"]) for c in rank["claims"]}
    for k in (1, 2):
        assert main(["plan", close_csv, "--top", str(k), "--json", "--simulations", "500"]) == 0
        doc = json.loads(capsys.readouterr().out)
        assert doc["members"] == order[:k] and doc["top"] == k and doc["fdr"] == 0.05
        assert doc["prior"] == rank["prior"] and doc["estimand"] == "these questions"
        named = all((a, b) in claimed for a in order[:k] for b in order[k:])
        assert doc["claimed_now"] == named
        if not named:
            assert doc["n_required"] > doc["n_now"] == 2 and doc["assurance_at_required"] >= 0.8
    assert main(["plan", close_csv, "--top", "1", "--fdr", "0.2", "--simulations", "500"]) == 0
    out = capsys.readouterr().out
    assert "already reached: the claims at FDR 0.2 name the top-1 set (m0); the least" in out


@pytest.mark.slow
def test_plan_top_under_the_refit_law(close_csv, capsys):
    """``plan --top 1 --preposterior refit``: the JSON names the law, its text says it, the
    progress goes to stderr (one line per N tried), and the plan reaches its target."""
    argv = ["plan", close_csv, "--top", "1", "--preposterior", "refit", "--simulations", "24"]
    assert main([*argv, "--json"]) == 0
    captured = capsys.readouterr()
    doc = json.loads(captured.out)
    assert doc["preposterior"] == "refit" and doc["simulations"] == 24
    assert doc["n_required"] > doc["n_now"] and doc["assurance_at_required"] >= 0.8
    assert captured.err == ""  # --json: no progress lines
    assert main(argv) == 0
    captured = capsys.readouterr()
    assert "boards refitted after simulated trials, 24 simulations" in captured.out
    assert f"needs N = {doc['n_required']} trials per question" in captured.out
    assert "refitted boards" in captured.err


@pytest.mark.slow
def test_plan_pair_under_the_refit_law(close_csv, capsys):
    """``plan A B --preposterior refit``: the JSON names the law (its simulations unweighted),
    the text says the law, the progress goes to stderr (one line per N tried)."""
    argv = ["plan", close_csv, "m0", "m3", "--simulations", "16"]
    argv += ["--preposterior", "refit"]
    assert main([*argv, "--json"]) == 0
    captured = capsys.readouterr()
    doc = json.loads(captured.out)
    assert doc["preposterior"] == "refit" and doc["simulations"] == 16
    assert doc["effective_draws"] == 16.0 and captured.err == ""
    assert doc["n_required"] > doc["n_now"] and doc["assurance_at_required"] >= 0.8
    assert main(argv) == 0
    captured = capsys.readouterr()
    assert "boards refitted after simulated trials, 16 simulations) needs N =" in captured.out
    assert "refitted boards" in captured.err


def test_plan_pair_under_the_refit_law_defaults_to_200_simulations(close_csv, capsys):
    """A pair separated already at confidence 0.9: the answer needs no refitted board, and
    the refit law's default of 200 simulations is the pair's as the top-K set's."""
    argv = ["plan", close_csv, "m0", "m3", "--fdr", "0.1", "--preposterior", "refit", "--json"]
    assert main(argv) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["simulations"] == 200 and doc["preposterior"] == "refit"
    assert doc["n_required"] == doc["n_now"] == 2


def test_plan_pair_at_an_fdr_is_the_pair_at_confidence_one_minus_q(close_csv, capsys):
    base = ["plan", close_csv, "m0", "m1", "--json", "--simulations", "500"]
    assert main([*base, "--fdr", "0.1"]) == 0
    at_fdr = json.loads(capsys.readouterr().out)
    assert main([*base, "--confidence", "0.9"]) == 0
    at_conf = json.loads(capsys.readouterr().out)
    assert at_fdr["confidence"] == pytest.approx(0.9) and at_fdr["fdr"] == 0.1
    assert at_fdr["n_required"] == at_conf["n_required"]
    assert at_fdr["z_target"] == pytest.approx(at_conf["z_target"])


@pytest.mark.parametrize(
    ("extra", "phrase"),
    [
        ([], "plan needs two models"),
        (["m0"], "plan needs two models"),
        (["m0", "m1", "--top", "2"], "either two models or --top K"),
        (["--top", "2", "--confidence", "0.9"], "--confidence does nothing with --top"),
        (["m0", "m1", "--fdr", "0.1", "--confidence", "0.9"], "give --fdr or --confidence"),
        (["--top", "5"], "top is 5"),
        (["--top", "2", "--fdr", "1"], "--fdr"),
        (
            ["m0", "m1", "--estimand", "new-questions", "--preposterior", "refit"],
            "--preposterior does nothing with --estimand new-questions (it is the law of more",
        ),
        (
            ["--top", "1", "--estimand", "new-questions", "--preposterior", "refit"],
            "--preposterior does nothing with --estimand new-questions",
        ),
        (
            ["m0", "m1", "--preposterior", "refit", "--prior-kind", "uniform"],
            "the refit law refits the board model",
        ),
        (["--top", "1", "--preposterior", "exact"], "invalid choice"),
        (
            ["--top", "1", "--preposterior", "refit", "--prior-kind", "uniform"],
            "the refit law refits the board model",
        ),
    ],
)
def test_bad_plan_claims_options_are_one_line(close_csv, capsys, extra, phrase):
    assert main(["plan", close_csv, *extra]) == 2
    assert phrase in one_line_error(capsys)


def test_new_questions_claims_are_read_from_the_pairs_paired_matrix(capsys):
    """``rank --estimand new-questions --fdr Q``: the claims are the FDR rule on the paired
    matrix ``pairs`` prints (one number per pair on every surface), named by their estimand,
    without the whole-board probabilities (no joint law of the new-questions scores)."""
    assert main(["rank", BOARD, "--estimand", "new-questions", "--fdr", "0.1", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["fdr"] == 0.1 and doc["claims_estimand"] == "new questions"
    assert doc["claims_draws"] is None and doc["rank_joint_rule"] is None
    assert "p_best" not in doc["models"][0]
    assert main(["pairs", BOARD, "--json"]) == 0
    pairs = json.loads(capsys.readouterr().out)
    names = pairs["models"]
    paired = np.array(pairs["paired"], dtype=float)
    prob = {(c["better"], c["worse"]): c["prob"] for c in doc["claims"]}
    for (a, b), p in prob.items():
        assert p == pytest.approx(paired[names.index(a), names.index(b)], abs=1e-12)
    # the FDR rule: the most probable orderings whose mean 1 - P stays <= q, and no more
    ordered = np.sort(np.nan_to_num(np.where(paired > 0.5, paired, 0.0)).ravel())[::-1]
    ordered = ordered[ordered > 0.5]
    fdr = np.cumsum(1 - ordered) / np.arange(1, ordered.size + 1)
    assert len(prob) == int(np.flatnonzero(fdr <= 0.1)[-1]) + 1
    assert doc["claims_expected_fdr"] == pytest.approx(np.mean(1 - np.array(list(prob.values()))))
    assert sorted(m for g in doc["tie_groups"] for m in g) == sorted(names)
    assert main(["rank", BOARD, "--estimand", "new-questions"]) == 0
    text = capsys.readouterr().out
    assert "claims (new questions):" in text and "P(best)" not in text
