"""The Gittins policy's hot step (issue 28): the index cached in the state, kept by ``init``
and ``observe``, gives the decisions of the rule recomputed from scratch at every step
(Algorithm 1 of Xie, He and Cao, "Efficient Cost-Aware LLM Evaluation via Bayesian Bandit
Gittins Indices"), and states that are not the policy's own are refused or recomputed."""

from __future__ import annotations

import numpy as np
import pytest

from bayes_eval.adaptive import gittins as gp
from bayes_eval.adaptive.gittins import GittinsPolicy
from bayes_eval.adaptive.protocol import Proposal
from bayes_eval.adaptive.ucbe import UCBEPolicy


def _reference_decision(state):
    """Algorithm 1, lines 5-13, from scratch: the first unfinished arm with the largest
    index, and whether the first arm with the largest index overall is completed."""
    g = gp.indices(state)
    finished = state.n_cells >= state.config.n_examples
    if finished.all():
        return -1, True
    return int(np.argmax(np.where(finished, -np.inf, g))), bool(finished[int(np.argmax(g))])


@pytest.mark.parametrize(
    "options",
    [
        {"granularity": "cell", "belief_var": 0.02},
        {"granularity": "batch", "convention": "required"},
        {"posterior": "beta", "belief_var": 0.02},
    ],
)
def test_cached_index_gives_the_decisions_of_the_recomputed_rule(options):
    rng = np.random.default_rng(3)
    K, N = 12, 6
    Y = (rng.random((K, N)) < rng.uniform(0.1, 0.9, (K, 1))).astype(float)
    # a high cost makes completed arms top the index often: the stop signal is exercised
    pol = GittinsPolicy(**options)
    s = pol.init(K, N, batch_size=2, costs=np.linspace(1, 2, K), cost_scale=0.02, seed=1)
    stops = 0
    for _ in range(K * N):
        d = pol.propose(s)
        assert (d.arm, d.stop) == _reference_decision(s)
        finished = s.n_cells >= N
        want = np.where(finished, -np.inf, gp.indices(s))
        np.testing.assert_array_equal(s.cache.open_index, want)  # same doubles, not close
        stops += d.stop
        if d.arm < 0:
            break
        s = pol.observe(s, d, Y[d.arm, d.examples])
    assert d.arm == -1 and stops > 1


def test_a_replaced_state_is_recomputed_and_a_foreign_state_refused():
    pol = GittinsPolicy(belief_mean=0.5, belief_var=0.04)
    s = pol.init(4, 10, batch_size=2)
    assert pol.propose(s).arm == 0  # equal indices: the first arm
    bumped = s._replace(mean=s.mean + np.array([0, 0, 0.1, 0]))  # the cache is now stale
    assert pol.propose(bumped).arm == 2
    s2 = pol.observe(bumped, pol.propose(bumped), [1.0, 1.0])
    assert s2.mean[2] > bumped.mean[2] and s2.cache.mean is s2.mean
    foreign = UCBEPolicy().init(4, 10)
    with pytest.raises(ValueError, match="expected the GittinsState"):
        pol.propose(foreign)
    with pytest.raises(ValueError, match="expected the GittinsState"):
        pol.observe(tuple(s), Proposal(0, s.config.order[0, :2]), [1.0, 0.0])


def test_proposals_equal_to_the_next_examples_are_accepted_and_others_refused():
    pol = GittinsPolicy()
    s = pol.init(3, 8, batch_size=4, seed=2)
    d = pol.propose(s)
    copy = Proposal(d.arm, np.array(d.examples.tolist()))  # same numbers, not a view
    np.testing.assert_array_equal(
        pol.observe(s, copy, [1, 0, 1, 1]).mean, pol.observe(s, d, [1, 0, 1, 1]).mean
    )
    prefix = Proposal(d.arm, d.examples[:2].astype(np.int32))  # a prefix, another dtype
    assert pol.observe(s, prefix, [1, 1]).n_cells[d.arm] == 2
    swapped = Proposal(d.arm, d.examples[::-1].copy())
    with pytest.raises(ValueError, match="not its next unobserved examples"):
        pol.observe(s, swapped, [1, 0, 1, 1])
    with pytest.raises(ValueError, match="one score per proposed example"):
        pol.observe(s, d, [1, 0])
