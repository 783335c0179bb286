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
# # Cross-checking the closed form with NUTS
#
# The Dirichlet-multinomial model of `bayes_eval.models.matching_model` has the closed-form
# Bayes@N posterior as its exact posterior, so NUTS draws of $\bar\pi$ must reproduce $\mu$ and
# $\sigma$ within Monte Carlo error. `crosscheck` also compares the Gaussian ranking confidence
# $\rho$ (§2.5) with $P(\bar\pi_a > \bar\pi_b)$ from the draws and from the exact posterior.
# The sizes here are tiny so that the test suite can run this notebook; use `draws=1000,
# chains=4` (the defaults) for real checks.

# %%
import numpy as np

import bayes_eval as be
from bayes_eval.models import crosscheck, hierarchical_model, sample
from bayes_eval.models.sensitivity import prior_sensitivity
from bayes_eval.nuts import NutsSettings

rng = np.random.default_rng(0)
truth = np.array([0.7, 0.62, 0.5])
R = (rng.random((3, 8, 8)) < truth[:, None, None] * rng.beta(4, 1, (1, 8, 1))).astype(np.int8)
print("closed form mu:", np.round(be.bayes(R)[0], 4))

# %%
result = crosscheck(
    R,
    models=["A", "B", "C"],
    nuts=NutsSettings(draws=400, tune=400, chains=2, seed=1),
    mc_draws=20_000,
)
cols = [
    "mu",
    "nuts_mean",
    "mc_mean",
    "sigma",
    "nuts_sd",
    "mc_sd",
    "z_mean",
    "z_sd",
    "r_hat",
    "ess_bulk",
    "passed",
]
print(result.models[cols].to_dataframe().round(4))

# %%
print(result.pairs[["rho_normal", "p_nuts", "p_exact"]].to_dataframe().dropna().round(4))
print("all checks passed:", result.passed)

# %% [markdown]
# ## Partial pooling across questions
# The hierarchical model shares a Dirichlet prior $\mathrm{Dir}(\kappa\beta)$ across the
# questions of each model; $\pi$ is integrated out while sampling and drawn exactly afterwards.

# %%
idata = sample(hierarchical_model(R, models=["A", "B", "C"]), draws=300, tune=300, chains=2, seed=2)
post = idata["posterior"]
print("kappa posterior median:", np.round(post["kappa"].median(("chain", "draw")).values, 2))
print("pooled pi_bar mean     :", np.round(post["pi_bar"].mean(("chain", "draw")).values, 4))
print("closed form (no pooling):", np.round(idata["closed_form"]["mu"].values, 4))

# %% [markdown]
# ## Prior sensitivity (closed-form axes)

# %%
ds = prior_sensitivity(R, None, R[..., :2])
print(ds["mu_alpha0"].to_pandas().round(4))
print(ds["rank_a0"].to_pandas())
