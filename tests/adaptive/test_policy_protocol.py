"""The one ask/tell protocol of the adaptive-evaluation policies: every policy follows it,
states are immutable, the harness runs any policy (a toy round-robin included), and invalid
proposals or outcomes fail with a clear message."""

from __future__ import annotations

import inspect
import re
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pytest

import bayes_eval.adaptive as adaptive
from bayes_eval.adaptive import simulation
from bayes_eval.adaptive.gittins import GittinsPolicy
from bayes_eval.adaptive.lrf import LRFPolicy
from bayes_eval.adaptive.protocol import Policy, Proposal, check_outcomes, check_proposal
from bayes_eval.adaptive.simulation import PolicySpec, run_policy, simulate
from bayes_eval.adaptive.synthetic import BanditDataset, logistic_matrix
from bayes_eval.adaptive.ucbe import UCBEPolicy

POLICIES = {
    "gittins": GittinsPolicy(belief_var=0.02, granularity="cell"),
    "gittins-beta": GittinsPolicy(posterior="beta", convention="required", belief_var=0.02),
    "ucb-e": UCBEPolicy(),
    "ucb-e-lrf": LRFPolicy(warmup=0.1, ensemble=4, iterations=3),
}


def _dataset(K=6, N=12, seed=0):
    rng = np.random.default_rng(seed)
    Y = logistic_matrix(np.linspace(0.2, 0.8, K), N, rng=rng)
    return BanditDataset("toy", Y, np.linspace(0.5, 2.0, K), (0.5, 0.02), tuple(map(str, range(K))))


class RoundRobinState(NamedTuple):
    n_examples: int
    batch_size: int
    counts: np.ndarray
    sums: np.ndarray
    turn: int = 0


class RoundRobin:
    """A policy written outside the package: arms in turn, each arm's examples in order."""

    def init(self, n_arms, n_examples, *, batch_size=1, costs=1.0, cost_scale=1.0, seed=0):
        return RoundRobinState(n_examples, batch_size, np.zeros(n_arms, int), np.zeros(n_arms))

    def propose(self, state):
        K = state.counts.size
        for k in range(K):
            arm = (state.turn + k) % K
            start = int(state.counts[arm])
            if start < state.n_examples:
                stop = min(start + state.batch_size, state.n_examples)
                return Proposal(arm, np.arange(start, stop))
        return Proposal.done(stop=False)

    def observe(self, state, proposal, outcomes):
        counts, sums = state.counts.copy(), state.sums.copy()
        counts[proposal.arm] += len(outcomes)
        sums[proposal.arm] += np.sum(outcomes)
        return state._replace(counts=counts, sums=sums, turn=proposal.arm + 1)

    def recommend(self, state):
        with np.errstate(invalid="ignore"):
            return int(np.argmax(np.where(state.counts > 0, state.sums / state.counts, -1)))


def _snapshot(state):
    """Deep copy of a state's fields (arrays copied, nested NamedTuples flattened)."""
    out = []
    for v in state:
        if isinstance(v, tuple) and hasattr(v, "_fields"):
            out.append(_snapshot(v))
        else:
            out.append(np.array(v, copy=True) if isinstance(v, np.ndarray) else v)
    return out


def _assert_same(a, b):
    assert len(a) == len(b)
    for x, y in zip(a, b, strict=True):
        if isinstance(x, list):
            _assert_same(x, y)
        elif isinstance(x, np.ndarray):
            np.testing.assert_array_equal(x, y)
        else:
            assert x == y


# ----------------------------------------------------------------------------- the protocol


@pytest.mark.parametrize("name", [*POLICIES, "round-robin"])
def test_every_policy_follows_the_protocol(name):
    policy = POLICIES.get(name) or RoundRobin()
    assert isinstance(policy, Policy)
    init = inspect.signature(policy.init).parameters
    assert list(init)[:2] == ["n_arms", "n_examples"]
    assert {"batch_size", "costs", "cost_scale", "seed"} <= set(init)
    for method in ("propose", "recommend"):
        assert list(inspect.signature(getattr(policy, method)).parameters) == ["state"]
    assert list(inspect.signature(policy.observe).parameters) == ["state", "proposal", "outcomes"]
    assert not isinstance(object(), Policy)


