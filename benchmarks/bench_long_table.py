"""Import speed and memory of a 10^7-row long table (run: ``python benchmarks/bench_long_table.py``).

Writes one long table as CSV and as Parquet into a temporary folder, then, for each, runs in a
fresh Python process: :func:`bayes_eval.logs.read_eval_log`, ``log.results(
require_all_questions=False)`` and :func:`bayes_eval.ranking.leaderboard.rank_table` (``skipna=True``, the
prior given by ``--prior``), and prints the wall time of each step and the process's peak
memory (max RSS). Target: under 10 s and under 1 GB for each format, for ``prior="uniform"``.

Shapes (``--shape``):

``trials`` (default)
    100 models x 10^4 questions x 10 trials, columns ``model, question, trial, score``; the
    score is 0/1 from a per-model ability and a per-question difficulty; model names such as
    ``org-07/model-07-instruct``, question ids such as ``mmlu_pro/001234``; rows in model,
    question, trial order, as a tool writes them; 2 % of the attempts are left out (missing
    trials, as in real logs).
``leaderboard``
    The public-leaderboard export shape: 93 models x 1,136 questions, a graded score in
    [0, 1] (386 distinct values), no trial column, some (model, question) pairs twice; the
    export repeated under renamed questions up to 10^7 rows.

``--smoke``: 10 models x 200 questions x 4 trials (or 10^4 leaderboard rows), the uniform
prior only (seconds). ``--json``: the same numbers as JSON.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

CHILD = r"""
import json, resource, sys, time, warnings
t0 = time.perf_counter()
import bayes_eval
from bayes_eval.logs import read_eval_log
from bayes_eval.ranking.leaderboard import rank_table
t1 = time.perf_counter()
log = read_eval_log(sys.argv[1])
t2 = time.perf_counter()
R = log.results(require_all_questions=False)
t3 = time.perf_counter()
graded = {"fractional": True} if getattr(log, "graded", False) else {}
table = rank_table(R, prior=sys.argv[2], skipna=True, **graded)
t4 = time.perf_counter()
print(json.dumps({
    "import_s": t1 - t0, "read_s": t2 - t1, "results_s": t3 - t2, "rank_s": t4 - t3,
    "total_s": t4 - t0, "max_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    "shape": list(R.shape), "rows": len(log.table), "bayes_eval": bayes_eval.__file__,
}))
"""


def trials_table(seed: int = 0, n_m: int = 100, n_q: int = 10_000, n_t: int = 10):
    """100 models x 10^4 questions x 10 trials of 0/1 scores, 2 % of attempts left out."""
    import pyarrow as pa

    rng = np.random.default_rng(seed)
    models = np.array([f"org-{m % 13:02d}/model-{m:02d}-instruct" for m in range(n_m)])
    questions = np.array([f"mmlu_pro/{q:06d}" for q in range(n_q)])
    ability = rng.normal(0.0, 1.0, n_m)
    difficulty = rng.normal(0.0, 1.5, n_q)
    p = 1.0 / (1.0 + np.exp(-(ability[:, None] - difficulty[None, :])))  # (model, question)
    mi = np.repeat(np.arange(n_m, dtype=np.int32), n_q * n_t)
    qi = np.tile(np.repeat(np.arange(n_q, dtype=np.int32), n_t), n_m)
    ti = np.tile(np.arange(n_t, dtype=np.int32), n_m * n_q)
    score = (rng.random(mi.size) < p[mi, qi]).astype(np.int8)
    keep = rng.random(mi.size) >= 0.02
    return _arrow(models, questions, mi[keep], qi[keep], score[keep], ti[keep], pa)


def leaderboard_table(seed: int = 0, rows: int = 10**7):
    """The leaderboard export (graded scores, no trial column, some pairs twice) repeated."""
    import pyarrow as pa

    rng = np.random.default_rng(seed)
    n_m, n_q = 93, 1136
    levels = np.unique(np.round(rng.random(386), 4))
    models = np.array([f"provider-{m % 17}/model-{m:02d}" for m in range(n_m)])
    mi = np.repeat(np.arange(n_m, dtype=np.int32), n_q)
    qi = np.tile(np.arange(n_q, dtype=np.int32), n_m)
    twice = rng.random(mi.size) < 0.03
    mi = np.repeat(mi, 1 + twice)
    qi = np.repeat(qi, 1 + twice)
    copies = -(-rows // mi.size)
    qi = (qi[None, :] + n_q * np.arange(copies)[:, None]).ravel()[:rows]
    mi = np.tile(mi, copies)[:rows]
    questions = np.array([f"task-{q // n_q}/item-{q % n_q:04d}" for q in range(n_q * copies)])
    score = rng.choice(levels, size=mi.size)
    return _arrow(models, questions, mi, qi, score, None, pa)


def _arrow(models, questions, mi, qi, score, trial, pa):
    columns = {
        "model": pa.DictionaryArray.from_arrays(mi, models).cast(pa.string()),
        "question": pa.DictionaryArray.from_arrays(qi, questions).cast(pa.string()),
    }
    if trial is not None:
        columns["trial"] = pa.array(trial)
    columns["score"] = pa.array(score)
    return pa.table(columns)


def write(folder: Path, shape: str, smoke: bool = False) -> dict[str, Path]:
    import pyarrow.csv as pcsv
    import pyarrow.parquet as pq

    if shape == "trials":
        table = trials_table(n_m=10, n_q=200, n_t=4) if smoke else trials_table()
    else:
        table = leaderboard_table(rows=10**4) if smoke else leaderboard_table()
    paths = {"csv": folder / "long.csv", "parquet": folder / "long.parquet"}
    pcsv.write_csv(table, paths["csv"], write_options=pcsv.WriteOptions(quoting_style="none"))
    pq.write_table(table, paths["parquet"])
    return paths


def run(path: Path, prior: str) -> dict:
    proc = subprocess.run(
        [sys.executable, "-c", CHILD, str(path), prior], capture_output=True, text=True
    )
    if proc.returncode != 0:
        raise SystemExit(f"{path.name}: the child failed:\n{proc.stderr}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shape", choices=["trials", "leaderboard"], default="trials")
    parser.add_argument("--prior", action="append", choices=["uniform", "empirical"])
    parser.add_argument("--smoke", action="store_true", help="a tiny table, uniform prior")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--write", metavar="FOLDER", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.write:  # in its own process: a child started later would inherit its peak RSS
        write(Path(args.write), args.shape, args.smoke)
        return
    priors = args.prior or (["uniform"] if args.smoke else ["uniform", "empirical"])
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        t = time.perf_counter()
        cmd = [sys.executable, __file__, "--write", tmp, "--shape", args.shape]
        cmd += ["--smoke"] if args.smoke else []
        subprocess.run(cmd, check=True)
        paths = {"csv": Path(tmp) / "long.csv", "parquet": Path(tmp) / "long.parquet"}
        sizes = {f: p.stat().st_size / 2**20 for f, p in paths.items()}
        if not args.json:
            print(
                f"wrote the {args.shape} table in {time.perf_counter() - t:.1f} s: "
                + ", ".join(f"{f} {s:.0f} MB" for f, s in sizes.items())
            )
        for fmt, path in paths.items():
            for prior in priors:
                r = run(path, prior)
                r["file_mb"] = sizes[fmt]
                results[f"{fmt}/{prior}"] = r
                if not args.json:
                    print(
                        f"{fmt:8s} prior={prior:9s} total {r['total_s']:5.1f} s "
                        f"(read {r['read_s']:.1f}, results {r['results_s']:.1f}, "
                        f"rank {r['rank_s']:.1f}, imports {r['import_s']:.1f})  "
                        f"max RSS {r['max_rss_mb']:5.0f} MB  R{tuple(r['shape'])}"
                    )
    if args.json:
        print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
