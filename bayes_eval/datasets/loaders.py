"""Readers of the shipped files (stdlib csv/json + numpy; one function per dataset).

Each returns an :class:`xarray.Dataset` without the provenance attributes, which
:func:`bayes_eval.datasets.load` adds from the registry.
"""

from __future__ import annotations

import csv
import gzip
import io
import json
from pathlib import Path

import numpy as np
import xarray as xr
from numpy.typing import ArrayLike

RESULT_DIMS = ("model", "question", "trial")


def _rows(path: Path) -> list[dict[str, str]]:
    text = (
        gzip.decompress(path.read_bytes()).decode() if path.suffix == ".gz" else (path.read_text())
    )
    return list(csv.DictReader(io.StringIO(text)))


def _natural(text: str) -> tuple:
    import re

    return tuple(int(t) if t.isdigit() else t for t in re.split(r"(\d+)", text))


def counts_to_results(correct: np.ndarray, trials: int) -> np.ndarray:
    """0/1 trials from correct counts, the correct ones first.

    Only counts are published for these sources, so the order of the trials is unknown;
    every order-independent quantity (Bayes@N, avg@N, the Pass family) is exact, anything
    that depends on the order (the first-n-trials curves) is not defined by the data.
    """
    correct = np.asarray(correct)
    return (np.arange(trials) < correct[..., None]).astype(np.float64)


def _results(
    values: np.ndarray, models: ArrayLike, questions: ArrayLike, **coords: ArrayLike
) -> xr.DataArray:
    return xr.DataArray(
        values,
        dims=RESULT_DIMS,
        coords={
            "model": np.asarray(models, dtype=str),
            "question": np.asarray(questions, dtype=str),
            "trial": np.arange(values.shape[-1]),
            **coords,
        },
        name="results",
    )


def load_matharena(folder: Path) -> xr.Dataset:
    """Read ``matharena_aime25_i`` from ``folder``: 0/1 results and USD per run per model.

    Only the correct counts are published: each question's correct runs come first.
    """
    rows = _rows(folder / "counts.csv")
    models = list(dict.fromkeys(r["model"] for r in rows))
    questions = sorted({int(r["question"]) for r in rows})
    trials = {int(r["trials"]) for r in rows}
    if len(trials) != 1:  # pragma: no cover - guarded by the shipped file
        raise ValueError(f"{folder}: unequal trial counts {sorted(trials)}.")
    correct = np.zeros((len(models), len(questions)), dtype=int)
    for r in rows:
        correct[models.index(r["model"]), questions.index(int(r["question"]))] = int(r["correct"])
    cost = {r["model"]: r["cost_usd"] for r in _rows(folder / "cost_usd_per_run.csv")}
    cost_usd = np.array([float(cost[m]) if cost.get(m) else np.nan for m in models])
    R = _results(counts_to_results(correct, trials.pop()), models, questions)
    return xr.Dataset(
        {"results": R, "cost_usd": ("model", cost_usd)},
        attrs={
            "task": "aime25_i",
            "trial_order": "unknown: correct trials first (use order-independent quantities)",
            "cost_usd": "USD for one run over the 15 questions; NaN where not published",
        },
    )


def load_phi4(folder: Path) -> xr.Dataset:
    """Read ``phi4_aime25`` from ``folder``: 0/1 results and the published metrics.

    The published metrics are Pass@k, Pass^k by k and the Bayes@N intervals of other models;
    the correct trials come first (only counts are published).
    """
    rows = _rows(folder / "counts.csv")
    trials = int(rows[0]["trials"])
    correct = np.array([[int(r["correct"]) for r in rows]])
    pub = json.loads((folder / "published.json").read_text())
    R = _results(counts_to_results(correct, trials), [pub["model"]], [r["question"] for r in rows])
    others = pub["other_models_bayes_ci"]
    by_k = pub["by_k"]
    return xr.Dataset(
        {
            "results": R,
            "published_pass_at_k": ("k", np.array(by_k["pass_at_k"])),
            "published_pass_hat_k": ("k", np.array(by_k["pass_hat_k"])),
            "published_bayes_ci": (
                ("reference_model", "statistic"),
                np.array(list(others.values()), dtype=float),
            ),
        },
        coords={
            "k": np.array(by_k["k"]),
            "reference_model": list(others),
            "statistic": ["mu", "sigma", "lo", "hi"],
        },
        attrs={
            "task": pub["task"],
            "trial_order": "unknown: correct trials first (use order-independent quantities)",
            "published": "the authors' printed values, to 3 decimals (95% intervals)",
        },
    )


def load_taubench(folder: Path) -> xr.Dataset:
    """Read ``taubench_airline_gpt4o`` from ``folder``: gpt-4o's reward per task and trial."""
    rows = _rows(folder / "rewards.csv")
    tasks = sorted({int(r["task_id"]) for r in rows})
    n_trials = max(int(r["trial"]) for r in rows) + 1
    R = np.full((1, len(tasks), n_trials), np.nan)
    for r in rows:
        R[0, tasks.index(int(r["task_id"])), int(r["trial"])] = float(r["reward"])
    return xr.Dataset({"results": _results(R, ["gpt-4o"], tasks)}, attrs={"task": "airline"})