def test_the_package_exports_the_protocol():
    assert adaptive.Policy is Policy and adaptive.Proposal is Proposal
    assert {"GittinsPolicy", "UCBEPolicy", "LRFPolicy"} <= set(adaptive.__all__)
    for module in ("gittins", "ucbe", "lrf", "protocol", "simulation", "gittins_index"):
        assert not hasattr(getattr(adaptive, module, None), "next")  # no builtin shadowing


@pytest.mark.parametrize("name", list(POLICIES))
def test_states_are_immutable_and_runs_replay(name):
    policy, data = POLICIES[name], _dataset()
    Y = data.matrix
    K, N = Y.shape

    def run(seed):
        state = policy.init(K, N, batch_size=3, costs=data.costs, cost_scale=1e-3, seed=seed)
        trail = []
        while (p := policy.propose(state)).arm >= 0 and len(trail) < 20:
            assert isinstance(p, Proposal)
            again = policy.propose(state)  # propose is a pure function of the state
            assert again.arm == p.arm and np.array_equal(again.examples, p.examples)
            before = _snapshot(state)
            new = policy.observe(state, p, Y[p.arm, p.examples])
            _assert_same(before, _snapshot(state))  # observe did not touch the old state
            assert new is not state and type(new) is type(state)
            for field in state:
                if isinstance(field, np.ndarray):
                    assert not field.flags.writeable
            trail.append((p.arm, tuple(p.examples.tolist())))
            state = new
        return trail, policy.recommend(state)

    assert run(3) == run(3)
    if name == "ucb-e-lrf":
        assert run(3)[0] != run(4)[0]  # the seed keys the warm-up choices


def test_gittins_and_ucbe_take_each_arms_examples_in_the_seeded_order():
    K, N = 4, 10
    for policy in (POLICIES["gittins"], POLICIES["ucb-e"]):
        state = policy.init(K, N, batch_size=4, seed=2)
        order = state.config.order if hasattr(state, "config") else state.order
        assert sorted(order[1].tolist()) == list(range(N))
        p = policy.propose(state)
        np.testing.assert_array_equal(p.examples, order[p.arm, :4])


def test_proposal_done_and_stop_default():
    p = Proposal(2, np.array([0, 1]))
    assert p.stop is False and p.arm == 2
    d = Proposal.done()
    assert d.arm == -1 and d.examples.size == 0 and d.stop


# ----------------------------------------------------------------------------- the harness


def test_a_custom_policy_runs_through_the_harness():
    data = _dataset()
    K, N = data.matrix.shape
    tr = run_policy(data, RoundRobin(), batch_size=4, budget=1.0, seed=0)
    assert tr.cells[-1] == K * N and np.all(np.diff(tr.cells) == 4)
    assert tr.regret[-1] == 0.0 and tr.stop_step is None
    ds = simulate(
        data,
        {"round-robin": RoundRobin(), "ucb-e": UCBEPolicy()},
        batch_size=4,
        budget=0.5,
        seeds=2,
        grid_points=6,
    )
    assert list(ds["policy"].values) == ["round-robin", "ucb-e"]
    assert np.isfinite(ds["regret"]).all() and np.isnan(ds["stop_fraction"]).all()
    named = simulate(data, [RoundRobin()], batch_size=4, budget=0.5, seeds=1, grid_points=3)
    assert list(named["policy"].values) == ["RoundRobin"]


def test_the_harness_does_not_dispatch_on_the_policy_kind():
    source = Path(simulation.__file__).read_text()
    assert not re.search(r"(?<![\w.])(kind|name)\s*==|\.kind\b", source)
    for word in ('"gittins"', '"ucb-e"', '"ucb-e-lrf"'):
        assert word not in source


class _Repeats(RoundRobin):
    def propose(self, state):
        return Proposal(0, np.array([0, 1]))


class _Outside(RoundRobin):
    def propose(self, state):
        return Proposal(0, np.array([0, 99]))


