"""The bayes-eval command line: output, JSON, plots and one-line errors with exit status 2."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import bayes_eval as be
from bayes_eval.cli import main


def _write_table(path, R, models, drop=()):
    rows = []
    for m, name in enumerate(models):
        for q in range(R.shape[1]):
            for t in range(R.shape[2]):
                if (m, q, t) not in drop:
                    rows.append(
                        {
                            "model": name,
                            "question": f"q{q:02d}",
                            "trial": t,
                            "score": int(R[m, q, t]),
                        }
                    )
    frame = pd.DataFrame(rows).sample(frac=1.0, random_state=0)  # row order must not matter
    if str(path).endswith(".parquet"):
        frame.to_parquet(path)
    else:
        frame.to_csv(path, index=False)
    return path


@pytest.fixture
def table(tmp_path, rng):
    R = rng.integers(0, 3, size=(3, 12, 6))
    return _write_table(tmp_path / "runs.csv", R, ["m1", "m2", "m3"]), R


@pytest.mark.parametrize("kind", [None, "uniform", "jeffreys", "empirical-plugin"])
def test_rank_json_matches_library(table, capsys, kind):
    # default: the learned prior, integrated; --prior-kind uniform reproduces the paper
    path, R = table
    extra = [] if kind is None else ["--prior-kind", kind]
    assert main(["rank", str(path), "--weights", "0,0.5,1", "--json", *extra]) == 0
    out = json.loads(capsys.readouterr().out)
    mu, _sigma, _lo, hi = be.bayes_ci(R, [0, 0.5, 1], prior=kind or "empirical")
    by_model = {r["model"]: r for r in out["models"]}
    for i, name in enumerate(["m1", "m2", "m3"]):
        assert by_model[name]["mu"] == pytest.approx(mu[i], abs=1e-12)
        assert by_model[name]["hi"] == pytest.approx(hi[i], abs=1e-12)
        assert by_model[name]["prior"] == out["prior"]
    assert (
        out["prior"]
        == {
            None: "empirical (per model, board-informed, integrated)",
            "uniform": "uniform",
            "jeffreys": "jeffreys",
            "empirical-plugin": "empirical (per model, board-informed, plug-in)",
        }[kind]
    )
    assert out["missing_trials"] == 0


@pytest.mark.slow
def test_rank_text_plot_prior_and_exact(table, tmp_path, capsys, rng):
    path, _R = table
    prior = _write_table(
        tmp_path / "prior.csv", rng.integers(0, 3, size=(3, 12, 2)), ["m1", "m2", "m3"]
    )
    png = tmp_path / "forest.png"
    code = main(
        [
            "rank",
            str(path),
            "--weights",
            "0,0.5,1",
            "--prior-file",
            str(prior),
            "--interval",
            "exact",
            "--prior-kind",
            "jeffreys",  # rubric + learned prior + exact: ~10 s per model
            "--confidence",
            "0.9",
            "--plot",
            str(png),
            "--paper-ranks",
        ]
    )
    assert code == 0
    text = capsys.readouterr().out
    assert "rank range" in text and "m1" in text and "90% CI" in text
    assert "CI-aware rank (chains)" in text and "exact intervals" in text
    assert png.stat().st_size > 5000 and png.read_bytes()[:4] == b"\x89PNG"


def test_rank_parquet_with_missing_trials(tmp_path, rng, capsys):
    R = rng.integers(0, 2, size=(2, 5, 4))
    path = _write_table(tmp_path / "runs.parquet", R, ["a", "b"], drop={(0, 1, 3), (1, 4, 0)})
    assert main(["rank", str(path), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["missing_trials"] == 2
    mask = np.zeros(R.shape, bool)
    mask[0, 1, 3] = True
    mask[1, 4, 0] = True
    # the missing trial of model b is the first one; trials are renumbered within a question
    Rm = R.copy()
    Rm[1, 4] = np.roll(Rm[1, 4], -1)
    mask_m = mask.copy()
    mask_m[1, 4] = np.roll(mask[1, 4], -1)
    mu = be.bayes(Rm, mask=mask_m, prior="empirical")[0]
    assert {r["model"]: r["mu"] for r in out["models"]} == pytest.approx({"a": mu[0], "b": mu[1]})


@pytest.mark.parametrize(
    ("args", "match"),
    [
        (["rank", "MISSING.csv"], "no such file"),
        (["rank", "{path}", "--weights", "0,1"], "contains category 2"),
        (["rank", "{path}", "--weights", "0,x,1"], "argument --weights: '0,x,1' is not a list"),
        (["rank", "{path}", "--nope"], "unrecognized arguments: --nope"),
        (["plan", "{path}", "m1"], "plan needs two models"),
        (["rank", "{path}", "--weights", "0,0.5,1", "--confidence", "1.5"], "confidence is 1.5"),
        (["plan", "{path}", "m1", "nope", "--weights", "0,0.5,1"], "model 'nope' is not in"),
    ],
)
def test_errors_are_one_line_and_exit_2(table, capsys, args, match):
    path, _ = table
    code = main([a.format(path=path) for a in args])
    err = capsys.readouterr().err
    assert code == 2
    assert err.startswith("bayes-eval: error: ") and match in err
    assert err.count("\n") == 1


def test_plan_command(table, capsys):
    path, _ = table
    assert main(["plan", str(path), "m1", "m2", "--weights", "0,0.5,1", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["n_now"] == 6 and out["z_target"] == pytest.approx(1.645, abs=5e-4)
    assert out["confidence"] == 0.95


def test_demo_json_has_table_1_structure(capsys):
    assert main(["demo", "--json", "--seed", "3"]) == 0
    out = json.loads(capsys.readouterr().out)
    models = out["models"]
    assert len(models) == 11 and out["M"] == 30 and out["N"] == 80
    gold = {m["model"]: m["gold_rank"] for m in models}
    assert gold["LLM4"] == gold["LLM5"] == 7 and gold["LLM11"] == 1
    assert all(m["rank_ci"] <= m["rank"] for m in models)  # CI-aware ranks merge, never split
    assert out["kendall_tau_b"] > 0.8
    # deterministic for a seed
    assert main(["demo", "--json", "--seed", "3"]) == 0
    again = json.loads(capsys.readouterr().out)
    assert [m["mu"] for m in again["models"]] == [m["mu"] for m in models]


@pytest.mark.slow
def test_console_script_is_installed(tmp_path):
    exe = __import__("shutil").which(
        "bayes-eval", path=str(__import__("pathlib").Path(sys.executable).parent)
    )
    assert exe, "bayes-eval console script is not installed next to the interpreter"
    done = subprocess.run(
        [exe, "rank", str(tmp_path / "absent.csv")], capture_output=True, text=True
    )
    assert done.returncode == 2 and "no such file" in done.stderr


def test_datasets_command_lists_and_describes(capsys):
    assert main(["datasets", "--json"]) == 0
    listing = json.loads(capsys.readouterr().out)
    assert "matharena_aime25_i" in listing and "phi4_aime25" in listing
    assert main(["datasets", "phi4_aime25", "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["dims"]["question"] == 30 and "Hariri" in info["citation"]
    assert main(["datasets"]) == 0
    assert "dataset:NAME" in capsys.readouterr().out
    assert main(["datasets", "nope"]) == 2
    assert "unknown dataset 'nope'; expected one of" in capsys.readouterr().err


def test_rank_reads_a_shipped_dataset(capsys):
    # the paper's prior reproduces its published Bayes@80 of Phi-4-reasoning
    assert main(["rank", "dataset:phi4_aime25", "--json", "--prior-kind", "uniform"]) == 0
    out = json.loads(capsys.readouterr().out)
    row = out["models"][0]
    assert row["model"] == "Phi-4-reasoning"
    assert [round(row[k], 3) for k in ("mu", "sigma", "lo", "hi")] == [0.598, 0.007, 0.584, 0.613]
    # the learned prior moves it little at N = 80 (the data dominate)
    assert main(["rank", "dataset:phi4_aime25", "--json"]) == 0
    row = json.loads(capsys.readouterr().out)["models"][0]
    assert abs(row["mu"] - 0.598) < row["sigma"]
    assert main(["rank", "dataset:matharena_aime25_i", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert len(out["models"]) == 16 and out["questions"] == 15 and out["max_trials"] == 4
    assert main(["rank", "dataset:summeval_judges"]) == 2
    assert "not trial results" in capsys.readouterr().err


def test_demo_ranks_the_shipped_leaderboard(tmp_path, capsys):
    assert main(["demo", "--json", "--plot", str(tmp_path / "f.png")]) == 0
    out = json.loads(capsys.readouterr().out)
    board = out["leaderboard"]
    assert board["dataset"] == "matharena_aime25_i" and board["M"] == 15 and board["N"] == 4
    models = board["models"]
    assert len(models) == 16 and models[0]["model"] == "o3-mini (high)"
    assert all(m["rank_range"][0] <= m["rank"] <= m["rank_range"][1] for m in models)
    mus = [m["mu"] for m in models]
    assert mus == sorted(mus, reverse=True)
    # listed by mu, each model beats the next with P >= 1/2 (one posterior for every number)
    assert all(m["prob_next"] >= 0.5 for m in models[:-1]) and models[-1]["prob_next"] is None
    assert (tmp_path / "f.png").stat().st_size > 1000
    assert (tmp_path / "f_biased_coin.png").stat().st_size > 1000
