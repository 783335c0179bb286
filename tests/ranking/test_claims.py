"""Claims at a posterior expected FDR, rank probabilities and simultaneous rank intervals
(``bayes_eval.ranking.claims``) against brute force, hand-derived values and exact integrals."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import xarray as xr
from scipy import integrate, stats

import bayes_eval as be
from bayes_eval.ranking.claims import (
    fdr_claims,
    rank_probabilities,
    simultaneous_rank_intervals,
    tie_group_order,
)


def _prob_matrix(mean, sd):
    """P(i > j) of independent normal scores."""
    d = mean[:, None] - mean[None, :]
    s = np.sqrt(sd[:, None] ** 2 + sd[None, :] ** 2)
    p = stats.norm.cdf(d / s)
    np.fill_diagonal(p, 0.5)
    return p


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("q", [0.01, 0.05, 0.2])
def test_claims_are_the_largest_set_within_q(seed, q):
    """Every subset of the 10 oriented pairs of 5 models, enumerated: no set within q is
    larger than the rule's, and the rule's expected FDR is the mean of 1 - P over it."""
    rng = np.random.default_rng(seed)
    p = _prob_matrix(rng.normal(0, 1, 5), rng.uniform(0.1, 0.8, 5))
    claims = fdr_claims(p, q)
    i, j = np.triu_indices(5, 1)
    v = np.maximum(p[i, j], p[j, i])
    best = 0
    for size in range(v.size, 0, -1):
        if any(np.mean(1 - v[list(c)]) <= q for c in itertools.combinations(range(v.size), size)):
            best = size
            break
    assert claims.better.size == best
    fdr = np.mean(1 - p[claims.better, claims.worse]) if best else 0.0
    assert claims.expected_fdr == pytest.approx(fdr, abs=1e-12)
    assert claims.expected_fdr <= q
    assert np.all(p[claims.better, claims.worse] >= 0.5)
    assert np.all(np.diff(claims.prob) <= 0)


def test_tie_groups_follow_chains_of_claims():
    # 0 > 1 and 1 > 2 claimed, 0 vs 2 not claimed by itself: the chain orders it
    p = np.full((3, 3), 0.5)
    p[0, 1], p[1, 2], p[0, 2] = 0.999, 0.999, 0.6
    p = np.where(np.tril(np.ones((3, 3), bool), -1), 1 - p.T, p)
    claims = fdr_claims(p, 0.01)
    assert {(int(a), int(b)) for a, b in zip(claims.better, claims.worse, strict=True)} == {
        (0, 1),
        (1, 2),
    }
    assert [g.tolist() for g in claims.groups] == [[0], [1], [2]]
    # nothing separable: one group, best first
    none = fdr_claims(_prob_matrix(np.array([0.0, 0.01, 0.02]), np.ones(3)), 0.05)
    assert none.better.size == 0 and none.expected_fdr == 0.0
    assert [g.tolist() for g in none.groups] == [[2, 1, 0]]  # by expected rank
    assert none.records() == []


def test_tie_groups_come_in_the_claims_order_where_expected_ranks_disagree():
    # 0 and 1 nearly tied (0 > 1 at P = 0.5001) but 1 beats 2 more surely than 0 does, so 1's
    # expected rank (1.5011) is better than 0's (1.5999): the groups must still list 0 above 1,
    # as the claims (and a table sorted by the means the claims follow) do
    p = np.full((3, 3), 0.5)
    p[0, 1], p[0, 2], p[1, 2] = 0.5001, 0.9, 0.999
    p = np.where(np.tril(np.ones((3, 3), bool), -1), 1 - p.T, p)
    claims = fdr_claims(p, 0.25)
    assert claims.better.size == 3 and (0, 1) in zip(claims.better, claims.worse, strict=True)
    assert [g.tolist() for g in claims.groups] == [[0], [1], [2]]
    # inside one group too: 0 > 1 claimed, 3 tied with both, 3's expected
    # rank the best: listed 3, 0, 1 -- never 1 above 0
    assert tie_group_order([0, 1, 3], [0, 3], [1, 2], [2.1, 2.0, 4.0, 1.9]).tolist() == [3, 0, 1]
    # members the claims leave unordered keep the order of expected rank: 0 > 1 claimed, 2
    # unordered with both and ranked between them in nothing but index -> 0, 1, 2 (a sort by
    # "claims above" first would list 0, 2, 1)
    assert tie_group_order([0, 1, 2], [0], [1], [1.23, 2.31, 2.47]).tolist() == [0, 1, 2]
    # a cycle of claims (pair probabilities no joint law gives) falls back to expected rank
    assert tie_group_order([0, 1, 2], [0, 1, 2], [1, 2, 0], [3.0, 1.0, 2.0]).tolist() == [1, 2, 0]


def test_claims_reject_bad_input():
    with pytest.raises(ValueError, match="square"):
        fdr_claims(np.ones((2, 3)))
    with pytest.raises(ValueError, match="must be 1"):
        fdr_claims(np.array([[0.5, 0.9], [0.9, 0.5]]))
    with pytest.raises(ValueError, match="q is"):
        fdr_claims(np.full((2, 2), 0.5), q=0.0)
    p = np.array([[0.5, 0.9], [0.1, 0.5]])
    before = p.copy()
    fdr_claims(p)
    assert np.array_equal(p, before)


def test_rank_probabilities_by_hand():
    """Draws (3, 2, 1), (1, 2, 3), (2, 2, 1): the tie in the third draw shares places 1-2."""
    r = rank_probabilities(np.array([[3.0, 2, 1], [1, 2, 3], [2, 2, 1]]), top=2)
    assert r.p_best == pytest.approx([1.5 / 3, 0.5 / 3, 1 / 3])
    assert r.p_top == pytest.approx([2 / 3, 1.0, 1 / 3])
    assert r.expected_rank == pytest.approx([5.5 / 3, 5.5 / 3, 7 / 3])
    assert r.distribution.sum(axis=0) == pytest.approx(np.ones(3))
    assert r.distribution.sum(axis=1) == pytest.approx(np.ones(3))
    with pytest.raises(ValueError, match="top is"):
        rank_probabilities(np.ones((2, 3)), top=4)


def test_p_best_matches_the_integral():
    """Independent normal scores: P(a best) = int phi_a(x) prod_b Phi_b(x) dx; 200,000 draws,
    tolerance 5 Monte Carlo standard errors."""
    mean, sd = np.array([0.0, 0.2, 0.3]), np.array([0.3, 0.2, 0.25])
    rng = np.random.default_rng(1)
    n = 200_000
    r = rank_probabilities(rng.normal(mean, sd, (n, 3)), top=2)
    for a in range(3):
        others = [b for b in range(3) if b != a]

        def best(x, a=a, others=others):
            return stats.norm.pdf(x, mean[a], sd[a]) * np.prod(
                [stats.norm.cdf(x, mean[b], sd[b]) for b in others]
            )

        def last(x, a=a, others=others):
            return stats.norm.pdf(x, mean[a], sd[a]) * np.prod(
                [stats.norm.sf(x, mean[b], sd[b]) for b in others]
            )

        exact = integrate.quad(best, -5, 5)[0]
        top2 = 1.0 - integrate.quad(last, -5, 5)[0]  # in the top 2 of 3 = not last
        se = np.sqrt(exact * (1 - exact) / n)
        assert abs(r.p_best[a] - exact) < 5 * se + 1e-9
        assert abs(r.p_top[a] - top2) < 5 * np.sqrt(top2 * (1 - top2) / n) + 1e-9
    assert r.p_top.sum() == pytest.approx(2.0)
    assert r.expected_rank.sum() == pytest.approx(6.0)


def test_simultaneous_intervals_cover_jointly():
    """Eight close models: the intervals hold all ranks at once in >= 95% of the draws they
    came from and, within Monte Carlo error, of fresh draws; per-model 95% intervals hold
    jointly less often."""
    rng = np.random.default_rng(2)
    mean, sd = np.linspace(0, 0.7, 8), np.full(8, 0.2)
    draws = rng.normal(mean, sd, (20_000, 8))
    ints = simultaneous_rank_intervals(draws, 0.95)
    assert ints.joint_coverage >= 0.95
    fresh = rng.normal(mean, sd, (20_000, 8))
    ranks = 9 - stats.rankdata(fresh, axis=1).astype(int)
    inside = np.all((ranks >= ints.lo) & (ranks <= ints.hi), axis=1).mean()
    assert inside >= 0.95 - 4 * np.sqrt(0.05 * 0.95 / 20_000)
    own = np.quantile(9 - stats.rankdata(draws, axis=1), [0.025, 0.975], axis=0)
    own_joint = np.all((ranks >= np.floor(own[0])) & (ranks <= np.ceil(own[1])), axis=1).mean()
    assert own_joint < 0.95 - 4 * np.sqrt(0.05 * 0.95 / 20_000)  # 0.903 here
    assert np.all(ints.lo <= np.floor(own[0])) and np.all(ints.hi >= np.ceil(own[1]))
    assert np.all((ints.lo >= 1) & (ints.hi <= 8) & (ints.lo <= ints.hi))


def test_board_posterior_p_best_agrees_with_its_pair_probability():
    """Two models on one board: P(best) from the joint draws is P(A > B) of the same joint
    posterior (its normal approximation of the difference against the draws' Beta copula:
    within 0.02)."""
    rng = np.random.default_rng(4)
    p = rng.beta(2, 2, 40)
    R = np.stack([(rng.random((40, 1)) < p[:, None] + d).astype(float) for d in (0.0, 0.08)])
    post = be.posterior(R, prior="empirical")
    assert post.has_board
    r = rank_probabilities(post.draws(20_000, rng=5))
    prob = post.prob_better()
    assert r.p_best[1] == pytest.approx(prob[1, 0], abs=0.02)


def test_a_rank_table_lists_the_claims_documents_tie_groups_and_survives_a_selection():
    from bayes_eval.ranking.claims import board_claims, claims_document
    from bayes_eval.ranking.leaderboard import leaderboard, tie_groups

    rng = np.random.default_rng(0)
    rates = [[[0.1]], [[0.5]], [[0.55]], [[0.9]], [[0.95]]]
    R = xr.DataArray(
        rng.binomial(1, rates, size=(5, 30, 2)),
        dims=("model", "question", "trial"),
        coords={"model": list("abcde")},
    )
    board = leaderboard(R, prior="uniform")
    post = board.posterior
    doc = claims_document(
        board_claims(post, post.prob_better(), draws=4000, seed=0), list("abcde"), post.estimand
    )
    assert tie_groups(board.table) == doc["tie_groups"]
    # a selection of the table keeps claims naming dropped models: they are left out
    kept = tie_groups(board.table.sel(model=["a", "c", "e"]))
    assert sorted(m for g in kept for m in g) == ["a", "c", "e"]