def test_the_harness_rejects_bad_policies():
    data = _dataset()
    with pytest.raises(ValueError, match="example 0 again; each cell is evaluated once"):
        run_policy(data, _Repeats(), batch_size=2, budget=1.0)
    with pytest.raises(ValueError, match=r"include 0..99; expected indices in \[0, 12\)"):
        run_policy(data, _Outside(), batch_size=2, budget=1.0)
    with pytest.raises(ValueError, match="expected an object with init, propose, observe"):
        PolicySpec("nope", object())


# ----------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("proposal", "message"),
    [
        (Proposal(7, np.array([0])), r"proposal arm is 7; expected an integer in \[0, 6\)"),
        (Proposal(True, np.array([0])), "proposal arm is True"),
        (Proposal(1.0, np.array([0])), "proposal arm is 1.0"),
        (Proposal(1, np.array([], dtype=int)), "expected a non-empty 1-D array"),
        (Proposal(1, np.array([0.5])), "expected a non-empty 1-D array"),
        (Proposal(1, np.array([3, 3])), "repeat an example"),
        (Proposal(1, np.array([-1])), r"expected indices in \[0, 12\)"),
        ((1, np.array([0])), "expected a Proposal"),
    ],
)
@pytest.mark.parametrize("name", list(POLICIES))
def test_invalid_proposals_raise(name, proposal, message):
    policy = POLICIES[name]
    state = policy.init(6, 12, batch_size=3)
    with pytest.raises(ValueError, match=message):
        policy.observe(state, proposal, np.zeros(np.size(proposal[1])))


@pytest.mark.parametrize(
    ("outcomes", "message"),
    [
        ([1.0, 0.0], r"outcomes has shape \(2,\); expected one score per proposed example"),
        ([[1.0, 0.0, 1.0]], r"outcomes has shape \(1, 3\)"),
        ([1.0, np.nan, 0.0], r"finite scores in \[0, 1\]"),
        ([1.0, 2.0, 0.0], r"finite scores in \[0, 1\]"),
        ([1.0, -0.5, 0.0], r"finite scores in \[0, 1\]"),
    ],
)
@pytest.mark.parametrize("name", list(POLICIES))
def test_invalid_outcomes_raise(name, outcomes, message):
    policy = POLICIES[name]
    state = policy.init(6, 12, batch_size=3)
    p = policy.propose(state)
    with pytest.raises(ValueError, match=message):
        policy.observe(state, p, outcomes)


def test_examples_must_be_the_ones_the_policy_tracks():
    for name in ("gittins", "ucb-e"):
        policy = POLICIES[name]
        state = policy.init(3, 8, batch_size=2, seed=0)
        p = policy.propose(state)
        wrong = Proposal(p.arm, np.setdiff1d(np.arange(8), p.examples)[:2])
        with pytest.raises(ValueError, match="not its next unobserved examples"):
            policy.observe(state, wrong, [1.0, 0.0])
        prefix = policy.observe(state, Proposal(p.arm, p.examples[:1]), [1.0])  # allowed
        assert prefix.cells == 1
    policy = POLICIES["ucb-e-lrf"]
    state = policy.init(3, 8, batch_size=2, seed=0)
    p = policy.propose(state)
    state = policy.observe(state, p, [1.0, 0.0])
    with pytest.raises(ValueError, match="include an observed example"):
        policy.observe(state, p, [1.0, 0.0])


def test_helpers_and_hyperparameters_fail_early():
    with pytest.raises(ValueError, match="2 unobserved examples left; got 3 examples"):
        check_proposal(Proposal(0, np.arange(3)), 2, 5, taken=np.array([3, 0]))
    assert check_outcomes(0.5, 1).tolist() == [0.5]
    with pytest.raises(ValueError, match="exploration is 0"):
        UCBEPolicy(exploration=0)
    with pytest.raises(ValueError, match="ensemble >= 2"):
        LRFPolicy(ensemble=1)
    with pytest.raises(ValueError, match="cell_variance is -1"):
        GittinsPolicy(cell_variance=-1)
    with pytest.raises(ValueError, match="posterior is 'poisson'"):
        GittinsPolicy(posterior="poisson")
