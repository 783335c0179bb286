"""The board-informed concentration (bayes_eval.posteriors.board) and the note when the
concentration is not identified."""

import numpy as np
import pytest
from scipy.special import expit

from bayes_eval import posterior
from bayes_eval.posteriors.board import SD_FLOOR, board_concentration
from bayes_eval.posteriors.priors import KAPPA_PRIOR, Prior, fit_prior


def _board(rng, n_models=8, m=400, trials=1, difficulty_sd=2.0, ability_sd=0.5, tau=0.0):
    theta = rng.normal(0.0, ability_sd, n_models)
    b = rng.normal(0.0, difficulty_sd, m)
    p = expit(theta[:, None] - b[None, :] + rng.normal(0.0, tau, (n_models, m)))
    k = rng.binomial(trials, p).astype(float)
    return p, np.stack([trials - k, k], axis=-1)


def test_board_recovers_the_difficulty_sd_and_the_implied_concentration():
    # 8 LLMs x 400 questions, one trial each: the difficulty sd (2) is learned from how the
    # models agree (Monte Carlo sd of its estimate ~0.15 here); each model's concentration is
    # the Beta's with the mean and variance of its logit-normal rates, checked against the
    # moments of those rates computed by Monte Carlo (200,000 draws) at the true sd
    rng = np.random.default_rng(0)
    _, counts = _board(rng)
    fit = board_concentration(counts, KAPPA_PRIOR)
    assert fit is not None and fit.models_used == 8
    assert abs(fit.difficulty_sd - 2.0) < 0.4
    rates = (counts[..., 1].sum(1) + 0.5) / (counts.shape[1] + 1.0)
    theta = np.log(rates / (1 - rates))
    p = expit(theta[:, None] - 2.0 * rng.standard_normal(200_000)[None, :])
    m, v = p.mean(1), p.var(1)
    kappa = m * (1 - m) / v - 1
    np.testing.assert_allclose(np.log(fit.median), np.log(kappa), atol=0.35)
    assert np.all(fit.log_sd >= SD_FLOOR)


def test_board_says_nothing_without_a_board():
    rng = np.random.default_rng(1)
    _, counts = _board(rng, n_models=1, m=30)
    assert board_concentration(counts, KAPPA_PRIOR) is None
    rubric = np.ones((3, 10, 3))
    assert board_concentration(rubric, KAPPA_PRIOR) is None
    # one model alone: the board prior is the per-model prior, exactly
    a = fit_prior(counts, pool="board")
    b = fit_prior(counts, pool="model")
    np.testing.assert_array_equal(a.nodes, b.nodes)
    np.testing.assert_array_equal(a.weights, b.weights)


def test_models_without_shared_questions_keep_the_hyperprior():
    rng = np.random.default_rng(2)
    _, counts = _board(rng, n_models=4, m=40)
    counts[3, :, :] = 0.0  # the fourth model answered nothing
    fit = board_concentration(counts, KAPPA_PRIOR)
    assert fit.models_used == 3
    assert (fit.median[3], fit.log_sd[3]) == KAPPA_PRIOR


def test_the_note_names_an_unidentified_concentration():
    rng = np.random.default_rng(3)
    R = (rng.random((1, 30, 1)) < 0.6).astype(float)
    note = posterior(R[0], prior="empirical").concentration_note()
    assert note is not None and "not identified" in note
    assert posterior(R[0], prior="empirical").concentration_unidentified.tolist() == [True]
    # a second trial, or other models on the same questions, identify it
    R2 = (rng.random((30, 2)) < 0.6).astype(float)
    assert posterior(R2, prior="empirical").concentration_note() is None
    p, _ = _board(rng, n_models=4, m=30)
    board = (rng.random((4, 30, 1)) < p[..., None]).astype(float)
    assert posterior(board, prior="empirical").concentration_note() is None
    alone = posterior(board, prior=Prior("empirical", pool="model"))
    assert "4 of 4 models" in alone.concentration_note()
    assert posterior(R[0], prior="uniform").concentration_note() is None


