"""Logs read as they are and never pooled: a file reached twice is read once, a log with
several tasks is analysed per task (or refused with the list), different scorings or run
settings are variants (or refused with the reason), repeated Inspect runs are trials, and a log
whose every attempt failed says so."""

from __future__ import annotations

import json
import shutil
import zipfile
from pathlib import Path

import numpy as np
import pytest

from bayes_eval.cli import main
from bayes_eval.logs import read_eval_log
from bayes_eval.logs.read import log_tasks

DATA = Path(__file__).resolve().parents[1] / "data"
LM_EVAL = DATA / "lm_eval_output"
INSPECT = (
    Path(__file__).resolve().parents[2]
    / "bayes_eval/datasets/data/inspect_mmlu_log/mmlu-summary-choices.eval"
)


def _copy(tmp_path: Path) -> Path:
    return shutil.copytree(LM_EVAL, tmp_path / "out")


def test_a_folder_given_twice_or_with_its_subfolder_is_read_once(tmp_path):
    out = _copy(tmp_path)
    once = read_eval_log(out, task="gsm8k").results()
    for paths in (
        [out, out],
        [out, out / "EleutherAI__pythia-160m"],
        [out / "EleutherAI__pythia-160m", out],
        [out, tmp_path / "out" / ".." / "out"],
    ):
        again = read_eval_log(paths, task="gsm8k").results()
        assert again.shape == once.shape  # the same trials, not twice as many
        np.testing.assert_array_equal(again.values, once.values)
    single = out / "EleutherAI__pythia-160m" / "samples_gsm8k_2025-06-01T10-00-00.000001.jsonl"
    both = read_eval_log([single, single.parent], task="gsm8k").results()
    assert both.sizes["trial"] == 2  # the folder's two runs; the file once


@pytest.mark.slow
def test_several_tasks_are_analysed_one_by_one_or_refused(tmp_path, capsys):
    out = _copy(tmp_path)
    assert log_tasks(out) == ["arc_easy", "gsm8k"]
    assert main(["pairs", str(out), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["tasks"] == ["arc_easy", "gsm8k"]
    assert [d["task"] for d in doc["comparisons"]] == ["arc_easy", "gsm8k"]
    assert main(["pairs", str(out), "--task", "gsm8k", "--json"]) == 0
    one = json.loads(capsys.readouterr().out)
    assert one["these_questions"] == doc["comparisons"][1]["these_questions"]
    models = one["models"]
    for command in (["plan", str(out), *models], ["priors", str(out)]):
        assert main(command) == 2
        err = capsys.readouterr().err
        assert "holds 2 tasks (arc_easy, gsm8k)" in err and "--task" in err


def _rewrite(path: Path, edit) -> None:
    lines = [json.loads(x) for x in path.read_text().splitlines() if x.strip()]
    path.write_text("\n".join(json.dumps(edit(r)) for r in lines) + "\n")


def test_models_under_different_filters_or_metrics_are_refused(tmp_path):
    out = _copy(tmp_path)
    for f in (out / "meta-llama__Llama-3.2-1B").glob("samples_gsm8k_*.jsonl"):
        _rewrite(f, lambda r: r | {"filter": "flexible-extract"})
    with pytest.raises(ValueError, match=r"different filters .*--filter"):
        read_eval_log(out, task="gsm8k")
    out2 = _copy(tmp_path / "b")
    for f in (out2 / "EleutherAI__pythia-160m").glob("samples_arc_easy_*.jsonl"):
        _rewrite(f, lambda r: r | {"metrics": ["acc_norm", *r["metrics"]], "acc_norm": 1.0})
    with pytest.raises(ValueError, match=r"different metrics .*--metric"):
        read_eval_log(out2, task="arc_easy")
    # naming the metric reads every model by it
    R = read_eval_log(out2, task="arc_easy", metric="acc").results()
    assert R.sizes["model"] == 2
    mixed = _copy(tmp_path / "c")
    f = sorted((mixed / "EleutherAI__pythia-160m").glob("samples_arc_easy_*.jsonl"))[0]
    flip = iter(range(10**6))
    _rewrite(
        f, lambda r: r | ({"metrics": ["acc_norm"], "acc_norm": 0.0} if next(flip) % 2 else {})
    )
    with pytest.raises(ValueError, match=r"different first metrics"):
        read_eval_log(mixed, task="arc_easy")


def test_runs_with_other_settings_are_variants_not_trials(tmp_path):
    out = _copy(tmp_path)
    folder = out / "EleutherAI__pythia-160m"
    late = sorted(folder.glob("results_*.json"))[-1]
    data = json.loads(late.read_text())
    data["configs"]["gsm8k"]["num_fewshot"] = 0  # the earlier run was 5-shot
    late.write_text(json.dumps(data))
    R = read_eval_log(out, task="gsm8k").results()
    names = sorted(map(str, R["model"].values))
    assert names == [
        "EleutherAI/pythia-160m [num_fewshot=0]",
        "EleutherAI/pythia-160m [num_fewshot=5]",
        "meta-llama/Llama-3.2-1B",
    ]
    one = R.sel(model="EleutherAI/pythia-160m [num_fewshot=0]")
    assert int(np.isfinite(one.values).sum(axis=-1).max()) == 1  # one run: one trial each


def _inspect_copy(path: Path, **changes) -> Path:
    with zipfile.ZipFile(INSPECT) as src, zipfile.ZipFile(path, "w") as dst:
        for item in src.namelist():
            data = src.read(item)
            if item in ("header.json", "_journal/start.json") and changes:
                header = json.loads(data)
                header["eval"].update(changes.get("eval", {}))
                if "plan_config" in changes:
                    header["plan"]["config"] = changes["plan_config"]
                data = json.dumps(header).encode()
            if item.startswith("samples/") and changes.get("error"):
                sample = json.loads(data)
                sample["error"] = {"message": "boom"}
                data = json.dumps(sample).encode()
            dst.writestr(item, data)
    return path


@pytest.mark.slow
def test_repeated_inspect_runs_are_trials_and_other_settings_variants(tmp_path):
    logs = tmp_path / "logs"
    logs.mkdir()
    _inspect_copy(logs / "run1.eval")
    _inspect_copy(logs / "run2.eval", eval={"created": "2026-01-01T00:00:00+00:00"})
    R = read_eval_log(logs).results()
    assert R.sizes["model"] == 1 and R.sizes["trial"] == 2  # two runs: two trials
    _inspect_copy(logs / "hot.eval", plan_config={"temperature": 1.0})
    names = sorted(map(str, read_eval_log(logs).results()["model"].values))
    assert len(names) == 2 and all(n.startswith("openai/gpt-4o") for n in names)
    assert any("temperature" in n and "1.0" in n for n in names)


def test_a_log_whose_every_attempt_failed_says_so(tmp_path):
    bad = _inspect_copy(tmp_path / "failed.eval", error=True)
    with pytest.raises(ValueError, match="every attempt failed"):
        read_eval_log(bad).results()
