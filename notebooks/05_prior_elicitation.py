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
# "I expect this model's accuracy to lie between 0.3 and 0.6 with 90% probability" can be a
# statement about **the model's accuracy on the benchmark** or about **every single
# question**. Bayes@N (Hariri et al., "Don't Pass@k: A Bayesian Framework for Large Language
# Model Evaluation") gives each question an independent Dirichlet prior, so the two readings
# give very different priors on the benchmark score pi-bar. `elicit_beta` therefore needs the
# `level` and the number of questions M, and always reports the implied prior on pi-bar.

# %%
import warnings

import numpy as np

import bayes_eval as be
from bayes_eval.validation import elicitation

M = 30

# %% [markdown]
# ## Question level: the statement holds for every question
#
# Each question gets the Beta prior with that central interval; its *prior depth* D says how
# many earlier trials per question it is worth next to the paper's uniform prior (eq. 6). The
# mean of M = 30 independent questions is then nearly fixed, and an `ElicitationWarning` says
# so.

# %%
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always", elicitation.ElicitationWarning)
    per_question = elicitation.elicit_beta(0.3, 0.6, prob=0.9, level="question", n_questions=M)
print(
    "alpha (fail, pass):",
    np.round(per_question.alpha, 3),
    " depth D =",
    round(per_question.depth, 2),
)
print("stated:", per_question.stated, " implied for pi-bar:", per_question.implied.round(4))
print("width ratio:", round(per_question.width_ratio, 3))
print("warning:", caught[0].message)

# %% [markdown]
# ## Benchmark level: the statement is about the model's mean accuracy
#
# The benchmark mean m gets the elicited Beta, and each question
# Beta(s m, s (1 - m)); the spread across questions, the concentration s, is a separate
# statement (default 1: U-shaped, most questions nearly always or nearly never solved, as in
# real benchmarks). pi-bar is a finite average around m, so its implied interval is a little
# wider than the statement, and approaches it as M grows.

# %%
benchmark = elicitation.elicit_beta(0.3, 0.6, prob=0.9, level="benchmark", n_questions=M)
b, a = benchmark.hyper_alpha
print(f"m ~ Beta({a:.2f}, {b:.2f}), s = {benchmark.concentration}, depth D = {benchmark.depth}")
print("stated:", benchmark.stated, " implied for pi-bar:", benchmark.implied.round(4))
print("width ratio:", round(benchmark.width_ratio, 3), "(", benchmark.implied_method, ")")
for m_q in (10, 100, 1000):
    p = elicitation.elicit_beta(0.3, 0.6, prob=0.9, level="benchmark", n_questions=m_q)
    print(f"M = {m_q:5d}: implied {p.implied.round(3)}, width ratio {p.width_ratio:.3f}")

# %% [markdown]
# A benchmark-level prior is hierarchical, not one Dirichlet. For integrated-prior code on
# the fast path, `hyper_grid` gives Gauss-Jacobi nodes over m (the per-question concentrations
# at each node) and log weights; they integrate the Beta hyperprior exactly for polynomials.

# %%
nodes, log_w = benchmark.hyper_grid(16)
m_nodes = nodes[:, 1] / benchmark.concentration
print(
    "E[m] by quadrature:",
    round(float(np.exp(log_w) @ m_nodes), 6),
    " exact:",
    round(a / (a + b), 6),
)

# %% [markdown]
# Prior predictive check at both levels: pi-bar over M = 30 questions and one question's
# score.

# %%
for prior in (per_question, benchmark):
    pp = elicitation.prior_predictive(prior, draws=5000)
    print(prior.level, "pi-bar:", pp["pi_bar_quantiles"])
    print(prior.level, "one question:", pp["question_score_quantiles"])

# %% [markdown]
# A rubric: one statement per category (wrong, partial, correct), per question.

# %%
with warnings.catch_warnings():
    warnings.simplefilter("ignore", elicitation.ElicitationWarning)
    rubric = elicitation.elicit_dirichlet(
        [[0.1, 0.4], [0.1, 0.3], [0.4, 0.7]], prob=0.9, level="question", n_questions=M
    )
print("alpha:", np.round(rubric.alpha, 3), " depth:", round(rubric.depth, 2))
print("achieved 90% intervals:", np.round(rubric.achieved, 3).tolist())
print("one question's score:", rubric.stated.round(3), " pi-bar:", rubric.implied.round(3))

# %% [markdown]
# Sensitivity: mu, sigma and ranks of three models under the uniform and the elicited prior,
# at both levels (benchmark level: the closed-form posteriors mixed over the posterior of m).

# %%
rng = np.random.default_rng(0)
R = (rng.random((3, M, 3)) < np.array([0.55, 0.5, 0.35])[:, None, None]).astype(int)
for prior in (per_question, benchmark):
    print(prior.level)
    print(elicitation.sensitivity(R, prior).to_dataframe().round(4))
print("uniform prior mu:", np.round(be.bayes(R)[0], 4))

# %% [markdown]
# ## The whole study
#
# `bayes-eval validate elicit --lo 0.3 --hi 0.6 --prob 0.9` runs all of the above at once
# through the registry of validation studies: the prior, its implied interval for pi-bar,
# the prior predictive and (given a results file) the sensitivity, written as NetCDF and a
# PNG. From Python:

# %%
import tempfile

from bayes_eval.validation import registry

result = registry.run_study(
    "elicit",
    tempfile.mkdtemp(),
    progress=False,
    file="dataset:taubench_airline_gpt4o",
    lo=0.3,
    hi=0.6,
    prob=0.9,
    level="benchmark",
    simulations=5000,
)
print("\n".join(result.summary["report"]))
print("files:", {k: p.name for k, p in result.files.items()})
