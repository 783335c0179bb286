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


def run_one(script: Path, as_json: bool, timeout: float) -> dict:
    """Run one script with ``--smoke`` (and ``--json``); its name, seconds, status, output."""
    cmd = [sys.executable, str(script), "--smoke", *(["--json"] if as_json else [])]
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
    if as_json and not problem:
        try:
            json.loads(stdout)
        except json.JSONDecodeError as exc:
            problem = f"--json printed no single JSON document ({exc})"
    return {
        "script": script.name,
        "seconds": round(seconds, 2),
        "ok": not problem,
        "problem": problem,
        "output": "" if not problem else (stdout + stderr)[-4000:],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=2, help="scripts run at a time")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds per script")
    parser.add_argument("--json", action="store_true", help="pass --json and check its output")
    parser.add_argument("names", nargs="*", help="run only these scripts (file names)")
    args = parser.parse_args(argv)
    if args.jobs < 1 or args.timeout <= 0:
        parser.error("--jobs must be >= 1 and --timeout > 0")
    chosen = scripts()
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
        futures = [pool.submit(run_one, p, args.json, args.timeout) for p in chosen]
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
    if args.json:
        doc = {"wall_seconds": round(total, 2), "jobs": args.jobs, "failed": failed}
        print(json.dumps({**doc, "scripts": results}, indent=2))
    else:
        verdict = f"{len(failed)} FAILED: {', '.join(failed)}" if failed else "all ok"
        print(f"{len(results)} benchmarks in {total:.1f} s wall ({args.jobs} at a time): {verdict}")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
