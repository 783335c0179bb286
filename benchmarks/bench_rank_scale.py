"""``bayes-eval rank`` at leaderboard scale, the whole command as a user runs it (issue 38).

Two binary boards written as long CSV tables (``model, question, score``; one trial per
question) from the crossed logit model (abilities sd 1, difficulties sd 1.5, a model x
question interaction of sd 0.7; seed 0): 93 models x 1,136 questions (LiveBench's shape) and
1,000 models x 10,000 questions. Each is ranked by ``bayes-eval rank FILE --json`` in a fresh
process with the default (the joint posterior of the board model), and once more with
``--prior-kind uniform`` (the paper's closed form, the reference: reading the file, the
tables and the printing cost the same). Measured: the child process's CPU time (user +
system) and wall time, best of ``--repeats`` runs.

Goals: the 93 x 1,136 board in at most 2 s of CPU; the 1,000 x 10,000 board in at most 60 s
(CPU and wall). ``--smoke``: a 20 x 100 board, one run, no goal. ``--json``: the numbers as
JSON (every goal a record with ``meets_goal``).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
BOARDS = {"93x1136": (93, 1136, 2.0), "1000x10000": (1000, 10_000, 60.0)}
SMOKE = {"20x100": (20, 100, None)}


def write_board(path: Path, n_models: int, n_questions: int, seed: int = 0) -> None:
    """A binary board as a long CSV table (one row per model and question)."""
    rng = np.random.default_rng(seed)
    theta = rng.normal(0.0, 1.0, n_models)
    b = rng.normal(0.0, 1.5, n_questions)
    logit = theta[:, None] - b[None, :] + rng.normal(0.0, 0.7, (n_models, n_questions))
    k = (rng.random((n_models, n_questions)) < 1.0 / (1.0 + np.exp(-logit))).astype(np.int8)
    width = len(str(n_models - 1))
    qwidth = len(str(n_questions - 1))
    with path.open("w") as fh:
        fh.write("model,question,score\n")
        questions = [f"q{j:0{qwidth}d}" for j in range(n_questions)]
        for i in range(n_models):
            name = f"model_{i:0{width}d}"
            fh.writelines(f"{name},{q},{v}\n" for q, v in zip(questions, k[i], strict=True))


def run_rank(path: Path, *extra: str) -> tuple[float, float]:
    """CPU seconds (user + system) and wall seconds of one ``bayes-eval rank`` process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    cmd = [sys.executable, "-m", "bayes_eval.cli", "rank", str(path), "--json", *extra]
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=HERE.parent)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"rank failed on {path}: {proc.stderr.strip()[-400:]}")
    json.loads(proc.stdout)  # the command's answer is one JSON document
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall


def best(path: Path, repeats: int, *extra: str) -> tuple[float, float]:
    runs = [run_rank(path, *extra) for _ in range(repeats)]
    return min(r[0] for r in runs), min(r[1] for r in runs)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--smoke", action="store_true", help="a 20 x 100 board, one run")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--repeats", type=int, default=3, help="runs per board (best kept)")
    args = parser.parse_args(argv)
    say = (lambda *a: None) if args.json else print
    boards = SMOKE if args.smoke else BOARDS
    out: dict = {}
    env_note = os.environ.get("OPENBLAS_NUM_THREADS")
    with tempfile.TemporaryDirectory() as tmp:
        for name, (n_models, n_questions, goal) in boards.items():
            path = Path(tmp) / f"board_{name}.csv"
            write_board(path, n_models, n_questions)
            repeats = 1 if args.smoke or n_models >= 1000 else args.repeats
            cpu, wall = best(path, repeats)
            ref_cpu, ref_wall = best(path, repeats, "--prior-kind", "uniform")
            rec = {
                "models": n_models,
                "questions": n_questions,
                "cpu_seconds": round(cpu, 3),
                "wall_seconds": round(wall, 3),
                "uniform_cpu_seconds": round(ref_cpu, 3),
                "uniform_wall_seconds": round(ref_wall, 3),
                "ratio_to_uniform_cpu": round(cpu / ref_cpu, 2),
            }
            line = (
                f"rank {name}: {cpu:.2f} s CPU, {wall:.2f} s wall (default, the joint posterior)"
                f"; --prior-kind uniform {ref_cpu:.2f} s CPU ({cpu / ref_cpu:.2f}x)"
            )
            if goal is not None:
                meets = bool(cpu <= goal and (goal < 10 or wall <= goal))
                what = "CPU" if goal < 10 else "CPU and wall"
                rec["goal"] = f"<= {goal:g} s {what}"
                rec["meets_goal"] = meets
                rec["text"] = f"{line} (goal <= {goal:g} s {what}: {'met' if meets else 'NOT met'})"
                line = rec["text"]
            out[f"rank_{name}"] = rec
            say(line)
    out["openblas_num_threads"] = env_note
    if args.json:
        print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
