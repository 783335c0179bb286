"""The interaction knob of :func:`bayes_eval.synthetic.leaderboard.simulate_leaderboard`
(NumPy only: the fast tier), and the ``rank --interaction`` wiring (marked ``pymc``: the
models package loads PyMC)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.special import expit, logit

from bayes_eval.synthetic.leaderboard import simulate_leaderboard


def test_default_keeps_the_rasch_truth_and_its_random_stream():
    """Without the knob the board is the one the earlier versions drew: abilities, then
    difficulties, then the Bernoulli trials, from one generator (rebuilt here by hand)."""
    board = simulate_leaderboard(5, 40, n_trials=3, ability_mean=0.2, seed=11)
    rng = np.random.default_rng(11)
    theta = rng.normal(0.2, 1.0, 5)
    b = rng.normal(0.0, 1.5, 40)
    p = expit(theta[:, None] - b[None, :])
    scores = (rng.random((5, 40, 3)) < p[..., None]).astype(float)
    np.testing.assert_array_equal(board.expected, p)
    np.testing.assert_array_equal(board.scores, scores)
    np.testing.assert_array_equal(board.interaction, np.zeros((5, 40)))
    again = simulate_leaderboard(5, 40, n_trials=3, ability_mean=0.2, interaction_sd=0.0, seed=11)
    np.testing.assert_array_equal(again.scores, board.scores)


@pytest.mark.parametrize("tau", [0.5, 1.0])
def test_interaction_variance_by_two_way_anova(tau):
    """The double-centred logits of the true rates (row and column means removed: what is
    left of theta_l - b_q + e_lq is the centred e) have variance tau^2 (1 - 1/L)(1 - 1/M)
    in expectation. With L = M = 200 (39,601 degrees of freedom) the relative sd of that
    variance is sqrt(2 / 39,601) = 0.7%; the tolerance is 4%, more than 5 sd."""
    L = M = 200
    board = simulate_leaderboard(L, M, difficulty_sd=2.0, interaction_sd=tau, seed=3)
    eta = logit(board.expected)
    resid = eta - eta.mean(1, keepdims=True) - eta.mean(0, keepdims=True) + eta.mean()
    var = (resid**2).sum() / ((L - 1) * (M - 1))
    assert var == pytest.approx(tau**2, rel=0.04)
    np.testing.assert_allclose(
        eta, board.theta[:, None] - board.difficulty[None, :] + board.interaction, atol=1e-8
    )
    # the trials have the stated rates: mean observed score minus mean rate, binomial se
    gap = np.nanmean(board.scores) - board.expected.mean()
    assert abs(gap) < 5 * np.sqrt(0.25 / (L * M))


def test_interaction_widens_the_spread_of_cell_rates_beyond_rasch():
    """Same abilities and difficulties (same seed up to the knob's own draws): the cell
    logits differ from the Rasch ones by exactly the interaction."""
    plain = simulate_leaderboard(8, 50, seed=5)
    mixed = simulate_leaderboard(8, 50, interaction_sd=1.0, seed=5)
    np.testing.assert_array_equal(plain.theta, mixed.theta)
    np.testing.assert_array_equal(plain.difficulty, mixed.difficulty)
    np.testing.assert_allclose(
        logit(mixed.expected) - logit(plain.expected), mixed.interaction, atol=1e-8
    )


@pytest.mark.parametrize("bad", [-0.5, float("nan"), float("inf"), True, "1"])
def test_bad_interaction_sd_is_refused(bad):
    with pytest.raises(ValueError, match=r"interaction_sd is .*expected a finite number >= 0"):
        simulate_leaderboard(3, 5, interaction_sd=bad)


@pytest.mark.pymc  # importing bayes_eval.models loads PyMC
@pytest.mark.parametrize("flag", [[], ["--interaction"]])
def test_rank_passes_interaction_to_the_crossed_model(flag, monkeypatch):
    """``rank --estimator crossed [--interaction]`` hands the option to the crossed fit (the
    fit itself is replaced: this checks the wiring, not NUTS)."""
    from bayes_eval.cli import main
    from bayes_eval.models import crossed_leaderboard as module

    def fake(R, w=None, **options):
        raise RuntimeError(f"interaction={options['interaction']}")

    monkeypatch.setattr(module, "crossed_leaderboard", fake)
    argv = ["rank", "dataset:matharena_aime25_i", "--estimator", "crossed", *flag]
    with pytest.raises(RuntimeError, match=f"interaction={bool(flag)}"):
        main(argv)
