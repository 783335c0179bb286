"""Sample-size planning (seed 000, App. D) against an exact check: tiling the columns of R keeps
the category proportions fixed, which is exactly the projection's assumption."""

from __future__ import annotations

import numpy as np
import pytest

import bayes_eval as be
from bayes_eval.ranking import z_score
from bayes_eval.sample_size import projected_z, trials_to_separate


def _z(Ra, Rb, w=None, alpha0=1.0):
    ma, sa = be.bayes(Ra, w, alpha0=alpha0)
    mb, sb = be.bayes(Rb, w, alpha0=alpha0)
    return z_score(ma, sa, mb, sb)


def test_projection_exact_for_tiled_results(rng):
    Ra = rng.integers(0, 3, size=(20, 10))
    Rb = rng.integers(0, 3, size=(20, 10))
    w = [0.0, 0.5, 1.0]
    # doubling the counts is not the same as fixed proportions of nu (the prior counts do not
    # scale), so compare with the posterior built from counts scaled around the prior:
    post_a = be.dirichlet_posterior(Ra, w)
    post_b = be.dirichlet_posterior(Rb, w)
    extra = 30
    za = projected_z(Ra, Rb, w, extra_trials=extra)

    # direct: sigma^2(n) = sum V / (T + n + 1) / M^2 with V from the current posterior
    def sig2(post):
        _mean, var = post.question_moments()
        return (var * (post.total + 1) / (post.total + extra + 1)).sum() / 20**2

    mu_a, _ = be.bayes(Ra, w)
    mu_b, _ = be.bayes(Rb, w)
    assert za == pytest.approx(abs(mu_a - mu_b) / np.sqrt(sig2(post_a) + sig2(post_b)), rel=1e-12)
    assert projected_z(Ra, Rb, w) == pytest.approx(_z(Ra, Rb, w), rel=1e-12)


def test_projection_exact_when_proportions_are_kept(rng):
    """With a vanishing prior (alpha0 -> 0) tiling the columns keeps nu/T fixed, which is the
    projection's assumption; the projected z then equals the z of the tiled data."""
    Ra = rng.integers(0, 3, size=(25, 12))
    Rb = rng.integers(0, 3, size=(25, 12))
    w = [0.0, 0.3, 1.0]
    a0 = 1e-12
    for reps in (2, 5):
        z_tiled = _z(np.tile(Ra, reps), np.tile(Rb, reps), w, alpha0=a0)
        z_proj = projected_z(Ra, Rb, w, extra_trials=12 * (reps - 1), alpha0=a0)
        assert z_proj == pytest.approx(z_tiled, rel=1e-9)


def test_trials_to_separate_is_minimal(rng):
    p = rng.random((30, 1))
    Ra = (rng.random((30, 40)) < np.clip(p + 0.03, 0, 1)).astype(int)
    Rb = (rng.random((30, 40)) < p).astype(int)
    plan = trials_to_separate(Ra, Rb, z_target=1.96)
    if plan.extra_trials:
        assert projected_z(Ra, Rb, extra_trials=plan.extra_trials) >= 1.96
        assert projected_z(Ra, Rb, extra_trials=plan.extra_trials - 1) < 1.96
        assert plan.n_required == 40 + plan.extra_trials
    # z grows like sqrt(T + 1): the 1.96 plan needs (1.96/1.645)^2 ~ 1.42x the 1.645 plan's T
    p1 = trials_to_separate(Ra, Rb, z_target=1.645)
    if p1.extra_trials and plan.extra_trials:
        assert (plan.n_required + 3) / (p1.n_required + 3) == pytest.approx(
            (1.96 / 1.645) ** 2, rel=0.05
        )


def test_equal_models_cannot_be_separated(rng):
    R = rng.integers(0, 2, size=(10, 5))
    plan = trials_to_separate(R, R.copy())
    assert plan.z_now == 0.0 and plan.n_required is None


def test_already_separated():
    Ra = np.ones((30, 20), dtype=int)
    Rb = np.zeros((30, 20), dtype=int)
    plan = trials_to_separate(Ra, Rb)
    assert plan.extra_trials == 0 and plan.n_required == 20


def test_bad_target():
    with pytest.raises(ValueError, match="z_target"):
        trials_to_separate(np.ones((2, 2), int), np.zeros((2, 2), int), z_target=-1)
