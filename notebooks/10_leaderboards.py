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
# # Real leaderboards: incomplete, graded, compared in pairs
#
# A public leaderboard is not a complete cube of categorical outcomes. Models arrive over
# time while the question set grows, a few are run on a small subset, scores are graded in
# [0, 1]. This notebook ranks such a leaderboard three ways and says why they differ:
#
# 1. the closed form (Bayes@N of Hariri et al., "Don't Pass@k: A Bayesian Framework for Large
#    Language Model Evaluation") on the **common** questions, those every model answered;
# 2. the closed form on **all** questions, each model on the ones it answered (not one
#    scale);
# 3. the **crossed** model (ability minus question difficulty on a logit scale, by NUTS) on
#    all questions, which puts every model on the full question set.
#
# The leaderboard is synthetic (`bayes_eval.synthetic.leaderboard`), so the truth is known: each
# model's mean expected score over the questions. Sizes are small so that the notebook runs
# in about a minute; `SCALE = 1` gives a report's sizes.

# %%
import warnings

import numpy as np
import pandas as pd
from scipy.stats import spearmanr

from bayes_eval.logs.design import select_questions
from bayes_eval.logs.scored import load_scored
from bayes_eval.models.crossed_leaderboard import crossed_leaderboard
from bayes_eval.nuts import NutsSettings
from bayes_eval.ranking.leaderboard import leaderboard
from bayes_eval.ranking.paired import leaderboard_pairs
from bayes_eval.synthetic.leaderboard import simulate_leaderboard

SCALE = 0.5  # 1: 4 chains x 1000 draws (a report); 0.5: 2 chains
DRAWS, CHAINS = 1000, 4 if SCALE >= 1 else 2
warnings.filterwarnings("ignore", category=UserWarning)

# %% [markdown]
# ## An incomplete graded leaderboard
#
# 12 models and 160 questions. The first half of the models saw the first 100 questions
# (the second batch of 60 came later, and is harder: one logit unit), two models were run on
# 30 questions only, 2% of the pairs are missing at random and 5% were run twice. Scores are graded: a grader gives full
# or no credit 30% of the time, otherwise a Beta score around the model's expected score.
# Exported as a leaderboard would be: `model, question, score`, one row per attempt, no
# trial column.

# %%
board = simulate_leaderboard(
    12,
    160,
    scores="graded",
    question_sets=(100, 160),
    subset_models=2,
    subset_size=30,
    missing=0.02,
    repeats=0.05,
    batch_difficulty=1.0,
    seed=11,
)
board.to_frame(trial=False).to_csv("leaderboard.csv", index=False)
answered = pd.Series(board.answered.sum(axis=1), index=board.models, name="answered")
print(answered.to_string())

# %% [markdown]
# ## 1. The closed form on the common questions
#
# `questions="common"` keeps the questions every model answered. Graded scores are counted
# fractionally (a score s is s correct and 1 - s wrong answers). The scores compare models on
# one question set, but a small one: the two subset models cut it to a few questions.

# %%
common = load_scored("leaderboard.csv", questions="common", fractional=True)
print(f"kept {common.design['kept']} of {common.design['total']} questions")
by_common = leaderboard(common.R, fractional=True).table
kept = np.isin(board.questions, common.R["question"].values)
truth_common = pd.Series(board.expected[:, kept].mean(axis=1), index=board.models)

# %% [markdown]
# ## 2. The closed form on all questions, each model on its own
#
# `questions="all"` scores each model on the questions it answered. Every model's interval
# covers its own mean, but the means are over different questions: a model that only saw
# the first (or an easy) batch is not comparable with one that saw them all.

# %%
all_q = load_scored("leaderboard.csv", questions="all", fractional=True)
by_all = leaderboard(all_q.R, fractional=True, answered_only=True).table

# %% [markdown]
# ## 3. The crossed model on all questions
#
# Shared question difficulties carry each model to the full question set: its score is the
# posterior of its mean expected score over all 160 questions, the truth `true_mean`.

# %%
crossed = crossed_leaderboard(
    all_q.R,
    fractional=True,
    confidence=0.9,
    nuts=NutsSettings(draws=DRAWS, tune=DRAWS, chains=CHAINS, seed=1),
)
fit = crossed.table.attrs
print(
    f"r-hat max {fit['max_rhat']:.3f}, min bulk ESS {fit['min_ess_bulk']:.0f}, "
    f"divergences {fit['divergences']}"
)

# %% [markdown]
# ## The three side by side
#
# `truth` is each model's mean expected score over all questions. The crossed model's 90%
# intervals should cover it for about 9 models in 10; its ranking is the closest to the true
# one. The closed form on all questions is right about each model's own questions and wrong
# as a ranking: its early models never met the harder second batch and look better than
# they are, and its subset models are scored on 30 questions of their own.

# %%
truth = pd.Series(board.true_mean, index=board.models)
side = pd.DataFrame(
    {
        "truth (all q)": truth,
        "crossed": crossed.table["mu"].to_series(),
        "crossed covers": (crossed.table["lo"].to_series() <= truth)
        & (truth <= crossed.table["hi"].to_series()),
        "common": by_common["mu"].to_series(),
        "truth (common q)": truth_common,
        "all (own q)": by_all["mu"].to_series(),
        "answered": answered,
    }
).sort_values("truth (all q)", ascending=False)
print(side.round(3).to_string())
for name in ("crossed", "common", "all (own q)"):
    rho = spearmanr(side[name], side["truth (all q)"]).statistic
    print(f"Spearman with the true ranking, {name:12s}: {rho:.3f}")

# %% [markdown]
# ## Paired comparisons
#
# Among the ten models run on (nearly) the whole first batch, the questions they all answered
# are many. Both models of a pair answered the same items, so their scores are correlated
# through the questions. The paired probability uses the joint posterior of the pair's
# per-question differences; the independent one (asked for with `independent=True`: the
# commands do not print it, it is not calibrated) treats the models as if they had seen
# different questions and is less decisive.

# %%
core = all_q.R.sel(model=[m for m in board.models if answered[m] > 60])
shared = select_questions(core, "common")
print(f"{core.sizes['model']} models, {shared.kept} questions answered by all of them")
pairs = leaderboard_pairs(shared.R, fractional=True, prior="uniform", independent=True)
print(pd.DataFrame(pairs.adjacent()).round(3).to_string(index=False))
print(pairs.method)

# %% [markdown]
# ## What the difference means
#
# * **common** is one scale but a thin one: with a subset model on the board, the common
#   questions are few, the intervals wide, and the question set arbitrary.
# * **all** uses every answer, but each model on its own questions: its numbers are right
#   for those questions and not comparable across models (the output says so).
# * **crossed** uses every answer *and* one scale: a question's difficulty is learned from
#   the models that answered it, so a model that missed it is still placed on the full set.
#   It assumes the additive logit structure (ability minus difficulty); its posterior
#   predictive checks and LOO comparison are in `09_workflow`.
