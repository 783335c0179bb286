"""``rank`` on an lm-eval ``--output_path`` as lm-eval writes it: one leaderboard per task
(``--task`` for one), every model, runs as trials; ``--cluster task`` for a group's
subtasks; one-line errors."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from one_line import one_line_error

from bayes_eval.cli import main

OUTPUT = Path(__file__).parents[1] / "data" / "lm_eval_output"
MODELS = {"EleutherAI__pythia-160m": "EleutherAI/pythia-160m"}
MODELS["meta-llama__Llama-3.2-1B"] = "meta-llama/Llama-3.2-1B"
FILTERS = {"arc_easy": ("none", "acc"), "gsm8k": ("strict-match", "exact_match")}


def _json(capsys, argv):
    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def _mean_by_hand(folder: str, task: str) -> float:
    """Each model's mean score over its runs, read from the samples files directly."""
    flt, metric = FILTERS[task]
    values = [
        rec[metric]
        for f in (OUTPUT / folder).glob(f"samples_{task}_*.jsonl")
        for rec in map(json.loads, f.read_text().splitlines())
        if rec["filter"] == flt
    ]
    return float(np.mean(values))


def test_rank_an_output_path_ranks_both_models_per_task(capsys):
    out = _json(capsys, ["rank", str(OUTPUT)])
    assert out["tasks"] == ["arc_easy", "gsm8k"] and out["file"] == str(OUTPUT)
    assert out["prior"] and out["estimand"] == "these questions"
    for board, task in zip(out["leaderboards"], out["tasks"], strict=True):
        assert board["task"] == task and board["file"] == str(OUTPUT)
        assert board["questions"] == 12 and board["max_trials"] == 2
        assert board["log"]["models"] == 2 and board["log"]["attempts"] == 48
        assert board["log"]["filter"] == FILTERS[task][0]
        assert board["prior"] and board["estimand"] == "these questions"
        # both models, ranked in the order of their raw means (far apart in this fixture)
        means = {MODELS[f]: _mean_by_hand(f, task) for f in MODELS}
        assert [m["model"] for m in board["models"]] == sorted(means, key=means.get)[::-1]
        assert [m["rank"] for m in board["models"]] == [1, 2]
    # the leaderboard of one task is the one --task prints
    alone = _json(capsys, ["rank", str(OUTPUT), "--task", "gsm8k"])
    assert alone["models"] == out["leaderboards"][1]["models"] and alone["task"] == "gsm8k"


def test_rank_prints_one_table_per_task(capsys):
    assert main(["rank", str(OUTPUT)]) == 0
    text = capsys.readouterr().out
    for task, (flt, metric) in FILTERS.items():
        head = f"{OUTPUT} [task {task}] (lm-eval): 2 models, 12 questions, up to 2 trials"
        assert text.count(head) == 1
        block = text.split(head)[1].split("[task")[0]
        assert f"metric: {metric}" in block and f"filter: {flt}" in block
        assert all(model in block for model in MODELS.values())


def test_rank_a_model_folder_and_a_long_table_as_before(capsys, tmp_path):
    one = _json(capsys, ["rank", str(OUTPUT / "meta-llama__Llama-3.2-1B"), "--task", "gsm8k"])
    assert [m["model"] for m in one["models"]] == ["meta-llama/Llama-3.2-1B"]
    csv = tmp_path / "t.csv"
    rows = [
        f"{m},{t},{q},{(q + i) % 2}" for i, m in enumerate("ab") for t in "xy" for q in range(4)
    ]
    csv.write_text("model,task,question,score\n" + "\n".join(rows) + "\n")
    # a long table's tasks are separate benchmarks: one leaderboard per task, never pooled
    every = _json(capsys, ["rank", str(csv)])
    assert every["tasks"] == ["x", "y"]
    assert [d["task"] for d in every["leaderboards"]] == ["x", "y"]
    assert all(d["questions"] == 4 for d in every["leaderboards"])
    y = _json(capsys, ["rank", str(csv), "--task", "y"])
    assert y["questions"] == 4 and y["task"] == "y"
    assert y["models"] == every["leaderboards"][1]["models"]  # one number per question
    # a command that reads one benchmark refuses the pooled table, listing its tasks
    assert main(["plan", str(csv), "a", "b"]) == 2
    assert "holds 2 tasks (x, y)" in capsys.readouterr().err


def _sample(doc_id: int, value: float) -> str:
    rec = {"doc_id": doc_id, "filter": "none", "metrics": ["acc"], "acc": value}
    return json.dumps(rec | {"doc": {}, "target": "0", "resps": [], "filtered_resps": []})


def test_rank_a_group_with_its_subtasks_as_clusters(capsys, tmp_path):
    groups = {"tiny": ["tiny_a", "tiny_b", "tiny_c"], "boolq": []}
    stamp = "2025-07-01T08-00-00.000001"
    for k, model in enumerate(["org/m1", "org/m2"]):
        folder = tmp_path / model.replace("/", "__")
        folder.mkdir()
        results = {"group_subtasks": groups, "model_name": model}
        (folder / f"results_{stamp}.json").write_text(json.dumps(results))
        for j, task in enumerate(["tiny_a", "tiny_b", "tiny_c", "boolq"]):
            lines = [_sample(i, float((i * (k + 1) + j) % 3 > 0)) for i in range(6)]
            (folder / f"samples_{task}_{stamp}.jsonl").write_text("\n".join(lines) + "\n")
    out = _json(capsys, ["rank", str(tmp_path), "--task", "tiny"])
    assert out["questions"] == 18 and out["log"]["tasks"] == 3
    argv = ["rank", str(tmp_path), "--task", "tiny", "--estimand", "new-questions"]
    clustered = _json(capsys, [*argv, "--cluster", "task"])
    assert clustered["clusters"]["column"] == "task" and clustered["clusters"]["count"] == 3
    assert clustered["task"] == "tiny" and len(clustered["models"]) == 2


def test_bad_output_paths_are_one_line_errors(capsys, tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["rank", str(empty)]) == 2
    assert "an lm-eval --output_path" in one_line_error(capsys)
    aggregated = tmp_path / "agg" / "org__m"
    aggregated.mkdir(parents=True)
    (aggregated / "results_2025-01-01T00-00-00.000001.json").write_text("{}")
    assert main(["rank", str(aggregated.parent)]) == 2
    assert "rerun lm_eval with --log_samples" in one_line_error(capsys)
    assert main(["rank", str(OUTPUT), "--task", "mmlu"]) == 2
    assert "expected one of ['arc_easy', 'gsm8k']" in one_line_error(capsys)
    assert main(["rank", str(OUTPUT), "--model", "x"]) == 2
    assert "holds 2" in one_line_error(capsys)
