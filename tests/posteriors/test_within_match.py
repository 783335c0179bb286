"""The rubric prior's concentration matched to the score's within-question variance.

``bayes_eval.posteriors.prior_fit._match_within`` (through ``fit_prior(..., w=)``), checked
against a brute-force computation over the individual trials, for what it must leave alone,
and for the calibration it exists for.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.special import ndtri

from bayes_eval.posteriors.intervals import mixture_moments
from bayes_eval.posteriors.posterior import posterior, sums_moments, total_sums
from bayes_eval.posteriors.priors import Prior, fit_prior

W3 = np.array([0.0, 0.5, 1.0])


def _bimodal_rubric(rng, shape, n):
    """Counts of a three-level rubric whose questions are easy or hard (two modes)."""
    easy = rng.random(shape) < 0.5
    lean = np.array([0.2, 1.6, 3.0])
    a_easy = 1.5 * lean / lean.sum() * 3
    pi = np.where(
        easy[..., None],
        rng.dirichlet(a_easy, size=shape),
        rng.dirichlet(a_easy[::-1], size=shape),
    )
    return pi, rng.multinomial(n, pi)


def _trials(counts_row):
    """The individual trials' scores of one question (brute force, from its counts)."""
    return np.repeat(W3, counts_row.astype(int))


@pytest.mark.parametrize("n", [3, 8])
def test_mode_moves_to_the_within_variance_by_the_stated_weight(n):
    # the concentration of the moved mode must satisfy log k' = log k_hat + delta with
    # delta = omega sign(g) max(|g| - se / 2, 0), g = log k_W - log k_hat, k_W from the
    # trials' own sample variances (np.var, ddof=1, trial by trial), se its delta-method
    # standard error, omega = M2 / (M2 + 5) min(1, 4 / N); beta is unchanged
    rng = np.random.default_rng(3)
    _, counts = _bimodal_rubric(rng, (1, 60), n)
    counts = counts.astype(float)
    counts[0, :7] = rng.multinomial(1, [0.3, 0.4, 0.3], size=7)  # seven single-trial questions
    base = fit_prior(counts, integrated=False)
    moved = fit_prior(counts, integrated=False, w=W3)
    s2 = np.array([np.var(_trials(q), ddof=1) for q in counts[0] if q.sum() >= 2])
    beta = base.alpha[0] / base.alpha[0].sum()
    v_beta = beta @ W3**2 - (beta @ W3) ** 2
    r = s2.mean() / v_beta
    se = np.std(s2, ddof=1) / np.sqrt(s2.size) / v_beta / (r * (1 - r))
    gap = np.log(r / (1 - r)) - np.log(base.alpha[0].sum())
    omega = s2.size / (s2.size + 5) * min(1.0, 4 / n)
    delta = omega * np.sign(gap) * max(abs(gap) - se / 2, 0.0)
    expected = base.alpha[0].sum() * np.exp(delta)
    assert moved.alpha[0].sum() == pytest.approx(expected, rel=1e-10)
    np.testing.assert_allclose(moved.alpha[0] / moved.alpha[0].sum(), beta, rtol=1e-12)
    assert gap < -se / 2  # bimodal categories: the likelihood's kappa is too large


def test_nodes_keep_their_means_and_weights():
    rng = np.random.default_rng(4)
    _, counts = _bimodal_rubric(rng, (2, 30), 3)
    base = fit_prior(counts)
    moved = fit_prior(counts, w=W3)
    np.testing.assert_array_equal(moved.weights, base.weights)
    np.testing.assert_allclose(
        moved.nodes / moved.nodes.sum(-1, keepdims=True),
        base.nodes / base.nodes.sum(-1, keepdims=True),
        rtol=1e-12,
    )
    # each group's nodes move by one factor at the mode and spread no less in log kappa
    lk_b, lk_m = np.log(base.nodes.sum(-1)), np.log(moved.nodes.sum(-1))
    sd_b = np.sqrt((base.weights * (lk_b - np.log(base.alpha.sum(-1))) ** 2).sum(0))
    sd_m = np.sqrt((moved.weights * (lk_m - np.log(moved.alpha.sum(-1))) ** 2).sum(0))
    assert np.all(sd_m >= sd_b * (1 - 1e-12))
    assert np.all(sd_m <= 3 * sd_b * (1 + 1e-12))


