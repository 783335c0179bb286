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
# # From a statement about accuracy to a prior
#
# "I expect this model's accuracy to lie between 0.3 and 0.6 with 90% probability" becomes
# the Beta prior with that central interval; its *prior depth* D says how many earlier trials
# per question it is worth next to the paper's uniform prior (seed 000, eq. 6).

# %%
import numpy as np

import bayes_eval as be
from bayes_eval.validation import elicitation

prior = elicitation.elicit_beta(0.3, 0.6, prob=0.9)
print("alpha (fail, pass):", np.round(prior.alpha, 3), " prior depth D =", round(prior.depth, 2))

# %% [markdown]
# Prior predictive check: what this prior implies for one question and for the mean over
# M = 30 questions (much narrower: the prior is per question and the questions are independent).

# %%
print(elicitation.prior_predictive(prior, n_questions=30, draws=5000))

# %% [markdown]
# A rubric: one statement per category (wrong, partial, correct).

# %%
rubric = elicitation.elicit_dirichlet([[0.1, 0.4], [0.1, 0.3], [0.4, 0.7]], prob=0.9)
print("alpha:", np.round(rubric.alpha, 3), " depth:", round(rubric.depth, 2))
print("achieved 90% intervals:", np.round(rubric.achieved, 3).tolist())

# %% [markdown]
# Sensitivity: mu, sigma and ranks of three models under the uniform and the elicited prior.

# %%
rng = np.random.default_rng(0)
R = (rng.random((3, 20, 3)) < np.array([0.55, 0.5, 0.35])[:, None, None]).astype(int)
print(elicitation.sensitivity(R, prior).to_dataframe().round(4))
print("uniform prior mu:", np.round(be.bayes(R)[0], 4))
