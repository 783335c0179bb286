"""``rank`` and ``pairs`` on leaderboards as they are: incomplete designs, graded scores,
trial-less exports with repeated pairs, paired comparisons."""

from __future__ import annotations

import json

import numpy as np
import pytest
from scipy import stats

from bayes_eval.cli import main
from bayes_eval.synthetic.leaderboard import simulate_leaderboard


@pytest.fixture(scope="module")
def incomplete(tmp_path_factory):
    board = simulate_leaderboard(
        6, 60, question_sets=(40, 60), subset_models=1, subset_size=20, seed=3
    )
    path = tmp_path_factory.mktemp("lb") / "incomplete.csv"
    board.to_frame().to_csv(path, index=False)
    return board, path


def _json(capsys, argv):
    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def _error(capsys, argv) -> str:
    assert main(argv) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("bayes-eval: error: ")
    return lines[0]


def test_rank_refuses_an_incomplete_design_naming_the_option(incomplete, capsys):
    _, path = incomplete
    line = _error(capsys, ["rank", str(path)])
    assert "--questions common" in line and "--questions all" in line


def test_rank_common_ranks_the_shared_questions(incomplete, capsys):
    board, path = incomplete
    out = _json(capsys, ["rank", str(path), "--questions", "common"])
    shared = int(board.answered.all(axis=0).sum())
    assert out["questions"] == shared and out["question_mode"] == "common"
    design = out["design"]
    assert design["kept"] == shared and design["total"] == 60
    assert design["dropped"] == {
        m: int(board.answered[i].sum()) - shared for i, m in enumerate(board.models)
    }
    assert main(["rank", str(path), "--questions", "common"]) == 0
    text = capsys.readouterr().out
    assert f"ranked on the {shared} of 60 questions every model answered" in text


def test_rank_all_scores_each_model_on_its_own_questions_and_warns(incomplete, capsys):
    board, path = incomplete
    out = _json(capsys, ["rank", str(path), "--questions", "all", "--prior-kind", "uniform"])
    per_model = {r["model"]: r["questions"] for r in out["models"]}
    assert per_model == {m: int(board.answered[i].sum()) for i, m in enumerate(board.models)}
    # the closed form on each model's answered questions (an independent computation)
    from bayes_eval import bayes

    for r in out["models"]:
        i = board.models.index(r["model"])
        own = board.scores[i, board.answered[i]]
        mu = bayes(own, mask=np.isnan(own), prior="uniform")[0]
        assert r["mu"] == pytest.approx(mu, rel=1e-12)
    assert main(["rank", str(path), "--questions", "all"]) == 0
    text = capsys.readouterr().out
    assert "WARNING: the scores are not on the same question set" in text
    assert "questions" in text.splitlines()[2]  # the column


def test_pairs_json_matrices_and_the_beta_formula(capsys):
    out = _json(capsys, ["pairs", "dataset:matharena_aime25_i", "--prior-kind", "uniform"])
    names, par = out["models"], out["paired"]
    assert len(names) == 16 and all(par[i][i] is None for i in range(16))
    assert par[0][1] + par[1][0] == pytest.approx(1.0)
    # the unpaired matrix is not calibrated (the Validation page): not printed
    assert "independent" not in out and "independent" not in out["prior_detail"]
    assert out["method"] == {"paired": "exact"}
    these = out["these_questions"]
    assert all(these[i][i] is None for i in range(16))
    assert these[0][1] + these[1][0] == pytest.approx(1.0)
    assert out["estimand"] == {
        "these_questions": "these questions",
        "paired": "new questions",
    }
    # four trials per question: the per-question score differences take 9 values; two models
    # solving every question alike would give 1/2


def test_pairs_header_names_where_the_paired_prior_sits(capsys):
    """Four trials per question under the learned prior: the normal prior on each pair's
    difference (no joint table); under the uniform prior, the corners of the joint table."""
    assert main(["pairs", "dataset:matharena_aime25_i"]) == 0
    head = capsys.readouterr().out.splitlines()[0]
    assert "N(0, tau^2) on each pair's difference" in head and "on the joint table" not in head
    assert main(["pairs", "dataset:matharena_aime25_i", "--prior-kind", "uniform"]) == 0
    head = capsys.readouterr().out.splitlines()[0]
    assert "new questions (paired): prior uniform on the joint table" in head