@pytest.mark.slow
def test_board_prior_is_calibrated_and_sharp_with_one_trial():
    # boards with shared difficulty and an LLM x question interaction of sd 1 (the issue's
    # design), one trial per question: 95% coverage of each model's pi-bar and mean posterior
    # sd / RMSE. 60 boards x 6 models = 360 intervals (Monte Carlo s.e. of coverage ~0.012,
    # more with boards sharing questions): coverage in [0.90, 0.99], sharpness in [0.85, 1.25].
    # The per-model prior alone is far off here (its concentration is the hyperprior's).
    rng = np.random.default_rng(4)
    err, sd = [], []
    for _ in range(60):
        p, _ = _board(rng, n_models=6, m=30, tau=1.0)
        R = (rng.random((6, 30, 1)) < p[..., None]).astype(float)
        post = posterior(R, prior="empirical")
        err.append(post.mean - p.mean(1))
        sd.append(post.sd)
    err, sd = np.concatenate(err), np.concatenate(sd)
    cover = np.mean(np.abs(err) <= 1.96 * sd)
    sharp = sd.mean() / np.sqrt(np.mean(err**2))
    assert 0.90 <= cover <= 0.99, cover
    assert 0.85 <= sharp <= 1.25, sharp


def test_board_is_symmetric_and_selection_keeps_each_models_hyperprior():
    # swapping successes and failures mirrors every posterior, also for models that solved all
    # or none of the questions (whose ability the board cannot place: they keep the hyperprior)
    rng = np.random.default_rng(5)
    p, _ = _board(rng, n_models=6, m=30)
    R = (rng.random((6, 30, 1)) < p[..., None]).astype(float)
    R[0], R[1] = 0.0, 1.0
    a = posterior(R, prior="empirical")
    b = posterior(1.0 - R, prior="empirical")
    np.testing.assert_allclose(a.mean, 1.0 - b.mean, atol=1e-9)
    np.testing.assert_allclose(a.sd, b.sd, rtol=1e-7)
    assert tuple(a.fitted.kappa_prior[0]) == KAPPA_PRIOR
    # a selected model keeps the hyperprior the board gave it
    sel = a[[1, 3]]
    np.testing.assert_array_equal(sel.fitted.kappa_prior, a.fitted.kappa_prior[[1, 3]])
    assert "1 of 2 models" in sel.concentration_note()
    lo, hi = a.interval(0.95, kind="exact")
    one = a[3].interval(0.95, kind="exact")
    assert (one.lo, one.hi) == pytest.approx((lo[3], hi[3]), abs=1e-12)


# ---------------------------------------------------------------- the board model's P(better)


def _small_board(seed, n_models=3, m=10, trials=2):
    rng = np.random.default_rng(seed)
    theta = rng.normal(0.0, 0.7, n_models)
    p = expit(theta[:, None] - rng.normal(0.0, 2.0, m)[None, :] + rng.normal(0, 1, (n_models, m)))
    k = rng.binomial(trials, p)
    n = np.full((n_models, m), trials)
    n[0, :2] = k[0, :2] = 0  # model 0 did not answer two questions
    return n, k


def _internal_board(n, k, s, tau):
    from bayes_eval.posteriors.board import _Board

    cells, code = np.unique(np.stack([n, k], -1).reshape(-1, 2), axis=0, return_inverse=True)
    n_models, m = n.shape
    board = _Board(code.reshape(n_models, m), cells, np.ones(m), np.full((n_models, m), 1 / m))
    board.set(s, tau)
    return board


def _brute_cells(theta, n, k, s, tau, points=2001, nodes=41):
    """Per question: the b grid, its posterior weights, and every cell's likelihood over a
    fine grid of b and many Gauss-Hermite nodes of the interaction (independent of the
    tables)."""
    from scipy.special import log_expit, logsumexp

    z, wz = np.polynomial.hermite_e.hermegauss(nodes)
    wz = wz / wz.sum()
    b = np.linspace(-6 * s, 6 * s, points)
    lpb = -0.5 * (b / s) ** 2
    lpb -= logsumexp(lpb)
    x = theta[:, None, None, None] - b[None, None, :, None] + tau * z
    kk, nn = k[:, :, None, None], n[:, :, None, None]
    lf = logsumexp(np.log(wz) + kk * log_expit(x) + (nn - kk) * log_expit(-x), axis=-1)
    return b, lpb, lf


