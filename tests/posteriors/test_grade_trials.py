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


def _by_hand(G):
    """grade_trials of one model's (M, N) grades, question by question (loops, no arrays)."""
    from scipy.special import ndtri, stdtrit

    dev = var = v_sq = 0.0
    v_sum = 0.0
    for row in G:
        k = len(row) - 1
        m = sum(row) / len(row)
        d_q = sum((x - m) ** 2 for x in row)
        v_q = k * m * (1 - m) + d_q / len(row)
        dev, var = dev + d_q, var + v_q
        v_sum, v_sq = v_sum + v_q, v_sq + v_q**2 / k
    d = v_sum**2 / v_sq
    return min(1.0 / (dev / var * (stdtrit(d, 0.975) / ndtri(0.975)) ** 2), GRADE_TRIALS_MAX), d


def test_grade_trials_widens_by_students_t_on_satterthwaites_df():
    rng = np.random.default_rng(11)
    p = rng.beta(2.0, 2.0, 25)
    G = _grades(rng, p, 8.0, 3)
    want, d = _by_hand(G)
    assert 30 < d < 50  # 25 questions x 2 df each, unequal weights
    assert grade_trials(G) == pytest.approx(want, rel=1e-12)
    # questions solved or missed by every grade show no spread: they change nothing
    G2 = np.vstack([G, np.zeros((40, 3)), np.ones((10, 3))])
    assert grade_trials(G2) == pytest.approx(want, rel=1e-12)


def test_few_questions_with_spread_count_as_few_degrees_of_freedom():
    # real rates: 27 of 30 questions always solved or always missed, 3 graded twice. The
    # plug-in 1 / phi-hat counts each grade as its ~9 trials on 3 degrees of freedom at most;
    # the t on d <= 3 widens the dispersion at least 2.6-fold (t_3 / z squared = 2.64)
    rng = np.random.default_rng(12)
    G = np.vstack([np.zeros((17, 2)), np.ones((10, 2)), _grades(rng, np.full(3, 0.5), 8.0, 2)])
    want, d = _by_hand(G[-3:])
    assert 1.0 < d <= 3.0 + 1e-9
    assert grade_trials(G) == pytest.approx(want, rel=1e-12)
    m = G[-3:].mean(axis=1)
    dev = ((G[-3:] - m[:, None]) ** 2).sum(axis=1)
    plug_in = (m * (1 - m) + dev / 2).sum() / dev.sum()
    assert grade_trials(G) <= max(1.0, plug_in / 2.6)
    # one question with spread: one degree of freedom, t_1 widens 42-fold: one trial a grade
    assert grade_trials(G[:-2]) == 1.0


def test_moderation_is_smyths_fit_of_the_log_dispersions():
    # d0 and phi0 from the moments of log phi-hat (Smyth 2004, §6.2), recomputed with a root
    # finder on trigamma instead of the package's Newton steps
    from scipy.optimize import brentq
    from scipy.special import digamma, polygamma

    from bayes_eval.inputs import _moderated

    raw = np.array([0.02, 0.15, 0.11, 0.5, 0.05, 0.3])
    d = np.array([8.0, 9.0, 5.5, 6.0, 12.0, 7.0])
    e = np.log(raw) - digamma(d / 2) + np.log(d / 2)
    excess = e.var(ddof=1) - polygamma(1, d / 2).mean()
    assert excess > 0
    d0 = 2 * brentq(lambda y: polygamma(1, y) - excess, 1e-6, 1e6)
    phi0 = np.exp(e.mean() + digamma(d0 / 2) - np.log(d0 / 2))
    phi, df = _moderated(raw, d)
    np.testing.assert_allclose(phi, (d0 * phi0 + d * raw) / (d0 + d), rtol=1e-9)
    np.testing.assert_allclose(df, np.minimum(d0 + d, d.sum()), rtol=1e-9)
    assert _moderated(raw[:2], d[:2]) is None  # two models: nothing to moderate with
    # dispersions that agree beyond their chi-square noise pool fully, on the board's df
    same = np.full(6, 0.1) * np.exp(digamma(d / 2) - np.log(d / 2))
    phi, df = _moderated(same, d)
    np.testing.assert_allclose(phi, 0.1, rtol=1e-12)
    np.testing.assert_array_equal(df, d.sum())


def test_a_board_sharing_its_grader_pools_the_dispersion():
    # 12 models of real-rate-like boards (most questions solved by every grade or by none),
    # one grader of precision 8: each model alone has a few degrees of freedom and its t
    # widens a lot; moderated, every model's trials come within 30% of the truth (9)
    rng = np.random.default_rng(13)
    p = rng.choice([0.0, 1.0, 0.25, 0.5, 0.75], (12, 30), p=[0.4, 0.4, 0.07, 0.06, 0.07])
    inner = np.clip(p, 0.01, 0.99)
    G = np.where(np.isin(p, (0.0, 1.0))[..., None], p[..., None], _grades(rng, inner, 8.0, 2))
    pooled = grade_trials(G)
    alone = np.array([grade_trials(g) for g in G])
    np.testing.assert_allclose(pooled, 9.0, rtol=0.3)
    assert np.median(alone) < 0.8 * np.median(pooled)
    # graders of very different precision stay apart
    G3 = np.concatenate(
        [_grades(rng, np.full((4, 60), 0.5), 2.0, 3), _grades(rng, np.full((4, 60), 0.5), 60.0, 3)]
    )
    n3 = grade_trials(G3)
    assert np.all(n3[:4] < 6) and np.all(n3[4:] > 25), n3


def test_moderation_leaves_out_binary_models_and_keeps_a_constant_graders_evidence():
    rng = np.random.default_rng(14)
    G = _grades(rng, rng.beta(2.0, 2.0, (8, 40)), 8.0, 2)
    base = grade_trials(G)
    # an all-or-nothing model: one trial a grade, and the others' moderation unchanged
    binary = (rng.random((1, 40, 2)) < 0.5).astype(float)
    with_binary = grade_trials(np.concatenate([G, binary]))
    assert with_binary[-1] == 1.0
    np.testing.assert_allclose(with_binary[:-1], base, rtol=1e-12)
    # a grader constant within every question (phi-hat = 0 on its degrees of freedom) stays
    # out of the fit and moves towards the board's dispersion by its own evidence
    from scipy.optimize import brentq
    from scipy.special import digamma, polygamma

    from bayes_eval.inputs import _moderated

    raw = np.array([0.02, 0.15, 0.11, 0.5, 0.05, 0.0])
    d = np.array([8.0, 9.0, 5.5, 6.0, 12.0, 7.0])
    e = np.log(raw[:5]) - digamma(d[:5] / 2) + np.log(d[:5] / 2)
    excess = e.var(ddof=1) - polygamma(1, d[:5] / 2).mean()
    d0 = 2 * brentq(lambda y: polygamma(1, y) - excess, 1e-6, 1e6)
    phi0 = np.exp(e.mean() + digamma(d0 / 2) - np.log(d0 / 2))
    phi, df = _moderated(raw, d)
    assert phi[-1] == pytest.approx(d0 * phi0 / (d0 + 7.0), rel=1e-9)
    assert df[-1] == pytest.approx(min(d0 + 7.0, d.sum()), rel=1e-9)
