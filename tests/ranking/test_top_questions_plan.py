"""``plan_top_questions``: more questions until the claims on new questions name the top-k set.

Checked against independent computations: the decision rule against ``compare_pairs`` (today,
and on a board of more questions with the same pair statistics), the law of the population
means against the precision form of the normal posterior, the claims against ``fdr_claims``
simulation by simulation, and P(today's set is the top set) against direct draws.
"""

from __future__ import annotations

import numpy as np
import pytest
import xarray as xr

from bayes_eval.ranking import questions_plan as qp
from bayes_eval.ranking.claims import fdr_claims
from bayes_eval.ranking.difference_prior import TAU_NODES
from bayes_eval.ranking.paired import compare_pairs, question_scores


def _board(seed, shifts, m=40, trials=1):
    rng = np.random.default_rng(seed)
    p = rng.random((1, m, 1)) + np.asarray(shifts)[:, None, None]
    values = (rng.random((len(shifts), m, trials)) < np.clip(p, 0, 1)).astype(float)
    return xr.DataArray(values, dims=("model", "question", "trial"))


def _rule(values, prior):
    scores = question_scores(values, None)
    rule = qp._top_rule(values, scores, prior)
    label = compare_pairs(values, prior=prior, independent=False).prior
    return scores, rule, label


@pytest.mark.parametrize(
    ("trials", "prior", "tol"),
    [
        (1, "empirical", 1e-12),
        (1, "uniform", 1e-12),
        (1, "jeffreys", 1e-12),
        (3, "empirical", 1e-12),
        # means of three trials under a fixed prior: the plan's normal law with the exact
        # moments, compare_pairs' inversion of the characteristic function (the largest gap
        # over 30 seeds x 2-4 trials x uniform and Jeffreys at M = 40: 0.019)
        (3, "uniform", 0.02),
    ],
)
def test_todays_decision_is_compare_pairs(trials, prior, tol):
    """With no new question the plan's rule gives the paired matrix `rank --estimand
    new-questions` prints, and the plan states its prior's label."""
    R = _board(1, [0.1, 0.05, 0.0, -0.05], trials=trials)
    scores, rule, label = _rule(R.values, prior)
    mean = scores.mean(axis=1)
    got = rule.prob((mean[rule.i] - mean[rule.j])[None], 40)[0]
    now = compare_pairs(R.values, prior=prior, independent=False)
    np.testing.assert_allclose(got, now.paired[rule.i, rule.j], rtol=0, atol=tol)
    assert qp.plan_top_questions(R, pair_prior=prior, simulations=200).prior == label


@pytest.mark.parametrize("prior", ["uniform", "jeffreys"])
def test_decision_after_more_questions_is_compare_pairs(prior):
    """Three times today's questions keep every pair's mean difference and share discordant:
    the rule at n = 3M is compare_pairs on that board (a fixed prior: nothing re-learned)."""
    values = _board(2, [0.1, 0.05, 0.0, -0.05]).values
    scores, rule, _ = _rule(values, prior)
    mean = scores.mean(axis=1)
    got = rule.prob((mean[rule.i] - mean[rule.j])[None], 120)[0]
    tripled = np.concatenate([values] * 3, axis=1)
    want = compare_pairs(tripled, prior=prior, independent=False).paired[rule.i, rule.j]
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)


def test_law_of_the_means_is_the_normal_posterior():
    """Given tau: the covariance form with a wide grand-mean prior against the precision form
    with a flat one, Lambda = M S^-1 + (2 / tau^2) (I - J / L), mean Lambda^-1 M S^-1 m
    (to 1e-6: the grand mean's prior variance is 1e4, not infinite)."""
    values = _board(3, [0.1, 0.05, 0.0, -0.05, -0.1], m=50, trials=4).values
    scores, rule, _ = _rule(values, "empirical")
    law = qp._TopQuestions(scores, rule, 1, 0.05, 10, np.random.default_rng(0))
    S, m_hat, n_models = np.cov(scores), scores.mean(axis=1), 5
    centre = np.eye(n_models) - 1.0 / n_models
    for tau in (0.01, 0.05, 0.3):
        precision = 50 * np.linalg.inv(S) + (2.0 / tau**2) * centre
        cov = np.linalg.inv(precision)
        mean = cov @ (50 * np.linalg.solve(S, m_hat))
        got_mean, got_cov = law._posterior(tau)
        np.testing.assert_allclose(got_mean, mean, rtol=0, atol=1e-6)
        np.testing.assert_allclose(got_cov, cov, rtol=0, atol=1e-6 * np.abs(cov).max())
    flat_mean, flat_cov = law._posterior(None)
    np.testing.assert_allclose(flat_cov, S / 50, rtol=1e-12)
    assert np.array_equal(flat_mean, m_hat)


