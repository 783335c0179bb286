# ---
# jupyter:
#   jupytext:
#     formats: py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Cost-aware adaptive evaluation with Gittins indices
#
# Xie, He and Cao ("Efficient Cost-Aware LLM Evaluation via Bayesian Bandit Gittins Indices")
# choose which candidate to evaluate next, and when to stop, from a Gaussian posterior per arm
# and a cost-aware Gittins index `G_n(s) = s - r_n`, where the roots `r_n` come from a
# one-dimensional dynamic program solved once per (cost, v0, tau^2, H).
# This notebook (seconds; executed by the tests with tiny sizes)
#
# 1. computes a root schedule and checks it against the closed form of the last stage,
# 2. drives the policy by hand, as in a real evaluation loop, through the protocol every
#    policy of `bayes_eval.adaptive` follows (`init`, `propose`, `observe`, `recommend`),
# 3. simulates Gittins against UCB-E on a small many-arm matrix and plots simple regret,
# 4. plugs a policy of our own into the same harness.

# %%
import numpy as np

from bayes_eval.adaptive import GittinsPolicy, Policy, Proposal
from bayes_eval.adaptive.gittins_index import (
    last_stage_root,
    posterior_variances,
    root_schedule,
    stage_setup,
)
from bayes_eval.adaptive.simulation import plot_regret, simulate
from bayes_eval.adaptive.synthetic import BanditDataset, logistic_matrix

# %% [markdown]
# ## 1. Root schedule
# Per-batch program of the paper's text: N = 160 examples in batches of B = 16, so H = 10
# stages with tau^2 = 1/(4B); general prior N(0.5, 0.04); cost 3e-5 per stage.

# %%
H, tau2, per_stage = stage_setup(160, 16, granularity="batch")
rs = root_schedule(3e-5, 0.04, tau2, H)
v = posterior_variances(0.04, tau2, H)
closed = last_stage_root(3e-5, v[-2] ** 2 / (v[-2] + tau2))
print(np.round(rs.roots, 4))
print(f"last stage: DP {rs.roots[-1]:.7f}, closed form {closed:.7f}")

# %% [markdown]
# The index of an arm whose posterior mean is 0.55 after 3 batches is `0.55 - r_3`: the arm
# is worth evaluating again against any outside option below that value.

# %%
print(rs.index(0.55, 3))

# %% [markdown]
# ## 2. The ask/tell loop
# Eight candidates with prices. `propose` names an arm and which of its examples to run (random
# unobserved ones, in an order fixed by the seed), plus the Gittins stopping signal; `observe`
# takes the scores and returns a new state. States are immutable, so every step can be kept
# and a run replays exactly from its seed.

# %%
rng = np.random.default_rng(0)
true_acc = np.linspace(0.3, 0.7, 8)
prices = np.array([0.2, 0.2, 0.5, 0.5, 1.0, 1.0, 3.0, 3.0])
policy = GittinsPolicy(belief_mean=0.5, belief_var=0.04)
state = policy.init(8, 40, costs=prices, cost_scale=1e-3, batch_size=4, seed=1)
history = [state]
for _ in range(30):
    proposal = policy.propose(state)
    scores = (rng.random(proposal.examples.size) < true_acc[proposal.arm]).astype(
        float
    )  # "run the eval"
    state = policy.observe(state, proposal, scores)
    history.append(state)
print("cells per arm:", state.n_cells, "cost:", round(state.cost, 2))
print("recommend:", policy.recommend(state), "stop signal now:", policy.propose(state).stop)
print("first state untouched:", history[0].n_cells.sum() == 0)

# %% [markdown]
# ## 3. Simple regret against UCB-E
# 300 arms x 40 examples (a rank-1 logistic matrix), batch B = 4, budget 10% of the cells,
# a handful of seeds. With many arms UCB-E must first pull every arm once; the Gittins
# index can leave unpromising arms alone.

# %%
theta = np.clip(rng.beta(4, 4, 300), 0.02, 0.98)
data = BanditDataset(
    "toy",
    logistic_matrix(theta, 40, rng=rng),
    np.ones(300),
    (0.5, 0.02),
    tuple(map(str, range(300))),
)
ds = simulate(data, batch_size=4, budget=0.1, seeds=4, grid_points=21)
print(ds["regret_mean"].sel(fraction=[0.02, 0.05, 0.1], method="nearest").to_pandas().round(3))
plot_regret(ds, "adaptive_regret.png")

# %% [markdown]
# ## 4. Your own policy
# The harness runs any object with the four methods (a structural `typing.Protocol`): no
# registration. Here, a uniform design that evaluates the arms in turn (its state is a
# `NamedTuple` and `observe` copies what it changes); on many arms it spreads the budget thin.

# %%
from typing import NamedTuple


class TurnState(NamedTuple):
    n_examples: int
    batch_size: int
    counts: np.ndarray
    sums: np.ndarray
    turn: int = 0


class RoundRobin:
    def init(self, n_arms, n_examples, *, batch_size=1, costs=1.0, cost_scale=1.0, seed=0):
        return TurnState(n_examples, batch_size, np.zeros(n_arms, int), np.zeros(n_arms))

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


print("follows the protocol:", isinstance(RoundRobin(), Policy))
mine = simulate(
    data, {"round robin": RoundRobin()}, batch_size=4, budget=0.1, seeds=4, grid_points=21
)
print(mine["regret_mean"].sel(fraction=[0.02, 0.05, 0.1], method="nearest").to_pandas().round(3))

# %% [markdown]
# From the command line: `bayes-eval adaptive roots --examples 1000 --batch 16 --granularity
# batch` prints a root table, and `bayes-eval adaptive simulate --dataset mmlu --subject
# anatomy --examples 100 --budget 0.05` runs the comparison and writes `adaptive.nc` and
# `adaptive_regret.png`.
