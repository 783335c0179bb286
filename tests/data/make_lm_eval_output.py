"""Write ``lm_eval_output/``: an lm-evaluation-harness ``--output_path`` folder, small.

The folder has the layout lm-evaluation-harness 0.4 writes for
``lm_eval --model hf --model_args pretrained=ORG/NAME --tasks arc_easy,gsm8k
--output_path lm_eval_output --log_samples`` run twice for each of two models
(``EleutherAI/pythia-160m``, ``meta-llama/Llama-3.2-1B``):

* one folder per model, named as lm-eval sanitizes the model name (every run of
  ``"<>:/|\\?*[]`` becomes ``__``);
* per run, ``results_<time>.json`` (the aggregated results: ``results``, ``group_subtasks``,
  ``configs`` with each task's ``metadata``, ``versions``, ``n-shot``, ``higher_is_better``,
  ``n-samples``, ``config``, ``model_name``, ``model_name_sanitized``, ...; the configs and
  environment fields are shortened) and one ``samples_<task>_<time>.jsonl`` per task, with
  the run's time as lm-eval writes it (ISO format, ``:`` replaced by ``-``);
* a samples line per document and filter: ``doc_id``, ``doc``, ``target`` (text),
  ``arguments`` (``gen_args_i.arg_j``), ``resps``, ``filtered_resps``, ``filter``,
  ``metrics``, ``doc_hash``, ``prompt_hash``, ``target_hash`` and one field per metric.
  ``arc_easy`` is multiple choice (metrics ``acc``, ``acc_norm``; filter ``none``),
  ``gsm8k`` generates (metric ``exact_match``; filters ``strict-match`` and
  ``flexible-extract``).

The documents are 12 made-up questions per task; the answers are drawn from a seeded
generator (each model has an accuracy per task), so the values are data, not a model's real
output. From the repository root::

    python tests/data/make_lm_eval_output.py   # rewrite tests/data/lm_eval_output/
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from datetime import datetime
from pathlib import Path

import numpy as np

OUT = Path(__file__).with_name("lm_eval_output")
MODELS = {"EleutherAI/pythia-160m": (0.45, 0.10), "meta-llama/Llama-3.2-1B": (0.75, 0.45)}
RUNS = [datetime(2025, 6, 1, 10, 0, 0, 1), datetime(2025, 6, 2, 9, 30, 0, 2)]
N_DOCS = 12
LETTERS = "ABCD"


def _hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _sanitize(model: str) -> str:
    return re.sub(r"[\"<>:/|\\?*\[\]]+", "__", model)


def _arc_lines(rng: np.random.Generator, p: float) -> tuple[list[dict], list[float]]:
    lines, scores = [], []
    for i in range(N_DOCS):
        gold = int(rng.integers(4))
        doc = {
            "id": f"Mercury_{7000 + i}",
            "question": f"Which property of a mineral can be found by look alone? ({i})",
            "choices": {"text": [f"option {c}" for c in LETTERS], "label": list(LETTERS)},
            "answerKey": LETTERS[gold],
        }
        ctx = f"Question: {doc['question']}\nAnswer:"
        correct = bool(rng.random() < p)
        lls = rng.normal(-6.0, 1.0, 4)
        best = gold if correct else (gold + 1 + int(rng.integers(3))) % 4
        lls[best] = lls.max() + 0.5
        acc = float(int(np.argmax(lls)) == gold)
        rec = {
            "doc_id": i,
            "doc": doc,
            "target": str(gold),
            "arguments": {
                f"gen_args_{k}": {"arg_0": ctx, "arg_1": f" option {c}"}
                for k, c in enumerate(LETTERS)
            },
            "resps": [[[str(float(v)), "False"]] for v in lls],
            "filtered_resps": [[str(float(v)), "False"] for v in lls],
            "filter": "none",
            "metrics": ["acc", "acc_norm"],
            "doc_hash": _hash(json.dumps(doc, indent=2)),
            "prompt_hash": _hash(ctx),
            "target_hash": _hash(str(gold)),
            "acc": acc,
            "acc_norm": acc,
        }
        lines.append(rec)
        scores.append(acc)
    return lines, scores


def _gsm8k_lines(rng: np.random.Generator, p: float) -> tuple[list[dict], list[float]]:
    lines, scores = [], []
    for i in range(N_DOCS):
        answer = int(rng.integers(2, 90))
        doc = {
            "question": f"Tom has {answer - 1} apples and buys one more. How many now? ({i})",
            "answer": f"He has {answer - 1} + 1 = {answer} apples.\n#### {answer}",
        }
        ctx = f"Question: {doc['question']}\nAnswer:"
        correct = bool(rng.random() < p)
        said = answer if correct else answer + int(rng.integers(1, 9))
        text = f" He has {answer - 1} + 1 = {said} apples.\n#### {said}"
        flexible = [str(said)]
        strict = [str(said)] if rng.random() < 0.9 else ["[invalid]"]
        for flt, filtered in (("strict-match", strict), ("flexible-extract", flexible)):
            value = float(filtered[0] == str(answer))
            lines.append(
                {
                    "doc_id": i,
                    "doc": doc,
                    "target": doc["answer"],
                    "arguments": {
                        "gen_args_0": {
                            "arg_0": ctx,
                            "arg_1": {"until": ["Question:", "</s>"], "do_sample": False},
                        }
                    },
                    "resps": [[text]],
                    "filtered_resps": filtered,
                    "filter": flt,
                    "metrics": ["exact_match"],
                    "doc_hash": _hash(json.dumps(doc, indent=2)),
                    "prompt_hash": _hash(ctx),
                    "target_hash": _hash(doc["answer"]),
                    "exact_match": value,
                }
            )
            if flt == "strict-match":
                scores.append(value)
    return lines, scores


def _results(model: str, scores: dict[str, list[float]], when: datetime) -> dict:
    def stderr(v: list[float]) -> float:
        return float(np.std(v, ddof=1) / np.sqrt(len(v)))

    arc, gsm = scores["arc_easy"], scores["gsm8k"]
    return {
        "results": {
            "arc_easy": {
                "alias": "arc_easy",
                "acc,none": float(np.mean(arc)),
                "acc_stderr,none": stderr(arc),
                "acc_norm,none": float(np.mean(arc)),
                "acc_norm_stderr,none": stderr(arc),
            },
            "gsm8k": {
                "alias": "gsm8k",
                "exact_match,strict-match": float(np.mean(gsm)),
                "exact_match_stderr,strict-match": stderr(gsm),
            },
        },
        "group_subtasks": {"gsm8k": [], "arc_easy": []},
        "configs": {
            "arc_easy": {
                "task": "arc_easy",
                "tag": ["ai2_arc"],
                "dataset_path": "allenai/ai2_arc",
                "dataset_name": "ARC-Easy",
                "test_split": "test",
                "doc_to_text": "Question: {{question}}\nAnswer:",
                "doc_to_target": "{{choices.label.index(answerKey)}}",
                "output_type": "multiple_choice",
                "num_fewshot": 0,
                "metric_list": [
                    {"metric": "acc", "aggregation": "mean", "higher_is_better": True},
                    {"metric": "acc_norm", "aggregation": "mean", "higher_is_better": True},
                ],
                "metadata": {"version": 1.0, "pretrained": model},
            },
            "gsm8k": {
                "task": "gsm8k",
                "tag": ["math_word_problems"],
                "dataset_path": "gsm8k",
                "dataset_name": "main",
                "test_split": "test",
                "output_type": "generate_until",
                "num_fewshot": 5,
                "metric_list": [
                    {"metric": "exact_match", "aggregation": "mean", "higher_is_better": True}
                ],
                "filter_list": [{"name": "strict-match"}, {"name": "flexible-extract"}],
                "metadata": {"version": 3.0, "pretrained": model},
            },
        },
        "versions": {"arc_easy": 1.0, "gsm8k": 3.0},
        "n-shot": {"arc_easy": 0, "gsm8k": 5},
        "higher_is_better": {
            "arc_easy": {"acc": True, "acc_norm": True},
            "gsm8k": {"exact_match": True},
        },
        "n-samples": {
            "gsm8k": {"original": 1319, "effective": N_DOCS},
            "arc_easy": {"original": 2376, "effective": N_DOCS},
        },
        "config": {
            "model": "hf",
            "model_args": f"pretrained={model}",
            "model_num_parameters": 0,
            "batch_size": "auto",
            "device": "cuda:0",
            "limit": float(N_DOCS),
            "bootstrap_iters": 100000,
            "gen_kwargs": None,
            "random_seed": 0,
            "numpy_seed": 1234,
            "torch_seed": 1234,
            "fewshot_seed": 1234,
        },
        "git_hash": None,
        "date": when.timestamp(),
        "transformers_version": "4.46.0",
        "lm_eval_version": "0.4.8",
        "task_hashes": {},
        "model_source": "hf",
        "model_name": model,
        "model_name_sanitized": _sanitize(model),
        "system_instruction": None,
        "system_instruction_sha": None,
        "fewshot_as_multiturn": False,
        "chat_template": None,
        "chat_template_sha": None,
        "start_time": 1000.0,
        "end_time": 1100.0,
        "total_evaluation_time_seconds": "100.0",
    }


def main() -> None:
    if OUT.exists():
        shutil.rmtree(OUT)
    rng = np.random.default_rng(29)
    for model, (p_arc, p_gsm) in MODELS.items():
        folder = OUT / _sanitize(model)
        folder.mkdir(parents=True)
        for when in RUNS:
            stamp = when.isoformat().replace(":", "-")
            arc, arc_scores = _arc_lines(rng, p_arc)
            gsm, gsm_scores = _gsm8k_lines(rng, p_gsm)
            scores = {"arc_easy": arc_scores, "gsm8k": gsm_scores}
            results = _results(model, scores, when)
            text = json.dumps(results, indent=2, ensure_ascii=False)
            (folder / f"results_{stamp}.json").write_text(text + "\n", encoding="utf-8")
            for task, lines in (("arc_easy", arc), ("gsm8k", gsm)):
                body = "".join(json.dumps(rec, ensure_ascii=False) + "\n" for rec in lines)
                (folder / f"samples_{task}_{stamp}.jsonl").write_text(body, encoding="utf-8")


if __name__ == "__main__":
    main()
