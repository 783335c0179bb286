"""Planning more questions (issue 41): ``plan_questions`` against a brute-force preposterior
simulation decided by the exact paired probability, its limit, the board's numbers, and bad
input."""

from __future__ import annotations

import numpy as np
import pytest
import xarray as xr

from bayes_eval.ranking.paired import compare_pairs, paired_probability, question_scores
from bayes_eval.ranking.paired_exact import _levels
from bayes_eval.ranking.questions_plan import plan_new_questions, plan_questions


def _brute(d: np.ndarray, k: int, conf: float, futures: int, seed: int) -> float:
    """Share of futures, drawn independently of the plan's engine, whose exact paired
    probability (Imhof, or Beta for binary) after ``k`` more questions reaches ``conf``:
    pi ~ Dir(counts + prior) on the values, k new differences ~ Categorical(pi), then
    ``paired_probability`` on all the questions. The prior is the uniform Dirichlet(1, 1, 1,
    1) of the binary table (its two concordant cells, a difference of 0, merged: mass 2) or
    the Bayesian bootstrap's uniform corners (mass 1 at each of +-1)."""
    rng = np.random.default_rng(seed)
    binary = bool(np.all(np.isin(d, (-1.0, 0.0, 1.0))))
    levels, counts = _levels(np.concatenate([d, [-1.0, 0.0, 1.0] if binary else [-1.0, 1.0]]))
    if binary:  # masses 1, 2, 1 at -1, 0, +1 (counts hold one of each)
        counts = counts + (levels == 0.0)
    hits = 0
    for _ in range(futures):
        pi = rng.dirichlet(counts.astype(float))
        new = rng.choice(levels, size=k, p=pi)
        dd = np.concatenate([d, new])
        a = np.where(dd >= 0, 1.0, 1.0 + dd)  # scores with a - b = dd, both in [0, 1]
        hits += paired_probability(a, a - dd) >= conf
    return hits / futures


def test_a_strong_split_prior_shrinks_the_split_not_the_discordance():
    """Under corner masses (20, 20) -- a learned split prior of kappa = 40 -- the new questions
    are discordant as often as the data say (share ~ Beta(2 + n_disc, 2 + n_0)), their split
    drawn from Beta(20 + n_+, 20 + n_-): the assurance re-estimated by 4000 futures drawn so,
    decided by P(Beta(20 + N_+, 20 + N_-) > 1/2), agrees within 0.035 (Monte Carlo sds 0.007
    and 0.009)."""
    from scipy.special import betainc

    d = np.array([1.0] * 14 + [-1.0] * 4 + [0.0] * 42)
    a = np.where(d >= 0, 1.0, 0.0)
    plan = plan_questions(a, a - d, prior=(20.0, 20.0), draws=4000, seed=5)
    assert plan.extra_questions, plan
    rng = np.random.default_rng(6)
    split = rng.beta(20 + 14, 20 + 4, 4000)
    share = rng.beta(2 + 18, 2 + 42, 4000)
    new = rng.multinomial(
        plan.extra_questions, np.stack([share * split, share * (1 - split), 1 - share], -1)
    )
    prob = betainc(20 + 4 + new[:, 1], 20 + 14 + new[:, 0], 0.5)
    assert abs(np.mean(prob >= 0.95) - plan.assurance_at_required) <= 0.035


@pytest.mark.parametrize("graded", [False, True])
def test_assurance_matches_brute_force_preposterior(graded):
    """The assurance promised at the questions planned, re-estimated by 600 futures decided by
    the exact paired probability: within 0.06 (the brute force's Monte Carlo sd is 0.016, the
    plan's over 2000 simulations 0.009; graded differences are decided by the plan's normal law
    of D, which the exact one may differ from by a little)."""
    rng = np.random.default_rng(4)
    if graded:  # means of four trials: differences in steps of 1/4
        base = rng.integers(0, 5, 50)
        d = (np.clip(base + rng.integers(-1, 3, 50), 0, 4) - base) / 4.0
    else:
        d = np.array([1.0] * 10 + [-1.0] * 4 + [0.0] * 26)
    a = np.where(d >= 0, 1.0, 1.0 + d)
    plan = plan_questions(a, a - d, draws=2000, seed=1)
    assert plan.extra_questions, plan
    brute = _brute(d, plan.extra_questions, 0.95, 600, seed=2)
    assert abs(brute - plan.assurance_at_required) <= 0.06, (plan, brute)
    assert plan.decision == ("normal (exact moments)" if graded else "exact (Beta)")


