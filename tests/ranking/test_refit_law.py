"""The refit law of a pair plan (issue 41): ``RefitBoards`` against boards rebuilt by hand as
``rank`` reads them, its limit against the board's P(better), and ``plan_separation`` /
``plan_pair`` under it (the plan reaches its target, refusals)."""

from __future__ import annotations

import numpy as np
import pytest
import xarray as xr
from scipy.special import ndtri
from scipy.stats import binom

from bayes_eval import xr as bxr
from bayes_eval.ranking.leaderboard import plan_pair
from bayes_eval.ranking.refit_law import RefitBoards, check_preposterior
from bayes_eval.ranking.sample_size import _refit_pair, plan_separation


def test_a_pair_plan_refits_the_board_rank_would_print(one_trial_board):
    """The pair's refit law at n, rebuilt from public pieces: the same rate draws and uniforms,
    n trials per question for the two models only (the others keep their one), each future
    board's posterior built as ``rank`` builds it (``bxr.posterior`` of the results array) and
    P(leader better) read from it against the confidence; equal to the last digit, for the
    pair in either order."""
    board = bxr.posterior(one_trial_board, skipna=True)
    draws, n, confidence = 12, 6, 0.9
    coords = {"model": one_trial_board["model"].values}
    for names in (["b", "a"], ["a", "b"]):
        pair = board[names]
        leader = "a" if np.asarray(pair.mean)[0] >= np.asarray(pair.mean)[1] else "b"
        at = ["abcd".index(x) for x in names]  # the pair's models on the board
        lead, other = at if leader == "a" else at[::-1]
        law = _refit_pair(pair, leader, ndtri(confidence), draws, np.random.default_rng(4), None)
        rng = np.random.default_rng(4)
        rates = board.joint.rate_draws(draws, rng)
        u = np.clip(rng.random(rates.shape), 1e-12, 1 - 1e-12)
        hits = 0
        for p, v in zip(rates, u, strict=True):
            R = np.full((4, 24, n), np.nan)
            R[..., :1] = one_trial_board.values
            more = binom.ppf(v[:2], n - 1, p[:2])  # models a and b: n - 1 extra trials
            R[:2, :, 1:] = np.arange(n - 1)[None, None, :] < more[..., None]
            future = bxr.posterior(
                xr.DataArray(R, dims=one_trial_board.dims, coords=coords), skipna=True
            )
            prob = np.asarray(future.prob_better())
            hits += prob[lead, other] >= confidence
        assert law.assurance(n) == pytest.approx(hits / draws, abs=1e-12)
        assert 0 < hits < draws  # the decision is not trivial at this n


def test_the_refit_laws_limit_is_the_boards_probability(one_trial_board):
    """``prob_better`` over 4000 rate draws against the board's P(better) for every pair: the
    draws' question averages are draws of pi-bar (means within 0.002, sds within 4% of the
    joint's), so the two agree within 0.03 (Monte Carlo sd <= 0.008, plus the normal law's
    approximation of the draws)."""
    board = bxr.posterior(one_trial_board, skipna=True)
    law = RefitBoards(board, 4000, np.random.default_rng(0), decide=lambda m, c: True)
    share = law.prob_better()
    prob = np.asarray(board.prob_better())
    off = ~np.eye(4, dtype=bool)
    assert np.abs(share - prob)[off].max() < 0.03
    assert np.allclose(share + share.T, 1.0 - np.eye(4))  # no ties among continuous draws
    pair = board[["c", "a"]]  # a selection reads its own models, in its order
    chosen = RefitBoards(pair, 4000, np.random.default_rng(0), decide=lambda m, c: True)
    assert chosen.prob_better()[0, 1] == share[2, 0]


@pytest.mark.slow
def test_a_pair_plan_under_the_refit_law_reaches_its_target(one_trial_board):
    """From one trial: the plan's N reaches the assurance under the refit law, every N the
    search tried below it fell short, the same seed gives the same plan, and the plan says
    which law it is over (its limit and effective draws are the refit law's)."""
    board = bxr.posterior(one_trial_board, skipna=True)
    pair = board[["a", "b"]]
    lines: list[str] = []
    args = dict(z_target=ndtri(0.9), draws=24, seed=3, preposterior="refit")
    plan = plan_separation(pair, **args, progress=lines.append)
    assert plan.preposterior == "refit" and plan.effective_draws == 24.0
    assert plan.n_required > plan.n_now == 1
    assert plan.assurance_at_required >= 0.8
    assert plan.assurance_limit * 24 == pytest.approx(round(plan.assurance_limit * 24))
    tried = [
        (int(x.split(": ")[1].split()[0]), float(x.split("assurance ")[1].split()[0]))
        for x in lines
    ]
    assert all(a < 0.8 for n, a in tried if n < plan.n_required)
    assert (plan.n_required, round(plan.assurance_at_required, 3)) in tried
    assert plan_separation(pair, **args) == plan
    assert plan.note is not None and "refit" in plan.note
    normal = plan_separation(pair, z_target=ndtri(0.9), draws=24, seed=3)
    assert normal.preposterior == "normal" and normal.note is not None


def test_the_refit_law_needs_the_board_model(one_trial_board):
    board = bxr.posterior(one_trial_board, skipna=True)
    with pytest.raises(ValueError, match="preposterior is 'exact'; expected one of"):
        plan_separation(board[["a", "b"]], preposterior="exact")
    uniform = bxr.posterior(one_trial_board, skipna=True, prior="uniform")
    with pytest.raises(ValueError, match=r"refit law refits the board model.*'uniform'"):
        plan_separation(uniform[["a", "b"]], preposterior="refit")
    with pytest.raises(ValueError, match="refit law refits the board model"):
        plan_pair(one_trial_board, "a", "b", prior="uniform", preposterior="refit")
    with pytest.raises(ValueError, match="refit law refits the board model"):
        RefitBoards(uniform, 4, np.random.default_rng(0), decide=lambda m, c: True)
    check_preposterior(board, "refit")  # the default prior's board: no error


def test_plans_reached_or_out_of_reach_do_not_refit(one_trial_board):
    """A pair separated already, or whose P(leader better) is below the assurance, needs no
    refitted board: the answer is the normal law's, named as the refit law's."""
    lines: list[str] = []
    args = dict(simulations=20, preposterior="refit", progress=lines.append)
    done = plan_pair(one_trial_board, "a", "d", **args)
    assert done.plan.n_required == done.plan.n_now and done.plan.preposterior == "refit"
    out = plan_pair(one_trial_board, "b", "c", **args)
    assert out.plan.n_required is None and "P(leader better)" in out.plan.reason
    assert lines == []  # no board was refitted
