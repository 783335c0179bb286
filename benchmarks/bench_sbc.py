"""Wall time of simulation-based calibration (run: ``python benchmarks/bench_sbc.py``).

* exact SBC of the matching model (closed-form posterior draws, no MCMC): 10,000
  simulations, M = 30, N = 8, 2 LLMs, 100 ranked draws, one process. Target: seconds.
* NUTS SBC of the hierarchical model through the study runner (``validate sbc``): 200
  simulations, M = 30, N = 8, 2 LLMs, 2 chains x 200 draws after 200 tuning steps, blocks of
  10 on a local Dask cluster of ``--workers`` processes (each compiles the model once).
  Target: under 10 minutes on two cores.

``--quick`` runs 20 NUTS simulations instead (and extrapolates per simulation after the
compile). ``--skip-nuts`` times the exact SBC only. ``--smoke``: 200 exact simulations and
4 NUTS simulations of 5 questions x 4 trials, 1 chain of 40 draws, in process (no Dask; the
compilation dominates). ``--json``: the same numbers as JSON.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time

from bayes_eval.validation import registry
from bayes_eval.validation.sbc import exact_sbc


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--simulations", type=int, default=10_000, help="exact SBC")
    parser.add_argument("--nuts-simulations", type=int, default=200)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--quick", action="store_true", help="20 NUTS simulations")
    parser.add_argument("--skip-nuts", action="store_true")
    parser.add_argument("--smoke", action="store_true", help="tiny sizes, in process")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    nuts = {"n_questions": 30, "trials": 8, "workers": args.workers}
    if args.smoke:
        args.simulations = 200
        nuts = {"n_questions": 5, "trials": 4, "workers": 0, "chains": 1, "draws": 40}
        nuts |= {"tune": 40, "thin": 1, "block": 4}
    out: dict = {}
    start = time.perf_counter()
    ds = exact_sbc(30, 8, simulations=args.simulations, draws=100, seed=0)
    out["exact_matching"] = {
        "simulations": args.simulations,
        "seconds": round(time.perf_counter() - start, 2),
        "p_values": {
            str(v): float(p) for v, p in zip(ds.variable.values, ds.p_value.values, strict=True)
        },
        "passed_all": bool(ds.attrs["passed_all"]),
    }
    start = time.perf_counter()
    ds = exact_sbc(30, 8, simulations=args.simulations, draws=100, posterior_alpha0=5.0, seed=0)
    out["exact_matching_misspecified"] = {
        "simulations": args.simulations,
        "seconds": round(time.perf_counter() - start, 2),
        "p_values": {
            str(v): float(p) for v, p in zip(ds.variable.values, ds.p_value.values, strict=True)
        },
        "passed_all": bool(ds.attrs["passed_all"]),
    }
    if not args.skip_nuts:
        sims = 4 if args.smoke else 20 if args.quick else args.nuts_simulations
        with tempfile.TemporaryDirectory() as tmp:
            start = time.perf_counter()
            result = registry.run_study(
                "sbc",
                tmp,
                progress=False,
                estimator="hierarchical",
                simulations=sims,
                **nuts,
            )
            elapsed = time.perf_counter() - start
        s = result.summary
        out["nuts_hierarchical"] = {
            "simulations": sims,
            "workers": nuts["workers"],
            "seconds": round(elapsed, 1),
            "p_values": {k: v["p_value"] for k, v in s["variables"].items()},
            "passed_all": s["passed_all"],
            "divergences": s["divergences"],
        }
    if args.json:
        print(json.dumps(out, indent=2))
        return
    for key, r in out.items():
        p = ", ".join(f"{k} {v:.3g}" for k, v in r["p_values"].items())
        print(
            f"{key}: {r['simulations']} simulations in {r['seconds']} s; "
            f"{'PASS' if r['passed_all'] else 'FAIL'}; p-values: {p}"
        )


if __name__ == "__main__":
    main()
