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
# # How many trials until the ranking settles?
#
# Hariri et al. ("Don't Pass@k: A Bayesian Framework for Large Language Model Evaluation")
# judge a metric by how fast the ranking from the first n trials agrees with a gold standard:
# Kendall's tau_b versus n, and convergence@n (App. I.1), the smallest n after which the
# ranking matches the gold standard and never changes again. Sizes are tiny here so that the
# test suite can run the notebook; `bayes-eval validate ...` runs the full studies, and
# `bayes_eval.validation.registry` reaches the same studies from Python.

# %%
import tempfile

import numpy as np

from bayes_eval.ranking.convergence import convergence_pmf, stability
from bayes_eval.synthetic.biased_coin import PAPER_PI_BAR, mimic_probabilities, simulate_results
from bayes_eval.validation import registry

p = mimic_probabilities(seed=0)  # 11 biased-coin mimics, M = 30 (§2.7)
R = simulate_results(p, 40, seed=1)  # one 11 x 30 x 40 results array

# %% [markdown]
# ## tau versus n against the true ranking (Fig. 2a, few replicates)

# %%
fresh = simulate_results(np.broadcast_to(p, (100, *p.shape)), 40, seed=2)
methods = ["bayes", "pass_at_k:2", "pass_at_k:8", "g_pass_at_k_tau:4:0.5"]
st = stability(fresh, methods, PAPER_PI_BAR, scheme="given")
for name, curve in zip(st.methods, st.tau_mean, strict=True):
    print(f"{name:22s}", np.round(curve[[0, 3, 7, 19, 39]], 3))

# %% [markdown]
# ## convergence@n by permuting the trials of one matrix (Fig. 1)
# The gold standard is Bayes@40 of the data itself.

# %%
st = stability(R, ["bayes", "pass_at_k:4"], scheme="column", replace=False, replicates=500, seed=3)
for name, conv in zip(st.methods, st.convergence, strict=True):
    pmf, none = convergence_pmf(conv, 40)
    mean = conv[conv > 0].mean() if (conv > 0).any() else float("nan")
    print(
        f"{name:12s} mean convergence@n = {mean:5.1f}, no convergence in {none:.0%} of replicates"
    )

# %% [markdown]
# ## Prior runs as a prior (App. C) and distinguishability (App. D)
# Two whole studies through the registry, as `bayes-eval validate prior-benefit
# --replicates 400 --n-max 10` would run them: each writes NetCDF and a PNG to the output
# folder and returns the Dataset, a JSON-ready summary and the files.

# %%
out = tempfile.mkdtemp()
pb = registry.run_study("prior-benefit", out, progress=False, replicates=400, n_max=10).dataset
print(pb["delta_tau"].sel(n=[1, 5, 10]).to_pandas().round(3))
result = registry.run_study("distinguishability", out, progress=False, replicates=200, n_max=300)
print("files:", {k: p.name for k, p in result.files.items()})
di = result.dataset
print("P(LLM10 above LLM9) at N = 80:", round(float(di["p_correct"].sel(n=80)), 3))
print(
    "N for expected z = 1.645 / 1.96:",
    di.attrs["n_expected_z_1.645"],
    di.attrs["n_expected_z_1.96"],
)