def load_cruxeval(folder: Path) -> xr.Dataset:
    """Read ``cruxeval_codellama7b`` from ``folder``: 0/1 results per ``task/question``."""
    rows = _rows(folder / "correct.csv.gz")
    R = np.array([[float(c) for c in r["correct"]] for r in rows])[None]
    questions = [f"{r['task']}/{r['question']}" for r in rows]
    return xr.Dataset(
        {
            "results": _results(
                R,
                ["codellama-7b_temp0.2"],
                questions,
                task=("question", [r["task"] for r in rows]),
            )
        },
        attrs={"published_pass_at_1": "input 35.95, output 34.21 (percent)"},
    )


def load_gpt_oss(folder: Path) -> xr.Dataset:
    """Read ``gpt_oss_20b_aime25_q06`` from ``folder``: each attempt's answer and scores.

    One model, one question: per trial the correctness (``results``), the verifier's
    probability and the answer, with the ground truth as an attribute.
    """
    rows = _rows(folder / "attempts.csv")
    shape = (1, 1, len(rows))
    R = np.array([float(r["correct"]) for r in rows]).reshape(shape)
    prob = np.array([float(r["verifier_prob"]) for r in rows]).reshape(shape)
    answers = np.array([r["answer"] for r in rows], dtype=str).reshape(shape)
    model, question = ["gpt-oss-20b_low"], ["aime25_q06"]
    return xr.Dataset(
        {
            "results": _results(R, model, question),
            "verifier_prob": (RESULT_DIMS, prob),
            "answer": (RESULT_DIMS, answers),
        },
        attrs={
            "task": "aime25",
            "ground_truth": (folder / "ground_truth.txt").read_text().strip(),
            "verifier_prob": "CompassVerifier's probability that the answer is correct",
        },
    )


#: The human MT-Bench order of the six candidates (best first); see mtbench_judges/SOURCE.md.
MTBENCH_HUMAN_ORDER = (
    "gpt-4",
    "claude-v1",
    "gpt-3.5-turbo",
    "vicuna-13b-v1.2",
    "alpaca-13b",
    "llama-13b",
)


def load_mtbench(folder: Path) -> xr.Dataset:
    """Read ``mtbench_judges`` from ``folder``: score counts per candidate, judge and level.

    With the same-family mask of judge and candidate, the model families and the human rank
    (``MTBENCH_HUMAN_ORDER``).
    """
    rows = _rows(folder / "counts.csv")
    cands = list(dict.fromkeys(r["candidate"] for r in rows))
    judges = list(dict.fromkeys(r["judge"] for r in rows))
    levels = sorted({int(r["score"]) for r in rows})
    count = np.zeros((len(cands), len(judges), len(levels)), dtype=np.int64)
    same = np.zeros((len(judges), len(cands)), dtype=bool)
    cand_id, cand_fam, judge_fam = {}, {}, {}
    for r in rows:
        k, j = cands.index(r["candidate"]), judges.index(r["judge"])
        count[k, j, levels.index(int(r["score"]))] += int(r["count"])
        same[j, k] = r["same_family"] == "1"
        cand_id[r["candidate"]], cand_fam[r["candidate"]] = r["candidate_id"], r["candidate_family"]
        judge_fam[r["judge"]] = r["judge_family"]
    human_rank = np.array([MTBENCH_HUMAN_ORDER.index(cand_id[c]) + 1 for c in cands])
    return xr.Dataset(
        {
            "count": (("candidate", "judge", "score"), count),
            "same_family": (("judge", "candidate"), same),
            "human_rank": ("candidate", human_rank),
        },
        coords={
            "candidate": cands,
            "judge": judges,
            "score": levels,
            "candidate_id": ("candidate", [cand_id[c] for c in cands]),
            "candidate_family": ("candidate", [cand_fam[c] for c in cands]),
            "judge_family": ("judge", [judge_fam[j] for j in judges]),
        },
        attrs={
            "human_rank": "the human MT-Bench order (1 = best), inferred from the paper's "
            "Table 1 baselines; the human judgments themselves are not shipped",
            "same_family": "judge and candidate from one model family: excluded by the paper",
        },
    )


SUMMEVAL_JUDGES = ("j_gpt4_0314", "j_gpt35_0301", "j_llama2_70b", "j_llama2_13b", "j_llama2_7b")