def test_board_likelihood_and_its_derivatives_are_exact():
    # the tabulated likelihood (121-point b grid, 21 interaction nodes, Hermite interpolation)
    # against a 2001-point grid with 41 nodes, to 1e-5 relative; the gradient against central
    # differences of the same objective (it is the interpolant's own derivative: 1e-6) and the
    # Hessian against differences of the gradient (the second derivative is interpolated
    # linearly: 1e-4 of its scale)
    from scipy.special import logsumexp

    n, k = _small_board(1)
    board = _internal_board(n, k, 1.7, 0.8)
    theta = np.array([0.4, -0.3, 1.1])
    ll, grad, hess, _ = board.derivatives(theta)
    _, lpb, lf = _brute_cells(theta, n, k, 1.7, 0.8)
    exact = logsumexp(lf.sum(0) + lpb, axis=1).sum()
    assert ll == pytest.approx(exact, rel=1e-5)
    eye = np.eye(3) * 1e-5
    num_grad = [
        (board.derivatives(theta + e)[0] - board.derivatives(theta - e)[0]) / 2e-5 for e in eye
    ]
    np.testing.assert_allclose(grad, num_grad, rtol=1e-6, atol=1e-7)
    num_hess = [
        (board.derivatives(theta + e)[1] - board.derivatives(theta - e)[1]) / 2e-5 for e in eye
    ]
    np.testing.assert_allclose(hess, num_hess, atol=1e-4 * np.abs(hess).max())


def test_conditional_moments_of_the_difference_match_importance_sampling():
    # given the abilities the questions are independent: the mean and variance of
    # pi-bar_i - pi-bar_j from the tables against 400,000 draws of (b_q, e_lq) from their
    # prior per question, weighted by the likelihood (independent of the quadrature). With the
    # abilities known (Hessian 1e12) the delta-method term vanishes. Tolerances: 5 importance
    # sampling standard errors (the mean's ~2e-4, the variance's ~1% here).
    from bayes_eval.posteriors.board import _Fit, _pair_moments

    n, k = _small_board(2)
    s, tau = 1.5, 0.9
    board = _internal_board(n, k, s, tau)
    theta = np.array([0.2, -0.4, 0.9])
    d, v = _pair_moments(board, _Fit(theta, np.eye(3) * 1e12, 0.0))
    rng = np.random.default_rng(7)
    draws = 400_000
    m = n.shape[1]
    mean, var = np.zeros((3, 3)), np.zeros((3, 3))
    for q in range(m):
        x = theta[:, None] - s * rng.standard_normal(draws) + tau * rng.standard_normal((3, draws))
        p = expit(x)
        like = np.prod(p ** k[:, q, None] * (1 - p) ** (n - k)[:, q, None], axis=0)
        w = like / like.sum()
        diff = p[:, None, :] - p[None, :, :]
        mu = diff @ w
        mean += mu / m
        var += ((diff - mu[..., None]) ** 2 @ w) / m**2
    np.testing.assert_allclose(d, mean, atol=1e-3)
    np.testing.assert_allclose(v, var, rtol=0.05, atol=1e-7)


