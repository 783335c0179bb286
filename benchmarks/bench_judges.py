"""The judges model as users run it (run: ``python benchmarks/bench_judges.py``).

Two commands, each timed end to end in a fresh process (imports, compilation, sampling,
diagnostics, report), the wall time a user waits:

* ``bayes-eval judges dataset:mtbench_judges``: MT-Bench, Table D.2 of Vossler et al.,
  "LLMs Judging LLMs: A Simplex Perspective" (2 judges x 6 candidates, 5 levels), 4 chains x
  (1000 + 1000) draws. Issue 28's goal: < 20 s.
* ``bayes-eval judges dataset:summeval_judges --integrated --baselines``: the four SummEval
  dimensions (3 judges x 12 systems each) with the hyperpriors on omega and beta_max, and the
  baselines, at the integrated model's own 4 x (4,000 + 16,000) draws. Goal (issue 40): under two
  minutes per dimension, < 480 s (issue 28's < 120 s was for 4 x 1,000 draws, which did not
  converge).

Each runs with ``--sampler pymc`` and ``--sampler nutpie`` (the integrated model's own); the
convergence verdict of every fit is printed beside its time (a faster run that fails its
convergence checks is not a faster answer). The reference of each row is PyMC's run in the same
invocation: nutpie's time is printed as a ratio to it.

``--smoke``: MT-Bench only, 1 chain of 40 draws after 40 tuning steps, PyMC only (its compiled
graph is cached). ``--json``: as JSON.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

from _timing import versus

ROOT = Path(__file__).resolve().parent.parent
CASES = {
    "mtbench": (["dataset:mtbench_judges"], 20.0),
    "summeval_integrated_baselines": (
        ["dataset:summeval_judges", "--integrated", "--baselines"],
        480.0,
    ),
}


def _number(value) -> float:
    """A diagnostic from the JSON report (None where undefined, e.g. r-hat of one chain)."""
    return float("nan") if value is None else float(value)


def run(args: list[str], sampler: str, extra: list[str]) -> dict:
    """One ``bayes-eval judges`` command in a fresh process: wall seconds and diagnostics."""
    cmd = [sys.executable, "-m", "bayes_eval.cli", "judges", *args, "--json"]
    cmd += ["--sampler", sampler, *extra]
    start = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({proc.returncode}): {proc.stderr[-2000:]}")
    doc = json.loads(proc.stdout)
    fits = doc["fits"] if "fits" in doc else [doc]
    diagnostics = [f["diagnostics"] for f in fits]
    return {
        "wall_s": wall,
        "fits": len(fits),
        "converged": all(bool(d["converged"]) for d in diagnostics),
        "max_rhat": max(_number(d["max_rhat"]) for d in diagnostics),
        "min_ess_bulk": min(_number(d["min_ess_bulk"]) for d in diagnostics),
        "divergences": sum(int(d["divergences"]) for d in diagnostics),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--smoke", action="store_true", help="MT-Bench, 1 chain x 40 draws")
    parser.add_argument("--samplers", default=None, help="default pymc,nutpie (smoke: pymc)")
    args = parser.parse_args()
    cases = dict(CASES)
    extra: list[str] = []
    if args.smoke:
        cases = {"mtbench": CASES["mtbench"]}
        extra = ["--draws", "40", "--tune", "40", "--chains", "1"]
    samplers = (args.samplers or ("pymc" if args.smoke else "pymc,nutpie")).split(",")
    out: dict = {}
    for name, (cmd, goal) in cases.items():
        row = {sampler: run(cmd, sampler, extra) for sampler in samplers}
        best = min(row[s]["wall_s"] for s in samplers)
        row["goal_s"] = goal
        row["meets_goal"] = None if args.smoke else bool(best < goal)
        row["text"] = (
            ", ".join(
                f"{s} {row[s]['wall_s']:.1f} s ({'converged' if row[s]['converged'] else 'NOT converged'})"
                for s in samplers
            )
            + f" (goal < {goal:g} s)"
        )
        if "pymc" in row and "nutpie" in row:
            row["nutpie_vs_pymc"] = versus(
                row["nutpie"]["wall_s"], row["pymc"]["wall_s"], None, what="PyMC's wall"
            )
        out[name] = row
    if args.json:
        print(json.dumps(out, indent=2))
        return
    for name, row in out.items():
        for sampler in samplers:
            r = row[sampler]
            verdict = "converged" if r["converged"] else "NOT converged"
            print(
                f"{name:30s} {sampler:7s} {r['wall_s']:6.1f} s wall (goal < {row['goal_s']:g} s), "
                f"{r['fits']} fit(s), max r-hat {r['max_rhat']:.3f}, "
                f"min bulk ESS {r['min_ess_bulk']:.0f}, divergences {r['divergences']}: {verdict}"
            )
        if "nutpie_vs_pymc" in row:
            print(f"{'':30s} nutpie: {row['nutpie_vs_pymc']['text']}")


if __name__ == "__main__":
    main()
