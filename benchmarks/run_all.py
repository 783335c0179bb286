"""Run every benchmark at its smoke size, so that none can rot (run: ``make bench-smoke`` or
``python benchmarks/run_all.py``).

Every script ``benchmarks/*.py`` (but this runner and the helpers whose names start with an
underscore) runs with ``--smoke`` in a fresh Python process, ``--jobs`` at a time, the longest
first (the PyMC and nutpie ones, whose compilation dominates). One line per script: its name,
its wall time, ``ok`` or ``FAILED`` (a non-zero exit, or more than ``--timeout`` seconds); the
output of a failed script follows its line. The exit status is 1 if any failed. ``--json``
passes ``--json`` to every script as well, checks that its standard output is one JSON
document, and prints a JSON summary instead of the lines. Goal: all of them in under a minute
on 2 cores.

``--full`` (``make bench``, with ``--table``: the scripts that measure issue 28's table) runs
the scripts at their full size, one at a time, and ends with every goal verdict found in their
JSON documents (each record with a ``meets_goal``), met or not.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
#: Scripts started first: their compilation makes them the longest (seconds, measured smoke).
LONGEST = ("bench_crossed.py", "bench_sbc.py", "bench_crosscheck.py")


def scripts(folder: Path = HERE) -> list[Path]:
    """The benchmark scripts of ``folder``, the longest first, then by name."""
    found = [
        p
        for p in folder.glob("*.py")
        if not p.name.startswith("_") and p.name != Path(__file__).name
    ]
    rank = {name: i for i, name in enumerate(LONGEST)}
    return sorted(found, key=lambda p: (rank.get(p.name, len(rank)), p.name))


#: Arguments of a full-size run (``--full``) beyond ``--json``: the crossed benchmark fits only
#: the two scores of issue 28's row (the ordinal fit and its binomial reference).
FULL_ARGS = {"bench_crossed.py": ["--scores", "levels", "binary"]}
#: The scripts that measure the rows of issue 28's table, issue 38's leaderboard-scale rows, the
#: exact intervals under the learned prior (issues 26 and 40) and the board fit's finite sums
#: (issue 41) (``make bench``).
TABLE = (
    "bench_bayes.py",
    "bench_rank_scale.py",
    "bench_coverage.py",
    "bench_convergence.py",
    "bench_adaptive.py",
    "bench_crosscheck.py",
    "bench_judges.py",
    "bench_crossed.py",
    "bench_exact_learned.py",
    "bench_board_fit.py",
)


def run_one(script: Path, as_json: bool, timeout: float, full: bool = False) -> dict:
    """Run one script with ``--smoke`` (or at full size) and ``--json`` if asked; its name,
    seconds, status, output (and with ``full`` its JSON document)."""
    size = FULL_ARGS.get(script.name, []) if full else ["--smoke"]
    cmd = [sys.executable, str(script), *size, *(["--json"] if as_json or full else [])]
    env = {**os.environ, "MPLBACKEND": "Agg", "PYTHONWARNINGS": "ignore"}
    start = time.perf_counter()
    try:
        proc = subprocess.run(
            cmd, capture_output=True, text=True, timeout=timeout, env=env, cwd=HERE.parent
        )
        code, stdout, stderr = proc.returncode, proc.stdout, proc.stderr
        problem = f"exit status {code}" if code else ""
    except subprocess.TimeoutExpired as exc:
        stdout = exc.stdout.decode() if isinstance(exc.stdout, bytes) else exc.stdout or ""
        stderr = exc.stderr.decode() if isinstance(exc.stderr, bytes) else exc.stderr or ""
        problem = f"over the {timeout:g} s timeout"
    seconds = time.perf_counter() - start
    document = None
    if (as_json or full) and not problem:
        try:
            document = json.loads(stdout)
        except json.JSONDecodeError as exc:
            problem = f"--json printed no single JSON document ({exc})"
    return {
        "script": script.name,
        "seconds": round(seconds, 2),
        "ok": not problem,
        "problem": problem,
        "output": "" if not problem else (stdout + stderr)[-4000:],
        **({"document": document} if full and not problem else {}),
    }


def goals(document, path: str = "") -> list[tuple[str, bool, str]]:
    """Every record with a ``meets_goal`` verdict (True/False) in a benchmark's JSON document:
    its path, the verdict and its printed ``text`` where it has one."""
    found = []
    if isinstance(document, dict):
        if isinstance(document.get("meets_goal"), bool):
            found.append((path or "(top)", document["meets_goal"], str(document.get("text", ""))))
        for key, value in document.items():
            found += goals(value, f"{path}.{key}" if path else str(key))
    elif isinstance(document, list):
        for i, value in enumerate(document):
            found += goals(value, f"{path}[{i}]")
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=2, help="scripts run at a time")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds per script")
    parser.add_argument("--json", action="store_true", help="pass --json and check its output")
    parser.add_argument(
        "--full",
        action="store_true",
        help="full size, one at a time, then every goal verdict (make bench: the table's scripts)",
    )
    parser.add_argument("--table", action="store_true", help="only the scripts of issue 28's table")
    parser.add_argument("--out", metavar="FILE", help="--full: also write every JSON document")
    parser.add_argument("names", nargs="*", help="run only these scripts (file names)")
    args = parser.parse_args(argv)
    if args.jobs < 1 or args.timeout <= 0:
        parser.error("--jobs must be >= 1 and --timeout > 0")
    if args.full:  # timings of record: nothing else of ours runs beside them
        args.jobs, args.timeout = 1, max(args.timeout, 3600.0)
    chosen = scripts()
    if args.table:
        args.names = [*args.names, *TABLE]
    if args.names:
        unknown = sorted(set(args.names) - {p.name for p in chosen})
        if unknown:
            parser.error(
                f"no benchmark named {unknown}; expected some of {[p.name for p in chosen]}"
            )
        chosen = [p for p in chosen if p.name in args.names]
    start = time.perf_counter()
    results = []
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        futures = [pool.submit(run_one, p, args.json, args.timeout, args.full) for p in chosen]
        for future in futures:
            r = future.result()
            results.append(r)
            if not args.json:
                status = "ok" if r["ok"] else f"FAILED ({r['problem']})"
                print(f"{r['script']:28s} {r['seconds']:6.1f} s  {status}", flush=True)
                if not r["ok"]:
                    print("    " + r["output"].replace("\n", "\n    "), flush=True)
    total = time.perf_counter() - start
    failed = [r["script"] for r in results if not r["ok"]]
    if args.full and args.out:
        documents = {r["script"]: r.get("document") for r in results}
        Path(args.out).write_text(json.dumps(documents, indent=1))
    verdicts = [
        {"script": r["script"], "row": row, "meets_goal": met, "text": text}
        for r in results
        for row, met, text in goals(r.get("document"))
    ]
    if args.json:
        doc = {"wall_seconds": round(total, 2), "jobs": args.jobs, "failed": failed}
        if args.full:
            doc["goals"] = verdicts
        print(json.dumps({**doc, "scripts": results}, indent=2))
    else:
        if args.full:
            print(f"\n{len(verdicts)} goals ({sum(v['meets_goal'] for v in verdicts)} met):")
            for v in verdicts:
                mark = "met    " if v["meets_goal"] else "NOT met"
                print(f"  {mark} {v['script']:22s} {v['row']}: {v['text']}")
        verdict = f"{len(failed)} FAILED: {', '.join(failed)}" if failed else "all ok"
        print(f"{len(results)} benchmarks in {total:.1f} s wall ({args.jobs} at a time): {verdict}")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
