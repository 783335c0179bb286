"""One posterior, one answer: the commands asked the same question under the same prior and
estimand give the same number, and every command names its prior and its estimand."""

from __future__ import annotations

import json

import numpy as np
import pytest

import bayes_eval as be
from bayes_eval.cli import main
from bayes_eval.datasets import load
from bayes_eval.posteriors.posterior import (
    BOARD_MODEL,
    JOINT_PRIOR,
    NEW_QUESTIONS,
    THESE_QUESTIONS,
)

BOARD = "dataset:matharena_aime25_i"
A, B = "o3-mini (high)", "o1 (medium)"


def _json(capsys, *argv) -> dict:
    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("kind", [None, "uniform", "jeffreys", "empirical-plugin"])
def test_rank_plan_and_pairs_agree_on_p_better(capsys, kind):
    extra = [] if kind is None else ["--prior-kind", kind]
    rank = _json(capsys, "rank", BOARD, *extra)
    plan = _json(capsys, "plan", BOARD, A, B, "--simulations", "200", *extra)
    pairs = _json(capsys, "pairs", BOARD, *extra)
    # the same prior and estimand, named the same way
    assert rank["prior"] == plan["prior"] == pairs["prior"]
    assert rank["estimand"] == plan["estimand"] == THESE_QUESTIONS
    assert pairs["estimand"]["these_questions"] == THESE_QUESTIONS
    assert pairs["estimand"]["paired"] == NEW_QUESTIONS
    # the same probability: P(A better than B) on these questions
    order = rank["prob_better"]["models"]
    p_rank = rank["prob_better"]["rows"][order.index(A)][order.index(B)]
    names = pairs["models"]
    p_pairs = pairs["these_questions"][names.index(A)][names.index(B)]
    p_plan = plan["prob_leader_better"] if plan["leader"] == A else 1 - plan["prob_leader_better"]
    assert p_rank == pytest.approx(p_pairs, abs=1e-12)
    assert p_rank == pytest.approx(p_plan, abs=1e-12)
    # computed from the same model, named the same way
    source = rank["prob_better"]["from"]
    assert source == plan["prob_leader_better_from"] == pairs["these_questions_from"]
    assert (source == BOARD_MODEL) == (kind in (None, "empirical-plugin"))  # learned priors
    # and the library's posterior says the same, to floating-point rounding
    R = load("matharena_aime25_i")["results"]
    post = be.xr.posterior(R, skipna=True, prior=kind or "empirical")
    models = [str(m) for m in R["model"].values]
    assert post.prob_better()[models.index(A), models.index(B)] == pytest.approx(p_rank, abs=1e-11)


def test_p_better_is_one_posterior_whatever_the_interval(capsys):
    # the interval law changes the intervals only: P(better) is the posterior's own, the same
    # in `rank` (any --interval) and `pairs` (which has no --interval)
    pairs = _json(capsys, "pairs", BOARD, "--prior-kind", "uniform")
    names = pairs["models"]
    for kind in ("auto", "normal", "exact"):
        rank = _json(capsys, "rank", BOARD, "--prior-kind", "uniform", "--interval", kind)
        order = rank["prob_better"]["models"]
        assert rank["prob_better"]["from"] == pairs["these_questions_from"]
        for a, b in [(A, B), (names[3], names[7])]:
            p_rank = rank["prob_better"]["rows"][order.index(a)][order.index(b)]
            p_pairs = pairs["these_questions"][names.index(a)][names.index(b)]
            assert p_rank == pytest.approx(p_pairs, abs=1e-12)
    assert main(["pairs", BOARD, "--interval", "exact"]) == 2
    assert "unrecognized arguments: --interval" in capsys.readouterr().err


def test_the_cli_has_one_default_prior(capsys):
    # the default prior (learned, pooled over the board) on a board of binary results: every
    # number from the joint posterior, named the same way by every command
    from bayes_eval.xr import posterior as labelled_posterior

    R = load("matharena_aime25_i")["results"]
    label = labelled_posterior(R, skipna=True).prior_label
    assert label == JOINT_PRIOR
    outs = [
        _json(capsys, "rank", BOARD),
        _json(capsys, "plan", BOARD, A, B, "--simulations", "200"),
        _json(capsys, "pairs", BOARD),
        _json(capsys, "demo", "--n-questions", "6", "--trials", "4"),
    ]
    assert [o["prior"] for o in outs] == [label] * 4
    assert all(o["estimand"] == THESE_QUESTIONS for o in outs[:2])