def test_limit_and_already_reached():
    """As the questions grow the assurance tends to P(leader better) (its Monte Carlo estimate
    over 4000 draws within 0.025 of the exact value); a pair already at the confidence needs no
    more questions; below the target no number of questions is offered."""
    d = np.array([1.0] * 8 + [-1.0] * 5 + [0.0] * 20)
    a = np.where(d >= 0, 1.0, 0.0)
    plan = plan_questions(a, a - d, draws=4000)
    assert plan.prob_leader_better == pytest.approx(paired_probability(a, a - d), abs=1e-12)
    assert abs(plan.assurance_limit - plan.prob_leader_better) <= 0.025
    assert plan.m_required is None and "cannot exceed" in plan.reason
    strong = plan_questions([1.0] * 15 + [0.0] * 2, [0.0] * 15 + [1.0] * 2)
    assert strong.extra_questions == 0 and strong.m_required == 17
    assert strong.assurance_at_required == 1.0


def test_leader_is_found_either_way_round():
    d = np.array([1.0] * 10 + [-1.0] * 4 + [0.0] * 26)
    a = np.where(d >= 0, 1.0, 0.0)
    ab, ba = plan_questions(a, a - d, seed=3), plan_questions(a - d, a, seed=3)
    assert (ab.leader, ba.leader) == ("a", "b")
    assert ab.prob_leader_better == pytest.approx(ba.prob_leader_better, abs=1e-12)
    # the same law either way round: the plans agree up to Monte Carlo noise
    assert abs(ab.m_required - ba.m_required) <= 0.35 * ab.m_required


def test_more_assurance_or_confidence_needs_more_questions():
    d = np.array([1.0] * 10 + [-1.0] * 4 + [0.0] * 26)  # P(A better) = 0.94
    a = np.where(d >= 0, 1.0, 0.0)
    low = plan_questions(a, a - d, assurance=0.6, seed=0)  # about 11 more
    high = plan_questions(a, a - d, assurance=0.85, seed=0)  # about 270
    stricter = plan_questions(a, a - d, assurance=0.6, confidence=0.975, seed=0)  # about 45
    assert 0 < low.extra_questions < high.extra_questions
    assert low.extra_questions < stricter.extra_questions


def test_board_plan_states_the_pairs_number():
    """``plan_new_questions`` starts from the number ``pairs`` prints: the paired new-questions
    probability under the learned split prior (binary, one trial) or the uniform corners with
    the learned normal prior on the pair's difference (several trials), to floating point."""
    rng = np.random.default_rng(8)
    p = rng.random((1, 40, 1))
    for trials in (1, 4):
        R = (rng.random((4, 40, trials)) < p + np.array([0.0, 0.1, 0.2, 0.25])[:, None, None]) * 1.0
        da = xr.DataArray(R, dims=("model", "question", "trial"), coords={"model": list("abcd")})
        plan = plan_new_questions(da, "c", "d", simulations=300)
        paired = compare_pairs(R, prior="empirical", independent=False).paired
        lead = (2, 3) if plan.leader == "a" else (3, 2)
        assert plan.prob_leader_better == pytest.approx(paired[lead], abs=1e-12)
        assert plan.prior.startswith("empirical" if trials == 1 else "learned normal")
        assert plan.m_now == 40 and plan.estimand == "new questions"
    assert "learned normal N(0, tau^2)" in plan.prior  # several trials: the learned prior
    s = question_scores(R)  # plan_questions' default: the uniform corners, flat
    flat = compare_pairs(R, prior="uniform", independent=False).paired[lead]
    assert plan_questions(s[2], s[3], draws=300).prob_leader_better == pytest.approx(
        flat, abs=1e-12
    )


