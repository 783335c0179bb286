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
# # Do the intervals cover? A small coverage study
#
# Every cell simulates benchmarks with known true $\bar\pi$ and records how often each interval
# method covers it. Under the uniform-Dirichlet scenario the Bayes@N prior is correct, so
# the exact credible interval covers at the nominal rate; the CLT interval over questions
# undercovers at small M. Tiny sizes here; `bayes-eval validate coverage --config FILE` runs
# the full grid on Dask and resumes after interruptions.

# %%
from bayes_eval.validation import coverage

config = coverage.CoverageConfig(
    M=[5, 30],
    N=[1, 8],
    C=[1],
    scenarios=["uniform"],
    reps=500,
    exact_reps=500,
    bootstrap_resamples=100,
    seed=0,
)
cells = [coverage.run_cell(cell, config) for cell in config.cells()]

# %%
import xarray as xr

ds = xr.merge(cells)
table = ds["coverage"].sel(scenario="uniform", C=1).to_dataframe().unstack("interval")["coverage"]
print(table.round(3))

# %% [markdown]
# Ranking claims at $z > 1.645$ between two independently simulated models, and how often
# they are wrong:

# %%
print(
    ds[["claim_rate_bayes", "claim_error_bayes", "claim_rate_wald", "claim_error_wald"]]
    .to_dataframe()
    .round(3)
)