def load_summeval(folder: Path) -> xr.Dataset:
    """Read ``summeval_judges`` from ``folder``: expert, crowd and LLM-judge scores.

    Each is indexed by document (``question``), system (``candidate``) and aspect; NaN where
    a score is missing or unparseable.
    """
    rows = _rows(folder / "scores.csv.gz")
    docs = sorted({r["doc_id"] for r in rows})
    systems = sorted({r["system"] for r in rows}, key=_natural)
    aspects = sorted({r["dim"] for r in rows})
    groups = {
        "expert_score": [f"expert{i}" for i in (1, 2, 3)],
        "crowd_score": [f"turker{i}" for i in (1, 2, 3, 4, 5)],
        "judge_score": list(SUMMEVAL_JUDGES),
    }
    shape = (len(docs), len(systems), len(aspects))
    arrays = {g: np.full((*shape, len(cols)), np.nan) for g, cols in groups.items()}
    di = {d: i for i, d in enumerate(docs)}
    si = {s: i for i, s in enumerate(systems)}
    ai = {a: i for i, a in enumerate(aspects)}
    for r in rows:
        idx = (di[r["doc_id"]], si[r["system"]], ai[r["dim"]])
        for g, cols in groups.items():
            arrays[g][idx] = [float(r[c]) if r[c] else np.nan for c in cols]
    base = ("question", "candidate", "aspect")
    return xr.Dataset(
        {
            "expert_score": ((*base, "expert"), arrays["expert_score"]),
            "crowd_score": ((*base, "crowd_worker"), arrays["crowd_score"]),
            "judge_score": ((*base, "judge"), arrays["judge_score"]),
        },
        coords={
            "question": docs,
            "candidate": systems,
            "aspect": aspects,
            "expert": [1, 2, 3],
            "crowd_worker": [1, 2, 3, 4, 5],
            "judge": list(SUMMEVAL_JUDGES),
        },
        attrs={
            "scale": "Likert 1-5; a few judge scores are fractional (3.5); NaN = unparseable",
            "question": "SummEval document id; candidate = summarisation system",
        },
    )


def _arms(path: Path) -> xr.Dataset:
    rows = _rows(path)
    arm = [int(r["arm"]) for r in rows]
    return xr.Dataset(
        {
            "model": ("arm", [r["model"] for r in rows]),
            "prompt": ("arm", [r["prompt"] for r in rows]),
            "temperature": ("arm", [float(r["temperature"]) for r in rows]),
            "max_tokens": ("arm", [int(r["max_tokens"]) for r in rows]),
            "cost_usd_per_1m": ("arm", [float(r["cost_usd_per_1m"]) for r in rows]),
        },
        coords={"arm": arm},
        attrs={"cost_usd_per_1m": "price per 1M tokens used as the arm's cost per example"},
    )


def load_gsm8k_arms(folder: Path) -> xr.Dataset:
    """Read ``bandit_gsm8k_arms`` from ``folder``: each GSM8K arm's settings and price."""
    return _arms(folder / "gsm8k_arms.csv")


def load_piqa_arms(folder: Path) -> xr.Dataset:
    """Read ``bandit_piqa_arms`` from ``folder``: each PIQA arm's settings and price."""
    return _arms(folder / "piqa_arms.csv")


def load_mmlu_meta(folder: Path) -> xr.Dataset:
    """Read ``bandit_mmlu_meta`` from ``folder``: the MMLU subjects, priors and prices.

    Per subject its size, prior bucket and the arms' accuracy mean and sd; per model its input
    price per 1M tokens; per bucket the prior mean and variance.
    """
    meta = json.loads((folder / "mmlu_meta.json").read_text())
    tasks = meta["tasks"]
    models = meta["models_in_row_order_with_input_cost_usd_per_1m"]
    buckets = list(meta["prior_buckets_code"])
    return xr.Dataset(
        {
            "n_questions": ("subject", [int(t[1]) for t in tasks]),
            "prior_bucket": ("subject", [t[2] for t in tasks]),
            "arm_accuracy_mean": ("subject", [float(t[3]) for t in tasks]),
            "arm_accuracy_sd": ("subject", [float(t[4]) for t in tasks]),
            "input_cost_usd_per_1m": ("model", [float(c) for _, c in models]),
            "prior_mean": ("bucket", [meta["prior_buckets_code"][b][0] for b in buckets]),
            "prior_variance": ("bucket", [meta["prior_buckets_code"][b][1] for b in buckets]),
        },
        coords={
            "subject": [t[0] for t in tasks],
            "model": [m for m, _ in models],
            "bucket": buckets,
        },
        attrs={"row_layout": meta["row_layout"], "underlying_dataset": meta["underlying_dataset"]},
    )


def load_inspect_log(folder: Path) -> xr.Dataset:
    """The arrays of the shipped Inspect log, as the Inspect reader gives them.

    ``log_arrays.json`` is written from the log by ``scripts/build_datasets.py`` with
    :func:`bayes_eval.logs.read_eval_log`; a test checks that reading the log file gives the
    same dataset. Keeping the derived form here lets the data layer stay below the log
    readers (no import of :mod:`bayes_eval.logs`).
    """
    return xr.Dataset.from_dict(json.loads((folder / "log_arrays.json").read_text()))