@pytest.mark.parametrize(("prior", "top"), [("empirical", 1), ("jeffreys", 2), ("uniform", 1)])
def test_claims_are_fdr_claims_simulation_by_simulation(prior, top):
    """Whether the claims after K questions name the top-k set: the vectorised check against
    fdr_claims on each simulated matrix, the set read from each simulated board's means, on a
    board with two tied models (ties in P, and in the means, are no claim)."""
    values = _board(4, [0.1, 0.05, 0.05, 0.0, -0.05], m=30).values
    values[2] = values[1]  # two identical models
    scores, rule, _ = _rule(values, prior)
    law = qp._TopQuestions(scores, rule, top, 0.05, 300, np.random.default_rng(1))
    for k in (0, 20, 200):
        got = law.claimed(k)
        n = 30 + k
        means = (30 * law.mean + k * law.mu + np.sqrt(k) * law.noise) / n
        for s in range(300):
            d = means[s, rule.i] - means[s, rule.j]
            p = np.full((5, 5), 0.5)
            p[rule.i, rule.j] = rule.prob(d[None], n)[0]
            p[rule.j, rule.i] = 1.0 - p[rule.i, rule.j]
            claims = fdr_claims(p, 0.05)
            made = set(zip(claims.better.tolist(), claims.worse.tolist(), strict=True))
            best = np.argsort(-means[s], kind="stable")
            want = all((a, b) in made for a in best[:top] for b in best[top:])
            assert got[s] == want, (k, s)


def test_prob_top_set_matches_direct_draws():
    """P(today's set is the top set on new questions): against 2000 draws of tau from its
    weights and of the means from the precision-form posterior (4 Monte Carlo sds)."""
    R = _board(5, [0.1, 0.08, 0.0, -0.05])
    plan = qp.plan_top_questions(R, top=2, simulations=2000, seed=3)
    values = R.values
    scores, rule, _ = _rule(values, "empirical")
    rng = np.random.default_rng(9)
    S, m_hat = np.cov(scores), scores.mean(axis=1)
    centre = np.eye(4) - 0.25
    taus = rng.choice(TAU_NODES, size=2000, p=rule.tau_weights / rule.tau_weights.sum())
    hits = 0
    for tau in taus:
        cov = np.linalg.inv(40 * np.linalg.inv(S) + (2.0 / tau**2) * centre)
        mu = rng.multivariate_normal(cov @ (40 * np.linalg.solve(S, m_hat)), cov)
        hits += set(np.argsort(-mu)[:2].tolist()) == set(plan.members)
    p = hits / 2000
    assert abs(p - plan.prob_top_set) <= 4 * np.sqrt(2 * p * (1 - p) / 2000), (p, plan)


def test_already_claimed_reports_the_weakest_ordering():
    R = _board(0, [0.4, 0.0, -0.1], m=60)
    plan = qp.plan_top_questions(R, top=1, simulations=300)
    prob = compare_pairs(R.values, prior="empirical", independent=False).paired
    claims = fdr_claims(np.where(np.isnan(prob), 0.5, prob), 0.05)
    made = set(zip(claims.better.tolist(), claims.worse.tolist(), strict=True))
    assert plan.claimed_now and plan.extra_questions == 0 and plan.m_required == 60
    assert {(0, 1), (0, 2)} <= made
    assert plan.weakest == pytest.approx(min(prob[0, 1], prob[0, 2]), abs=1e-15)
    assert plan.note is None and plan.assurance_at_required == 1.0


def test_more_assurance_needs_more_questions_and_input_is_kept():
    R = _board(3, [0.15, 0.05, 0.0, -0.05])
    before = R.copy(deep=True)
    low = qp.plan_top_questions(R, top=1, assurance=0.6, simulations=1000, seed=4)
    high = qp.plan_top_questions(R, top=1, assurance=0.9, simulations=1000, seed=4)
    assert low.m_required < high.m_required
    assert high.assurance_at_required >= 0.9 and low.assurance_at_required >= 0.6
    assert high.note == qp.TOP_QUESTIONS_NOTE and high.estimand == "new questions"
    xr.testing.assert_identical(R, before)


def test_two_models_and_identical_models():
    """Two models: the top-1 plan is the pair's. Identical models are never claimed apart, so
    no number of questions names a top set, and the plan is not sure of today's (their
    contrasts have no spread: rounding orders them)."""
    R = _board(6, [0.1, 0.0])
    plan = qp.plan_top_questions(R, top=1, simulations=500)
    assert plan.members == (0,) and (plan.claimed_now or plan.m_required > 40)
    same = _board(6, [0.0, 0.0, 0.0], m=30)
    same[1] = same[0]
    same[2] = same[0]
    plan = qp.plan_top_questions(same, top=2, max_questions=200, simulations=300)
    assert plan.m_required is None and "even 200 questions" in plan.reason
    assert plan.prob_top_set < 0.5


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"top": 3}, "top is 3; expected an integer from 1 to 2"),
        ({"top": 0}, "top is 0"),
        ({"fdr": 0.0}, "fdr is 0.0"),
        ({"assurance": 1.0}, "assurance is 1.0"),
        ({"simulations": 0}, "simulations is 0"),
        ({"max_questions": 40, "assurance": 0.99}, "max_questions is 40"),
    ],
)
def test_bad_input_is_refused(kwargs, match):
    R = _board(3, [0.15, 0.05, 0.0])
    with pytest.raises(ValueError, match=match):
        qp.plan_top_questions(R, simulations=kwargs.pop("simulations", 200), **kwargs)


