"""Importers for evaluation logs: real files, and files in the tools' documented shapes."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import bayes_eval as be
from bayes_eval import datasets
from bayes_eval.cli import main
from bayes_eval.logs import detect_format, read_eval_log
from bayes_eval.rubrics.spec import schema_from_spec

# ----------------------------------------------------------------------------- real files
# The real numbers ship in bayes_eval.datasets in compact form; the tests below write them back
# in each tool's own file layout and read them with the importers. Where the team's raw
# reference files (../shared) sit beside the checkout, the raw files are read as well.

SHARED = Path(__file__).resolve().parents[3] / "shared" / "data" / "trials"


@pytest.fixture
def shared_trials():
    if not SHARED.is_dir():
        pytest.skip("the raw reference files (../shared/data/trials) are not beside the checkout")
    return SHARED


def _cruxeval_files(folder):
    R = datasets.load("cruxeval_codellama7b")["results"]
    paths = []
    for task in ("input", "output"):
        sub = R.isel(model=0).sel(question=R["task"] == task)
        scored = {
            str(q).split("/", 1)[1]: [bool(v) for v in row]
            for q, row in zip(sub["question"].values, sub.values, strict=True)
        }
        path = folder / f"sample_scored_codellama-7b_temp0.2_{task}.json"
        path.write_text(json.dumps({"raw_scored_generations": scored}))
        paths.append(path)
    return paths


def _taubench_file(folder):
    R = datasets.load("taubench_airline_gpt4o")["results"].isel(model=0)
    records = [
        {"task_id": int(q), "trial": int(t), "reward": float(R.values[i, t]), "traj": [{}, {}]}
        for i, q in enumerate(R["question"].values)
        for t in range(R.sizes["trial"])
    ]
    path = folder / "gpt-4o-airline.json"
    path.write_text(json.dumps(records))
    return path


def test_inspect_real_log():
    path = datasets.files("inspect_mmlu_log", "mmlu-summary-choices.eval")
    assert detect_format(path) == "inspect"
    log = read_eval_log(path)
    row = log.table.iloc[0]
    assert (row["model"], row["task"], row["question"], row["trial"]) == (
        "openai/gpt-4o",
        "inspect_evals/mmlu_0_shot",
        "1",
        0,
    )
    assert row["score"] == 0  # the choice scorer said "I" (answer C, target A)
    assert row["score_choice"] == 0.0 and row["is_correct"] == 0.0
    assert row["token_ratio"] == pytest.approx(3 / 32768)  # output_tokens = 3
    assert row["repeated_pattern"] == 0.0  # stop_reason "stop"
    assert log.meta["scorer"] == "choice"
    R = log.results()
    assert R.dims == ("model", "question", "trial") and R.shape == (1, 1, 1)
    assert log.summary()["failed"] == 0 and log.summary()["missing"] == 0
    # dataset:NAME reads the same file
    shipped = read_eval_log("dataset:inspect_mmlu_log")
    assert shipped.table.equals(log.table) and shipped.sources == ("dataset:inspect_mmlu_log",)


def _check_cruxeval(files):
    log = read_eval_log(files)
    assert detect_format(files[0]) == "cruxeval"
    ds = log.to_dataset()
    assert ds["R"].shape == (1, 1600, 10)
    by_task = ds["R"].groupby("task").mean(...)
    # published pass_at_1: 35.95 (input) / 34.21 (output)
    assert float(by_task.sel(task="input")) == pytest.approx(0.3595, abs=5e-5)
    assert float(by_task.sel(task="output")) == pytest.approx(0.3421, abs=5e-5)
    return ds


def test_cruxeval_files_reproduce_the_published_pass_at_1(tmp_path):
    ds = _check_cruxeval(_cruxeval_files(tmp_path))
    shipped = read_eval_log("dataset:cruxeval_codellama7b").to_dataset()
    np.testing.assert_array_equal(shipped["R"].values, ds["R"].values)
    assert list(shipped["question"].values) == list(ds["question"].values)


def test_cruxeval_raw_files(shared_trials):
    files = sorted((shared_trials / "cruxeval_codellama7b").glob("sample_scored_*.json"))
    ds = _check_cruxeval(files)
    for f in files:
        raw = json.loads(f.read_text())
        task = f.stem.rsplit("_", 1)[1]
        assert raw["pass_at_1"] == pytest.approx(
            100 * float(ds["R"].sel(question=ds["task"] == task).mean()), abs=5e-3
        )
    np.testing.assert_array_equal(
        read_eval_log("dataset:cruxeval_codellama7b").results().values, ds["R"].values
    )


def _check_taubench(path):
    log = read_eval_log(path)
    assert detect_format(path) == "taubench"
    R = log.results()
    assert R.shape == (1, 50, 4) and str(R["model"].values[0]) == "gpt-4o"
    raw = json.loads(path.read_text())
    by_cell = {(str(r["task_id"]), int(r["trial"])): float(r["reward"]) for r in raw}
    for (q, t), v in list(by_cell.items())[:40]:
        assert float(R.isel(model=0).sel(question=q, trial=t)) == v
    assert float(R.mean()) == pytest.approx(np.mean(list(by_cell.values())))
    assert (log.table["num_turns"] > 0).all()
    # pass^k on the imported matrix equals the per-task enumeration (the benchmark's own metric)
    c = R.values[0].sum(axis=1)
    ph2 = be.pass_hat_k(R.values[0].astype(int), 2)
    assert ph2 == pytest.approx(np.mean(c * (c - 1) / 12), rel=1e-12)
    return R


def test_taubench_file(tmp_path):
    R = _check_taubench(_taubench_file(tmp_path))
    shipped = read_eval_log("dataset:taubench_airline_gpt4o").results()
    np.testing.assert_array_equal(shipped.values, R.values)


def test_taubench_raw_file(shared_trials):
    R = _check_taubench(shared_trials / "taubench_gpt4o_airline" / "gpt-4o-airline.json")
    np.testing.assert_array_equal(
        datasets.load("taubench_airline_gpt4o")["results"].values, R.values
    )


# ----------------------------------------------------------------------------- Inspect


def _write_eval(path, model, samples, scorers=("choice",), task="demo_task"):
    header = {
        "version": 2,
        "status": "success",
        "eval": {
            "task": task,
            "model": model,
            "scorers": [{"name": s, "options": {}} for s in scorers],
        },
    }
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("header.json", json.dumps(header))
        for s in samples:
            zf.writestr(f"samples/{s['id']}_epoch_{s['epoch']}.json", json.dumps(s))


def _sample(qid, epoch, value, judge=None, error=None, tokens=100, stop="stop"):
    s = {
        "id": qid,
        "epoch": epoch,
        "scores": {"choice": {"value": value, "answer": "A"}},
        "output": {
            "usage": {"output_tokens": tokens},
            "choices": [{"stop_reason": stop, "message": {}}],
        },
    }
    if judge is not None:
        s["scores"]["judge"] = {"value": judge}
    if error:
        s["error"] = {"message": error}
    return s


@pytest.fixture
def inspect_logs(tmp_path):
    a = [
        _sample(1, 1, "C", 0.9),
        _sample(1, 2, "C", 0.8),
        _sample(2, 1, "I", 0.1),
        _sample(2, 2, "P", 0.5, tokens=32768, stop="max_tokens"),
        _sample(3, 1, "C", 1.0),
        _sample(3, 2, None, None, error="RateLimitError"),
    ]
    b = [
        _sample(1, 1, "I", 0.2),
        _sample(1, 2, "C", 0.7),
        _sample(2, 1, "I", 0.0),
        _sample(3, 1, "C", 0.9),
        _sample(3, 2, "C", 0.95),
    ]  # question 2 epoch 2 missing
    pa, pb = tmp_path / "a.eval", tmp_path / "b.eval"
    _write_eval(pa, "org/model-a", a, scorers=("choice", "judge"))
    _write_eval(pb, "org/model-b", b, scorers=("choice", "judge"))
    return pa, pb


def test_inspect_epochs_scorers_failures(inspect_logs):
    log = read_eval_log(list(inspect_logs))
    assert json.loads(log.meta["category_map"]) == {"I": 0, "N": 0, "P": 1, "C": 2}
    assert log.meta["default_weights"] == [0.0, 0.5, 1.0]  # Inspect's value_to_float
    R = log.results()
    np.testing.assert_array_equal(R.sel(model="org/model-a").values, [[2, 2], [0, 1], [2, np.nan]])
    np.testing.assert_array_equal(R.sel(model="org/model-b").values, [[0, 2], [0, np.nan], [2, 2]])
    s = log.summary()
    assert (s["attempts"], s["scored"], s["failed"], s["missing"]) == (11, 10, 1, 1)
    assert {m["model"]: (m["failed"], m["missing"]) for m in s["per_model"]} == {
        "org/model-a": (1, 0),
        "org/model-b": (0, 1),
    }
    sig = log.signal_dataset()
    assert float(sig["score_judge"].sel(model="org/model-a", question="1", trial=1)) == 0.8
    assert float(sig["repeated_pattern"].sel(model="org/model-a", question="2", trial=1)) == 1.0
    assert float(sig["token_ratio"].sel(model="org/model-a", question="2", trial=1)) == 1.0
    assert np.isnan(sig["score_judge"].sel(model="org/model-a", question="3", trial=1))
    # masked trials are skipped by Bayes@N: model a has 5 scored attempts
    from bayes_eval import xr as bxr

    out = bxr.bayes(R, [0, 0.5, 1], skipna=True, prior="uniform")  # Dir(1), by hand below
    counts_a = np.array([[0, 0, 2], [1, 1, 0], [0, 0, 1]])
    alpha = counts_a + 1.0
    w = np.array([0, 0.5, 1])
    mu = np.mean(alpha @ w / alpha.sum(1))
    assert float(out["mu"].sel(model="org/model-a")) == pytest.approx(mu, rel=1e-12)


def test_inspect_second_scorer_as_rubric_signal(inspect_logs):
    log = read_eval_log(list(inspect_logs), scorer="judge")
    # the judge scores are fractions: not categories, so a schema must map them
    assert "score_judge" in log.signals and "not categories" in log.meta["note"]
    with pytest.raises(ValueError, match="apply a schema"):
        log.results()
    schema = schema_from_spec(
        {
            "name": "judge says",
            "weights": [0, 0, 1],
            "invalid": "false",
            "categories": [{"when": "score_judge < 0.5"}, {"when": "score_judge >= 0.5"}],
        }
    )
    cats = log.categorize(schema)
    np.testing.assert_array_equal(
        cats.R.sel(model="org/model-a").values, [[2, 2], [1, 2], [2, np.nan]]
    )


def test_inspect_binary_letters_and_bad_archive(tmp_path):
    p = tmp_path / "bin.eval"
    _write_eval(p, "m", [_sample(1, 1, "C"), _sample(1, 2, "I"), _sample(2, 1, "N")])
    log = read_eval_log(p)
    assert json.loads(log.meta["category_map"]) == {"I": 0, "N": 0, "C": 1}
    np.testing.assert_array_equal(log.results().values[0], [[1, 0], [0, np.nan]])
    bad = tmp_path / "bad.eval"
    bad.write_text("not a zip")
    with pytest.raises(ValueError, match=r"bad.eval: not an Inspect .eval log"):
        read_eval_log(bad)
    broken = tmp_path / "broken.eval"
    with zipfile.ZipFile(broken, "w") as zf:
        zf.writestr("header.json", json.dumps({"eval": {"model": "m"}}))
        zf.writestr("samples/1_epoch_1.json", "{oops")
    with pytest.raises(ValueError, match=r"broken.eval: samples/1_epoch_1.json: not valid JSON"):
        read_eval_log(broken)


# ----------------------------------------------------------------------------- lm-eval


def _lm_line(doc_id, value, flt="strict-match", resp="The answer is \\boxed{4}", extra=None):
    rec = {
        "doc_id": doc_id,
        "doc": {"question": f"q{doc_id}"},
        "target": "4",
        "arguments": {"gen_args_0": {"arg_0": "prompt"}},
        "resps": [[resp]],
        "filtered_resps": [resp],
        "filter": flt,
        "metrics": ["exact_match"],
        "doc_hash": "h",
        "prompt_hash": "p",
        "target_hash": "t",
        "exact_match": value,
    }
    rec.update(extra or {})
    return json.dumps(rec)


def test_lm_eval_runs_become_trials(tmp_path):
    folder = tmp_path / "out" / "org__model-x"
    folder.mkdir(parents=True)
    run1 = [
        _lm_line(0, 1.0),
        _lm_line(0, 0.0, flt="flexible-extract"),
        _lm_line(1, 0.0, resp="4"),
        _lm_line(1, 1.0, flt="flexible-extract"),
    ]
    run2 = [
        _lm_line(0, 1.0),
        _lm_line(1, 1.0),
        _lm_line(0, 1.0, flt="flexible-extract"),
        _lm_line(1, None, flt="flexible-extract"),
    ]
    (folder / "samples_gsm8k_2025-01-01T10-00-00.000001.jsonl").write_text("\n".join(run1) + "\n")
    (folder / "samples_gsm8k_2025-01-02T10-00-00.000001.jsonl").write_text("\n".join(run2) + "\n")
    assert detect_format(folder) == "lm-eval"
    log = read_eval_log(folder)
    assert log.meta == {"metric": "exact_match", "filter": "strict-match"}
    R = log.results()
    assert str(R["model"].values[0]) == "org__model-x" and set(R["task"].values) == {"gsm8k"}
    np.testing.assert_array_equal(R.values[0], [[1, 1], [0, 1]])  # trial 0 = first run
    assert log.table.set_index(["question", "trial"])["has_box"].to_dict() == {
        ("0", 0): 1.0,
        ("1", 0): 0.0,
        ("0", 1): 1.0,
        ("1", 1): 1.0,
    }
    flex = read_eval_log(folder, filter="flexible-extract")
    np.testing.assert_array_equal(flex.results().values[0], [[0, 1], [1, np.nan]])
    assert flex.summary()["failed"] == 1  # a null metric is a failed attempt


def test_lm_eval_list_valued_repeats_and_errors(tmp_path):
    f = tmp_path / "m" / "samples_arc_easy_2025-03-04T05-06-07.123456.jsonl"
    f.parent.mkdir()
    f.write_text(_lm_line(0, [1, 0, 1]) + "\n" + _lm_line(1, [0, 0, 1]) + "\n")
    np.testing.assert_array_equal(read_eval_log(f).results().values[0], [[1, 0, 1], [0, 0, 1]])
    f.write_text(_lm_line(0, 1) + "\n" + _lm_line(1, 0) + "\n{not json\n")
    with pytest.raises(ValueError, match=r"samples_arc_easy_.*jsonl: line 3: not valid JSON"):
        read_eval_log(f)
    f.write_text(_lm_line(0, 1) + "\n" + json.dumps({"filter": "strict-match"}) + "\n")
    with pytest.raises(ValueError, match=r"line 2: record has no 'doc_id'"):
        read_eval_log(f)
    f.write_text(_lm_line(0, 0.37) + "\n")
    with pytest.raises(ValueError, match=r"line 1: metric 'exact_match' is 0.37; expected 0/1"):
        read_eval_log(f)
    f.write_text(_lm_line(0, 1) + "\n")
    with pytest.raises(ValueError, match=r"line 1: no metric 'acc'"):
        read_eval_log(f, metric="acc")


# ----------------------------------------------------------------------------- HELM


def _helm_record(iid, trial, em, tokens=12, perturbation=None):
    rec = {
        "instance_id": iid,
        "train_trial_index": trial,
        "stats": [
            {
                "name": {"name": "exact_match", "split": "test"},
                "count": 1,
                "sum": em,
                "sum_squared": em,
                "min": em,
                "max": em,
                "mean": em,
                "variance": 0.0,
                "stdev": 0.0,
            },
            {
                "name": {"name": "num_output_tokens", "split": "test"},
                "count": 1,
                "sum": tokens,
                "mean": tokens,
            },
            {
                "name": {"name": "exact_match", "split": "test", "perturbation": {"name": "typos"}},
                "count": 1,
                "mean": 0.0,
            },
        ],
    }
    if perturbation:
        rec["perturbation"] = perturbation
    return rec


def test_helm_per_instance_stats(tmp_path):
    run = tmp_path / "mmlu:subject=anatomy,method=multiple_choice_joint,model=openai_gpt-4o"
    run.mkdir()
    records = [
        _helm_record("id1", 0, 1.0),
        _helm_record("id1", 1, 0.0),
        _helm_record("id2", 0, 1.0, tokens=40),
        _helm_record("id2", 1, 1.0),
        _helm_record("id1", 0, 0.0, perturbation={"name": "typos"}),
    ]
    (run / "per_instance_stats.json").write_text(json.dumps(records))
    (run / "run_spec.json").write_text(
        json.dumps({"name": run.name, "adapter_spec": {"model": "openai/gpt-4o"}})
    )
    assert detect_format(run) == "helm"
    log = read_eval_log(run)
    R = log.results()
    assert str(R["model"].values[0]) == "openai/gpt-4o"
    assert set(R["task"].values) == {"mmlu:subject=anatomy,method=multiple_choice_joint"}
    np.testing.assert_array_equal(R.values[0], [[1, 0], [1, 1]])  # perturbed record skipped
    assert log.table["num_output_tokens"].tolist() == [12, 12, 40, 12]
    assert log.table["token_ratio"].iloc[2] == pytest.approx(40 / 32768)
    (run / "per_instance_stats.json").write_text(json.dumps([{"instance_id": "x"}]))
    with pytest.raises(ValueError, match=r"per_instance_stats.json: record 1: expected keys"):
        read_eval_log(run)


# ----------------------------------------------------------------------------- long tables


def test_long_csv_with_tasks_signals_and_failures(tmp_path):
    df = pd.DataFrame(
        {
            "model": ["a"] * 4 + ["b"] * 4,
            "task": ["t1", "t1", "t2", "t2"] * 2,
            "question": ["q1", "q1", "q1", "q1"] * 2,
            "trial": [0, 1, 0, 1] * 2,
            "score": [1, 0, 1, None, 1, 1, 0, 0],
            "status": ["ok", "ok", "ok", "error", "ok", "ok", "ok", "ok"],
            "is_correct": [1, 0, 1, None, 1, 1, 0, 0],
            "has_box": [1, 1, 0, None, 1, 0, 0, 1],
        }
    )
    path = tmp_path / "long.csv"
    df.to_csv(path, index=False)
    before = path.read_text()
    log = read_eval_log(path)
    R = log.results()
    assert list(R["question"].values) == ["t1/q1", "t2/q1"]  # two tasks: task-qualified ids
    np.testing.assert_array_equal(R.sel(model="a").values, [[1, 0], [1, np.nan]])
    assert log.summary()["failed"] == 1
    cats = log.categorize("format_aware")
    np.testing.assert_array_equal(cats.R.sel(model="b").values, [[4, 3], [1, 2]])
    assert np.isnan(cats.R.sel(model="a").values[1, 1])
    assert path.read_text() == before
    pq = tmp_path / "long.parquet"
    df.to_parquet(pq)
    assert read_eval_log(pq).table.equals(log.table)
    df["has_box"] = df["has_box"].astype(object)
    df.loc[2, "has_box"] = "yes"
    df.to_csv(path, index=False)
    with pytest.raises(
        ValueError, match=r"long.csv: line 4: column 'has_box' has the non-numeric value 'yes'"
    ):
        read_eval_log(path)


def test_mixed_formats_are_joined(tmp_path):
    tau = _taubench_file(tmp_path)
    R_tau = read_eval_log(tau).results()
    rows = [
        {"model": "other", "task": "airline", "question": q, "trial": t, "score": int((i + t) % 2)}
        for i, q in enumerate(R_tau["question"].values)
        for t in range(4)
    ]
    path = tmp_path / "other.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    log = read_eval_log([tau, path])
    assert log.format == "taubench+csv"
    R = log.results()
    assert R.shape == (2, 50, 4)
    np.testing.assert_array_equal(R.sel(model="gpt-4o").values, R_tau.values[0])


# ----------------------------------------------------------------------------- CLI


def test_cli_rank_inspect_reports_masked_trials(inspect_logs, capsys):
    assert main(["rank", *map(str, inspect_logs), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["log"]["failed"] == 1 and out["log"]["missing"] == 1
    assert out["log"]["format"] == "inspect"
    assert {m["model"] for m in out["models"]} == {"org/model-a", "org/model-b"}
    assert main(["rank", *map(str, inspect_logs)]) == 0
    text = capsys.readouterr().out
    assert "1 failed and 1 missing (masked)" in text
    assert 'category_map: {"I": 0, "N": 0, "P": 1, "C": 2}' in text


def test_cli_rank_with_schema_and_schema_file(tmp_path, capsys):
    rng = np.random.default_rng(5)
    rows = []
    for m, p in (("strong", 0.8), ("weak", 0.4)):
        for q in range(12):
            for t in range(6):
                rows.append(
                    {
                        "model": m,
                        "question": f"q{q}",
                        "trial": t,
                        "is_correct": float(rng.random() < p),
                        "has_box": float(rng.random() < 0.7),
                        "completion_bpt": float(rng.gamma(2, 0.5)),
                    }
                )
    path = tmp_path / "signals.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    assert main(["rank", str(path), "--schema", "Format Aware", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["schema"]["schema"] == "Format Aware"
    assert out["schema"]["weights"] == [0, 0, 1, 2, 3]
    assert out["models"][0]["model"] == "strong"
    assert main(["rank", str(path), "--schema", "conf_wrong_penalty"]) == 0
    text = capsys.readouterr().out
    assert "thresholds (pooled over all models): tau_low_wrong = " in text
    spec = tmp_path / "s.toml"
    spec.write_text(
        'name = "binary"\nweights = [0, 0, 1]\n[[categories]]\nwhen = "wrong"\n'
        '[[categories]]\nwhen = "correct"\n'
    )
    cmd = ["rank", str(path), "--schema-file", str(spec), "--json", "--prior-kind", "uniform"]
    assert main(cmd) == 0
    out = json.loads(capsys.readouterr().out)
    direct = pd.DataFrame(rows).groupby(["model", "question"])["is_correct"].sum().unstack()
    mu = ((direct + 1) / 9).mean(axis=1)  # Dirichlet(1,1,1) + counts over 3 categories, N = 6
    assert {m["model"]: m["mu"] for m in out["models"]} == pytest.approx(mu.to_dict(), rel=1e-12)
    assert main(["rank", str(path)]) == 2  # no score column and no schema
    assert "apply a schema" in capsys.readouterr().err
    assert main(["rank", str(path), "--schema", "verifier_only"]) == 2
    assert "needs the signal(s)" in capsys.readouterr().err


def test_cli_schemas_lists_twelve(capsys):
    assert main(["schemas", "--json"]) == 0
    records = json.loads(capsys.readouterr().out)
    assert len(records) == 12
    conf = next(r for r in records if r["key"] == "conf_calibrated")
    assert conf["thresholds"] == ["corr_p33", "corr_p66", "tau_low_wrong"]
    assert main(["schemas"]) == 0
    assert "Concision-High-Conf" in capsys.readouterr().out


# --- labels are text; malformed rows are refused with their line (hardening) ---------------


def _csv(tmp_path, text, name="t.csv"):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_labels_are_text_never_numbers_or_nan(tmp_path):
    path = _csv(
        tmp_path,
        "model,question,trial,score\nNA,2.1,0,1\nNA,2.10,0,0\nnull,2.1,0,1\nnull,2.10,0,1\n",
    )
    R = read_eval_log(path).results()
    assert sorted(R["model"].values.tolist()) == ["NA", "null"]
    assert sorted(R["question"].values.tolist()) == ["2.1", "2.10"]
    assert R.sel(model="NA").values[:, 0].tolist() == [1.0, 0.0]


def test_spaces_around_labels_are_stripped_with_a_warning(tmp_path):
    path = _csv(tmp_path, "model,question,trial,score\na,q1,0,1\na ,q1,1,0\n")
    with pytest.warns(UserWarning, match="1 model label.*'a '.*stripped"):
        R = read_eval_log(path).results()
    assert R["model"].values.tolist() == ["a"]
    assert R.shape == (1, 1, 2)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("model,question,trial,score\n,1,0,1\n", "line 2: the model cell is empty"),
        ("model,question,trial,score\na,,0,1\n", "line 2: the question cell is empty"),
        ("model,question,trial,score\na,1,0,True\n", "line 2: column 'score'.*'True'"),
        (
            "model,question,trial,score\na,1,0,1,9\na,1,1,0\n",
            "line 2 has 5 fields; the header has 4",
        ),
        ("model,question,trial,score\na,1,x,1\n", "line 2: column 'trial'.*'x'"),
    ],
)
def test_malformed_csv_rows_name_their_line(tmp_path, text, message):
    with pytest.raises(ValueError, match=message):
        read_eval_log(_csv(tmp_path, text))


def test_inspect_log_with_a_malformed_header_is_refused(tmp_path):
    import zipfile

    src = datasets.files("inspect_mmlu_log", "mmlu-summary-choices.eval")
    bad = tmp_path / "bad.eval"
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(bad, "w") as zout:
        for name in zin.namelist():
            data = b"[1, 2]" if name == "header.json" else zin.read(name)
            zout.writestr(name, data)
    with pytest.raises(ValueError, match=r"header\.json holds a list; expected a JSON object"):
        read_eval_log(bad)
