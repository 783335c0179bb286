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
# # bayes_eval quickstart
#
# Bayes@N (Hariri et al., "Don't Pass@k: A Bayesian Framework for Large Language Model Evaluation") turns an evaluation into posterior
# inference: each question's outcome probabilities get a Dirichlet posterior, and the
# weighted score $\bar\pi$ gets an exact posterior mean $\mu$ and sd $\sigma$ (Algorithm 1).
# This notebook runs in a few seconds; the test suite executes it.

# %%
import numpy as np

import bayes_eval as be
from bayes_eval import xr as bxr
from bayes_eval.ranking.leaderboard import rank_table
from bayes_eval.ranking.ranks import prob_better
from bayes_eval.ranking.sample_size import trials_to_separate

# %% [markdown]
# ## Binary results: M questions x N trials
# `prior="uniform"` is the paper's Dirichlet(1, ..., 1); the default is the learned prior
# (`"empirical"`), the one every command uses.

# %%
R = np.array([[0, 1, 1, 0, 1], [1, 1, 0, 1, 1]])
mu, sigma, lo, hi = be.bayes_ci(R, prior="uniform")
print(f"Bayes@5 = {mu:.4f} ± {sigma:.4f}, 95% CI [{lo:.4f}, {hi:.4f}]  (the paper's prior)")
a, sigma_a = be.avg(R)
print(f"avg@5  = {a:.4f} ± {sigma_a:.4f}  (same ranking as Bayes@N, App. B)")
assert round(mu, 6) == 0.642857
mu_l, sigma_l, lo_l, hi_l = be.bayes_ci(R)
print(f"Bayes@5 = {mu_l:.4f} ± {sigma_l:.4f}, 95% CI [{lo_l:.4f}, {hi_l:.4f}]  (learned prior)")

# %% [markdown]
# ## Rubrics and prior runs
# Categories 0..C with weights `w`; earlier runs `R0` on the same questions add to the prior.

# %%
R_cat = np.array([[0, 1, 2, 2, 1], [1, 1, 0, 2, 2]])
w = [0.0, 0.5, 1.0]
print("no prior    :", [round(x, 6) for x in be.bayes(R_cat, w)])
print("greedy prior:", [round(x, 6) for x in be.bayes(R_cat, w, R0=np.array([[2], [1]]))])

# %% [markdown]
# ## Normal versus exact credible intervals
# The paper's interval is $\mu \mp z\sigma$ (`interval="normal"`). With few questions near a
# boundary the exact posterior of $\bar\pi$ is skewed; `interval="exact"` gives its
# equal-tailed interval. The default, `"auto"`, is exact within 6 sd of an end of the support
# and normal elsewhere (here: exact).

# %%
R_hi = np.array([[1, 1, 1, 0], [1, 1, 1, 1], [1, 1, 1, 1]])
for kind in ("normal", "exact", "auto"):
    ci = be.bayes_ci(R_hi, confidence=0.99, interval=kind, prior="uniform")
    print(f"{kind:<6}:", [round(x, 4) for x in ci])

# %% [markdown]
# ## Several models at once, with labels
# An `(L, M, N)` array is evaluated in one vectorised call; the xarray layer keeps names.

# %%
rng = np.random.default_rng(0)
p = rng.beta(2, 2, size=(4, 20, 1)) * np.array([1.0, 0.95, 0.9, 0.6])[:, None, None]
runs = (rng.random((4, 20, 16)) < p).astype(np.int8)
table = rank_table(bxr.results_array(runs, models=["A", "B", "C", "D"]), confidence=0.95)
print(
    table[["mu", "sigma", "lo", "hi", "rank", "rank_ci", "rank_lower", "rank_upper"]].to_dataframe()
)

# %% [markdown]
# Under the default prior the four models sharing questions are a board: every number comes
# from one joint posterior. `rank_lower`..`rank_upper` is the rank range, every rank the
# pairwise statements $P(\text{better}) \ge 0.95$ leave open (no chaining); `rank_ci` follows
# the paper's chaining rule (§2.7.1: consecutive models tie unless $P \ge 0.95$).
# For two models on their own: the exact probability that A beats B, and the Gaussian
# approximation of §2.5:

# %%
print("P(A > B) exact :", round(prob_better(runs[0], runs[1], method="exact"), 4))
print("P(A > B) normal:", round(prob_better(runs[0], runs[1], method="normal"), 4))
plan = trials_to_separate(runs[0], runs[1], z_target=1.645)
print(f"z now = {plan.z_now:.2f}; trials per question for z >= 1.645: {plan.n_required}")

# %% [markdown]
# ## The Pass family, with posterior intervals

# %%
ds = bxr.pass_family_ci(bxr.results_array(runs, models=list("ABCD")), [1, 2, 4, 8])
print(ds["estimate"].to_pandas().round(3))  # unbiased estimates from the trials
print(ds["posterior_mean"].to_pandas().round(3))  # posterior means under the learned prior
print(be.g_pass_at_k_tau_ci(runs[0], 4, 0.5))
