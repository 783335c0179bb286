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
# # Ranking LLMs from imperfect LLM judges (Vossler et al., "LLMs Judging LLMs")
#
# Judges and candidates live on the probability simplex of score levels: judge `j`'s
# confusion matrix gives `M` vertices, and each candidate's score distribution under that
# judge is a point inside them whose barycentric coordinates are its true-score prevalences.
# Without gold labels the ranking is identified for two levels (Theorem 1) but not in general
# for three or more (Theorem 2), so the Bayesian model puts a prior on judge quality (the
# weight-propagation DAG) and reports rank intervals that include that uncertainty.
#
# This notebook (tiny sizes; executed by the tests)
#
# 1. shows Theorem 1 on a two-level example,
# 2. simulates three judges with known confusion matrices, one of which favours its own
#    family, and fits the model with and without the same-family exclusion,
# 3. compares with the simple average and bootstrap intervals, and draws the ternary plot.

# %%
import numpy as np

from bayes_eval.judges import baselines as jb
from bayes_eval.judges.simplex import plot_simplex, two_level_identifiable, two_level_ranks
from bayes_eval.models.judges import fit_judges
from bayes_eval.nuts import NutsSettings
from bayes_eval.validation.judges_study import synthetic_judges

# %% [markdown]
# ## 1. Two levels: the order along the segment is the true order
# A judge that says "correct" 80% of the time for correct answers and 30% for wrong ones
# (Assumption 3 holds) sees candidates with 10%, 50%, 90% correct answers at 35%, 55%, 75%:
# same order, whatever the judge's accuracy.

# %%
theta = np.array([[0.7, 0.3], [0.2, 0.8]])
pi_correct = np.array([0.1, 0.5, 0.9])
gamma_high = (1 - pi_correct) * theta[0, 1] + pi_correct * theta[1, 1]
print(gamma_high, two_level_ranks(gamma_high))
print(two_level_identifiable(n_judges=1, n_candidates=3, constancy="strong", assumption3=True))

# %% [markdown]
# ## 2. Synthetic judges with self-preference
# Three candidates, two judges on a 3-level scale; judge `j` belongs to candidate `j`'s
# family and raises that candidate's score by one level 80% of the time.

# %%
data = synthetic_judges(K=3, J=2, M=3, n=120, self_preference=0.8, seed=11)
settings = NutsSettings(draws=200, tune=200, chains=2, seed=0)
adjusted = fit_judges(data, nuts=settings)
unadjusted = fit_judges(data, exclude_same_family=False, nuts=settings)
for name, fit in (("excluding same-family pairs", adjusted), ("keeping them", unadjusted)):
    r = fit["ranking"].to_dataset()
    print(
        f"{name}: Spearman {jb.spearman(r['mu_mean'].values, data.truth):.3f}, "
        f"rank-interval coverage {jb.rank_coverage(r['rank_lo'].values, r['rank_hi'].values, data.truth):.2f}"
    )
print(
    adjusted["ranking"]
    .to_dataset()[["mu_mean", "rank", "rank_lo", "rank_hi", "truth"]]
    .to_dataframe()
)

# %% [markdown]
# ## 3. Baselines and the simplex
# The simple average treats the judges as perfect; bootstrap intervals only carry sampling
# noise.

# %%
boot = jb.bootstrap_rank_intervals(data, n_boot=300, seed=0)
print(
    "simple average Spearman",
    round(jb.spearman(jb.simple_average(data), data.truth), 3),
    "| bootstrap coverage",
    round(jb.rank_coverage(boot.lo, boot.hi, data.truth), 2),
)

post = adjusted["posterior"].to_dataset()
theta_hat = post["theta"].mean(("chain", "draw")).values
pi_hat = post["pi"].mean(("chain", "draw")).values
gamma = np.einsum("km,jms->jks", pi_hat, theta_hat)
plot_simplex(
    theta_hat,
    gamma,
    "simplex.png",
    candidates=data.candidates,
    judges=data.judges,
    levels=("1", "2", "3"),
)

# %% [markdown]
# On real data shipped with the package: `bayes-eval judges dataset:mtbench_judges` (Table 1's
# MT-Bench row; the human order is the truth), `bayes-eval judges dataset:summeval_judges
# --integrated --baselines`, and `bayes-eval validate judges` for the whole table.
