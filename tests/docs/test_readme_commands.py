"""Every ``bayes-eval`` command of README.md runs as written, on tiny inputs.

The commands are read from the README's ``bash`` blocks. The files they name (``runs.csv``,
``logs/*.eval``, ...) are written here, small; commands that would run for
minutes at their defaults get size options appended (``SMALLER``: argparse keeps the last
value of an option), so what is checked is the README's own spelling of every command and
option. Each must exit 0.
"""

from __future__ import annotations

import glob
import json
import re
import shlex
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"

NUTS = "--draws 60 --tune 60 --chains 2 --no-progress"
#: command prefix -> options appended to keep the run small
SMALLER = {
    "validate biased-coin": "--independent 3 --replicates 10 --n-max 6 --n-questions 5",
    "validate prior-benefit": "--replicates 20 --n-max 6 --n-questions 5",
    "validate distinguishability": "--replicates 50 --n-max 20",
    "validate pairs": "--replicates 4 --n-models 3 --n-questions 8",
    "validate clusters": "--replicates 3 --n-models 3 --n-questions 12 --clusters 3,4 "
    "--cluster-sd 1 --draws 200",
    # runs.csv has 3 models (below): subsets of 2 of them, not of 5
    "validate convergence": "--replicates 20 --subset-size 2",
    "validate coverage": "--workers 0 --replicates 40 --exact-replicates 0 --bootstrap-resamples 0",
    "validate elicit": "--simulations 2000",
    "validate judges-synthetic": "--replicates 1 --n-questions 30 --candidates 3 --judges 2 "
    "--draws 60 --tune 60 --chains 2",
    "validate judges": "--draws 60 --tune 60 --chains 2 --no-integrated",
    "adaptive simulate": "--replicates 1",
    "judges": NUTS,
    # crosscheck keeps the README's 4 x 1000 draws: its exit status is its verdict (PyMC's
    # r-hat and ESS thresholds), which fewer draws would fail
    "crosscheck": "--no-progress",
    "priors": NUTS,
    "compare": "--draws 100 --tune 100 --chains 2",
    # the NUTS study on the tiny grid of tests/validation/test_sbc.py (5 questions x 4 trials),
    # in this process: the same xdist group, so the nutpie model compiled there is reused
    "validate sbc": "--simulations 20 --workers 0 --n-questions 5 --trials 4",
    "rank leaderboard.csv --fractional --estimator crossed": NUTS,
}
SAMPLES = ("crosscheck", "priors", "judges", "validate judges", "compare", "validate sbc")
SAMPLES += ("rank leaderboard.csv --fractional --estimator crossed",)


def _commands() -> list[str]:
    out = []
    for block in re.findall(r"```bash\n(.*?)```", README.read_text(), flags=re.S):
        for line in block.splitlines():
            line = line.split("  #")[0].strip()
            if line.startswith("bayes-eval "):
                out.append(line[len("bayes-eval ") :])
    return out


COMMANDS = _commands()