@pytest.mark.parametrize(
    "case", ["binary", "one trial", "nine repeated", "no weights", "one score for all"]
)
def test_left_alone_where_the_moment_says_nothing(case):
    rng = np.random.default_rng(5)
    _, counts = _bimodal_rubric(rng, (1, 30), 3)
    w = W3
    if case == "binary":
        counts = np.stack([counts[..., 0], counts[..., 1:].sum(-1)], axis=-1)
        w = np.array([0.0, 1.0])
    elif case == "one trial":
        counts = rng.multinomial(1, [0.3, 0.3, 0.4], size=(1, 30))
    elif case == "nine repeated":
        counts = counts.copy()
        counts[0, 9:] = rng.multinomial(1, [0.3, 0.3, 0.4], size=21)
    elif case == "one score for all":
        w = np.array([0.5, 0.5, 0.5])
    base = fit_prior(counts)
    moved = fit_prior(counts, w=None if case == "no weights" else w)
    np.testing.assert_array_equal(moved.nodes, base.nodes)
    np.testing.assert_array_equal(moved.alpha, base.alpha)


def test_plug_in_is_the_integrated_fits_mode():
    # one fit serves both forms: the plug-in prior of a rubric moves as the integrated one's
    # mode, its covariance too (the widening reads the Laplace sd, not the nodes' spread)
    rng = np.random.default_rng(9)
    _, counts = _bimodal_rubric(rng, (2, 40), 3)
    integrated = fit_prior(counts, w=W3)
    plug = fit_prior(counts, integrated=False, w=W3)
    np.testing.assert_allclose(plug.alpha, integrated.alpha, rtol=1e-12)
    np.testing.assert_allclose(plug.log_alpha_cov, integrated.log_alpha_cov, rtol=1e-12)
    np.testing.assert_allclose(integrated.plug_in().nodes, plug.nodes, rtol=1e-12)
    assert not np.allclose(plug.alpha, fit_prior(counts, integrated=False).alpha)


def test_pooled_groups_and_the_scale_of_the_weights():
    # pool="benchmark" reads the moment of all models' questions together; the move does not
    # depend on the rubric's scale or origin (a ratio of variances)
    rng = np.random.default_rng(10)
    _, counts = _bimodal_rubric(rng, (2, 20), 3)
    pooled = fit_prior(counts, pool="benchmark", w=W3)
    assert pooled.alpha.shape[0] == 1
    assert pooled.alpha.sum() != pytest.approx(fit_prior(counts, pool="benchmark").alpha.sum())
    for w in (W3 * 1e-7, 5.0 + 3.0 * W3):
        np.testing.assert_allclose(fit_prior(counts, w=w).nodes, fit_prior(counts, w=W3).nodes)


def test_moment_standard_error_against_monte_carlo():
    # the delta-method sd of log kappa_W against its spread over 400 fresh benchmarks of the
    # same population (M = 60, N = 3); a sd estimated from 400 draws is within 10% (3.5 s.e.)
    from bayes_eval.posteriors.prior_fit import _within_moment

    rng = np.random.default_rng(12)
    _, counts = _bimodal_rubric(rng, (400, 60), 3)
    beta = np.full((400, 3), 1.0 / 3.0)
    mom = _within_moment(counts.astype(float), W3, beta)
    assert mom.active.all() and not (mom.low | mom.high).any()
    ratio = np.std(mom.log_kappa, ddof=1) / np.mean(mom.se_log)
    assert 0.85 <= ratio <= 1.15, ratio  # measured 1.05


def test_agreeing_trials_bounded_moments_and_discounted_runs_do_not_move_it():
    rng = np.random.default_rng(11)
    # every question's trials agree: no estimate of the moment's noise
    same = np.zeros((1, 30, 3))
    same[0, np.arange(30), rng.integers(0, 3, 30)] = 4
    np.testing.assert_array_equal(fit_prior(same, w=W3).nodes, fit_prior(same).nodes)
    # questions all alike (kappa far above the moment's bound): no move towards the bound
    alike = rng.multinomial(4, [0.3, 0.4, 0.3], size=(1, 400)).astype(float)
    base, moved = fit_prior(alike), fit_prior(alike, w=W3)
    assert moved.alpha.sum() >= base.alpha.sum() * (1 - 1e-12)
    # discounted earlier runs make fractional counts, whose trials are not known
    _, counts = _bimodal_rubric(rng, (1, 30), 3)
    mixed = counts + 0.5 * rng.multinomial(2, [0.3, 0.4, 0.3], size=(1, 30))
    np.testing.assert_array_equal(fit_prior(mixed, w=W3).nodes, fit_prior(mixed).nodes)