def test_missing_answers_are_refused():
    R = _board(3, [0.15, 0.05, 0.0])
    R[0, 3, 0] = np.nan
    with pytest.raises(ValueError, match="every model on every question"):
        qp.plan_top_questions(R)
    with pytest.raises(ValueError, match="at least two"):
        qp.plan_top_questions(R[:1])


def _rubric(seed, shifts, m=40, trials=2):
    rng = np.random.default_rng(seed)
    p = np.clip(rng.random((1, m, 1)) + np.asarray(shifts)[:, None, None], 0.05, 0.95)
    u = rng.random((len(shifts), m, trials))
    return xr.DataArray(
        (u < p).astype(float) + (u < p * p), dims=("model", "question", "trial")
    )  # categories 0, 1, 2


@pytest.mark.parametrize("prior", ["empirical", "uniform"])
def test_rubric_and_graded_scores(prior):
    """Rubric categories with weights and graded scores counted fractionally: today's rule is
    compare_pairs' matrix with the same weights (learned prior: to 1e-12; fixed: the normal law
    of the exact moments, within 0.02), under its label, and a plan is made."""
    w = (0.0, 0.5, 1.0)
    R = _rubric(8, [0.15, 0.05, 0.0])
    for values, kw in ((R.values, {"w": w}), (R.values / 2.0, {"fractional": True})):
        scores = question_scores(values, kw.get("w"), fractional=kw.get("fractional", False))
        rule = qp._top_rule(values, scores, prior)
        mean = scores.mean(axis=1)
        got = rule.prob((mean[rule.i] - mean[rule.j])[None], 40)[0]
        now = compare_pairs(values, prior=prior, independent=False, **kw)
        tol = 1e-12 if prior == "empirical" else 0.02  # fixed prior: the normal law (above)
        np.testing.assert_allclose(got, now.paired[rule.i, rule.j], rtol=0, atol=tol)
        da = xr.DataArray(values, dims=("model", "question", "trial"))
        plan = qp.plan_top_questions(da, top=1, pair_prior=prior, simulations=300, **kw)
        assert plan.prior == now.prior and plan.m_now == 40
        decision = "learned normal prior" if prior == "empirical" else "exact moments"
        assert decision in plan.decision
        if not plan.claimed_now:
            assert plan.assurance_at_required >= 0.8 and plan.note == qp.TOP_QUESTIONS_NOTE


def test_learned_graded_rule_keeps_equal_differences_flat():
    """A pair whose differences are all equal (model 1 a copy of model 0: every difference 0)
    has no spread: the learned prior leaves it to the flat law (P = 1/2, as compare_pairs
    gives), and the other pairs agree with compare_pairs to 1e-12."""
    rng = np.random.default_rng(3)
    p = rng.random((1, 30, 1)) + np.array([0.0, 0.0, 0.15])[:, None, None]
    values = (rng.random((3, 30, 4)) < np.clip(p, 0, 1)).astype(float)
    values[1] = values[0]
    scores = question_scores(values, None)
    rule = qp._top_rule(values, scores, "empirical")
    mean = scores.mean(axis=1)
    got = rule.prob((mean[rule.i] - mean[rule.j])[None], 30)[0]
    want = compare_pairs(values, prior="empirical", independent=False).paired[rule.i, rule.j]
    assert rule.s2[0] == 0 and got[0] == 0.5 == want[0]
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)


def test_blocks_of_simulations_change_nothing(monkeypatch):
    """The rule runs in blocks of simulations (memory): blocks of one give the same claims."""
    values = _rubric(9, [0.1, 0.05, 0.0, -0.05]).values
    scores = question_scores(values, (0.0, 0.5, 1.0))
    rule = qp._top_rule(values, scores, "empirical")
    law = qp._TopQuestions(scores, rule, 1, 0.05, 200, np.random.default_rng(0))
    whole = [law.claimed(k) for k in (10, 100)]
    monkeypatch.setattr(qp, "_BLOCK_BYTES", 1.0)
    assert qp._block(6) == 1
    for k, want in zip((10, 100), whole, strict=True):
        assert np.array_equal(law.claimed(k), want)


def test_one_question_is_refused():
    with pytest.raises(ValueError, match="needs at least two"):
        qp.plan_top_questions(_board(3, [0.1, 0.0], m=1))