def _write_inputs(folder: Path) -> None:
    rng = np.random.default_rng(0)
    # 3 models x 8 questions x 4 trials: the exact learned-prior intervals of `rank --interval
    # exact` take seconds per model, and the PyMC fits of compare, crosscheck and priors have
    # the shape of those in tests/models (3 x 8), whose compiled graphs they share
    models = {"model-a": 0.7, "model-b": 0.5, "model-c": 0.3}
    rows = [
        (m, f"q{q}", t, int(rng.random() < p))
        for m, p in models.items()
        for q in range(8)
        for t in range(4)
    ]
    runs = pd.DataFrame(rows, columns=["model", "question", "trial", "score"])
    runs.to_csv(folder / "runs.csv", index=False)
    runs.to_parquet(folder / "runs.parquet")
    # one trial per question, the questions in 4 subjects (the clustered commands)
    clustered = runs[runs["trial"] == 0].assign(
        subject=lambda d: "s" + (d["question"].str[1:].astype(int) % 4).astype(str)
    )
    clustered.to_csv(folder / "results.csv", index=False)
    from bayes_eval.synthetic.leaderboard import simulate_leaderboard

    board = simulate_leaderboard(5, 30, scores="graded", question_sets=(20, 30), repeats=0.1)
    board.to_frame(trial=False).to_csv(folder / "leaderboard.csv", index=False)  # no trial column
    greedy = runs[runs["trial"] == 0]
    greedy.to_csv(folder / "greedy.csv", index=False)
    greedy.to_parquet(folder / "greedy.parquet")
    sig = []
    for m, p in models.items():
        for q in range(8):
            for t in range(4):
                correct = rng.random() < p
                sig.append(
                    {
                        "model": m,
                        "question": f"q{q}",
                        "trial": t,
                        "is_correct": float(correct),
                        "has_box": float(rng.random() < 0.7),
                        "completion_bpt": rng.gamma(4, 0.5) * (0.8 if correct else 1.2),
                        "token_ratio": rng.beta(2, 8),
                        "prompt_bpt": rng.gamma(5, 0.3),
                        "repeated_pattern": float(rng.random() < 0.02),
                    }
                )
    pd.DataFrame(sig).to_csv(folder / "signals.csv", index=False)
    (folder / "my_rubric.toml").write_text(
        'name = "binary"\nweights = [0, 0, 1]\n[[categories]]\nwhen = "wrong"\n'
        '[[categories]]\nwhen = "correct"\n'
    )
    from bayes_eval import datasets

    (folder / "logs").mkdir()
    shutil.copy(datasets.files("inspect_mmlu_log", "mmlu-summary-choices.eval"), folder / "logs")
    lm = folder / "out" / "org__model"
    lm.mkdir(parents=True)
    for run in range(2):
        lines = [
            json.dumps(
                {
                    "doc_id": d,
                    "doc": {"question": f"q{d}"},
                    "target": "1",
                    "arguments": [],
                    "resps": [["x"]],
                    "filtered_resps": ["x"],
                    "filter": "strict-match",
                    "metrics": ["exact_match"],
                    "doc_hash": f"h{d}",
                    "prompt_hash": "p",
                    "target_hash": "t",
                    "exact_match": float(rng.random() < 0.5),
                }
            )
            for d in range(4)
        ]
        name = f"samples_gsm8k_2025-01-0{run + 1}T10-00-00.000001.jsonl"
        (lm / name).write_text("\n".join(lines) + "\n")
    np.save(folder / "runs.npy", (rng.random((6, 40)) < rng.random((6, 1))).astype(float))
    np.savetxt(folder / "prices.csv", rng.uniform(0.5, 3.0, 6), delimiter=",")
    counts = [
        (c, j, s, int(rng.integers(0, 20)))
        for c in ("cand-a", "cand-b", "cand-c")
        for j in ("judge-1", "judge-2")
        for s in (1, 2, 3)
    ]
    pd.DataFrame(counts, columns=["candidate", "judge", "score", "count"]).to_csv(
        folder / "counts.csv", index=False
    )
    pd.DataFrame({"candidate": ["cand-a", "cand-b", "cand-c"], "score": [3.0, 2.0, 1.0]}).to_csv(
        folder / "truth.csv", index=False
    )


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("readme")
    _write_inputs(folder)
    return folder


def test_the_readme_shows_commands():
    assert len(COMMANDS) >= 25


def _marks(command: str):
    marks = [pytest.mark.slow]
    if command.startswith(SAMPLES):
        marks.append(pytest.mark.pymc)
    if command.startswith("validate sbc --estimator hierarchical"):
        marks.append(pytest.mark.xdist_group("sbc-hierarchical"))
    return marks


@pytest.mark.parametrize("command", [pytest.param(c, marks=_marks(c), id=c[:60]) for c in COMMANDS])
def test_readme_command_runs_as_written(command, inputs, tmp_path, monkeypatch):
    from bayes_eval.cli import main

    work = tmp_path / "work"
    shutil.copytree(inputs, work)
    shutil.copytree(ROOT / "validation" / "configs", work / "validation" / "configs")
    monkeypatch.chdir(work)
    args = []
    for word in shlex.split(command):  # the shell's globbing
        args += sorted(glob.glob(word)) if "*" in word else [word]
    extra = next((v for k, v in SMALLER.items() if command.startswith(k + " ")), "")
    if not extra:
        extra = next((v for k, v in SMALLER.items() if command == k), "")
    assert main([*args, *shlex.split(extra)]) == 0, command