def test_headers_name_prior_and_estimand(capsys):
    for argv in (["rank", BOARD], ["plan", BOARD, A, B, "--simulations", "200"], ["pairs", BOARD]):
        assert main(argv) == 0
        head = capsys.readouterr().out.splitlines()[0]
        assert "prior" in head and THESE_QUESTIONS in head, (argv, head)


def test_prior_file_is_named_with_its_discount(tmp_path, capsys):
    R = load("matharena_aime25_i")["results"]
    path = tmp_path / "earlier.csv"
    frame = R.isel(trial=slice(0, 2)).to_dataframe(name="score").reset_index()
    frame.to_csv(path, index=False)
    out = _json(
        capsys,
        "rank",
        BOARD,
        "--prior-kind",
        "uniform",
        "--prior-file",
        str(path),
        "--prior-discount",
        "0.5",
    )
    assert out["prior"] == f"uniform + earlier runs ({path}, discount 0.5)"
    assert out["prior_detail"]["discount"] == 0.5


@pytest.mark.parametrize(
    "argv, match",
    [
        (["rank", BOARD, "--prior-kind", "uniform", "--pool", "benchmark"], "--pool does nothing"),
        (["rank", BOARD, "--prior-discount", "0.5"], "--prior-discount does nothing"),
        (["pairs", BOARD, "--prior-kind", "jeffreys", "--pool", "model"], "--pool does nothing"),
        (["plan", BOARD, A, A], "both"),
    ],
)
def test_prior_options_are_checked_once_everywhere(capsys, argv, match):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert match in err and len(err.strip().splitlines()) == 1


def test_unused_weights_warn(tmp_path, capsys):
    path = tmp_path / "runs.csv"
    rng = np.random.default_rng(1)
    rows = ["model,question,trial,score"] + [
        f"m{m},q{q},{t},{int(rng.random() < 0.7)}"
        for m in range(2)
        for q in range(8)
        for t in range(2)
    ]
    path.write_text("\n".join(rows))
    for cmd in (["rank"], ["pairs"], ["plan"]):
        argv = [*cmd, str(path), *(["m0", "m1"] if cmd == ["plan"] else []), "--weights", "0,0.5,1"]
        with pytest.warns(UserWarning, match="--weights has 3 weights but the results use "):
            assert main([*argv, "--prior-kind", "uniform"]) == 0


def test_the_board_leaderboard_is_one_joint_posterior(capsys):
    # the default prior on a board: every number of `rank` from the joint posterior, so the
    # rank ranges, P(> next) and the order by mu agree with the one P(better) matrix
    out = _json(capsys, "rank", BOARD)
    models, conf = out["models"], out["confidence"]
    order = out["prob_better"]["models"]
    assert order == [m["model"] for m in models]
    p = np.array(out["prob_better"]["rows"], dtype=float)  # null -> nan
    L = len(order)
    assert np.isnan(np.diag(p)).all()  # the diagonal is null, as in `pairs --json`
    off = ~np.eye(L, dtype=bool)
    np.testing.assert_allclose((p + p.T)[off], 1.0, atol=1e-12)
    credible = np.nan_to_num(p, nan=0.0) >= conf
    for k, m in enumerate(models):
        assert m["interval_kind"] == "joint" and m["lo"] <= m["mu"] <= m["hi"]
        assert m["rank_range"] == [1 + int(credible[:, k].sum()), L - int(credible[k].sum())]
        assert m["rank_range"][0] <= m["rank"] <= m["rank_range"][1]
        assert (p[k, k + 1 :] >= 0.5).all()  # listed above: never less likely better
        assert m["prob_next"] == (None if k == L - 1 else pytest.approx(p[k, k + 1], abs=1e-15))
        assert {"mu_closed_form", "sigma_closed_form"} <= set(m)  # the per-model diagnostic
    assert (
        out["rank_range_rule"].startswith("every rank left open") and "chain" in out["rank_ci_rule"]
    )
    board = out["board_model"]
    assert board["difficulty_sd"] > 0 and board["ability_sd"] > 0 and board["dispersion"] > 0
    assert out["prob_better"]["from"] == BOARD_MODEL and out["prior"] == JOINT_PRIOR