def test_bad_input_is_refused():
    a, b = [1.0, 0.0, 1.0], [0.0, 0.0, 1.0]
    with pytest.raises(ValueError, match="confidence"):
        plan_questions(a, b, confidence=0.5)
    with pytest.raises(ValueError, match="assurance"):
        plan_questions(a, b, assurance=1.2)
    with pytest.raises(ValueError, match="same length"):
        plan_questions(a, b[:2])
    with pytest.raises(ValueError, match=r"in \[0, 1\]"):
        plan_questions([1.5, 0.0, 1.0], b)
    with pytest.raises(ValueError, match=r"in \[0, 1\]"):
        plan_questions([np.nan, 0.0, 1.0], b)
    with pytest.raises(ValueError, match="corner masses"):
        plan_questions(a, b, prior=(1.0, -1.0))
    with pytest.raises(ValueError, match="prior_weights"):
        plan_questions(a, b, prior=[[1.0, 1.0], [2.0, 2.0]], prior_weights=[1.0])
    with pytest.raises(ValueError, match="max_questions"):
        plan_questions([1.0] * 3 + [0.0] * 5, [0.0] * 8, max_questions=8)
    with pytest.raises(ValueError, match="prior"):
        plan_questions(a, b, prior=(np.inf, 1.0))
    with pytest.raises(ValueError, match="prior"):
        plan_questions(a, b, prior=np.zeros((0, 2)))
    with pytest.raises(ValueError, match="prior"):
        plan_questions(a, b, prior="empirical")
    with pytest.raises(ValueError, match="prior_weights"):
        plan_questions(a, b, prior=[[1.0, 1.0], [2.0, 2.0]], prior_weights=[np.nan, 1.0])
    with pytest.raises(ValueError, match="draws"):
        plan_questions(a, b, draws=0)
    da = xr.DataArray(
        np.ones((2, 3, 1)), dims=("model", "question", "trial"), coords={"model": ["x", "y"]}
    )
    with pytest.raises(ValueError, match="not in the results"):
        plan_new_questions(da, "x", "z")
    with pytest.raises(ValueError, match="twice"):
        plan_new_questions(da, "x", "x")
    held = np.array([1.0, 0.0, 1.0])
    plan_questions(held, [0.0, 0.0, 1.0])
    assert held.tolist() == [1.0, 0.0, 1.0]  # nothing the user passed is changed


def test_plan_under_a_learned_normal_prior_matches_rejection_sampling():
    """Graded differences with the learned normal prior held at one tau (0.1): the assurance
    promised, re-estimated apart from the plan's importance weights by rejection sampling
    (pi ~ Dirichlet of the observed differences' counts times (n - 2)/n, so that D has the
    likelihood's variance s^2/n, kept with probability exp(-D^2 / (2 tau^2)), 1500 futures
    kept), each decided by Phi(mean tau / (sqrt(V) sqrt(tau^2 + V))) with the mean difference
    and its squared standard error V = s^2/n over all the questions: within 0.05 (Monte Carlo
    sds 0.011 and 0.012). The plan's P now is that formula on today's questions."""
    from scipy.stats import norm

    from bayes_eval.ranking.difference_prior import TAU_NODES

    rng = np.random.default_rng(4)
    base = rng.integers(0, 5, 60)
    d = (np.clip(base + rng.integers(-1, 3, 60), 0, 4) - base) / 4.0  # means of four trials
    k_tau = int(np.argmin(np.abs(TAU_NODES - 0.1)))
    tau = TAU_NODES[k_tau]
    weights = np.zeros(TAU_NODES.size)
    weights[k_tau] = 1.0
    a = np.where(d >= 0, 1.0, 1.0 + d)
    plan = plan_questions(a, a - d, tau_weights=weights, draws=2000, seed=3)
    assert plan.extra_questions, plan
    assert plan.decision.endswith("learned normal prior on the difference")

    def prob(dd):
        v = (np.mean(dd**2) - dd.mean() ** 2) / (dd.size - 1)  # s^2 / n
        return norm.cdf(dd.mean() * tau / np.sqrt(v * (tau**2 + v)))

    assert plan.prob_leader_better == pytest.approx(max(prob(d), 1 - prob(d)), abs=1e-12)
    levels, counts = _levels(d)
    hits, kept = 0, 0
    brute = np.random.default_rng(11)
    while kept < 1500:
        pi = brute.dirichlet(counts * (counts.sum() - 2.0) / counts.sum())  # Var D = s^2/n
        if brute.random() > np.exp(-0.5 * (pi @ levels) ** 2 / tau**2):
            continue
        kept += 1
        new = brute.choice(levels, size=plan.extra_questions, p=pi)
        p_k = prob(np.concatenate([d, new]))
        hits += (p_k if plan.leader == "a" else 1 - p_k) >= 0.95
    assert abs(hits / kept - plan.assurance_at_required) <= 0.05, (plan, hits / kept)