def test_counts_and_weights_are_not_modified():
    rng = np.random.default_rng(6)
    _, counts = _bimodal_rubric(rng, (1, 20), 3)
    c0, w0 = counts.copy(), W3.copy()
    fit_prior(counts, w=W3)
    np.testing.assert_array_equal(counts, c0)
    np.testing.assert_array_equal(W3, w0)


@pytest.mark.parametrize("w", [[0.0, 1.0], [0.0, np.nan, 1.0], "abc"])
def test_bad_weights_raise(w):
    counts = np.ones((10, 3))
    with pytest.raises(ValueError, match="rubric weights"):
        fit_prior(counts, w=w)
    with pytest.raises(ValueError, match="rubric weights"):  # binary results check them too
        fit_prior(np.ones((10, 2)), w="abc")


def test_every_surface_uses_it():
    # posterior() of rubric results reads the moved prior: its sd is the node mixture's
    rng = np.random.default_rng(7)
    pi = rng.dirichlet([0.5, 0.5, 0.5], size=25)
    R = np.stack([rng.choice(3, size=4, p=p) for p in pi])
    post = posterior(R, W3)
    counts = np.stack([(R == k).sum(-1) for k in range(3)], axis=-1)[None]
    fit = Prior("empirical", pool="model").fit(counts, w=W3)
    assert fit.alpha.sum() != pytest.approx(
        Prior("empirical", pool="model").fit(counts).alpha.sum()
    )
    mu, sd = sums_moments(total_sums(counts, W3), fit.nodes, W3)
    m, s = mixture_moments(mu, sd, fit.weights)
    assert float(post.mean) == pytest.approx(float(m[0]), rel=1e-10)
    assert float(post.sd) == pytest.approx(float(s[0]), rel=1e-10)


def _coverage(counts, truth, w, moved):
    fit = Prior("empirical", pool="model").fit(counts, w=w if moved else None)
    mu, sd = mixture_moments(*sums_moments(total_sums(counts, w), fit.nodes, w), fit.weights)
    z = float(ndtri(0.975))
    return np.mean(np.abs(mu - truth) <= z * sd), sd.mean() / np.sqrt(np.mean((mu - truth) ** 2))


def test_bimodal_rubric_intervals_are_honest():
    # 600 one-model benchmarks of M = 100 questions, N = 4 trials, bimodal categories:
    # coverage's Monte Carlo s.e. is 0.009, so [0.93, 0.975] holds a true 0.95 with room;
    # the likelihood's concentration alone errs wide (sd/RMSE about 1.2, measured)
    rng = np.random.default_rng(8)
    pi, counts = _bimodal_rubric(rng, (600, 100), 4)
    truth = (pi @ W3).mean(-1)
    cover, ratio = _coverage(counts, truth, W3, moved=True)
    assert 0.93 <= cover <= 0.975
    assert 0.9 <= ratio <= 1.1
    cover0, ratio0 = _coverage(counts, truth, W3, moved=False)
    assert cover0 > 0.965  # measured 0.975
    assert ratio0 > 1.12  # measured 1.20 (with the step: 0.952, 1.06)


@pytest.mark.parametrize(
    ("scenario", "c", "m", "n"),
    [
        ("beta_mixture", 2, 30, 2),
        ("beta_mixture", 3, 30, 4),
        ("clustered", 2, 30, 4),
        ("clustered", 3, 100, 2),
        ("u_shaped", 2, 30, 2),
        ("uniform", 2, 30, 2),
        ("uniform", 2, 100, 4),
    ],
)
def test_rubric_scenarios_are_honest(scenario, c, m, n):
    # the coverage study's own scenarios (bayes_eval.validation.coverage.draw_pi), 600
    # replicates each (coverage s.e. 0.009): coverage 0.925-0.975 (3 s.e. of 0.95 on the low
    # side) and sd/RMSE 0.9-1.15, where the likelihood's concentration alone gave up to
    # 0.988 / 1.37 (two kinds) and the uniform world must not lose what it had
    from bayes_eval.validation.coverage import CoverageConfig, draw_pi

    rng = np.random.default_rng([21, c, m, n])
    w = np.linspace(0.0, 1.0, c + 1)
    pi = draw_pi(scenario, (600, m), c + 1, rng, CoverageConfig())
    counts = rng.multinomial(n, pi)
    cover, ratio = _coverage(counts, (pi @ w).mean(-1), w, moved=True)
    assert 0.925 <= cover <= 0.975, (cover, ratio)
    assert 0.9 <= ratio <= 1.15, (cover, ratio)
