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
# # Rubric schemata and evaluation logs
#
# Hariri et al. ("Don't Pass@k") §3.4 and Appendix F score attempts by **categories** rather than 0/1: base
# signals per attempt (`is_correct`, `has_box`, `completion_bpt`, `token_ratio`, verifier
# probabilities, ...) pass through the rubric variables of Table 4 and one of the twelve
# schemata of Table 5, and Bayes@N scores the categories with weights `w`.
#
# This notebook (seconds; executed by the tests)
#
# 1. writes a small long table of signals for four models and ranks them under every schema,
# 2. shows that thresholds are computed once over all models' attempts,
# 3. defines a schema of our own in TOML, and what happens when it is not a partition,
# 4. reads logs in the shapes of Inspect AI and lm-evaluation-harness, with a failed trial.

# %%
import json
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd

from bayes_eval import xr as bxr
from bayes_eval.logs import read_eval_log
from bayes_eval.ranking.leaderboard import rank_table
from bayes_eval.rubrics.catalog import SCHEMATA
from bayes_eval.rubrics.comparison import compare_schemata, plot_schema_ranks
from bayes_eval.rubrics.spec import load_schema

rng = np.random.default_rng(2026)

# %% [markdown]
# ## 1. Signals for four models, ranked under every schema
# Model A is accurate and boxes its answers; B is nearly as accurate but rarely boxes;
# C is less accurate but confident; D is weak. 20 questions x 6 trials each.

# %%
rows = []
profiles = {
    "A": (0.80, 0.9, 0.5),
    "B": (0.76, 0.3, 0.9),
    "C": (0.55, 0.8, 0.4),
    "D": (0.30, 0.5, 1.2),
}
for model, (acc, box, bpt) in profiles.items():
    for q in range(20):
        p_q = np.clip(acc + rng.normal(0, 0.15), 0.01, 0.99)
        for t in range(6):
            correct = rng.random() < p_q
            rows.append(
                {
                    "model": model,
                    "question": f"q{q:02d}",
                    "trial": t,
                    "is_correct": float(correct),
                    "has_box": float(rng.random() < box),
                    "completion_bpt": rng.gamma(4, bpt / 4) * (0.8 if correct else 1.2),
                    "token_ratio": rng.beta(2, 8),
                    "prompt_bpt": rng.gamma(5, 0.3),
                    "repeated_pattern": float(rng.random() < 0.02),
                    "compass_context_A": float(
                        np.clip(0.7 * correct + rng.normal(0.15, 0.15), 0, 1)
                    ),
                }
            )
Path("signals.csv").write_text(pd.DataFrame(rows).to_csv(index=False))
log = read_eval_log("signals.csv")
print(log.summary()["attempts"], "attempts;", "signals:", log.signals)

# %%
table = compare_schemata(log.signal_dataset(), present=log.present())
print(table["rank"].to_pandas())
print("skipped:", table.attrs["skipped"])
plot_schema_ranks(table, "schema_ranks.png")

# %% [markdown]
# Verifier-Only needs the verifier's B and C probabilities, which these data do not have,
# so it is skipped (and listed). Under *Strict Compliance* (unboxed-correct is
# non-compliant) model B, who rarely boxes, drops.

# %% [markdown]
# ## 2. One scale for every model: pooled thresholds
# `tau_low_wrong` is the 60th percentile of `completion_bpt` among **all models'** wrong
# attempts. Thresholds are returned with the result, and can be passed back to score a new
# model on the same scale.

# %%
cats = log.categorize("conf_wrong_penalty")
print(cats.thresholds, cats.counts)
ranked = rank_table(cats.R, cats.weights, skipna=True)
print(ranked[["mu", "sigma", "rank", "rank_ci"]].to_pandas())

# %% [markdown]
# ## 3. A schema of our own
# Categories are rubric expressions over signals, Table 4 variables and thresholds. The
# schema is checked to be a partition of the valid attempts on a grid that visits every
# cell of the rule set, so an overlap is caught even if the data never hit it.

# %%
Path("speed.toml").write_text("""
name = "Fast and right"
weights = [0, 0, 1, 2]
[thresholds]
fast_cut = { signal = "token_ratio", percentile = 50, among = "is_correct >= 0.5" }
[[categories]]
label = "wrong"
when = "wrong"
[[categories]]
label = "slow correct"
when = "correct and token_ratio > fast_cut"
[[categories]]
label = "fast correct"
when = "correct and token_ratio <= fast_cut"
""")
speed = load_schema("speed.toml")
out = log.categorize(speed)
print(out.thresholds, out.counts)

# %%
Path("overlap.toml").write_text("""
name = "Overlapping"
weights = [0, 0, 1]
[[categories]]
when = "wrong or unboxed"
[[categories]]
when = "correct"
""")
try:
    log.categorize(load_schema("overlap.toml"))
except ValueError as err:
    print("rejected:", err)

# %% [markdown]
# ## 4. Logs from other tools
# An Inspect AI `.eval` log is a zip of JSON: epochs are trials, and every scorer is kept as
# a signal. Here model `m` has a sample whose second epoch failed.


# %%
def inspect_sample(qid, epoch, value, error=None):
    s = {
        "id": qid,
        "epoch": epoch,
        "scores": {"match": {"value": value}},
        "output": {"usage": {"output_tokens": 50}, "choices": [{"stop_reason": "stop"}]},
    }
    if error:
        s["error"] = {"message": error}
    return s


with zipfile.ZipFile("run.eval", "w") as zf:
    zf.writestr(
        "header.json",
        json.dumps({"eval": {"task": "arith", "model": "m", "scorers": [{"name": "match"}]}}),
    )
    for s in (
        inspect_sample(1, 1, "C"),
        inspect_sample(1, 2, "C"),
        inspect_sample(2, 1, "I"),
        inspect_sample(2, 2, None, error="timeout"),
    ):
        zf.writestr(f"samples/{s['id']}_epoch_{s['epoch']}.json", json.dumps(s))
inspect_log = read_eval_log("run.eval")
print(inspect_log.results().values, inspect_log.summary()["failed"], "failed")

# %% [markdown]
# lm-evaluation-harness `--log_samples` writes `samples_<task>_<time>.jsonl`; two runs of
# the same task become two trials.

# %%
folder = Path("lm_eval_out/org__model")
folder.mkdir(parents=True, exist_ok=True)
for day, values in ((1, [1, 0, 1]), (2, [1, 1, 0])):
    lines = [
        json.dumps(
            {
                "doc_id": i,
                "filter": "strict-match",
                "metrics": ["exact_match"],
                "resps": [["\\boxed{4}"]],
                "filtered_resps": ["\\boxed{4}"],
                "exact_match": v,
            }
        )
        for i, v in enumerate(values)
    ]
    (folder / f"samples_gsm8k_2025-01-0{day}T10-00-00.000000.jsonl").write_text("\n".join(lines))
lm_log = read_eval_log(folder)
print(lm_log.results().values[0])
print(bxr.bayes(lm_log.results())["mu"].values)

# %% [markdown]
# The CLI does the same: `bayes-eval rank run.eval`, `bayes-eval rank signals.csv --schema
# format_aware`, `bayes-eval schemas signals.csv --plot ranks.png`, `bayes-eval schemas`.
# Built-in schemata:

# %%
print(sorted(SCHEMATA))
