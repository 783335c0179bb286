"""Graded scores worth the Bernoulli trials their spread shows (issue 40): the dispersion
estimate against the law it estimates, its edge cases, and the intervals it gives."""

from __future__ import annotations

import numpy as np
import pytest

import bayes_eval as be
from bayes_eval.inputs import GRADE_TRIALS_MAX, grade_trials


def _grades(rng, p, phi, trials):
    return rng.beta(p[..., None] * phi, (1 - p[..., None]) * phi, (*p.shape, trials))


@pytest.mark.parametrize("phi", [2.0, 8.0, 30.0])
def test_repeated_grades_give_one_plus_the_precision(phi):
    # Beta(p phi, (1 - p) phi) grades vary by p (1 - p) / (1 + phi): 1 + phi trials each.
    # 5 models x 200 questions x 3 grades: 400 degrees of freedom per model, the Pearson
    # dispersion's relative sd about sqrt(2 / 400) = 7%: within 25% of the truth
    rng = np.random.default_rng(int(phi))
    p = rng.beta(2.0, 2.0, (5, 200)) * 0.9 + 0.05
    n = grade_trials(_grades(rng, p, phi, 3))
    np.testing.assert_allclose(n, 1 + phi, rtol=0.25)


def test_one_grade_per_question_reads_the_board():
    # a Rasch board (no interaction): the two-way fit's residuals identify the dispersion
    rng = np.random.default_rng(1)
    theta, b = rng.normal(0.5, 1.0, 12), rng.normal(0.0, 1.5, 150)
    p = 1 / (1 + np.exp(-(theta[:, None] - b[None, :])))
    n = grade_trials(_grades(rng, p, 8.0, 1))
    assert n.shape == (12,) and np.all(n == n[0])
    np.testing.assert_allclose(n[0], 9.0, rtol=0.25)


def test_binary_grades_missing_grades_and_one_model():
    rng = np.random.default_rng(2)
    p = rng.random((4, 50))
    binary = (rng.random((4, 50, 3)) < p[..., None]).astype(float)
    np.testing.assert_array_equal(grade_trials(binary), 1.0)  # exact, not an estimate
    one = _grades(rng, p[0], 8.0, 1)  # one model, one grade each: nothing identifies it
    assert grade_trials(one) == 1.0
    constant = np.full((30, 3), 0.5)  # a deterministic grader: as many trials as allowed
    assert grade_trials(constant) == GRADE_TRIALS_MAX
    g = _grades(rng, p, 8.0, 3)
    g[:, ::2, 1:] = np.nan  # half the questions with one grade: the others still inform
    assert np.all(grade_trials(g) > 4)


def test_the_posterior_counts_each_grade_as_its_trials():
    rng = np.random.default_rng(3)
    p = rng.beta(2.0, 2.0, 60) * 0.9 + 0.05
    G = _grades(rng, p, 8.0, 2)
    post = be.posterior(G, fractional=True, prior="uniform")
    n = float(post.grade_trials)
    # the uniform prior's closed form with n G and n (1 - G) as the counts
    s = n * G.sum(axis=1)
    f = n * (1 - G).sum(axis=1)
    np.testing.assert_allclose(post.mean, np.mean((s + 1) / (s + f + 2)), rtol=1e-12)
    assert post.to_dict()["grade_trials"] == pytest.approx(n)


@pytest.mark.slow
def test_one_model_with_repeated_grades_is_honest():
    # 60 runs per cell: coverage within 0.85-1 and sd/RMSE within 0.75-1.35 for every spread
    # (each grade counted as one trial gave sd/RMSE 2.0-9.6 here)
    for phi in (2.0, 30.0):
        rng = np.random.default_rng(int(phi))
        hit, err, sd = [], [], []
        for _ in range(60):
            p = rng.beta(2.0, 2.0, 60) * 0.9 + 0.05
            post = be.posterior(_grades(rng, p, phi, 3), fractional=True)
            lo, hi = post.interval()
            hit.append(lo <= p.mean() <= hi)
            err.append(post.mean - p.mean())
            sd.append(post.sd)
        ratio = np.mean(sd) / np.sqrt(np.mean(np.square(err)))
        assert np.mean(hit) >= 0.85 and 0.75 <= ratio <= 1.35, (phi, np.mean(hit), ratio)