@pytest.mark.slow
def test_board_probability_matches_a_grid_over_the_abilities():
    # (s, tau) fixed: the Laplace step and the delta method over the abilities against the
    # abilities' exact posterior on a 41 x 41 grid for every ability-sd grid point (the same
    # conditional law of the difference at each grid point: Phi of its exact mean and sd).
    # Two models, 12 questions, 2 trials; within 0.01 in probability.
    from scipy.special import logsumexp, ndtr

    from bayes_eval.posteriors.board import (
        _ABILITY_SD,
        _Fit,
        _log_prior_sigma,
        _log_prior_theta,
        _pair_moments,
        board_comparison,
    )

    rng = np.random.default_rng(4)
    p = expit(np.array([0.3, -0.1])[:, None] - rng.normal(0, 1.5, 12) + rng.normal(0, 0.7, (2, 12)))
    k = rng.binomial(2, p)
    n = np.full((2, 12), 2)
    got = board_comparison(np.stack([n - k, k], -1), difficulty_sd=1.5, interaction_sd=0.7)
    board = _internal_board(n, k, 1.5, 0.7)
    # the abilities' grid: the mean is flat and the difference carries the comparison
    mid = np.linspace(-2.5, 2.5, 41)
    gap = np.linspace(-4.0, 4.0, 41)
    log_post, prob = [], []
    for c in mid:
        for g in gap:
            theta = np.array([c + g / 2, c - g / 2])
            ll, _ = board.posterior_b(theta)
            d, v = _pair_moments(board, _Fit(theta, np.eye(2) * 1e12, 0.0))
            log_prior = logsumexp(
                [_log_prior_theta(theta, s)[0] + _log_prior_sigma(s) for s in _ABILITY_SD]
            )
            log_post.append(ll + log_prior)
            prob.append(ndtr(d[0, 1] / np.sqrt(v[0, 1])))
    w = np.exp(np.array(log_post) - max(log_post))
    assert got.prob[0, 1] == pytest.approx(float(w @ np.array(prob) / w.sum()), abs=0.01)


def test_posterior_uses_the_board_model_on_a_leaderboard():
    from bayes_eval.posteriors.posterior import BOARD_MODEL

    _, k = _small_board(3, n_models=4, m=12, trials=1)
    R = k[..., None].astype(float)
    post = posterior(R, prior="empirical", models=["a", "b", "c", "d"])
    assert post.has_board and post.prob_method() == "board"
    assert post.prob_label() == BOARD_MODEL
    full = post.prob_better()
    np.testing.assert_allclose(full + full.T, 1.0, atol=1e-12)
    # selections ask the same board (fitted once)
    np.testing.assert_allclose(post[["b", "d"]].prob_better(), full[np.ix_([1, 3], [1, 3])])
    assert post["b"].prob_better(post["d"]) == pytest.approx(full[1, 3], abs=1e-15)
    # the models' own posteriors on request, and wherever there is no board
    assert post.prob_better(method="normal")[0, 1] != pytest.approx(full[0, 1], abs=1e-6)
    for other in (
        posterior(R, prior="uniform"),
        posterior(R, prior=Prior.parse("empirical", pool="model")),
        posterior(R, [1.0, 0.0], prior="empirical"),  # a reversed score
        posterior(R[0], prior="empirical"),
    ):
        assert not other.has_board and other.prob_method() == "normal"
        with pytest.raises(ValueError, match="method='board' needs"):
            other.prob_method("board")
    # models of two separate posteriors are not one board
    with pytest.raises(ValueError, match="one board"):
        again = posterior(R, prior="empirical", models=["a", "b", "c", "d"])
        post["a"].prob_better(again["b"], method="board")


def test_board_comparison_refuses_half_given_hyperparameters_and_odd_data():
    from bayes_eval.posteriors.board import board_comparison

    n, k = _small_board(5)
    counts = np.stack([n - k, k], -1)
    with pytest.raises(ValueError, match="both difficulty_sd and interaction_sd"):
        board_comparison(counts, difficulty_sd=1.0)
    with pytest.raises(ValueError, match="expected a number > 0"):
        board_comparison(counts, difficulty_sd=0.0, interaction_sd=1.0)
    assert board_comparison(counts[:1]) is None  # one model
    assert board_comparison(counts + 0.5) is None  # fractional counts
    res = board_comparison(counts)
    assert res is not None and 0 < res.difficulty_sd and 0 <= res.interaction_sd
    # computed once per board: asked again, the same (read-only) answer
    assert board_comparison(counts.copy()) is res and not res.prob.flags.writeable
    assert board_comparison(counts, difficulty_sd=1.0, interaction_sd=0.5) is not res