def test_futures_under_the_learned_prior_have_the_likelihoods_variance():
    """Under the learned normal prior the futures' flat draws of D (before the importance
    weights) have today's mean difference and the likelihood's variance s^2/n (ddof 1), not
    the Bayesian bootstrap's (n - 1)/(n + 1) of it: 40,000 draws, Monte Carlo s.e. of the
    mean 0.0005 sd and of the variance 0.7%; held to 2% of the variance. Pairs of fewer than
    five questions keep the flat prior, as in compare_pairs."""
    from bayes_eval.ranking.difference_prior import TAU_NODES
    from bayes_eval.ranking.questions_plan import _NewQuestions

    rng = np.random.default_rng(8)
    d = rng.integers(-4, 5, 40) / 4.0
    levels, counts = _levels(np.concatenate([d, [-1.0, 1.0]]))  # both corners as levels
    counts[np.isin(levels, (-1.0, 1.0))] -= 1
    tau = np.full(TAU_NODES.size, 1.0 / TAU_NODES.size)
    fut = _NewQuestions(
        levels, counts, np.zeros((1, 2)), np.ones(1), 40_000, np.random.default_rng(1), tau
    )
    draws = fut.pi @ levels
    se2 = np.var(d, ddof=1) / d.size
    assert draws.mean() == pytest.approx(d.mean(), abs=4 * np.sqrt(se2 / 40_000))
    assert draws.var() == pytest.approx(se2, rel=0.02)
    few = plan_questions([0.9, 0.2, 0.7, 0.6], [0.1, 0.3, 0.2, 0.5], tau_weights=tau, seed=0)
    assert "learned" not in few.decision and few.decision == "normal (exact moments)"


def test_board_plan_and_pairs_agree_on_every_kind_of_pair():
    """``plan_new_questions`` states the ``pairs`` number for a shrunk pair, a pair whose
    differences are all equal, a pair sharing fewer than five questions, and a pair whose
    differences are all -1, 0 or 1 on a graded board (the learned path, as in
    ``compare_pairs``)."""
    rng = np.random.default_rng(9)
    R = rng.integers(0, 5, (5, 24, 1)) / 4.0  # graded scores in steps of 1/4
    R[0] = np.maximum(R[0], 0.25)
    R[1] = R[0] - 0.25  # model 1 trails model 0 by 1/4 on every question
    R[2] = (R[0] >= 0.5) * 1.0  # model 2 all or nothing: differences with model 4 in {-1, 0, 1}
    R[4] = (rng.random((24, 1)) < 0.5) * 1.0
    R[3, 4:] = np.nan  # model 3 answered four questions
    names = list("abcde")
    da = xr.DataArray(R, dims=("model", "question", "trial"), coords={"model": names})
    paired = compare_pairs(R, prior="empirical", fractional=True, independent=False).paired
    for a, b in [(0, 4), (0, 1), (0, 3), (2, 4)]:
        plan = plan_new_questions(da, names[a], names[b], fractional=True, simulations=200)
        lead = (a, b) if plan.leader == "a" else (b, a)
        assert plan.prob_leader_better == pytest.approx(paired[lead], abs=1e-12), (a, b, plan)