def test_pairs_single_trial_is_the_beta_formula(tmp_path, capsys):
    rng = np.random.default_rng(0)
    x = (rng.random((3, 30)) < [[0.7], [0.5], [0.4]]).astype(int)
    rows = ["model,question,trial,score"] + [
        f"m{i},q{j},0,{x[i, j]}" for i in range(3) for j in range(30)
    ]
    path = tmp_path / "single.csv"
    path.write_text("\n".join(rows) + "\n")
    out = _json(capsys, ["pairs", str(path), "--prior-kind", "uniform"])
    a, b = (out["models"].index(m) for m in ("m0", "m1"))
    n_a = int(np.sum(x[0] * (1 - x[1])))
    n_b = int(np.sum((1 - x[0]) * x[1]))
    assert out["paired"][a][b] == pytest.approx(stats.beta(1 + n_a, 1 + n_b).sf(0.5), abs=1e-12)
    assert main(["pairs", str(path), "--plot", str(tmp_path / "p.png")]) == 0
    assert (tmp_path / "p.png").stat().st_size > 10_000
    assert "P new questions" in capsys.readouterr().out


def test_pairs_refuses_an_incomplete_design_by_default(incomplete, capsys):
    _, path = incomplete
    assert "--questions common" in _error(capsys, ["pairs", str(path)])
    out = _json(capsys, ["pairs", str(path), "--questions", "all", "--prior-kind", "jeffreys"])
    assert out["shared"][0][0] == out["design"]["answered"][out["models"][0]]


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    board = simulate_leaderboard(5, 40, scores="graded", repeats=0.2, seed=4)
    path = tmp_path_factory.mktemp("graded") / "graded.csv"
    board.to_frame(trial=False).to_csv(path, index=False)  # an export: no trial column
    return board, path


def test_graded_scores_without_a_treatment_are_refused_with_the_reason(graded, capsys):
    _, path = graded
    line = _error(capsys, ["rank", str(path)])
    assert "the scores are graded (" in line and "pseudo-counts" in line
    assert "--score-levels K" in line and "--fractional" in line


def test_fractional_ranks_a_trial_less_export_with_repeats_as_trials(graded, capsys):
    board, path = graded
    out = _json(capsys, ["rank", str(path), "--fractional", "--prior-kind", "uniform"])
    assert out["max_trials"] == 2 and out["graded"]["treatment"] == "fractional"
    from bayes_eval import bayes

    mu, _ = bayes(board.scores, fractional=True, mask=np.isnan(board.scores), prior="uniform")
    got = {r["model"]: r["mu"] for r in out["models"]}
    assert [got[m] for m in board.models] == pytest.approx(list(mu), rel=1e-12)


def test_score_levels_round_graded_scores(graded, capsys):
    _, path = graded
    out = _json(capsys, ["rank", str(path), "--score-levels", "5"])
    assert out["graded"]["levels"] == 5 and out["graded"]["max_shift"] <= 0.125
    assert main(["rank", str(path), "--score-levels", "5", "--weights", "0,1"]) == 2
    assert "leave them out" in capsys.readouterr().err


@pytest.mark.pymc
@pytest.mark.slow
def test_rank_crossed_scores_every_model_on_all_questions(incomplete, tmp_path, capsys):
    """``rank --estimator crossed`` on the incomplete binary board (6 models, one on 20 of 60
    questions): the table of the closed form with the rank's credible interval, every model
    on all 60 questions, the fit's diagnostics in the JSON, and a forest plot."""
    pytest.importorskip("pymc")
    board, path = incomplete
    nuts = ["--draws", "300", "--tune", "300", "--chains", "2", "--seed", "1", "--no-progress"]
    argv = ["rank", str(path), "--estimator", "crossed", "--confidence", "0.9", *nuts]
    out = _json(capsys, argv)
    assert out["estimator"] == "crossed" and out["question_mode"] == "all"
    assert out["questions"] == 60
    fit = out["fit"]
    assert fit["likelihood"] == "binomial" and fit["sampler"] == "pymc"
    assert fit["max_rhat"] < 1.1 and fit["min_ess_bulk"] > 50  # 2 short chains: loose
    per_model = {r["model"]: r for r in out["models"]}
    assert {m: per_model[m]["questions"] for m in board.models} == {
        m: int(board.answered[i].sum()) for i, m in enumerate(board.models)
    }
    for r in out["models"]:
        assert 0.0 < r["lo"] < r["mu"] < r["hi"] < 1.0
        lo, hi = r["rank_draws"]
        assert 1 <= lo <= r["rank"] <= hi <= 6
    # the ranking follows the true mean scores over all questions
    mu = [per_model[m]["mu"] for m in board.models]
    assert stats.spearmanr(mu, board.true_mean).statistic >= 0.6
    png = tmp_path / "crossed.png"
    assert main([*argv, "--plot", str(png)]) == 0
    text = capsys.readouterr().out
    assert "crossed model (binomial likelihood)" in text and "rank 90%" in text
    assert png.stat().st_size > 10_000
