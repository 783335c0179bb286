"""lm-evaluation-harness output as lm-eval writes it: an ``--output_path`` folder with a
folder per model, ``results_<time>.json`` and ``samples_<task>_<time>.jsonl`` per run
(``tests/data/lm_eval_output``, written by ``tests/data/make_lm_eval_output.py``), groups of
subtasks and their clusters, and what is refused."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from bayes_eval.logs import detect_format, read_eval_log
from bayes_eval.logs.lm_eval import lm_eval_files, lm_eval_tasks
from bayes_eval.logs.read import log_tasks

OUTPUT = Path(__file__).parents[1] / "data" / "lm_eval_output"
MODELS = {"EleutherAI__pythia-160m": "EleutherAI/pythia-160m"}
MODELS["meta-llama__Llama-3.2-1B"] = "meta-llama/Llama-3.2-1B"
FILTERS = {"arc_easy": ("none", "acc"), "gsm8k": ("strict-match", "exact_match")}


def _by_hand(task: str) -> dict[str, np.ndarray]:
    """Independent reading of the fixture: per model folder, its runs in time order (the
    file names sort by time), the first metric under the task's first filter, one column
    per run, rows by doc_id."""
    flt, metric = FILTERS[task]
    out = {}
    for folder, model in MODELS.items():
        runs = []
        for f in sorted((OUTPUT / folder).glob(f"samples_{task}_*.jsonl")):
            recs = [json.loads(line) for line in f.read_text().splitlines()]
            recs = sorted((r for r in recs if r["filter"] == flt), key=lambda r: r["doc_id"])
            runs.append([r[metric] for r in recs])
        out[model] = np.array(runs).T
    return out


def test_the_fixture_has_lm_evals_layout():
    # what lm-eval writes: OUT/<sanitized model>/results_<time>.json + samples per task
    for folder, model in MODELS.items():
        results = sorted((OUTPUT / folder).glob("results_*.json"))
        assert len(results) == 2
        for r in results:
            data = json.loads(r.read_text())
            assert data["model_name"] == model and data["model_name_sanitized"] == folder
            assert {"results", "configs", "versions", "n-samples", "group_subtasks"} <= set(data)
            stamp = r.name.removeprefix("results_").removesuffix(".json")
            for task in FILTERS:
                assert (OUTPUT / folder / f"samples_{task}_{stamp}.jsonl").is_file()
    assert detect_format(OUTPUT) == "lm-eval"
    assert len(lm_eval_files([OUTPUT])) == 8


def test_output_path_reads_every_model_and_task_runs_as_trials():
    assert lm_eval_tasks([OUTPUT]) == ["arc_easy", "gsm8k"] == log_tasks(OUTPUT)
    pooled = read_eval_log(OUTPUT)
    assert pooled.summary()["tasks"] == 2 and pooled.summary()["models"] == 2
    assert "task" not in pooled.meta
    for task in FILTERS:
        log = read_eval_log(OUTPUT, task=task)
        R = log.results()
        assert list(R["model"].values) == sorted(MODELS.values())  # names from results JSON
        assert R.sizes == {"model": 2, "question": 12, "trial": 2}
        assert log.meta["task"] == task and log.meta["filter"] == FILTERS[task][0]
        for model, expected in _by_hand(task).items():
            np.testing.assert_array_equal(R.sel(model=model).values, expected)
        # the pooled log holds the same results, questions named task/doc_id
        sub = pooled.results().sel(question=[f"{task}/{q}" for q in R["question"].values])
        np.testing.assert_array_equal(sub.values, R.values)


def test_model_names_without_results_json(tmp_path):
    out = shutil.copytree(OUTPUT, tmp_path / "out")
    llama = out / "meta-llama__Llama-3.2-1B"
    first = sorted(llama.glob("results_*.json"))[0]
    first.unlink()  # this run's samples take the name the other results file gives
    assert set(read_eval_log(out, task="gsm8k").results()["model"].values) == set(MODELS.values())
    assert read_eval_log(out, task="gsm8k").results().sizes["trial"] == 2
    for f in out.glob("*/results_*.json"):
        f.unlink()  # no results at all: the folder's name as lm-eval wrote it
    assert set(read_eval_log(out, task="gsm8k").results()["model"].values) == set(MODELS)
    only = read_eval_log(llama, task="gsm8k", model="llama")
    assert list(only.results()["model"].values) == ["llama"]


def test_a_json_output_path_names_the_model_from_its_results_file(tmp_path):
    # --output_path run.json: run_<time>.json with the samples beside it, no model folder
    src = OUTPUT / "EleutherAI__pythia-160m"
    for f in src.iterdir():
        name = f.name.replace("results_", "run_") if f.name.startswith("results_") else f.name
        shutil.copy(f, tmp_path / name)
    R = read_eval_log(tmp_path, task="arc_easy").results()
    assert list(R["model"].values) == ["EleutherAI/pythia-160m"]


def _sample(doc_id: int, value: float) -> str:
    return json.dumps(
        {
            "doc_id": doc_id,
            "doc": {"question": f"q{doc_id}"},
            "target": "0",
            "arguments": {"gen_args_0": {"arg_0": "Q", "arg_1": " A"}},
            "resps": [[["-1.0", "False"]]],
            "filtered_resps": [["-1.0", "False"]],
            "filter": "none",
            "metrics": ["acc"],
            "doc_hash": "d",
            "prompt_hash": "p",
            "target_hash": "t",
            "acc": value,
        }
    )


def _group_output(root: Path) -> Path:
    """``lm_eval --tasks mmlu_tiny,boolq`` for two models: a group of two subgroups of one
    subject each, and a task outside any group."""
    groups = {
        "mmlu_tiny": ["mmlu_tiny_stem", "mmlu_tiny_other"],
        "mmlu_tiny_stem": ["mmlu_tiny_astronomy"],
        "mmlu_tiny_other": ["mmlu_tiny_anatomy"],
        "boolq": [],
    }
    stamp = "2025-07-01T08-00-00.000001"
    for k, model in enumerate(["org/a", "org/b"]):
        folder = root / model.replace("/", "__")
        folder.mkdir(parents=True)
        results = {"results": {}, "group_subtasks": groups, "model_name": model}
        (folder / f"results_{stamp}.json").write_text(json.dumps(results))
        for j, task in enumerate(["mmlu_tiny_astronomy", "mmlu_tiny_anatomy", "boolq"]):
            lines = [_sample(i, float((i + j + k) % 2)) for i in range(3)]
            (folder / f"samples_{task}_{stamp}.jsonl").write_text("\n".join(lines) + "\n")
    return root


def test_groups_pool_their_subtasks_and_give_the_clusters(tmp_path):
    out = _group_output(tmp_path / "out")
    assert lm_eval_tasks([out]) == ["boolq", "mmlu_tiny"]
    log = read_eval_log(out, task="mmlu_tiny", cluster="task")
    R = log.results()
    assert R.sizes == {"model": 2, "question": 6, "trial": 1}
    assert log.meta["clusters"] == {
        f"mmlu_tiny_{s}/{i}": f"mmlu_tiny_{s}" for s in ("anatomy", "astronomy") for i in range(3)
    }
    # subject j, model k, doc i scored (i + j + k) mod 2, as written
    a = R.sel(model="org/a", question=[f"mmlu_tiny_astronomy/{i}" for i in range(3)])
    np.testing.assert_array_equal(a.values[:, 0], [0, 1, 0])
    # an intermediate group or a subject by its name
    stem = read_eval_log(out, task="mmlu_tiny_stem").results()
    assert list(stem["question"].values) == ["0", "1", "2"]
    assert set(stem["task"].values) == {"mmlu_tiny_astronomy"}
    one = read_eval_log(out, task="boolq", cluster="task")
    assert set(one.meta["clusters"].values()) == {"boolq"}


def test_clusters_from_a_field_of_the_document(tmp_path):
    # MMLU-Pro style: one task whose documents carry their category
    folder = tmp_path / "org__m"
    folder.mkdir()
    stamp = "2025-07-01T08-00-00.000001"
    lines = []
    for i in range(6):
        rec = json.loads(_sample(i, float(i % 2)))
        rec["doc"] = {"question": f"q{i}", "category": ["law", "math", "physics"][i % 3]}
        lines.append(json.dumps(rec))
    f = folder / f"samples_mmlu_pro_{stamp}.jsonl"
    f.write_text("\n".join(lines) + "\n")
    log = read_eval_log(tmp_path, cluster="doc.category")
    assert log.meta["clusters"] == {str(i): ["law", "math", "physics"][i % 3] for i in range(6)}
    assert log.meta["cluster_column"] == "doc.category"
    # a question whose documents disagree (another run, another category) is refused
    rec = json.loads(lines[0])
    rec["doc"]["category"] = "history"
    (folder / "samples_mmlu_pro_2025-07-02T08-00-00.000001.jsonl").write_text(json.dumps(rec))
    with pytest.raises(ValueError, match=r"question '0' is in two clusters"):
        read_eval_log(tmp_path, cluster="doc.category")


def test_what_is_refused(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(ValueError, match=r"no samples_<task>_<time>.jsonl file here or in its"):
        lm_eval_files([empty])
    aggregated = tmp_path / "aggregated" / "org__m"
    aggregated.mkdir(parents=True)
    shutil.copy(next(OUTPUT.glob("*/results_*.json")), aggregated)
    with pytest.raises(ValueError, match=r"rerun lm_eval with --log_samples"):
        detect_format(aggregated.parent)
    with pytest.raises(ValueError, match=r"rerun lm_eval with --log_samples"):
        lm_eval_files([aggregated.parent])
    with pytest.raises(ValueError, match=r"no task 'mmlu'.*\['arc_easy', 'gsm8k'\]"):
        read_eval_log(OUTPUT, task="mmlu")
    with pytest.raises(ValueError, match=r"holds 2: \['EleutherAI/pythia-160m', 'meta-llama"):
        read_eval_log(OUTPUT, model="one")
    with pytest.raises(ValueError, match=r"cluster is 'subject'.*\('task'\).*'doc.FIELD'"):
        read_eval_log(OUTPUT, cluster="subject")
    with pytest.raises(ValueError, match=r"line 1: the document has no field 'topic'.*'answer'"):
        read_eval_log(OUTPUT, task="gsm8k", cluster="doc.topic")
    # a filter that one task's file lacks is named with that file (not skipped)
    with pytest.raises(
        ValueError, match=r"arc_easy_.*filter 'strict-match'; this file's filters: \['none'\]"
    ):
        read_eval_log(OUTPUT / "EleutherAI__pythia-160m", filter="strict-match")
    broken = shutil.copytree(OUTPUT, tmp_path / "broken")
    next(broken.glob("*/results_*.json")).write_text("{not json")
    with pytest.raises(ValueError, match=r"results_.*json: not a readable lm-eval results"):
        read_eval_log(broken)


def test_task_selects_rows_of_any_log(tmp_path):
    csv = tmp_path / "t.csv"
    csv.write_text("model,task,question,score\na,x,1,1\na,y,1,0\nb,x,1,0\nb,y,1,1\n")
    assert log_tasks(csv) == ["x", "y"]  # a long table's tasks: each its own benchmark
    one = tmp_path / "one.csv"
    one.write_text("model,task,question,score\na,x,1,1\nb,x,1,0\n")
    assert log_tasks(one) == []  # one task: nothing to split
    R = read_eval_log(csv, task="y").results()
    assert list(R["question"].values) == ["1"]
    np.testing.assert_array_equal(R.values[:, 0, 0], [0, 1])
    with pytest.raises(ValueError, match=r"no task 'z'; expected one of \['x', 'y'\]"):
        read_eval_log(csv, task="z")
    clustered = tmp_path / "c.csv"
    clustered.write_text("model,task,question,score,c\na,x,1,1,k\na,y,1,0,m\na,y,2,1,n\n")
    # the clusters follow the questions, named without their task once one task is left
    assert read_eval_log(clustered, task="y", cluster="c").meta["clusters"] == {"1": "m", "2": "n"}
